// steptime/detail/text.hpp: small text helpers for the line-oriented readers.
#pragma once

#include <string_view>

namespace steptime::detail {

// `s` without leading and trailing blanks (spaces, tabs, carriage returns).
inline std::string_view trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace steptime::detail
