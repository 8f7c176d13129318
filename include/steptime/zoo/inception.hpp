// steptime/zoo/inception.hpp: GoogLeNet (Inception v1) and Inception v3.
#pragma once

#include "steptime/zoo/builder.hpp"

namespace steptime::zoo {

namespace detail {

// One convolution of an Inception branch: filters, kernel, stride, pads.
struct branch_conv {
    std::string name;
    std::int64_t filters;
    ops::extent kernel;
    std::int64_t stride;
    ops::extent pad;
};

// A branch from `in`: optionally a pooling ("<prefix>/pool"), then convolutions each with ReLU, and with
// batch normalization (bias-free) when `bn`; returns the last layer's name.
template <class Net>
std::string branch(Net& net, const std::string& in, const std::string& prefix, bool bn,
                   std::initializer_list<branch_conv> convs, const ops::pool2d* pool = nullptr) {
    chain<Net> c(net, in);
    if (pool) c.then(prefix + "/pool", *pool);
    for (const auto& b : convs) {
        const auto k = conv(b.filters, b.kernel, b.stride, b.pad, !bn);
        if (bn) c.conv_bn(prefix + "/" + b.name, k);
        else c.conv_relu(prefix + "/" + b.name, k);
    }
    return c.last();
}

// GoogLeNet's Inception module (Szegedy et al. 2015, Figure 2b): 1x1; 1x1 -> 3x3; 1x1 -> 5x5; 3x3 max pool -> 1x1.
template <class Net>
std::string inception_v1(Net& net, const std::string& name, const std::string& in, std::int64_t n1, std::int64_t r3,
                         std::int64_t n3, std::int64_t r5, std::int64_t n5, std::int64_t proj) {
    const auto pool = max_pool(3, 1, ops::padding::same());
    return join(net, name + "/output", ops::concat{},
                {branch(net, in, name, false, {{"1x1", n1, {1, 1}, 1, {0, 0}}}),
                 branch(net, in, name, false, {{"3x3_reduce", r3, {1, 1}, 1, {0, 0}}, {"3x3", n3, {3, 3}, 1, {1, 1}}}),
                 branch(net, in, name, false, {{"5x5_reduce", r5, {1, 1}, 1, {0, 0}}, {"5x5", n5, {5, 5}, 1, {2, 2}}}),
                 branch(net, in, name, false, {{"pool_proj", proj, {1, 1}, 1, {0, 0}}}, &pool)});
}

}  // namespace detail

// GoogLeNet (Szegedy et al. 2015, Table 1; Caffe's bvlc_googlenet): convolutions with bias and ReLU, LRN
// after pool1 and conv2, nine Inception modules, average pooling, 40% dropout; without the two auxiliary
// classifiers (training-only heads). Poolings round up as Caffe's (SAME). Batch 128 as convnet-benchmarks.
template <class Net = network>
Net googlenet(const options& o = {}) {
    Net net("googlenet");
    net.native_batch = 128;
    const std::int64_t r = detail::side(o);
    net.add("data", ops::input{tensor_shape::image(r, r, 3)});
    using ops::padding, detail::conv, detail::max_pool;
    detail::chain<Net> c(net, "data");
    c.conv_relu("conv1/7x7_s2", conv(64, {7, 7}, 2, {3, 3}, true))
        .then("pool1/3x3_s2", max_pool(3, 2, padding::same())).then("pool1/norm1", ops::lrn{5})
        .conv_relu("conv2/3x3_reduce", conv(64, {1, 1}, 1, {0, 0}, true))
        .conv_relu("conv2/3x3", conv(192, {3, 3}, 1, {1, 1}, true)).then("conv2/norm2", ops::lrn{5})
        .then("pool2/3x3_s2", max_pool(3, 2, padding::same()));
    std::string x = c.last();
    x = detail::inception_v1(net, "inception_3a", x, 64, 96, 128, 16, 32, 32);
    x = detail::inception_v1(net, "inception_3b", x, 128, 128, 192, 32, 96, 64);
    net.add("pool3/3x3_s2", max_pool(3, 2, padding::same()), {x});
    x = detail::inception_v1(net, "inception_4a", "pool3/3x3_s2", 192, 96, 208, 16, 48, 64);
    x = detail::inception_v1(net, "inception_4b", x, 160, 112, 224, 24, 64, 64);
    x = detail::inception_v1(net, "inception_4c", x, 128, 128, 256, 24, 64, 64);
    x = detail::inception_v1(net, "inception_4d", x, 112, 144, 288, 32, 64, 64);
    x = detail::inception_v1(net, "inception_4e", x, 256, 160, 320, 32, 128, 128);
    net.add("pool4/3x3_s2", max_pool(3, 2, padding::same()), {x});
    x = detail::inception_v1(net, "inception_5a", "pool4/3x3_s2", 256, 160, 320, 32, 128, 128);
    x = detail::inception_v1(net, "inception_5b", x, 384, 192, 384, 48, 128, 128);
    detail::chain<Net>(net, x)
        .then("pool5", detail::global_avg_pool()).dropout("dropout", 0.6)
        .then("fc", detail::dense(o.classes)).then("loss", ops::softmax_cross_entropy{});
    return net;
}

namespace detail {

// Inception v3's modules (Szegedy et al. 2016, Figures 5-7 and Table 1) as torchvision's inception.py
// writes them (InceptionA-E), each convolution bias-free with batch normalization and ReLU.
template <class Net>
std::string inception_a(Net& net, const std::string& name, const std::string& in, std::int64_t pool_features) {
    const auto avg = avg_pool(3, 1, ops::padding::explicit_pads(1, 1));
    return join(net, name, ops::concat{},
                {branch(net, in, name + "/b1x1", true, {{"conv", 64, {1, 1}, 1, {0, 0}}}),
                 branch(net, in, name + "/b5x5", true, {{"conv1", 48, {1, 1}, 1, {0, 0}}, {"conv2", 64, {5, 5}, 1, {2, 2}}}),
                 branch(net, in, name + "/b3x3dbl", true,
                        {{"conv1", 64, {1, 1}, 1, {0, 0}}, {"conv2", 96, {3, 3}, 1, {1, 1}}, {"conv3", 96, {3, 3}, 1, {1, 1}}}),
                 branch(net, in, name + "/bpool", true, {{"conv", pool_features, {1, 1}, 1, {0, 0}}}, &avg)});
}
template <class Net>
std::string inception_b(Net& net, const std::string& name, const std::string& in) {
    const auto pool = max_pool(3, 2);
    return join(net, name, ops::concat{},
                {branch(net, in, name + "/b3x3", true, {{"conv", 384, {3, 3}, 2, {0, 0}}}),
                 branch(net, in, name + "/b3x3dbl", true,
                        {{"conv1", 64, {1, 1}, 1, {0, 0}}, {"conv2", 96, {3, 3}, 1, {1, 1}}, {"conv3", 96, {3, 3}, 2, {0, 0}}}),
                 branch(net, in, name + "/bpool", true, {}, &pool)});
}
template <class Net>
std::string inception_c(Net& net, const std::string& name, const std::string& in, std::int64_t c7) {
    const auto avg = avg_pool(3, 1, ops::padding::explicit_pads(1, 1));
    return join(net, name, ops::concat{},
                {branch(net, in, name + "/b1x1", true, {{"conv", 192, {1, 1}, 1, {0, 0}}}),
                 branch(net, in, name + "/b7x7", true,
                        {{"conv1", c7, {1, 1}, 1, {0, 0}}, {"conv2", c7, {1, 7}, 1, {0, 3}}, {"conv3", 192, {7, 1}, 1, {3, 0}}}),
                 branch(net, in, name + "/b7x7dbl", true,
                        {{"conv1", c7, {1, 1}, 1, {0, 0}}, {"conv2", c7, {7, 1}, 1, {3, 0}}, {"conv3", c7, {1, 7}, 1, {0, 3}},
                         {"conv4", c7, {7, 1}, 1, {3, 0}}, {"conv5", 192, {1, 7}, 1, {0, 3}}}),
                 branch(net, in, name + "/bpool", true, {{"conv", 192, {1, 1}, 1, {0, 0}}}, &avg)});
}
template <class Net>
std::string inception_d(Net& net, const std::string& name, const std::string& in) {
    const auto pool = max_pool(3, 2);
    return join(net, name, ops::concat{},
                {branch(net, in, name + "/b3x3", true, {{"conv1", 192, {1, 1}, 1, {0, 0}}, {"conv2", 320, {3, 3}, 2, {0, 0}}}),
                 branch(net, in, name + "/b7x7x3", true,
                        {{"conv1", 192, {1, 1}, 1, {0, 0}}, {"conv2", 192, {1, 7}, 1, {0, 3}}, {"conv3", 192, {7, 1}, 1, {3, 0}},
                         {"conv4", 192, {3, 3}, 2, {0, 0}}}),
                 branch(net, in, name + "/bpool", true, {}, &pool)});
}
// InceptionE: the 3x3 branches split into parallel 1x3 and 3x1 convolutions, concatenated (Figure 7).
template <class Net>
std::string inception_e(Net& net, const std::string& name, const std::string& in) {
    const auto avg = avg_pool(3, 1, ops::padding::explicit_pads(1, 1));
    const auto split = [&](const std::string& from, const std::string& prefix) {
        return join(net, prefix, ops::concat{},
                    {branch(net, from, prefix, true, {{"a_1x3", 384, {1, 3}, 1, {0, 1}}}),
                     branch(net, from, prefix, true, {{"b_3x1", 384, {3, 1}, 1, {1, 0}}})});
    };
    const std::string b1 = branch(net, in, name + "/b1x1", true, {{"conv", 320, {1, 1}, 1, {0, 0}}});
    const std::string b3 = split(branch(net, in, name + "/b3x3", true, {{"conv1", 384, {1, 1}, 1, {0, 0}}}), name + "/b3x3");
    const std::string b3dbl = split(branch(net, in, name + "/b3x3dbl", true,
                                           {{"conv1", 448, {1, 1}, 1, {0, 0}}, {"conv2", 384, {3, 3}, 1, {1, 1}}}),
                                    name + "/b3x3dbl");
    const std::string bp = branch(net, in, name + "/bpool", true, {{"conv", 192, {1, 1}, 1, {0, 0}}}, &avg);
    return join(net, name, ops::concat{}, {b1, b3, b3dbl, bp});
}

}  // namespace detail

// Inception v3 (Szegedy et al. 2016, Table 1) as torchvision's inception_v3: 299x299, batch 64, without
// the auxiliary classifier (a training-only head: torchvision's 27,161,264 parameters count it, 3,326,696).
template <class Net = network>
Net inception_v3(const options& o = {}) {
    Net net("inception-v3");
    net.native_batch = 64;
    const std::int64_t r = detail::side(o, 299);
    net.add("data", ops::input{tensor_shape::image(r, r, 3)});
    using detail::conv;
    detail::chain<Net> c(net, "data");
    c.conv_bn("Conv2d_1a_3x3", conv(32, {3, 3}, 2, {0, 0}, false))
        .conv_bn("Conv2d_2a_3x3", conv(32, {3, 3}, 1, {0, 0}, false))
        .conv_bn("Conv2d_2b_3x3", conv(64, {3, 3}, 1, {1, 1}, false)).max_pool("MaxPool_3a_3x3", 3, 2)
        .conv_bn("Conv2d_3b_1x1", conv(80, {1, 1}, 1, {0, 0}, false))
        .conv_bn("Conv2d_4a_3x3", conv(192, {3, 3}, 1, {0, 0}, false)).max_pool("MaxPool_5a_3x3", 3, 2);
    std::string x = c.last();
    x = detail::inception_a(net, "Mixed_5b", x, 32);
    x = detail::inception_a(net, "Mixed_5c", x, 64);
    x = detail::inception_a(net, "Mixed_5d", x, 64);
    x = detail::inception_b(net, "Mixed_6a", x);
    x = detail::inception_c(net, "Mixed_6b", x, 128);
    x = detail::inception_c(net, "Mixed_6c", x, 160);
    x = detail::inception_c(net, "Mixed_6d", x, 160);
    x = detail::inception_c(net, "Mixed_6e", x, 192);
    x = detail::inception_d(net, "Mixed_7a", x);
    x = detail::inception_e(net, "Mixed_7b", x);
    x = detail::inception_e(net, "Mixed_7c", x);
    detail::chain<Net>(net, x).then("avgpool", detail::global_avg_pool()).dropout("dropout")
        .then("fc", detail::dense(o.classes)).then("loss", ops::softmax_cross_entropy{});
    return net;
}

}  // namespace steptime::zoo
