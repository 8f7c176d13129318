// steptime/io/device_json.hpp: a device as one JSON object in human units (data/devices/example-gpu.json).
//
//   {"name": "my-gpu",                 required, a non-empty string (the key on the command line)
//    "description": "...",             string
//    "is_gpu": true,                   boolean, default true
//    "peak_tflops": {                  TFLOP/s, dense (no sparsity); fp32 required, the others optional
//      "fp32": 19.5, "fp16": 78,       SIMT pipe; fp16 only where faster than fp32
//      "tf32_tensor": 156, "fp16_tensor": 312, "bf16_tensor": 312, "fp8_tensor": null},
//    "memory_bandwidth_gbps": 1555,    required, GB/s (1e9 B/s)
//    "memory_gb": 40,                  GiB (2^30 bytes): GPU vendors' "GB" of memory are binary
//    "sm_count": 108,                  integer: SMs, or compute units on AMD
//    "compute_capability": "8.0",      string "major.minor": CUDA compute capability (NVIDIA only)
//    "clock_mhz": 765,                 required, MHz: base clock
//    "boost_clock_mhz": 1410,          MHz
//    "tdp_watts": 400,                 W
//    "intra_node_link_gbps": 300,      GB/s, one direction, per GPU
//    "source": "..."}                  string: where the numbers come from
//
// Optional fields may be absent or null. Unknown fields and fields given twice are errors (they are usually
// typos). Files may hold // and /* */ comments. Malformed JSON, a wrong type or a missing field throws
// parse_error; a value that is not finite and positive throws invalid_device. Messages start with the file name.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "steptime/device.hpp"
#include "steptime/error.hpp"
#include "steptime/io/json_document.hpp"
#include "steptime/units.hpp"

namespace steptime::io {

// Larger device files are refused: a device is a few hundred bytes.
inline constexpr std::size_t max_device_file_bytes = std::size_t{1} << 20;

// Internals of this header, in a namespace of their own so that other io/ headers' helpers cannot clash.
namespace device_json_detail {

// The file's units, in base units (FLOP/s, B/s, B, Hz).
inline constexpr double tflops = 1e12, gbps = 1e9, gib = 1073741824.0, mhz = 1e6;

// At most 40 characters, and never a dump of nested containers (the serializer recurses once per
// level: a deeply nested value would overflow the stack).
inline std::string excerpt(const nlohmann::json& v) {
    bool flat = true;
    if (v.is_structured())
        for (const auto& x : v) flat = flat && !x.is_structured();
    std::string s = flat ? v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : v.is_array() ? "[...]" : "{...}";
    if (s.size() <= 40) return s;
    std::size_t cut = 37;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
    return s.substr(0, cut) + "...";
}

inline std::string format(double x) {
    std::ostringstream os;
    os << x;
    return os.str();
}

// Reads the fields of one device object; every error names the origin and the field's JSON path.
struct device_reader {
    const std::string& origin;

    [[noreturn]] void wrong_type(std::string_view path, std::string_view expected, const nlohmann::json& v) const {
        throw parse_error(origin + ": field '" + std::string(path) + "' must be " + std::string(expected) + ", got " +
                          v.type_name() + " " + excerpt(v));
    }

    // The member named by the last component of `path`; nullptr when absent or null and not required.
    const nlohmann::json* get(const nlohmann::json& obj, std::string_view path, bool required,
                              std::string_view expected) const {
        const std::string key(path.substr(path.rfind('.') + 1));  // npos + 1 == 0: the whole path
        const auto it = obj.find(key);
        if (it != obj.end() && !it->is_null()) return &*it;
        if (required)
            throw parse_error(origin + ": missing required field '" + std::string(path) + "' (" +
                              std::string(expected) + ")");
        return nullptr;
    }

    // A finite positive number in `unit`, returned in base units (times `scale`).
    std::optional<double> number(const nlohmann::json& obj, std::string_view path, bool required,
                                 const std::string& unit, double scale) const {
        const nlohmann::json* v = get(obj, path, required, "a number in " + unit);
        if (!v) return std::nullopt;
        if (!v->is_number()) wrong_type(path, "a number (" + unit + ")", *v);
        const double x = v->get<double>();
        const std::string field = origin + ": field '" + std::string(path) + "' is " + format(x) + " " + unit;
        if (!(x > 0) || !std::isfinite(x)) throw invalid_device(field + ", expected a finite positive number");
        if (!std::isfinite(x * scale)) throw invalid_device(field + ", too large to represent");
        return x * scale;
    }

