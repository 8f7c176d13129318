// steptime/io/progress_log.hpp: a running job's progress from its log, for estimate_eta (eta.hpp).
//
// Three formats; `automatic` picks tqdm if a record holds a tqdm bar ("%|"), else Keras if a line is
// "Epoch <k>/<n>", else simple. A file is cut into lines at '\n' and, in the tqdm and Keras formats, a line
// into records at '\r' (progress bars redraw themselves with carriage returns; Keras's backspaces are dropped).
// Errors name the file and line. A record that fails to parse is an error, except the file's last record,
// which a running job may be writing: it is ignored. A log without one timed record is an error.
//
// simple: one progress line per line, `<time> <iteration>[/<total>] [anything]`, fields separated by blanks:
//     2024-05-01T10:00:00Z 100/5000 loss=0.51
//     1714557700.25 200
//   time: Unix seconds (a decimal number) or ISO-8601 `YYYY-MM-DDTHH:MM:SS[.fff][Z|+HH:MM|-HH:MM]` (without a
//   zone taken as UTC; only differences count); iteration: iterations finished; total: iterations in the job
//   (the same on every line that gives it). Iterations must increase and times must not decrease. Blank lines
//   and lines starting with '#' are skipped; every other line must be a progress line. One segment.
//
// tqdm (PyTorch Lightning's TQDMProgressBar, tqdm in a training loop): records holding a bar
//     Epoch 3:  45%|████▌     | 450/1000 [02:15<02:45,  3.33it/s, loss=0.512, v_num=1]
//   i.e. `[<label>: ]<pct>%|<bar>| <n>/<total> [<elapsed><...`; elapsed is tqdm's `mm:ss` or `h:mm:ss` (whole
//   seconds) since the bar started; what follows it (remaining time, rate in it/s or s/it, metrics) is not
//   read. Label `Epoch <k>` or Lightning's `Epoch <k>/<last>` (epochs counted from 0, so a job of last + 1
//   epochs): the job has finished k x total + n iterations, and each epoch is a segment. No label: bars
//   follow one another (a bar whose n goes down is a new one), the job has finished the earlier bars' totals
//   + n, each bar is a segment. Bars with another label (Validation, Sanity Checking, Testing, Predicting)
//   and records without a bar are ignored; a bar with one of the two labels must parse. A record that
//   repeats the last one's n is ignored. The job's total is (last + 1) x total for `Epoch k/last`, the bar's
//   total with one unlabelled bar, else unknown; per_epoch is the bar's total.
//
// Keras (model.fit, verbose 1 or 2; Keras 2 and 3): `Epoch <k>/<n>` lines (k from 1) and progress records
//     450/1000 [=====>........................] - ETA: 2:45 - loss: 0.5100
//     1000/1000 [==============================] - 300s 300ms/step - loss: 0.5100 - val_loss: 0.6000
//   `<i>/<steps>` then anything. A record with i = steps and a time token `<T>s` (the epoch's seconds, as Keras
//   writes it when the epoch ends, validation included) ends the epoch; its optional `<P>s/step`,
//   `<P>ms/step` or `<P>us/step` gives P x steps, and the epoch's time is the finer of the two (Keras rounds
//   both to whole units). Ended epochs are the samples: one segment of consecutive epochs, the time their
//   running sum. Other progress records (mid-epoch, with an ETA) only move the position: (k - 1) x steps + i.
//   Progress records before the first Epoch line or after an epoch's end (evaluate, predict) and other lines
//   are ignored. Every epoch must have the same steps. Total: n x steps; per_epoch: steps.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "steptime/detail/text.hpp"
#include "steptime/error.hpp"
#include "steptime/eta.hpp"
#include "steptime/io/read_file.hpp"

