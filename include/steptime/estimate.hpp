// steptime/estimate.hpp: the facade. One training step of a network on one device.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "steptime/comm/collectives.hpp"
#include "steptime/cost/layer_time.hpp"
#include "steptime/graph/activations.hpp"
#include "steptime/graph/bounds.hpp"
#include "steptime/graph/issue_queue.hpp"
#include "steptime/graph/network.hpp"
#include "steptime/memory.hpp"

namespace steptime {

struct estimate_options {
    std::int64_t batch = 0;  // samples per step; 0 = the batch the network was written for
    element_type precision = element_type::fp32;
    // What workers exchange gradients in. FP32 by default, in mixed precision too: the gradients of the FP32
    // master weights, as PyTorch's DDP and TensorFlow all-reduce them; fp16 where the framework reduces half
    // gradients (MXNet's multi-precision SGD, Apex's O2, DDP's fp16 compression hook).
    element_type gradients = element_type::fp32;
    // What a tensor-parallel network's GPUs all-reduce their partial activations over; default: the device's
    // intra_node_link, 2 us a step (NCCL over NVLink, as comm/link.hpp's nvlink presets).
    std::optional<network_link> tensor_link{};
    // The forward pass alone, in inference mode (PyTorch's eval() under no_grad): batch norm normalizes with its
    // running statistics in one element-wise pass, dropout returns its input, no loss is computed; in FP16 or BF16
    // the network was converted once (model.half()): no FP32 weights, no casts. No backward pass, no update, and
    // memory holds each activation only until its last reader has run (inference_peak, inference_memory).
    bool inference = false;
};

// Batches above this are refused: a guard against absurd requests, far beyond any real step.
inline constexpr std::int64_t max_batch = std::int64_t{1} << 31;

struct layer_estimate {
    std::string name{};
    std::string_view op;
    layer_time forward{};
    layer_time backward{};
};

// A group of layers with its own pass times and gradient exchange (the rows of PALEO's hybrid output).
struct step_part {
    std::string name{};
    seconds forward{};
    seconds backward{};
    seconds update{};
    seconds sync{};
};

struct step_estimate {
    std::string model{};
    std::string device{};
    std::string_view cost_model;
    std::int64_t batch = 0;             // samples per step, all workers together
    std::int64_t batch_per_worker = 0;
    int workers = 1;
    int tensor_parallel = 1;  // GPUs per stage, each layer split across them; parameters and activations are one GPU's
    int pipeline_stages = 1;  // stages per worker, each a group of tensor_parallel GPUs holding consecutive layers
    int micro_batches = 1;    // a pipeline's micro-batches per step (batch_per_worker of them together)
    int chunks_per_stage = 1;  // the model chunks each stage holds (Megatron-LM's interleaved schedule)
    element_type precision = element_type::fp32;
    bool inference = false;   // the forward pass alone in inference mode (estimate_options::inference)
    seconds forward{};        // sum over layers, or the host's time to issue their kernels if longer
    seconds backward{};       // likewise, both gradients, and the forward passes of recomputed layers
    seconds update{};         // weight update
    seconds communication{};  // gradient exchange between workers (zero on one device)
    seconds exposed_communication{};  // the part of it not hidden behind the backward pass
    seconds group_communication{};    // a tensor-parallel group's all-reduces, inside forward and backward
    // A pipeline: forward and backward are its busiest stage's over the step's micro-batches; it also sends
    // activations and their gradients between stages, and idles while the pipeline fills and drains.
    seconds pipeline_communication{};
    seconds bubble{};
    seconds total{};          // forward + backward + pipeline communication + bubble + update + exposed communication

    int gpus_per_worker() const { return tensor_parallel * pipeline_stages; }
    bool pipelined() const { return pipeline_stages > 1 || micro_batches > 1 || chunks_per_stage > 1; }
    std::int64_t micro_batch() const { return batch_per_worker / micro_batches; }  // samples in one