    std::optional<int> count(const nlohmann::json& obj, std::string_view path) const {
        const nlohmann::json* v = get(obj, path, false, "an integer");
        if (!v) return std::nullopt;
        if (!v->is_number_integer()) wrong_type(path, "an integer", *v);
        const bool in_range = v->is_number_unsigned()
                                  ? v->get<std::uint64_t>() >= 1 && v->get<std::uint64_t>() <= std::uint64_t{INT_MAX}
                                  : v->get<std::int64_t>() >= 1 && v->get<std::int64_t>() <= INT_MAX;
        if (!in_range)
            throw invalid_device(origin + ": field '" + std::string(path) + "' is " + v->dump() +
                                 ", expected a positive count up to " + std::to_string(INT_MAX));
        return v->get<int>();
    }

    std::optional<std::string> text(const nlohmann::json& obj, std::string_view path, bool required = false) const {
        const nlohmann::json* v = get(obj, path, required, "a string");
        if (!v) return std::nullopt;
        if (!v->is_string()) wrong_type(path, "a string", *v);
        return v->get<std::string>();
    }

    std::optional<bool> flag(const nlohmann::json& obj, std::string_view path) const {
        const nlohmann::json* v = get(obj, path, false, "true or false");
        if (!v) return std::nullopt;
        if (!v->is_boolean()) wrong_type(path, "true or false", *v);
        return v->get<bool>();
    }

    // Throws on a member not in `known` (`prefix` is the object's path with a trailing dot).
    void only(const nlohmann::json& obj, const std::string& prefix,
              std::initializer_list<std::string_view> known) const {
        for (const auto& item : obj.items()) {
            if (std::find(known.begin(), known.end(), item.key()) != known.end()) continue;
            std::string list;
            for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
            throw parse_error(origin + ": unknown field '" + prefix + item.key() + "' (expected one of " + list + ")");
        }
    }
};

template <class Make>
auto quantity(std::optional<double> base, Make make) -> std::optional<decltype(make(0.0))> {
    if (base) return make(*base);
    return std::nullopt;
}

inline hertz hertz_of(double v) { return v * units::frequency_unit{}; }

// The value in `scale` units that reads back as exactly `base` (base / scale * scale can be one ulp off).
inline double in_unit(double base, double scale) {
    const double x = base / scale;
    for (const double candidate : {x, std::nextafter(x, 0.0), std::nextafter(x, HUGE_VAL)})
        if (candidate * scale == base) return candidate;
    return x;
}

}  // namespace device_json_detail

// Builds and validates a device from a JSON object; `origin` (a file name) starts every error message.
inline device device_from_json(const nlohmann::json& j, const std::string& origin) {
    namespace dj = device_json_detail;
    if (!j.is_object())
        throw parse_error(origin + ": expected a JSON object describing one device, got " + j.type_name());
    const dj::device_reader r{origin};
    r.only(j, "", {"name", "description", "is_gpu", "peak_tflops", "memory_bandwidth_gbps", "memory_gb", "sm_count",
                   "compute_capability", "clock_mhz", "boost_clock_mhz", "tdp_watts", "intra_node_link_gbps", "source"});
    const nlohmann::json& peak = *r.get(j, "peak_tflops", true, "an object with at least fp32");
    if (!peak.is_object()) r.wrong_type("peak_tflops", "an object (TFLOP/s per pipe)", peak);
    r.only(peak, "peak_tflops.", {"fp32", "fp16", "tf32_tensor", "fp16_tensor", "bf16_tensor", "fp8_tensor"});
    const auto rate = [&](std::string_view path) {
        return dj::quantity(r.number(peak, path, false, "TFLOP/s", dj::tflops), flops_per_second_of);
    };

    device d;
    d.name = *r.text(j, "name", true);
    d.description = r.text(j, "description").value_or("");
    d.is_gpu = r.flag(j, "is_gpu").value_or(true);
    d.peak.fp32 = flops_per_second_of(*r.number(peak, "peak_tflops.fp32", true, "TFLOP/s", dj::tflops));
    d.peak.fp16 = rate("peak_tflops.fp16");
    d.peak.tf32_tensor = rate("peak_tflops.tf32_tensor");
    d.peak.fp16_tensor = rate("peak_tflops.fp16_tensor");
    d.peak.bf16_tensor = rate("peak_tflops.bf16_tensor");
    d.peak.fp8_tensor = rate("peak_tflops.fp8_tensor");
    d.memory_bandwidth = bytes_per_second_of(*r.number(j, "memory_bandwidth_gbps", true, "GB/s", dj::gbps));
    d.memory_capacity = dj::quantity(r.number(j, "memory_gb", false, "GiB", dj::gib), bytes_of);
    d.sm_count = r.count(j, "sm_count");
    if (const auto cc = r.text(j, "compute_capability")) {
        const auto dot = cc->find('.');
        const auto digits = [](std::string_view s) {
            return !s.empty() && s.size() <= 2 && s.find_first_not_of("0123456789") == std::string_view::npos;
        };
        if (dot == std::string::npos || !digits(std::string_view(*cc).substr(0, dot)) ||
            !digits(std::string_view(*cc).substr(dot + 1)))
            r.wrong_type("compute_capability", "a string \"major.minor\" such as \"8.0\"", j.at("compute_capability"));
        d.compute_capability = cuda_compute_capability{std::stoi(cc->substr(0, dot)), std::stoi(cc->substr(dot + 1))};
    }
    d.clock = dj::hertz_of(*r.number(j, "clock_mhz", true, "MHz", dj::mhz));
    d.boost_clock = dj::quantity(r.number(j, "boost_clock_mhz", false, "MHz", dj::mhz), dj::hertz_of);
    d.tdp_watts = r.number(j, "tdp_watts", false, "W", 1);
    d.intra_node_link =
        dj::quantity(r.number(j, "intra_node_link_gbps", false, "GB/s", dj::gbps), bytes_per_second_of);
    d.source = r.text(j, "source").value_or("");
    try {
        validate(d);
    } catch (const invalid_device& e) {
        throw invalid_device(origin + ": " + e.what());
    }
    return d;
}

// Reads one device from a JSON file of at most max_device_file_bytes.
inline device load_device(const std::filesystem::path& path) {
    const std::string origin = path.string();
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status))
        throw parse_error(origin + ": cannot read the device file: " + (ec ? ec.message() : "no such file"));
    if (std::filesystem::is_directory(status)) throw parse_error(origin + ": is a directory, expected a device file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw parse_error(origin + ": cannot open the device file");
    std::string text;  // read in chunks up to one byte past the limit (not a zero-filled 1 MiB per call)
    char chunk[4096];
    while (text.size() <= max_device_file_bytes) {
        in.read(chunk, sizeof chunk);
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
        if (!in) break;
    }
    if (in.bad() || (in.fail() && !in.eof())) throw parse_error(origin + ": cannot read the device file");
    if (text.size() > max_device_file_bytes)
        throw parse_error(origin + ": file is larger than 1 MiB, the limit for a device file");
    return device_from_json(parse_json_document(text, origin), origin);
}

