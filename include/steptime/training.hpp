// steptime/training.hpp: from the time of one step to the time and cost of a whole training run.
// PALEO's web demo does this with iterations = dataset / batch * epochs whatever the number of workers
// and hours rounded up (paleo-model.md 7.5, bug 19); here the steps follow the actual global batch.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "steptime/error.hpp"
#include "steptime/estimate.hpp"
#include "steptime/units.hpp"

namespace steptime {

// What to train on: samples in the dataset and passes over it (may be fractional).
struct training_run {
    std::int64_t dataset_size = 0;
    double epochs = 0;
};

// Steps = ceil(dataset / global batch) per epoch (the last, partial batch is a step), times the epochs,
// rounded up to a whole step (a product within 1e-12 of a whole number is that number: 25 steps x 2.2
// epochs is 55.00000000000001 in doubles, and 55 steps).
inline std::int64_t training_steps(const training_run& run, std::int64_t global_batch) {
    if (run.dataset_size < 1)
        throw invalid_argument("dataset size is " + std::to_string(run.dataset_size) + ", expected at least 1");
    if (!(std::isfinite(run.epochs) && run.epochs > 0))
        throw invalid_argument("epochs is " + std::to_string(run.epochs) + ", expected a finite positive number");
    if (global_batch < 1)
        throw invalid_argument("global batch is " + std::to_string(global_batch) + ", expected at least 1");
    const std::int64_t per_epoch = run.dataset_size / global_batch + (run.dataset_size % global_batch != 0 ? 1 : 0);
    const double product = static_cast<double>(per_epoch) * run.epochs;
    const double nearest = std::round(product);
    const double steps = std::abs(product - nearest) <= 1e-12 * product ? nearest : std::ceil(product);
    if (steps > 9007199254740992.0)  // 2^53: beyond it the count is no longer exact
        throw invalid_argument("training run of " + std::to_string(run.epochs) + " epochs over " +
                               std::to_string(run.dataset_size) + " samples has too many steps");
    return static_cast<std::int64_t>(steps);
}

// Wall-clock time to train: steps x step time (the step's batch is the global batch, all workers together).
inline seconds time_to_train(const training_run& run, const step_estimate& step) {
    return static_cast<double>(training_steps(run, step.batch)) * step.total;
}

// GPU-hours: every GPU of every worker is busy for the whole run.
inline double gpu_hours(const training_run& run, const step_estimate& step) {
    return time_to_train(run, step).value() / 3600.0 * step.workers * step.gpus_per_worker();
}

// One device's price: US dollars per GPU-hour, and where the figure comes from.
struct gpu_price {
    std::string device{};
    double usd_per_gpu_hour = 0;
    std::string source{};
};

// Prices per GPU-hour keyed by device name (the catalog's names). Billing is per second, so hours are not
// rounded up (PALEO's demo rounds up to whole hours, 7.5).
class price_table {
public:
    // Adds a device or replaces its price.
    price_table& set(std::string device, double usd_per_gpu_hour, std::string source = {}) {
        if (device.empty()) throw invalid_argument("price table: empty device name");
        if (!(std::isfinite(usd_per_gpu_hour) && usd_per_gpu_hour >= 0))
            throw invalid_argument("price of '" + device + "' is " + std::to_string(usd_per_gpu_hour) +
                                   " USD per GPU-hour, expected a finite non-negative number");
        gpu_price p{std::move(device), usd_per_gpu_hour, std::move(source)};
        const auto it = std::ranges::find(entries_, p.device, &gpu_price::device);
        if (it != entries_.end())
            *it = std::move(p);
        else
            entries_.push_back(std::move(p));
        return *this;
    }

    // Every entry of `overrides` replaces or extends this table's.
    price_table& merge(const price_table& overrides) {
        for (const auto& p : overrides.entries()) set(p.device, p.usd_per_gpu_hour, p.source);
        return *this;
    }

