// steptime/ops/norm.hpp: local response normalization, batch normalization and layer normalization.
#pragma once

#include "steptime/ops/common.hpp"

namespace steptime::ops {

// Cross-channel LRN (Krizhevsky et al. 2012): b = a / (k + alpha/size * sum of a^2 over size channels)^beta.
struct lrn {
    static constexpr std::string_view kind = "lrn";
    std::int64_t size = 5;

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        detail::require(size > 0, layer, "local_size is " + std::to_string(size) + ", expected a positive count");
        return in[0];
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }
    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, x = detail::elems(a.output) * a.batch;
        // 2 per window element for the sum of squares, then scale, power and divide: 2*size + 3 per element.
        const double f = (2.0 * static_cast<double>(size) + 3) * x;
        switch (p) {
            case phase::forward: return {f, e * x, e * x};
            case phase::backward_data: return {2 * f, 3 * e * x, e * x};  // reads input, output and gradient
            case phase::backward_weights: return {};
        }
        return {};
    }
};

// What batch and layer normalization share: the shape passes through, and a learned scale and shift per
// channel (per feature of a sequence).
struct scale_and_shift {
    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        return in[0];
    }
    std::int64_t parameters(std::span<const tensor_shape> in) const { return 2 * in[0].c(); }
};

// Batch normalization (Ioffe and Szegedy 2015): in training mode over the batch's statistics, in inference
// mode over the running ones.
struct batch_norm : scale_and_shift {
    static constexpr std::string_view kind = "batch_norm";

    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, x = detail::elems(a.output) * a.batch;
        switch (p) {
            // Inference: normalize, scale, shift (4 per element) in one pass. Training: a statistics pass first
            // (3 per element: add, square, add), so x is read twice.
            case phase::forward: return a.inference ? op_work{4 * x, e * x, e * x} : op_work{7 * x, 2 * e * x, e * x};
            // dx from x, dy and the two reductions below (5 per element).
            case phase::backward_data: return {5 * x, 2 * e * x, e * x};
            // Scale and shift gradients: reductions of dy and dy * x-hat (3 per element) over x and dy.
            case phase::backward_weights: return {3 * x, 2 * e * x, e * static_cast<double>(a.parameters)};
        }
        return {};
    }
};

// Layer normalization (Ba, Kiros and Hinton 2016): each position normalized over its features, as one fused
// kernel per pass computes it (Apex's FusedLayerNorm, Megatron's): the statistics of a row are kept in
// registers, so each pass reads its tensors once.
struct layer_norm : scale_and_shift {
    static constexpr std::string_view kind = "layer_norm";

    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, x = detail::elems(a.output) * a.batch;
        switch (p) {
            // Mean and variance in one pass (Welford: 4 per element), then normalize, scale, shift (4).
            case phase::forward: return {8 * x, e * x, e * x};
            // dx from x, dy and the row's two sums of dy * gamma and dy * gamma * x-hat (8 per element).
            case phase::backward_data: return {8 * x, 2 * e * x, e * x};
            // Scale and shift gradients: dy * x-hat and dy summed over the positions (4 per element).
            case phase::backward_weights: return {4 * x, 2 * e * x, e * static_cast<double>(a.parameters)};
        }
        return {};
    }
};

}  // namespace steptime::ops
