// Remaining time from progress (eta.hpp): hand-derived means, trimming and bands; warm-up, coarse clocks and
// segments; the band's coverage on simulated jobs; retargeting; bad input.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

#include <steptime/io.hpp>  // eta.hpp comes with its reader
#include <steptime/steptime.hpp>
#include "support/errors.hpp"

using namespace steptime;

namespace {

using test_support::message_of;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Samples (iteration, seconds) of segment 0.
std::vector<progress_sample> samples(std::initializer_list<std::pair<std::int64_t, double>> points) {
    std::vector<progress_sample> v;
    for (const auto& [i, t] : points) v.push_back({i, seconds_of(t), 0});
    return v;
}

// Normal deviates by Box-Muller from mt19937, whose output the standard fixes (std::normal_distribution's
// differs between standard libraries).
struct normal {
    std::mt19937 gen;
    double operator()() {
        const auto u = [this] { return (static_cast<double>(gen()) + 1.0) / 4294967297.0; };  // in (0, 1)
        return std::sqrt(-2 * std::log(u())) * std::cos(2 * std::numbers::pi * u());
    }
};

// A simulated job: iterations of tau + sigma x N(0, 1) seconds, a log line every `every` iterations, a pause of
// `pause` seconds every `pause_every` iterations and `startup` seconds in the first interval. The log covers
// `logged` iterations; `future` is the pause-free time of the `left` iterations after it.
struct simulated_job {
    std::vector<progress_sample> log;
    double future = 0;
};

simulated_job simulate(std::uint32_t seed, double tau, double sigma, int every, int logged, int left, double pause = 0,
                       int pause_every = 0, double startup = 0) {
    normal z{std::mt19937(seed)};
    simulated_job job;
    double t = 0;
    job.log.push_back({0, seconds_of(0), 0});
    for (int i = 1; i <= logged; ++i) {
        t += tau + sigma * z();
        if (i == 1) t += startup;
        if (pause_every > 0 && i % pause_every == 0) t += pause;
        if (i % every == 0) job.log.push_back({i, seconds_of(t), 0});
    }
    for (int i = 0; i < left; ++i) job.future += tau + sigma * z();
    return job;
}

}  // namespace

TEST_CASE("eta: the mean is total time over total iterations of the kept intervals; a pause is trimmed") {
    // Intervals of 10 iterations: 1, 1, 1.5, 1 s -> 0.1, 0.1, 0.15, 0.1 s per iteration. Median 0.1, MAD 0, so the
    // limit is the 25% floor, 0.025 s: 0.15 is an outlier. Kept: 3 s over 30 iterations = 0.1 s.
    const auto s = samples({{0, 0}, {10, 1}, {20, 2}, {30, 3.5}, {40, 4.5}});
    const eta_estimate e = estimate_eta(s, 40, 100, {.window = 50, .warmup = 0});
    CHECK(e.intervals == 4);
    CHECK(e.outliers == 1);
    CHECK(e.window_iterations == 30);
    CHECK(e.per_iteration.value() == doctest::Approx(0.1));
    CHECK(e.per_iteration_spread.value() == doctest::Approx(0.0));
    // 60 iterations left x 0.1 s = 6 s, and a band of zero width with no spread.
    CHECK(e.remaining.value() == doctest::Approx(6.0));
    CHECK(e.remaining_low.value() == doctest::Approx(6.0));
    CHECK(e.remaining_high.value() == doctest::Approx(6.0));
    // With the pause: 4.5 s over 40 iterations = 0.1125 s, x 60 = 6.75 s.
    CHECK(e.remaining_with_pauses.value() == doctest::Approx(6.75));
}

TEST_CASE("eta: the band is t(K-1) s sqrt(N (N + W) / K)") {
    // 0.1, 0.12, 0.1, 0.12 s per iteration over 10 iterations each: median 0.11, MAD 0.01, limit
    // max(5 x 1.4826 x 0.01, 0.0275) = 0.074: all kept. Mean 4.4 / 40 = 0.11; s = sqrt(4 x 0.01^2 / 3) = 0.0115470.
    const auto s = samples({{0, 0}, {10, 1}, {20, 2.2}, {30, 3.2}, {40, 4.4}});
    const eta_estimate e = estimate_eta(s, 40, 100, {.window = 50, .warmup = 0});
    CHECK(e.outliers == 0);
    CHECK(e.per_iteration.value() == doctest::Approx(0.11));
    CHECK(e.per_iteration_spread.value() == doctest::Approx(0.0115470054));
    // N = 60, W = 40, K = 4, t(3) = 3.182: half-width 3.182 x 0.0115470 x sqrt(60 x 100 / 4) = 1.4230337 s.
    CHECK(e.remaining.value() == doctest::Approx(6.6));
    CHECK(e.remaining_low.value() == doctest::Approx(6.6 - 1.4230337));
    CHECK(e.remaining_high.value() == doctest::Approx(6.6 + 1.4230337));
    // A finished job has no time left and no band.
    const eta_estimate done = estimate_eta(s, 100, 100, {.window = 50, .warmup = 0});
    CHECK(done.remaining.value() == 0);
    CHECK(done.remaining_high.value() == 0);
}