namespace steptime::io {

enum class progress_format { automatic, simple, tqdm, keras };

inline std::string_view to_string(progress_format f) {
    switch (f) {
        case progress_format::automatic: return "automatic";
        case progress_format::simple: return "simple";
        case progress_format::tqdm: return "tqdm";
        case progress_format::keras: return "keras";
    }
    return "?";
}

struct progress_log {
    progress_format format = progress_format::simple;  // the one read (never automatic)
    std::vector<progress_sample> samples{};
    std::int64_t position = 0;                 // iterations finished at the last progress record
    std::optional<std::int64_t> total{};       // iterations in the job, when the log says
    std::optional<std::int64_t> per_epoch{};   // iterations per epoch, when the log says
    std::size_t ignored = 0;                   // records the format's rules skip
};

namespace detail {

using steptime::detail::trim;

// A non-negative decimal integer filling `s`.
inline std::optional<std::int64_t> to_count(std::string_view s) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || s.front() == '-' || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return v;
}

// A finite non-negative decimal number filling `s`, and its number of decimals.
inline std::optional<double> to_number(std::string_view s, int* decimals = nullptr) {
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::fixed);
    if (s.empty() || s.front() == '-' || ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v))
        return std::nullopt;
    if (decimals) {
        const auto dot = s.find('.');
        *decimals = dot == std::string_view::npos ? 0 : static_cast<int>(s.size() - dot - 1);
    }
    return v;
}

// "<a>/<b>" of two counts.
inline std::optional<std::pair<std::int64_t, std::int64_t>> to_fraction(std::string_view s) {
    const auto slash = s.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    const auto a = to_count(s.substr(0, slash)), b = to_count(s.substr(slash + 1));
    if (!a || !b) return std::nullopt;
    return std::pair{*a, *b};
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level Date
// Algorithms", days_from_civil).
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// Seconds since the Unix epoch of `YYYY-MM-DDTHH:MM:SS[.fff][Z|+HH:MM|-HH:MM]`.
inline std::optional<double> iso8601_seconds(std::string_view s) {
    const auto field = [&](std::size_t at, std::size_t len, int lo, int hi) -> std::optional<int> {
        if (s.size() < at + len) return std::nullopt;
        int v = 0;
        for (char c : s.substr(at, len)) {
            if (c < '0' || c > '9') return std::nullopt;
            v = v * 10 + (c - '0');
        }
        return v >= lo && v <= hi ? std::optional<int>(v) : std::nullopt;
    };
    if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':')
        return std::nullopt;
    const auto y = field(0, 4, 0, 9999), mo = field(5, 2, 1, 12), d = field(8, 2, 1, 31), h = field(11, 2, 0, 23),
               mi = field(14, 2, 0, 59), sec = field(17, 2, 0, 60);  // 60: a leap second
    if (!y || !mo || !d || !h || !mi || !sec) return std::nullopt;
    static constexpr int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (*y % 4 == 0 && *y % 100 != 0) || *y % 400 == 0;
    if (*d > month_days[*mo - 1] || (*mo == 2 && *d == 29 && !leap)) return std::nullopt;
    std::size_t at = 19;
    double frac = 0;
    if (at < s.size() && s[at] == '.') {
        const auto end = s.find_first_not_of("0123456789", at + 1);
        const std::size_t stop = end == std::string_view::npos ? s.size() : end;
        if (stop == at + 1) return std::nullopt;
        frac = *to_number(std::string("0") += s.substr(at, stop - at));
        at = stop;
    }
    double offset = 0;
    if (at < s.size() && (s[at] == 'Z' || s[at] == 'z')) ++at;
    else if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
        const auto oh = field(at + 1, 2, 0, 23), om = field(at + 4, 2, 0, 59);
        if (!oh || !om || s[at + 3] != ':') return std::nullopt;
        offset = (s[at] == '+' ? 1 : -1) * (*oh * 3600.0 + *om * 60.0);
        at += 6;
    }
    if (at != s.size()) return std::nullopt;
    const auto days = days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d));
    return static_cast<double>(days) * 86400.0 + *h * 3600.0 + *mi * 60.0 + *sec + frac - offset;
}

