#include "parse.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include <steptime/error.hpp>

namespace steptime::cli {
namespace {

struct unit {
    std::string_view symbol;
    double scale;  // to bytes per second, or to seconds
};

constexpr std::array bandwidth_units{
    unit{"Tbps", 1e12 / 8}, unit{"Gbps", 1e9 / 8}, unit{"Mbps", 1e6 / 8}, unit{"kbps", 1e3 / 8},
    unit{"Tb/s", 1e12 / 8}, unit{"Gb/s", 1e9 / 8}, unit{"Mb/s", 1e6 / 8}, unit{"kb/s", 1e3 / 8},
    unit{"TB/s", 1e12},     unit{"GB/s", 1e9},     unit{"MB/s", 1e6},     unit{"kB/s", 1e3},
    unit{"TBps", 1e12},     unit{"GBps", 1e9},     unit{"MBps", 1e6},     unit{"kBps", 1e3},
    unit{"GiB/s", 1073741824.0}, unit{"MiB/s", 1048576.0},
};

constexpr std::array frequency_units{unit{"GHz", 1e9}, unit{"MHz", 1e6}};

constexpr std::array time_units{unit{"s", 1}, unit{"ms", 1e-3}, unit{"us", 1e-6}, unit{"\u00b5s", 1e-6},
                                unit{"ns", 1e-9}};

std::string quoted(std::string_view option, std::string_view text) {
    return std::string(option) + " '" + std::string(text) + "'";
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

template <std::size_t N>
std::string symbols(const std::array<unit, N>& units) {
    std::string s;
    for (const auto& u : units) s += (s.empty() ? "" : ", ") + std::string(u.symbol);
    return s;
}

// The number at the start of `text` and the rest (the unit), spaces between them dropped.
std::pair<double, std::string_view> number_and_unit(std::string_view text, std::string_view option,
                                                    std::string_view example) {
    const std::string_view t = trim(text);
    if (t.empty()) throw invalid_argument(quoted(option, text) + ": expected a number and a unit, e.g. " + std::string(example));
    double v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc::result_out_of_range) throw invalid_argument(quoted(option, text) + ": number out of range");
    // from_chars reads "inf" and "nan" too: refuse them as well as no number at all.
    if (ec != std::errc{} || !std::isfinite(v) || !(t.front() == '.' || t.front() == '-' || (t.front() >= '0' && t.front() <= '9')))
        throw invalid_argument(quoted(option, text) + ": expected a number and a unit, e.g. " + std::string(example));
    return {v, trim(std::string_view(end, static_cast<std::size_t>(t.data() + t.size() - end)))};
}

template <std::size_t N>
double scale_of(std::string_view symbol, const std::array<unit, N>& units, std::string_view option, std::string_view text,
                std::string_view example) {
    if (symbol.empty())
        throw invalid_argument(quoted(option, text) + ": missing unit (one of " + symbols(units) + "), e.g. " +
                               std::string(example));
    for (const auto& u : units)
        if (u.symbol == symbol) return u.scale;
    throw invalid_argument(quoted(option, text) + ": unknown unit '" + std::string(symbol) + "' (expected one of " +
                           symbols(units) + ")");
}

}  // namespace

bytes_per_second parse_bandwidth(std::string_view text, std::string_view option) {
    constexpr std::string_view example = "25Gbps or 12.5GB/s";
    const auto [v, symbol] = number_and_unit(text, option, example);
    const double rate = v * scale_of(symbol, bandwidth_units, option, text, example);
    if (!(rate > 0) || !std::isfinite(rate)) throw invalid_argument(quoted(option, text) + ": bandwidth must be positive");
    return bytes_per_second_of(rate);
}

seconds parse_latency(std::string_view text, std::string_view option) {
    constexpr std::string_view example = "5us or 1.5ms";
    const auto [v, symbol] = number_and_unit(text, option, example);
    const double t = v == 0 && symbol.empty() ? 0.0 : v * scale_of(symbol, time_units, option, text, example);
    if (!(t >= 0) || !std::isfinite(t)) throw invalid_argument(quoted(option, text) + ": must not be negative");
    if (t > 3600) throw invalid_argument(quoted(option, text) + ": must be an hour at most");
    return seconds_of(t);
}

hertz parse_frequency(std::string_view text, std::string_view option) {
    constexpr std::string_view example = "562MHz or 1.41GHz";
    const auto [v, symbol] = number_and_unit(text, option, example);
    const double f = v * scale_of(symbol, frequency_units, option, text, example);
    if (!(f >= 1e6 && f <= 1e10)) throw invalid_argument(quoted(option, text) + ": expected a GPU clock from 1 MHz to 10 GHz");
    return megahertz_of(f / 1e6);
}

seconds parse_duration(std::string_view text, std::string_view option) {
    constexpr std::string_view example = "104ms or 0.5s";
    const auto [v, symbol] = number_and_unit(text, option, example);
    const double t = v * scale_of(symbol, time_units, option, text, example);
    // The bounds keep a time scaled by any ratio of two predictions finite and above zero.
    if (!(t >= 1e-9 && t <= 86400))
        throw invalid_argument(quoted(option, text) + ": expected a measured time from 1 ns to a day");
    return seconds_of(t);
}

device_time parse_device_time(std::string_view text, std::string_view option) {
    const std::size_t eq = text.rfind('=');
    const std::string_view dev = trim(text.substr(0, eq == std::string_view::npos ? 0 : eq));
    if (eq == std::string_view::npos || dev.empty())
        throw invalid_argument(quoted(option, text) + ": expected DEVICE=TIME, e.g. titan-x-maxwell=104ms");
    return {std::string(dev), parse_duration(text.substr(eq + 1), option)};
}

std::int64_t parse_integer(std::string_view text, std::string_view option, std::int64_t lo, std::int64_t hi) {
    const std::string_view t = trim(text);
    const std::string range = "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || t.front() < '0' || t.front() > '9' || (ec != std::errc{} && ec != std::errc::result_out_of_range) ||
        end != t.data() + t.size())
        throw invalid_argument(quoted(option, text) + ": " + range);
    if (ec == std::errc::result_out_of_range || v < lo || v > hi)
        throw invalid_argument(quoted(option, text) + ": out of range, " + range);
    return v;
}

std::vector<std::string> split_list(std::string_view text, std::string_view option) {
    std::vector<std::string> items;
    for (std::size_t start = 0;;) {
        const std::size_t comma = text.find(',', start);
        const std::string_view item = trim(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
        if (item.empty()) throw invalid_argument(quoted(option, text) + ": empty item in the comma-separated list");
        items.emplace_back(item);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return items;
}

std::vector<std::string> split_models(std::string_view text, std::string_view option) {
    std::vector<std::string> models;
    for (auto& item : split_list(text, option)) {
        const std::size_t eq = item.find('=');
        if (eq != std::string::npos && item.find(':') > eq && !models.empty() &&
            models.back().find(':') != std::string::npos)
            models.back() += "," + item;
        else models.push_back(std::move(item));
    }
    return models;
}

std::vector<std::int64_t> parse_integer_list(std::string_view text, std::string_view option, std::int64_t lo,
                                             std::int64_t hi) {
    std::vector<std::int64_t> values;
    for (const auto& item : split_list(text, option)) values.push_back(parse_integer(item, option, lo, hi));
    return values;
}

}  // namespace steptime::cli
