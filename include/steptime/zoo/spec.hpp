// steptime/zoo/spec.hpp: networks from one-line specs: single operations as kernel benchmarks run them
// (DeepBench GEMM and convolution rows) and zoo networks with options.
//
//   gemm:m=1760,n=128,k=1760[,ta=0|1][,tb=0|1]
//       C[MxN] = op(A)[MxK] op(B)[KxN] (DeepBench), 2MNK FLOPs. Built as one dense layer without bias:
//       batch N, K input features, M outputs (Y[N,M] = X[N,K] W[K,M] is C^T = B^T A^T: the same GEMM).
//       Its bytes are A, B and C once each. The transposes are accepted and kept in the network's name,
//       but the model does not distinguish them (same FLOPs, same bytes).
//   conv2d:n=16,h=112,w=112,c=64,k=128,r=3,s=3[,stride=1][,pad=0][,groups=1][,stride_h=,stride_w=,pad_h=,pad_w=]
//       cuDNN's naming: batch n, input h x w x c, k filters of r x s (height x width), a stride and a
//       symmetric explicit pad for both dimensions (defaults 1 and 0) that stride_h, stride_w, pad_h and
//       pad_w override along one (a 1x7 convolution's pad_w=3), no bias. One conv2d layer, batch n.
//   lstm:hidden=1024,batch=128,steps=25[,input=1024][,skip_input=0|1]   (also gru: and rnn:, ReLU or tanh)
//       One recurrent layer as cuDNN runs it (ops::recurrent) over `steps` steps of `input` features (default
//       hidden); skip_input=1 adds the input to the gates without input weights (CUDNN_SKIP_INPUT, DeepBench's).
//   gpt[:layers=12][,hidden=768][,heads=12][,seq=1024][,vocab=50257][,recompute=0|1][,tp=1]
//       A GPT as Megatron-LM trains it (zoo::gpt; the defaults are GPT-2 small's), one sequence per sample;
//       recompute=1 runs each transformer layer's forward pass again in the backward pass; tp=t builds one
//       GPU's part of it split over t GPUs (tensor parallelism).
//   <zoo name>[:resolution=224][,classes=1000]
//       zoo::find(name)->build(options).
//
// The single operation's data gradient is costed, as a kernel benchmark's backward-data pass is real
// work: the library skips the data gradient of a layer fed only by the network's input data, or a pad or
// reshape of it (nobody needs it in training), so the operation is fed through a free identity layer "x"
// (ops::passthrough, which is neither).
#pragma once

#include <charconv>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "steptime/detail/text.hpp"
#include "steptime/estimate.hpp"
#include "steptime/zoo/gpt.hpp"
#include "steptime/zoo/zoo.hpp"

