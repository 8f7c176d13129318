// steptime/phase_time.hpp: the time of chosen passes of a network (forward, the data gradient, the weight
// gradient), as kernel benchmarks (DeepBench, cuDNN's) time them: no weight update, one device.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "steptime/estimate.hpp"

namespace steptime {

// The passes to time. Both gradients together are costed as the model's `backward` pass.
struct pass_selection {
    bool forward = false, backward_data = false, backward_weights = false;

    bool empty() const { return !forward && !backward_data && !backward_weights; }
    friend bool operator==(const pass_selection&, const pass_selection&) = default;
};

// "forward", "backward-data", "backward-weights", "backward" (both gradients), "training" (all three),
// or a '+' list of them ("forward+backward-weights"); std::nullopt for anything else.
inline std::optional<pass_selection> parse_phases(std::string_view text) {
    pass_selection s;
    if (text.empty()) return std::nullopt;
    while (true) {
        const auto plus = text.find('+');
        const std::string_view item = text.substr(0, plus);
        if (item == "forward") s.forward = true;
        else if (item == "backward-data") s.backward_data = true;
        else if (item == "backward-weights") s.backward_weights = true;
        else if (item == "backward") s.backward_data = s.backward_weights = true;
        else if (item == "training") s.forward = s.backward_data = s.backward_weights = true;
        else return std::nullopt;
        if (plus == std::string_view::npos) return s;
        text = text.substr(plus + 1);
    }
}

// The canonical name: "training", "backward", or a '+' list ("forward+backward-data").
inline std::string to_string(const pass_selection& s) {
    if (s.forward && s.backward_data && s.backward_weights) return "training";
    std::string r = s.forward ? "forward" : "";
    const auto add = [&](std::string_view p) {
        if (!r.empty()) r += '+';
        r += p;
    };
    if (s.backward_data && s.backward_weights) add("backward");
    else if (s.backward_data) add("backward-data");
    else if (s.backward_weights) add("backward-weights");
    return r;
}

struct phase_layer {
    std::string name{};
    std::string_view op;
    layer_time time{};
};

// The selected passes of every layer and their sum (work and traffic included).
struct phase_estimate {
    std::string model{};
    std::string device{};
    std::string_view cost_model;
    std::int64_t batch = 0;
    element_type precision = element_type::fp32;
    pass_selection passes{};
    bool inference = false;  // the forward pass in inference mode (estimate_options::inference)
    layer_time total{};
    std::vector<phase_layer> layers{};  // in topological order
};

namespace detail {
template <class Net, class Model>
layer_time selected_passes(const Net& net, typename Net::vertex v, const Model& model, pass_selection s,
                           const cost_context& ctx) {
    layer_time t{};
    if (s.forward) t += model.layer(net, v, pass::forward, ctx);
    if (s.backward_data && s.backward_weights) t += model.layer(net, v, pass::backward, ctx);  // as estimate() does
    else if (s.backward_data) t += model.layer(net, v, pass::backward_data, ctx);
    else if (s.backward_weights) t += model.layer(net, v, pass::backward_weights, ctx);
    return t;
}
}  // namespace detail

// Per layer and in total, the selected passes of one step on one device, checked as estimate() checks
// its arguments. There is no weight update and no framework kernel: kernel benchmarks time the passes alone,
// without a recomputed layer's second forward pass or a tensor-parallel layer's all-reduce.
template <class Net, class Model>
    requires CostModel<Model, Net>
phase_estimate estimate_phases(const Net& net, const device& dev, const Model& model, pass_selection passes,
                               const estimate_options& opt = {}) {
    if (passes.empty()) throw invalid_argument("no pass selected (expected forward, backward-data or backward-weights)");
    if (opt.inference && (passes.backward_data || passes.backward_weights))
        throw invalid_argument("inference runs the forward pass alone, not " + to_string(passes));
    const std::int64_t batch = detail::checked_batch(net, dev, model, opt);
    const cost_context ctx{.dev = dev, .batch = batch, .precision = opt.precision, .framework_kernels = false,
                           .inference = opt.inference};
    phase_estimate r;
    r.model = net.name();
    r.device = dev.name;
    r.cost_model = Model::name;
    r.batch = batch;
    r.precision = opt.precision;
    r.passes = passes;
    r.inference = opt.inference;
    r.layers.reserve(net.size());
    for (auto v : net.vertices()) {
        const auto& l = net[v];
        auto& e = r.layers.emplace_back(phase_layer{l.name, ops::kind(l.op), detail::selected_passes(net, v, model, passes, ctx)});
        r.total += e.time;
    }
    detail::require_finite(r.total.total(), "the " + to_string(passes) + " time of '" + r.model + "'");
    return r;
}

// The selected passes' time summed over all layers (estimate_phases' total).
template <class Net, class Model>
    requires CostModel<Model, Net>
layer_time phase_time(const Net& net, const device& dev, const Model& model, pass_selection passes,
                      const estimate_options& opt = {}) {
    return estimate_phases(net, dev, model, passes, opt).total;
}

}  // namespace steptime