// The device in the format above. device_from_json reads it back to an equal device: exactly for numbers
// that are a double times the file's unit (every catalog entry, every device read from a file), else to
// within one ulp.
inline nlohmann::json to_json(const device& d) {
    namespace dj = device_json_detail;
    using nlohmann::json;
    const auto value = [](auto q, double scale) { return dj::in_unit(q.value(), scale); };
    const auto maybe = [&](const auto& q, double scale) { return q ? json(value(*q, scale)) : json(nullptr); };
    return {{"name", d.name},
            {"description", d.description},
            {"is_gpu", d.is_gpu},
            {"peak_tflops",
             {{"fp32", value(d.peak.fp32, dj::tflops)},
              {"fp16", maybe(d.peak.fp16, dj::tflops)},
              {"tf32_tensor", maybe(d.peak.tf32_tensor, dj::tflops)},
              {"fp16_tensor", maybe(d.peak.fp16_tensor, dj::tflops)},
              {"bf16_tensor", maybe(d.peak.bf16_tensor, dj::tflops)},
              {"fp8_tensor", maybe(d.peak.fp8_tensor, dj::tflops)}}},
            {"memory_bandwidth_gbps", value(d.memory_bandwidth, dj::gbps)},
            {"memory_gb", maybe(d.memory_capacity, dj::gib)},
            {"sm_count", d.sm_count ? json(*d.sm_count) : json(nullptr)},
            {"compute_capability", d.compute_capability ? json(std::to_string(d.compute_capability->major) + "." +
                                                               std::to_string(d.compute_capability->minor))
                                                        : json(nullptr)},
            {"clock_mhz", value(d.clock, dj::mhz)},
            {"boost_clock_mhz", maybe(d.boost_clock, dj::mhz)},
            {"tdp_watts", d.tdp_watts ? json(*d.tdp_watts) : json(nullptr)},
            {"intra_node_link_gbps", maybe(d.intra_node_link, dj::gbps)},
            {"source", d.source}};
}

}  // namespace steptime::io
