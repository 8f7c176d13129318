// steptime/parallel/model_parallel.hpp: one step of a network whose layers are placed on several
// devices (PALEO's ModelParallel blocks; paleo-model.md 7.2): layers on different devices run
// concurrently, so each pass takes its critical path, and the devices update their own weights at once.
#pragma once

#include <map>

#include "steptime/estimate.hpp"

namespace steptime {

struct model_parallel {};

template <class Net, class Model>
    requires CostModel<Model, Net>
step_estimate estimate(const Net& net, const device& dev, const Model& model, model_parallel,
                       const estimate_options& opt = {}) {
    detail::require_training(opt, "model parallelism");
    step_estimate r = estimate(net, dev, model, opt);
    std::map<int, weights> held_weights;  // unplaced layers sit on device 0
    std::map<int, activation_tally> held_on;  // an output is held where it is computed
    for (auto v : net.vertices()) {
        const int d = net[v].device.value_or(0);
        held_weights[d].parameters += net[v].parameters;
        held_weights[d].tensors += ops::parameter_tensors(net[v].op, net[v].parameters);
        held_on[d].add(net, v, element_bytes(opt.precision));
    }
    weights largest{};
    bool first = true;
    for (const auto& [d, w] : held_weights) {
        if (w.parameters > largest.parameters) largest = w;
        const memory_footprint own = detail::gpu_memory(model, dev, opt, w.parameters, held_on[d], r.batch);
        r.memory = first ? own : limiting(r.memory, own);
        first = false;
    }
    r.workers = static_cast<int>(held_weights.size());
    r.forward = r.forward_bounds.lower;
    r.backward = r.backward_bounds.lower;
    largest.parameters = std::min(largest.parameters, r.parameters);  // a model's own count may be smaller (PALEO's)
    r.update = model.update(largest, {dev, r.batch, opt.precision}).total();
    r.total = r.forward + r.backward + r.update;
    return r;
}

}  // namespace steptime
