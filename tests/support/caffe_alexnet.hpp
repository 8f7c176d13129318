// Test support: AlexNet as seed 002 Table 2 counts it (the fit tests' Caffe network).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <steptime/steptime.hpp>

namespace test_support {

using namespace steptime;

// AlexNet as Caffe's bvlc_alexnet writes it (Krizhevsky et al. 2012; 227x227 input, 96-256-384-384-256
// filters, LRN after conv1 and conv2, 6x6x256 into fc6), but without the two-GPU filter groups:
// seed 002 Table 2's 6.24e7 weights are the ungrouped count (grouped: 60,965,224 = 6.10e7).
inline network caffe_alexnet() {
    network net("caffe-alexnet");
    net.add("data", ops::input{tensor_shape::image(227, 227, 3)});
    std::string last = "data";
    const auto then = [&](const std::string& name, layer_op op) {
        net.add(name, std::move(op), {last});
        last = name;
    };
    const auto conv = [&](const std::string& name, std::int64_t filters, std::int64_t k, std::int64_t stride,
                          std::int64_t pad) {
        ops::conv2d c;
        c.filters = filters;
        c.kernel = {k, k};
        c.stride = {stride, stride};
        c.pad = ops::padding::explicit_pads(pad, pad);
        then(name, c);
        then("relu" + name.substr(4), ops::activation{});
    };
    const auto pool = [&](const std::string& name) {
        ops::pool2d p;
        p.window = {3, 3};
        p.stride = {2, 2};
        then(name, p);
    };
    conv("conv1", 96, 11, 4, 0);
    then("norm1", ops::lrn{5});
    pool("pool1");
    conv("conv2", 256, 5, 1, 2);
    then("norm2", ops::lrn{5});
    pool("pool2");
    conv("conv3", 384, 3, 1, 1);
    conv("conv4", 384, 3, 1, 1);
    conv("conv5", 256, 3, 1, 1);
    pool("pool5");
    for (const char* n : {"6", "7"}) {
        then(std::string("fc") + n, ops::dense{4096});
        then(std::string("relu") + n, ops::activation{});
        then(std::string("drop") + n, ops::dropout{0.5});
    }
    then("fc8", ops::dense{1000});
    then("loss", ops::softmax_cross_entropy{});
    return net;
}

}  // namespace test_support
