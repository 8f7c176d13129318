// steptime/ops/pool.hpp: max and average pooling, windowed or global.
#pragma once

#include "steptime/ops/common.hpp"

namespace steptime::ops {

struct pool2d {
    static constexpr std::string_view kind = "pool2d";
    enum class method { max, average } type = method::max;
    extent window{};
    extent stride{};
    padding pad = padding::valid();
    bool global = false;  // one window over the whole input

    extent window_for(const tensor_shape& in) const { return global ? extent{in.h(), in.w()} : window; }

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        detail::require_image(in[0], layer);
        if (global) return tensor_shape::image(1, 1, in[0].c());
        return detail::window_output(in[0], window, stride, {}, pad, in[0].c(), layer);
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }
    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, n = a.batch;
        const double x = detail::elems(a.inputs[0]) * n, y = detail::elems(a.output) * n;
        const extent k = window_for(a.inputs[0]);
        const double f = static_cast<double>(k.h) * static_cast<double>(k.w) * y;  // one compare or add per window element
        switch (p) {
            case phase::forward: return {f, e * x, e * y};
            // Max pooling re-reads the input to find each window's maximum; average pooling does not.
            case phase::backward_data: return {f, e * (y + (type == method::max ? x : 0)), e * x};
            case phase::backward_weights: return {};
        }
        return {};
    }
};

}  // namespace steptime::ops
