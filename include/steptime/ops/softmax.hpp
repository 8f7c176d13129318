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

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        return tensor_shape::features(1);
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }
    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, x = detail::elems(a.inputs[0]) * a.batch;
        switch (p) {
            case phase::forward: return {6 * x, e * x, e * x + e * a.batch};  // softmax, log; keeps probabilities
            case phase::backward_data: return {x, e * x, e * x};               // dx = p - onehot(label)
            case phase::backward_weights: return {};
        }
        return {};
    }
};

}  // namespace steptime::ops
