// steptime/io/report_json.hpp: a step estimate as JSON (times in seconds, work in FLOPs and bytes).
#pragma once

#include <nlohmann/json.hpp>

#include "steptime/estimate.hpp"

namespace steptime::io {

// Bytes; capacity_bytes null where the device's memory is not known, largest_samples null where it is not known or
// any batch fits (memory_footprint::largest_samples).
inline nlohmann::ordered_json to_json(const memory_footprint& m) {
    const auto largest = m.largest_samples();
    return {{"weights_bytes", m.weights.value()},
            {"gradients_bytes", m.gradients.value()},
            {"optimizer_state_bytes", m.optimizer_state.value()},
            {"buffers_bytes", m.buffers.value()},
            {"activations_bytes", m.activations.value()},
            {"total_bytes", m.total().value()},
            {"samples", m.samples},
            {"capacity_bytes", m.capacity ? nlohmann::ordered_json(m.capacity->value()) : nullptr},
            {"fits", m.fits()},
            {"largest_samples", largest ? nlohmann::ordered_json(*largest) : nullptr}};
}

inline nlohmann::ordered_json to_json(const step_estimate& e) {
    nlohmann::ordered_json j;
    j["model"] = e.model;
    j["device"] = e.device;
    j["batch"] = e.batch;
    j["workers"] = e.workers;
    j["batch_per_worker"] = e.batch_per_worker;
    j["tensor_parallel"] = e.tensor_parallel;
    j["pipeline_stages"] = e.pipeline_stages;
    j["micro_batches"] = e.micro_batches;
    j["chunks_per_stage"] = e.chunks_per_stage;
    j["precision"] = to_string(e.precision);
    j["cost_model"] = e.cost_model;
    j["inference"] = e.inference;
    j["forward_s"] = e.forward.value();
    j["backward_s"] = e.backward.value();
    j["update_s"] = e.update.value();
    j["communication_s"] = e.communication.value();
    j["exposed_communication_s"] = e.exposed_communication.value();
    j["group_communication_s"] = e.group_communication.value();
    j["pipeline_communication_s"] = e.pipeline_communication.value();
    j["pipeline_bubble_s"] = e.bubble.value();
    j["step_s"] = e.total.value();
    j["throughput_samples_per_s"] = e.throughput();
    j["forward_bounds_s"] = {e.forward_bounds.lower.value(), e.forward_bounds.upper.value()};
    j["backward_bounds_s"] = {e.backward_bounds.lower.value(), e.backward_bounds.upper.value()};
    j["parameters"] = e.parameters;
    j["parameter_bytes"] = e.parameter_bytes.value();
    j["gradient_bytes"] = e.gradient_bytes.value();
    j["memory"] = to_json(e.memory);
    if (!e.parts.empty()) {
        auto& parts = j["parts"] = nlohmann::ordered_json::object();
        for (const auto& p : e.parts)
            parts[p.name] = {{"fwd", p.forward.value()}, {"bwd", p.backward.value()}, {"apply", p.update.value()},
                             {"sync", p.sync.value()}};
    }
    auto& layers = j["layers"] = nlohmann::ordered_json::array();
    for (const auto& l : e.layers)
        layers.push_back({{"name", l.name},
                          {"op", l.op},
                          {"forward_flops", l.forward.work.value()},
                          {"backward_flops", l.backward.work.value()},
                          {"forward_bytes", l.forward.traffic.value()},
                          {"backward_bytes", l.backward.traffic.value()},
                          {"forward_s", l.forward.total().value()},
                          {"backward_s", l.backward.total().value()}});
    return j;
}

}  // namespace steptime::io
