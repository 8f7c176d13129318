// steptime/parallel/hybrid.hpp: "One weird trick" (Krizhevsky 2014): layers outside ModelParallel
// blocks run data-parallel on K workers, split layers model-parallel across them (paleo-model.md 7.3).
#pragma once

#include <vector>

#include "steptime/comm/collectives.hpp"
#include "steptime/cost/paleo_compat.hpp"
#include "steptime/estimate.hpp"

namespace steptime {

struct hybrid_parallel {
    int workers = 1;
    network_link network{};  // between the workers: the gradient AllReduce and the model part's fetches
    ratio ppp_comm = ratio_of(1.0);
};

namespace detail {

template <class Net>
bool is_split(const Net& net, typename Net::vertex v) {
    return net[v].device.has_value();
}

// Elements of the input the model-parallel part gathers: the output of the first split layer's parent.
template <class Net>
double gathered_elements(const Net& net) {
    for (auto v : net.vertices())
        if (is_split(net, v))
            for (auto p : net.parents(v)) return static_cast<double>(net[p].output.elements());
    return 0;
}

}  // namespace detail

// `opt.batch` is the per-worker batch. The result's `parts` holds PALEO's two rows (the data-parallel
// layers with their tree AllReduce, then the model-parallel layers). With paleo_compat the step is
// PALEO's data row + model row (PALEO prints the rows and never adds them); other models fix 7.3's
// defects: the fetch is counted in bytes, each worker updates only its share of the split weights,
// and the gradient AllReduce is a ring with latency.
template <class Net, class Model>
    requires CostModel<Model, Net>
step_estimate estimate(const Net& net, const device& dev, Model model, const hybrid_parallel& h,
                       const estimate_options& opt = {}) {
    if (h.workers < 1 || h.workers > 4096)
        throw invalid_argument("hybrid workers is " + std::to_string(h.workers) + ", expected 1 to 4096");
    validate(h.network);
    detail::require_training(opt, "hybrid parallelism");
    constexpr bool compat = std::is_same_v<Model, cost::paleo_compat>;
    // Fetches between the workers go over the network (PALEO passes Gbps / 8 as "GB/s").
    model.cross_device_bandwidth = h.network.bandwidth;
    step_estimate r = estimate(net, dev, model, opt);
    const cost_context ctx{dev, r.batch, opt.precision};
    const double k = h.workers;

    std::vector<seconds> model_fwd(net.size()), model_bwd(net.size());
    seconds data_fwd{}, data_bwd{};
    std::int64_t data_params = 0, split_params = 0, data_tensors = 0, split_tensors = 0;
    for (auto v : net.vertices()) {
        const auto& l = r.layers[v];
        if (detail::is_split(net, v)) {
            // PALEO bounds the model part with per-layer totals even when pipelining (7.3).
            if constexpr (compat) {
                auto serial = model;
                serial.pipelined = false;
                model_fwd[v] = serial.layer(net, v, pass::forward, ctx).total();
                model_bwd[v] = serial.layer(net, v, pass::backward, ctx).total();
            } else {  // the layers' own work; the gather between workers is counted once below
                model_fwd[v] = l.forward.total() - l.forward.remote;
                model_bwd[v] = l.backward.total() - l.backward.remote;
            }
            split_params += net[v].parameters;
            split_tensors += ops::parameter_tensors(net[v].op, net[v].parameters);
        } else {
            data_fwd += l.forward.total();
            data_bwd += l.backward.total();
            data_params += net[v].parameters;
            data_tensors += ops::parameter_tensors(net[v].op, net[v].parameters);
        }
    }
    if constexpr (compat) data_params = model.parameters(net) - split_params;  // PALEO's count (conv, FC)

    // The model part runs the K workers' batches one after another and pays the gather once (7.3):
    // PALEO takes (lower - f) K + f, with f the gather from the K - 1 other workers counted in
    // elements; the default models take K lower + f, f in bytes, their lower bound being free of fetches.
    const double gathered = detail::gathered_elements(net) * static_cast<double>(r.batch) *
                            (compat ? 1.0 : element_bytes(opt.precision));  // PALEO: elements, not bytes
    const seconds fetch = compat ? milliseconds_of(gathered / 1073741824.0 / (to_double(h.network.bandwidth) / 1e9) * 1e3 * (k - 1))
                                 : bytes_of(gathered * (k - 1)) / (h.network.bandwidth * h.ppp_comm);
    const auto scaled = [&](seconds lower) { return compat ? (lower - fetch) * k + fetch : lower * k + fetch; };

    collective_model sync{compat ? collective::tree : collective::ring, h.network, {}, 8, h.ppp_comm, compat};
    const double eb = compat ? 4.0 : element_bytes(opt.gradients);
    // A worker holds a slice of every split tensor.
    const std::int64_t own_split = compat ? split_params : static_cast<std::int64_t>(split_params / k);
    // PALEO updates each row's weights on its own; the other models run a worker's optimizer once over all its
    // weights (one set of launches, one host overhead), each part's row showing its parameters' share.
    seconds data_update, split_update;
    if constexpr (compat) {
        data_update = model.update(weights{data_params, data_tensors}, ctx).total();
        split_update = model.update(weights{own_split, split_tensors}, ctx).total();
    } else {
        const seconds all = model.update(weights{data_params + own_split, data_tensors + split_tensors}, ctx).total();
        const auto held = static_cast<double>(data_params + own_split);
        data_update = held > 0 ? all * (static_cast<double>(data_params) / held) : all;
        split_update = all - data_update;
    }
    step_part data{"data_parallel_layers", data_fwd, data_bwd, data_update,
                   sync.all_reduce(bytes_of(static_cast<double>(data_params) * eb), h.workers)};
    step_part split{"model_parallel_layers", scaled(pass_bounds(net, model_fwd).lower),
                    scaled(pass_bounds(net, model_bwd).lower), split_update, seconds{}};

    // A worker holds the data-parallel layers whole, with buckets for their gradients, and its share of the split
    // ones; its activations are counted for its own batch (the split layers run all K batches: not counted).
    const memory_footprint whole = r.memory;
    r.memory = training_memory(data_params + split_params / h.workers, opt.precision, opt.gradients,
                               detail::update_rule_of(model), whole.activations, whole.samples, whole.capacity);
    if (h.workers > 1) r.memory.buffers = bytes_of(static_cast<double>(data_params) * eb);
    r.workers = h.workers;
    r.batch_per_worker = r.batch;
    r.batch = r.batch * h.workers;
    r.forward = data.forward + split.forward;
    r.backward = data.backward + split.backward;
    r.update = data.update + split.update;
    r.communication = r.exposed_communication = data.sync;
    r.total = r.forward + r.backward + r.update + r.communication;
    for (const auto& p : {data, split})
        for (seconds t : {p.forward, p.backward, p.update, p.sync}) detail::require_finite(t, "a hybrid part of '" + r.model + "'");
    r.parts = {data, split};
    return r;
}

}  // namespace steptime
