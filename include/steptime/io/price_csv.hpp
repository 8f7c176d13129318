// steptime/io/price_csv.hpp: price tables (USD per GPU-hour) from CSV files.
#pragma once

#include <charconv>
#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "steptime/detail/text.hpp"
#include "steptime/io/read_file.hpp"
#include "steptime/training.hpp"

namespace steptime::prices {

// More rows are refused: price_table looks names up linearly, so n rows cost n^2 / 2 comparisons
// (100,000 rows took 16 s); the device catalog has a few dozen devices.
inline constexpr std::size_t max_prices = 1'000;

// A price CSV: a header `device,usd_per_gpu_hour[,source]`, then one device a line; the source is the
// rest of the line (it may hold commas; no quoting). Blank lines are skipped. Errors name `origin` and the line.
inline price_table parse_csv(std::string_view text, const std::string& origin = "<prices>") {
    price_table t;
    std::vector<std::size_t> first_line;  // per entry of t, the line that set it
    std::size_t line_no = 0;
    bool header = false, has_source = false;
    while (!text.empty()) {
        const auto eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (steptime::detail::trim(line).empty()) continue;
        const auto where = origin + ":" + std::to_string(line_no) + ": ";
        const auto c1 = line.find(',');
        const auto c2 = c1 == std::string_view::npos ? c1 : line.find(',', c1 + 1);
        const std::string_view device = steptime::detail::trim(line.substr(0, c1));
        const std::string_view price =
            c1 == std::string_view::npos ? std::string_view{} : steptime::detail::trim(line.substr(c1 + 1, c2 - c1 - 1));
        const std::string_view source =
            c2 == std::string_view::npos ? std::string_view{} : steptime::detail::trim(line.substr(c2 + 1));
        if (!header) {
            if (device != "device" || price != "usd_per_gpu_hour" ||
                !(c2 == std::string_view::npos || source == "source"))
                throw parse_error(where + "expected the header 'device,usd_per_gpu_hour' or "
                                          "'device,usd_per_gpu_hour,source', found '" + std::string(line) + "'");
            header = true;
            has_source = c2 != std::string_view::npos;
            continue;
        }
        if (c1 == std::string_view::npos)
            throw parse_error(where + "expected 'device,usd_per_gpu_hour[,source]', found '" + std::string(line) + "'");
        if (device.empty()) throw parse_error(where + "empty device name");
        if (c2 != std::string_view::npos && !has_source)  // "k80,0,9" is not a price of 0 from source "9"
            throw parse_error(where + "expected 2 columns as in the header 'device,usd_per_gpu_hour', found '" +
                              std::string(line) + "' (a decimal comma?)");
        if (t.entries().size() == max_prices)
            throw parse_error(where + "more than " + std::to_string(max_prices) + " prices, the limit of a price table");
        double usd = 0;
        const auto [end, ec] = std::from_chars(price.data(), price.data() + price.size(), usd);
        if (price.empty() || ec != std::errc{} || end != price.data() + price.size())
            throw parse_error(where + "price of '" + std::string(device) + "' is '" + std::string(price) +
                              "', expected a number");
        if (!std::isfinite(usd) || usd < 0)
            throw parse_error(where + "price of '" + std::string(device) + "' is " + std::string(price) +
                              ", expected a finite non-negative number of USD per GPU-hour");
        const auto seen = std::ranges::find(t.entries(), device, &gpu_price::device);
        if (seen != t.entries().end()) {
            const auto first = first_line[static_cast<std::size_t>(seen - t.entries().begin())];
            throw parse_error(where + "device '" + std::string(device) + "' already has a price (line " +
                              std::to_string(first) + ")");
        }
        t.set(std::string(device), usd, std::string(source));
        first_line.push_back(line_no);
    }
    if (!header) throw parse_error(origin + ": empty; expected the header 'device,usd_per_gpu_hour[,source]'");
    return t;
}

inline price_table load_csv(const std::filesystem::path& path) {
    return parse_csv(io::read_file(path), path.string());
}

}  // namespace steptime::prices
