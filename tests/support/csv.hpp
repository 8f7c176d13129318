// Test support: reading the reference CSV files (plain comma-separated, no quoting in them).
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace test_support {

using row = std::map<std::string, std::string>;

inline std::vector<row> read_csv(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    const auto split = [](std::string line) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::vector<std::string> out;
        std::stringstream s(line);
        for (std::string f; std::getline(s, f, ',');) out.push_back(f);
        if (!line.empty() && line.back() == ',') out.emplace_back();
        return out;
    };
    std::string line;
    std::getline(in, line);
    const auto header = split(line);
    std::vector<row> rows;
    while (std::getline(in, line)) {
        const auto fields = split(line);
        row r;
        for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) r[header[i]] = fields[i];
        rows.push_back(std::move(r));
    }
    return rows;
}

// Appended in place: GCC 12's -Warray-bounds misfires on `std::string(dir) + "/" + relative` for some directory lengths.
inline std::string source_path(const std::string& relative) {
    std::string path = STEPTIME_SOURCE_DIR "/";
    path += relative;
    return path;
}

// |a - b| <= rel * max(|a|, |b|), or both within 1e-300 of zero.
inline bool close(double a, double b, double rel = 1e-9) {
    const double m = std::max(std::abs(a), std::abs(b));
    return m < 1e-300 || std::abs(a - b) <= rel * m;
}

}  // namespace test_support
