// steptime/parallel/pipeline_parallel.hpp: one step of a network cut into consecutive stages on different GPUs
// (or tensor-parallel groups) that pass micro-batches along (GPipe, Huang et al. 2019), in the 1F1B order of
// PipeDream-Flush or Megatron-LM's interleaved one (Narayanan et al., SC21, section 2.2), flushed every step;
// replicas of the whole pipeline all-reduce each stage's gradients after the flush.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "steptime/comm/collectives.hpp"
#include "steptime/cost/paleo_compat.hpp"
#include "steptime/detail/checked.hpp"
#include "steptime/estimate.hpp"
#include "steptime/graph/activations.hpp"
#include "steptime/graph/issue_queue.hpp"
#include "steptime/parallel/data_parallel.hpp"

namespace steptime {

struct pipeline_parallel {
    int stages = 1;            // p: GPUs (tensor-parallel groups) holding a replica's consecutive layers
    int micro_batches = 1;     // m: micro-batches per step, of estimate_options::batch samples each
    int chunks_per_stage = 1;  // v: model chunks per stage (Megatron-LM's interleaved schedule); 1: plain 1F1B
    network_link link{};       // between consecutive stages
};

namespace detail {

// The chunk (0 to k - 1) of each layer, in topological order, every chunk a run of consecutive layers. A network of
// blocks (layer::block) gives each chunk an equal run of whole blocks, the layers before the first block going to
// the first chunk and those after a block to that block's chunk (Megatron-LM's split); any other network is cut
// where the running sum of the layers' times crosses multiples of 1/k of the whole.
template <class Net>
std::vector<int> pipeline_chunks(const Net& net, const std::vector<seconds>& time, std::int64_t chunks) {
    const std::size_t n = net.size();
    if (chunks < 1 || static_cast<std::uint64_t>(chunks) > n)
        throw invalid_model("network '" + net.name() + "' has " + std::to_string(n) + " layers, too few for " +
                            std::to_string(chunks) + " pipeline chunks (stages x chunks per stage)");
    const int k = static_cast<int>(chunks);
    std::vector<int> chunk(n);
    int blocks = 0;
    for (auto v : net.vertices()) {
        if (net[v].block > 0 && net[v].block < blocks)
            throw invalid_model("network '" + net.name() + "': layer '" + net[v].name + "' is in block " +
                                std::to_string(net[v].block) + ", expected blocks numbered from 1 in layer order");
        blocks = std::max(blocks, net[v].block);
    }
    if (blocks > 0) {
        if (blocks % k != 0)
            throw invalid_model("network '" + net.name() + "' has " + std::to_string(blocks) +
                                " blocks (transformer layers), which do not split evenly into " + std::to_string(k) +
                                " pipeline chunks (stages x chunks per stage)");
        int current = 0;
        for (auto v : net.vertices()) {
            if (net[v].block > 0) current = (net[v].block - 1) / (blocks / k);
            chunk[v] = current;
        }
        return chunk;
    }
    double total = 0;
    for (seconds t : time) total += t.value();
    double before = 0;
    int previous = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double middle = before + time[i].value() / 2;
        const int ideal = total > 0 ? std::min(static_cast<int>(middle / total * k), k - 1) : 0;
        // No chunk skipped, none left empty: at most one step up, and enough layers left for the chunks after.
        int c = i == 0 ? 0 : std::clamp(ideal, previous, previous + 1);
        c = std::max(c, k - static_cast<int>(n - i));
        chunk[i] = previous = c;
        before += time[i].value();
    }
    return chunk;
}

// The weights a tied layer reads (GPT's logits read the token embedding's table, on the first stage): a later stage
// holds a copy, updates it and all-reduces its gradient with the first stage (Megatron-LM's embedding group).
template <class Op>
std::int64_t tied_weights(const layer<Op>& l) {
    if constexpr (requires { std::get_if<ops::dense>(&l.op); }) {
        if (const auto* d = std::get_if<ops::dense>(&l.op); d && d->tied)
            return steptime::detail::checked_mul(d->reduced(l.inputs[0]), d->outputs, "tied weights of '" + l.name + "'");
    }
    return 0;
}

// The micro-batches of each of stage s's v chunks in flight when the stage holds the most, given what each chunk keeps
// of one (`kept`), under Megatron-LM's schedules as its SC21 code runs them. The stage runs a warm-up of W forward
// passes, then each next forward pass before the next backward pass. 1F1B: W = p - s - 1 (PipeDream-Flush). The
// interleaved schedule (forward_backward_pipelining_with_interleaving): W = 2 (p - s - 1) + (v - 1) p, all m v passes
// when m = p; the k-th forward pass runs chunk (k mod pv) / p and the k-th backward pass chunk v - 1 - (k mod pv) / p,
// a pattern that repeats every pv passes. Either holds min(W + 1, m v) at once, on the first stage with equal chunks
// Korthikanti et al.'s (2022) p (1 + (p - 1) / (p v)) micro-batches' worth of the stage.
inline std::vector<std::int64_t> in_flight(int p, int v, int m, int s, std::span<const double> kept) {
    const std::int64_t round = std::int64_t{p} * v, passes = std::int64_t{m} * v;
    const std::int64_t warm_up = std::min(passes, v == 1    ? std::int64_t{p - s - 1}
                                                  : m == p ? passes
                                                           : 2 * std::int64_t{p - s - 1} + std::int64_t{v - 1} * p);
    const auto chunk = [&](std::int64_t k) { return static_cast<std::size_t>(k % round / p); };
    const auto bytes = [&](const std::vector<std::int64_t>& n) {
        double b = 0;
        for (std::size_t j = 0; j < n.size(); ++j) b += static_cast<double>(n[j]) * kept[j];
        return b;
    };
    std::vector<std::int64_t> now(static_cast<std::size_t>(v));
    for (std::int64_t k = 0; k < warm_up; ++k) ++now[chunk(k)];
    std::vector<std::int64_t> most = now;
    const std::int64_t period = v == 1 ? 1 : round;  // one chunk's count stays at W + 1 once the warm-up is done
    for (std::int64_t k = 0; k < std::min(passes - warm_up, period); ++k) {
        ++now[chunk(warm_up + k)];
        if (bytes(now) > bytes(most)) most = now;
        --now[static_cast<std::size_t>(v - 1) - chunk(k)];
    }
    return most;
}

}  // namespace detail

