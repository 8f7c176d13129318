// steptime/fit/complexity.hpp: the per-layer computational complexity of Gianniti, Zhang, Ardagna
// (SBAC-PAD 2018; seed 000, table "Layer Computational Complexity"), selectable beside the FLOPs of
// ops/*.hpp, and the network characteristics of seed 002 Table 2 (layers, weights, activations,
// complexity at batch 1). Needs no Eigen.
//
// Reading of the table. Its C_out is a layer's output size per sample, H_out * W_out * channels (for
// ReLU, "3 C_out" is three operations per output element), C_in the input channels a filter sees, H_f W_f
// the window; so a convolution's forward complexity is its multiply-adds. Read so, forward + backward at
// batch 1 reproduces Table 2's complexity of VGG-16 (4.65e10) and of Caffe's AlexNet (3.42e9), and the
// shares of Table 3 (tests/fit/complexity_test.cpp).
// Loss's C_out is the number of class scores it reads; Norm's C_n is LRN's window (local size).
// Complexity is proportional to the batch (seed 002 section 4.2).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <variant>
#include <vector>

#include "steptime/graph/network.hpp"

namespace steptime::fit {

// The rows of seed 000's complexity table, plus dropout (costed as ReLU: seed 000's regression puts
// them in one category, "ReLU/Drop") and `none`: layers the table does not cover (input, concat,
// element-wise sum, reshape, pass-through types), which count zero.
enum class layer_kind { none, conv, fc, loss, norm, pool, relu, dropout };

constexpr std::string_view to_string(layer_kind k) {
    switch (k) {
        case layer_kind::none: return "none";
        case layer_kind::conv: return "conv";
        case layer_kind::fc: return "fc";
        case layer_kind::loss: return "loss";
        case layer_kind::norm: return "norm";
        case layer_kind::pool: return "pool";
        case layer_kind::relu: return "relu";
        case layer_kind::dropout: return "dropout";
    }
    return "none";
}

// Operations of one layer, forward and backward (both gradients together).
struct complexity_count {
    double forward = 0;
    double backward = 0;
    double total() const { return forward + backward; }
};

// A layer under seed 000's convention: its kind, its stride (pooling is split by stride in the
// regression), and its complexity for one sample.
struct layer_complexity {
    layer_kind kind = layer_kind::none;
    std::int64_t stride = 1;
    complexity_count per_sample{};
};

namespace detail {

struct seed000 {
    const steptime::layer<layer_op>& l;
    double out() const { return static_cast<double>(l.output.elements()); }
    double in() const { return static_cast<double>(l.inputs.at(0).elements()); }

