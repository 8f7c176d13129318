// steptime/ops/conv.hpp: 2-D convolution and transposed convolution (NHWC, grouped, strided, dilated).
#pragma once

#include <optional>

#include "steptime/ops/common.hpp"

namespace steptime::ops {

struct conv2d {
    static constexpr std::string_view kind = "conv2d";
    std::int64_t filters = 0;  // output channels
    extent kernel{};
    extent stride{};
    padding pad = padding::valid();
    extent dilation{};
    std::int64_t groups = 1;
    bool bias = true;
    std::optional<std::int64_t> in_channels{};  // checked against the input when given

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        detail::require_image(in[0], layer);
        const std::int64_t c = in[0].c();
        detail::require(!in_channels || *in_channels == c, layer,
                        "filter expects " + std::to_string(in_channels.value_or(0)) + " input channels, input " +
                            in[0].str() + " has " + std::to_string(c));
        detail::require(filters > 0 && groups > 0 && c % groups == 0 && filters % groups == 0, layer,
                        std::to_string(filters) + " filters in " + std::to_string(groups) + " groups over " +
                            std::to_string(c) + " input channels: expected positive counts divisible by the groups");
        return detail::window_output(in[0], kernel, stride, dilation, pad, filters, layer);
    }
    std::int64_t parameters(std::span<const tensor_shape> in) const {
        return steptime::detail::checked_add(detail::product({kernel.h, kernel.w, in[0].c() / groups, filters}),
                                             bias ? filters : 0, "parameter count");
    }
    // Dense arithmetic of the convolution (2 per multiply-add); every phase does the same amount
    // when the data gradient skips the zeros a strided forward pass implies (paleo-model.md 13.1).
    double macs(const work_args& a) const {
        return static_cast<double>(kernel.h * kernel.w * (a.inputs[0].c() / groups)) * detail::elems(a.output) *
               a.batch;
    }
    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, n = a.batch;
        const double x = detail::elems(a.inputs[0]) * n, y = detail::elems(a.output) * n;
        const double w = static_cast<double>(a.parameters);
        const double b = bias ? y : 0;  // bias add / bias gradient: one operation per output element
        switch (p) {
            case phase::forward: return {2 * macs(a) + b, e * (x + w), e * y};
            case phase::backward_data: return {2 * macs(a), e * (y + w), e * x};
            case phase::backward_weights: return {2 * macs(a) + b, e * (x + y), e * w};
        }
        return {};
    }
};

// Transposed convolution ("deconvolution"): the data gradient of a conv2d, used as a forward pass.
struct deconv2d {
    static constexpr std::string_view kind = "deconv2d";
    std::int64_t filters = 0;
    extent kernel{};
    extent stride{};
    padding pad = padding::valid();
    bool bias = true;

    // Output size per dimension: SAME in*s, VALID (in-1)*s + k, explicit (in-1)*s + k - 2p (TensorFlow).
    static std::int64_t out_dim(std::int64_t in, std::int64_t k, std::int64_t s, const padding& p, std::int64_t pad,
                                const std::string& what = "deconv2d output") {
        using steptime::detail::checked_add, steptime::detail::checked_mul;
        switch (p.kind) {
            case padding::mode::same: return checked_mul(in, s, what);
            case padding::mode::valid: return checked_add(checked_mul(in - 1, s, what), k, what);
            case padding::mode::explicit_:
                return checked_add(checked_mul(in - 1, s, what), k, what) - checked_mul(2, pad, what);
        }
        return 0;
    }
    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        detail::require_image(in[0], layer);
        detail::require(filters > 0 && kernel.h > 0 && kernel.w > 0 && stride.h > 0 && stride.w > 0 && pad.h >= 0 &&
                            pad.w >= 0,
                        layer, "expected positive filters, kernel and stride, and non-negative pads");
        const auto h = out_dim(in[0].h(), kernel.h, stride.h, pad, pad.h, "layer '" + layer + "'");
        const auto w = out_dim(in[0].w(), kernel.w, stride.w, pad, pad.w, "layer '" + layer + "'");
        detail::require(h > 0 && w > 0, layer, "padding leaves no output (" + detail::dims(h, w) + ")");
        return make_shape({h, w, filters}, 3, "layer '" + layer + "'");
    }
    std::int64_t parameters(std::span<const tensor_shape> in) const {
        return steptime::detail::checked_add(detail::product({kernel.h, kernel.w, in[0].c(), filters}),
                                             bias ? filters : 0, "parameter count");
    }
    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, n = a.batch;
        const double x = detail::elems(a.inputs[0]) * n, y = detail::elems(a.output) * n;
        const double w = static_cast<double>(a.parameters);
        // Every input element meets every kernel tap of every filter once: 2 * kh*kw*Cout per input element.
        const double f = 2.0 * static_cast<double>(kernel.h * kernel.w * filters) * x;
        const double b = bias ? y : 0;
        switch (p) {
            case phase::forward: return {f + b, e * (x + w), e * y};
            case phase::backward_data: return {f, e * (y + w), e * x};
            case phase::backward_weights: return {f + b, e * (x + y), e * w};
        }
        return {};
    }
};

}  // namespace steptime::ops
