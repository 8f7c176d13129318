// libFuzzer target: the device JSON reader (io/device_json.hpp). It reads files only (load_device),
// so each input goes through a file of this process's own. Only steptime::error may escape; a device
// it accepts must be written back (to_json) and read again without error, and estimate without UB.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <steptime/io.hpp>

namespace {

const std::filesystem::path& scratch() {
    static const std::filesystem::path p =
        std::filesystem::temp_directory_path() / ("steptime-fuzz-device-" + std::to_string(::getpid()) + ".json");
    return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    {
        std::ofstream out(scratch(), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    steptime::device d;
    try {
        d = steptime::io::load_device(scratch());
    } catch (const steptime::error&) {
        return 0;
    }
    // Accepted: the round trip must accept it too (device_json.hpp: to_json reads back to an equal device).
    const steptime::device back = steptime::io::device_from_json(steptime::io::to_json(d), "roundtrip");
    if (back.name != d.name) __builtin_trap();
    static const steptime::network net = steptime::zoo::alexnet();
    try {
        (void)steptime::estimate(net, d, steptime::cost::paleo{}, {.batch = 1});
        (void)steptime::estimate(net, d, steptime::cost::roofline{}, {.batch = 1, .precision = steptime::element_type::fp16});
    } catch (const steptime::error&) {
    }
    return 0;
}
