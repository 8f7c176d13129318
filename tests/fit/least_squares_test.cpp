// Least squares and error metrics (fit/least_squares.hpp): exact recovery, badly scaled regressors,
// rank checks, and the signed relative errors of seed 002 eq. (1).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include <steptime/fit/least_squares.hpp>

using namespace steptime;
using namespace steptime::fit;

TEST_CASE("least squares: an exact linear relation is recovered to rounding") {
    // y = 2 + 3 x - 0.5 z on five points (arbitrary coefficients).
    Eigen::MatrixXd x(5, 3);
    Eigen::VectorXd y(5);
    const double xs[] = {0, 1, 2, 3, 4}, zs[] = {1, -1, 4, 0, 2};
    for (int k = 0; k < 5; ++k) {
        x.row(k) << 1, xs[k], zs[k];
        y[k] = 2 + 3 * xs[k] - 0.5 * zs[k];
    }
    const Eigen::VectorXd beta = least_squares(x, y);
    CHECK(std::abs(beta[0] - 2) < 1e-12);
    CHECK(std::abs(beta[1] - 3) < 1e-12);
    CHECK(std::abs(beta[2] + 0.5) < 1e-12);
}

TEST_CASE("least squares: complexities of 1e10 beside an intercept (per-layer scale)") {
    // seed 000's Conv/FC forward line: beta0 = 1.83e-1 ms, beta1 = 3.43e-10 ms/op, in seconds, over
    // complexities from 1e6 to 1e10 operations (a conv layer at batch 1 to 128).
    const double b0 = 1.83e-4, b1 = 3.43e-13;
    Eigen::MatrixXd x(5, 2);
    Eigen::VectorXd y(5);
    const double cs[] = {1e6, 1e7, 1e8, 1e9, 1e10};
    for (int k = 0; k < 5; ++k) {
        x.row(k) << 1, cs[k];
        y[k] = b0 + b1 * cs[k];
    }
    const Eigen::VectorXd beta = least_squares(x, y);
    CHECK(std::abs(beta[0] / b0 - 1) < 1e-9);
    CHECK(std::abs(beta[1] / b1 - 1) < 1e-9);
}

TEST_CASE("least squares: measurements that do not determine the coefficients are refused") {
    Eigen::MatrixXd x(3, 2);
    x << 1, 5, 1, 5, 1, 5;  // one distinct regressor value: intercept and slope confounded
    const Eigen::VectorXd y = Eigen::Vector3d(1, 2, 3);
    CHECK_THROWS_WITH_AS(least_squares(x, y, "fit"), doctest::Contains("determine only 1 of 2"), invalid_argument);
    CHECK_THROWS_AS(least_squares(Eigen::MatrixXd::Ones(1, 2), Eigen::VectorXd::Ones(1)), invalid_argument);  // 1 < 2
    CHECK_THROWS_AS(least_squares(Eigen::MatrixXd::Zero(3, 1), y), invalid_argument);                      // zero column
    CHECK_THROWS_AS(least_squares(Eigen::MatrixXd::Ones(2, 1), y), invalid_argument);                       // 2 rows, 3 values
    Eigen::MatrixXd bad = Eigen::MatrixXd::Ones(3, 1);
    bad(1, 0) = std::nan("");
    CHECK_THROWS_AS(least_squares(bad, y), invalid_argument);
}

TEST_CASE("relative errors: signed as seed 002 eq. (1), MAPE and the worst") {
    // Hand-computed: (110 - 100) / 100 = 0.1, (95 - 100) / 100 = -0.05, (50 - 50) / 50 = 0.
    const std::vector<double> predicted{110, 95, 50}, measured{100, 100, 50};
    const auto e = relative_errors(predicted, measured);
    REQUIRE(e.signed_relative.size() == 3);
    CHECK(std::abs(e.signed_relative[0] - 0.1) < 1e-15);
    CHECK(std::abs(e.signed_relative[1] + 0.05) < 1e-15);  // negative: a conservative (low) prediction
    CHECK(e.signed_relative[2] == 0);
    CHECK(std::abs(e.mape - 0.05) < 1e-15);  // (0.1 + 0.05 + 0) / 3
    CHECK(std::abs(e.max_error - 0.1) < 1e-15);
    CHECK_THROWS_AS(relative_errors(predicted, std::vector<double>{1, 2}), invalid_argument);
    CHECK_THROWS_AS(relative_errors(std::vector<double>{1}, std::vector<double>{0}), invalid_argument);
    CHECK_THROWS_AS(relative_errors(std::vector<double>{}, std::vector<double>{}), invalid_argument);
}
