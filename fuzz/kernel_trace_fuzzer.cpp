// libFuzzer target: the measured-kernel readers (io/kernel_trace.hpp): parse_kernel_csv and
// parse_kineto_trace, both on every input, then wave scaling (scale/wave_scaling.hpp) of what they accept
// from a V100 to a T4. Only steptime::error may escape; an accepted trace must scale to finite,
// non-negative times.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <steptime/io.hpp>

namespace {

bool finite_non_negative(steptime::seconds t) { return std::isfinite(t.value()) && t.value() >= 0; }

void scale_if_possible(const std::vector<steptime::scale::measured_op>& ops) {
    for (const auto& op : ops) {
        if (op.kernels.empty() || (op.wall_time && !(finite_non_negative(*op.wall_time) && op.wall_time->value() > 0)))
            __builtin_trap();
        for (const auto& k : op.kernels)
            if (!(finite_non_negative(k.duration) && k.duration.value() > 0)) __builtin_trap();
    }
    try {
        static const auto& v100 = steptime::devices::get("v100-sxm2-16gb");
        static const auto& t4 = steptime::devices::get("t4");
        const auto run = steptime::scale::scale_ops(ops, v100, t4);
        if (!(finite_non_negative(run.measured) && finite_non_negative(run.predicted))) __builtin_trap();
        for (const auto& op : run.ops) {
            if (!(finite_non_negative(op.measured) && finite_non_negative(op.overhead) &&
                  finite_non_negative(op.predicted)))
                __builtin_trap();
            for (const auto& k : op.kernels)
                if (!finite_non_negative(k.predicted)) __builtin_trap();
        }
    } catch (const steptime::error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        scale_if_possible(steptime::io::parse_kernel_csv(text, "fuzz.csv"));
    } catch (const steptime::error&) {
    }
    try {
        scale_if_possible(steptime::io::parse_kineto_trace(text, "fuzz.json"));
    } catch (const steptime::error&) {
    }
    return 0;
}
