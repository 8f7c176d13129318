// steptime/graph/bounds.hpp: sequential and parallel bounds of a pass over a network.
#pragma once

#include <algorithm>
#include <span>
#include <vector>

#include "steptime/graph/network.hpp"
#include "steptime/units.hpp"

namespace steptime {

// Lower: the critical path, when independent branches (nested ones included) run in parallel;
// upper: the sum of all layers, when they run one after another (paleo-model.md 6.3, generalized
// from PALEO's one level of branches to any DAG).
struct time_bounds {
    seconds lower{};
    seconds upper{};
};

// `times` holds one time per vertex, indexed by vertex. The longest path is the same whichever way
// the edges point, so this serves the backward pass too.
template <class Op>
time_bounds pass_bounds(const basic_network<Op>& net, std::span<const seconds> times) {
    if (times.size() != net.size())
        throw invalid_argument("pass_bounds: " + std::to_string(times.size()) + " times for " +
                               std::to_string(net.size()) + " layers");
    std::vector<double> finish(net.size(), 0.0);
    double lower = 0, upper = 0;
    for (auto v : net.vertices()) {
        double start = 0;
        for (auto p : net.parents(v)) start = std::max(start, finish[p]);
        finish[v] = start + times[v].value();
        lower = std::max(lower, finish[v]);
        upper += times[v].value();
    }
    return {seconds_of(lower), seconds_of(upper)};
}

}  // namespace steptime
