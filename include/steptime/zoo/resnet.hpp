// steptime/zoo/resnet.hpp: ResNet-18/34/50/101/152, ResNeXt-101 32x4d and SE-ResNeXt-101 32x4d.
#pragma once

#include <array>

#include "steptime/zoo/builder.hpp"

namespace steptime::zoo {

namespace detail {

// One residual family: blocks per stage, the block type and, for bottlenecks, cardinality and width.
struct resnet_spec {
    const char* name;
    std::array<int, 4> blocks;
    bool bottleneck;            // 1x1-3x3-1x1 (expansion 4) or two 3x3 (expansion 1)
    std::int64_t groups;        // cardinality of the 3x3 convolution (ResNeXt)
    std::int64_t group_width;   // 3x3 width = planes * group_width / 64 * groups (64 and 1: plain ResNet)
    bool squeeze_excitation;    // SE module on the residual branch, reduction 16 (Hu et al. 2018, Figure 3)
};

// A residual block: the branch, an SE gate if asked, the projection shortcut where the shape changes,
// the sum and its ReLU. The stride is on the 3x3 convolution (ResNet v1.5, ResNeXt, SE-ResNeXt).
template <class Net>
std::string residual_block(Net& net, const resnet_spec& s, const std::string& name, const std::string& in,
                           std::int64_t planes, std::int64_t stride) {
    const std::int64_t in_channels = net.at(in).output.c();
    const std::int64_t out_channels = s.bottleneck ? 4 * planes : planes;
    chain<Net> c(net, in);
    if (s.bottleneck) {
        const std::int64_t width = planes * s.group_width / 64 * s.groups;
        c.conv_bn(name + "/conv1", conv(width, {1, 1}, 1, {0, 0}, false))
            .conv_bn(name + "/conv2", conv(width, {3, 3}, stride, {1, 1}, false, s.groups))
            .conv_bn(name + "/conv3", conv(out_channels, {1, 1}, 1, {0, 0}, false), false);
    } else {
        c.conv_bn(name + "/conv1", conv(planes, {3, 3}, stride, {1, 1}, false))
            .conv_bn(name + "/conv2", conv(planes, {3, 3}, 1, {1, 1}, false), false);
    }
    std::string branch = c.last();
    if (s.squeeze_excitation) {
        // Squeeze (global average), excite (1x1 reduce, ReLU, 1x1 expand, sigmoid), scale the channels.
        chain<Net> se(net, branch);
        se.then(name + "/se/pool", global_avg_pool())
            .conv_relu(name + "/se/reduce", conv(out_channels / 16, {1, 1}, 1, {0, 0}, true))
            .then(name + "/se/expand", conv(out_channels, {1, 1}, 1, {0, 0}, true))
            .then(name + "/se/sigmoid", act(ops::activation::function::sigmoid));
        branch = join(net, name + "/se/scale", elementwise(ops::elementwise::operation::multiply), {branch, se.last()});
    }
    std::string shortcut = in;
    if (stride != 1 || in_channels != out_channels)
        shortcut = chain<Net>(net, in)
                       .conv_bn(name + "/downsample", conv(out_channels, {1, 1}, stride, {0, 0}, false), false)
                       .last();
    join(net, name + "/add", elementwise(ops::elementwise::operation::add), {branch, shortcut});
    return chain<Net>(net, name + "/add").then(name + "/relu", ops::activation{}).last();
}

// The ResNet skeleton (He et al. 2016, Table 1): 7x7/2 stem, 3x3/2 max pool, four stages of 64-512 planes
// (the first block of stages 2-4 strides 2), global average pooling, the classifier. Batch 64.
template <class Net>
Net resnet(const resnet_spec& s, const options& o) {
    Net net(s.name);
    net.native_batch = 64;
    const std::int64_t r = side(o);
    net.add("data", ops::input{tensor_shape::image(r, r, 3)});
    chain<Net> c(net, "data");
    c.conv_bn("conv1", conv(64, {7, 7}, 2, {3, 3}, false))
        .then("maxpool", max_pool(3, 2, ops::padding::explicit_pads(1, 1)));
    std::string x = c.last();
    for (int stage = 0; stage < 4; ++stage)
        for (int b = 0; b < s.blocks[static_cast<std::size_t>(stage)]; ++b)
            x = residual_block(net, s, "layer" + std::to_string(stage + 1) + "." + std::to_string(b), x,
                               std::int64_t{64} << stage, stage > 0 && b == 0 ? 2 : 1);
    chain<Net>(net, x).classifier(o.classes);
    return net;
}

}  // namespace detail

// ResNet-18 and -34 (He et al. 2016, Table 1): basic blocks, as torchvision's resnet18/resnet34.
template <class Net = network>
Net resnet18(const options& o = {}) {
    return detail::resnet<Net>({"resnet18", {2, 2, 2, 2}, false, 1, 64, false}, o);
}
template <class Net = network>
Net resnet34(const options& o = {}) {
    return detail::resnet<Net>({"resnet34", {3, 4, 6, 3}, false, 1, 64, false}, o);
}
// ResNet-50, -101 and -152 (He et al. 2016, Table 1), bottleneck blocks, v1.5 as torchvision's.
template <class Net = network>
Net resnet50(const options& o = {}) {
    return detail::resnet<Net>({"resnet50", {3, 4, 6, 3}, true, 1, 64, false}, o);
}
template <class Net = network>
Net resnet101(const options& o = {}) {
    return detail::resnet<Net>({"resnet101", {3, 4, 23, 3}, true, 1, 64, false}, o);
}
template <class Net = network>
Net resnet152(const options& o = {}) {
    return detail::resnet<Net>({"resnet152", {3, 8, 36, 3}, true, 1, 64, false}, o);
}
// ResNeXt-101 32x4d (Xie et al. 2017, Table 1 with 101 layers; Cadene's pretrained-models resnext101_32x4d).
template <class Net = network>
Net resnext101_32x4d(const options& o = {}) {
    return detail::resnet<Net>({"resnext101-32x4d", {3, 4, 23, 3}, true, 32, 4, false}, o);
}
// SE-ResNeXt-101 32x4d (Hu et al. 2018, Table 1; Cadene's pretrained-models se_resnext101_32x4d).
template <class Net = network>
Net se_resnext101_32x4d(const options& o = {}) {
    return detail::resnet<Net>({"se-resnext101-32x4d", {3, 4, 23, 3}, true, 32, 4, true}, o);
}

}  // namespace steptime::zoo
