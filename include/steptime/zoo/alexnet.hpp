// steptime/zoo/alexnet.hpp: AlexNet (TF-slim and Caffe) and OverFeat, the 2012-2014 plain convnets.
#pragma once

#include "steptime/zoo/builder.hpp"

namespace steptime::zoo {

// AlexNet as in "One weird trick" (Krizhevsky 2014), single tower; PALEO's alex_v2 (TF-slim alexnet_v2):
// the fully connected layers are convolutions (fc6 5x5 VALID over pool5's 5x5), batch 128.
// The builders are templates over the network type (any basic_network whose Op accepts layer_op's
// alternatives), which also keeps them from costing compile time where they are not used.
template <class Net = network>
Net alexnet(const options& o = {}) {
    Net net("alexnet");
    net.native_batch = 128;
    const std::int64_t r = detail::side(o);
    net.add("data", ops::input{tensor_shape::image(r, r, 3)});
    using ops::padding;
    detail::chain<Net>(net, "data")
        .conv_relu("conv1", 64, 11, 4, padding::valid()).max_pool("pool1", 3, 2)
        .conv_relu("conv2", 192, 5, 1, padding::same()).max_pool("pool2", 3, 2)
        .conv_relu("conv3", 384, 3, 1, padding::same())
        .conv_relu("conv4", 384, 3, 1, padding::same())
        .conv_relu("conv5", 256, 3, 1, padding::same()).max_pool("pool5", 3, 2)
        .conv_relu("fc6", 4096, 5, 1, padding::valid()).dropout("dropout6")
        .conv_relu("fc7", 4096, 1, 1, padding::same()).dropout("dropout7")
        .then("fc8", detail::conv(o.classes, 1, 1, padding::same()))
        .then("loss", ops::softmax_cross_entropy{});
    return net;
}

// BVLC AlexNet (Caffe's models/bvlc_alexnet, Krizhevsky et al. 2012, Figure 2): 227x227, the two towers'
// split kept as groups=2 in conv2, conv4 and conv5, LRN after conv1 and conv2, fully connected fc6-fc8;
// batch 128 as convnet-benchmarks (Caffe's own is 256).
template <class Net = network>
Net alexnet_caffe(const options& o = {}) {
    Net net("alexnet-caffe");
    net.native_batch = 128;
    const std::int64_t r = detail::side(o, 227);
    net.add("data", ops::input{tensor_shape::image(r, r, 3)});
    using detail::conv;
    detail::chain<Net>(net, "data")
        .conv_relu("conv1", conv(96, {11, 11}, 4, {0, 0}, true)).then("norm1", ops::lrn{5}).max_pool("pool1", 3, 2)
        .conv_relu("conv2", conv(256, {5, 5}, 1, {2, 2}, true, 2)).then("norm2", ops::lrn{5}).max_pool("pool2", 3, 2)
        .conv_relu("conv3", conv(384, {3, 3}, 1, {1, 1}, true))
        .conv_relu("conv4", conv(384, {3, 3}, 1, {1, 1}, true, 2))
        .conv_relu("conv5", conv(256, {3, 3}, 1, {1, 1}, true, 2)).max_pool("pool5", 3, 2)
        .then("fc6", detail::dense(4096)).then("fc6/relu", ops::activation{}).dropout("drop6")
        .then("fc7", detail::dense(4096)).then("fc7/relu", ops::activation{}).dropout("drop7")
        .then("fc8", detail::dense(o.classes))
        .then("loss", ops::softmax_cross_entropy{});
    return net;
}

// OverFeat, fast model (Sermanet et al. 2014, Table 1): 231x231, batch 128, as convnet-benchmarks runs it
// (96 filters in conv1; PALEO's TF-slim overfeat.json has 64), fully connected layers as convolutions.
template <class Net = network>
Net overfeat(const options& o = {}) {
    Net net("overfeat-fast");
    net.native_batch = 128;
    const std::int64_t r = detail::side(o, 231);
    net.add("data", ops::input{tensor_shape::image(r, r, 3)});
    using ops::padding;
    detail::chain<Net> c(net, "data");
    c.conv_relu("conv1", 96, 11, 4, padding::valid()).max_pool("pool1", 2, 2)
        .conv_relu("conv2", 256, 5, 1, padding::valid()).max_pool("pool2", 2, 2)
        .conv_relu("conv3", 512, 3, 1, padding::same())
        .conv_relu("conv4", 1024, 3, 1, padding::same())
        .conv_relu("conv5", 1024, 3, 1, padding::same()).max_pool("pool5", 2, 2);
    c.conv_relu("fc6", 3072, net.at("pool5").output.h(), 1, padding::valid()).dropout("dropout6")
        .conv_relu("fc7", 4096, 1, 1, padding::same()).dropout("dropout7")
        .then("fc8", detail::conv(o.classes, 1, 1, padding::same()))
        .then("loss", ops::softmax_cross_entropy{});
    return net;
}

}  // namespace steptime::zoo