namespace steptime::zoo {

namespace detail {

inline constexpr std::int64_t spec_any = std::numeric_limits<std::int64_t>::max();

struct spec_key {
    std::string_view name;
    bool required;
    std::int64_t fallback;  // when not required and not given
    std::int64_t min, max;
};

// The key=value list after the ':' of `spec`, checked against the keys `op` accepts; values in key order.
inline std::vector<std::int64_t> spec_values(std::string_view spec, std::string_view op, std::string_view list,
                                             std::initializer_list<spec_key> keys) {
    const std::string where = "model spec '" + std::string(spec) + "': ";
    std::string accepted, required;
    for (const auto& k : keys) {
        accepted += (accepted.empty() ? "" : ", ") + std::string(k.name);
        if (k.required) required += (required.empty() ? "" : ", ") + std::string(k.name);
    }
    std::vector<std::optional<std::int64_t>> given(keys.size());
    while (!list.empty()) {
        const auto comma = list.find(',');
        const std::string_view item = steptime::detail::trim(list.substr(0, comma));
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        if (comma != std::string_view::npos && steptime::detail::trim(list).empty())
            throw invalid_argument(where + "a trailing ',' (expected key=value after it)");
        const auto eq = item.find('=');
        if (item.empty() || eq == std::string_view::npos)
            throw invalid_argument(where + (item.empty() ? std::string("an empty item") : "'" + std::string(item) + "'") +
                                   ", expected key=value");
        const std::string_view key = steptime::detail::trim(item.substr(0, eq));
        const std::string_view text = steptime::detail::trim(item.substr(eq + 1));
        if (key.empty()) throw invalid_argument(where + "'" + std::string(item) + "' has no key, expected key=value");
        std::size_t i = 0;
        const spec_key* k = nullptr;
        for (const auto& candidate : keys) {
            if (candidate.name == key) {
                k = &candidate;
                break;
            }
            ++i;
        }
        if (!k)
            throw invalid_argument(where + "unknown key '" + std::string(key) + "' (" + std::string(op) +
                                   " accepts " + accepted + ")");
        if (given[i]) throw invalid_argument(where + "key '" + std::string(key) + "' is given twice");
        const std::string expected = k->min == 0 && k->max == 1 ? "0 or 1"
                                     : k->min == 0             ? "a non-negative integer"
                                                               : "a positive integer";
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || end != text.data() + text.size() || (ec != std::errc{} && ec != std::errc::result_out_of_range))
            throw invalid_argument(where + "key '" + std::string(key) + "' is '" + std::string(text) + "', expected " +
                                   expected);
        if (ec == std::errc::result_out_of_range || v < k->min || v > k->max)
            throw invalid_argument(where + "key '" + std::string(key) + "' is " + std::string(text) + ", expected " +
                                   expected + (k->max < spec_any ? " up to " + std::to_string(k->max) : std::string{}));
        given[i] = v;
    }
    std::vector<std::int64_t> values;
    std::size_t i = 0;
    for (const auto& k : keys) {
        if (!given[i] && k.required)
            throw invalid_argument(where + "missing key '" + std::string(k.name) + "' (" + std::string(op) +
                                   " needs " + required + ")");
        values.push_back(given[i].value_or(k.fallback));
        ++i;
    }
    return values;
}

// The input and the free identity layer "x" that makes the operation's data gradient count (see the top).
template <class Net>
void spec_input(Net& net, const tensor_shape& shape) {
    net.add("input", ops::input{shape});
    net.add("x", ops::passthrough{"identity"}, {"input"});
}

template <class Net>
Net gemm_spec(std::string_view spec, std::string_view list) {
    const auto v = spec_values(spec, "gemm", list,
                               {{"m", true, 0, 1, spec_any}, {"n", true, 0, 1, max_batch},
                                {"k", true, 0, 1, spec_any}, {"ta", false, 0, 0, 1}, {"tb", false, 0, 0, 1}});
    const std::int64_t m = v[0], n = v[1], k = v[2];
    Net net("gemm:m=" + std::to_string(m) + ",n=" + std::to_string(n) + ",k=" + std::to_string(k) +
            ",ta=" + std::to_string(v[3]) + ",tb=" + std::to_string(v[4]));
    net.native_batch = n;  // C[MxN] = A[MxK] B[KxN] as Y[N,M] = X[N,K] W[K,M]: N samples of K features
    spec_input(net, tensor_shape::features(k));
    ops::dense d;
    d.outputs = m;
    d.bias = false;
    net.add("gemm", d, {"x"});
    return net;
}

template <class Net>
Net conv2d_spec(std::string_view spec, std::string_view list) {
    constexpr std::int64_t unset = -1;  // a per-dimension key not given takes the shared one's value
    const auto v = spec_values(spec, "conv2d", list,
                               {{"n", true, 0, 1, max_batch}, {"h", true, 0, 1, spec_any}, {"w", true, 0, 1, spec_any},
                                {"c", true, 0, 1, spec_any}, {"k", true, 0, 1, spec_any}, {"r", true, 0, 1, spec_any},
                                {"s", true, 0, 1, spec_any}, {"stride", false, 1, 1, spec_any},
                                {"pad", false, 0, 0, spec_any}, {"groups", false, 1, 1, spec_any},
                                {"stride_h", false, unset, 1, spec_any}, {"stride_w", false, unset, 1, spec_any},
                                {"pad_h", false, unset, 0, spec_any}, {"pad_w", false, unset, 0, spec_any}});
    const auto either = [](std::int64_t own, std::int64_t shared) { return own == unset ? shared : own; };
    const std::int64_t n = v[0], h = v[1], w = v[2], c = v[3], k = v[4], r = v[5], s = v[6], groups = v[9];
    const std::int64_t stride_h = either(v[10], v[7]), stride_w = either(v[11], v[7]);
    const std::int64_t pad_h = either(v[12], v[8]), pad_w = either(v[13], v[8]);
    const auto pair = [](std::string_view key, std::int64_t along_h, std::int64_t along_w) {
        return along_h == along_w ? "," + std::string(key) + "=" + std::to_string(along_h)
                                  : "," + std::string(key) + "_h=" + std::to_string(along_h) + "," + std::string(key) +
                                        "_w=" + std::to_string(along_w);
    };
    Net net("conv2d:n=" + std::to_string(n) + ",h=" + std::to_string(h) + ",w=" + std::to_string(w) +
            ",c=" + std::to_string(c) + ",k=" + std::to_string(k) + ",r=" + std::to_string(r) + ",s=" +
            std::to_string(s) + pair("stride", stride_h, stride_w) + pair("pad", pad_h, pad_w) +
            (groups != 1 ? ",groups=" + std::to_string(groups) : std::string{}));
    net.native_batch = n;
    spec_input(net, tensor_shape::image(h, w, c));
    ops::conv2d op;
    op.filters = k;
    op.kernel = {r, s};
    op.stride = {stride_h, stride_w};
    op.pad = ops::padding::explicit_pads(pad_h, pad_w);
    op.groups = groups;
    op.bias = false;  // cuDNN's convolution benchmarks time the convolution alone
    net.add("conv", op, {"x"});
    return net;
}

template <class Net>
Net recurrent_spec(std::string_view spec, std::string_view name, std::string_view list) {
    const auto v = spec_values(spec, name, list,
                               {{"hidden", true, 0, 1, spec_any}, {"batch", true, 0, 1, max_batch},
                                {"steps", true, 0, 1, spec_any}, {"input", false, 0, 1, spec_any},
                                {"skip_input", false, 0, 0, 1}});
    const std::int64_t hidden = v[0], batch = v[1], steps = v[2], input = v[3] ? v[3] : hidden;
    Net net(std::string(name) + ":hidden=" + std::to_string(hidden) + ",batch=" + std::to_string(batch) +
            ",steps=" + std::to_string(steps) + ",input=" + std::to_string(input) + ",skip_input=" + std::to_string(v[4]));
    net.native_batch = batch;
    spec_input(net, tensor_shape::image(steps, 1, input));
    ops::recurrent op;
    op.cell = name == "lstm" ? ops::recurrent::cell_type::lstm
              : name == "gru" ? ops::recurrent::cell_type::gru
                              : ops::recurrent::cell_type::rnn;
    op.hidden = hidden;
    op.skip_input = v[4] == 1;
    net.add(std::string(name), op, {"x"});
    return net;
}

inline gpt_config gpt_spec(std::string_view spec, std::string_view list) {
    const gpt_config d{};
    const auto v = spec_values(spec, "gpt", list,
                               {{"layers", false, d.layers, 1, spec_any}, {"hidden", false, d.hidden, 1, spec_any},
                                {"heads", false, d.heads, 1, spec_any}, {"seq", false, d.sequence, 1, spec_any},
                                {"vocab", false, d.vocabulary, 1, spec_any}, {"recompute", false, 0, 0, 1},
                                {"tp", false, d.tensor_parallel, 1, 1024}});
    return {v[0], v[1], v[2], v[3], v[4], v[5] == 1, static_cast<int>(v[6])};
}

inline bool recurrent_name(std::string_view name) { return name == "lstm" || name == "gru" || name == "rnn"; }

}  // namespace detail

