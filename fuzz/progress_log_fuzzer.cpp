// libFuzzer target: the progress-log reader (io/progress_log.hpp) in each of its formats, then the ETA
// (eta.hpp) of what it accepts. Only steptime::error may escape; an accepted log must hold finite,
// ordered samples, and an estimate must be finite and non-negative with ordered bounds.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <steptime/io.hpp>

namespace {

using steptime::io::progress_format;

bool finite_non_negative(steptime::seconds t) { return std::isfinite(t.value()) && t.value() >= 0; }

void read(std::string_view text, progress_format format) {
    steptime::io::progress_log log;
    try {
        log = steptime::io::parse_progress_log(text, "fuzz.log", format);
    } catch (const steptime::error&) {
        return;
    }
    if (log.samples.empty() || log.format == progress_format::automatic || log.position < 0) __builtin_trap();
    if ((log.total && *log.total < 0) || (log.per_epoch && *log.per_epoch < 0)) __builtin_trap();
    for (const auto& s : log.samples)
        if (!std::isfinite(s.time.value()) || s.iteration < 0) __builtin_trap();
    if (log.samples.size() < 3) return;
    try {
        const std::int64_t total = log.total.value_or(std::max<std::int64_t>(log.position, 1'000'000'000));
        const auto e = steptime::estimate_eta(log.samples, log.position, total);
        for (const auto& t : {e.per_iteration, e.per_iteration_spread, e.remaining, e.remaining_low, e.remaining_high,
                             e.remaining_with_pauses})
            if (!finite_non_negative(t)) __builtin_trap();
        if (!(e.remaining_low <= e.remaining && e.remaining <= e.remaining_high)) __builtin_trap();
    } catch (const steptime::error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const auto format : {progress_format::automatic, progress_format::simple, progress_format::tqdm,
                              progress_format::keras})
        read(text, format);
    return 0;
}
