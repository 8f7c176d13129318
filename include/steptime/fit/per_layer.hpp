// steptime/fit/per_layer.hpp: the per-layer regression of Gianniti, Zhang, Ardagna (SBAC-PAD 2018; seed 000,
// "Per Layer Models"): t_l = beta0 + beta1 * c_l, one line per layer category and direction, c_l the
// layer's seed 000 complexity (fit/complexity.hpp) for the whole batch; a network's time is
// I * sum_l t_l. Fitted from measured per-layer times (a CSV, below), or the published coefficients
// (GoogLeNet on a Quadro M6000). It is a CostModel, so estimate() takes it like any other model.
//
// The CSV: a header `category,phase,complexity,time_s`, then one measured layer time a line:
//   category    conv_fc, norm, pool_stride1, pool_strided, relu_dropout or loss (see category_of)
//   phase       forward or backward (both gradients together)
//   complexity  the layer's seed 000 complexity for the measured batch (operations; see sample_of)
//   time_s      the measured time, seconds
// Blank lines are skipped; no quoting. Errors name the origin, the line and the column.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "steptime/detail/csv.hpp"
#include "steptime/cost/layer_time.hpp"
#include "steptime/fit/complexity.hpp"
#include "steptime/fit/least_squares.hpp"

namespace steptime::fit {

// Seed 000's regression categories ("Linear Regression Coefficients" rows; pooling split by stride
// after "large errors with only one model for pooling layers"), plus Loss, a row of its complexity table.
enum class category { conv_fc, norm, pool_stride1, pool_strided, relu_dropout, loss };
inline constexpr std::size_t category_count = 6;

constexpr std::string_view to_string(category c) {
    switch (c) {
        case category::conv_fc: return "conv_fc";
        case category::norm: return "norm";
        case category::pool_stride1: return "pool_stride1";
        case category::pool_strided: return "pool_strided";
        case category::relu_dropout: return "relu_dropout";
        case category::loss: return "loss";
    }
    return "conv_fc";
}

inline std::optional<category> parse_category(std::string_view s) {
    for (std::size_t k = 0; k < category_count; ++k)
        if (s == to_string(static_cast<category>(k))) return static_cast<category>(k);
    return std::nullopt;
}

// The category of a layer; none for the layers seed 000's table does not cover.
inline std::optional<category> category_of(const layer_complexity& l) {
    switch (l.kind) {
        case layer_kind::conv:
        case layer_kind::fc: return category::conv_fc;
        case layer_kind::norm: return category::norm;
        case layer_kind::pool: return l.stride > 1 ? category::pool_strided : category::pool_stride1;
        case layer_kind::relu:
        case layer_kind::dropout: return category::relu_dropout;
        case layer_kind::loss: return category::loss;
        case layer_kind::none: return std::nullopt;
    }
    return std::nullopt;
}

// t = beta0 + beta1 * c (seed 000, "Per Layer Models": t_l = beta0_l + beta1_l c_l + eps_l).
struct regression_line {
    seconds beta0{};
    seconds beta1{};          // per operation
    std::size_t samples = 0;  // measurements fitted (0: published coefficients)
    double mape = 0;          // on those measurements, a fraction
    seconds at(double complexity) const { return beta0 + beta1 * complexity; }
};

// One measured layer time (a row of the CSV).
struct layer_sample {
    category cat = category::conv_fc;
    pass direction = pass::forward;  // forward or backward
    double complexity = 0;
    seconds time{};
};

struct per_layer_model {
    static constexpr std::string_view name = "per-layer";
    std::string calibration = "fitted";  // where the coefficients come from
    std::array<std::optional<regression_line>, 2 * category_count> lines{};  // [category][forward, backward]

    std::optional<regression_line>& line(category c, pass p) { return lines[index(c, p)]; }
    const std::optional<regression_line>& line(category c, pass p) const { return lines[index(c, p)]; }

    void validate() const {
        for (const auto& l : lines)
            if (l && !(std::isfinite(l->beta0.value()) && std::isfinite(l->beta1.value())))
                throw invalid_argument(std::string(name) + " '" + calibration + "': a coefficient is not finite");
    }

