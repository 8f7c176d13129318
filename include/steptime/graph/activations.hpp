// steptime/graph/activations.hpp: the activations a training step holds for its backward pass, activation recompute
// included (Chen et al. 2016, "Training Deep Nets with Sublinear Memory Cost").
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <unordered_map>
#include <vector>
#include <variant>

#include "steptime/ops/layer_op.hpp"

namespace steptime {

// Which of its tensors a layer's backward pass reads, as PyTorch's autograd saves them: weights' gradients read the
// input, ReLU's, sigmoid's, tanh's and softmax's the output, GELU's, SiLU's, leaky ReLU's and ELU's the input; sums,
// concatenations, dropout (its mask, below), global averages and an embedding (its indices, a few bytes) read
// neither. LRN and recurrent layers read both; PyTorch's LRN also keeps three input-sized intermediates and
// cuDNN's RNNs their gates (the reserve space), which are not counted.
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
                return {.input = !o.global || o.type == ops::pool2d::method::max};
            else if constexpr (std::is_same_v<T, ops::elementwise>)
                return {.input = o.op == ops::elementwise::operation::multiply};
            else if constexpr (std::is_same_v<T, ops::activation>) {
                using f = ops::activation::function;
                const bool by_output = o.fn == f::relu || o.fn == f::sigmoid || o.fn == f::tanh;
                return {.input = !by_output, .output = by_output};
            } else
                return {};
        },
        op);
}

namespace detail {
// A layer whose output is its input's storage.
inline bool is_view(const layer_op& op) {
    return std::holds_alternative<ops::reshape>(op) || std::holds_alternative<ops::passthrough>(op);
}
}  // namespace detail

// One sample's activations in bytes, over the layers added, at `element_bytes` a value. A layer's output is held
// from the forward pass until the gradients that read it are done: when its own backward pass reads it, or a
// reader's, or a recomputed block other than its own starts from it. A reshape is a view: its readers hold its
// input's storage. A recomputed layer's output is not kept when only the recomputed layers of its own block read it:
// when the block's gradients are due, its forward pass runs again and holds what it rebuilds meanwhile, one block at
// a time. Beyond inputs and outputs, a layer may keep tensors of its own (saved: dropout's mask, max pooling's
// indices, attention's probabilities), kept or rebuilt with the layer; Megatron's FP32 loss keeps its probabilities
// in FP32 instead of the logits.
class activation_tally {
public:
    template <class Net>
    void add(const Net& net, typename Net::vertex v, double element_bytes) {
        const auto& l = net[v];
        if (detail::is_view(l.op)) return;  // its storage is its input's
        const bool rebuilt = l.recomputed && l.block != 0;
        double width = backward_reads_of(l.op).output ? element_bytes : 0;  // bytes a value, 0: not held
        bool kept = !rebuilt;
        for_readers(net, v, [&](const auto& reader) {
            width = std::max(width, fp32_probabilities(reader.op) ? 4.0 : element_bytes);
            kept = kept || !reader.recomputed || reader.block != l.block;
        });
        held(l, width * static_cast<double>(l.output.elements()), kept);
        held(l, saved(l, element_bytes), !rebuilt);  // the layer's own: rebuilt with it
    }

    // The most held at once, in bytes a sample: the kept activations and the largest block's rebuilt ones.
    double peak() const {
        double rebuilt = 0;
        for (const auto& [block, bytes] : rebuilt_) rebuilt = std::max(rebuilt, bytes);
        return kept_ + rebuilt;
    }

    // The kept activations alone, in bytes a sample.
    double kept() const { return kept_; }

    // Keeps `bytes` a sample more: a pipeline chunk's copy of the activations it receives from the chunk before.
    void add_kept(double bytes) { kept_ += bytes; }

