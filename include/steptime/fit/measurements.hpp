// steptime/fit/measurements.hpp: measured pass times of whole networks (or of one layer), the input of a
// PPP calibration (fit/ppp.hpp). Two CSV forms:
//
// 1. Pass times, one a line (examples/data/ppp-titan-x.csv):
//      network,device,batch,phase,time_ms[,layer][,precision][,id]
//    network    a zoo name or a PALEO JSON file (the caller resolves it)
//    device     a catalog name or a device JSON file (the caller resolves it)
//    batch      samples in the measured pass
//    phase      forward, backward (both gradients) or training (forward, backward and weight update)
//    time_ms    the measured time, milliseconds
//    layer      optional: the measured layer's name; empty or absent for the whole network
//    precision  optional: fp32 (default), tf32, fp16, bf16, fp8 or int8
//    id         optional: a label for the reports (default: the line number)
//
// 2. Published measurements in validation/measured/calibration.csv's form (columns id, num_gpus,
//    batch_per_gpu, metric, value, unit, ...), joined by id with a cases file that maps each row to
//    steptime's terms (validation/measured/cases.csv): id,network,device. Only the rows the cases name
//    are read. Metrics: forward_ms, backward_ms (a pass), and images_per_s (a training step of
//    batch_per_gpu samples: time = batch / rate). Rows must be of one GPU.
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

namespace steptime::fit {

// What a measured time covers: a pass, or a whole training step (forward, backward, weight update).
enum class measured_phase { forward, backward, training };

constexpr std::string_view to_string(measured_phase p) {
    switch (p) {
        case measured_phase::forward: return "forward";
        case measured_phase::backward: return "backward";
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
    if (p == "training") return measured_phase::training;
    throw t.bad(row, col, "forward, backward or training");
}

inline element_type precision_of(const steptime::detail::csv_table& t, std::size_t row, std::size_t col) {
    if (const auto e = parse_element_type(t.text(row, col))) return *e;
    throw t.bad(row, col, "fp32, tf32, fp16, bf16, fp8 or int8");
}

// `time`, converted from the cell at `row`, `col`, if finite and positive: a tiny count of milliseconds
// underflows to 0 s, a batch over a tiny rate overflows to infinity.
inline seconds positive_time(seconds time, const steptime::detail::csv_table& t, std::size_t row, std::size_t col,
                             std::string_view expected) {
    if (!(std::isfinite(time.value()) && time.value() > 0))
        throw t.bad(row, col, std::string(expected) + " (a finite, non-zero time in seconds)");
    return time;
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
        m.time = detail::positive_time(milliseconds_of(t.positive(r, time, ms)), t, r, time, ms);
        if (layer) m.layer = t.text(r, *layer);
        if (precision && !t.text(r, *precision).empty()) m.precision = detail::precision_of(t, r, *precision);
        out.push_back(std::move(m));
    }
    return out;
}

// Form 2 above: the rows of `published` that `cases` names, in the cases' order.
inline std::vector<pass_measurement> parse_published_times(std::string_view published, const std::string& published_origin,
                                                           std::string_view cases, const std::string& cases_origin) {
    const steptime::detail::csv_table p(published, published_origin), c(cases, cases_origin);
    constexpr std::string_view p_format = "calibration.csv's columns id,num_gpus,batch_per_gpu,metric,value,unit";
    constexpr std::string_view c_format = "the columns id,network,device";
    const std::size_t p_id = p.column("id", p_format), gpus = p.column("num_gpus", p_format),
                      batch = p.column("batch_per_gpu", p_format), metric = p.column("metric", p_format),
                      value = p.column("value", p_format), unit = p.column("unit", p_format);
    const std::size_t c_id = c.column("id", c_format), net = c.column("network", c_format),
                      dev = c.column("device", c_format);
    std::vector<pass_measurement> out;
    for (std::size_t k = 0; k < c.rows(); ++k) {
        std::size_t r = 0;
        while (r < p.rows() && p.text(r, p_id) != c.text(k, c_id)) ++r;
        if (r == p.rows()) throw c.bad(k, c_id, "the id of a row of " + published_origin);
        pass_measurement m{.id = std::string(c.text(k, c_id)),
                           .network = std::string(c.text(k, net)),
                           .device = std::string(c.text(k, dev))};
        if (p.text(r, gpus) != "1") throw p.bad(r, gpus, "1 (a PPP calibration is of one GPU)");
        m.batch = p.integer(r, batch, 1, max_batch, "a batch size of at least 1");
        const double v = p.positive(r, value, "a positive measurement");
        const auto mt = p.text(r, metric);
        const auto expect_unit = [&](std::string_view u) {
            if (!p.text(r, unit).starts_with(u)) throw p.bad(r, unit, std::string(u) + " for metric " + std::string(mt));
        };
        if (mt == "forward_ms" || mt == "backward_ms") {
            expect_unit("ms");
            m.phase = mt == "forward_ms" ? measured_phase::forward : measured_phase::backward;
            m.time = detail::positive_time(milliseconds_of(v), p, r, value, "a positive measurement");
        } else if (mt == "images_per_s") {
            expect_unit("images/s");
            m.phase = measured_phase::training;
            m.time = detail::positive_time(seconds_of(static_cast<double>(m.batch) / v), p, r, value, "a positive measurement");
        } else {
            throw p.bad(r, metric, "forward_ms, backward_ms or images_per_s (a time of one GPU's pass or step)");
        }
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace steptime::fit
