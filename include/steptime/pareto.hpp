// steptime/pareto.hpp: time/cost trade-offs of training configurations and their Pareto-optimal set
// (AI Gauge, Dube et al. 2019: cost = runtime x hourly price, recommend the Pareto-optimal configurations).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numeric>
#include <ranges>
#include <string>
#include <vector>

#include "steptime/error.hpp"
#include "steptime/estimate.hpp"
#include "steptime/training.hpp"
#include "steptime/units.hpp"

namespace steptime {

// Both coordinates minimised: a dominates b when it is no slower and no dearer, and faster or cheaper.
template <class Time, class Cost>
constexpr bool dominates(const Time& a_time, const Cost& a_cost, const Time& b_time, const Cost& b_cost) {
    return a_time <= b_time && a_cost <= b_cost && (a_time < b_time || a_cost < b_cost);
}

// The Pareto-optimal points of `points` under `time` and `cost` (projections, as in std::ranges): the
// indices of the points that no other point dominates, fastest first. Sorted by (time, cost), a point is
// kept when it is cheaper than every faster one. Ties: of points with the same time only the cheapest
// stay, of points with the same cost only the fastest; points equal in both coordinates are all kept (none
// dominates another), in index order. A NaN coordinate throws invalid_argument. O(n log n).
template <std::ranges::random_access_range R, class TimeProj, class CostProj>
std::vector<std::size_t> pareto_front(const R& points, TimeProj time, CostProj cost) {
    const auto n = static_cast<std::size_t>(std::ranges::size(points));
    const auto t = [&](std::size_t i) { return std::invoke(time, std::ranges::begin(points)[i]); };
    const auto c = [&](std::size_t i) { return std::invoke(cost, std::ranges::begin(points)[i]); };
    for (std::size_t i = 0; i < n; ++i)
        if (!(t(i) == t(i)) || !(c(i) == c(i)))  // only NaN differs from itself
            throw invalid_argument("pareto_front: point " + std::to_string(i) + " has a NaN time or cost");
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) {
        return t(a) < t(b) || (t(a) == t(b) && c(a) < c(b));
    });
    std::vector<std::size_t> front;
    for (const std::size_t i : order) {
        // front.back() is the cheapest point seen so far: every earlier point costs at least as much.
        if (front.empty() || c(i) < c(front.back()) || (c(i) == c(front.back()) && t(i) == t(front.back())))
            front.push_back(i);
    }
    return front;
}

// One configuration's training run: how long, how many GPU-hours, how many dollars.
struct training_option {
    std::string model{};
    std::string device{};
    int workers = 1;
    std::int64_t batch = 0;  // global: all workers together
    seconds step{};          // one step
    std::int64_t steps = 0;  // training_steps(run, batch)
    seconds time{};          // time_to_train
    double gpu_hours = 0;
    double usd_per_gpu_hour = 0;
    double cost_usd = 0;  // gpu_hours x usd_per_gpu_hour
};

// The run on the step's configuration, priced from `table` (throws invalid_argument, naming the device, when
// it has no price for it).
inline training_option training_option_of(const training_run& run, const step_estimate& step,
                                          const price_table& table = prices::builtin()) {
    const double usd = table.usd_per_gpu_hour(step.device);
    training_option o;
    o.model = step.model;
    o.device = step.device;
    o.workers = step.workers;
    o.batch = step.batch;
    o.step = step.total;
    o.steps = training_steps(run, step.batch);
    o.time = time_to_train(run, step);
    o.gpu_hours = steptime::gpu_hours(run, step);
    o.usd_per_gpu_hour = usd;
    o.cost_usd = training_cost_usd(run, step, usd);
    return o;
}

// The Pareto-optimal options (time to train and cost both minimised), fastest first.
inline std::vector<std::size_t> pareto_front(const std::vector<training_option>& options) {
    return pareto_front(options, &training_option::time, &training_option::cost_usd);
}

}  // namespace steptime
