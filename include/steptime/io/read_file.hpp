// steptime/io/read_file.hpp: reading a whole input file, refusing ones beyond a size limit.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "steptime/error.hpp"

namespace steptime::io {

// Largest input file read: far above any network or device description, small enough to never exhaust memory.
inline constexpr std::uintmax_t max_input_bytes = 16u << 20;

inline std::string read_file(const std::filesystem::path& path, std::uintmax_t limit = max_input_bytes) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw parse_error(path.string() + ": cannot read the file (" + ec.message() + ")");
    if (size > limit)
        throw parse_error(path.string() + ": file is " + std::to_string(size) + " bytes, above the limit of " +
                          std::to_string(limit));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw parse_error(path.string() + ": cannot open the file");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace steptime::io
