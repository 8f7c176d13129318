// steptime/ops/softmax.hpp: softmax and the softmax cross-entropy loss.
#pragma once

#include <optional>

#include "steptime/ops/common.hpp"

namespace steptime::ops {

struct softmax {
    static constexpr std::string_view kind = "softmax";
    std::optional<std::int64_t> classes{};  // checked against the input's elements when given

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        const std::int64_t n = in[0].elements();
        detail::require(!classes || *classes == n, layer,
                        std::to_string(classes.value_or(0)) + " classes, but the input " + in[0].str() + " has " +
                            std::to_string(n) + " elements");
        return tensor_shape::features(n);
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }
    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, x = detail::elems(a.output) * a.batch;
        switch (p) {
            case phase::forward: return {5 * x, e * x, e * x};  // max, subtract, exp, sum, divide
            case phase::backward_data: return {4 * x, 2 * e * x, e * x};  // dx = y * (dy - sum(dy * y))
            case phase::backward_weights: return {};
        }
        return {};
    }
};

// Softmax followed by the cross-entropy with integer labels; one loss value per sample.
struct softmax_cross_entropy {
    static constexpr std::string_view kind = "softmax_cross_entropy";
    // As Megatron-LM computes a language model's loss without --fp16-lm-cross-entropy (its default; the
    // vocab-parallel cross entropy): the logits cast to FP32, then max, subtract, exp, sum and normalize as
    // passes of their own over them; going back, the probabilities scaled by the loss's gradient and cast back.
    bool fp32_passes = false;

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        return tensor_shape::features(1);
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }
    op_work work(phase p, const work_args& a) const {
        if (a.inference) return {};  // no loss to compute: the logits are the output
        const double e = a.element_bytes, x = detail::elems(a.inputs[0]) * a.batch;
        if (fp32_passes) switch (p) {
                // reads: the logits to cast, then 4 B each by max, subtract, exp, sum and divide;
                // writes: the cast, subtract, exp and divide (in place), and the losses
                case phase::forward: return {6 * x, (e + 20) * x, 16 * x + 4 * a.batch};
                case phase::backward_data: return {x, 8 * x, (4 + e) * x};  // p - onehot scaled in place, cast back
                case phase::backward_weights: return {};
            }
        switch (p) {
            case phase::forward: return {6 * x, e * x, e * x + e * a.batch};  // softmax, log; keeps probabilities
            case phase::backward_data: return {x, e * x, e * x};               // dx = p - onehot(label)
            case phase::backward_weights: return {};
        }
        return {};
    }
};

}  // namespace steptime::ops
