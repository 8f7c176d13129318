// steptime/ops/dense.hpp: fully connected (inner product) layer; flattens its input.
#pragma once

#include "steptime/ops/common.hpp"

namespace steptime::ops {

struct dense {
    static constexpr std::string_view kind = "dense";
    std::int64_t outputs = 0;
    bool bias = true;

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        detail::require(outputs > 0, layer, "num_outputs is " + std::to_string(outputs) + ", expected a positive count");
        return tensor_shape::features(outputs);
    }
    std::int64_t parameters(std::span<const tensor_shape> in) const {
        return steptime::detail::checked_add(detail::product({in[0].elements(), outputs}), bias ? outputs : 0,
                                             "parameter count");
    }
    // X[n,D] * W[D,M]: forward X*W, data gradient dY*W^T, weight gradient X^T*dY, each 2nDM.
    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, n = a.batch;
        const double x = detail::elems(a.inputs[0]) * n, y = detail::elems(a.output) * n;
        const double w = static_cast<double>(a.parameters);
        const double gemm = 2.0 * detail::elems(a.inputs[0]) * static_cast<double>(outputs) * n;
        const double b = bias ? y : 0;
        switch (p) {
            case phase::forward: return {gemm + b, e * (x + w), e * y};
            case phase::backward_data: return {gemm, e * (y + w), e * x};
            case phase::backward_weights: return {gemm + b, e * (x + y), e * w};
        }
        return {};
    }
};

}  // namespace steptime::ops