    // seed 000 table, Conv: H_f W_f C_in C_out forward, (2 H_f W_f C_in + 1) C_out backward.
    layer_complexity operator()(const ops::conv2d& c) const {
        const double k = static_cast<double>(c.kernel.h * c.kernel.w * (l.inputs.at(0).c() / c.groups));
        return {layer_kind::conv, std::max(c.stride.h, c.stride.w), {k * out(), (2 * k + 1) * out()}};
    }
    // A transposed convolution is a convolution's data gradient: every input element meets every
    // kernel tap of every filter (the Conv row with the input in place of the output; our extension).
    layer_complexity operator()(const ops::deconv2d& c) const {
        const double k = static_cast<double>(c.kernel.h * c.kernel.w * c.filters);
        return {layer_kind::conv, 1, {k * in(), 2 * k * in() + out()}};
    }
    // seed 000 table, FC: H_in W_in C_in C_out forward, 2 H_in W_in C_in C_out backward (applied per position,
    // each position's C_in C_out: the input's elements times C_out all the same).
    layer_complexity operator()(const ops::dense& d) const {
        const double macs = in() * static_cast<double>(d.outputs);
        return {layer_kind::fc, 1, {macs, 2 * macs}};
    }
    // seed 000 table, Loss: 4 C_out - 1 forward, C_out + 1 backward (C_out: the class scores read).
    layer_complexity operator()(const ops::softmax_cross_entropy&) const {
        return {layer_kind::loss, 1, {4 * in() - 1, in() + 1}};
    }
    layer_complexity operator()(const ops::softmax&) const { return {layer_kind::loss, 1, {4 * in() - 1, in() + 1}}; }
    // seed 000 table, Norm: 5 C_out + C_n - 2 forward, 8 C_out + C_n - 1 backward (C_n: LRN's window).
    layer_complexity operator()(const ops::lrn& n) const {
        const double cn = static_cast<double>(n.size);
        return {layer_kind::norm, 1, {5 * out() + cn - 2, 8 * out() + cn - 1}};
    }
    // Batch and layer normalization are not in the table: the Norm row with a window of one channel (our extension).
    layer_complexity operator()(const ops::batch_norm&) const { return {layer_kind::norm, 1, {5 * out() - 1, 8 * out()}}; }
    layer_complexity operator()(const ops::layer_norm&) const { return {layer_kind::norm, 1, {5 * out() - 1, 8 * out()}}; }
    // seed 000 table, Pool: H_f W_f C_out forward, (H_f W_f + 1) C_out backward. A global pool is one
    // window over the input, written with stride 1 (as Caffe's GoogLeNet writes pool5/7x7_s1).
    layer_complexity operator()(const ops::pool2d& p) const {
        const ops::extent k = p.window_for(l.inputs.at(0));
        const double hw = static_cast<double>(k.h * k.w);
        return {layer_kind::pool, p.global ? 1 : std::max(p.stride.h, p.stride.w), {hw * out(), (hw + 1) * out()}};
    }
    // seed 000 table, ReLU: 3 C_out forward, 4 C_out backward; any activation function and dropout alike.
    layer_complexity operator()(const ops::activation&) const { return {layer_kind::relu, 1, {3 * out(), 4 * out()}}; }
    layer_complexity operator()(const ops::dropout&) const { return {layer_kind::dropout, 1, {3 * out(), 4 * out()}}; }
    template <class Other>
    layer_complexity operator()(const Other&) const { return {}; }
};

}  // namespace detail

// Seed 000's kind, stride and complexity of one layer, for one sample.
inline layer_complexity classify(const network& net, network::vertex v) {
    const auto& l = net[v];
    return std::visit(detail::seed000{l}, l.op);
}

// How work is counted: the FLOPs of ops/*.hpp (a multiply-add is 2, every phase of every layer), or
// seed 000's complexity (a multiply-add is 1; zero for layers its table does not cover).
enum class counting { flops, seed000 };

// A layer's forward and backward work for a batch, under either convention.
inline complexity_count complexity(const network& net, network::vertex v, counting how, double batch = 1) {
    if (how == counting::seed000) {
        const auto c = classify(net, v).per_sample;
        return {batch * c.forward, batch * c.backward};
    }
    const auto& l = net[v];
    const work_args a{l.inputs, l.output, batch, 4, l.parameters};
    return {ops::work(l.op, phase::forward, a).flops,
            ops::work(l.op, phase::backward_data, a).flops + ops::work(l.op, phase::backward_weights, a).flops};
}

// A network's total, forward and backward.
inline complexity_count complexity(const network& net, counting how, double batch = 1) {
    complexity_count sum;
    for (auto v : net.vertices()) {
        const auto c = complexity(net, v, how, batch);
        sum.forward += c.forward;
        sum.backward += c.backward;
    }
    return sum;
}

// The columns of seed 002 Table 2 ("CNN Characteristics, Batch Size 1").
struct characteristics {
    int layers = 0;              // depth in layers with weights (conv and FC) along the longest path
    std::int64_t weights = 0;    // learnable weights and biases
    std::int64_t activations = 0;  // elements of the tensors a forward pass holds, input included
    double complexity = 0;       // seed 000 complexity, forward + backward
};

// Activations count the input and every layer's output except those of ReLU and dropout, which the
// frameworks of seed 002 (Caffe) compute in place, and of reshapes, which are views.
inline characteristics characterize(const network& net) {
    characteristics r;
    r.weights = net.parameter_count();
    std::vector<int> depth(net.size(), 0);
    for (auto v : net.vertices()) {
        const auto& l = net[v];
        const auto k = classify(net, v);
        for (auto p : net.parents(v)) depth[v] = std::max(depth[v], depth[p]);
        depth[v] += k.kind == layer_kind::conv || k.kind == layer_kind::fc;
        r.layers = std::max(r.layers, depth[v]);
        const bool in_place = std::holds_alternative<ops::activation>(l.op) ||
                              std::holds_alternative<ops::dropout>(l.op) || std::holds_alternative<ops::reshape>(l.op);
        if (!in_place) r.activations += l.output.elements();
        r.complexity += k.per_sample.total();
    }
    return r;
}

}  // namespace steptime::fit
