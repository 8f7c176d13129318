// Quantities (units.hpp): dimensions compose as physics says, constructors scale by their unit's name,
// and the two documented escape hatches (to_double, to_chrono) give the base-unit value.
#include <doctest/doctest.h>

#include <chrono>
#include <type_traits>
#include <steptime/io.hpp>

using namespace steptime;

namespace {
template <class A, class B>
concept addable = requires(A a, B b) { a + b; };
}  // namespace

TEST_CASE("quantities compose with the right dimensions") {
    // Checked at run time (not static_assert) so that a wrong dimension fails a test instead of the build.
    CHECK(std::is_same_v<decltype(bytes{} / bytes_per_second{}), seconds>);
    CHECK(std::is_same_v<decltype(flops{} / flops_per_second{}), seconds>);
    CHECK(std::is_same_v<decltype(bytes{} / seconds{}), bytes_per_second>);
    CHECK(std::is_same_v<decltype(flops{} / seconds{}), flops_per_second>);
    CHECK(std::is_same_v<decltype(bytes_per_second{} * seconds{}), bytes>);
    CHECK(std::is_same_v<decltype(flops_per_second{} * ratio{}), flops_per_second>);
    CHECK(std::is_same_v<decltype(seconds{} + seconds{}), seconds>);
    // A clock period is a time: 1 / frequency.
    CHECK(std::is_same_v<decltype(1.0 / hertz{}), seconds>);
    // Quantities of different dimensions do not add, and a plain number is not silently a time.
    CHECK(addable<seconds, seconds>);
    CHECK_FALSE(addable<bytes, seconds>);
    CHECK_FALSE(addable<flops, bytes>);
    CHECK_FALSE(std::is_convertible_v<double, seconds>);
    CHECK_FALSE(std::is_convertible_v<seconds, double>);
}

TEST_CASE("dividing work by a rate gives the time, in seconds") {
    // TITAN X as PALEO lists it (paleo-model.md section 2): 336.5 GB/s, 6144 GFLOPS.
    // 673e9 B at 336.5e9 B/s = 2 s; 3.072e12 FLOP at 6.144e12 FLOP/s = 0.5 s.
    CHECK(to_double(bytes_of(673e9) / bytes_per_second_of(336.5e9)) == doctest::Approx(2.0).epsilon(1e-15));
    CHECK(to_double(flops_of(3.072e12) / flops_per_second_of(6.144e12)) == doctest::Approx(0.5).epsilon(1e-15));
    // A rate scaled by a PPP of 0.5 takes twice as long: 1e9 FLOP / (1e12 * 0.5) = 2 ms.
    CHECK(to_double(flops_of(1e9) / (flops_per_second_of(1e12) * ratio_of(0.5))) == doctest::Approx(2e-3));
    // Bandwidth x time = bytes: 1e11 B/s for 3 s = 3e11 B.
    CHECK(to_double(bytes_per_second_of(1e11) * seconds_of(3)) == doctest::Approx(3e11));
    // One clock period at 1000 MHz (PALEO's TITAN X clock) is 1 ns.
    CHECK(to_double(1.0 / megahertz_of(1000)) == doctest::Approx(1e-9));
}

TEST_CASE("constructors scale by the unit in their name; to_double returns the base unit") {
    CHECK(to_double(seconds_of(2.5)) == 2.5);
    CHECK(to_double(milliseconds_of(250)) == doctest::Approx(0.25));  // 250 ms = 0.25 s
    CHECK(to_double(microseconds_of(5)) == doctest::Approx(5e-6));   // 5 us = 5e-6 s
    CHECK(to_double(megahertz_of(745)) == doctest::Approx(745e6));   // K40 clock, 745 MHz, in Hz
    CHECK(to_double(bytes_of(4096)) == 4096);
    CHECK(to_double(flops_of(1e12)) == 1e12);
    CHECK(to_double(bytes_per_second_of(900e9)) == 900e9);
    CHECK(to_double(flops_per_second_of(15.7e12)) == 15.7e12);
    CHECK(to_double(ratio_of(0.62)) == 0.62);
    // Sums keep the unit: 1 s + 500 ms = 1.5 s; 2 ms + 3000 us = 5 ms.
    CHECK(to_double(seconds_of(1) + milliseconds_of(500)) == doctest::Approx(1.5));
    CHECK(to_double(milliseconds_of(2) + microseconds_of(3000)) == doctest::Approx(5e-3));
    CHECK(milliseconds_of(1) < seconds_of(0.0011));
    CHECK(microseconds_of(1001) > milliseconds_of(1));
}

TEST_CASE("to_chrono gives a std::chrono duration of the same length") {
    const std::chrono::duration<double> d = to_chrono(milliseconds_of(1.5));
    CHECK(d.count() == doctest::Approx(1.5e-3));
    // 1.5 ms = 1500 us; rounding guards against 1499.999...
    CHECK(std::chrono::round<std::chrono::microseconds>(d).count() == 1500);
    CHECK(std::chrono::duration_cast<std::chrono::duration<double, std::milli>>(to_chrono(seconds_of(2))).count() ==
          doctest::Approx(2000));
    CHECK(to_chrono(seconds_of(0)).count() == 0);
}
