// steptime/detail/checked.hpp: integer arithmetic that reports overflow instead of wrapping.
#pragma once

#include <cstdint>
#include <string>

#include "steptime/error.hpp"

namespace steptime::detail {

inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, const std::string& what) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) throw invalid_model(what + ": size overflows 64-bit integers");
    return r;
}

inline std::int64_t checked_add(std::int64_t a, std::int64_t b, const std::string& what) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) throw invalid_model(what + ": size overflows 64-bit integers");
    return r;
}

}  // namespace steptime::detail
