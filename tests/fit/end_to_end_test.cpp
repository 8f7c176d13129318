// End-to-end regression (fit/end_to_end.hpp; Gianniti, Zhang, Ardagna, CLOSER 2019 = seed 002): recovery of
// planted coefficients from noisy synthetic runs, the extrapolation finding of section 4.3 / Table 4, and
// the split protocol's sample sizes.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "support/gaussian.hpp"

#include <steptime/fit/end_to_end.hpp>

using namespace steptime;
using namespace steptime::fit;

namespace {

using test_support::gaussian;

// seed 002 section 4.3: the P100 campaign's batch sizes B and iteration counts I (their product: 160 runs).
constexpr double batches[] = {8, 16, 24, 32, 40, 48, 56, 64};
constexpr double iteration_counts[] = {100, 120, 150, 170, 200, 230, 250, 300, 350, 400,
                                       500, 700, 800, 950, 1000, 1100, 1400, 1600, 2000, 2300};

// Planted training-run coefficients, of the orders seed 002 section 4.3 reports for AlexNet's 6-run
// model (beta_ib ~ 1e-3 s; beta_i and beta_b ~ 1e-2 s). The start-up d is not reported: 3 s is assumed.
const end_to_end_model training_truth{seconds_of(1e-3), seconds_of(1e-2), seconds_of(1e-2), seconds_of(3)};

// The grid's runs, each time multiplied by (1 + sigma * N(0, 1)): run-to-run measurement noise.
std::vector<run> grid_runs(const end_to_end_model& truth, double sigma, std::uint64_t seed) {
    gaussian noise(seed);
    std::vector<run> runs;
    for (double b : batches)
        for (double i : iteration_counts)
            runs.push_back({b, i, truth.predict(b, i) * (1 + sigma * noise())});
    return runs;
}

// Relative difference (doctest's Approx adds an absolute scale of 1, too loose for 1e-3 s).
double rel(double x, double truth) { return std::abs(x / truth - 1); }

}  // namespace

TEST_CASE("end-to-end: noise-free runs give back the planted coefficients") {
    const auto m = fit_end_to_end(grid_runs(training_truth, 0, 1));
    CHECK(rel(m.a.value(), 1e-3) < 1e-9);
    CHECK(rel(m.b1.value(), 1e-2) < 1e-9);
    CHECK(rel(m.c.value(), 1e-2) < 1e-9);
    CHECK(rel(m.d.value(), 3) < 1e-9);
    // T(64, 2300) = 1e-3*2300*64 + 1e-2*2300 + 1e-2*64 + 3 = 147.2 + 23 + 0.64 + 3 = 173.84 s.
    CHECK(rel(m.predict(64, 2300).value(), 173.84) < 1e-9);
}

TEST_CASE("end-to-end: 1.5% noise over the 160-run grid, the fitted surface within the noise") {
    // 1.5%: the middle of the 1-2% measurement noise the model is asked to tolerate (issue 4).
    const double sigma = 0.015;
    const auto runs = grid_runs(training_truth, sigma, 42);
    const auto m = fit_end_to_end(runs);
    // Each coefficient is recovered as well as its term stands out of the noise. Over 500 draws of this
    // design the estimates scatter by (relative standard deviation) a 0.9%, b1 2.5%, d 4%, c 42%: the
    // per-batch-unit term c*b (at most 0.64 s) is below one sigma of a long run (2.6 s), so c is not
    // checked; the others within 3.5 standard deviations.
    CHECK(rel(m.a.value(), 1e-3) < 0.03);
    CHECK(rel(m.b1.value(), 1e-2) < 0.09);
    CHECK(rel(m.d.value(), 3) < 0.14);
    // Over the grid, the fitted surface departs from the true one by less than the noise on average;
    // least squares weighs absolute errors, so the shortest runs (5 s beside 174 s) are fitted least well.
    double mean = 0, worst = 0;
    for (const auto& r : runs) {
        const double e = rel(m.predict(r.batch, r.iterations).value(), training_truth.predict(r.batch, r.iterations).value());
        mean += e / static_cast<double>(runs.size());
        worst = std::max(worst, e);
    }
    CHECK(mean < sigma);
    CHECK(worst < 3 * sigma);
    // ... and against the noisy measurements the MAPE is the noise's mean absolute value, sigma*sqrt(2/pi) = 1.2%.
    const auto e = evaluate(m, runs);
    CHECK(rel(e.mape, sigma * std::sqrt(2 / std::numbers::pi)) < 0.2);
    CHECK(e.signed_relative.size() == 160);
    CHECK(e.max_error < 4 * sigma);
}

TEST_CASE("end-to-end: training and inference are two models, fitted to their own runs") {
    // seed 002 section 3: testing has no back-propagation, so it gets a model of its own. Inference's
    // per-image cost is a third of training's (the backward pass does about twice the forward's work:
    // seed 002 Table 2's complexity is forward + backward with backward ~ 2x forward); the other terms as above.
    const end_to_end_model inference_truth{seconds_of(1e-3 / 3), seconds_of(1e-2), seconds_of(1e-2), seconds_of(3)};
    const auto training = fit_end_to_end(grid_runs(training_truth, 0.015, 7));
    const auto inference = fit_end_to_end(grid_runs(inference_truth, 0.015, 8));
    CHECK(rel(training.a.value(), 1e-3) < 0.03);  // 3.5 standard deviations, as above
    CHECK(rel(inference.a.value(), 1e-3 / 3) < 0.05);
    CHECK(inference.predict(64, 2300) < training.predict(64, 2300));
}

