// steptime/zoo/nin.hpp: Network in Network.
#pragma once

#include "steptime/zoo/builder.hpp"

namespace steptime::zoo {

// Network in Network, ImageNet model (Lin et al. 2014; the Caffe model zoo's nin_imagenet, gist
// mavenlin/d802a5849de39225bcc6): four mlpconv blocks (a convolution and two 1x1 "cccp" convolutions, each
// with bias and ReLU), global average pooling, batch 128 as PALEO's nin.json. Layer names and pooling
// geometry are PALEO's (VALID, rounding down: 26, 12, 5 where Caffe's rounding up gives 27, 13, 6).
template <class Net = network>
Net nin(const options& o = {}) {
    Net net("nin");
    net.native_batch = 128;
    const std::int64_t r = detail::side(o);
    net.add("data", ops::input{tensor_shape::image(r, r, 3)});
    using ops::padding;
    detail::chain<Net> c(net, "data");
    const auto mlpconv = [&](const std::string& conv, std::int64_t filters, std::int64_t k, std::int64_t stride,
                             const std::string& cccp_a, const std::string& cccp_b, std::int64_t last) {
        c.conv_relu(conv, filters, k, stride, k == 11 ? padding::valid() : padding::same())
            .conv_relu(cccp_a, filters, 1, 1, padding::valid())
            .conv_relu(cccp_b, last, 1, 1, padding::valid());
    };
    mlpconv("conv1", 96, 11, 4, "cccp1", "cccp2", 96);
    c.max_pool("pool0", 3, 2);
    mlpconv("conv2", 256, 5, 1, "cccp3", "cccp4", 256);
    c.max_pool("pool2", 3, 2);
    mlpconv("conv3", 384, 3, 1, "cccp5", "cccp6", 384);
    c.max_pool("pool3", 3, 2).dropout("drop");
    mlpconv("conv4", 1024, 3, 1, "cccp7", "cccp8", o.classes);
    c.then("pool4", detail::global_avg_pool()).then("loss", ops::softmax_cross_entropy{});
    return net;
}

}  // namespace steptime::zoo
