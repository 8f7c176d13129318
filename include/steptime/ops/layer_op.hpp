// steptime/ops/layer_op.hpp: the Operation concept and layer_op, the variant of the built-in operations.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <variant>

#include "steptime/ops/activation.hpp"
#include "steptime/ops/attention.hpp"
#include "steptime/ops/conv.hpp"
#include "steptime/ops/dense.hpp"
#include "steptime/ops/embedding.hpp"
#include "steptime/ops/input.hpp"
#include "steptime/ops/norm.hpp"
#include "steptime/ops/pool.hpp"
#include "steptime/ops/recurrent.hpp"
#include "steptime/ops/softmax.hpp"
#include "steptime/ops/structural.hpp"

namespace steptime {

// What a network node carries: a shape rule, a parameter count and per-phase work.
template <class T>
concept Operation = requires(const T& op, std::span<const tensor_shape> in, const std::string& layer, phase p,
                             const work_args& a) {
    { op.infer(in, layer) } -> std::same_as<tensor_shape>;
    { op.parameters(in) } -> std::same_as<std::int64_t>;
    { op.work(p, a) } -> std::same_as<op_work>;
};

using layer_op = std::variant<ops::input, ops::conv2d, ops::deconv2d, ops::pool2d, ops::dense, ops::lrn,
                              ops::batch_norm, ops::activation, ops::dropout, ops::softmax,
                              ops::softmax_cross_entropy, ops::concat, ops::elementwise, ops::pad, ops::reshape,
                              ops::passthrough, ops::recurrent, ops::layer_norm, ops::embedding, ops::attention>;

namespace ops {
// The variant forwards to the alternative it holds.
inline tensor_shape infer(const layer_op& op, std::span<const tensor_shape> in, const std::string& layer) {
    return std::visit([&](const auto& o) { return o.infer(in, layer); }, op);
}
inline std::int64_t parameters(const layer_op& op, std::span<const tensor_shape> in) {
    return std::visit([&](const auto& o) { return o.parameters(in); }, op);
}
// The tensors that hold a layer's `parameters` (its optimizer's host work is per tensor): a weight and, where it
// has one, a bias; a scale and a shift; a token table and, where it has one, a position table; a recurrent
// layer's input and recurrent weights and their two biases (PyTorch's w_ih, w_hh, b_ih, b_hh).
// A dense layer tied to another's weights (GPT's logits) owns only its bias.
inline std::int64_t parameter_tensors(const layer_op& op, std::int64_t parameters) {
    if (parameters == 0) return 0;
    return std::visit(
        [](const auto& o) -> std::int64_t {
            using O = std::decay_t<decltype(o)>;
            if constexpr (std::is_same_v<O, dense>) return (o.tied ? 0 : 1) + (o.bias ? 1 : 0);
            else if constexpr (std::is_same_v<O, conv2d> || std::is_same_v<O, deconv2d>) return 1 + (o.bias ? 1 : 0);
            else if constexpr (std::is_same_v<O, recurrent>) return o.skip_input ? 3 : 4;
            else if constexpr (std::is_same_v<O, embedding>) return o.positions > 0 ? 2 : 1;
            else if constexpr (std::is_base_of_v<scale_and_shift, O>) return 2;
            else return 0;  // no parameters of its own (parameters(in) is 0 for every other operation)
        },
        op);
}
// An operation of the user's own (basic_network<Op>): one tensor where it has parameters.
template <class Op>
    requires(!std::is_convertible_v<const Op&, layer_op>)
std::int64_t parameter_tensors(const Op&, std::int64_t parameters) {
    return parameters > 0 ? 1 : 0;
}
// Whether the operation's output is its input's values, copied or viewed (a pad, a reshape): of the network's input
// data, still data (basic_network's layer::input_data).
inline bool moves_data(const layer_op& op) {
    return std::holds_alternative<pad>(op) || std::holds_alternative<reshape>(op);
}
template <class Op>
    requires(!std::is_convertible_v<const Op&, layer_op>)
bool moves_data(const Op&) {
    return false;
}
inline op_work work(const layer_op& op, phase p, const work_args& a) {
    return std::visit([&](const auto& o) { return o.work(p, a); }, op);
}
inline std::string_view kind(const layer_op& op) {
    return std::visit([](const auto& o) -> std::string_view { return o.kind; }, op);
}
}  // namespace ops

static_assert(Operation<ops::conv2d> && Operation<ops::dense> && Operation<ops::passthrough> && Operation<ops::recurrent> &&
              Operation<ops::attention> && Operation<ops::embedding> && Operation<ops::layer_norm>);

}  // namespace steptime
