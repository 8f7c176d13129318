// `steptime validate --data FILE.csv --cases FILE.csv`: predicts each published measurement the cases
// name (io/published_csv.hpp) with the cost model chosen as in `predict`, and reports the signed error of
// every row and the MAPE and worst error of each category (or of each device, model, precision or batch, or
// each combination of them: `--group-by`). With `--anchor DEVICE`, each row is predicted
// instead from the same quantity measured on DEVICE, times the model's ratio of the two GPUs' times
// (Habitat's anchored prediction: scale::anchored_ratio); with `--anchor-any-batch` that measurement may be at
// another batch, the nearest one, and the ratio carries the batch too. A peak-memory row (GiB) is predicted as
// the step's memory_footprint, never anchored.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <compare>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <steptime/io.hpp>
#include <steptime/phase_time.hpp>
#include <steptime/scale/wave_scaling.hpp>

#include "commands.hpp"
#include "plan.hpp"

namespace steptime::cli {
namespace {

using detail::fixed;
using detail::gib_text;
using detail::pad_left;
using detail::pad_right;

struct validate_options {
    std::string data, cases, format = "table";
    bool skip_unsupported = false;  // list the rows the model cannot predict instead of stopping at the first
    std::string anchor;                      // the device whose measurements anchor the predictions
    bool anchor_any_batch = false;          // an anchor row may be at another batch (the nearest)
    std::string anchor_data, anchor_cases;  // where they are (default: --data and --cases)
    std::vector<std::string> group_by{"category"};  // the case columns the summary groups rows by
    options model;  // --cost-model and the efficiencies, as predict takes them
};

// Published rows with the directory their cases' relative paths start from.
struct case_file {
    std::vector<io::published_case> rows;
    std::filesystem::path base;
};

case_file read_cases(const std::string& data, const std::string& cases) {
    return {io::parse_published_cases(io::read_file(data), data, io::read_file(cases), cases),
            std::filesystem::path(cases).parent_path()};
}

// Whether two rows measure the same quantity, on any GPUs: everything but the device and its library, the
// id, the category and the value agree (the model's ratio carries a time across both), and with `any_batch`
// everything but the batch too.
bool same_quantity(const io::published_case& a, const io::published_case& b, bool any_batch) {
    return a.model == b.model && a.precision == b.precision && a.gpus == b.gpus && (any_batch || a.batch == b.batch) &&
           a.metric == b.metric && a.passes == b.passes && a.link == b.link && a.gpus_per_node == b.gpus_per_node &&
           a.overlap == b.overlap && a.layout == b.layout && a.update_rule == b.update_rule && a.update_launch == b.update_launch &&
           a.gradients == b.gradients &&
           a.pipeline_stages == b.pipeline_stages && a.micro_batches == b.micro_batches &&
           a.chunks_per_stage == b.chunks_per_stage;
}

struct prediction {
    seconds time{};
    std::optional<memory_footprint> memory{};  // a step's or a pass's, not a kernel's or an all-reduce's
};

struct row_result {
    io::published_case c;
    const io::published_case* anchor = nullptr;  // the measurement it was scaled from (--anchor)
    prediction predicted{};  // anchored: the time alone
    double error = 0;      // signed relative: predicted / measured - 1
    std::string skipped{};  // why the row was not predicted (--skip-unsupported, --anchor)

