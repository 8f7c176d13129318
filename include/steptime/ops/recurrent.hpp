// steptime/ops/recurrent.hpp: a recurrent layer over a sequence, as cuDNN runs one (Appleyard, Kocisky and
// Blunsom, "Optimizing performance of recurrent neural networks on GPUs", 2016): the input's projections for
// all steps in one GEMM, then per step a GEMM of the previous hidden state by the recurrent weights and an
// element-wise kernel for the cell's gates; back through time in reverse; each weight gradient one GEMM
// over all steps. A sequence is a steps x 1 x features image.
#pragma once

#include <array>
#include <numeric>

#include "steptime/ops/common.hpp"

namespace steptime::ops {

struct recurrent {
    static constexpr std::string_view kind = "recurrent";
    // A pass is one cuDNN call, which launches its steps' kernels itself: one dispatch for the host.
    static constexpr bool one_library_call = true;
    enum class cell_type { rnn, lstm, gru };  // rnn: ReLU or tanh, which cost alike
    cell_type cell = cell_type::lstm;
    std::int64_t hidden = 0;
    // The input, of hidden features, is added to the gates as it is, without input weights (cuDNN's
    // CUDNN_SKIP_INPUT, which DeepBench's RNN benchmark uses).
    bool skip_input = false;

    // Gate pre-activations per hidden unit (cuDNN's weight matrices per layer): LSTM 4, GRU 3, plain 1.
    double gates() const { return cell == cell_type::lstm ? 4 : cell == cell_type::gru ? 3 : 1; }

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        detail::require(in[0].rank == 3 && in[0].w() == 1, layer, "expects a sequence steps x 1 x features, got " + in[0].str());
        detail::require(hidden > 0, layer, "hidden is " + std::to_string(hidden) + ", expected a positive size");
        detail::require(!skip_input || in[0].c() == hidden, layer,
                        "skips its input weights, so expects " + std::to_string(hidden) + " input features (hidden), got " +
                            std::to_string(in[0].c()));
        return make_shape({in[0].h(), 1, hidden}, 3, "layer '" + layer + "'");
    }
    // Recurrent and input weights, and cuDNN's two bias vectors (input and recurrent) per gate.
    std::int64_t parameters(std::span<const tensor_shape> in) const {
        using steptime::detail::checked_add;
        const std::int64_t g = static_cast<std::int64_t>(gates());
        const std::int64_t inputs = skip_input ? 0 : in[0].c();
        return detail::product({g, hidden, checked_add(checked_add(inputs, hidden, "parameter count"), 2, "parameter count")});
    }

    // The elements every matmul dimension is a multiple of: tensor cores take a recurrent layer where the hidden
    // and input sizes both fill whole 16-byte loads (cuDNN's rule for RNNs).
    std::int64_t matmul_alignment(const work_args& a) const { return std::gcd(hidden, a.inputs[0].c()); }

    // The kernels of phase p. The data-gradient pass runs whether or not the input needs its gradient:
    // cuDNN's backward-data call always writes dx, and it goes back through time, which the weight gradients
    // need.
    std::array<kernel_work, 3> kernels(phase p, const work_args& a) const {
        const double e = a.element_bytes, b = a.batch, h = static_cast<double>(hidden), gh = gates() * h;
        const double steps = static_cast<double>(a.output.h()), in = static_cast<double>(a.inputs[0].c());
        const double rows = b * steps;
        const double cell_state = cell == cell_type::lstm ? b * h : 0;  // an LSTM's c, besides h
        const double previous = cell == cell_type::gru ? b * h : 0;     // a GRU's gates mix h(t-1) in
        const double input_share = skip_input ? b * in : b * gh;       // x(t) itself, or its projections
        const double skipped_dx = skip_input ? b * in : 0;  // dx(t): the gates' own gradient
        const auto gemm = [&](double m, double n, double k, double runs) {  // reads A and B once, writes C
            return kernel_work{{2 * m * n * k, e * (m * k + k * n), e * m * n}, runs, true, m, n, k};
        };
        switch (p) {
            case phase::forward:
                return {
                    // X W for every step, [rows x in][in x gh]
                    skip_input ? kernel_work{} : gemm(rows, gh, in, 1),
                    gemm(b, gh, h, steps),  // h(t-1) U, [b x h][h x gh]
                    // the gates: reads their sums, the input's share and c(t-1) (a GRU's h(t-1)); writes h(t),
                    // c(t) and the activated gates kept for the backward pass
                    {{4 * b * gh, e * (b * gh + input_share + cell_state + previous), e * (b * h + cell_state + b * gh)},
                     steps}};
            case phase::backward_data:
                return {
                    // the gates' gradients from the output's and the next step's dh(t), dc(t + 1), the kept
                    // activated gates, and c(t - 1) and c(t) (a GRU's h(t - 1))
                    kernel_work{{4 * b * gh, e * (2 * b * h + 3 * cell_state + previous + b * gh),
                                      e * (b * gh + cell_state + skipped_dx)},
                                     steps},
                    gemm(b, h, gh, steps),  // dh(t-1) = dG(t) U^T, [b x gh][gh x h]
                    skip_input ? kernel_work{} : gemm(rows, in, gh, 1)};  // dX = dG W^T
            case phase::backward_weights:
                return {gemm(gh, h, rows, 1),  // dU: dG(t)^T h(t-1) summed over the steps, [gh x rows][rows x h]
                        skip_input ? kernel_work{} : gemm(gh, in, rows, 1),  // dW
                        // both biases: dG summed over the rows (a GRU's recurrent candidate bias sums r * dG,
                        // at the same cost)
                        kernel_work{{rows * gh, e * rows * gh, e * 2 * gh}, 1}};
        }
        return {};
    }

    op_work work(phase p, const work_args& a) const { return total_work(kernels(p, a)); }
};

}  // namespace steptime::ops
