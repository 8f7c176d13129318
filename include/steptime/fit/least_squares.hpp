// steptime/fit/least_squares.hpp: ordinary least squares (Eigen's column-pivoting Householder QR) and the
// accuracy metrics of Gianniti, Zhang, Ardagna (CLOSER 2019, seed 002 section 4.1): signed relative
// errors, their mean absolute value (MAPE) and the worst of them.
// fit/ is the only part of steptime that includes Eigen (as graph/ is for Boost.Graph); it is opt-in,
// outside the umbrella header steptime/steptime.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "steptime/error.hpp"

namespace steptime::fit {

// The coefficients beta minimizing ||X beta - y||_2. Each column is scaled to unit norm before the QR
// (complexities of 1e9 operations sit beside an intercept column of ones) and the coefficients are
// scaled back. Throws invalid_argument, prefixed by `what`, when the rows do not determine the
// coefficients: non-finite values, fewer rows than columns, or linearly dependent columns.
inline Eigen::VectorXd least_squares(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                     const std::string& what = "least squares") {
    if (x.rows() != y.size())
        throw invalid_argument(what + ": " + std::to_string(x.rows()) + " rows but " + std::to_string(y.size()) +
                               " measurements");
    if (!x.allFinite() || !y.allFinite()) throw invalid_argument(what + ": a value is not finite");
    if (x.rows() < x.cols())
        throw invalid_argument(what + ": " + std::to_string(x.rows()) + " measurements cannot determine " +
                               std::to_string(x.cols()) + " coefficients");
    const Eigen::VectorXd norms = x.colwise().norm().transpose();
    if ((norms.array() == 0).any()) throw invalid_argument(what + ": a regressor is zero in every measurement");
    const Eigen::MatrixXd scaled = x * norms.cwiseInverse().asDiagonal();
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(scaled);
    if (qr.rank() < x.cols())
        throw invalid_argument(what + ": the measurements determine only " + std::to_string(qr.rank()) + " of " +
                               std::to_string(x.cols()) +
                               " coefficients (vary each regressor independently of the others)");
    return qr.solve(y).cwiseQuotient(norms);
}

// Accuracy of predictions against measurements.
struct error_metrics {
    std::vector<double> signed_relative{};  // (predicted - measured) / measured, seed 002 eq. (1): negative = under
    double mape = 0;       // mean of |signed_relative|, a fraction (0.03 is 3%) (seed 002 section 4.1)
    double max_error = 0;  // largest |signed_relative|
};

// Throws invalid_argument unless both have the same, non-zero length and every measurement is positive.
inline error_metrics relative_errors(std::span<const double> predicted, std::span<const double> measured) {
    if (predicted.size() != measured.size() || measured.empty())
        throw invalid_argument("relative errors: " + std::to_string(predicted.size()) + " predictions for " +
                               std::to_string(measured.size()) + " measurements, expected as many and at least one");
    error_metrics m;
    m.signed_relative.reserve(measured.size());
    for (std::size_t k = 0; k < measured.size(); ++k) {
        if (!(measured[k] > 0 && std::isfinite(measured[k])))
            throw invalid_argument("relative errors: measurement " + std::to_string(k) + " is " +
                                   std::to_string(measured[k]) + ", expected a finite positive time");
        const double e = (predicted[k] - measured[k]) / measured[k];  // seed 002 eq. (1)
        m.signed_relative.push_back(e);
        m.mape += std::abs(e);
        m.max_error = std::max(m.max_error, std::abs(e));
    }
    m.mape /= static_cast<double>(measured.size());
    return m;
}

}  // namespace steptime::fit
