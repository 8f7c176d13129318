// Test support: a step estimate made by hand, for the training time and cost formulas.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <steptime/steptime.hpp>

namespace test_support {

// A step of network "net" taking `seconds_per_step` on `workers` workers of `device`, global batch `batch`.
inline steptime::step_estimate step(std::int64_t batch, int workers, double seconds_per_step, std::string device = "k80") {
    steptime::step_estimate e;
    e.model = "net";
    e.device = std::move(device);
    e.batch = batch;
    e.batch_per_worker = batch / workers;
    e.workers = workers;
    e.total = steptime::seconds_of(seconds_per_step);
    return e;
}

}  // namespace test_support