    // A layer's predicted time for the context's batch: beta1 * c as compute, beta0 as overhead, and the
    // layer's FLOPs (ops/, as every model reports them) as work. The device is not consulted (the
    // coefficients are the measured device's); layers of no category cost nothing; a category without a
    // line, and a recurrent or attention layer, throw unsupported_operation.
    layer_time layer(const network& net, network::vertex v, pass p, const cost_context& c) const {
        if (std::holds_alternative<ops::recurrent>(net[v].op) || std::holds_alternative<ops::attention>(net[v].op))
            throw unsupported_operation(std::string(name) + " '" + calibration + "': the per-layer categories have no " +
                                        std::string(ops::kind(net[v].op)) + " layers (layer '" + net[v].name + "')");
        const auto k = classify(net, v);
        const auto cat = category_of(k);
        if (!cat) return {};
        const auto& l = line(*cat, p);
        if (!l)
            throw unsupported_operation(std::string(name) + " '" + calibration + "' has no " +
                                        (p == pass::forward ? "forward" : "backward") + " line for " +
                                        std::string(to_string(*cat)) + " (layer '" + net[v].name + "')");
        const bool fw = p == pass::forward;
        const double ops = static_cast<double>(c.batch) * (fw ? k.per_sample.forward : k.per_sample.backward);
        const auto f = complexity(net, v, counting::flops, static_cast<double>(c.batch));
        return {.compute = l->beta1 * ops, .overhead = l->beta0, .work = flops_of(fw ? f.forward : f.backward)};
    }

    std::int64_t parameters(const network& net) const { return net.parameter_count(); }
    // The regression has no weight-update term: a network's time is the sum of its layers (seed 000).
    layer_time update(const weights&, const cost_context&) const { return {}; }