    const gpu_price* find(std::string_view device) const {
        const auto it = std::ranges::find(entries_, device, &gpu_price::device);
        return it == entries_.end() ? nullptr : &*it;
    }

    const gpu_price& at(std::string_view device) const {
        if (const gpu_price* p = find(device)) return *p;
        throw invalid_argument("no price per GPU-hour for device '" + std::string(device) +
                               "'; add one with price_table::set or a price CSV (device,usd_per_gpu_hour[,source])");
    }

    double usd_per_gpu_hour(std::string_view device) const { return at(device).usd_per_gpu_hour; }

    const std::vector<gpu_price>& entries() const { return entries_; }

private:
    std::vector<gpu_price> entries_{};
};

namespace prices {

// On-demand cloud list prices, Linux, US regions, per GPU (an instance's price / its GPUs), as listed at the
// dates given. Prices change often (and discounts, reservations and spot prices differ widely): load a CSV
// of your own rates for current figures.
inline const price_table& builtin() {
    static const price_table table = [] {
        price_table t;
        t.set("paleo:K80", 0.90, "PALEO web demo (2016): AWS p2, $0.90 per GPU-hour (PALEO's K80 is the whole board)");
        t.set("k80", 0.90, "AWS p2.xlarge (1 K80 GPU = one GK210 die), $0.90/h, us-east-1, 2016 launch price");
        t.set("p100-pcie-16gb", 1.46, "Google Cloud P100, $1.46 per GPU-hour, us-central1, 2023 (GPU only, VM extra)");
        t.set("v100-sxm2-16gb", 3.06, "AWS p3.2xlarge (1 V100 SXM2 16 GB), $3.06/h, us-east-1, 2024");
        t.set("v100-sxm2-32gb", 31.212 / 8, "AWS p3dn.24xlarge (8 V100 SXM2 32 GB), $31.212/h / 8, us-east-1, 2024");
        t.set("t4", 0.526, "AWS g4dn.xlarge (1 T4), $0.526/h, us-east-1, 2024");
        t.set("a10", 1.006, "AWS g5.xlarge (1 A10G, AWS's A10 variant), $1.006/h, us-east-1, 2024");
        t.set("l4", 0.8048, "AWS g6.xlarge (1 L4), $0.8048/h, us-east-1, 2024");
        t.set("l40s", 1.861, "AWS g6e.xlarge (1 L40S), $1.861/h, us-east-1, 2024");
        t.set("a100-sxm4-40gb", 32.7726 / 8, "AWS p4d.24xlarge (8 A100 SXM4 40 GB), $32.7726/h / 8, us-east-1, 2024");
        t.set("a100-sxm4-80gb", 40.9657 / 8, "AWS p4de.24xlarge (8 A100 SXM4 80 GB), $40.9657/h / 8, us-east-1, 2024");
        t.set("h100-sxm5-80gb", 98.32 / 8, "AWS p5.48xlarge (8 H100 SXM5 80 GB), $98.32/h / 8, us-east-1, 2024");
        return t;
    }();
    return table;
}

}  // namespace prices

// Cost of a run: GPU-hours x price per GPU-hour, in US dollars.
inline double training_cost_usd(const training_run& run, const step_estimate& step, double usd_per_gpu_hour) {
    if (!(std::isfinite(usd_per_gpu_hour) && usd_per_gpu_hour >= 0))
        throw invalid_argument("price is " + std::to_string(usd_per_gpu_hour) +
                               " USD per GPU-hour, expected a finite non-negative number");
    return gpu_hours(run, step) * usd_per_gpu_hour;
}

// The same, with the price of the step's device from a table (the built-in one by default).
inline double training_cost_usd(const training_run& run, const step_estimate& step,
                                const price_table& table = prices::builtin()) {
    return training_cost_usd(run, step, table.usd_per_gpu_hour(step.device));
}

}  // namespace steptime
