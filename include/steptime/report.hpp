// steptime/report.hpp: a step estimate as an aligned text table for people, or CSV for programs.
#pragma once

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>

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
}  // namespace detail

// Per-layer times and work, then the pass totals with their parallel bounds.
inline void write_table(std::ostream& out, const step_estimate& e) {
    using namespace detail;
    out << e.model << " on " << e.device << ", batch " << e.batch << ", " << to_string(e.precision) << ", "
        << e.cost_model << " cost model\n\n";
    std::size_t w = 5;
    for (const auto& l : e.layers) w = std::max(w, l.name.size());
    out << pad_right("layer", w) << "  " << pad_right("op", 12) << pad_left("fwd ms", 10) << pad_left("bwd ms", 10)
        << pad_left("fwd GFLOP", 11) << pad_left("bwd GFLOP", 11) << pad_left("share", 7) << "\n";
    const double step = e.total.value();
    for (const auto& l : e.layers) {
        const double share = step > 0 ? (l.forward.total() + l.backward.total()).value() / step * 100 : 0;
        out << pad_right(l.name, w) << "  " << pad_right(std::string(l.op), 12) << pad_left(ms(l.forward.total()), 10)
            << pad_left(ms(l.backward.total()), 10) << pad_left(fixed(l.forward.work.value() / 1e9, 2), 11)
            << pad_left(fixed(l.backward.work.value() / 1e9, 2), 11) << pad_left(fixed(share, 1) + "%", 7) << "\n";
    }
    const auto bounds = [](const time_bounds& b) { return "   [parallel bound " + ms(b.lower) + ", sequential " + ms(b.upper) + "]"; };
    out << "\nforward        " << pad_left(ms(e.forward), 12) << " ms" << bounds(e.forward_bounds) << "\n"
        << "backward       " << pad_left(ms(e.backward), 12) << " ms" << bounds(e.backward_bounds) << "\n"
        << "update         " << pad_left(ms(e.update), 12) << " ms\n"
        << "communication  " << pad_left(ms(e.communication), 12) << " ms\n"
        << "step           " << pad_left(ms(e.total), 12) << " ms   (" << fixed(e.batch / step, 1) << " samples/s)\n"
        << "parameters     " << pad_left(std::to_string(e.parameters), 12) << "      ("
        << fixed(e.parameter_bytes.value() / 1e6, 1) << " MB), activations " << fixed(e.activation_bytes.value() / 1e6, 1)
        << " MB\n";
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