TEST_CASE("eta: the window is the last intervals") {
    // Four intervals of 0.2 s per iteration, then three of 0.1 (the job sped up): a window of 3 sees only the last.
    const auto s = samples({{0, 0}, {10, 2}, {20, 4}, {30, 6}, {40, 8}, {50, 9}, {60, 10}, {70, 11}});
    const eta_estimate e = estimate_eta(s, 70, 100, {.window = 3, .warmup = 0});
    CHECK(e.intervals == 3);
    CHECK(e.per_iteration.value() == doctest::Approx(0.1));
    // The whole log: median 0.2 (4 of 7), MAD 0 (4 deviations of 0), limit 0.05: the three 0.1 are outliers.
    const eta_estimate all = estimate_eta(s, 70, 100, {.window = 50, .warmup = 0});
    CHECK(all.outliers == 3);
    CHECK(all.per_iteration.value() == doctest::Approx(0.2));
}

TEST_CASE("eta: warm-up intervals are dropped at the start of each segment") {
    // Segment 0: a first interval of 10 s (start-up), then 1 s per 10 iterations; segment 1 (another epoch's
    // clock, starting again at 0): the same. Warm-up 1 drops both 10 s intervals; no interval crosses segments
    // (one from iteration 30 at 12 s to 1000 at 0 s would be refused).
    std::vector<progress_sample> s = samples({{0, 0}, {10, 10}, {20, 11}, {30, 12}});
    for (const auto& [i, t] : {std::pair{1000, 0.0}, {1010, 10.0}, {1020, 11.0}, {1030, 12.0}})
        s.push_back({i, seconds_of(t), 1});
    const eta_estimate e = estimate_eta(s, 1030, 2000);
    CHECK(e.warmup_dropped == 2);
    CHECK(e.intervals == 4);
    CHECK(e.outliers == 0);
    CHECK(e.per_iteration.value() == doctest::Approx(0.1));
    // Without warm-up the 10 s intervals (1 s per iteration) are outliers of the median 0.1.
    const eta_estimate raw = estimate_eta(s, 1030, 2000, {.window = 50, .warmup = 0});
    CHECK(raw.outliers == 2);
    CHECK(raw.per_iteration.value() == doctest::Approx(0.1));
}

TEST_CASE("eta: of samples with the same time, the first counts (a clock of whole seconds)") {
    // tqdm-like: iterations 0 and 5 both at 0 s, 10 and 15 at 1 s, 20 at 2 s. Intervals: 0 -> 10 in 1 s and
    // 10 -> 20 in 1 s, so 0.1 s per iteration; taking the last of each run (5 -> 15) would give the same here,
    // but 15 -> 20 in 1 s would be 0.2.
    const auto s = samples({{0, 0}, {5, 0}, {10, 1}, {15, 1}, {20, 2}});
    const eta_estimate e = estimate_eta(s, 20, 100, {.window = 50, .warmup = 0});
    CHECK(e.intervals == 2);
    CHECK(e.window_iterations == 20);
    CHECK(e.per_iteration.value() == doctest::Approx(0.1));
}

TEST_CASE("eta: a simulated job with noise, pauses and start-up: the truth within the noise, inside the band") {
    // tau = 0.25 s, sigma = 0.02 s per iteration, a line every 20 iterations, 30 s evaluations every 250
    // iterations, 20 s start-up; 1500 iterations logged, 1500 left. The window (50 intervals, 1000 iterations)
    // has 4 pauses: they are trimmed, and the mean's standard error is about sigma / sqrt(1000) = 0.00063 s.
    const simulated_job job = simulate(42, 0.25, 0.02, 20, 1500, 1500, 30, 250, 20);
    const eta_estimate e = estimate_eta(job.log, 1500, 3000);
    CHECK(e.outliers == 4);
    CHECK(e.per_iteration.value() == doctest::Approx(0.25).epsilon(3 * 0.00063 / 0.25));
    CHECK(e.remaining_low.value() <= job.future);
    CHECK(job.future <= e.remaining_high.value());
    // With the pauses at the rate seen: 4 x 30 s per 1000 iterations, + 0.12 s per iteration: 1500 x 0.37 = 555 s.
    CHECK(e.remaining_with_pauses.value() == doctest::Approx(555).epsilon(0.01));
}

