// steptime/ops/dense.hpp: fully connected (inner product) layer; flattens its input, or applies itself to
// each position of a sequence or image (a transformer's token-wise linear layers).
#pragma once

#include "steptime/ops/common.hpp"

namespace steptime::ops {

struct dense {
    static constexpr std::string_view kind = "dense";
    std::int64_t outputs = 0;
    bool bias = true;
    // The same weights at every position: an HxWxC input gives HxWxoutputs (a sequence's tokens, or a 1x1
    // convolution's pixels); the matmul's rows are the batch times the positions.
    bool per_position = false;
    // The weights are another layer's (GPT's output layer reads the token embedding's, Press & Wolf 2017): it
    // reads them and adds to their gradient, but they are not its parameters.
    bool tied = false;

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        detail::require(outputs > 0, layer, "num_outputs is " + std::to_string(outputs) + ", expected a positive count");
        if (!per_position || in[0].rank != 3) return tensor_shape::features(outputs);
        return make_shape({in[0].h(), in[0].w(), outputs}, 3, "layer '" + layer + "'");
    }
    // Features each position's matmul reduces over: the channels, or the whole input when it flattens.
    std::int64_t reduced(const tensor_shape& in) const { return per_position ? in.c() : in.elements(); }
    // The weight count is checked against overflow even where the weights are tied: work() multiplies it unchecked.
    std::int64_t parameters(std::span<const tensor_shape> in) const {
        const std::int64_t weights = detail::product({reduced(in[0]), outputs});
        return steptime::detail::checked_add(tied ? 0 : weights, bias ? outputs : 0, "parameter count");
    }
    // X[n,D] * W[D,M]: forward X*W, data gradient dY*W^T, weight gradient X^T*dY, each 2nDM (n the rows: the
    // batch, times the positions where it applies per position; nD is the input's elements either way).
    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, n = a.batch;
        const double x = detail::elems(a.inputs[0]) * n, y = detail::elems(a.output) * n;
        const double w = static_cast<double>(reduced(a.inputs[0])) * static_cast<double>(outputs) +
                         (bias ? static_cast<double>(outputs) : 0);
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
