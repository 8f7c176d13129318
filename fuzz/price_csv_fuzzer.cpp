// libFuzzer target: the price-table CSV reader (io/price_csv.hpp, prices::parse_csv). Only steptime::error
// may escape; a table it accepts must answer a lookup of each of its devices.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <steptime/io.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const auto table = steptime::prices::parse_csv(text, "fuzz");
        for (const auto& p : table.entries())
            if (table.usd_per_gpu_hour(p.device) != p.usd_per_gpu_hour) __builtin_trap();
    } catch (const steptime::error&) {
    }
    return 0;
}