// tqdm's elapsed time, `mm:ss` or `h:mm:ss` (tqdm.format_interval), in seconds.
inline std::optional<double> tqdm_seconds(std::string_view s) {
    double t = 0;
    int parts = 0;
    for (std::size_t at = 0;; ++parts) {
        const auto colon = s.find(':', at);
        const auto v = to_count(s.substr(at, colon == std::string_view::npos ? colon : colon - at));
        if (!v || (parts > 0 && *v > 59)) return std::nullopt;
        t = t * 60 + static_cast<double>(*v);
        if (colon == std::string_view::npos) break;
        at = colon + 1;
    }
    return parts == 1 || parts == 2 ? std::optional<double>(t) : std::nullopt;
}

// The records of a line: its pieces between carriage returns, trimmed, Keras's backspaces dropped.
inline std::vector<std::string_view> records(std::string_view line) {
    std::vector<std::string_view> out;
    for (std::size_t at = 0;;) {
        const auto cr = line.find('\r', at);
        std::string_view r = line.substr(at, cr == std::string_view::npos ? cr : cr - at);
        const auto b = r.find_first_not_of('\b'), e = r.find_last_not_of('\b');
        r = b == std::string_view::npos ? std::string_view{} : trim(r.substr(b, e - b + 1));
        if (!r.empty()) out.push_back(r);
        if (cr == std::string_view::npos) return out;
        at = cr + 1;
    }
}

// "Epoch <k>/<n>" or "Epoch <k>" (with `fraction_only`, the first only): k, and n when given.
inline std::optional<std::pair<std::int64_t, std::optional<std::int64_t>>> epoch_label(std::string_view s,
                                                                                      bool fraction_only) {
    if (!s.starts_with("Epoch ")) return std::nullopt;
    s.remove_prefix(6);
    if (const auto f = to_fraction(s)) return std::pair{f->first, std::optional<std::int64_t>(f->second)};
    if (fraction_only) return std::nullopt;
    if (const auto k = to_count(s)) return std::pair{*k, std::optional<std::int64_t>()};
    return std::nullopt;
}

// A numbered line of the file and where errors point.
struct log_line {
    std::string_view text;
    std::size_t number = 0;
    bool last = false;  // the file's last non-blank line
};

inline std::vector<log_line> lines_of(std::string_view text) {
    std::vector<log_line> out;
    for (std::size_t n = 1; !text.empty(); ++n) {
        const auto eol = text.find('\n');
        const std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
        if (!trim(line).empty()) out.push_back({line, n});
    }
    if (!out.empty()) out.back().last = true;
    return out;
}

inline std::string where(const std::string& origin, const log_line& l) {
    return origin + ":" + std::to_string(l.number) + ": ";
}

// a x b + c iterations, from counts on line `l`; an error naming the line when it overflows 64-bit integers.
inline std::int64_t iterations(std::int64_t a, std::int64_t b, std::int64_t c, const std::string& origin, const log_line& l) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r) || __builtin_add_overflow(r, c, &r))
        throw parse_error(where(origin, l) + "the iteration count overflows 64-bit integers");
    return r;
}

