// steptime/fit/end_to_end.hpp: the end-to-end model of Gianniti, Zhang, Ardagna (CLOSER 2019, seed 002
// section 3): a whole run's time T(b, i) = a*i*b + b1*i + c*b + d in the batch size b and the iteration
// count i (Theorem 3.1: affine in each variable separately), fitted by least squares to measured runs of
// one network on one deployment. Training and inference are two separate models (section 3: testing
// has no back-propagation), i.e. two instances fitted to their own runs. Section 4.3, Table 4: the
// extrapolation protocol trains on small runs (b <= b~, i <= i~) and tests on the others.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "steptime/detail/csv.hpp"
#include "steptime/fit/least_squares.hpp"
#include "steptime/units.hpp"

namespace steptime::fit {

// One measured run: batch size, iterations, and the time they took.
struct run {
    double batch = 0;
    double iterations = 0;
    seconds time{};
};

struct end_to_end_model {
    seconds a{};   // per sample and iteration (i*b samples processed)
    seconds b1{};  // per iteration
    seconds c{};   // per unit of batch size, once
    seconds d{};   // once (start-up)

    // seed 002 section 3: T(b, i) = a*i*b + b1*i + c*b + d.
    seconds predict(double batch, double iterations) const {
        return a * iterations * batch + b1 * iterations + c * batch + d;
    }
};

// Least squares over the runs' design matrix [i*b, i, b, 1] (seed 002 section 3). Throws
// invalid_argument when the runs do not determine the four coefficients (at least two batch sizes and
// two iteration counts, in four runs or more).
inline end_to_end_model fit_end_to_end(std::span<const run> runs) {
    const auto n = static_cast<Eigen::Index>(runs.size());
    Eigen::MatrixXd x(n, 4);
    Eigen::VectorXd y(n);
    for (Eigen::Index k = 0; k < n; ++k) {
        const auto& r = runs[static_cast<std::size_t>(k)];
        x.row(k) << r.iterations * r.batch, r.iterations, r.batch, 1;
        y[k] = r.time.value();
    }
    const Eigen::VectorXd beta = least_squares(x, y, "end-to-end fit");
    return {seconds_of(beta[0]), seconds_of(beta[1]), seconds_of(beta[2]), seconds_of(beta[3])};
}

// Signed relative errors, MAPE and the worst error of the model's predictions of the runs (seed 002 eq. (1)).
inline error_metrics evaluate(const end_to_end_model& m, std::span<const run> runs) {
    std::vector<double> predicted, measured;
    for (const auto& r : runs) {
        predicted.push_back(m.predict(r.batch, r.iterations).value());
        measured.push_back(r.time.value());
    }
    return relative_errors(predicted, measured);
}

struct split_runs {
    std::vector<run> train{};  // b <= b~ and i <= i~
    std::vector<run> test{};   // the others
};

// seed 002 section 4.3: the training set {(b, i) : b <= b~, i <= i~}, the rest for testing. (Table 4 tests
// every row on the runs outside its largest training set, b~ = 32, i~ = 200: take that split's `test`.)
inline split_runs extrapolation_split(std::span<const run> runs, double max_batch, double max_iterations) {
    split_runs s;
    for (const auto& r : runs)
        (r.batch <= max_batch && r.iterations <= max_iterations ? s.train : s.test).push_back(r);
    return s;
}

// Measured runs from a CSV with the columns batch,iterations,time_s (other columns are ignored), one run
// a line. Errors are parse_error "origin:line: column 'name': ...".
inline std::vector<run> parse_runs(std::string_view text, const std::string& origin = "<runs>") {
    const steptime::detail::csv_table t(text, origin);
    constexpr std::string_view format = "the columns batch,iterations,time_s";
    const std::size_t batch = t.column("batch", format), iterations = t.column("iterations", format),
                      time = t.column("time_s", format);
    std::vector<run> out;
    for (std::size_t r = 0; r < t.rows(); ++r)
        out.push_back({t.positive(r, batch, "a positive batch size"),
                       t.positive(r, iterations, "a positive number of iterations"),
                       seconds_of(t.positive(r, time, "a positive time in seconds"))});
    return out;
}

}  // namespace steptime::fit