// The spec's network; std::nullopt for a plain name (no ':') that is neither a zoo network nor gemm or
// conv2d, and for text before a ':' that is not a name (a file path such as "dir/a:b.json"), so that a
// caller can try it as a file. Throws invalid_argument naming the spec and the key for anything else wrong,
// including sizes whose shapes do not work out or overflow.
template <class Net = network>
std::optional<Net> from_spec(std::string_view spec) {
    if (steptime::detail::trim(spec).empty()) throw invalid_argument("empty model spec");
    const auto colon = spec.find(':');
    const std::string_view name = spec.substr(0, colon);
    const std::string_view list = colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1);
    const bool identifier = !name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                                                    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
                                                 std::string_view::npos;
    const auto* z = find<Net>(name);
    if (!identifier ||
        (colon == std::string_view::npos && !z && name != "gemm" && name != "conv2d" && name != "gpt" &&
         !detail::recurrent_name(name)))
        return std::nullopt;
    try {
        if (name == "gpt") return gpt<Net>(detail::gpt_spec(spec, list));
        if (name == "gemm") return detail::gemm_spec<Net>(spec, list);
        if (name == "conv2d") return detail::conv2d_spec<Net>(spec, list);
        if (detail::recurrent_name(name)) return detail::recurrent_spec<Net>(spec, name, list);
        if (z) {
            const auto v = detail::spec_values(spec, name, list,
                                               {{"resolution", false, options{}.resolution, 1, detail::spec_any},
                                                {"classes", false, options{}.classes, 1, detail::spec_any}});
            options o;
            o.resolution = v[0];
            o.classes = v[1];
            return z->build(o);
        }
    } catch (const invalid_model& e) {  // shapes that do not work out, sizes that overflow
        throw invalid_argument("model spec '" + std::string(spec) + "': " + e.what());
    }
    std::string names;
    for (const auto& e : catalog<Net>()) names += ", " + std::string(e.name);
    throw invalid_argument("model spec '" + std::string(spec) + "': unknown model '" + std::string(name) +
                           "' (known: gemm, conv2d, lstm, gru, rnn, gpt" + names + ")");
}

// The configuration of a gpt spec ("gpt" or "gpt:..."); std::nullopt for any other model. Throws as from_spec.
inline std::optional<gpt_config> gpt_config_of(std::string_view spec) {
    const auto colon = spec.find(':');
    if (spec.substr(0, colon) != "gpt") return std::nullopt;
    return detail::gpt_spec(spec, colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1));
}

}  // namespace steptime::zoo
