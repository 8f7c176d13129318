// steptime/ops/attention.hpp: multi-head scaled dot-product self-attention (Vaswani et al. 2017) as an eager
// framework runs it without fused attention kernels (Megatron-LM's CoreAttention, 2021): the scores of every
// head as a batched GEMM, a fused scale-mask-softmax over them, dropout on the probabilities, the context as a
// second batched GEMM, and a copy of the heads back to tokens x features. The input is the fused query, key
// and value projections, tokens x 1 x 3 features; the output tokens x 1 x features.
#pragma once

#include <array>
#include <numeric>

#include "steptime/ops/common.hpp"

namespace steptime::ops {

struct attention {
    static constexpr std::string_view kind = "attention";
    static constexpr bool one_library_call = false;  // each kernel is the framework's, dispatched on its own
    std::int64_t heads = 0;
    bool dropout = true;  // on the attention probabilities (Megatron's --attention-dropout, 0.1 by default)

    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        detail::require(in[0].rank == 3 && in[0].w() == 1, layer,
                        "expects a sequence tokens x 1 x 3 features (queries, keys, values), got " + in[0].str());
        detail::require(heads > 0, layer, "heads is " + std::to_string(heads) + ", expected a positive count");
        detail::require(in[0].c() % (3 * heads) == 0, layer,
                        std::to_string(in[0].c()) + " input features do not split into queries, keys and values of " +
                            std::to_string(heads) + " heads (expected a multiple of 3 x heads)");
        return make_shape({in[0].h(), 1, in[0].c() / 3}, 3, "layer '" + layer + "'");
    }
    std::int64_t parameters(std::span<const tensor_shape>) const { return 0; }

    // The elements every matmul dimension is a multiple of (tensor cores need whole 16-byte loads): the head
    // size and the tokens.
    std::int64_t matmul_alignment(const work_args& a) const { return std::gcd(a.output.c() / heads, a.output.h()); }

    // The kernels of phase p, for b sequences of s tokens, h features in H heads of d = h / H.
    std::array<kernel_work, 7> kernels(phase p, const work_args& a) const {
        const double e = a.element_bytes, b = a.batch, s = static_cast<double>(a.output.h());
        const double h = static_cast<double>(a.output.c()), g = b * static_cast<double>(heads), d = h / static_cast<double>(heads);
        const double scores = g * s * s, tokens = b * s * h;  // elements of all heads' scores; of Q, K, V or the context
        const auto gemm = [&](double m, double n, double k) {  // g GEMMs C[m x n] = A[m x k] B[k x n], one launch
            return kernel_work{{2 * g * m * n * k, e * g * (m * k + k * n), e * g * m * n}, 1, true, m, n, k, g};
        };
        const auto memory = [](double flops, double read, double written, double runs = 1) {
            return kernel_work{{flops, read, written}, runs};
        };
        const double masks = dropout && !a.inference ? 1 : 0;  // the dropout kernels run or not; a mask is a byte per score
        switch (p) {
            case phase::forward:
                return {gemm(s, s, d),                                      // Q K^T per head
                        memory(7 * scores, e * scores, e * scores),         // scale, causal mask, softmax
                        memory(scores, e * scores, e * scores + scores, masks),  // dropout, keeping its mask
                        gemm(s, d, s),                                      // P V per head
                        memory(0, e * tokens, e * tokens)};                 // heads back to tokens x features
            case phase::backward_data:
                return {memory(0, e * tokens, e * tokens),                  // the context's gradient to heads
                        gemm(s, s, d),                                      // dP = dC V^T
                        gemm(s, d, s),                                      // dV = P^T dC
                        memory(scores, e * scores + scores, e * scores, masks),  // dropout's gradient by its mask
                        memory(4 * scores, 2 * e * scores, e * scores),     // softmax's: P (dP - sum(dP P))
                        gemm(s, d, s),                                      // dQ = dS K
                        gemm(s, d, s)};                                     // dK = dS^T Q
            case phase::backward_weights: return {};
        }
        return {};
    }
    op_work work(phase p, const work_args& a) const { return total_work(kernels(p, a)); }
};

}  // namespace steptime::ops
