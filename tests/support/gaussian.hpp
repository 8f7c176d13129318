// Test support: reproducible measurement noise.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace test_support {

// Standard normal noise from std::mt19937_64 (whose output the standard fixes) through Box-Muller, so
// the data are the same with every standard library (std::normal_distribution's are not).
struct gaussian {
    std::mt19937_64 g;
    explicit gaussian(std::uint64_t seed) : g(seed) {}
    double uniform() { return (static_cast<double>(g() >> 11) + 0.5) * 0x1p-53; }  // in (0, 1)
    double operator()() {
        const double r = std::sqrt(-2 * std::log(uniform()));
        return r * std::cos(2 * std::numbers::pi * uniform());
    }
};

}  // namespace test_support
