// steptime/ops/embedding.hpp: a token embedding: each token id of a sequence looks up a row of a learned
// table, with learned position embeddings added (GPT-2's and Megatron's).
#pragma once

#include "steptime/ops/common.hpp"

namespace steptime::ops {

struct embedding {
    static constexpr std::string_view kind = "embedding";
    std::int64_t vocabulary = 0;
    std::int64_t features = 0;
    std::int64_t positions = 0;  // rows of the position table, at least the sequence's tokens; 0: none

    // A sequence of token ids, tokens x 1 x 1, to tokens x 1 x features.
    tensor_shape infer(std::span<const tensor_shape> in, const std::string& layer) const {
        detail::require_inputs(in, 1, layer);
        detail::require(in[0].rank == 3 && in[0].w() == 1 && in[0].c() == 1, layer,
                        "expects a sequence of token ids, tokens x 1 x 1, got " + in[0].str());
        detail::require(vocabulary > 0 && features > 0 && positions >= 0, layer,
                        "vocabulary " + std::to_string(vocabulary) + ", features " + std::to_string(features) +
                            ", positions " + std::to_string(positions) + ": expected positive sizes (positions 0 for none)");
        detail::require(positions == 0 || in[0].h() <= positions, layer,
                        std::to_string(in[0].h()) + " tokens, but position embeddings for " + std::to_string(positions));
        return make_shape({in[0].h(), 1, features}, 3, "layer '" + layer + "'");
    }
    std::int64_t parameters(std::span<const tensor_shape>) const {
        return detail::product({steptime::detail::checked_add(vocabulary, positions, "parameter count"), features});
    }
    op_work work(phase p, const work_args& a) const {
        const double e = a.element_bytes, x = detail::elems(a.output) * a.batch;
        const double ids = 8 * static_cast<double>(a.output.h()) * a.batch;  // int64 token ids
        const double added = positions > 0 ? x : 0;                          // the position rows, added
        switch (p) {
            case phase::forward: return {added, e * (x + added) + ids, e * x};  // gathers the rows
            case phase::backward_data: return {};                               // token ids have no gradient
            // The tables' gradients: zeroed, then each token's output gradient added to its row (PyTorch's
            // embedding backward), and summed over the batch for the positions.
            case phase::backward_weights: return {x + added, e * (x + added) + ids, e * static_cast<double>(a.parameters)};
        }
        return {};
    }
};

}  // namespace steptime::ops
