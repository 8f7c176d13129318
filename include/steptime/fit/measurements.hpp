// steptime/fit/measurements.hpp: measured pass times of whole networks (or of one layer), the input of a
// PPP calibration (fit/ppp.hpp). Two CSV forms:
//
// 1. Pass times, one a line (examples/data/ppp-titan-x.csv):
//      network,device,batch,phase,time_ms[,layer][,precision][,id]
//    network    a zoo name or a PALEO JSON file (the caller resolves it)
//    device     a catalog name or a device JSON file (the caller resolves it)
//    batch      samples in the measured pass
//    phase      forward, backward (both gradients), forward+backward (both passes, no update) or training (forward,
//               backward and weight update)
//    time_ms    the measured time, milliseconds
//    layer      optional: the measured layer's name; empty or absent for the whole network
//    precision  optional: fp32 (default), tf32, fp16, bf16, fp8 or int8
//    id         optional: a label for the reports (default: the line number)
//
// 2. Published measurements in validation/measured/calibration.csv's form, joined by id with a cases file
//    (io/published_csv.hpp). Metrics: forward_ms, backward_ms (a pass), forward_backward_ms (both), and
//    images_per_s (a training step of batch_per_gpu samples: time = batch / rate) of one GPU in FP32; other
//    rows are skipped.
//
// Errors are parse_error "origin:line: column 'name': ...".
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "steptime/detail/csv.hpp"
#include "steptime/estimate.hpp"
#include "steptime/io/published_csv.hpp"

namespace steptime::fit {

// What a measured time covers: a pass, both passes, or a whole training step (forward, backward, weight update).
enum class measured_phase { forward, backward, forward_backward, training };

constexpr std::string_view to_string(measured_phase p) {
    switch (p) {
        case measured_phase::forward: return "forward";
        case measured_phase::backward: return "backward";
        case measured_phase::forward_backward: return "forward+backward";
        case measured_phase::training: return "training";
    }
    return "?";
}

struct pass_measurement {
    std::string id{};
    std::string network{};
    std::string device{};
    std::int64_t batch = 0;
    measured_phase phase = measured_phase::forward;
    std::string layer{};  // empty: the whole network
    element_type precision = element_type::fp32;
    seconds time{};
};

namespace detail {
inline measured_phase phase_of(const steptime::detail::csv_table& t, std::size_t row, std::size_t col) {
    const auto p = t.text(row, col);
    if (p == "forward") return measured_phase::forward;
    if (p == "backward") return measured_phase::backward;
    if (p == "forward+backward") return measured_phase::forward_backward;
    if (p == "training") return measured_phase::training;
    throw t.bad(row, col, "forward, backward, forward+backward or training");
}

inline element_type precision_of(const steptime::detail::csv_table& t, std::size_t row, std::size_t col) {
    if (const auto e = parse_element_type(t.text(row, col))) return *e;
    throw t.bad(row, col, "fp32, tf32, fp16, bf16, fp8 or int8");
}

}  // namespace detail

// Form 1 above.
inline std::vector<pass_measurement> parse_pass_times(std::string_view text, const std::string& origin = "<measurements>") {
    const steptime::detail::csv_table t(text, origin);
    constexpr std::string_view format = "the columns network,device,batch,phase,time_ms[,layer][,precision][,id]";
    const std::size_t net = t.column("network", format), dev = t.column("device", format),
                      batch = t.column("batch", format), phase = t.column("phase", format),
                      time = t.column("time_ms", format);
    const auto layer = t.find("layer"), precision = t.find("precision"), id = t.find("id");
    std::vector<pass_measurement> out;
    for (std::size_t r = 0; r < t.rows(); ++r) {
        pass_measurement m;
        m.id = id && !t.text(r, *id).empty() ? std::string(t.text(r, *id)) : "line " + std::to_string(t.line(r));
        m.network = t.text(r, net);
        if (m.network.empty()) throw t.bad(r, net, "a zoo network or a PALEO JSON file");
        m.device = t.text(r, dev);
        if (m.device.empty()) throw t.bad(r, dev, "a catalog device or a device JSON file");
        m.batch = t.integer(r, batch, 1, max_batch, "a batch size of at least 1");
        m.phase = detail::phase_of(t, r, phase);
        constexpr std::string_view ms = "a positive time in milliseconds";
        m.time = io::detail::positive_time(milliseconds_of(t.positive(r, time, ms)), t, r, time, ms);
        if (layer) m.layer = t.text(r, *layer);
        if (precision && !t.text(r, *precision).empty()) m.precision = detail::precision_of(t, r, *precision);
        out.push_back(std::move(m));
    }
    return out;
}

// Form 2 above: the rows of `published` that `cases` names and a PPP calibration can use, in the cases'
// order (io/published_csv.hpp): FP32 passes and steps of one GPU (one compute efficiency cannot stand for
// both the CUDA cores and the tensor cores). Kernel, inference, all-reduce, memory, multi-GPU and mixed-precision
// rows are left to `steptime validate`.
inline std::vector<pass_measurement> parse_published_times(std::string_view published, const std::string& published_origin,
                                                           std::string_view cases, const std::string& cases_origin) {
    std::vector<pass_measurement> out;
    for (auto& c : io::parse_published_cases(published, published_origin, cases, cases_origin)) {
        if (c.gpus != 1 || c.precision != element_type::fp32 || c.metric == io::published_metric::kernel_ms ||
            c.metric == io::published_metric::kernel_passes_ms || c.metric == io::published_metric::all_reduce_ms ||
            c.metric == io::published_metric::inference_ms || c.measures_memory())
            continue;
        measured_phase phase = measured_phase::training;
        switch (c.metric) {
            case io::published_metric::forward_ms: phase = measured_phase::forward; break;
            case io::published_metric::backward_ms: phase = measured_phase::backward; break;
            case io::published_metric::forward_backward_ms: phase = measured_phase::forward_backward; break;
            default: break;  // images_per_s: a training step
        }
        pass_measurement m;
        m.id = std::move(c.id);
        m.network = std::move(c.model);
        m.device = std::move(c.device);
        m.batch = c.batch;
        m.phase = phase;
        m.precision = c.precision;
        m.time = c.time;
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace steptime::fit
