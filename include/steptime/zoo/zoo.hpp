// steptime/zoo/zoo.hpp: built-in networks, written with the builder API.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "steptime/graph/network.hpp"

namespace steptime::zoo {

struct options {
    std::int64_t resolution = 224;  // input height and width
    std::int64_t classes = 1000;
};

namespace detail {

// A square convolution (assigned field by field: headers avoid partial designated initializers,
// which g++ 12 flags under -Wextra in users' builds).
inline ops::conv2d conv(std::int64_t filters, std::int64_t k, std::int64_t stride, ops::padding pad) {
    ops::conv2d c;
    c.filters = filters;
    c.kernel = {k, k};
    c.stride = {stride, stride};
    c.pad = pad;
    return c;
}

// A chain builder: each layer's parent is the previous one.
template <class Net>
class chain {
public:
    chain(Net& net, std::string first) : net_(net), last_(std::move(first)) {}
    chain& then(const std::string& name, layer_op op) {
        net_.add(name, std::move(op), {last_});
        last_ = name;
        return *this;
    }
    // A convolution followed by its ReLU ("<name>/relu"), as the frameworks run them.
    chain& conv_relu(const std::string& name, std::int64_t filters, std::int64_t k, std::int64_t stride,
                     ops::padding pad) {
        return then(name, conv(filters, k, stride, pad)).then(name + "/relu", ops::activation{});
    }
    chain& max_pool(const std::string& name, std::int64_t k, std::int64_t stride) {
        ops::pool2d p;
        p.window = {k, k};
        p.stride = {stride, stride};
        return then(name, p);
    }
    chain& dropout(const std::string& name) { return then(name, ops::dropout{0.5}); }

private:
    network& net_;
    std::string last_;
};

}  // namespace detail

// AlexNet as in "One weird trick" (Krizhevsky 2014), single tower; PALEO's alex_v2 (TF-slim alexnet_v2):
// the fully connected layers are convolutions (fc6 5x5 VALID over pool5's 5x5), batch 128.
// The builders are templates over the network type (any basic_network whose Op accepts layer_op's
// alternatives), which also keeps them from costing compile time where they are not used.
template <class Net = network>
Net alexnet(const options& o = {}) {
    Net net("alexnet");
    net.native_batch = 128;
    net.add("data", ops::input{tensor_shape::image(o.resolution, o.resolution, 3)});
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

namespace detail {
// VGG (Simonyan and Zisserman 2015, Table 1) as TF-slim and PALEO's vgg16 write it (fully connected layers
// as convolutions): five stages of 3x3 convolutions of 64, 128, 256, 512, 512 filters, `depths` deep,
// each closed by a 2x2/2 max pooling; batch 64.
template <class Net>
Net vgg(const char* name, const std::int64_t (&depths)[5], const options& o) {
    Net net(name);
    net.native_batch = 64;
    net.add("data", ops::input{tensor_shape::image(o.resolution, o.resolution, 3)});
    chain<Net> c(net, "data");
    const std::int64_t widths[] = {64, 128, 256, 512, 512};
    for (int s = 0; s < 5; ++s) {
        for (int i = 1; i <= depths[s]; ++i)
            c.conv_relu("conv" + std::to_string(s + 1) + "-" + std::to_string(i), widths[s], 3, 1, ops::padding::same());
        c.max_pool("pool" + std::to_string(s + 1), 2, 2);
    }
    const std::int64_t last = o.resolution / 32;  // five 2x2/2 poolings
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

template <class Net = network>
struct entry {
    std::string_view name;
    std::string_view description;
    Net (*build)(const options&);
};

template <class Net = network>
const std::vector<entry<Net>>& catalog() {
    static const std::vector<entry<Net>> all{
        {"alexnet", "AlexNet, One Weird Trick single tower (PALEO's alex_v2), 224x224", alexnet<Net>},
        {"vgg11", "VGG-11, configuration A (VGG-A), 224x224", vgg11<Net>},
        {"vgg16", "VGG-16, configuration D, 224x224", vgg16<Net>},
        {"vgg19", "VGG-19, configuration E, 224x224", vgg19<Net>},
    };
    return all;
}

template <class Net = network>
const entry<Net>* find(std::string_view name) {
    for (const auto& e : catalog<Net>())
        if (e.name == name) return &e;
    return nullptr;
}

}  // namespace steptime::zoo