TEST_CASE("end-to-end: Table 4's protocol: training sets of 6, 12 and 20 runs, one test set of 140") {
    const auto runs = grid_runs(training_truth, 0, 1);
    // seed 002 Table 4: (b~, i~) = (16, 150), (24, 170), (32, 200) give n_train = 6, 12, 20; n_test = 140.
    CHECK(extrapolation_split(runs, 16, 150).train.size() == 6);
    CHECK(extrapolation_split(runs, 24, 170).train.size() == 12);
    const auto largest = extrapolation_split(runs, 32, 200);
    CHECK(largest.train.size() == 20);
    CHECK(largest.test.size() == 140);
    for (const auto& r : largest.test) CHECK((r.batch > 32 || r.iterations > 200));
}

namespace {

// Test MAPE of a model fitted on `train_of(runs)`, tested on the runs outside b <= test_b, i <= test_i,
// averaged over `seeds` noisy draws; also the worst draw.
struct extrapolation {
    double mean = 0, worst = 0;
};
template <class Train>
extrapolation extrapolate(double sigma, int seeds, Train train_of, double test_b = 32, double test_i = 200) {
    extrapolation x;
    for (int s = 0; s < seeds; ++s) {
        const auto runs = grid_runs(training_truth, sigma, static_cast<std::uint64_t>(s));
        const auto test = extrapolation_split(runs, test_b, test_i).test;
        const auto mape = evaluate(fit_end_to_end(train_of(runs)), test).mape;
        x.mean += mape / seeds;
        x.worst = std::max(x.worst, mape);
    }
    return x;
}

}  // namespace

TEST_CASE("end-to-end: seed 002's finding: 6 small runs, test MAPE under 5% extrapolating to larger ones") {
    // seed 002 Table 4 row 1 (AlexNet: 6 training runs, test MAPE 3.18%) and section 1 ("small scale
    // experiments are enough to extrapolate"). Six runs at b in {8, 32} and i in {100, 200, 400}, in the
    // lower corner of the paper's grid; tested on the 120 grid runs outside b <= 32, i <= 400, up to b = 64
    // and i = 2300 (2x the largest training batch, 5.75x the largest iteration count), with 1.5% run noise.
    const auto six_runs = [](const std::vector<run>& runs) {
        std::vector<run> t;
        for (const auto& r : runs)
            if ((r.batch == 8 || r.batch == 32) && (r.iterations == 100 || r.iterations == 200 || r.iterations == 400))
                t.push_back(r);
        return t;
    };
    const auto x = extrapolate(0.015, 20, six_runs, 32, 400);
    CHECK(x.mean < 0.05);
    CHECK(x.worst < 0.05);
    // With 2% noise (the top of the 1-2% range) the average still holds.
    CHECK(extrapolate(0.02, 20, six_runs, 32, 400).mean < 0.05);
}

TEST_CASE("end-to-end: Table 4's own training sets and the noise they tolerate") {
    // Table 4's row-1 training set (b <= 16, i <= 150) spans i*b from 800 to 2400 only: the interaction a
    // is the contrast of 2 x 3 runs, known to about sigma * T / 201 (the root of sum (b - mean)^2 (i - mean)^2
    // over the six runs), an error multiplied some 60-fold at b = 64, i = 2300. So 1.5% run noise gives a
    // test MAPE near 11%; the paper's 3.18% implies runs repeatable to a few tenths of a percent.
    const auto small = [](double b, double i) {
        return [=](const std::vector<run>& r) { return extrapolation_split(r, b, i).train; };
    };
    CHECK(extrapolate(0.0025, 20, small(16, 150)).mean < 0.05);  // 0.25% noise
    CHECK(extrapolate(0.015, 20, small(16, 150)).mean > 0.05);   // 1.5%: the 6-run grid is too narrow
    // Rows 2 and 3 (12 and 20 runs) extrapolate under 5% with 1.5% noise (Table 4: 6.43% and 3.01% for AlexNet).
    CHECK(extrapolate(0.015, 20, small(24, 170)).mean < 0.05);
    CHECK(extrapolate(0.015, 20, small(32, 200)).mean < 0.05);
}

TEST_CASE("end-to-end: runs that do not determine the four coefficients are refused") {
    std::vector<run> one_batch;
    for (double i : {100.0, 200.0, 300.0, 400.0, 500.0}) one_batch.push_back({16, i, seconds_of(i)});
    CHECK_THROWS_AS(fit_end_to_end(one_batch), invalid_argument);  // c and d confounded: b is constant
    const std::vector<run> three{{8, 100, seconds_of(1)}, {16, 100, seconds_of(2)}, {8, 200, seconds_of(3)}};
    CHECK_THROWS_AS(fit_end_to_end(three), invalid_argument);  // 3 runs, 4 coefficients
    CHECK_THROWS_AS(evaluate(end_to_end_model{}, std::vector<run>{}), invalid_argument);
}
