// Tests of steptime/io/device_json.hpp: the device file format, its round trip and its errors.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <steptime/io.hpp>  // io/device_json.hpp and devices/catalog.hpp, in both test variants
#include "support/errors.hpp"

namespace {

using test_support::message_of;

using nlohmann::json;
using steptime::device;
using steptime::to_double;
namespace fs = std::filesystem;

constexpr double giga = 1e9, tera = 1e12, gib = 1073741824.0;

// The smallest valid file: the four required fields (TFLOP/s, GB/s, MHz), with the A100 PCIe 40 GB's
// values (A100 datasheet 2020: 19.5 TFLOPS FP32, 1555 GB/s; base clock 765 MHz from TechPowerUp).
json minimal() {
    return json::parse(R"({"name": "g", "peak_tflops": {"fp32": 19.5}, "memory_bandwidth_gbps": 1555,
                           "clock_mhz": 765})");
}

// A file that exists for the test's duration.
struct temp_file {
    fs::path path;
    explicit temp_file(const std::string& text)
        : path(fs::temp_directory_path() / ("steptime-device-" + std::to_string(std::random_device{}()) + ".json")) {
        std::ofstream(path, std::ios::binary) << text;
    }
    ~temp_file() { fs::remove(path); }
};

template <class E>
std::string from_json_error(const json& j) {
    return message_of<E>([&] { steptime::io::device_from_json(j, "gpu.json"); });
}

template <class E>
std::string load_error(const std::string& text) {
    const temp_file f(text);
    const std::string message = message_of<E>([&] { steptime::io::load_device(f.path); });
    CHECK_MESSAGE(message.rfind(f.path.string() + ": ", 0) == 0, message);  // starts with the file name
    return message;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

template <class Q>
void check_same(const std::optional<Q>& a, const std::optional<Q>& b) {
    REQUIRE(a.has_value() == b.has_value());
    if (a) CHECK(to_double(*a) == to_double(*b));
}

void check_same(const device& a, const device& b) {
    INFO(a.name);
    CHECK(a.name == b.name);
    CHECK(a.description == b.description);
    CHECK(a.is_gpu == b.is_gpu);
    CHECK(to_double(a.peak.fp32) == to_double(b.peak.fp32));
    check_same(a.peak.fp16, b.peak.fp16);
    check_same(a.peak.tf32_tensor, b.peak.tf32_tensor);
    check_same(a.peak.fp16_tensor, b.peak.fp16_tensor);
    check_same(a.peak.bf16_tensor, b.peak.bf16_tensor);
    check_same(a.peak.fp8_tensor, b.peak.fp8_tensor);
    CHECK(to_double(a.memory_bandwidth) == to_double(b.memory_bandwidth));
    check_same(a.memory_capacity, b.memory_capacity);
    CHECK(a.sm_count == b.sm_count);
    CHECK(to_double(a.clock) == to_double(b.clock));
    check_same(a.boost_clock, b.boost_clock);
    CHECK(a.tdp_watts == b.tdp_watts);
    check_same(a.intra_node_link, b.intra_node_link);
    CHECK(a.source == b.source);
}

}  // namespace

TEST_CASE("every catalog device survives to_json and back, in memory and through text") {
    for (const device& d : steptime::devices::catalog()) {
        const json j = steptime::io::to_json(d);
        check_same(d, steptime::io::device_from_json(j, d.name));
        check_same(d, steptime::io::device_from_json(json::parse(j.dump()), d.name));
    }
}

