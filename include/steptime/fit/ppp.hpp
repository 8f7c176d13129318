// steptime/fit/ppp.hpp: PPP calibration. Fits a device's compute and memory efficiencies (PALEO's
// platform percent of peak, one per resource) and a fixed cost per kernel to measured times of any
// networks' passes or layers. The default model (cost/paleo.hpp) times a layer's pass as
//   t = F / (P e_c) + Q / (B e_m) + o
// (PALEO's T = R + C + W, paleo-model.md section 3, plus the overhead o), so a measured time of many
// layers is linear in x = (1/e_c, 1/e_m, o):  t = C x_0 + M x_1 + K x_2, where C = sum F / P and
// M = sum Q / B are the times at full efficiency and K the kernel count. The fit minimizes the relative
// residuals sum ((t_pred - t) / t)^2 (so a 20 ms pass weighs as much as a 400 ms one) under the bounds
// e_c, e_m <= 4 (cost/calibration.hpp: efficiencies are relative to the model's counts, which fast
// convolution algorithms beat) and o >= 0. The result is a cost::calibrated model's profile.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "steptime/cost/calibration.hpp"
#include "steptime/estimate.hpp"
#include "steptime/fit/least_squares.hpp"
#include "steptime/fit/measurements.hpp"

namespace steptime::fit {

// A measured time and what the uncalibrated model says it is made of at full efficiency.
struct ppp_sample {
    std::string id{};
    seconds compute{};   // sum of FLOPs / peak rate
    seconds memory{};    // sum of bytes / memory bandwidth
    double kernels = 0;  // kernels launched: each layer's pass that does work, and the weight update
    seconds measured{};
};

// Decomposes the measured pass (or one layer of it: `m.layer`) of `net` on `dev`. Throws
// invalid_argument when the layer is not in the network.
template <class Net>
ppp_sample decompose(const pass_measurement& m, const Net& net, const device& dev) {
    if (m.batch < 1 || m.batch > max_batch)
        throw invalid_argument("measurement " + m.id + ": batch " + std::to_string(m.batch) + " is outside [1, " +
                               std::to_string(max_batch) + "]");
    validate(dev);
    const cost::paleo unit{.kernel_overhead = seconds_of(1)};  // full efficiency; overhead 1 s counts kernels
    const cost_context ctx{dev, m.batch, m.precision};
    ppp_sample s{.id = m.id, .measured = m.time};
    const auto add = [&](const layer_time& t) {
        s.compute += t.compute;
        s.memory += t.fetch + t.write;
        s.kernels += t.overhead.value();
    };
    const auto add_layer = [&](typename Net::vertex v) {
        if (m.phase != measured_phase::backward) add(unit.layer(net, v, pass::forward, ctx));
        if (m.phase != measured_phase::forward) add(unit.layer(net, v, pass::backward, ctx));
    };
    if (m.layer.empty()) {
        for (auto v : net.vertices()) add_layer(v);
        if (m.phase == measured_phase::training)
            add(unit.update(weights{unit.parameters(net), net.parameter_tensor_count()}, ctx));
    } else if (const auto v = net.find(m.layer)) {
        add_layer(*v);
    } else {
        throw invalid_argument("measurement " + m.id + ": network '" + net.name() + "' has no layer '" + m.layer + "'");
    }
    return s;
}

// The calibrated model's time of a sample: C / e_c + M / e_m + K o.
inline seconds predict(const calibration_profile& p, const ppp_sample& s) {
    return s.compute / p.compute_efficiency.value() + s.memory / p.memory_efficiency.value() +
           s.kernels * p.kernel_overhead;
}

struct ppp_fit {
    calibration_profile profile{};
    std::vector<seconds> predicted{};  // per sample, by the fitted profile
    error_metrics errors{};            // signed relative errors per sample, MAPE, worst
};

// Fits the profile of `device` to the samples (see the top of this file). The bounded least-squares
// problem has three unknowns, so it is solved exactly by trying every split of them into free ones and
// ones held at their bound, and keeping the best feasible solution (at the optimum, the free unknowns
// solve the unconstrained problem of their own columns). Throws invalid_argument when there are no
// samples or a sample has no work at all.
inline ppp_fit fit_ppp(std::span<const ppp_sample> samples, std::string name, std::string device) {
    if (samples.empty()) throw invalid_argument("PPP fit: no measurements");
    const auto n = static_cast<Eigen::Index>(samples.size());
    Eigen::MatrixXd a(n, 3);  // rows divided by the measured time: relative residuals
    for (Eigen::Index k = 0; k < n; ++k) {
        const auto& s = samples[static_cast<std::size_t>(k)];
        if (!(s.compute.value() + s.memory.value() > 0))
            throw invalid_argument("PPP fit: measurement " + s.id + " has no work to time (no FLOPs, no bytes)");
        const double t = s.measured.value();
        a.row(k) << s.compute.value() / t, s.memory.value() / t, s.kernels / t;
    }
    const Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);
    const std::array<double, 3> lower{1 / max_efficiency, 1 / max_efficiency, 0};  // e_c, e_m <= 4, o >= 0
    Eigen::Vector3d best = Eigen::Vector3d(lower[0], lower[1], lower[2]);
    double best_cost = (a * best - ones).squaredNorm();
    for (unsigned free = 1; free < 8; ++free) {
        std::vector<Eigen::Index> cols;
        Eigen::VectorXd rhs = ones;
        for (Eigen::Index j = 0; j < 3; ++j)
            if (free >> j & 1u)
                cols.push_back(j);
            else
                rhs -= a.col(j) * lower[static_cast<std::size_t>(j)];
        Eigen::MatrixXd x(n, static_cast<Eigen::Index>(cols.size()));
        for (std::size_t c = 0; c < cols.size(); ++c) x.col(static_cast<Eigen::Index>(c)) = a.col(cols[c]);
        Eigen::VectorXd beta;
        try {
            beta = least_squares(x, rhs);
        } catch (const invalid_argument&) {
            continue;  // these columns are not determined by the samples: another split covers the optimum
        }
        Eigen::Vector3d candidate(lower[0], lower[1], lower[2]);
        bool feasible = true;
        for (std::size_t c = 0; c < cols.size(); ++c) {
            candidate[cols[c]] = beta[static_cast<Eigen::Index>(c)];
            feasible = feasible && beta[static_cast<Eigen::Index>(c)] >= lower[static_cast<std::size_t>(cols[c])];
        }
        if (const double cost = (a * candidate - ones).squaredNorm(); feasible && cost < best_cost) {
            best = candidate;
            best_cost = cost;
        }
    }
    ppp_fit f;
    f.profile = {.name = std::move(name),
                 .device = std::move(device),
                 .compute_efficiency = ratio_of(1 / best[0]),
                 .memory_efficiency = ratio_of(1 / best[1]),
                 .kernel_overhead = seconds_of(best[2]),
                 .measurements = samples.size(),
                 .mape = 0};
    std::vector<double> predicted, measured;
    for (const auto& s : samples) {
        f.predicted.push_back(predict(f.profile, s));
        predicted.push_back(f.predicted.back().value());
        measured.push_back(s.measured.value());
    }
    f.errors = relative_errors(predicted, measured);
    f.profile.mape = f.errors.mape;
    return f;
}

// How a profile predicts samples it was not fitted to: the held-out rows of `--test`.
inline error_metrics evaluate(const calibration_profile& p, std::span<const ppp_sample> samples) {
    std::vector<double> predicted, measured;
    for (const auto& s : samples) {
        predicted.push_back(predict(p, s).value());
        measured.push_back(s.measured.value());
    }
    return relative_errors(predicted, measured);
}

}  // namespace steptime::fit
