// steptime/zoo/densenet.hpp: DenseNet-121, -161, -169 and -201.
#pragma once

#include <array>

#include "steptime/zoo/builder.hpp"

namespace steptime::zoo {

namespace detail {
// One DenseNet: growth rate, stem channels and dense layers per block (Huang et al. 2017, Table 1; the
// ImageNet DenseNet-161's growth 48 and 96-channel stem from their released models, as torchvision's).
struct densenet_spec {
    const char* name;
    std::int64_t growth;
    std::int64_t stem_channels;
    std::array<int, 4> blocks;
};

// The DenseNet skeleton: dense layers BN-ReLU-1x1 conv (4 x growth)-BN-ReLU-3x3 conv whose output joins the
// running concatenation, transitions BN-ReLU-1x1 conv (compression 0.5)-2x2/2 average pooling, a final
// BN-ReLU. Batch 64.
template <class Net>
Net densenet(const densenet_spec& s, const options& o) {
    Net net(s.name);
    net.native_batch = 64;
    const std::int64_t r = side(o);
    net.add("data", ops::input{tensor_shape::image(r, r, 3)});
    chain<Net> c(net, "data");
    c.conv_bn("conv0", conv(s.stem_channels, {7, 7}, 2, {3, 3}, false))
        .then("pool0", max_pool(3, 2, ops::padding::explicit_pads(1, 1)));
    std::string x = c.last();
    for (int b = 0; b < 4; ++b) {
        const std::string block = "denseblock" + std::to_string(b + 1);
        for (int l = 1; l <= s.blocks[b]; ++l) {
            const std::string layer = block + "/layer" + std::to_string(l);
            const std::string y = chain<Net>(net, x)
                                      .then(layer + "/norm1", ops::batch_norm{}).then(layer + "/relu1", ops::activation{})
                                      .then(layer + "/conv1", conv(4 * s.growth, {1, 1}, 1, {0, 0}, false))
                                      .then(layer + "/norm2", ops::batch_norm{}).then(layer + "/relu2", ops::activation{})
                                      .then(layer + "/conv2", conv(s.growth, {3, 3}, 1, {1, 1}, false))
                                      .last();
            x = join(net, layer + "/concat", ops::concat{}, {x, y});
        }
        chain<Net> t(net, x);
        if (b < 3) {
            const std::string tr = "transition" + std::to_string(b + 1);
            t.then(tr + "/norm", ops::batch_norm{}).then(tr + "/relu", ops::activation{})
                .then(tr + "/conv", conv(net.at(x).output.c() / 2, {1, 1}, 1, {0, 0}, false))
                .then(tr + "/pool", avg_pool(2, 2));
        } else {
            t.then("norm5", ops::batch_norm{}).then("relu5", ops::activation{});
        }
        x = t.last();
    }
    chain<Net>(net, x).classifier(o.classes);
    return net;
}

}  // namespace detail

template <class Net = network>
Net densenet121(const options& o = {}) {
    return detail::densenet<Net>({"densenet121", 32, 64, {6, 12, 24, 16}}, o);
}
template <class Net = network>
Net densenet161(const options& o = {}) {
    return detail::densenet<Net>({"densenet161", 48, 96, {6, 12, 36, 24}}, o);
}
template <class Net = network>
Net densenet169(const options& o = {}) {
    return detail::densenet<Net>({"densenet169", 32, 64, {6, 12, 32, 32}}, o);
}
template <class Net = network>
Net densenet201(const options& o = {}) {
    return detail::densenet<Net>({"densenet201", 32, 64, {6, 12, 48, 32}}, o);
}

}  // namespace steptime::zoo
