// steptime/zoo/gpt.hpp: GPT decoder-only transformers (Radford et al. 2019) as Megatron-LM trains them
// (Shoeybi et al. 2019; Narayanan et al., SC21): learned position embeddings, pre-norm blocks of fused-QKV
// attention and a 4h GELU MLP with dropout on both residual branches, a final layer norm, output logits tied
// to the token embedding, and the loss over them in FP32. With tensor parallelism over t GPUs the network is
// one GPU's part, split as Megatron-LM splits it (Shoeybi et al. 2019, section 3): the QKV projection and the
// first MLP layer by columns (heads and 4h divided by t), the attention output projection and the second MLP
// layer by rows; the vocabulary of the embedding and the logits divided by t; layer norms, dropouts and residual
// adds repeated on every GPU. The parts all-reduce the outputs of the embedding and the row-split layers going
// forward, and the gradients of the column-split layers' inputs going backward.
#pragma once

#include <string>

#include "steptime/zoo/builder.hpp"

namespace steptime::zoo {

struct gpt_config {
    std::int64_t layers = 12, hidden = 768, heads = 12, sequence = 1024, vocabulary = 50257;  // GPT-2 small
    bool recompute = false;  // full activation recompute of every transformer layer (Megatron's uniform method)
    int tensor_parallel = 1;  // GPUs each layer is split across (Megatron's --tensor-model-parallel-size)

    // Parameters by Narayanan et al. (SC21) section 5.1: P = 12 l h^2 (1 + 13 / (12 h) + (V + s) / (12 l h)).
    // The network has 2h more, the final layer norm's, which the paper's count leaves out.
    double paper_parameters() const {
        const double l = static_cast<double>(layers), h = static_cast<double>(hidden);
        return 12 * l * h * h * (1 + 13 / (12 * h) + static_cast<double>(vocabulary + sequence) / (12 * l * h));
    }
    // FLOPs of a step of `batch` sequences with full activation recompute, Narayanan et al. (SC21) eq. (3):
    // F = 96 B s l h^2 (1 + s / (6h) + V / (16 l h)), the count that Megatron's reported TFLOP/s per GPU divide.
    double paper_flops(double batch) const {
        const double l = static_cast<double>(layers), h = static_cast<double>(hidden), s = static_cast<double>(sequence);
        return 96 * batch * s * l * h * h * (1 + s / (6 * h) + static_cast<double>(vocabulary) / (16 * l * h));
    }
    std::string name() const {
        return "gpt:layers=" + std::to_string(layers) + ",hidden=" + std::to_string(hidden) + ",heads=" +
               std::to_string(heads) + ",seq=" + std::to_string(sequence) + ",vocab=" + std::to_string(vocabulary) +
               ",recompute=" + std::to_string(recompute ? 1 : 0) +
               (tensor_parallel > 1 ? ",tp=" + std::to_string(tensor_parallel) : "");
    }
};

// A GPT of one sequence per sample (tokens x 1 x 1 token ids to tokens x 1 x vocabulary / t logits); batch 1.
template <class Net = network>
Net gpt(const gpt_config& g) {
    using detail::chain;
    const int t = g.tensor_parallel;
    if (t < 1) throw invalid_model("gpt: tensor_parallel is " + std::to_string(t) + ", expected 1 or more GPUs");
    for (const auto& [what, n] : {std::pair{"heads", g.heads}, {"hidden", g.hidden}, {"vocab", g.vocabulary}})
        if (n % t != 0)
            throw invalid_model(std::string("gpt: ") + what + " " + std::to_string(n) + " does not split over " +
                                std::to_string(t) + " GPUs (tensor parallelism" +
                                (std::string_view(what) == "vocab" ? "; Megatron pads the vocabulary to a multiple of 128 t)" : ")"));
    Net net(g.name());
    net.tensor_parallel = t;
    const std::int64_t h = g.hidden;
    const auto reduce = [&](const std::string& layer, group_all_reduce where) {
        if (t > 1) net.all_reduce(*net.find(layer), where);
    };
    const auto linear = [](std::int64_t outputs) {
        ops::dense d = detail::dense(outputs);
        d.per_position = true;
        return d;
    };
    const ops::dropout dropout{0.9};  // Megatron's hidden and attention dropout, 0.1
    ops::attention attention;
    attention.heads = g.heads / t;
    ops::embedding embed;
    embed.vocabulary = g.vocabulary / t;
    embed.features = h;
    embed.positions = g.sequence;

    net.add("tokens", ops::input{tensor_shape::image(g.sequence, 1, 1)});
    std::string x = chain<Net>(net, "tokens").then("embed", embed).then("embed/dropout", dropout).last();
    reduce("embed", group_all_reduce::output);
    for (std::int64_t i = 1; i <= g.layers; ++i) {
        const std::string p = "layer" + std::to_string(i);
        const std::size_t first = net.size();
        chain<Net> attend(net, x);
        attend.then(p + "/ln1", ops::layer_norm{})
            .then(p + "/qkv", linear(3 * h / t))
            .then(p + "/attention", attention)
            .then(p + "/proj", linear(h))
            .then(p + "/dropout1", dropout);
        const std::string mid = detail::join(net, p + "/add1", detail::elementwise(ops::elementwise::operation::add),
                                             {attend.last(), x});
        chain<Net> mlp(net, mid);
        mlp.then(p + "/ln2", ops::layer_norm{})
            .then(p + "/fc1", linear(4 * h / t))
            .then(p + "/gelu", detail::act(ops::activation::function::gelu))
            .then(p + "/fc2", linear(h))
            .then(p + "/dropout2", dropout);
        x = detail::join(net, p + "/add2", detail::elementwise(ops::elementwise::operation::add), {mlp.last(), mid});
        for (const char* column : {"/qkv", "/fc1"}) reduce(p + column, group_all_reduce::input_gradient);
        for (const char* row : {"/proj", "/fc2"}) reduce(p + row, group_all_reduce::output);
        for (std::size_t v = first; v < net.size(); ++v) {
            net.set_block(v, static_cast<int>(i));  // a pipeline stage holds whole transformer layers
            if (g.recompute) net.recompute(v);
        }
    }
    ops::dense logits = linear(g.vocabulary / t);
    logits.bias = false;
    logits.tied = true;  // the token embedding's table
    chain<Net>(net, x).then("ln_f", ops::layer_norm{}).then("logits", logits).then("loss", ops::softmax_cross_entropy{true});
    reduce("logits", group_all_reduce::input_gradient);
    return net;
}

}  // namespace steptime::zoo
