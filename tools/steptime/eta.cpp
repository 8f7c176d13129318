// `steptime eta`: the remaining time of a running job from its progress log (AI Gauge's online estimate),
// optionally on other hardware through the ratio of two predicted steps.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <steptime/io.hpp>

#include "commands.hpp"
#include "plan.hpp"

namespace steptime::cli {
namespace {

struct eta_options {
    std::string log, log_format = "auto", format = "table";
    std::optional<std::int64_t> total, epochs, batch;
    std::size_t window = 50, warmup = 1;
    std::optional<std::string> from, to, model;
    std::string cost_model{}, precision = "fp32";  // cost_model empty: the default (kernel)
};

// Where a retargeted estimate comes from: the predicted steps on both devices.
struct retargeting {
    step_estimate origin, destination;
    ratio factor = ratio_of(1.0);
};

// One step of `model` on `dev` through the options `predict` takes (plan.hpp).
step_estimate predicted_step(const eta_options& o, const std::string& dev) {
    options po;
    po.model = *o.model;
    po.devices = dev;
    if (o.batch) po.batches = std::to_string(*o.batch);
    po.cost_model = o.cost_model;
    po.precision = o.precision;
    const plan p = make_plan(po, /*lists=*/false);
    return p.run(p.devices.front(), p.comm_model(p.comms.front(), p.networks.front()), p.workers.front(),
                 p.batches.front());
}

std::int64_t total_of(const eta_options& o, const io::progress_log& log) {
    if (o.total) return *o.total;
    if (o.epochs) {
        if (!log.per_epoch)
            throw invalid_argument("--epochs: the log does not say how many iterations an epoch has; give --total");
        return *o.epochs * *log.per_epoch;
    }
    if (log.total) return *log.total;
    throw invalid_argument(std::string(o.log) += ": the log does not say how many iterations the job has; give --total N "
                                                 "(iterations) or --epochs N");
}

// "812.3 s (0:13:32)": seconds, and hours:minutes:seconds from a minute up.
std::string duration(seconds t) {
    const double s = to_double(t);
    std::string out = detail::fixed(s, 1) + " s";
    if (s < 60) return out;
    const auto whole = static_cast<std::int64_t>(std::llround(s));
    char buf[48];
    std::snprintf(buf, sizeof buf, " (%lld:%02lld:%02lld)", static_cast<long long>(whole / 3600),
                  static_cast<long long>(whole / 60 % 60), static_cast<long long>(whole % 60));
    return out += buf;
}

void write_times(std::ostream& out, const eta_estimate& e) {
    out << "per iteration  " << detail::ms(e.per_iteration) << " ms (spread " << detail::ms(e.per_iteration_spread)
        << " ms)\n"
        << "remaining      " << duration(e.remaining) << "\n"
        << "95% band       " << duration(e.remaining_low) << " to " << duration(e.remaining_high) << "\n"
        << "with pauses    " << duration(e.remaining_with_pauses) << "   (outliers kept at the rate seen)\n";
}

void write_table(std::ostream& out, const eta_options& o, const io::progress_log& log, const eta_estimate& e,
                 const std::optional<retargeting>& r) {
    out << "log            " << o.log << " (" << io::to_string(log.format) << " format, " << log.samples.size()
        << " timed samples, " << log.ignored << " records ignored)\n"
        << "progress       " << e.done << " of " << e.total << " iterations ("
        << detail::fixed(100.0 * static_cast<double>(e.done) / static_cast<double>(e.total), 1) << "%)\n"
        << "window         " << e.intervals << " intervals (" << e.outliers << " outliers dropped), "
        << e.window_iterations << " iterations; " << e.warmup_dropped << " warm-up interval(s) dropped\n";
    write_times(out, e);
    if (!r) return;
    out << "\non " << r->destination.device << ": x " << detail::fixed(to_double(r->factor), 4) << ", the ratio of "
        << r->destination.model << "'s predicted steps (batch " << r->destination.batch << ", " << r->destination.cost_model
        << "): " << detail::ms(r->destination.total) << " ms on " << r->destination.device << " / "
        << detail::ms(r->origin.total) << " ms on " << r->origin.device << "\n";
    write_times(out, retarget(e, r->factor));
}

nlohmann::ordered_json times_json(const eta_estimate& e) {
    nlohmann::ordered_json j;
    j["per_iteration_s"] = to_double(e.per_iteration);
    j["per_iteration_spread_s"] = to_double(e.per_iteration_spread);
    j["remaining_s"] = to_double(e.remaining);
    j["remaining_low_s"] = to_double(e.remaining_low);
    j["remaining_high_s"] = to_double(e.remaining_high);
    j["remaining_with_pauses_s"] = to_double(e.remaining_with_pauses);
    return j;
}

nlohmann::ordered_json to_json(const eta_options& o, const io::progress_log& log, const eta_estimate& e,
                               const std::optional<retargeting>& r) {
    nlohmann::ordered_json j;
    j["log"] = o.log;
    j["log_format"] = io::to_string(log.format);
    j["samples"] = log.samples.size();
    j["ignored_records"] = log.ignored;
    j["done"] = e.done;
    j["total"] = e.total;
    j["window_intervals"] = e.intervals;
    j["outliers"] = e.outliers;
    j["window_iterations"] = e.window_iterations;
    j["warmup_dropped"] = e.warmup_dropped;
    j.update(times_json(e));
    if (r) {
        nlohmann::ordered_json t;
        t["from"] = r->origin.device;
        t["to"] = r->destination.device;
        t["model"] = r->destination.model;
        t["batch"] = r->destination.batch;
        t["cost_model"] = r->destination.cost_model;
        t["from_step_s"] = to_double(r->origin.total);
        t["to_step_s"] = to_double(r->destination.total);
        t["ratio"] = to_double(r->factor);
        t.update(times_json(retarget(e, r->factor)));
        j["retargeted"] = t;
    }
    return j;
}

void run_eta(const eta_options& o) {
    if (o.total && o.epochs) throw invalid_argument("give --total or --epochs, not both");
    if (o.to.has_value() != (o.from && o.model))
        throw invalid_argument(o.to ? "--to needs --from (the job's device) and --model (its network) to form the ratio"
                                    : "--from and --model go with --to (the device to retarget to)");
    if (!o.to && o.batch) throw invalid_argument("--batch goes with --to");
    const io::progress_format format = o.log_format == "simple" ? io::progress_format::simple
                                       : o.log_format == "tqdm" ? io::progress_format::tqdm
                                       : o.log_format == "keras" ? io::progress_format::keras
                                                                 : io::progress_format::automatic;
    const io::progress_log log = io::load_progress_log(o.log, format);
    const eta_estimate e =
        estimate_eta(log.samples, log.position, total_of(o, log), {.window = o.window, .warmup = o.warmup});
    std::optional<retargeting> r;
    if (o.to) {
        retargeting t{predicted_step(o, *o.from), predicted_step(o, *o.to)};
        t.factor = t.destination.total / t.origin.total;  // the model's step time there / here
        r = t;
    }
    if (o.format == "json") std::cout << to_json(o, log, e, r).dump(2) << "\n";
    else write_table(std::cout, o, log, e, r);
}

}  // namespace

void add_eta_command(CLI::App& app) {
    auto o = std::make_shared<eta_options>();
    auto* cmd = app.add_subcommand("eta", "remaining time of a running job from its progress log, here or on other hardware");
    cmd->add_option("--log,-l", o->log, "the job's progress log (simple, tqdm/Lightning or Keras format)")->required();
    cmd->add_option("--log-format", o->log_format, "auto (default), simple, tqdm or keras")
        ->check(CLI::IsMember({"auto", "simple", "tqdm", "keras"}));
    cmd->add_option("--total", o->total, "iterations in the job, when the log does not say")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 53));
    cmd->add_option("--epochs", o->epochs, "epochs in the job (x the log's iterations per epoch)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
    cmd->add_option("--window", o->window, "intervals in the moving average (default 50)")
        ->check(CLI::Range(std::size_t{2}, std::size_t{1} << 30));
    cmd->add_option("--warmup", o->warmup, "intervals dropped at the start of each segment (default 1)")
        ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30));
    cmd->add_option("--to", o->to, "retarget to this device (catalog name or device JSON file)");
    cmd->add_option("--from", o->from, "with --to: the device the job runs on");
    cmd->add_option("--model,-m", o->model, "with --to: the job's network, a zoo name or PALEO JSON file");
    cmd->add_option("--batch,-b", o->batch, "with --to: samples per step (default: the model's own batch)")
        ->check(CLI::Range(std::int64_t{1}, max_batch));
    cmd->add_option("--cost-model", o->cost_model, "with --to: kernel (default), paleo, paleo-compat or roofline")
        ->check(CLI::IsMember({"kernel", "paleo", "paleo-compat", "roofline"}));
    cmd->add_option("--precision", o->precision, "with --to: fp32, tf32, fp16, bf16, amp or amp-bf16")
        ->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16", "amp", "amp-bf16"}));
    cmd->add_option("--format", o->format, "table or json")->check(CLI::IsMember({"table", "json"}));
    cmd->callback([o] { run_eta(*o); });
}

}  // namespace steptime::cli
