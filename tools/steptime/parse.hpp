// Strict parsing of command-line values: quantities with units, integers, comma lists.
// Every failure throws steptime::invalid_argument with a message that names the option and the text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <steptime/units.hpp>

namespace steptime::cli {

// "25Gbps", "12.5 GB/s": bits per second (Tbps, Gbps, Mbps, kbps, or Tb/s, Gb/s, ...), bytes per second
// (TB/s, GB/s, MB/s, kB/s, or TBps, GBps, ...; decimal) or binary bytes per second (GiB/s, MiB/s).
bytes_per_second parse_bandwidth(std::string_view text, std::string_view option = "--bandwidth");

// A short time (a link's latency, the host's time per kernel), "5us", "1.5 ms", "0": s, ms, us (or µs), ns,
// an hour at most. Zero may go without a unit.
seconds parse_latency(std::string_view text, std::string_view option = "--latency");

// A clock, "562MHz" or "1.41 GHz", from 1 MHz to 10 GHz.
hertz parse_frequency(std::string_view text, std::string_view option);

// A measured time, "104ms" or "0.5 s": s, ms, us (or µs), ns, from a nanosecond to a day.
seconds parse_duration(std::string_view text, std::string_view option);

// "titan-x-maxwell=104ms": a device (a catalog name or a JSON file) and a time measured on it, split at the
// last '='.
struct device_time {
    std::string device;
    seconds time;
};
device_time parse_device_time(std::string_view text, std::string_view option);

// A decimal integer in [lo, hi]: digits only, no sign, no exponent.
std::int64_t parse_integer(std::string_view text, std::string_view option, std::int64_t lo, std::int64_t hi);

// "a,b,c" into its items, spaces around items dropped; an empty list or item is an error.
std::vector<std::string> split_list(std::string_view text, std::string_view option);
// A comma list of models: an item "key=value" continues the spec before it (gemm:m=1,n=2,k=3 or
// resnet50:resolution=160,classes=10), as a zoo name or file never holds '=' before a ':'.
std::vector<std::string> split_models(std::string_view text, std::string_view option);

std::vector<std::int64_t> parse_integer_list(std::string_view text, std::string_view option, std::int64_t lo,
                                             std::int64_t hi);

}  // namespace steptime::cli
