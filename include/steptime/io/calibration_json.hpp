// steptime/io/calibration_json.hpp: a calibration profile (cost/calibration.hpp) as one JSON object, the
// file `steptime fit ppp --save` writes and `steptime predict --calibration` reads:
//   {"name": "...", "device": "titan-x-maxwell", "compute_efficiency": 0.52, "memory_efficiency": 0.9,
//    "kernel_overhead_us": 12.5, "measurements": 8, "mape": 0.046}
// Efficiencies are fractions in (0, 1]; measurements and mape are optional (what the fit reported).
// Unknown fields and fields given twice are errors (they are usually typos); messages start with the file name.
#pragma once

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "steptime/cost/calibration.hpp"
#include "steptime/io/json_document.hpp"
#include "steptime/io/read_file.hpp"

namespace steptime::io {

inline nlohmann::ordered_json to_json(const calibration_profile& p) {
    return {{"name", p.name},
            {"device", p.device},
            {"compute_efficiency", p.compute_efficiency.value()},
            {"memory_efficiency", p.memory_efficiency.value()},
            {"kernel_overhead_us", p.kernel_overhead.value() * 1e6},
            {"measurements", p.measurements},
            {"mape", p.mape}};
}

inline calibration_profile calibration_from_json(const nlohmann::json& j, const std::string& origin) {
    static constexpr std::array<std::string_view, 7> known{"name", "device", "compute_efficiency", "memory_efficiency",
                                                           "kernel_overhead_us", "measurements", "mape"};
    static constexpr const char* expected =
        "name, device, compute_efficiency, memory_efficiency, kernel_overhead_us, measurements, mape";
    if (!j.is_object()) throw parse_error(origin + ": expected a JSON object with " + expected);
    for (const auto& item : j.items())
        if (std::ranges::find(known, item.key()) == known.end())
            throw parse_error(origin + ": unknown field '" + item.key() + "' (expected " + expected + ")");
    const auto field = [&](const char* key, bool required) -> const nlohmann::json* {
        const auto it = j.find(key);
        if (it != j.end()) return &*it;
        if (required) throw parse_error(origin + ": missing field '" + key + "'");
        return nullptr;
    };
    const auto text = [&](const char* key) {
        const nlohmann::json& v = *field(key, true);
        if (!v.is_string()) throw parse_error(origin + ": field '" + key + "' must be a string, got " + v.type_name());
        return v.get<std::string>();
    };
    const auto number = [&](const char* key, bool required) {
        const nlohmann::json* v = field(key, required);
        if (!v) return 0.0;
        if (!v->is_number()) throw parse_error(origin + ": field '" + key + "' must be a number, got " + v->type_name());
        return v->get<double>();
    };
    calibration_profile p{.name = text("name"),
                          .device = text("device"),
                          .compute_efficiency = ratio_of(number("compute_efficiency", true)),
                          .memory_efficiency = ratio_of(number("memory_efficiency", true)),
                          .kernel_overhead = microseconds_of(number("kernel_overhead_us", true)),
                          .measurements = 0,
                          .mape = number("mape", false)};
    if (const nlohmann::json* m = field("measurements", false)) {
        if (!m->is_number_unsigned()) throw parse_error(origin + ": field 'measurements' must be a count, got " + m->dump());
        p.measurements = m->get<std::size_t>();
    }
    try {
        validate(p);
    } catch (const invalid_argument& e) {
        throw parse_error(origin + ": " + e.what());
    }
    return p;
}

inline calibration_profile load_calibration(const std::filesystem::path& path) {
    const std::string text = read_file(path, 1u << 20);
    return calibration_from_json(parse_json_document(text, path.string()), path.string());
}

}  // namespace steptime::io