inline progress_log parse_simple(const std::vector<log_line>& lines, const std::string& origin) {
    progress_log log{.format = progress_format::simple};
    std::size_t total_line = 0;
    for (const auto& l : lines) {
        const std::string_view t = trim(l.text);
        if (t.starts_with('#')) continue;
        const auto gap = t.find_first_of(" \t");
        const std::string_view time_text = t.substr(0, gap);
        const std::string_view rest = gap == std::string_view::npos ? std::string_view{} : trim(t.substr(gap));
        const std::string_view count_text = rest.substr(0, rest.find_first_of(" \t"));
        auto time = to_number(time_text);
        if (!time) time = iso8601_seconds(time_text);
        const auto fraction = to_fraction(count_text);
        const auto count = fraction ? std::optional<std::int64_t>(fraction->first) : to_count(count_text);
        if (!time || !count) {
            if (l.last) {
                ++log.ignored;
                continue;
            }
            throw parse_error(where(origin, l) + "expected '<time> <iteration>[/<total>]' (time: Unix seconds or "
                                                 "ISO-8601 such as 2024-05-01T10:00:00Z), found '" + std::string(t) + "'");
        }
        if (fraction) {
            if (fraction->second < 1 || fraction->first > fraction->second)
                throw parse_error(where(origin, l) + "iteration " + std::to_string(fraction->first) + " of a total of " +
                                  std::to_string(fraction->second) + ": expected 0 <= iteration <= total, total >= 1");
            if (log.total && *log.total != fraction->second)
                throw parse_error(where(origin, l) + "total of " + std::to_string(fraction->second) +
                                  " iterations, line " + std::to_string(total_line) + " said " +
                                  std::to_string(*log.total));
            log.total = fraction->second;
            total_line = l.number;
        }
        if (!log.samples.empty()) {
            const progress_sample& prev = log.samples.back();
            if (*count <= prev.iteration || *time < prev.time.value())
                throw parse_error(where(origin, l) + "iteration " + std::to_string(*count) + " at " + std::string(time_text) +
                                  " is not after the line before (iteration " + std::to_string(prev.iteration) +
                                  "): iterations must increase and times must not decrease");
        }
        log.samples.push_back({*count, seconds_of(*time), 0});
        log.position = *count;
    }
    return log;
}

inline progress_log parse_tqdm(const std::vector<log_line>& lines, const std::string& origin) {
    struct bar {
        std::optional<std::int64_t> epoch, last_epoch;
        std::int64_t n = 0, total = 0;
        double elapsed = 0;
        const log_line* line = nullptr;
    };
    std::vector<bar> bars;
    std::size_t ignored = 0;
    for (const auto& l : lines) {
        const auto rs = records(l.text);
        for (std::size_t i = 0; i < rs.size(); ++i) {
            const std::string_view r = rs[i];
            const auto pct = r.find("%|");
            if (pct == std::string_view::npos) {
                ++ignored;
                continue;
            }
            // The label: what precedes the percentage, its colon dropped.
            const auto label_end = pct == 0 ? std::string_view::npos : r.find_last_not_of("0123456789. ", pct - 1);
            std::string_view label = label_end == std::string_view::npos ? std::string_view{} : r.substr(0, label_end + 1);
            if (label.ends_with(':')) label = trim(label.substr(0, label.size() - 1));
            const auto epoch = epoch_label(label, false);
            if (!label.empty() && !epoch) {
                ++ignored;
                continue;
            }
            const auto bar_end = r.find('|', pct + 2);
            const std::string_view after = bar_end == std::string_view::npos ? std::string_view{} : trim(r.substr(bar_end + 1));
            const auto space = after.find(" [");
            const auto fraction = to_fraction(after.substr(0, space));
            std::optional<double> elapsed;
            if (space != std::string_view::npos) {
                const std::string_view times = after.substr(space + 2);
                elapsed = tqdm_seconds(times.substr(0, times.find_first_of("<,]")));
            }
            const bool bad_epoch = epoch && epoch->second && epoch->first > *epoch->second;
            if (!fraction || !elapsed || fraction->second < 1 || fraction->first > fraction->second || bad_epoch) {
                if (l.last && i + 1 == rs.size()) {
                    ++ignored;
                    continue;
                }
                throw parse_error(where(origin, l) + "expected a tqdm bar '[Epoch <k>[/<last>]: ]<pct>%|<bar>| "
                                                     "<n>/<total> [<mm:ss or h:mm:ss>...' with n <= total and k <= last, "
                                                     "found '" + std::string(r) + "'");
            }
            bars.push_back({epoch ? std::optional(epoch->first) : std::nullopt, epoch ? epoch->second : std::nullopt,
                            fraction->first, fraction->second, *elapsed, &l});
        }
    }
    // With epoch bars in the log, unlabelled ones are something else.
    const bool epochs = std::ranges::any_of(bars, [](const bar& b) { return b.epoch.has_value(); });
    progress_log log{.format = progress_format::tqdm, .ignored = ignored};
    std::int64_t offset = 0;
    int segment = -1;
    const bar* prev = nullptr;
    for (const bar& b : bars) {
        if (epochs != b.epoch.has_value()) {
            ++log.ignored;
            continue;
        }
        const bool same = prev && prev->epoch == b.epoch && b.n >= prev->n && b.elapsed >= prev->elapsed;
        if (same && b.n == prev->n) {  // a redraw
            ++log.ignored;
            continue;
        }
        if (!same) {
            ++segment;
            if (!epochs && prev) offset = iterations(1, offset, prev->total, origin, *b.line);
        }
        const std::int64_t at = iterations(epochs ? *b.epoch : 1, epochs ? b.total : offset, b.n, origin, *b.line);
        log.samples.push_back({at, seconds_of(b.elapsed), segment});
        log.position = at;
        log.per_epoch = b.total;
        if (b.last_epoch) log.total = iterations(*b.last_epoch, b.total, b.total, origin, *b.line);
        prev = &b;
    }
    if (!epochs && segment == 0) log.total = prev->total;
    return log;
}