    // One iteration at `batch`: forward and backward of every layer, or forward only for inference.
    seconds iteration(const network& net, std::int64_t batch, bool training = true) const {
        const device none{};
        const cost_context c{none, batch};
        seconds t{};
        for (auto v : net.vertices()) {
            t += layer(net, v, pass::forward, c).total();
            if (training) t += layer(net, v, pass::backward, c).total();
        }
        return t;
    }
    // seed 000, "Per Layer Models": t_CNN = I * sum over layers of t_l.
    seconds network_time(const network& net, std::int64_t batch, double iterations, bool training = true) const {
        return iterations * iteration(net, batch, training);
    }

private:
    static std::size_t index(category c, pass p) {
        if (p != pass::forward && p != pass::backward)
            throw invalid_argument(std::string(name) + ": the regression has forward and backward lines only");
        return 2 * static_cast<std::size_t>(c) + (p == pass::backward);
    }
};

static_assert(CostModel<per_layer_model, network>);

// Seed 000, "Linear Regression Coefficients" ("Models obtained from GoogLeNet timing data", Caffe on an
// NVIDIA Quadro M6000), milliseconds and milliseconds per operation converted to seconds. The table has
// no Loss row, and seed 002 Table 3 leaves loss out of its time breakdown: loss layers cost zero here.
inline per_layer_model gianniti_googlenet_m6000() {
    per_layer_model m;
    m.calibration = "gianniti-googlenet-m6000";
    const auto set = [&](category c, double b0_fw, double b1_fw, double b0_bw, double b1_bw) {
        m.line(c, pass::forward) = regression_line{milliseconds_of(b0_fw), milliseconds_of(b1_fw)};
        m.line(c, pass::backward) = regression_line{milliseconds_of(b0_bw), milliseconds_of(b1_bw)};
    };
    set(category::conv_fc, 1.83e-1, 3.43e-10, 3.15e-1, 3.65e-10);       // seed 000 table, row Conv/FC
    set(category::norm, 1.64e-2, 7.11e-9, 1.01e-1, 6.87e-9);            // row Norm
    set(category::pool_stride1, 2.23e-2, 1.27e-8, 1.52e-1, 1.93e-8);    // row Pool S = 1
    set(category::pool_strided, 1.44e-2, 1.45e-8, 6.11e-3, 5.67e-8);    // row Pool S > 1
    set(category::relu_dropout, 8.91e-3, 1.17e-8, 1.18e-2, 1.33e-8);    // row ReLU/Drop
    set(category::loss, 0, 0, 0, 0);                                   // no row: not modelled
    return m;
}

// The published calibrations, by name.
inline std::optional<per_layer_model> find_calibration(std::string_view name) {
    if (name == "gianniti-googlenet-m6000") return gianniti_googlenet_m6000();
    return std::nullopt;
}

// The sample of one measured layer of a network: its category and seed 000 complexity at `batch`
// (what a CSV row holds); nullopt for layers of no category.
inline std::optional<layer_sample> sample_of(const network& net, network::vertex v, pass p, std::int64_t batch,
                                             seconds measured) {
    const auto k = classify(net, v);
    const auto cat = category_of(k);
    if (!cat) return std::nullopt;
    const double c = static_cast<double>(batch) * (p == pass::forward ? k.per_sample.forward : k.per_sample.backward);
    return layer_sample{*cat, p, c, measured};
}

// Fits one line per (category, direction) present in the samples by least squares. Throws
// invalid_argument naming the category and direction whose complexities do not determine a line.
inline per_layer_model fit_per_layer(std::span<const layer_sample> samples, std::string calibration = "fitted") {
    per_layer_model m;
    m.calibration = std::move(calibration);
    for (std::size_t k = 0; k < category_count; ++k)
        for (pass p : {pass::forward, pass::backward}) {
            const auto c = static_cast<category>(k);
            std::vector<double> cs, ts;
            for (const auto& s : samples)
                if (s.cat == c && s.direction == p) {
                    cs.push_back(s.complexity);
                    ts.push_back(s.time.value());
                }
            if (cs.empty()) continue;
            const auto n = static_cast<Eigen::Index>(cs.size());
            Eigen::MatrixXd x(n, 2);
            x.col(0).setOnes();
            x.col(1) = Eigen::Map<const Eigen::VectorXd>(cs.data(), n);
            const Eigen::VectorXd beta =
                least_squares(x, Eigen::Map<const Eigen::VectorXd>(ts.data(), n),
                              "per-layer fit, " + std::string(to_string(c)) + (p == pass::forward ? " forward" : " backward"));
            regression_line l{seconds_of(beta[0]), seconds_of(beta[1]), cs.size(), 0};
            std::vector<double> predicted;
            for (double ci : cs) predicted.push_back(l.at(ci).value());
            l.mape = relative_errors(predicted, ts).mape;
            m.line(c, p) = l;
        }
    return m;
}

// Reads the CSV described at the top of this file (other columns are ignored). Errors are parse_error
// "origin:line: column 'name': ...".
inline std::vector<layer_sample> parse_layer_samples(std::string_view text, const std::string& origin = "<per-layer>") {
    const steptime::detail::csv_table t(text, origin);
    constexpr std::string_view format = "the columns category,phase,complexity,time_s";
    const std::size_t cat = t.column("category", format), phase = t.column("phase", format),
                      complexity = t.column("complexity", format), time = t.column("time_s", format);
    std::vector<layer_sample> out;
    for (std::size_t r = 0; r < t.rows(); ++r) {
        layer_sample s;
        const auto c = parse_category(t.text(r, cat));
        if (!c) throw t.bad(r, cat, "conv_fc, norm, pool_stride1, pool_strided, relu_dropout or loss");
        s.cat = *c;
        const auto p = t.text(r, phase);
        if (p != "forward" && p != "backward") throw t.bad(r, phase, "forward or backward");
        s.direction = p == "forward" ? pass::forward : pass::backward;
        s.complexity = t.number(r, complexity, 0, false, "a non-negative number of operations");
        s.time = seconds_of(t.positive(r, time, "a positive time in seconds"));
        out.push_back(s);
    }
    return out;
}

}  // namespace steptime::fit
