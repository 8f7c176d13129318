// steptime/graph/activations.hpp: the layer outputs a training step holds for its backward pass, activation
// recompute included (Chen et al. 2016, "Training Deep Nets with Sublinear Memory Cost").
#pragma once

#include <algorithm>
#include <type_traits>
#include <unordered_map>
#include <variant>

#include "steptime/ops/layer_op.hpp"

namespace steptime {

// Which of its tensors a layer's backward pass reads, as autograd saves them (PyTorch's derivatives): weights'
// gradients read the input, ReLU's, sigmoid's, tanh's, ELU's and softmax's the output; sums, concatenations,
// reshapes, dropout (a mask of its own) and averages read neither. Buffers beyond the layer's input and output
// (dropout masks, max pooling's indices, attention's scores) are not counted.
struct backward_reads {
    bool input = false;
    bool output = false;
};

inline backward_reads backward_reads_of(const layer_op& op) {
    return std::visit(
        [](const auto& o) -> backward_reads {
            using T = std::decay_t<decltype(o)>;
            if constexpr (std::is_same_v<T, ops::conv2d> || std::is_same_v<T, ops::deconv2d> || std::is_same_v<T, ops::dense> ||
                          std::is_same_v<T, ops::batch_norm> || std::is_same_v<T, ops::layer_norm> ||
                          std::is_same_v<T, ops::attention> || std::is_same_v<T, ops::softmax_cross_entropy>)
                return {.input = true};
            else if constexpr (std::is_same_v<T, ops::lrn> || std::is_same_v<T, ops::recurrent>)
                return {.input = true, .output = true};
            else if constexpr (std::is_same_v<T, ops::softmax>)
                return {.output = true};
            else if constexpr (std::is_same_v<T, ops::pool2d>)
                return {.input = o.type == ops::pool2d::method::max};
            else if constexpr (std::is_same_v<T, ops::elementwise>)
                return {.input = o.op == ops::elementwise::operation::multiply};
            else if constexpr (std::is_same_v<T, ops::activation>) {
                using f = ops::activation::function;
                const bool by_input = o.fn == f::leaky_relu || o.fn == f::gelu || o.fn == f::silu;
                return {.input = by_input, .output = !by_input};
            } else
                return {};  // input, dropout, concat, reshape, passthrough, embedding (its indices)
        },
        op);
}

// One sample's activations in elements, over the layers added. A layer's output is held from the forward pass until
// the gradients that read it are done: when its own backward pass or a reader's reads it, or a recomputed block
// other than its own starts from it. A recomputed layer's output is dropped when only layers of its own block read
// it; when the block's gradients are due, its forward pass runs again and holds the block's held outputs
// meanwhile, one block at a time.
class activation_tally {
public:
    template <class Net>
    void add(const Net& net, typename Net::vertex v) {
        const auto& l = net[v];
        bool held = backward_reads_of(l.op).output, outside = false, inside = false;
        for (auto w : net.children(v)) {
            const bool reads = backward_reads_of(net[w].op).input;
            const bool other_block = net[w].block != l.block;
            held = held || reads || (net[w].recomputed && net[w].block != 0 && other_block);
            (other_block ? outside : inside) = true;
        }
        if (!held) return;
        const double elements = static_cast<double>(l.output.elements());
        if (l.recomputed && l.block != 0 && inside && !outside)
            rebuilt_[l.block] += elements;
        else
            kept_ += elements;
    }

    // The most held at once: the kept outputs of `in_flight` samples (a pipeline stage's micro-batches in flight
    // hold theirs) and the largest block's rebuilt ones.
    double peak(double in_flight = 1) const {
        double rebuilt = 0;
        for (const auto& [block, elements] : rebuilt_) rebuilt = std::max(rebuilt, elements);
        return kept_ * in_flight + rebuilt;
    }

private:
    double kept_ = 0;
    std::unordered_map<int, double> rebuilt_;  // per block
};

}  // namespace steptime