TEST_CASE("to_json writes human units, and null for what the device lacks") {
    const json j = steptime::io::to_json(steptime::devices::get("a100-sxm4-40gb"));
    // A100 datasheet (2020) and GA100 whitepaper, as in the catalog entry.
    CHECK(j["peak_tflops"]["fp32"] == 19.5);
    CHECK(j["peak_tflops"]["fp16_tensor"] == 312);
    CHECK(j["peak_tflops"]["fp8_tensor"].is_null());  // Ampere has no FP8
    CHECK(j["memory_bandwidth_gbps"] == 1555);
    CHECK(j["memory_gb"] == 40);
    CHECK(j["sm_count"] == 108);
    CHECK(j["clock_mhz"] == 1095);
    CHECK(j["intra_node_link_gbps"] == 300);  // 12 NVLink 3 links x 25 GB/s, one direction
    const json p = steptime::io::to_json(steptime::devices::get("paleo:K80"));
    CHECK(p["memory_gb"].is_null());
    CHECK(p["sm_count"].is_null());
    CHECK(p["peak_tflops"]["fp32"] == 5.6);  // PALEO: 5600 GFLOPS
}

TEST_CASE("a minimal device gets the documented units and defaults") {
    const device d = steptime::io::device_from_json(minimal(), "gpu.json");
    CHECK(d.name == "g");
    CHECK(d.is_gpu);
    CHECK(d.description.empty());
    CHECK(to_double(d.peak.fp32) == 19.5 * tera);
    CHECK(to_double(d.memory_bandwidth) == 1555 * giga);
    CHECK(to_double(d.clock) == 765e6);
    CHECK_FALSE(d.peak.fp16_tensor);
    CHECK_FALSE(d.memory_capacity);
    json j = minimal();
    j["memory_gb"] = 40;  // GiB
    j["peak_tflops"]["fp8_tensor"] = nullptr;  // null is absent
    j["is_gpu"] = false;
    const device e = steptime::io::device_from_json(j, "gpu.json");
    CHECK(to_double(*e.memory_capacity) == 40 * gib);
    CHECK_FALSE(e.peak.fp8_tensor);
    CHECK_FALSE(e.is_gpu);
}

TEST_CASE("the shipped example file loads and matches the catalog's A100 SXM4 40 GB") {
#ifdef STEPTIME_SOURCE_DIR  // set by tests/CMakeLists.txt
    const fs::path root = STEPTIME_SOURCE_DIR;
#else
    const fs::path root = fs::path(__FILE__).parent_path() / "../..";
#endif
    const fs::path file = root / "data/devices/example-gpu.json";
    const device d = steptime::io::load_device(file);
    const device& a100 = steptime::devices::get("a100-sxm4-40gb");
    CHECK(d.name == "my-a100-like");
    CHECK(to_double(d.peak.fp32) == to_double(a100.peak.fp32));
    check_same(d.peak.fp16, a100.peak.fp16);
    check_same(d.peak.tf32_tensor, a100.peak.tf32_tensor);
    check_same(d.peak.fp16_tensor, a100.peak.fp16_tensor);
    check_same(d.peak.bf16_tensor, a100.peak.bf16_tensor);
    CHECK(to_double(d.memory_bandwidth) == to_double(a100.memory_bandwidth));
    check_same(d.memory_capacity, a100.memory_capacity);
    CHECK(d.sm_count == a100.sm_count);
    check_same(d.intra_node_link, a100.intra_node_link);
}

TEST_CASE("load_device reads files with comments") {
    const temp_file f(R"({"name": "g", // a comment
        "peak_tflops": {"fp32": 1}, /* TFLOP/s */ "memory_bandwidth_gbps": 2, "clock_mhz": 3})");
    CHECK(steptime::io::load_device(f.path).name == "g");
}

