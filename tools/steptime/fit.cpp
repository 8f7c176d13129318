// `steptime fit per-layer|end-to-end|ppp`: the regression models and the PPP calibration of
// steptime/fit/, fitted to a CSV of measurements (--train) and checked on held-out ones (--test).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <steptime/fit/end_to_end.hpp>
#include <steptime/fit/per_layer.hpp>
#include <steptime/fit/ppp.hpp>
#include <steptime/io.hpp>

#include "commands.hpp"
#include "plan.hpp"

namespace steptime::cli {
namespace {

using nlohmann::ordered_json;
using detail::fixed;
using detail::pad_left;
using detail::pad_right;

struct fit_options {
    std::string train;
    std::optional<std::string> test, cases, test_cases, device, save, name;
    std::string format = "table";
};

std::string percent(double fraction) { return fixed(100 * fraction, 1) + "%"; }

// Signed relative errors as JSON: per row, then MAPE and the worst.
ordered_json errors_json(const fit::error_metrics& e) {
    return {{"mape", e.mape}, {"max_error", e.max_error}, {"signed_relative", e.signed_relative}};
}

void print(const fit_options& o, const ordered_json& j, const std::string& table) {
    if (o.format == "json")
        std::cout << j.dump(2) << "\n";
    else
        std::cout << table;
}

// --- per-layer -------------------------------------------------------------------------------------

void fit_per_layer(const fit_options& o) {
    const auto train = fit::parse_layer_samples(io::read_file(o.train), o.train);
    const fit::per_layer_model m = fit::fit_per_layer(train, o.name.value_or(std::filesystem::path(o.train).filename()));
    std::vector<fit::layer_sample> test;
    if (o.test) test = fit::parse_layer_samples(io::read_file(*o.test), *o.test);

    ordered_json j{{"calibration", m.calibration}, {"lines", ordered_json::array()}};
    std::string t = "per-layer regression t = beta0 + beta1 * complexity (seed 000), fitted to " +
                    std::to_string(train.size()) + " layer times\n\n" + pad_right("category", 14) +
                    pad_right("phase", 10) + pad_left("beta0 us", 12) + pad_left("beta1 ps/op", 13) +
                    pad_left("samples", 9) + pad_left("MAPE", 8) + (o.test ? pad_left("test MAPE", 11) : "") + "\n";
    std::vector<double> all_predicted, all_measured;
    for (std::size_t k = 0; k < fit::category_count; ++k)
        for (pass p : {pass::forward, pass::backward}) {
            const auto c = static_cast<fit::category>(k);
            const auto& line = m.line(c, p);
            std::vector<double> predicted, measured;
            for (const auto& s : test)
                if (s.cat == c && s.direction == p) {
                    if (!line)
                        throw invalid_argument(*o.test + ": a " + std::string(fit::to_string(c)) + " " +
                                               (p == pass::forward ? "forward" : "backward") +
                                               " layer, but --train has no such layers to fit its line");
                    predicted.push_back(line->at(s.complexity).value());
                    measured.push_back(s.time.value());
                }
            if (!line) continue;
            const std::string phase = p == pass::forward ? "forward" : "backward";
            ordered_json lj{{"category", fit::to_string(c)}, {"phase", phase}, {"beta0_s", line->beta0.value()},
                            {"beta1_s_per_op", line->beta1.value()}, {"samples", line->samples}, {"mape", line->mape}};
            t += pad_right(std::string(fit::to_string(c)), 14) + pad_right(phase, 10) +
                 pad_left(fixed(line->beta0.value() * 1e6, 2), 12) + pad_left(fixed(line->beta1.value() * 1e12, 4), 13) +
                 pad_left(std::to_string(line->samples), 9) + pad_left(percent(line->mape), 8);
            if (!predicted.empty()) {
                const auto e = fit::relative_errors(predicted, measured);
                lj["test"] = errors_json(e);
                t += pad_left(percent(e.mape), 11);
                all_predicted.insert(all_predicted.end(), predicted.begin(), predicted.end());
                all_measured.insert(all_measured.end(), measured.begin(), measured.end());
            }
            t += "\n";
            j["lines"].push_back(lj);
        }
    if (!all_measured.empty()) {
        const auto e = fit::relative_errors(all_predicted, all_measured);
        j["test"] = errors_json(e);
        t += "\ntest: " + std::to_string(all_measured.size()) + " layer times, MAPE " + percent(e.mape) + ", worst " +
             percent(e.max_error) + "\n";
    }
    print(o, j, t);
}

// --- end-to-end ------------------------------------------------------------------------------------

void fit_end_to_end(const fit_options& o) {
    const auto train = fit::parse_runs(io::read_file(o.train), o.train);
    const fit::end_to_end_model m = fit::fit_end_to_end(train);
    const auto on_train = fit::evaluate(m, train);
    ordered_json j{{"a_s", m.a.value()}, {"b1_s", m.b1.value()}, {"c_s", m.c.value()}, {"d_s", m.d.value()},
                   {"train", errors_json(on_train)}};
    std::string t = "end-to-end regression T(b, i) = a*i*b + b1*i + c*b + d (seed 002), fitted to " +
                    std::to_string(train.size()) + " runs\n\n" +
                    "a    " + pad_left(fixed(m.a.value() * 1e3, 6), 14) + " ms   per sample and iteration\n" +
                    "b1   " + pad_left(fixed(m.b1.value() * 1e3, 6), 14) + " ms   per iteration\n" +
                    "c    " + pad_left(fixed(m.c.value() * 1e3, 6), 14) + " ms   per unit of batch size, once\n" +
                    "d    " + pad_left(fixed(m.d.value(), 3), 14) + " s    once (start-up)\n\n" +
                    "train: MAPE " + percent(on_train.mape) + ", worst " + percent(on_train.max_error) + "\n";
    if (o.test) {
        const auto test = fit::parse_runs(io::read_file(*o.test), *o.test);
        const auto e = fit::evaluate(m, test);
        j["test"] = errors_json(e);
        t += "test:  MAPE " + percent(e.mape) + ", worst " + percent(e.max_error) + "\n\n" + pad_left("batch", 8) +
             pad_left("iterations", 12) + pad_left("measured s", 13) + pad_left("predicted s", 13) + pad_left("error", 9) +
             "\n";
        for (std::size_t k = 0; k < test.size(); ++k)
            t += pad_left(fixed(test[k].batch, 0), 8) + pad_left(fixed(test[k].iterations, 0), 12) +
                 pad_left(fixed(test[k].time.value(), 2), 13) +
                 pad_left(fixed(m.predict(test[k].batch, test[k].iterations).value(), 2), 13) +
                 pad_left(percent(e.signed_relative[k]), 9) + "\n";
    }
    print(o, j, t);
}

// --- ppp -------------------------------------------------------------------------------------------

// Measured pass times (either form of fit/measurements.hpp), networks and devices resolved, relative
// file names against the measurement file's folder.
struct measured_set {
    std::vector<fit::pass_measurement> rows;
    std::vector<fit::ppp_sample> samples;
    std::vector<std::string> devices;  // per row, the device's resolved name
};

measured_set load_measurements(const std::string& file, const std::optional<std::string>& cases, const char* option) {
    const std::string text = io::read_file(file);
    measured_set m;
    const bool published = detail::csv_table(text, file).find("metric").has_value();
    if (published && !cases)
        throw invalid_argument(std::string(option) + " " + file + ": published measurements (a 'metric' column) need a " +
                               (std::string(option) == "--train" ? "--cases" : "--test-cases") +
                               " file mapping their ids to networks and devices");
    m.rows = published ? fit::parse_published_times(text, file, io::read_file(*cases), *cases) : fit::parse_pass_times(text, file);
    const std::filesystem::path base = std::filesystem::path(published ? *cases : file).parent_path();
    std::map<std::string, std::shared_ptr<const network>> nets;
    for (const auto& r : m.rows) {
        auto& net = nets[r.network];
        if (!net) net = std::make_shared<const network>(load_model(relative_to(base, r.network)));
        const device dev = load_device(relative_to(base, r.device));
        m.samples.push_back(fit::decompose(r, *net, dev));
        m.devices.push_back(dev.name);
    }
    return m;
}

std::string row_table(const measured_set& m, const std::vector<std::size_t>& rows, const std::vector<seconds>& predicted,
                      const fit::error_metrics& e) {
    std::string t = pad_right("id", 12) + pad_right("network", 22) + pad_right("phase", 18) + pad_left("batch", 7) +
                    pad_left("measured ms", 13) + pad_left("predicted ms", 14) + pad_left("error", 9) + "\n";
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const auto& r = m.rows[rows[k]];
        t += pad_right(r.id, 12) + pad_right(std::filesystem::path(r.network).stem().string() +
                                                 (r.layer.empty() ? "" : ":" + r.layer), 22) +
             pad_right(std::string(fit::to_string(r.phase)), 18) + pad_left(std::to_string(r.batch), 7) +
             pad_left(fixed(r.time.value() * 1e3, 2), 13) + pad_left(fixed(predicted[k].value() * 1e3, 2), 14) +
             pad_left(percent(e.signed_relative[k]), 9) + "\n";
    }
    return t;
}

ordered_json rows_json(const measured_set& m, const std::vector<std::size_t>& rows, const std::vector<seconds>& predicted,
                       const fit::error_metrics& e) {
    ordered_json out = ordered_json::array();
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const auto& r = m.rows[rows[k]];
        const auto& s = m.samples[rows[k]];
        out.push_back({{"id", r.id}, {"network", r.network}, {"layer", r.layer}, {"phase", fit::to_string(r.phase)},
                       {"batch", r.batch}, {"compute_at_peak_s", s.compute.value()},
                       {"memory_at_peak_s", s.memory.value()}, {"kernels", s.kernels}, {"measured_s", r.time.value()},
                       {"predicted_s", predicted[k].value()}, {"error", e.signed_relative[k]}});
    }
    return out;
}

