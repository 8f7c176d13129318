// steptime/report.hpp: a step estimate as an aligned text table for people, or CSV for programs.
#pragma once

#include <algorithm>
#include <array>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "steptime/estimate.hpp"

namespace steptime {

namespace detail {
inline std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}
// Shortest text that reads back as the same double (for machine-readable output).
inline std::string exact(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}
inline std::string ms(seconds t) { return fixed(t.value() * 1e3, 3); }
inline std::string pad_right(std::string s, std::size_t w) {
    if (s.size() < w) s.append(w - s.size(), ' ');
    return s;
}
inline std::string pad_left(std::string s, std::size_t w) {
    if (s.size() < w) s.insert(0, w - s.size(), ' ');
    return s;
}
inline std::string gib_text(bytes b) { return fixed(b.value() / 1073741824.0, 2); }  // GiB, 2 decimals
// "yes", "no", or "?" where the device's memory is not known.
inline std::string fits_text(const memory_footprint& m) { return !m.capacity ? "?" : m.fits() ? "yes" : "no"; }
}  // namespace detail

// One GPU's memory: the total against the device's, the largest batch that fits, and the parts.
inline void write_memory(std::ostream& out, const step_estimate& e) {
    using namespace detail;
    const memory_footprint& m = e.memory;
    out << "memory         " << pad_left(gib_text(m.total()), 12) << " GiB per GPU";
    if (m.capacity) {
        const std::string unit = e.pipelined()                  ? "micro-batch"
                                 : e.batch_per_worker < e.batch ? "batch per worker"
                                                                : "batch";
        const auto largest = m.largest_samples();
        out << " of " << gib_text(*m.capacity) << (m.fits() ? " GiB: fits" : " GiB: DOES NOT FIT");
        if (largest) out << " (the largest " << unit << " that fits: " << *largest << ")";
    } else {
        out << " (the device's memory is not known)";
    }
    out << "\n               weights " << gib_text(m.weights) << ", gradients " << gib_text(m.gradients)
        << ", optimizer state " << gib_text(m.optimizer_state) << ", buckets " << gib_text(m.buffers) << ", activations "
        << gib_text(m.activations) << " GiB\n";
}

// Per-layer times and work, then the pass totals with their parallel bounds (a pipeline: its bubble and sends).
inline void write_table(std::ostream& out, const step_estimate& e) {
    using namespace detail;
    out << e.model << " on " << e.device << ", batch " << e.batch << ", " << to_string(e.precision) << ", "
        << e.cost_model << " cost model" << (e.pipelined() ? "; layers per micro-batch of " + std::to_string(e.micro_batch()) : "")
        << (e.inference ? "; inference: the forward pass in eval mode, no backward pass or update" : "") << "\n\n";
    // The cells first, so that each column is as wide as its widest cell.
    std::vector<std::array<std::string, 7>> rows{{"layer", "op", "fwd ms", "bwd ms", "fwd GFLOP", "bwd GFLOP", "share"}};
    const double step = e.total.value();
    double whole = step;  // a pipeline's layers are one micro-batch's: their share of its passes
    if (e.pipelined()) {
        whole = 0;
        for (const auto& l : e.layers) whole += (l.forward.total() + l.backward.total()).value();
    }
    for (const auto& l : e.layers) {
        const double share = whole > 0 ? (l.forward.total() + l.backward.total()).value() / whole * 100 : 0;
        rows.push_back({l.name, std::string(l.op), ms(l.forward.total()), ms(l.backward.total()),
                        fixed(l.forward.work.value() / 1e9, 2), fixed(l.backward.work.value() / 1e9, 2), fixed(share, 1) + "%"});
    }
    std::array<std::size_t, 7> w{5, 10, 8, 8, 9, 9, 5};  // at least the usual widths
    for (const auto& r : rows)
        for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
    for (const auto& r : rows) {
        out << pad_right(r[0], w[0]) << "  " << pad_right(r[1], w[1]);
        for (std::size_t i = 2; i < w.size(); ++i) out << "  " << pad_left(r[i], w[i]);
        out << "\n";
    }
    const auto bounds = [&](const time_bounds& b) {
        return e.pipelined() ? std::string("   (busiest stage, all micro-batches)")
                             : "   [parallel bound " + ms(b.lower) + ", sequential " + ms(b.upper) + "]";
    };
    out << "\nforward        " << pad_left(ms(e.forward), 12) << " ms" << bounds(e.forward_bounds) << "\n"
        << "backward       " << pad_left(ms(e.backward), 12) << " ms" << bounds(e.backward_bounds) << "\n"
        << "update         " << pad_left(ms(e.update), 12) << " ms\n"
        << "communication  " << pad_left(ms(e.communication), 12) << " ms\n";
    if (e.pipelined())
        out << "stage sends    " << pad_left(ms(e.pipeline_communication), 12) << " ms   (activations and their gradients)\n"
            << "bubble         " << pad_left(ms(e.bubble), 12) << " ms   (the pipeline filling and draining)\n";
    out
        << "step           " << pad_left(ms(e.total), 12) << " ms   (" << fixed(e.batch / step, 1) << " samples/s)\n"
        << "parameters     " << pad_left(std::to_string(e.parameters), 12) << "      ("
        << fixed(e.parameter_bytes.value() / 1e6, 1) << " MB)\n";
    write_memory(out, e);
}

namespace detail {
// A CSV field, quoted (RFC 4180) when it holds a comma, a quote or a line break.
inline std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
    std::string q = "\"";
    for (char c : s) {
        if (c == '"') q += '"';
        q += c;
    }
    return q + '"';
}
}  // namespace detail

// One row per layer, then a row "(step)" with the pass totals, the update and the step time.
inline void write_csv(std::ostream& out, const step_estimate& e) {
    using detail::csv_field;
    using detail::exact;
    out << "model,device,batch,cost_model,layer,op,forward_s,backward_s,forward_flops,backward_flops,forward_bytes,"
           "backward_bytes,update_s,step_s\n";
    const auto prefix = [&] {
        return csv_field(e.model) + "," + csv_field(e.device) + "," + std::to_string(e.batch) + "," +
               std::string(e.cost_model) + ",";
    };
    for (const auto& l : e.layers)
        out << prefix() << csv_field(l.name) << "," << l.op << "," << exact(l.forward.total().value()) << ","
            << exact(l.backward.total().value()) << "," << exact(l.forward.work.value()) << ","
            << exact(l.backward.work.value()) << "," << exact(l.forward.traffic.value()) << ","
            << exact(l.backward.traffic.value()) << ",,\n";
    out << prefix() << "(step),," << exact(e.forward.value()) << "," << exact(e.backward.value()) << ",,,,,"
        << exact(e.update.value()) << "," << exact(e.total.value()) << "\n";
}

}  // namespace steptime