TEST_CASE("malformed JSON, non-objects and oversized or missing files are parse errors naming the file") {
    CHECK(contains(load_error<steptime::parse_error>(R"({"name": "g",)"), "malformed JSON"));
    CHECK(contains(load_error<steptime::parse_error>("{\n\"name\": }"), "line 2"));
    CHECK(contains(load_error<steptime::parse_error>("[1, 2]"), "got array"));
    CHECK(contains(load_error<steptime::parse_error>(""), "malformed JSON"));
    // 1e400 overflows a double: nlohmann_json refuses it; the message names the field.
    const std::string huge = load_error<steptime::parse_error>(
        R"({"name": "g", "peak_tflops": {"fp32": 1e400}, "memory_bandwidth_gbps": 1, "clock_mhz": 1})");
    CHECK(contains(huge, "'peak_tflops.fp32'"));
    CHECK(contains(huge, "1e400"));
    // One byte over the 1 MiB limit, although the content would parse.
    const std::string padded = minimal().dump() + std::string(steptime::io::max_device_file_bytes, ' ');
    CHECK(contains(load_error<steptime::parse_error>(padded), "larger than 1 MiB"));
    const fs::path missing = fs::temp_directory_path() / "steptime-no-such-device.json";
    const std::string gone = message_of<steptime::parse_error>([&] { steptime::io::load_device(missing); });
    CHECK(gone.rfind(missing.string() + ": ", 0) == 0);
    CHECK(contains(message_of<steptime::parse_error>([] { steptime::io::load_device(fs::temp_directory_path()); }),
                   "directory"));
    CHECK(contains(from_json_error<steptime::parse_error>(json("gpu")), "gpu.json: expected a JSON object"));
}

TEST_CASE("a field given twice is a parse error naming it, in device, link and calibration files") {
    // nlohmann_json alone would keep the second bandwidth, 900 GB/s, and say nothing.
    CHECK(contains(load_error<steptime::parse_error>(R"({"name": "g", "peak_tflops": {"fp32": 1},
        "memory_bandwidth_gbps": 100, "clock_mhz": 3, "memory_bandwidth_gbps": 900})"),
                   ": duplicate key 'memory_bandwidth_gbps' (each field may be given once)"));
    CHECK(contains(load_error<steptime::parse_error>(R"({"name": "g", "peak_tflops": {"fp32": 1, "fp32": 2},
        "memory_bandwidth_gbps": 100, "clock_mhz": 3})"),
                   ": duplicate key 'peak_tflops.fp32'"));
    const temp_file link(R"({"name": "l", "bandwidth_gbps": 200, "bandwidth_gbps": 100})");
    CHECK(contains(message_of<steptime::parse_error>([&] { steptime::io::load_link(link.path); }),
                   link.path.string() + ": duplicate key 'bandwidth_gbps'"));
    const temp_file profile(R"({"name": "p", "device": "k80", "device": "v100-sxm2-16gb", "compute_efficiency": 0.5,
        "memory_efficiency": 0.5, "kernel_overhead_us": 1})");
    CHECK(contains(message_of<steptime::parse_error>([&] { steptime::io::load_calibration(profile.path); }),
                   profile.path.string() + ": duplicate key 'device'"));
    // The same key in two objects, side by side or in an array, is no duplicate; nor are comments keys.
    const json j = steptime::io::parse_json_document(
        R"({"a": {"x": 1}, "b": {"x": 2}, /* "a": 3 */ "c": [{"x": 1}, {"x": 2}], "x": [[{"x": 0}]]})", "t.json");
    CHECK(j["b"]["x"] == 2);
    CHECK(j["c"][1]["x"] == 2);
    CHECK(contains(message_of<steptime::parse_error>([] {
                       steptime::io::parse_json_document(R"({"c": [{"x": 1, "y": {"z": 1, "z": 2}}]})", "t.json");
                   }),
                   "t.json: duplicate key 'c.y.z'"));
}

TEST_CASE("a wrong type is a parse error naming the field and what was expected") {
    json j = minimal();
    j["peak_tflops"]["fp32"] = "NaN";  // JSON cannot hold NaN; a string is the nearest attempt
    CHECK(from_json_error<steptime::parse_error>(j) ==
          R"(gpu.json: field 'peak_tflops.fp32' must be a number (TFLOP/s), got string "NaN")");
    j = minimal();
    j["peak_tflops"] = 19.5;
    CHECK(contains(from_json_error<steptime::parse_error>(j), "field 'peak_tflops' must be an object"));
    j = minimal();
    j["sm_count"] = 108.5;
    CHECK(contains(from_json_error<steptime::parse_error>(j), "gpu.json: field 'sm_count' must be an integer"));
    j = minimal();
    j["is_gpu"] = "yes";
    CHECK(contains(from_json_error<steptime::parse_error>(j), "gpu.json: field 'is_gpu' must be true or false"));
    j = minimal();
    j["name"] = 5;
    CHECK(contains(from_json_error<steptime::parse_error>(j), "gpu.json: field 'name' must be a string"));
    j = minimal();
    j["memory_gb"] = json::array({40});
    CHECK(contains(from_json_error<steptime::parse_error>(j), "gpu.json: field 'memory_gb' must be a number (GiB)"));
}

