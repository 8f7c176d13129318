// steptime/ops/input.hpp: the network's input (a batch of samples); costs nothing.
#pragma once

#include "steptime/ops/common.hpp"

namespace steptime::ops {

struct input {
    static constexpr std::string_view kind = "input";
    tensor_shape shape{};

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 0, layer);
        return make_shape(shape.dims, shape.rank, "layer '" + layer + "'");
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }
    op_work work(phase, const work_args&) const { return {}; }
};

}  // namespace steptime::ops
