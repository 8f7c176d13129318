// steptime/eta.hpp: remaining time of a running job from its progress (AI Gauge's online estimate, Dube, Suk,
// Wang, SBAC-PAD 2019; habitat-and-empirical-models.md 7.2): remaining iterations x a windowed moving average
// of the time per iteration, with a prediction band, and re-targeted to other hardware by a model's ratio.
//
// The rules, in order:
// 1. Intervals. Consecutive samples of one segment (a span with one clock: a log, or one epoch's progress
//    bar) make an interval of n = di iterations and dt seconds; its time per iteration is x = dt / n. Of
//    consecutive samples with the same time only the first counts: a clock of coarse resolution (tqdm's
//    whole seconds) shows the time at which its display changed.
// 2. Warm-up. The first `warmup` intervals of each segment are dropped (start-up: data-loader workers,
//    cuDNN autotuning, graph compilation).
// 3. Window. The last `window` intervals left, across segments, are the window.
// 4. Outliers. With m the window's median x and MAD its median absolute deviation, an interval is an
//    outlier when |x - m| > max(5 x 1.4826 MAD, 0.25 m): 1.4826 MAD estimates the standard deviation of
//    normal noise (so 5 of them trims no ordinary interval), and the 25% floor keeps one-clock-tick jitter
//    when the MAD is 0. Evaluation and checkpoint pauses are such outliers. Outliers are dropped.
// 5. Mean. per_iteration = sum dt / sum n over the kept intervals (total time over total iterations).
// 6. Band. remaining = N x per_iteration, N the iterations left. If iteration times are independent with
//    variance s2 per iteration, the error of the remaining time, the future's own noise plus the mean's,
//    has variance s2 N + N^2 s2 / W (W the window's kept iterations). With intervals of n_bar = W / K
//    iterations, s2 = n_bar s^2 (s the standard deviation of the K kept x), so its standard deviation is
//    s sqrt(N (N + W) / K). The band is remaining -/+ t sqrt(N (N + W) / K) s, t Student's 97.5% quantile
//    for K - 1 degrees of freedom: a 95% prediction interval for a stationary job. It does not cover drift
//    (a job that slows), pauses to come (see remaining_with_pauses), nor, after retargeting, the error of
//    the model whose ratio scaled it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "steptime/error.hpp"
#include "steptime/units.hpp"

namespace steptime {

// One progress report: the job had finished `iteration` iterations at `time` (on the clock of `segment`;
// only differences within a segment count).
struct progress_sample {
    std::int64_t iteration = 0;
    seconds time{};
    int segment = 0;
};

struct eta_options {
    std::size_t window = 50;  // intervals in the moving average
    std::size_t warmup = 1;   // intervals dropped at the start of each segment
};

struct eta_estimate {
    std::int64_t done = 0;             // iterations finished
    std::int64_t total = 0;            // iterations in the job
    seconds per_iteration{};           // rule 5
    seconds per_iteration_spread{};    // s: standard deviation of the kept intervals' time per iteration
    seconds remaining{};               // (total - done) x per_iteration
    seconds remaining_low{};           // the 95% band of rule 6 (never below 0)
    seconds remaining_high{};
    seconds remaining_with_pauses{};   // (total - done) x the window's mean with its outliers kept
    std::size_t intervals = 0;         // intervals in the window
    std::size_t outliers = 0;          // of which dropped by rule 4
    std::int64_t window_iterations = 0;  // iterations of the kept intervals
    std::size_t warmup_dropped = 0;    // intervals dropped by rule 2
};

namespace detail {

// Student's t 97.5% quantile (two-sided 95%) for `df` degrees of freedom: the table of any statistics text
// for df <= 30, then the Cornish-Fisher expansion z + (z^3 + z) / (4 df) (within 0.003 of the table at 30).
inline double t_quantile_975(std::size_t df) {
    static constexpr double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                       2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                       2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (df == 0) throw invalid_argument("t quantile: no degrees of freedom");
    if (df <= 30) return table[df - 1];
    constexpr double z = 1.959964;
    return z + (z * z * z + z) / (4.0 * static_cast<double>(df));
}

// The median of `v` (sorted in place).
inline double median(std::vector<double>& v) {
    std::ranges::sort(v);
    const std::size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

struct eta_interval {
    double iterations = 0;
    double dt = 0;
    double per_iteration() const { return dt / iterations; }
};

}  // namespace detail

// The estimate for a job of `total` iterations that has finished `done` (at least the last sample's iteration:
// a log may show progress past its last timed line). Throws invalid_argument on samples out of order, on
// non-finite times, when fewer than 2 intervals are left after warm-up, and when the times are so large that
// the estimate overflows.
inline eta_estimate estimate_eta(std::span<const progress_sample> samples, std::int64_t done, std::int64_t total,
                                 const eta_options& opt = {}) {
    if (opt.window < 2) throw invalid_argument("window of " + std::to_string(opt.window) + " intervals, expected at least 2");
    if (samples.empty()) throw invalid_argument("no progress samples");
    if (total < 1) throw invalid_argument("total of " + std::to_string(total) + " iterations, expected at least 1");
    if (done < samples.back().iteration)
        throw invalid_argument("finished iterations " + std::to_string(done) + " are behind the last sample's " +
                               std::to_string(samples.back().iteration));
    if (done > total)
        throw invalid_argument("the job is at iteration " + std::to_string(done) + ", past its total of " +
                               std::to_string(total) + " iterations");

    // Rules 1 and 2.
    std::vector<detail::eta_interval> all;
    eta_estimate e;
    std::size_t in_segment = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const progress_sample& s = samples[i];
        if (!std::isfinite(s.time.value()))
            throw invalid_argument("progress sample " + std::to_string(i) + " has a non-finite time");
        if (i == 0 || s.segment != samples[i - 1].segment) {
            in_segment = 0;
            continue;
        }
        const progress_sample* prev = &samples[i - 1];
        if (s.iteration <= prev->iteration || s.time < prev->time)
            throw invalid_argument("progress sample " + std::to_string(i) + " (iteration " + std::to_string(s.iteration) +
                                   ") is not after the one before it (iteration " + std::to_string(prev->iteration) +
                                   "): iterations must increase and times must not decrease within a segment");
        if (s.time == prev->time) continue;
        // Back to the first sample of the run of equal times before this one.
        std::size_t first = i - 1;
        while (first > 0 && samples[first - 1].segment == s.segment && samples[first - 1].time == prev->time) --first;
        prev = &samples[first];
        if (in_segment++ < opt.warmup) {
            ++e.warmup_dropped;
            continue;
        }
        all.push_back({static_cast<double>(s.iteration - prev->iteration), (s.time - prev->time).value()});
    }
    if (all.size() < 2)
        throw invalid_argument("progress of " + std::to_string(samples.size()) + " samples gives " +
                               std::to_string(all.size()) + " interval(s) after dropping " +
                               std::to_string(e.warmup_dropped) +
                               " of warm-up, expected at least 2 (wait for more progress, or drop less warm-up)");

