// steptime/ops/structural.hpp: concatenation, element-wise add/multiply, zero padding, reshape and flatten.
#pragma once

#include <array>
#include <vector>

#include "steptime/ops/common.hpp"

namespace steptime::ops {

// Concatenation along an axis of the per-sample shape (0-based; channels of an image are axis 2).
struct concat {
    static constexpr std::string_view kind = "concat";
    int axis = 2;

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require(!in.empty(), layer, "expects at least one input");
        detail::require(axis >= 0 && axis < in[0].rank, layer,
                        "axis " + std::to_string(axis) + " out of range for input " + in[0].str());
        tensor_shape out = in[0];
        for (std::size_t i = 1; i < in.size(); ++i) {
            bool match = in[i].rank == out.rank;
            for (int d = 0; match && d < out.rank; ++d) match = d == axis || in[i].dims[d] == out.dims[d];
            detail::require(match, layer,
                            "cannot concatenate " + in[0].str() + " and " + in[i].str() + " along axis " +
                                std::to_string(axis) + ": the other dimensions differ");
            out.dims[axis] = steptime::detail::checked_add(out.dims[axis], in[i].dims[axis], "layer '" + layer + "'");
        }
        return make_shape(out.dims, out.rank, "layer '" + layer + "'");
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }
    op_work work(phase p, const work_args& a) const {
        const double y = detail::elems(a.output) * a.batch * a.element_bytes;
        switch (p) {
            case phase::forward: return {0, y, y};        // a copy into the joint tensor
            case phase::backward_data: return {0, y, y};  // a split of the gradient
            case phase::backward_weights: return {};
        }
        return {};
    }
};

// Element-wise sum or product of inputs of equal shape (residual connections, gating). A product also
// broadcasts a 1x1xC input over an HxWxC one (channel-wise scaling: squeeze-and-excitation's gate).
struct elementwise {
    static constexpr std::string_view kind = "elementwise";
    static constexpr bool one_library_call = false;  // each kernel is the framework's, dispatched on its own
    enum class operation { add, multiply } op = operation::add;

    // Whether `s` broadcasts over `out` (1x1xC against HxWxC).
    static bool broadcasts(const tensor_shape& s, const tensor_shape& out) {
        return s.rank == 3 && out.rank == 3 && s.h() == 1 && s.w() == 1 && s.c() == out.c();
    }
    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require(in.size() >= 2, layer, "expects at least two inputs, got " + std::to_string(in.size()));
        tensor_shape out = in[0];
        for (const auto& s : in)
            if (s.elements() > out.elements()) out = s;
        for (const auto& s : in) {
            if (s == out) continue;
            if (op == operation::multiply)
                detail::require(broadcasts(s, out), layer,
                                "inputs " + s.str() + " and " + out.str() +
                                    " do not broadcast (equal shapes, or 1x1xC against HxWxC)");
            else
                detail::require(false, layer, "inputs " + s.str() + " and " + out.str() + " differ in shape");
        }
        return out;
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }

    // The kernels of phase p, as eager frameworks run them. Forward, one: k - 1 operations per output
    // element, reading every input. A sum's gradient passes through unchanged (no kernel). A product's
    // gradient to each input is dy times the other k - 1 inputs, one kernel per input (PyTorch's MulBackward,
    // TensorFlow's Mul gradient); a broadcast input's product is full-sized and a second kernel sums it over
    // H and W down to the input's shape (autograd's sum_to_size, TensorFlow's reduce_sum).
    std::array<kernel_work, 3> kernels(phase p, const work_args& a) const {
        const double e = a.element_bytes, x = detail::elems(a.output) * a.batch;
        const double k = static_cast<double>(a.inputs.size());
        // Broadcast inputs; elements of all inputs; of one broadcast input (infer(): each is 1x1xC, C the output's).
        double small = 0, in = 0, gate = 0;
        for (const auto& s : a.inputs) {
            const bool broadcast = s != a.output;
            small += broadcast ? 1 : 0;
            in += detail::elems(s) * a.batch;
            if (broadcast) gate = detail::elems(s) * a.batch;
        }
        switch (p) {
            case phase::forward: return {kernel_work{{(k - 1) * x, e * in, e * x}, 1}};
            case phase::backward_data:
                if (op == operation::add) return {};
                return {kernel_work{{(k - 1) * x, e * in, e * x}, k - small},          // dy x the others, full inputs
                        kernel_work{{(k - 1) * x, e * (x + in - gate), e * x}, small},  // and broadcast ones, full-sized
                        kernel_work{{x, e * x, e * gate}, small}};                      // summed over H and W
            case phase::backward_weights: return {};
        }
        return {};
    }
    op_work work(phase p, const work_args& a) const { return total_work(kernels(p, a)); }
};