TEST_CASE("eta: the 95% band covers the truth in about 95% of simulated jobs") {
    // 400 jobs each (seeds 1..400): a binomial(400, 0.95) count lies within 0.92..0.98 of 400 with probability
    // 0.998. The window of 5 intervals exercises Student's t (with the normal 1.96 instead of t(4) = 2.776 the
    // coverage would be about 88%).
    for (const std::size_t window : {std::size_t{50}, std::size_t{5}}) {
        CAPTURE(window);
        int covered = 0;
        for (std::uint32_t seed = 1; seed <= 400; ++seed) {
            const simulated_job job = simulate(seed, 0.25, 0.02, 20, 1500, 1500);
            const eta_estimate e = estimate_eta(job.log, 1500, 3000, {.window = window, .warmup = 1});
            covered += e.remaining_low.value() <= job.future && job.future <= e.remaining_high.value();
        }
        CHECK(covered >= 368);
        CHECK(covered <= 392);
    }
}

TEST_CASE("eta: retargeting scales every time by the ratio") {
    const auto s = samples({{0, 0}, {10, 1}, {20, 2.2}, {30, 3.2}, {40, 4.4}});
    const eta_estimate e = estimate_eta(s, 40, 100, {.window = 50, .warmup = 0});
    const eta_estimate r = retarget(e, ratio_of(0.5));
    CHECK(r.per_iteration.value() == doctest::Approx(0.055));
    CHECK(r.remaining.value() == doctest::Approx(3.3));
    CHECK(r.remaining_low.value() == doctest::Approx((6.6 - 1.4230337) / 2));
    CHECK(r.remaining_high.value() == doctest::Approx((6.6 + 1.4230337) / 2));
    CHECK(r.remaining_with_pauses.value() == doctest::Approx(3.3));
    CHECK(r.done == 40);
    CHECK(r.total == 100);
    for (const double bad : {0.0, -1.0, std::nan("")})
        CHECK(contains(message_of<invalid_argument>([&] { retarget(e, ratio_of(bad)); }), "expected a finite positive"));
}

TEST_CASE("eta: Student's t quantiles") {
    CHECK(detail::t_quantile_975(1) == doctest::Approx(12.706));
    CHECK(detail::t_quantile_975(30) == doctest::Approx(2.042));
    // Tables: t(40) = 2.021, t(120) = 1.980.
    CHECK(detail::t_quantile_975(40) == doctest::Approx(2.021).epsilon(0.002));
    CHECK(detail::t_quantile_975(120) == doctest::Approx(1.980).epsilon(0.001));
    CHECK(contains(message_of<invalid_argument>([] { detail::t_quantile_975(0); }), "no degrees of freedom"));
}

TEST_CASE("eta: bad input") {
    const auto ok = samples({{0, 0}, {10, 1}, {20, 2}, {30, 3}});
    const auto msg = [](std::vector<progress_sample> s, std::int64_t done, std::int64_t total, eta_options o = {}) {
        return message_of<invalid_argument>([&] { estimate_eta(s, done, total, o); });
    };
    CHECK(contains(msg({}, 0, 10), "no progress samples"));
    CHECK(contains(msg(ok, 30, 0), "total of 0 iterations"));
    CHECK(contains(msg(ok, 20, 100), "behind the last sample's 30"));
    CHECK(contains(msg(ok, 101, 100), "past its total of 100"));
    CHECK(contains(msg(ok, 30, 100, {.window = 1, .warmup = 0}), "expected at least 2"));
    CHECK(contains(msg(samples({{0, 0}, {10, 1}, {10, 2}}), 10, 100), "iterations must increase"));
    CHECK(contains(msg(samples({{0, 0}, {10, 1}, {20, 0.5}}), 20, 100), "times must not decrease"));
    CHECK(contains(msg(samples({{0, 0}, {10, std::nan("")}}), 10, 100), "non-finite time"));
    // 1e300 s per iteration, 1e9 iterations left: 1e309 s overflows a double (a fuzzed Keras log's times).
    CHECK(contains(msg(samples({{0, 0}, {1, 1e300}, {2, 2e300}, {3, 3e300}}), 3, 1'000'000'000, {.warmup = 0}),
                   "progress times too large for an estimate"));
    // Two intervals, one of them warm-up: one left.
    CHECK(contains(msg(samples({{0, 0}, {10, 1}, {20, 2}}), 20, 100), "1 interval(s) after dropping 1 of warm-up"));
    // No time passed.
    CHECK(contains(msg(samples({{0, 0}, {10, 0}, {20, 0}, {30, 0}}), 30, 100, {.window = 50, .warmup = 0}),
                   "expected at least 2"));
}