    double throughput() const { return static_cast<double>(batch) / total.value(); }  // samples per second
    time_bounds forward_bounds{};
    time_bounds backward_bounds{};
    std::int64_t parameters = 0;  // one GPU's (a pipeline: its largest stage's)
    bytes parameter_bytes{};  // the FP32 weights the optimizer updates (mixed precision keeps them as master weights)
    bytes gradient_bytes{};   // what one GPU exchanges per step: a gradient per parameter (a pipeline: its largest stage's)
    // One GPU's memory: a pipeline's or a model-parallel network's, the stage's or device's that limits the batch
    // (limiting). Its activations are what the backward pass reads (activation_tally): those a recomputed block does
    // not keep counted once, for the largest block while it is rebuilt; a pipeline's for its micro-batches in flight
    // (detail::in_flight).
    memory_footprint memory{};
    std::vector<layer_estimate> layers{};  // in topological order (a pipeline: of one micro-batch)
    std::vector<step_part> parts{};        // hybrid: data- and model-parallel layers; a pipeline: its stages
};

namespace detail {
inline void require_finite(seconds t, const std::string& what) {
    if (std::isinf(t.value()) && t.value() > 0)  // valid inputs too extreme for a double: a rate near 0, sizes near 2^63
        throw invalid_argument(what + " is beyond the range of a double: the sizes or rates are too extreme");
    if (!std::isfinite(t.value()) || t.value() < 0)
        throw error("internal: " + what + " came out as " + std::to_string(t.value()) + " s");
}

// Refuses inference where a strategy has no meaning for it (its parts exchange activations only to train).
inline void require_training(const estimate_options& opt, const std::string& strategy) {
    if (opt.inference)
        throw invalid_argument(strategy + " trains only: inference is estimated on one GPU, a tensor-parallel group or "
                               "data-parallel replicas");
}

// The checks of the network, batch, device and model before anything is costed; returns the batch.
template <class Net, class Model>
std::int64_t checked_batch(const Net& net, const device& dev, const Model& model, const estimate_options& opt) {
    if (net.empty()) throw invalid_model("network '" + net.name() + "' has no layers");
    const std::int64_t batch = opt.batch == 0 ? net.native_batch : opt.batch;
    if (batch < 1 || batch > max_batch)
        throw invalid_argument("batch " + std::to_string(batch) + " is outside [1, " + std::to_string(max_batch) + "]");
    validate(dev);
    model.validate();
    return batch;
}

// A tensor-parallel layer's ring all-reduce among its group of `gpus`: its output going forward, the gradient of
// its inputs going backward, in the activations' precision.
template <class Op>
seconds group_exchange(const layer<Op>& l, std::int64_t batch, element_type precision, int gpus, const network_link& link) {
    double elements = static_cast<double>(l.output.elements());
    if (l.all_reduce == group_all_reduce::input_gradient) {
        elements = 0;
        for (const auto& in : l.inputs) elements += static_cast<double>(in.elements());
    }
    return comm::ring_all_reduce(bytes_of(elements * static_cast<double>(batch) * element_bytes(precision)), gpus, link);
}

// The link of a tensor-parallel network's group, checked; nullopt for a network on one GPU.
template <class Net>
std::optional<network_link> tensor_group_link(const Net& net, const device& dev, const estimate_options& opt) {
    if (net.tensor_parallel < 1)
        throw invalid_model("network '" + net.name() + "': tensor_parallel is " + std::to_string(net.tensor_parallel) +
                            ", expected 1 or more GPUs");
    if (net.tensor_parallel == 1) return std::nullopt;
    if (opt.tensor_link) {
        validate(*opt.tensor_link);
        return opt.tensor_link;
    }
    if (!dev.intra_node_link)
        throw invalid_argument("network '" + net.name() + "' is split over " + std::to_string(net.tensor_parallel) +
                               " GPUs (tensor parallelism), but device '" + dev.name +
                               "' has no intra_node_link to all-reduce over (give one: estimate_options::tensor_link, "
                               "the CLI's --intra-network)");
    return network_link{"intra-node", *dev.intra_node_link, microseconds_of(2.0), "the device's intra_node_link"};
}

// The host's time to issue a kernel, for a model that prices it (cost::kernel); zero for the others.
template <class Model>
seconds host_dispatch_of(const Model& model) {
    if constexpr (requires { { model.host_dispatch } -> std::convertible_to<seconds>; })
        return model.host_dispatch;
    else
        return seconds{};
}

// The optimizer whose state the model's update keeps; PALEO's own update (paleo-compat) is plain SGD.
template <class Model>
cost::optimizer update_rule_of(const Model& model) {
    if constexpr (requires { { model.update_rule } -> std::convertible_to<cost::optimizer>; })
        return model.update_rule;
    else
        return cost::optimizer::sgd;
}

// One GPU's footprint: `parameters` trained as `opt` says by the model's optimizer, and the activations `held` for
// each of `samples`.
template <class Model>
memory_footprint gpu_memory(const Model& model, const device& dev, const estimate_options& opt, std::int64_t parameters,
                            const activation_tally& held, std::int64_t samples) {
    return training_memory(parameters, opt.precision, opt.gradients, update_rule_of(model),
                           bytes_of(held.peak() * static_cast<double>(samples)), samples, dev.memory_capacity);
}

// One GPU's footprint serving `samples` with `parameters` (estimate_options::inference).
template <class Net>
memory_footprint inference_gpu_memory(const Net& net, const device& dev, const estimate_options& opt,
                                      std::int64_t parameters, std::int64_t samples) {
    const double activations = inference_peak(net, element_bytes(opt.precision)) * static_cast<double>(samples);
    return inference_memory(parameters, opt.precision, bytes_of(activations), samples, dev.memory_capacity);
}
}  // namespace detail

template <class Net, class Model>
    requires CostModel<Model, Net>
step_estimate estimate(const Net& net, const device& dev, const Model& model, const estimate_options& opt = {}) {
    const std::int64_t batch = detail::checked_batch(net, dev, model, opt);
    const cost_context ctx{.dev = dev, .batch = batch, .precision = opt.precision, .inference = opt.inference};
    const std::optional<network_link> group = detail::tensor_group_link(net, dev, opt);

    step_estimate r;
    r.model = net.name();
    r.device = dev.name;
    r.cost_model = Model::name;
    r.batch = batch;
    r.batch_per_worker = batch;
    r.tensor_parallel = net.tensor_parallel;
    r.precision = opt.precision;
    r.inference = opt.inference;
    r.layers.reserve(net.size());
    std::vector<seconds> fwd(net.size()), bwd(net.size());
    activation_tally held;
    for (auto v : net.vertices()) {
        const auto& l = net[v];
        if (!opt.inference) held.add(net, v, element_bytes(opt.precision));
        auto& e = r.layers.emplace_back(layer_estimate{l.name, ops::kind(l.op), model.layer(net, v, pass::forward, ctx),
                                                       opt.inference ? layer_time{} : model.layer(net, v, pass::backward, ctx)});
        const bool out = l.all_reduce == group_all_reduce::output;
        if (group && l.all_reduce != group_all_reduce::none && (out || !opt.inference)) {
            const seconds x = detail::group_exchange(l, batch, opt.precision, net.tensor_parallel, *group);
            layer_time& t = out ? e.forward : e.backward;
            t.remote += x;
            t.kernels += 1;  // NCCL's
            r.group_communication += out && l.recomputed && !opt.inference ? 2.0 * x : x;  // a recomputed forward again
        }
        if (l.recomputed && !opt.inference) e.backward += e.forward;  // its forward pass again, before its gradients
        fwd[v] = e.forward.total();
        bwd[v] = e.backward.total();
    }
    issue_queue forward{detail::host_dispatch_of(model)}, backward{detail::host_dispatch_of(model)};
    for (auto v : net.vertices()) forward.add(r.layers[v].forward.kernels, fwd[v]);
    for (auto v = net.size(); v-- > 0;) backward.add(r.layers[v].backward.kernels, bwd[v]);  // the gradients go back
    r.forward = forward.finished();
    r.backward = backward.finished();
    r.parameters = model.parameters(net);
    if (!opt.inference) r.update = model.update(weights{r.parameters, net.parameter_tensor_count()}, ctx).total();
    r.total = r.forward + r.backward + r.update;
    if (group && r.group_communication.value() == 0)  // a split network whose parts never combine their results
        throw invalid_model("network '" + net.name() + "' is split over " + std::to_string(net.tensor_parallel) +
                            " GPUs (tensor parallelism) but marks no layer to all-reduce (network::all_reduce)");
    r.forward_bounds = pass_bounds(net, fwd);
    r.backward_bounds = pass_bounds(net, bwd);
    r.parameter_bytes = bytes_of(static_cast<double>(r.parameters) * element_bytes(element_type::fp32));
    r.gradient_bytes = bytes_of(opt.inference ? 0.0 : static_cast<double>(r.parameters) * element_bytes(opt.gradients));
    r.memory = opt.inference ? detail::inference_gpu_memory(net, dev, opt, r.parameters, batch)
                             : detail::gpu_memory(model, dev, opt, r.parameters, held, batch);
    detail::require_finite(r.total, "the step time of '" + r.model + "'");
    return r;
}

}  // namespace steptime