// Zero padding copied into a new tensor (TensorFlow's tf.pad, Keras's ZeroPadding2D): each per-sample axis
// (an image's H, W and C) grows by its pads before and after. The forward pass writes the larger tensor, its
// border zeros included; the data gradient is the slice of the incoming one that the input occupies
// (TensorFlow's Pad gradient is a Slice).
struct pad {
    static constexpr std::string_view kind = "pad";
    std::array<std::int64_t, 3> before{}, after{};  // per-sample axes; those beyond the input's rank stay 0

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        tensor_shape out = in[0];
        for (int d = 0; d < 3; ++d) {
            detail::require(before[d] >= 0 && after[d] >= 0, layer,
                            "pads of axis " + std::to_string(d) + " are " + std::to_string(before[d]) + " and " +
                                std::to_string(after[d]) + ", expected non-negative sizes");
            detail::require(d < in[0].rank || (before[d] == 0 && after[d] == 0), layer,
                            "pads axis " + std::to_string(d) + " of a rank-" + std::to_string(in[0].rank) + " input " +
                                in[0].str());
            if (d < out.rank) {
                const std::string what = "layer '" + layer + "', padding axis " + std::to_string(d);
                out.dims[d] = steptime::detail::checked_add(
                    out.dims[d], steptime::detail::checked_add(before[d], after[d], what), what);
            }
        }
        return make_shape(out.dims, out.rank, "layer '" + layer + "'");
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }
    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, x = detail::elems(a.inputs[0]) * a.batch, y = detail::elems(a.output) * a.batch;
        switch (p) {
            case phase::forward: return {0, e * x, e * y};        // the input in, the padded tensor out
            case phase::backward_data: return {0, e * x, e * x};  // the gradient's interior, sliced out
            case phase::backward_weights: return {};
        }
        return {};
    }
};

// A new view of the same elements; a zero-size dimension means "the rest" (PALEO's -1). No cost.
struct reshape {
    static constexpr std::string_view kind = "reshape";
    std::vector<std::int64_t> shape{};  // per sample, rank 1 to 3; flatten is {0}

    static reshape flatten() { return {{0}}; }

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        detail::require(!shape.empty() && shape.size() <= 3, layer, "target shape must have 1 to 3 dimensions");
        const std::int64_t total = in[0].elements();
        std::int64_t known = 1;
        int rest = -1;
        std::array<std::int64_t, 3> dims{1, 1, 1};
        for (std::size_t i = 0; i < shape.size(); ++i) {
            detail::require(shape[i] >= 0 && (shape[i] > 0 || rest < 0), layer,
                            "target dimensions must be positive, with at most one 0 (\"the rest\")");
            if (shape[i] == 0) rest = static_cast<int>(i);
            else known = steptime::detail::checked_mul(known, shape[i], "layer '" + layer + "'");
            dims[i] = shape[i];
        }
        if (rest >= 0) dims[rest] = total % known == 0 ? total / known : 0;
        const auto out = tensor_shape{dims, static_cast<int>(shape.size())};
        detail::require(out.elements() == total && dims[rest < 0 ? 0 : rest] > 0, layer,
                        "cannot reshape " + in[0].str() + " (" + std::to_string(total) + " elements) to " +
                            tensor_shape{{shape[0], shape.size() > 1 ? shape[1] : 1, shape.size() > 2 ? shape[2] : 1},
                                         static_cast<int>(shape.size())}
                                .str() +
                            " (0 = the rest)");
        return out;
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }
    op_work work(phase, const work_args&) const { return {}; }
};

// A layer type PALEO accepts without a model of its own (Accuracy, Scale, Sigmoid, UpSampling2D...):
// shape and cost are those of an identity, and the type name is kept for reports.
struct passthrough {
    static constexpr std::string_view kind = "passthrough";
    std::string type{};

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require(!in.empty(), layer, "expects at least one input");
        return in[0];
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }
    op_work work(phase, const work_args&) const { return {}; }
};

}  // namespace steptime::ops