// The finer of two roundings of one time: `a` and `b` seconds, each written with `a_dec`, `b_dec` decimals in
// units of `a_unit`, `b_unit` seconds; the finer has the smaller rounding step relative to its value. `a` is
// finite; `b`, a product, is taken only where it agrees with `a` within their two rounding steps (a product
// that overflowed, or a record whose two times contradict each other, leaves `a`).
inline double finer(double a, int a_dec, double a_unit, double b, int b_dec, double b_unit) {
    const double step_a = std::pow(10.0, -a_dec) * a_unit, step_b = std::pow(10.0, -b_dec) * b_unit;
    const bool agree = std::abs(a - b) <= step_a + step_b;  // false where b is not finite
    return agree && step_b / b < step_a / a ? b : a;
}

inline progress_log parse_keras(const std::vector<log_line>& lines, const std::string& origin) {
    progress_log log{.format = progress_format::keras};
    std::optional<std::int64_t> epoch, epochs, steps;
    const log_line* epoch_line = nullptr;  // the last Epoch line
    std::int64_t ended = -1;  // the epoch whose end was read last
    bool epoch_over = false;
    double clock = 0;
    int segment = -1;
    for (const auto& l : lines) {
        const auto rs = records(l.text);
        for (std::size_t i = 0; i < rs.size(); ++i) {
            const std::string_view r = rs[i];
            const bool last = l.last && i + 1 == rs.size();
            if (const auto e = epoch_label(r, true)) {
                if (e->first < 1 || e->first > *e->second) {
                    if (last) {
                        ++log.ignored;
                        continue;
                    }
                    throw parse_error(where(origin, l) + "'" + std::string(r) + "': expected 'Epoch <k>/<n>' with 1 <= k <= n");
                }
                epoch = e->first;
                epochs = e->second;
                epoch_line = &l;
                epoch_over = false;
                continue;
            }
            const auto head = r.substr(0, r.find_first_of(" \t"));
            const auto fraction = to_fraction(head);
            if (!fraction || !epoch || epoch_over) {
                ++log.ignored;
                continue;
            }
            const auto [done, of] = *fraction;
            if (of < 1 || done > of || (steps && *steps != of)) {
                if (last) {
                    ++log.ignored;
                    continue;
                }
                throw parse_error(where(origin, l) + "'" + std::string(head) + "': expected <step>/<steps> with step <= steps" +
                                  (steps ? " and " + std::to_string(*steps) + " steps per epoch, as in the epochs before"
                                         : std::string()));
            }
            steps = of;
            log.position = iterations(*epoch - 1, of, done, origin, l);
            // The end of the epoch: its seconds, `<T>s`, and the optional `<P>ms/step` (or s/step, us/step).
            std::optional<double> epoch_s, step_s;
            int epoch_dec = 0, step_dec = 0;
            double step_unit = 1;
            if (done == of) {
                std::string_view rest = r.substr(head.size());
                bool after_eta = false;
                while (!(rest = trim(rest)).empty()) {
                    const std::string_view token = rest.substr(0, rest.find_first_of(" \t"));
                    rest.remove_prefix(token.size());
                    if (token == "ETA:") after_eta = true;
                    else if (!epoch_s && !after_eta && token.ends_with('s') && !token.ends_with("/s"))
                        epoch_s = to_number(token.substr(0, token.size() - 1), &epoch_dec);
                    else if (!step_s && token.ends_with("/step")) {
                        const std::string_view v = token.substr(0, token.size() - 5);
                        static constexpr std::pair<std::string_view, double> units[] = {{"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
                        for (const auto& [suffix, unit] : units)
                            if (v.ends_with(suffix)) {
                                step_s = to_number(v.substr(0, v.size() - suffix.size()), &step_dec);
                                step_unit = unit;
                                break;
                            }
                    }
                    if (token != "ETA:" && token != "-") after_eta = false;
                }
            }
            if (!epoch_s) continue;  // mid-epoch: the position only
            const double took = step_s ? finer(*epoch_s, epoch_dec, 1.0, *step_s * step_unit * static_cast<double>(of),
                                               step_dec, step_unit * static_cast<double>(of))
                                       : *epoch_s;
            if (ended != *epoch - 1) {  // not right after the last ended epoch: a new clock
                ++segment;
                clock = 0;
                log.samples.push_back({iterations(*epoch - 1, of, 0, origin, l), seconds_of(0), segment});
            }
            clock += took;
            if (!std::isfinite(clock))
                throw parse_error(where(origin, l) + "'" + std::string(r) + "': the epochs' seconds add up to more than " +
                                  "a double holds");
            log.samples.push_back({log.position, seconds_of(clock), segment});  // done = of: the epoch's end
            ended = *epoch;
            epoch_over = true;
        }
    }
    if (steps) {
        log.per_epoch = steps;
        if (epochs) log.total = iterations(*epochs, *steps, 0, origin, *epoch_line);
    }
    return log;
}

}  // namespace detail

// The progress in `text`; errors name `origin` and the line.
inline progress_log parse_progress_log(std::string_view text, const std::string& origin = "<progress log>",
                                       progress_format format = progress_format::automatic) {
    const auto lines = detail::lines_of(text);
    if (format == progress_format::automatic) {
        format = progress_format::simple;
        for (const auto& l : lines)
            for (const auto r : detail::records(l.text)) {
                if (r.find("%|") != std::string_view::npos) format = progress_format::tqdm;
                else if (format == progress_format::simple && detail::epoch_label(r, true)) format = progress_format::keras;
            }
    }
    progress_log log = format == progress_format::tqdm    ? detail::parse_tqdm(lines, origin)
                       : format == progress_format::keras ? detail::parse_keras(lines, origin)
                                                          : detail::parse_simple(lines, origin);
    if (log.samples.empty())
        throw parse_error(origin + ": no timed progress in the " + std::string(to_string(format)) + " format" +
                          (format == progress_format::simple ? " (lines '<time> <iteration>[/<total>]')"
                           : format == progress_format::tqdm ? " (tqdm bars '[Epoch <k>: ]<pct>%|...| <n>/<total> [<elapsed>...')"
                                                             : " (an epoch that ended: '<steps>/<steps> ... - <T>s ...')"));
    return log;
}

inline progress_log load_progress_log(const std::filesystem::path& path, progress_format format = progress_format::automatic) {
    return parse_progress_log(read_file(path), path.string(), format);
}

}  // namespace steptime::io
