// steptime/zoo/vgg.hpp: VGG-11, -16 and -19.
#pragma once

#include "steptime/zoo/builder.hpp"

namespace steptime::zoo {

namespace detail {
// VGG (Simonyan and Zisserman 2015, Table 1) as TF-slim and PALEO's vgg16 write it (fully connected layers
// as convolutions): five stages of 3x3 convolutions of 64, 128, 256, 512, 512 filters, `depths` deep,
// each closed by a 2x2/2 max pooling; batch 64.
template <class Net>
Net vgg(const char* name, const std::int64_t (&depths)[5], const options& o) {
    Net net(name);
    net.native_batch = 64;
    const std::int64_t r = side(o);
    net.add("data", ops::input{tensor_shape::image(r, r, 3)});
    chain<Net> c(net, "data");
    const std::int64_t widths[] = {64, 128, 256, 512, 512};
    for (int s = 0; s < 5; ++s) {
        for (int i = 1; i <= depths[s]; ++i)
            c.conv_relu("conv" + std::to_string(s + 1) + "-" + std::to_string(i), widths[s], 3, 1, ops::padding::same());
        c.max_pool("pool" + std::to_string(s + 1), 2, 2);
    }
    const std::int64_t last = r / 32;  // five 2x2/2 poolings
    c.conv_relu("fc6", 4096, last, 1, ops::padding::valid()).dropout("dropout6")
        .conv_relu("fc7", 4096, 1, 1, ops::padding::same()).dropout("dropout7")
        .then("fc8", conv(o.classes, 1, 1, ops::padding::same()))
        .then("loss", ops::softmax_cross_entropy{});
    return net;
}
}  // namespace detail

// VGG-11, configuration A ("VGG-A" in convnet-benchmarks).
template <class Net = network>
Net vgg11(const options& o = {}) {
    return detail::vgg<Net>("vgg11", {1, 1, 2, 2, 2}, o);
}

// VGG-16, configuration D.
template <class Net = network>
Net vgg16(const options& o = {}) {
    return detail::vgg<Net>("vgg16", {2, 2, 3, 3, 3}, o);
}

// VGG-19, configuration E.
template <class Net = network>
Net vgg19(const options& o = {}) {
    return detail::vgg<Net>("vgg19", {2, 2, 4, 4, 4}, o);
}

}  // namespace steptime::zoo
