// libFuzzer target: the PPP calibration inputs, which share detail/csv.hpp: measured pass times
// (fit/measurements.hpp, parse_pass_times), published times joined with their cases (parse_published_times;
// the input is split at its first NUL, published before, cases after) and a calibration profile
// (io/calibration_json.hpp). Only steptime::error may escape; what is accepted must be finite and positive.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <steptime/fit/measurements.hpp>
#include <steptime/io.hpp>

namespace {

void check(const std::vector<steptime::fit::pass_measurement>& ms) {
    for (const auto& m : ms)
        if (!(std::isfinite(m.time.value()) && m.time.value() > 0 && m.batch >= 1 && !m.id.empty())) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        check(steptime::fit::parse_pass_times(text, "fuzz.csv"));
    } catch (const steptime::error&) {
    }
    const auto nul = text.find('\0');
    if (nul != std::string_view::npos) {
        try {
            check(steptime::fit::parse_published_times(text.substr(0, nul), "published.csv", text.substr(nul + 1),
                                                       "cases.csv"));
        } catch (const steptime::error&) {
        }
    }
    // Malformed JSON is nlohmann's to report (load_calibration wraps it); the reader gets well-formed JSON.
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return 0;
    try {
        const auto p = steptime::io::calibration_from_json(j, "fuzz.json");
        for (const double v : {p.compute_efficiency.value(), p.memory_efficiency.value(), p.kernel_overhead.value(), p.mape})
            if (!(std::isfinite(v) && v >= 0)) __builtin_trap();
    } catch (const steptime::error&) {
    }
    return 0;
}
