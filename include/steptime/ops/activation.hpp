// steptime/ops/activation.hpp: element-wise activations and dropout.
#pragma once

#include "steptime/ops/common.hpp"

namespace steptime::ops {

struct activation {
    static constexpr std::string_view kind = "activation";
    enum class function { relu, leaky_relu, elu, sigmoid, tanh, gelu, silu } fn = function::relu;

    // Operations per element, counting exp/tanh/erf as one (forward; backward the same again plus one).
    constexpr double flops_per_element() const {
        switch (fn) {
            case function::relu:
            case function::leaky_relu: return 1;
            case function::elu:
            case function::sigmoid:
            case function::tanh: return 4;
            case function::silu: return 5;
            case function::gelu: return 8;
        }
        return 1;
    }
    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        return in[0];
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }
    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, x = detail::elems(a.output) * a.batch;
        switch (p) {
            case phase::forward: return {flops_per_element() * x, e * x, e * x};
            case phase::backward_data: return {(flops_per_element() + 1) * x, 2 * e * x, e * x};  // reads x (or y) and dy
            case phase::backward_weights: return {};
        }
        return {};
    }
};

constexpr std::string_view to_string(activation::function f) {
    switch (f) {
        case activation::function::relu: return "relu";
        case activation::function::leaky_relu: return "leaky_relu";
        case activation::function::elu: return "elu";
        case activation::function::sigmoid: return "sigmoid";
        case activation::function::tanh: return "tanh";
        case activation::function::gelu: return "gelu";
        case activation::function::silu: return "silu";
    }
    return "relu";
}

// Dropout in training mode: a random keep-mask (one byte per element) and a rescale.
struct dropout {
    static constexpr std::string_view kind = "dropout";
    double keep_probability = 0.5;

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        detail::require(keep_probability > 0 && keep_probability <= 1, layer,
                        "keep probability is " + std::to_string(keep_probability) + ", expected a value in (0, 1]");
        return in[0];
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }
    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, x = detail::elems(a.output) * a.batch;
        switch (p) {
            case phase::forward:  // writes output and mask; in inference the framework returns its input
                return a.inference ? op_work{} : op_work{x, e * x, e * x + x};
            case phase::backward_data: return {x, e * x + x, e * x};      // reads gradient and mask
            case phase::backward_weights: return {};
        }
        return {};
    }
};

}  // namespace steptime::ops