    // Rules 3 and 4.
    const std::span<const detail::eta_interval> window =
        std::span(all).subspan(all.size() - std::min(all.size(), opt.window));
    std::vector<double> x;
    for (const auto& w : window) x.push_back(w.per_iteration());
    const double m = detail::median(x);
    for (double& v : x) v = std::abs(v - m);
    const double mad = detail::median(x);
    const double limit = std::max(5 * 1.4826 * mad, 0.25 * m);
    std::vector<detail::eta_interval> kept;
    double window_dt = 0, window_n = 0;
    for (const auto& w : window) {
        window_dt += w.dt, window_n += w.iterations;
        if (std::abs(w.per_iteration() - m) <= limit) kept.push_back(w);
    }
    e.intervals = window.size();
    e.outliers = window.size() - kept.size();

    // Rule 5.
    double dt = 0, n = 0;
    for (const auto& k : kept) dt += k.dt, n += k.iterations;
    const double mean = dt / n;  // > 0: equal times make no interval (rule 1)

    // Rule 6. k >= 2: the intervals within one MAD of the median, at least half of the window's >= 2, are kept.
    const std::size_t k = kept.size();
    double ss = 0;
    for (const auto& i : kept) ss += (i.per_iteration() - mean) * (i.per_iteration() - mean);
    const double s = std::sqrt(ss / static_cast<double>(k - 1));
    const double left = static_cast<double>(total - done);
    const double half = detail::t_quantile_975(k - 1) * s * std::sqrt(left * (left + n) / static_cast<double>(k));

    e.done = done;
    e.total = total;
    e.per_iteration = seconds_of(mean);
    e.per_iteration_spread = seconds_of(s);
    e.remaining = seconds_of(left * mean);
    e.remaining_low = seconds_of(std::max(0.0, left * mean - half));
    e.remaining_high = seconds_of(left * mean + half);
    e.remaining_with_pauses = seconds_of(left * window_dt / window_n);
    e.window_iterations = static_cast<std::int64_t>(n);
    for (const seconds& t : {e.per_iteration, e.per_iteration_spread, e.remaining, e.remaining_low, e.remaining_high,
                            e.remaining_with_pauses})
        if (!std::isfinite(t.value()))
            throw invalid_argument("progress times too large for an estimate (the time per iteration, its spread or "
                                   "the time left overflows); expected times a clock could show");
    return e;
}

// The estimate on other hardware: every time scaled by `r` = the model's step time there / here. The band
// stays the measured one, scaled; the model's own error is not in it.
inline eta_estimate retarget(eta_estimate e, ratio r) {
    if (!(std::isfinite(r.value()) && r.value() > 0))
        throw invalid_argument("retargeting ratio is " + std::to_string(r.value()) + ", expected a finite positive number");
    for (seconds* t : {&e.per_iteration, &e.per_iteration_spread, &e.remaining, &e.remaining_low, &e.remaining_high,
                       &e.remaining_with_pauses})
        *t = *t * r;
    return e;
}

}  // namespace steptime
