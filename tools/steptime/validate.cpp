// `steptime validate --data FILE.csv --cases FILE.csv`: predicts each published measurement the cases
// name (io/published_csv.hpp) with the cost model chosen as in `predict`, and reports the signed error of
// every row and the MAPE and worst error of each category.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <steptime/io.hpp>
#include <steptime/phase_time.hpp>

#include "commands.hpp"
#include "plan.hpp"

namespace steptime::cli {
namespace {

using detail::fixed;
using detail::pad_left;
using detail::pad_right;

struct validate_options {
    std::string data, cases, format = "table";
    bool skip_unsupported = false;  // list the rows the model cannot predict instead of stopping at the first
    options model;  // --cost-model and the efficiencies, as predict takes them
};

struct row_result {
    io::published_case c;
    seconds predicted{};
    double error = 0;      // signed relative: predicted / measured - 1
    std::string skipped{};  // why the row was not predicted (--skip-unsupported)
};

seconds predict(const io::published_case& c, const validate_options& o, const std::filesystem::path& base) {
    options po = o.model;
    po.model = relative_to(base, c.model);
    po.devices = relative_to(base, c.device);
    if (c.batch > 0) po.batches = std::to_string(c.batch);
    po.workers = std::to_string(c.gpus);
    po.precision = std::string(to_string(c.precision));
    if (!c.link.empty()) po.networks = c.link;
    if (c.gradients != element_type::fp32 && po.cost_model != "paleo-compat")  // PALEO's are FP32
        po.gradients = std::string(to_string(c.gradients));
    // The layout matters to the kernel model alone; the others read the same row without it.
    if (c.layout && (po.cost_model.empty() || po.cost_model == "kernel")) po.layout = std::string(to_string(*c.layout));
    // The optimizer matters to every model but paleo-compat, which prices PALEO's own update.
    if (c.update_rule && po.cost_model != "paleo-compat") po.optimizer = std::string(to_string(*c.update_rule));
    // Multi-GPU rows are data parallel with the gradient exchange overlapping the backward pass, as
    // DDP and Horovod run it.
    if (c.gpus > 1 && po.cost_model != "paleo-compat") po.overlap = "backward";
    const plan p = make_plan(po, /*lists=*/false);
    const device& dev = p.devices.front();
    switch (c.metric) {
        case io::published_metric::kernel_ms:
        case io::published_metric::kernel_passes_ms: {
            const estimate_options opt{p.batches.front(), p.precision};
            return std::visit([&](const auto& m) { return phase_time(p.net, dev, m, c.passes, opt).total(); }, p.cost);
        }
        default: break;
    }
    const step_estimate e = p.run(dev, p.comm_model(p.comms.front(), p.networks.front()), p.workers.front(),
                                  p.batches.front());
    switch (c.metric) {
        case io::published_metric::forward_ms: return e.forward;
        case io::published_metric::backward_ms: return e.backward;
        default: return e.total;
    }
}

struct category_summary {
    std::size_t rows = 0, skipped = 0;
    double mape = 0, max_error = 0;  // max_error: the signed error of largest magnitude
};

std::string percent(double fraction) { return fixed(100 * fraction, 1) + "%"; }

void run_validate(const validate_options& o) {
    (void)make_cost(o.model, std::nullopt);  // the model's options are checked once, before any row
    const auto cases = io::parse_published_cases(io::read_file(o.data), o.data, io::read_file(o.cases), o.cases);
    const std::filesystem::path base = std::filesystem::path(o.cases).parent_path();
    std::vector<row_result> rows;
    std::map<std::string, category_summary> categories;
    std::string cost_name;
    for (const auto& c : cases) {
        row_result r{c, {}, 0, {}};
        auto& s = categories[c.category.empty() ? "uncategorized" : c.category];
        try {
            r.predicted = predict(c, o, base);
        } catch (const error& e) {
            if (!o.skip_unsupported) throw invalid_argument(o.cases + ": row " + c.id + ": " + e.what());
            r.skipped = e.what();
            ++s.skipped;
            rows.push_back(std::move(r));
            continue;
        }
        r.error = (r.predicted / c.time).value() - 1;
        ++s.rows;
        s.mape += std::abs(r.error);
        if (std::abs(r.error) > std::abs(s.max_error)) s.max_error = r.error;
        rows.push_back(std::move(r));
    }
    for (auto& [name, s] : categories) s.mape /= static_cast<double>(std::max<std::size_t>(s.rows, 1));
    const std::string model = o.model.cost_model.empty() ? "kernel" : o.model.cost_model;

    if (o.format == "json") {
        nlohmann::ordered_json j{{"cost_model", model}, {"rows", nlohmann::ordered_json::array()},
                                 {"categories", nlohmann::ordered_json::object()}};
        for (const auto& r : rows) {
            nlohmann::ordered_json row{{"id", r.c.id}, {"category", r.c.category}, {"model", r.c.model},
                                       {"device", r.c.device}, {"measured_ms", r.c.time.value() * 1e3}};
            if (r.skipped.empty()) {
                row["predicted_ms"] = r.predicted.value() * 1e3;
                row["error"] = r.error;
            } else {
                row["skipped"] = r.skipped;
            }
            j["rows"].push_back(row);
        }
        for (const auto& [name, s] : categories) {
            j["categories"][name] = {{"rows", s.rows}, {"skipped", s.skipped}};
            if (s.rows > 0) j["categories"][name].update({{"mape", s.mape}, {"max_error", s.max_error}});
        }
        std::cout << j.dump(2) << "\n";
        return;
    }
    std::cout << "validation of the " << model << " cost model against " << rows.size() << " published measurements ("
              << o.data << ")\n\n"
              << pad_right("id", 9) << pad_right("category", 21) << pad_right("model", 30) << pad_right("device", 17)
              << pad_left("measured ms", 12) << pad_left("predicted ms", 13) << pad_left("error", 9) << "\n";
    for (const auto& r : rows) {
        std::string m = r.c.model.size() > 28 ? r.c.model.substr(0, 27) + "~" : r.c.model;
        std::cout << pad_right(r.c.id, 9) << pad_right(r.c.category, 21) << pad_right(m, 30) << pad_right(r.c.device, 17)
                  << pad_left(fixed(r.c.time.value() * 1e3, 3), 12);
        if (r.skipped.empty())
            std::cout << pad_left(fixed(r.predicted.value() * 1e3, 3), 13)
                      << pad_left((r.error >= 0 ? "+" : "") + percent(r.error), 9) << "\n";
        else
            std::cout << "  not predicted: " << r.skipped << "\n";
    }
    std::cout << "\n" << pad_right("category", 21) << pad_left("rows", 5) << pad_left("MAPE", 9) << pad_left("worst", 9)
              << pad_left("skipped", 9) << "\n";
    for (const auto& [name, s] : categories)
        std::cout << pad_right(name, 21) << pad_left(std::to_string(s.rows), 5)
                  << pad_left(s.rows ? percent(s.mape) : "-", 9)
                  << pad_left(s.rows ? (s.max_error >= 0 ? "+" : "") + percent(s.max_error) : "-", 9)
                  << pad_left(std::to_string(s.skipped), 9) << "\n";
}

}  // namespace

void add_validate_command(CLI::App& app) {
    auto o = std::make_shared<validate_options>();
    auto* cmd = app.add_subcommand("validate", "predict published measurements and report the errors per row and category");
    cmd->add_option("--data", o->data, "published measurements (validation/measured/calibration.csv's form)")
        ->required()->check(CLI::ExistingFile);
    cmd->add_option("--cases", o->cases, "how to predict each row: id,model,device[,precision][,phase][,link]")
        ->required()->check(CLI::ExistingFile);
    cmd->add_option("--format", o->format, "table or json")->check(CLI::IsMember({"table", "json"}));
    cmd->add_flag("--skip-unsupported", o->skip_unsupported,
                  "list the rows the cost model cannot predict (e.g. paleo-compat and fp16) instead of stopping");
    cmd->add_option("--cost-model", o->model.cost_model, "kernel (default), paleo, paleo-compat or roofline")
        ->check(CLI::IsMember({"kernel", "paleo", "paleo-compat", "roofline"}));
    const auto ppp = CLI::Range(1e-9, 1.0);
    cmd->add_option("--ppp-compute", o->model.ppp_compute, "paleo, paleo-compat, roofline: fraction of peak FLOP/s")->check(ppp);
    cmd->add_option("--ppp-memory", o->model.ppp_memory, "paleo, roofline: fraction of peak memory bandwidth")->check(ppp);
    cmd->add_option("--ppp-comm", o->model.ppp_comm, "fraction of link bandwidth reached")->check(ppp);
    cmd->callback([o] { run_validate(*o); });
}

}  // namespace steptime::cli