void fit_ppp(const fit_options& o) {
    const measured_set train = load_measurements(o.train, o.cases, "--train");
    std::optional<measured_set> test;
    if (o.test) test = load_measurements(*o.test, o.test_cases, "--test");

    std::vector<std::string> devices;  // in order of first appearance
    for (const auto& d : train.devices)
        if (std::ranges::find(devices, d) == devices.end() && (!o.device || d == load_device(*o.device).name))
            devices.push_back(d);
    if (devices.empty()) throw invalid_argument("--device " + *o.device + ": no measurement in " + o.train + " is of it");
    if (o.save && devices.size() > 1)
        throw invalid_argument("--save: " + o.train + " measures " + std::to_string(devices.size()) +
                               " devices; a profile is of one: choose it with --device");

    ordered_json j{{"profiles", ordered_json::array()}};
    std::string t;
    for (const auto& d : devices) {
        std::vector<std::size_t> rows;
        std::vector<fit::ppp_sample> samples;
        for (std::size_t k = 0; k < train.rows.size(); ++k)
            if (train.devices[k] == d) {
                rows.push_back(k);
                samples.push_back(train.samples[k]);
            }
        const fit::ppp_fit f = fit::fit_ppp(samples, o.name.value_or(d + " from " + o.train), d);
        const auto& p = f.profile;
        const device dev = load_device(d);
        ordered_json pj = io::to_json(p);
        pj["rows"] = rows_json(train, rows, f.predicted, f.errors);
        const auto at_bound = [](ratio r) { return r.value() == 1 ? "   (at the bound: the fit wants more)" : ""; };
        t += (t.empty() ? "" : "\n") + std::string("PPP calibration of ") + d + " from " + std::to_string(rows.size()) +
             " measurements: T = FLOPs/(peak e_c) + bytes/(bandwidth e_m) + kernels o\n\n" +
             "compute efficiency e_c " + pad_left(fixed(p.compute_efficiency.value(), 3), 8) + "   of " +
             fixed(to_double(dev.peak.fp32) / 1e12, 2) + " TFLOP/s FP32" + at_bound(p.compute_efficiency) + "\n" +
             "memory efficiency e_m  " + pad_left(fixed(p.memory_efficiency.value(), 3), 8) + "   of " +
             fixed(to_double(dev.memory_bandwidth) / 1e9, 1) + " GB/s" + at_bound(p.memory_efficiency) + "\n" +
             "kernel overhead o      " + pad_left(fixed(p.kernel_overhead.value() * 1e6, 1), 8) + " us per kernel\n" +
             "fit: MAPE " + percent(f.errors.mape) + ", worst " + percent(f.errors.max_error) + "\n" +
             (rows.size() < 6 ? "note: " + std::to_string(rows.size()) +
                                    " measurements for 3 unknowns: a small fit error says little; check the "
                                    "profile on held-out measurements (--test)\n"
                              : "") +
             "\n" + row_table(train, rows, f.predicted, f.errors);
        if (test) {
            std::vector<std::size_t> test_rows;
            std::vector<fit::ppp_sample> test_samples;
            std::vector<seconds> predicted;
            for (std::size_t k = 0; k < test->rows.size(); ++k)
                if (test->devices[k] == d) {
                    test_rows.push_back(k);
                    test_samples.push_back(test->samples[k]);
                    predicted.push_back(fit::predict(p, test->samples[k]));
                }
            if (!test_rows.empty()) {
                const auto e = fit::evaluate(p, test_samples);
                pj["test"] = errors_json(e);
                pj["test"]["rows"] = rows_json(*test, test_rows, predicted, e);
                t += "\ntest: MAPE " + percent(e.mape) + ", worst " + percent(e.max_error) + "\n\n" +
                     row_table(*test, test_rows, predicted, e);
            }
        }
        j["profiles"].push_back(pj);
        if (o.save) {
            std::ofstream out(*o.save);
            out << io::to_json(p).dump(2) << "\n";
            if (!out.flush()) throw error("--save: cannot write " + *o.save);
            t += "\nsaved the profile to " + *o.save + " (steptime predict --calibration " + *o.save + ")\n";
        }
    }
    print(o, j, t);
}

}  // namespace