// `opt.batch` is the micro-batch: a step runs pp.micro_batches of them through each of dp.workers pipelines. Each
// stage s runs its chunks' forward and backward passes for a micro-batch in T_s, sends included, and the schedule
// takes m max T_s + (sum T_s - max T_s) / v: m T + (p - 1) T / v for equal stages, whose bubble is Narayanan et al.'s
// (p - 1) / (v m) of the ideal time. A tensor of B bytes between stages of t GPUs goes as Megatron-LM sends it
// (section 4.1): each GPU its B / t over pp.link, then an all-gather in the next group. Each stage updates its own
// weights (a later stage's copy of a tied table too); the replicas all-reduce each stage's gradients after the flush
// (Megatron-LM's local DDP), the stages at once, so the step waits for the largest. The result's parameters and
// gradients are the largest stage's, its memory the stage's that limits the micro-batch (limiting), with its
// micro-batches in flight (detail::in_flight).
template <class Net, class Model, class Comm>
    requires CostModel<Model, Net> && CommModel<Comm>
step_estimate estimate(const Net& net, const device& dev, const Model& model, const Comm& comm, const data_parallel& dp,
                       const pipeline_parallel& pp, const estimate_options& opt = {}) {
    if constexpr (std::is_same_v<Model, cost::paleo_compat>)
        throw unsupported_operation("PALEO has no pipeline parallelism (paleo-compat): use another cost model");
    detail::require_training(opt, "pipeline parallelism");
    const auto in_range = [](int v, int hi, const std::string& what) {
        if (v < 1 || v > hi)
            throw invalid_argument(what + " is " + std::to_string(v) + ", expected 1 to " + std::to_string(hi));
    };
    in_range(pp.stages, 100'000, "pipeline stages");
    in_range(pp.micro_batches, 1'000'000, "micro-batches");
    in_range(pp.chunks_per_stage, 100'000, "chunks per stage");
    if (pp.chunks_per_stage > 1 && (pp.stages < 2 || pp.micro_batches % pp.stages != 0))
        throw invalid_argument("the interleaved schedule (" + std::to_string(pp.chunks_per_stage) +
                               " chunks per stage) runs micro-batches in rounds of one per stage: it needs 2 or more "
                               "stages and micro-batches a multiple of them (" + std::to_string(pp.micro_batches) +
                               " over " + std::to_string(pp.stages) + ")");
    validate(dp);
    if (dp.scale != scaling::weak)
        throw invalid_argument("a pipeline takes the micro-batch per worker (weak scaling), not a global batch to split");
    if (dp.overlap_with != overlap::none)
        throw invalid_argument("a pipeline's replicas exchange gradients after its flush: overlap none");
    validate(pp.link);
    const int p = pp.stages, t = net.tensor_parallel;
    const double m = pp.micro_batches;

    step_estimate r = estimate(net, dev, model, opt);  // one micro-batch through the whole replica
    const std::int64_t micro_batch = r.batch;
    std::vector<seconds> time(net.size());
    for (auto v : net.vertices()) time[v] = r.layers[v].forward.total() + r.layers[v].backward.total();
    const std::vector<int> chunk = detail::pipeline_chunks(net, time, std::int64_t{p} * pp.chunks_per_stage);
    const int k = p * pp.chunks_per_stage;  // at most the layers, checked by the cut

    // Per chunk: its passes (as the host issues them), its tensor-parallel all-reduces, the elements it sends on.
    std::vector<issue_queue> fwd(k, issue_queue{detail::host_dispatch_of(model)}), bwd = fwd;
    std::vector<seconds> group(k);
    std::vector<double> sent(k);
    std::vector<std::int64_t> params(p), tied(p), tensors(p);
    std::vector<activation_tally> held(k);  // a sample's activation bytes in each chunk
    for (auto v : net.vertices()) {
        const int c = chunk[v];
        const auto& e = r.layers[v];
        fwd[c].add(e.forward.kernels, e.forward.total());
        if (t > 1) group[c] += e.forward.remote + e.backward.remote;
        params[c % p] += net[v].parameters;
        tensors[c % p] += ops::parameter_tensors(net[v].op, net[v].parameters);
        if (c % p != 0) tied[c % p] += detail::tied_weights(net[v]);
        held[c].add(net, v, element_bytes(opt.precision));
        int last = c;  // an output crosses every boundary up to its last consumer's chunk
        for (auto w : net.children(v)) last = std::max(last, chunk[w]);
        for (int b = c; b < last; ++b) sent[b] += static_cast<double>(net[v].output.elements());
    }
    for (auto v = net.size(); v-- > 0;) bwd[chunk[v]].add(r.layers[v].backward.kernels, r.layers[v].backward.total());
    // Megatron-LM's SC21 code keeps each received tensor until its backward pass, while the sender keeps its output.
    for (int c = 1; c < k; ++c) held[c].add_kept(sent[c - 1] * element_bytes(opt.precision));
    const std::optional<network_link> group_link = detail::tensor_group_link(net, dev, opt);
    const auto send = [&](double elements) {
        const bytes b = bytes_of(elements * static_cast<double>(micro_batch) * element_bytes(opt.precision));
        const seconds gather = t > 1 ? (t - 1.0) * group_link->transfer(b / static_cast<double>(t)) : seconds{};
        return pp.link.transfer(b / static_cast<double>(t)) + gather;
    };
    std::vector<seconds> stage_fwd(p), stage_bwd(p), stage_send(p), stage_group(p), busy(p);
    for (int c = 0; c < k; ++c) {
        const int s = c % p;  // chunk c runs on stage c mod p (interleaved: stage s holds s, s + p, ...)
        stage_fwd[s] += fwd[c].finished();
        stage_bwd[s] += bwd[c].finished();
        stage_group[s] += group[c];
        if (p > 1 && c + 1 < k) stage_send[s] += send(sent[c]);  // activations forward
        if (p > 1 && c > 0) stage_send[s] += send(sent[c - 1]);  // their gradients back
        busy[s] = stage_fwd[s] + stage_bwd[s] + stage_send[s];
    }
    const int slowest = static_cast<int>(std::max_element(busy.begin(), busy.end()) - busy.begin());
    seconds all{};
    for (seconds b : busy) all += b;

    const cost_context ctx{dev, micro_batch, opt.precision};
    const double eb = element_bytes(opt.gradients);
    const auto gradients = [&](std::int64_t n) { return bytes_of(static_cast<double>(n) * eb); };
    seconds tied_sync{};  // the embedding group's all-reduce, between the first stage and each copy's
    for (int s = 1; s < p; ++s)
        if (tied[s] > 0) tied_sync = std::max(tied_sync, comm::ring_all_reduce(gradients(tied[s]), 2, pp.link));
    r.parts.clear();
    r.update = r.communication = seconds{};
    std::int64_t largest = 0;
    for (int s = 0; s < p; ++s) {
        const std::int64_t own = params[s] + tied[s];
        const seconds update = model.update(weights{own, tensors[s] + (tied[s] > 0 ? 1 : 0)}, ctx).total();
        const seconds sync = comm.all_reduce(gradients(own), dp.workers) + (s == 0 || tied[s] > 0 ? tied_sync : seconds{});
        r.parts.push_back({"stage " + std::to_string(s + 1), m * stage_fwd[s], m * stage_bwd[s], update, sync});
        r.update = std::max(r.update, update);
        r.communication = std::max(r.communication, sync);
        largest = std::max(largest, own);
        // Each chunk's micro-batches in flight (detail::in_flight). Megatron-LM's local DDP reduces the gradients
        // where they are: no buckets.
        std::vector<double> kept(static_cast<std::size_t>(pp.chunks_per_stage));
        for (int j = 0; j < pp.chunks_per_stage; ++j) kept[j] = held[s + j * p].kept();
        const std::vector<std::int64_t> flight = detail::in_flight(p, pp.chunks_per_stage, pp.micro_batches, s, kept);
        activation_tally stage_held;
        for (int j = 0; j < pp.chunks_per_stage; ++j) stage_held.add_copies(held[s + j * p], flight[j]);
        const memory_footprint stage = detail::gpu_memory(model, dev, opt, own, stage_held, micro_batch);
        r.memory = s == 0 ? stage : limiting(r.memory, stage);
    }
    r.workers = dp.workers;
    r.pipeline_stages = p;
    r.micro_batches = pp.micro_batches;
    r.chunks_per_stage = pp.chunks_per_stage;
    r.batch_per_worker = detail::checked_mul(pp.micro_batches, micro_batch, "samples per pipeline");
    r.batch = detail::checked_mul(r.batch_per_worker, dp.workers, "samples per step");
    r.forward = m * stage_fwd[slowest];
    r.backward = m * stage_bwd[slowest];
    r.group_communication = m * stage_group[slowest];
    r.pipeline_communication = m * stage_send[slowest];
    r.bubble = (all - busy[slowest]) / static_cast<double>(pp.chunks_per_stage);
    r.forward_bounds = {r.forward, r.forward};  // a stage's passes run in order, one micro-batch after another
    r.backward_bounds = {r.backward, r.backward};
    r.parameters = largest;
    r.parameter_bytes = bytes_of(static_cast<double>(largest) * element_bytes(element_type::fp32));
    r.gradient_bytes = gradients(largest);
    r.exposed_communication = r.communication;
    r.total = r.forward + r.backward + r.pipeline_communication + r.bubble + r.update + r.exposed_communication;
    detail::require_finite(r.total, "the pipelined step time of '" + r.model + "'");
    return r;
}

}  // namespace steptime
