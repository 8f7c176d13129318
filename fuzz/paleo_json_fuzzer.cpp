// libFuzzer target: the PALEO JSON reader (io/paleo_json.hpp), then an estimate of what it accepts.
// Only steptime::error may escape the library; any other exception, a crash, a hang (-timeout),
// unbounded memory (-rss_limit_mb) or undefined behaviour (-fsanitize=undefined) is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <steptime/io.hpp>

namespace {

template <class Model>
void estimate_if_possible(const steptime::network& net, const Model& model, std::int64_t batch) {
    try {
        const auto e = steptime::estimate(net, steptime::devices::get("paleo:TITAN_X"), model, {.batch = batch});
        // An accepted estimate is a finite, non-negative number with ordered bounds (graph/bounds.hpp);
        // 1e-9 relative: the two bounds sum the same doubles in different orders.
        const auto ordered = [](steptime::time_bounds b) { return b.lower.value() <= b.upper.value() * (1 + 1e-9); };
        if (!(std::isfinite(e.total.value()) && e.total.value() >= 0 && ordered(e.forward_bounds) &&
              ordered(e.backward_bounds)))
            __builtin_trap();
    } catch (const steptime::error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    steptime::network net;
    try {
        net = steptime::io::parse_paleo_json(text, "fuzz");
    } catch (const steptime::error&) {
        return 0;
    }
    for (const std::int64_t batch : {1, 7}) {  // the brief's two batches: one sample, and an odd count
        estimate_if_possible(net, steptime::cost::paleo{}, batch);
        estimate_if_possible(net, steptime::cost::paleo_compat{}, batch);
        estimate_if_possible(net, steptime::cost::roofline{}, batch);
    }
    return 0;
}