    // The row's quantity as reported: milliseconds, or GiB for peak memory.
    std::string_view unit() const { return c.measures_memory() ? "GiB" : "ms"; }
    double measured() const { return c.measures_memory() ? c.peak_memory.value() / 0x1p30 : c.time.value() * 1e3; }
    double predicted_value() const {
        return c.measures_memory() ? predicted.memory->total().value() / 0x1p30 : predicted.time.value() * 1e3;
    }
};

prediction predict(const io::published_case& c, const validate_options& o, const std::filesystem::path& base) {
    options po = o.model;
    po.model = relative_to(base, c.model);
    po.devices = relative_to(base, c.device);
    if (c.batch > 0) po.batches = std::to_string(c.batch);
    po.workers = std::to_string(c.gpus / c.gpus_per_worker());  // data-parallel workers
    po.pipeline_stages = c.pipeline_stages;
    po.micro_batches = c.micro_batches;
    po.chunks_per_stage = c.chunks_per_stage;
    po.precision = std::string(to_string(c.precision));
    po.inference = c.metric == io::published_metric::inference_ms;
    if (po.inference) po.host_overhead.reset();  // a training step's, as --host-overhead says
    if (!c.link.empty()) po.networks = c.link;
    if (c.gradients != element_type::fp32 && po.cost_model != "paleo-compat")  // PALEO's are FP32
        po.gradients = std::string(to_string(c.gradients));
    // The layout, the library and the update's kernels matter to the kernel model alone; the others read the same row without them.
    if (po.cost_model.empty() || po.cost_model == "kernel") {
        if (c.layout) po.layout = std::string(to_string(*c.layout));
        if (c.library) po.library = std::string(to_string(*c.library));
        if (c.update_launch) po.update_kernels = std::string(to_string(*c.update_launch));
    }
    // The optimizer matters to every model but paleo-compat, which prices PALEO's own update.
    if (c.update_rule && po.cost_model != "paleo-compat") po.optimizer = std::string(to_string(*c.update_rule));
    // Multi-GPU rows are data parallel with the gradient exchange overlapping the backward pass, as
    // DDP and Horovod run it, unless the cases say otherwise (inference rows: replicas, nothing exchanged); hierarchical where they give GPUs per node.
    if (c.gpus > 1 && c.overlap && !po.inference && po.cost_model != "paleo-compat") po.overlap = "backward";
    if (c.gpus_per_node > 0) {
        po.comms = "hierarchical";
        po.gpus_per_node = std::to_string(c.gpus_per_node);
    }
    // An all-reduce alone (DeepBench's) runs the collective that predict's data parallelism uses.
    if (c.metric == io::published_metric::all_reduce_ms) {
        (void)load_device(po.devices);  // the GPUs the row names, checked though the collective needs only the link
        return {make_collective(po).all_reduce(c.all_reduce_size, c.gpus)};
    }
    const plan p = make_plan(po, /*lists=*/false);
    const device& dev = p.devices.front();
    switch (c.metric) {
        case io::published_metric::kernel_ms:
        case io::published_metric::kernel_passes_ms: {
            const estimate_options opt{p.batches.front(), p.precision};
            return {std::visit([&](const auto& m) { return phase_time(p.net, dev, m, c.passes, opt).total(); }, p.cost)};
        }
        default: break;
    }
    const step_estimate e = p.run(dev, p.comm_model(p.comms.front(), p.networks.front()), p.workers.front(),
                                  p.batches.front());
    switch (c.metric) {
        case io::published_metric::forward_ms:
        case io::published_metric::inference_ms: return {e.forward, e.memory};
        case io::published_metric::backward_ms: return {e.backward, e.memory};
        case io::published_metric::forward_backward_ms: return {e.forward + e.backward, e.memory};
        default: return {e.total, e.memory};
    }
}

// The case columns a summary can group rows by (--group-by).
const std::vector<std::string> group_columns{"category", "device", "model", "precision", "batch"};

// A row's value of a grouping column, as its cases file spells it (a model given by name and by file path
// forms two groups).
std::string group_value(const io::published_case& c, std::string_view column) {
    if (column == "category") return c.category.empty() ? "uncategorized" : c.category;
    if (column == "device") return c.device;
    if (column == "model") return c.model;
    if (column == "precision") return std::string(to_string(c.precision));
    if (column == "batch") return c.batch > 0 ? std::to_string(c.batch) : "-";  // none for a kernel or an all-reduce
    throw invalid_argument("--group-by: no column " + std::string(column));
}

// Groups in the order of their values, numbers (batches) by size: 16 before 128.
struct group_order {
    bool operator()(const std::vector<std::string>& a, const std::vector<std::string>& b) const {
        const auto number = [](const std::string& v) {
            return !v.empty() && std::ranges::all_of(v, [](unsigned char c) { return std::isdigit(c) != 0; });
        };
        const auto order = [&](const std::string& v) { return std::pair(number(v) ? v.size() : 0, v); };
        return std::ranges::lexicographical_compare(a, b, {}, order, order);
    }
};

struct group_summary {
    std::size_t rows = 0, skipped = 0;
    double mape = 0, max_error = 0;  // max_error: the signed error of largest magnitude
};

// The MAPE and worst error of the rows that share their values of `columns`.
using group_summaries = std::map<std::vector<std::string>, group_summary, group_order>;

group_summaries summarize(const std::vector<row_result>& rows, const std::vector<std::string>& columns) {
    group_summaries groups;
    for (const auto& r : rows) {
        std::vector<std::string> key;
        for (const auto& column : columns) key.push_back(group_value(r.c, column));
        auto& s = groups[key];
        if (!r.skipped.empty()) {
            ++s.skipped;
            continue;
        }
        ++s.rows;
        s.mape += std::abs(r.error);
        if (std::abs(r.error) > std::abs(s.max_error)) s.max_error = r.error;
    }
    for (auto& [key, s] : groups) s.mape /= static_cast<double>(std::max<std::size_t>(s.rows, 1));
    return groups;
}

std::string percent(double fraction) { return fixed(100 * fraction, 1) + "%"; }

void run_validate(const validate_options& o) {
    (void)make_cost(o.model, std::nullopt);  // the model's options are checked once, before any row
    for (auto at = o.group_by.begin(); at != o.group_by.end(); ++at)
        if (std::find(o.group_by.begin(), at, *at) != at)
            throw invalid_argument("--group-by names " + *at + " twice");
    const case_file cases = read_cases(o.data, o.cases);
    const std::optional<case_file> anchor_file =
        o.anchor_data.empty() ? std::nullopt : std::optional(read_cases(o.anchor_data, o.anchor_cases));
    const case_file& anchors = anchor_file ? *anchor_file : cases;
    // The anchor row of c's quantity, if any: with --anchor-any-batch the one of the nearest batch (the smallest
    // ratio either way). Two equally near would leave the choice to the files' order.
    const auto anchor_of = [&](const io::published_case& c) -> const io::published_case* {
        // m's batch against c's as the larger over the smaller, kept as a fraction to compare exactly (batches
        // are at most 2^31, so the cross products fit).
        const auto ratio = [&](const io::published_case& m) {
            const std::int64_t x = std::max<std::int64_t>(m.batch, 1), y = std::max<std::int64_t>(c.batch, 1);
            return std::pair{std::max(x, y), std::min(x, y)};
        };
        const auto compare = [&](const io::published_case& m, const io::published_case& n) {
            const auto [mh, ml] = ratio(m);
            const auto [nh, nl] = ratio(n);
            return mh * nl <=> nh * ml;
        };
        const io::published_case* best = nullptr;
        const io::published_case* tie = nullptr;
        for (const auto& m : anchors.rows) {
            if (m.device != o.anchor || !same_quantity(m, c, o.anchor_any_batch)) continue;
            const auto order = best ? compare(m, *best) : std::strong_ordering::less;
            if (order < 0) {
                best = &m;
                tie = nullptr;
            } else if (order == 0) {
                tie = &m;
            }
        }
        if (tie)
            throw invalid_argument("rows " + best->id + " and " + tie->id + " both measure its quantity on " + o.anchor +
                                   (o.anchor_any_batch ? " at batches equally near its own" : "") +
                                   ": anchoring needs one (keep one, or tell them apart in the cases' columns)");
        return best;
    };
    std::map<const io::published_case*, seconds> anchor_predictions;  // an anchor row may anchor several rows
    const auto predicted_anchor = [&](const io::published_case* a) {
        if (const auto at = anchor_predictions.find(a); at != anchor_predictions.end()) return at->second;
        return anchor_predictions[a] = predict(*a, o, anchors.base).time;
    };
    std::vector<row_result> rows;
    for (const auto& c : cases.rows) {
        row_result r{c};
        try {
            if (o.anchor.empty()) {
                r.predicted = predict(c, o, cases.base);
            } else if (c.measures_memory()) {
                r.skipped = "peak memory is predicted, not anchored";
            } else if (c.device == o.anchor) {
                r.skipped = "measured on the anchor device";
            } else if (r.anchor = anchor_of(c); !r.anchor) {
                r.skipped = "no measurement of the same quantity on " + o.anchor;
            } else {
                r.predicted.time =
                    scale::anchored_ratio(r.anchor->time, predicted_anchor(r.anchor), predict(c, o, cases.base).time);
            }
        } catch (const error& e) {
            if (!o.skip_unsupported)
                throw invalid_argument(o.cases + ": row " + c.id + (r.anchor ? " (anchored on " + r.anchor->id + ")" : "") +
                                       ": " + e.what());
            r.skipped = e.what();
        }
        if (r.skipped.empty()) r.error = r.predicted_value() / r.measured() - 1;
        rows.push_back(std::move(r));
    }
    if (!o.anchor.empty() && std::ranges::none_of(rows, [](const row_result& r) { return r.anchor != nullptr; }))
        throw invalid_argument("--anchor " + o.anchor + ": no row of " + o.data + " has a measurement of the same quantity on " +
                               o.anchor + " in " + (o.anchor_data.empty() ? o.data : o.anchor_data) +
                               " (the same model, precision, " + (o.anchor_any_batch ? "" : "batch, ") +
                               "metric and case columns; the device as the cases name it)");
    const bool by_category = o.group_by == std::vector<std::string>{"category"};
    const auto groups = summarize(rows, o.group_by);
    const std::string model = o.model.cost_model.empty() ? "kernel" : o.model.cost_model;

    if (o.format == "json") {
        nlohmann::ordered_json j{{"cost_model", model}};
        if (!o.anchor.empty()) j["anchor"] = o.anchor;
        j.update({{"rows", nlohmann::ordered_json::array()}, {"categories", nlohmann::ordered_json::object()}});
        for (const auto& r : rows) {
            const std::string unit = r.c.measures_memory() ? "gib" : "ms";
            nlohmann::ordered_json row{{"id", r.c.id}, {"category", r.c.category}, {"model", r.c.model},
                                       {"device", r.c.device}, {"precision", to_string(r.c.precision)},
                                       {"measured_" + unit, r.measured()}};
            if (r.c.batch > 0) row["batch"] = r.c.batch;
            if (r.anchor)
                row.update({{"anchor_id", r.anchor->id}, {"anchor_batch", r.anchor->batch}, {"anchor_ms", r.anchor->time.value() * 1e3}});
            if (r.skipped.empty()) {
                row["predicted_" + unit] = r.predicted_value();
                row["error"] = r.error;
                if (const auto& m = r.predicted.memory) row["memory"] = io::to_json(*m);
            } else {
                row["skipped"] = r.skipped;
            }
            j["rows"].push_back(row);
        }
        const auto summary = [](const group_summary& s) {
            nlohmann::ordered_json g{{"rows", s.rows}, {"skipped", s.skipped}};
            if (s.rows > 0) g.update({{"mape", s.mape}, {"max_error", s.max_error}});
            return g;
        };
        for (const auto& [key, s] : by_category ? groups : summarize(rows, {"category"}))
            j["categories"][key.front()] = summary(s);
        if (!by_category) {
            j["groups"] = nlohmann::ordered_json::array();
            for (const auto& [key, s] : groups) {
                nlohmann::ordered_json g;
                for (std::size_t i = 0; i < key.size(); ++i)  // a batch as the rows give it: a number, or none
                    g[o.group_by[i]] = o.group_by[i] != "batch" ? nlohmann::ordered_json(key[i])
                                       : key[i] == "-"         ? nlohmann::ordered_json()
                                                               : nlohmann::ordered_json(std::stoll(key[i]));
                g.update(summary(s));
                j["groups"].push_back(g);
            }
        }
        std::cout << j.dump(2) << "\n";
        return;
    }
    std::size_t id_width = 9, width = 21;  // the id and category columns: the longest and a space
    for (const auto& r : rows) {
        id_width = std::max(id_width, r.c.id.size() + 1);
        width = std::max(width, r.c.category.size() + 1);
    }
    std::cout << "validation of the " << model << " cost model"
              << (o.anchor.empty() ? "" : ", anchored on " + o.anchor + "'s measurements" + (o.anchor_any_batch ? " at the nearest batch," : ",")) << " against " << rows.size()
              << " published measurements (" << o.data << ")\n\n"
              << pad_right("id", id_width) << pad_right("category", width) << pad_right("model", 30)
              << pad_right("device", 17)
              << pad_left("measured", 12) << pad_left("predicted", 13) << pad_left("error", 9) << "  unit\n";
    for (const auto& r : rows) {
        std::string m = r.c.model.size() > 28 ? r.c.model.substr(0, 27) + "~" : r.c.model;
        std::cout << pad_right(r.c.id, id_width) << pad_right(r.c.category, width) << pad_right(m, 30)
                  << pad_right(r.c.device, 17)
                  << pad_left(fixed(r.measured(), 3), 12);
        const auto& memory = r.predicted.memory;
        if (r.skipped.empty())
            std::cout << pad_left(fixed(r.predicted_value(), 3), 13)
                      << pad_left((r.error >= 0 ? "+" : "") + percent(r.error), 9) << "  " << r.unit()
                      << (memory && !memory->fits() ? "  (memory: " + gib_text(memory->total()) + " GiB of " +
                                                          gib_text(*memory->capacity) + " does not fit)"
                                                    : "")
                      << "\n";
        else
            std::cout << "  " << r.unit() << ", not predicted: " << r.skipped << "\n";
    }
    // The summary: a column for each grouping column, as wide as its longest value and a space.
    std::vector<std::size_t> widths;
    for (const auto& column : o.group_by) widths.push_back(column == "category" ? width : column.size() + 1);
    for (const auto& [key, s] : groups)
        for (std::size_t i = 0; i < key.size(); ++i) widths[i] = std::max(widths[i], key[i].size() + 1);
    std::cout << "\n";
    for (std::size_t i = 0; i < widths.size(); ++i) std::cout << pad_right(o.group_by[i], widths[i]);
    std::cout << pad_left("rows", 5) << pad_left("MAPE", 9) << pad_left("worst", 9) << pad_left("skipped", 9) << "\n";
    for (const auto& [key, s] : groups) {
        for (std::size_t i = 0; i < key.size(); ++i) std::cout << pad_right(key[i], widths[i]);
        std::cout << pad_left(std::to_string(s.rows), 5)
                  << pad_left(s.rows ? percent(s.mape) : "-", 9)
                  << pad_left(s.rows ? (s.max_error >= 0 ? "+" : "") + percent(s.max_error) : "-", 9)
                  << pad_left(std::to_string(s.skipped), 9) << "\n";
    }
}

}  // namespace

void add_validate_command(CLI::App& app) {
    auto o = std::make_shared<validate_options>();
    auto* cmd = app.add_subcommand("validate", "predict published measurements and report the errors per row and per category (or --group-by)");
    cmd->add_option("--data", o->data, "published measurements (validation/measured/calibration.csv's form)")
        ->required()->check(CLI::ExistingFile);
    cmd->add_option("--cases", o->cases, "how to predict each row: id,model,device[,precision][,phase][,link]")
        ->required()->check(CLI::ExistingFile);
    cmd->add_option("--format", o->format, "table or json")->check(CLI::IsMember({"table", "json"}));
    cmd->add_flag("--skip-unsupported", o->skip_unsupported,
                  "list the rows the cost model cannot predict (e.g. paleo-compat and fp16) instead of stopping");
    auto* anchor = cmd->add_option("--anchor", o->anchor,
                                   "predict each row from the same quantity measured on this device (the cases' device "
                                   "column) times the model's ratio of the two devices' times (Habitat's anchoring)");
    auto* anchor_data = cmd->add_option("--anchor-data", o->anchor_data, "the anchor device's measurements, if not in --data")
                            ->check(CLI::ExistingFile)->needs(anchor);
    cmd->add_option("--anchor-cases", o->anchor_cases, "the cases of --anchor-data")
        ->check(CLI::ExistingFile)->needs(anchor_data);
    cmd->add_flag("--anchor-any-batch", o->anchor_any_batch,
                  "the anchor's measurement may be at another batch (the nearest one): the model's ratio carries the "
                  "batch as well as the device")
        ->needs(anchor);
    anchor_data->needs("--anchor-cases");
    cmd->add_option("--cost-model", o->model.cost_model, "kernel (default), paleo, paleo-compat or roofline")
        ->check(CLI::IsMember({"kernel", "paleo", "paleo-compat", "roofline"}));
    const auto ppp = CLI::Range(1e-9, 1.0);
    cmd->add_option("--ppp-compute", o->model.ppp_compute, "paleo, paleo-compat, roofline: fraction of peak FLOP/s")->check(ppp);
    cmd->add_option("--ppp-memory", o->model.ppp_memory, "paleo, roofline: fraction of peak memory bandwidth")->check(ppp);
    cmd->add_option("--ppp-comm", o->model.ppp_comm, "fraction of link bandwidth reached")->check(ppp);
    cmd->add_option("--group-by", o->group_by,
                    "summarize the rows by these case columns, comma-separated: category (default), device, model, "
                    "precision, batch")
        ->delimiter(',')
        ->check(CLI::IsMember(group_columns));
    cmd->add_option("--host-dispatch", o->model.host_dispatch,
                    "kernel: the host's time to issue one kernel in every row, e.g. 60us (default 30us)");
    cmd->add_option("--host-overhead", o->model.host_overhead,
                    "kernel: the host's time per training step that the GPU waits for, in every step row, e.g. 5ms "
                    "(default 0; passes and kernels have none)");
    cmd->callback([o] { run_validate(*o); });
}

}  // namespace steptime::cli
