// steptime/zoo/builder.hpp: the zoo's options and the helpers its builders share (layer factories, a chain).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "steptime/graph/network.hpp"

namespace steptime::zoo {

struct options {
    std::int64_t resolution = 0;  // input height and width; 0: the network's own (224 for most)
    std::int64_t classes = 1000;
};

namespace detail {

// The input side: the option's, or the network's own.
inline std::int64_t side(const options& o, std::int64_t native = 224) { return o.resolution > 0 ? o.resolution : native; }

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

// A kh x kw convolution with explicit pads (ph, pw), as PyTorch and Caffe write them.
inline ops::conv2d conv(std::int64_t filters, ops::extent k, std::int64_t stride, ops::extent pad, bool bias,
                        std::int64_t groups = 1) {
    ops::conv2d c = conv(filters, 1, stride, ops::padding::explicit_pads(pad.h, pad.w));
    c.kernel = k;
    c.groups = groups;
    c.bias = bias;
    return c;
}

inline ops::pool2d pool(ops::pool2d::method type, std::int64_t k, std::int64_t stride, ops::padding pad) {
    ops::pool2d p;
    p.type = type;
    p.window = {k, k};
    p.stride = {stride, stride};
    p.pad = pad;
    return p;
}
inline ops::pool2d max_pool(std::int64_t k, std::int64_t stride, ops::padding pad = ops::padding::valid()) {
    return pool(ops::pool2d::method::max, k, stride, pad);
}
inline ops::pool2d avg_pool(std::int64_t k, std::int64_t stride, ops::padding pad = ops::padding::valid()) {
    return pool(ops::pool2d::method::average, k, stride, pad);
}
inline ops::pool2d global_avg_pool() {
    ops::pool2d p;
    p.type = ops::pool2d::method::average;
    p.global = true;
    return p;
}
inline ops::activation act(ops::activation::function fn) {
    ops::activation a;
    a.fn = fn;
    return a;
}
inline ops::elementwise elementwise(ops::elementwise::operation op) {
    ops::elementwise e;
    e.op = op;
    return e;
}
inline ops::dense dense(std::int64_t outputs) {
    ops::dense d;
    d.outputs = outputs;
    return d;
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
    chain& conv_relu(const std::string& name, const ops::conv2d& c) {
        return then(name, c).then(name + "/relu", ops::activation{});
    }
    // A convolution without bias, its batch normalization ("<name>/bn") and, unless told not to, its ReLU.
    chain& conv_bn(const std::string& name, ops::conv2d c, bool relu = true) {
        c.bias = false;
        then(name, c).then(name + "/bn", ops::batch_norm{});
        return relu ? then(name + "/relu", ops::activation{}) : *this;
    }
    chain& max_pool(const std::string& name, std::int64_t k, std::int64_t stride) {
        return then(name, detail::max_pool(k, stride));
    }
    chain& dropout(const std::string& name, double keep = 0.5) { return then(name, ops::dropout{keep}); }
    // Global average pooling, the classifier and the loss: the head of the nets after NiN.
    chain& classifier(std::int64_t classes) {
        return then("avgpool", global_avg_pool()).then("fc", dense(classes)).then("loss", ops::softmax_cross_entropy{});
    }
    const std::string& last() const { return last_; }

private:
    Net& net_;
    std::string last_;
};

// A layer of several parents (concatenations, residual sums); returns its name.
template <class Net>
std::string join(Net& net, const std::string& name, layer_op op, const std::vector<std::string>& parents) {
    net.add(name, std::move(op), std::span<const std::string>(parents));
    return name;
}

}  // namespace detail
}  // namespace steptime::zoo
