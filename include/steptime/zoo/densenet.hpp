// steptime/zoo/densenet.hpp: DenseNet-121.
#pragma once

#include "steptime/zoo/builder.hpp"

namespace steptime::zoo {

// DenseNet-121 (Huang et al. 2017, Table 1; torchvision's densenet121): growth 32, dense layers
// BN-ReLU-1x1 conv (4 x growth)-BN-ReLU-3x3 conv whose output joins the running concatenation, transitions
// BN-ReLU-1x1 conv (compression 0.5)-2x2/2 average pooling, a final BN-ReLU. Batch 64.
template <class Net = network>
Net densenet121(const options& o = {}) {
    Net net("densenet121");
    net.native_batch = 64;
    const std::int64_t r = detail::side(o);
    net.add("data", ops::input{tensor_shape::image(r, r, 3)});
    using detail::conv;
    const std::int64_t growth = 32;
    const int blocks[] = {6, 12, 24, 16};
    detail::chain<Net> c(net, "data");
    c.conv_bn("conv0", conv(64, {7, 7}, 2, {3, 3}, false))
        .then("pool0", detail::max_pool(3, 2, ops::padding::explicit_pads(1, 1)));
    std::string x = c.last();
    for (int b = 0; b < 4; ++b) {
        const std::string block = "denseblock" + std::to_string(b + 1);
        for (int l = 1; l <= blocks[b]; ++l) {
            const std::string layer = block + "/layer" + std::to_string(l);
            const std::string y = detail::chain<Net>(net, x)
                                      .then(layer + "/norm1", ops::batch_norm{}).then(layer + "/relu1", ops::activation{})
                                      .then(layer + "/conv1", conv(4 * growth, {1, 1}, 1, {0, 0}, false))
                                      .then(layer + "/norm2", ops::batch_norm{}).then(layer + "/relu2", ops::activation{})
                                      .then(layer + "/conv2", conv(growth, {3, 3}, 1, {1, 1}, false))
                                      .last();
            x = detail::join(net, layer + "/concat", ops::concat{}, {x, y});
        }
        detail::chain<Net> t(net, x);
        if (b < 3) {
            const std::string tr = "transition" + std::to_string(b + 1);
            t.then(tr + "/norm", ops::batch_norm{}).then(tr + "/relu", ops::activation{})
                .then(tr + "/conv", conv(net.at(x).output.c() / 2, {1, 1}, 1, {0, 0}, false))
                .then(tr + "/pool", detail::avg_pool(2, 2));
        } else {
            t.then("norm5", ops::batch_norm{}).then("relu5", ops::activation{});
        }
        x = t.last();
    }
    detail::chain<Net>(net, x).classifier(o.classes);
    return net;
}

}  // namespace steptime::zoo
