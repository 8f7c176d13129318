// steptime/io/link_json.hpp: a network link as one JSON object (data/links/example-link.json):
//   {"name": "my-fabric", "bandwidth_gbps": 200, "latency_us": 1.5, "source": "..."}
// bandwidth_gbps in gigabits per second (as network vendors quote it), latency_us in microseconds
// (default 0). Unknown fields and fields given twice are errors (they are usually typos); messages start with
// the file name.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "steptime/comm/link.hpp"
#include "steptime/io/json_document.hpp"
#include "steptime/io/read_file.hpp"

namespace steptime::io {

inline network_link link_from_json(const nlohmann::json& j, const std::string& origin) {
    if (!j.is_object()) throw parse_error(origin + ": expected a JSON object with name, bandwidth_gbps, latency_us");
    for (const auto& [key, value] : j.items())
        if (key != "name" && key != "bandwidth_gbps" && key != "latency_us" && key != "source")
            throw parse_error(origin + ": unknown field '" + key + "' (expected name, bandwidth_gbps, latency_us, source)");
    const auto text = [&](const char* key, bool required) {
        auto it = j.find(key);
        if (it == j.end()) {
            if (required) throw parse_error(origin + ": missing field '" + key + "'");
            return std::string{};
        }
        if (!it->is_string()) throw parse_error(origin + ": field '" + key + "' must be a string, got " + it->dump());
        return it->get<std::string>();
    };
    const auto number = [&](const char* key, bool required, const char* unit) {
        auto it = j.find(key);
        if (it == j.end()) {
            if (required) throw parse_error(origin + ": missing field '" + key + "' (" + unit + ")");
            return 0.0;
        }
        if (!it->is_number())
            throw parse_error(origin + ": field '" + key + "' must be a number (" + unit + "), got " + it->dump());
        return it->get<double>();
    };
    network_link l{text("name", true), gigabits_per_second_of(number("bandwidth_gbps", true, "Gb/s")),
                   microseconds_of(number("latency_us", false, "us")), text("source", false)};
    try {
        validate(l);
    } catch (const invalid_argument& e) {
        throw parse_error(origin + ": " + e.what());
    }
    return l;
}

inline network_link load_link(const std::filesystem::path& path) {
    const std::string text = read_file(path, 1u << 20);
    return link_from_json(parse_json_document(text, path.string()), path.string());
}

}  // namespace steptime::io