    // Holds `copies` of another tally's kept activations at once (a pipeline stage's micro-batches in flight on one of
    // its chunks), which rebuild their blocks one at a time like this tally's; none, nothing of it.
    void add_copies(const activation_tally& other, std::int64_t copies) {
        if (copies <= 0) return;
        kept_ += static_cast<double>(copies) * other.kept_;
        for (const auto& [block, bytes] : other.rebuilt_) rebuilt_[block] = std::max(rebuilt_[block], bytes);
    }

private:
    static bool fp32_probabilities(const layer_op& op) {
        const auto* loss = std::get_if<ops::softmax_cross_entropy>(&op);
        return loss && loss->fp32_passes;
    }
    // Calls f with every layer whose backward pass reads v's output, through views, or recomputes from it.
    template <class Net, class F>
    static void for_readers(const Net& net, typename Net::vertex v, F&& f) {
        for (auto w : net.children(v)) {
            const auto& c = net[w];
            if (detail::is_view(c.op))
                for_readers(net, w, f);
            else if (backward_reads_of(c.op).input || (c.recomputed && c.block != 0 && c.block != net[v].block))
                f(c);
        }
    }
    // What a layer's backward pass reads beyond its input and output, in bytes a sample: dropout's keep-mask, a byte a
    // value (PyTorch's native_dropout; none when it keeps everything, returning its input); max pooling's int64 index
    // of each window's maximum (max_pool2d_with_indices); attention's probabilities, their dropout and its mask
    // (Megatron's CoreAttention).
    template <class Layer>
    static double saved(const Layer& l, double element_bytes) {
        const double outputs = static_cast<double>(l.output.elements());
        if (const auto* d = std::get_if<ops::dropout>(&l.op)) return d->keep_probability < 1 ? outputs : 0;
        if (const auto* p = std::get_if<ops::pool2d>(&l.op); p && p->type == ops::pool2d::method::max)
            return 8 * outputs;
        const auto* a = std::get_if<ops::attention>(&l.op);
        if (!a) return 0;
        const double tokens = static_cast<double>(l.output.h());
        return static_cast<double>(a->heads) * tokens * tokens * (a->dropout ? 2 * element_bytes + 1 : element_bytes);
    }
    template <class Layer>
    void held(const Layer& l, double bytes, bool kept) {
        if (bytes == 0) return;
        if (kept)
            kept_ += bytes;
        else
            rebuilt_[l.block] += bytes;
    }

    double kept_ = 0;
    std::unordered_map<int, double> rebuilt_;  // per block
};

// One sample's activations at the peak of a forward pass in inference mode, in bytes at `element_bytes` a value. With
// no backward pass to hold them for, a framework frees each output once its last reader has run (PyTorch under
// no_grad): an output lives from its layer to its last reader, in the network's topological order; the input, which
// the caller holds, to the end. Views and dropout (which returns its input) share their input's storage, attention's
// probabilities live while it runs, and no loss is computed. An in-place ReLU (torchvision's) counts as a tensor of
// its own.
template <class Net>
double inference_peak(const Net& net, double element_bytes) {
    const auto n = net.size();
    std::vector<typename Net::vertex> storage(n), last(n);
    for (auto v : net.vertices()) {
        const bool shared = detail::is_view(net[v].op) || std::holds_alternative<ops::dropout>(net[v].op);
        storage[v] = shared && net.parents(v).size() > 0 ? storage[*net.parents(v).begin()] : v;
        last[storage[v]] = std::holds_alternative<ops::input>(net[v].op) ? n : v;  // n: never freed
        for (auto q : net.parents(v)) last[storage[q]] = std::max(last[storage[q]], v);
    }
    double live = 0, peak = 0;
    for (auto v : net.vertices()) {
        const auto& l = net[v];
        if (std::holds_alternative<ops::softmax_cross_entropy>(l.op)) continue;  // not run: its input is the output
        if (storage[v] == v) live += element_bytes * static_cast<double>(l.output.elements());
        double working = 0;
        if (const auto* a = std::get_if<ops::attention>(&l.op)) {
            const double tokens = static_cast<double>(l.output.h());
            working = static_cast<double>(a->heads) * tokens * tokens * element_bytes;
        }
        peak = std::max(peak, live + working);
        for (auto q : net.parents(v))
            if (last[storage[q]] == v && storage[q] != storage[v]) {
                live -= element_bytes * static_cast<double>(net[storage[q]].output.elements());
                last[storage[q]] = n;  // freed (a layer may read the same tensor twice)
            }
    }
    return peak;
}

}  // namespace steptime