TEST_CASE("a missing required field or an unknown field is a parse error naming it") {
    for (const char* field : {"name", "memory_bandwidth_gbps", "clock_mhz"}) {
        json j = minimal();
        j.erase(field);
        CHECK(from_json_error<steptime::parse_error>(j).rfind(
                  std::string("gpu.json: missing required field '") + field + "'", 0) == 0);
    }
    json j = minimal();
    j["peak_tflops"].erase("fp32");
    CHECK(contains(from_json_error<steptime::parse_error>(j), "missing required field 'peak_tflops.fp32'"));
    j.erase("peak_tflops");
    CHECK(contains(from_json_error<steptime::parse_error>(j), "missing required field 'peak_tflops'"));
    j = minimal();
    j["clock_mhz"] = nullptr;  // null means absent
    CHECK(contains(from_json_error<steptime::parse_error>(j), "missing required field 'clock_mhz'"));
    j = minimal();
    j["tdp"] = 300;
    CHECK(contains(from_json_error<steptime::parse_error>(j), "gpu.json: unknown field 'tdp'"));
    j = minimal();
    j["peak_tflops"]["int8_tensor"] = 624;
    CHECK(contains(from_json_error<steptime::parse_error>(j), "unknown field 'peak_tflops.int8_tensor'"));
}

TEST_CASE("non-positive, non-finite or out-of-range values are invalid_device naming the field") {
    json j = minimal();
    j["memory_bandwidth_gbps"] = -1;
    CHECK(from_json_error<steptime::invalid_device>(j) ==
          "gpu.json: field 'memory_bandwidth_gbps' is -1 GB/s, expected a finite positive number");
    j = minimal();
    j["clock_mhz"] = 0;
    CHECK(contains(from_json_error<steptime::invalid_device>(j), "gpu.json: field 'clock_mhz' is 0 MHz"));
    // NaN and infinity can only come from C++ (JSON text has no literal for them).
    j = minimal();
    j["peak_tflops"]["fp16_tensor"] = std::nan("");
    CHECK(contains(from_json_error<steptime::invalid_device>(j), "gpu.json: field 'peak_tflops.fp16_tensor' is nan"));
    j = minimal();
    j["tdp_watts"] = std::numeric_limits<double>::infinity();
    CHECK(contains(from_json_error<steptime::invalid_device>(j), "gpu.json: field 'tdp_watts' is inf"));
    j = minimal();
    j["memory_gb"] = 1e300;  // a double, but 1e300 x 2^30 bytes is not
    CHECK(contains(from_json_error<steptime::invalid_device>(j), "field 'memory_gb' is 1e+300 GiB, too large"));
    j = minimal();
    j["sm_count"] = 3000000000;  // beyond a 32-bit int
    CHECK(contains(from_json_error<steptime::invalid_device>(j), "field 'sm_count' is 3000000000"));
    j = minimal();
    j["sm_count"] = -2;
    CHECK(contains(from_json_error<steptime::invalid_device>(j), "field 'sm_count' is -2"));
    j = minimal();
    j["name"] = "";  // caught by steptime::validate, prefixed with the origin
    CHECK(contains(from_json_error<steptime::invalid_device>(j), "gpu.json: device: field 'name' is empty"));
    // The same errors through a file name the file.
    CHECK(contains(load_error<steptime::invalid_device>(
                       R"({"name": "g", "peak_tflops": {"fp32": -19.5}, "memory_bandwidth_gbps": 1, "clock_mhz": 1})"),
                   "field 'peak_tflops.fp32' is -19.5 TFLOP/s"));
}
