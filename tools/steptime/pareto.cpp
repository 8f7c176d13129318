// `steptime pareto`: the time and cost to train on every configuration of a sweep's grid (models x devices x
// networks x collectives x batches x workers), and the Pareto-optimal ones: AI Gauge's recommendation
// (Dube et al. 2019), offline, with steps from the analytical model instead of a job trace.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <steptime/io.hpp>

#include "commands.hpp"
#include "parse.hpp"
#include "plan.hpp"
#include "plot.hpp"
#include "sweep.hpp"

namespace steptime::cli {
namespace {

struct pareto_options {
    std::string dataset_size;
    double epochs = 0;
    std::optional<std::string> prices, plot;
    std::string format = "table";
};

// A configuration of the grid, its training run priced, and whether it is on the Pareto front (only one whose
// step fits its GPUs' memory can be).
struct priced_row {
    sweep_row config;
    training_option option;
    bool pareto = false;
};

// What the training formulas read of a step (training.hpp: device, workers, global batch, step time).
step_estimate step_of(const sweep_row& r) {
    step_estimate e;
    e.model = r.model;
    e.device = r.device;
    e.workers = r.workers;
    e.tensor_parallel = r.tensor_parallel;
    e.pipeline_stages = r.pipeline_stages;
    e.batch = r.batch;
    e.batch_per_worker = r.batch_per_worker;
    e.total = seconds_of(r.step_s);
    return e;
}

// The built-in prices, with the rows of --prices replacing or adding to them.
price_table load_prices(const std::optional<std::string>& file) {
    price_table t = prices::builtin();
    if (file) t.merge(prices::load_csv(*file));
    return t;
}

void require_prices(const price_table& table, const std::vector<plan>& plans) {
    for (const auto& p : plans)
        for (const auto& d : p.devices)
            if (table.find(d.name) == nullptr)
                throw invalid_argument("no price per GPU-hour for device '" + d.name + "': give one in a --prices CSV file, a line '" +
                                       d.name + ",USD' under the header 'device,usd_per_gpu_hour[,source]'");
}

const plan& plan_of(const std::vector<plan>& plans, const std::string& model_label) {
    return *std::ranges::find(plans, model_label, &plan::model_label);
}

std::string batch_label(const plan& p, const sweep_row& r) {
    return p.scale == scaling::strong ? std::to_string(r.batch) + " global" : std::to_string(r.batch_per_worker) + " per worker";
}

std::string model_names(const std::vector<plan>& plans) {
    std::string models;
    for (const auto& p : plans) models += (models.empty() ? "" : ", ") + p.model_label;
    return models;
}

// "data parallelism, weak scaling, paleo cost model, fp32"
std::string setup_text(const plan& p) {
    return std::string(to_string(p.parallel)) + " parallelism, " + std::string(to_string(p.scale)) + " scaling, " +
           std::string(p.cost_name()) + " cost model, " + std::string(to_string(p.precision));
}

void write_table(const std::vector<plan>& plans, const training_run& run, const std::optional<std::string>& prices_file,
                 const std::vector<priced_row>& rows, const std::vector<std::vector<std::size_t>>& fronts) {
    using detail::fixed;
    std::cout << model_names(plans) << ": " << setup_text(plans.front()) << "\n"
              << run.dataset_size << " samples x " << shortest(run.epochs) << " epochs; prices per GPU-hour: built-in"
              << (prices_file ? " with " + *prices_file + " over them" : std::string{}) << "\n"
              << "* = Pareto-optimal: no other configuration of the same model that fits its GPUs' memory trains both "
                 "faster and cheaper\n\n";
    std::vector<std::vector<std::string>> cells{{"pareto", "model", "device", "network", "comm", "workers", "batch",
                                                 "step ms", "steps", "hours", "GPU-hours", "$/GPU-hour", "cost $",
                                                 "memory GiB", "fits"}};
    for (const auto& r : rows) {
        const auto& c = r.config;
        const auto& o = r.option;
        cells.push_back({r.pareto ? "*" : "", c.model, c.device, c.network, c.comm, std::to_string(c.workers),
                         std::to_string(c.batch), fixed(c.step_s * 1e3, 3), std::to_string(o.steps),
                         fixed(o.time.value() / 3600, 2), fixed(o.gpu_hours, 1), fixed(o.usd_per_gpu_hour, 4),
                         fixed(o.cost_usd, 2), detail::gib_text(c.memory.total()), detail::fits_text(c.memory)});
    }
    write_aligned(std::cout, cells, 5);
    std::cout << "\n";
    for (std::size_t k = 0; k < fronts.size(); ++k) {
        const std::string& model = plans[k].model_label;
        const auto all = std::ranges::count(rows, model, [](const priced_row& r) { return r.option.model; });
        const auto too_big = std::ranges::count_if(
            rows, [&](const priced_row& r) { return r.option.model == model && !r.config.memory.fits(); });
        const std::string left_out = too_big == 0 ? ""
                                     : " (" + std::to_string(too_big) +
                                           (too_big == 1 ? " does not fit its" : " do not fit their") + " GPUs' memory)";
        const auto& front = fronts[k];
        if (front.empty()) {
            std::cout << model << ": none of " << all << " configurations fits its GPUs' memory\n";
            continue;
        }
        const auto& fastest = rows[front.front()].option;
        const auto& cheapest = rows[front.back()].option;
        std::cout << model << ": " << front.size() << " of " << all << " configurations Pareto-optimal" << left_out
                  << ", from the fastest, " << fixed(fastest.time.value() / 3600, 2) << " h for $"
                  << fixed(fastest.cost_usd, 2) << ", to the cheapest, " << fixed(cheapest.time.value() / 3600, 2)
                  << " h for $" << fixed(cheapest.cost_usd, 2) << "\n";
    }
}

void write_csv(const std::vector<priced_row>& rows) {
    using detail::csv_field;
    std::cout << "model,device,network,comm,workers,batch,batch_per_worker,step_ms,steps,time_s,gpu_hours,"
                 "usd_per_gpu_hour,cost_usd,memory_bytes,fits,pareto\n";
    for (const auto& r : rows) {
        const auto& c = r.config;
        const auto& o = r.option;
        std::cout << csv_field(c.model) << "," << csv_field(c.device) << "," << csv_field(c.network) << "," << c.comm << ","
                  << c.workers << "," << c.batch << "," << c.batch_per_worker << "," << shortest(c.step_s * 1e3) << ","
                  << o.steps << "," << shortest(o.time.value()) << "," << shortest(o.gpu_hours) << ","
                  << shortest(o.usd_per_gpu_hour) << "," << shortest(o.cost_usd) << ","
                  << shortest(c.memory.total().value()) << "," << detail::fits_text(c.memory) << ","
                  << (r.pareto ? "true" : "false") << "\n";
    }
}

void write_json(const std::vector<plan>& plans, const training_run& run, const price_table& table,
                const std::vector<priced_row>& rows) {
    const plan& p = plans.front();
    nlohmann::ordered_json out;
    out["dataset_size"] = run.dataset_size;
    out["epochs"] = run.epochs;
    out["parallelism"] = to_string(p.parallel);
    out["scaling"] = to_string(p.scale);
    out["cost_model"] = p.cost_name();
    out["precision"] = to_string(p.precision);
    auto& prices = out["prices"] = nlohmann::ordered_json::array();
    std::set<std::string> priced;
    for (const auto& r : rows)
        if (priced.insert(r.config.device).second) {
            const gpu_price& g = table.at(r.config.device);
            prices.push_back({{"device", g.device}, {"usd_per_gpu_hour", g.usd_per_gpu_hour}, {"source", g.source}});
        }
    auto& configs = out["configurations"] = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
        const auto& c = r.config;
        const auto& o = r.option;
        configs.push_back({{"model", c.model},
                           {"device", c.device},
                           {"network", c.network},
                           {"comm", c.comm},
                           {"workers", c.workers},
                           {"batch", c.batch},
                           {"batch_per_worker", c.batch_per_worker},
                           {"step_s", c.step_s},
                           {"steps", o.steps},
                           {"time_s", o.time.value()},
                           {"gpu_hours", o.gpu_hours},
                           {"usd_per_gpu_hour", o.usd_per_gpu_hour},
                           {"cost_usd", o.cost_usd},
                           {"memory", io::to_json(c.memory)},
                           {"pareto", r.pareto}});
    }
    std::cout << out.dump(2) << "\n";
}

// Cost against time to train, one colour per series, each point labelled with its worker count.
void plot(const std::string& svg_file, const std::vector<plan>& plans, const training_run& run,
          const std::vector<priced_row>& rows, const std::vector<std::vector<std::size_t>>& fronts) {
    // What is the same for every point goes in the titles; what differs names the series.
    std::set<std::string> models, devices, networks, comms, batches;
    for (const auto& r : rows) {
        const plan& p = plan_of(plans, r.config.model);
        models.insert(r.config.model), devices.insert(r.config.device), networks.insert(r.config.network);
        comms.insert(r.config.comm), batches.insert(batch_label(p, r.config));
    }
    const std::string title = model_names(plans) + ": time and cost to train on " + std::to_string(run.dataset_size) +
                              " samples x " + shortest(run.epochs) + " epochs";
    std::string subtitle = setup_text(plans.front());
    const auto fixed_axis = [&](const std::set<std::string>& values, const std::string& what) {
        if (values.size() == 1) subtitle += ", " + what + *values.begin();
    };
    fixed_axis(devices, "");
    fixed_axis(comms, "");
    fixed_axis(networks, "over ");
    fixed_axis(batches, "batch ");
    subtitle += "; labels: workers";

    std::vector<scatter> series;
    std::vector<std::pair<std::string, std::size_t>> keys;  // (model, sweep series) of each series
    for (const auto& r : rows) {
        const auto& c = r.config;
        const std::pair<std::string, std::size_t> key{c.model, c.series};
        auto it = std::find(keys.begin(), keys.end(), key);
        if (it == keys.end()) {
            const plan& p = plan_of(plans, c.model);
            std::string label;
            const auto add = [&](const std::set<std::string>& values, const std::string& value) {
                if (values.size() > 1) label += (label.empty() ? "" : ", ") + value;
            };
            add(models, c.model), add(devices, c.device), add(comms, c.comm), add(networks, "over " + c.network),
                add(batches, "batch " + batch_label(p, c));
            series.push_back({label.empty() ? c.device : label, {}});
            keys.push_back(key);
            it = keys.end() - 1;
        }
        series[static_cast<std::size_t>(it - keys.begin())].points.push_back(
            {r.option.time.value() / 3600, r.option.cost_usd, std::to_string(c.workers)});
    }
    std::vector<std::vector<std::pair<double, double>>> front_points;
    for (const auto& front : fronts) {
        auto& points = front_points.emplace_back();
        for (const auto i : front) points.emplace_back(rows[i].option.time.value() / 3600, rows[i].option.cost_usd);
    }
    run_gnuplot(tradeoff_script(svg_file, title, subtitle, series, front_points), svg_file);
}

void pareto(const options& o, const pareto_options& po) {
    if (po.plot) require_gnuplot(), require_writable(*po.plot);  // before any work
    const training_run run{parse_integer(po.dataset_size, "--dataset-size", 1, std::numeric_limits<std::int64_t>::max()),
                           po.epochs};
    if (!(std::isfinite(run.epochs) && run.epochs > 0))
        throw invalid_argument("--epochs " + shortest(run.epochs) + ": expected a finite positive number");
    const price_table table = load_prices(po.prices);

    std::vector<plan> plans;
    for (const auto& model : split_models(o.model, "--model")) {
        options one = o;
        one.model = model;
        plan p = make_plan(one, /*lists=*/true);
        if (std::ranges::find(plans, p.model_label, &plan::model_label) != plans.end())  // rows are told apart by it
            throw invalid_argument("--model: two models named '" + p.model_label + "'");
        plans.push_back(std::move(p));
    }
    require_prices(table, plans);

    // Each model is a job of its own: its configurations are compared with each other only.
    std::vector<priced_row> rows;
    std::vector<std::vector<std::size_t>> fronts;  // per model, indices into rows, fastest first
    for (const auto& p : plans) {
        const std::size_t first = rows.size();
        for (auto& r : run_sweep(p)) {
            training_option option = training_option_of(run, step_of(r), table);
            rows.push_back({std::move(r), std::move(option)});
        }
        std::vector<std::size_t> fitting;  // indices into rows
        for (std::size_t i = first; i < rows.size(); ++i)
            if (rows[i].config.memory.fits()) fitting.push_back(i);
        auto& front = fronts.emplace_back(pareto_front(fitting, [&](std::size_t i) { return rows[i].option.time; },
                                                       [&](std::size_t i) { return rows[i].option.cost_usd; }));
        for (auto& i : front) {
            i = fitting[i];
            rows[i].pareto = true;
        }
    }

    if (po.format == "json") write_json(plans, run, table, rows);
    else if (po.format == "csv") write_csv(rows);
    else write_table(plans, run, po.prices, rows, fronts);
    std::cout.flush();
    if (po.plot) plot(*po.plot, plans, run, rows, fronts);
}

}  // namespace

void add_pareto_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("pareto", "time and cost to train over a grid of configurations, and the Pareto-optimal ones");
    auto o = std::make_shared<options>();  // shared with the callback, which outlives this call
    auto po = std::make_shared<pareto_options>();
    add_options(*cmd, *o, /*lists=*/true);
    cmd->remove_option(cmd->get_option("--inference"));  // it prices training runs
    cmd->get_option("--model")->description("zoo names or specs or PALEO JSON files, comma-separated");
    cmd->add_option("--dataset-size", po->dataset_size, "samples in the training set, e.g. 1281167 (ImageNet-1k)")->required();
    cmd->add_option("--epochs", po->epochs, "passes over the training set (may be fractional)")->required();
    cmd->add_option("--prices", po->prices,
                    "CSV of prices per GPU-hour, 'device,usd_per_gpu_hour[,source]', replacing or adding to the built-in ones");
    cmd->add_option("--format", po->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
    cmd->add_option("--plot", po->plot, "draw cost against time to train into this SVG file, the Pareto front highlighted (needs gnuplot)");
    cmd->callback([o, po] { pareto(*o, *po); });
}

}  // namespace steptime::cli
