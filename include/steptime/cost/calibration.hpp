// steptime/cost/calibration.hpp: a device's fitted efficiencies, what a PPP calibration (fit/ppp.hpp) finds
// from measured times and the default cost model applies (`steptime predict --calibration FILE`).
#pragma once

#include <cmath>
#include <cstddef>
#include <string>

#include "steptime/cost/paleo.hpp"

namespace steptime {

// How far above a nominal peak a calibration may put the achieved rate. Efficiencies are relative to the
// model's FLOP and byte counts, which fast algorithms beat: Winograd F(4x4, 3x3) does 4x fewer
// multiplications than a direct 3x3 convolution (Lavin & Gray, CVPR 2016), the largest saving of the
// algorithms cuDNN picks; and a memory term above 1 stands for traffic hidden behind compute.
inline constexpr double max_efficiency = 4;

struct calibration_profile {
    std::string name{};    // e.g. "titan-x-maxwell from convnet-benchmarks"
    std::string device{};  // the catalog or file name of the device it was fitted on
    ratio compute_efficiency = ratio_of(1.0);  // achieved FLOP/s over the nominal peak (PALEO's PPP), up to 4
    ratio memory_efficiency = ratio_of(1.0);   // achieved bandwidth over the nominal one, up to 4
    seconds kernel_overhead{};                 // fixed cost per kernel
    std::size_t measurements = 0;              // how many measured times it was fitted to
    double mape = 0;                           // their mean absolute relative error after the fit (0.05 is 5%)
};

// Throws invalid_argument naming the field that is out of range.
inline void validate(const calibration_profile& p) {
    const std::string who = "calibration '" + p.name + "'";
    if (p.device.empty()) throw invalid_argument(who + ": no device, expected the device it was fitted on");
    for (const auto& [field, e] : {std::pair{"compute_efficiency", p.compute_efficiency},
                                   std::pair{"memory_efficiency", p.memory_efficiency}})
        if (!(e.value() > 0 && e.value() <= max_efficiency))
            throw invalid_argument(who + ": " + field + " is " + std::to_string(e.value()) + ", expected a number in (0, 4]");
    cost::detail::require_overhead(who, "kernel_overhead", p.kernel_overhead);
    if (!(std::isfinite(p.mape) && p.mape >= 0))
        throw invalid_argument(who + ": mape is " + std::to_string(p.mape) + ", expected a finite non-negative fraction");
}

namespace cost {

// The default model (paleo) at full efficiency, its compute and memory terms divided by the profile's
// efficiencies and the profile's kernel overhead added: T = F / (P e_c) + Q / (B e_m) + o per layer and
// pass. The base's communication PPP, optimizer and cross-device bandwidth apply; its compute and memory
// PPPs must stay 1. The profile is its device's: estimate() on another device throws.
struct calibrated : paleo {
    static constexpr std::string_view name = "calibrated";

    calibration_profile profile{};

    void validate() const {
        steptime::validate(profile);
        paleo::validate();
        if (ppp_compute.value() != 1 || ppp_memory.value() != 1 || kernel_overhead.value() != 0)
            throw invalid_argument("calibrated: the profile sets the efficiencies and the kernel overhead; leave "
                                   "ppp_compute, ppp_memory and kernel_overhead at their defaults");
    }

    layer_time layer(const network& net, network::vertex v, pass p, const cost_context& c) const {
        return scaled(paleo::layer(net, v, p, c, profile.kernel_overhead), c);
    }
    layer_time update(const weights& updated, const cost_context& c) const {
        return scaled(paleo::update(updated.parameters, c, profile.kernel_overhead), c);
    }

private:
    layer_time scaled(layer_time t, const cost_context& c) const {
        if (c.dev.name != profile.device)
            throw invalid_argument("calibration '" + profile.name + "' was fitted on " + profile.device + ", not on " +
                                   c.dev.name + " (efficiencies are a device's own)");
        t.compute /= profile.compute_efficiency.value();
        t.fetch /= profile.memory_efficiency.value();
        t.write /= profile.memory_efficiency.value();
        return t;
    }
};

}  // namespace cost
}  // namespace steptime