void add_fit_command(CLI::App& app) {
    auto* fit = app.add_subcommand("fit", "fit a model to measured times: per-layer, end-to-end or ppp");
    fit->require_subcommand(1);
    const auto o = std::make_shared<fit_options>();
    const auto common = [&](CLI::App* c) {
        c->add_option("--train", o->train, "the measurements to fit (CSV; formats in the README)")->required();
        c->add_option("--test", o->test, "held-out measurements to report the fitted model's errors on");
        c->add_option("--format", o->format, "table or json")->check(CLI::IsMember({"table", "json"}));
        c->add_option("--name", o->name, "a name for the fitted calibration");
    };
    auto* per_layer = fit->add_subcommand("per-layer", "t = beta0 + beta1 * complexity per layer category (seed 000)");
    common(per_layer);
    per_layer->callback([o] { fit_per_layer(*o); });
    auto* end_to_end = fit->add_subcommand("end-to-end", "T(b, i) = a*i*b + b1*i + c*b + d over runs (seed 002)");
    common(end_to_end);
    end_to_end->callback([o] { fit_end_to_end(*o); });
    auto* ppp = fit->add_subcommand("ppp", "a device's compute and memory efficiency and kernel overhead");
    common(ppp);
    ppp->add_option("--cases", o->cases, "maps the ids of published measurements (--train) to networks and devices");
    ppp->add_option("--test-cases", o->test_cases, "the same for --test");
    ppp->add_option("--device", o->device, "fit only this device's measurements");
    ppp->add_option("--save", o->save, "write the fitted profile to this JSON file (one device)");
    ppp->callback([o] { fit_ppp(*o); });
}

}  // namespace steptime::cli
