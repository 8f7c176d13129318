// `steptime scale`: measured kernel and operation times from one GPU predicted on another (wave scaling).
#include <iostream>
#include <memory>
#include <string>

#include <steptime/io.hpp>

#include "commands.hpp"
#include "parse.hpp"
#include "plan.hpp"

namespace steptime::cli {
namespace {

struct scale_options {
    std::string measured, from, to;
    std::string mode = "wave", format = "table", launch_floor = "2us";
    bool kernels = false;
};

std::string us(seconds t) { return detail::fixed(to_double(t) * 1e6, 1); }
double quotient(seconds predicted, seconds measured) { return to_double(predicted) / to_double(measured); }
std::string times(seconds predicted, seconds measured) { return detail::fixed(quotient(predicted, measured), 3); }

std::string clip(const std::string& s, std::size_t width) {
    if (s.size() <= width) return s;
    std::string out = s.substr(0, width - 3);
    out += "...";
    return out;
}

// A CSV field: quoted when it holds a comma or a quote (RFC 4180, as io/kernel_trace.hpp reads it).
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"") == std::string::npos) return s;
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
}

std::string waves(const scale::scaled_kernel& k) {
    if (!k.waves_origin) return "-";
    return std::to_string(*k.waves_origin) + "->" + std::to_string(*k.waves_destination) + (k.small ? " small" : "");
}

void write_table(const scale_options& o, const device& from, const device& to, const scale::scaled_run& r) {
    using detail::fixed;
    using detail::pad_left;
    using detail::pad_right;
    std::size_t kernels = 0;
    for (const auto& op : r.ops) kernels += op.kernels.size();
    std::cout << o.measured << ": " << kernels << " kernels in " << r.ops.size() << " operations, " << from.name
              << " -> " << to.name << ", mode " << o.mode << "\n\n"
              << pad_right("operation", 40) << pad_left("kernels", 8) << pad_left("measured us", 13)
              << pad_left("predicted us", 14) << pad_left("ratio", 8) << (o.kernels ? "   gamma  waves" : "") << "\n";
    for (const auto& op : r.ops) {
        std::cout << pad_right(clip(op.name, 40), 40) << pad_left(std::to_string(op.kernels.size()), 8)
                  << pad_left(us(op.measured), 13) << pad_left(us(op.predicted), 14)
                  << pad_left(times(op.predicted, op.measured), 8) << "\n";
        if (!o.kernels) continue;
        for (const auto& k : op.kernels)
            std::cout << "  " << pad_right(clip(k.name, 46), 46) << pad_left(us(k.measured), 13)
                      << pad_left(us(k.predicted), 14) << pad_left(times(k.predicted, k.measured), 8)
                      << pad_left(fixed(to_double(k.gamma), 2), 8) << "  " << waves(k) << "\n";
        if (op.overhead.value() > 0)
            std::cout << "  " << pad_right("(overhead, unscaled)", 46) << pad_left(us(op.overhead), 13)
                      << pad_left(us(op.overhead), 14) << "\n";
    }
    std::cout << "\n"
              << pad_right("total", 40) << pad_left(std::to_string(kernels), 8) << pad_left(us(r.measured), 13)
              << pad_left(us(r.predicted), 14) << pad_left(times(r.predicted, r.measured), 8) << "\n";
}

void write_csv(const scale_options& o, const scale::scaled_run& r) {
    if (o.kernels) {
        std::cout << "op,kernel,measured_us,predicted_us,ratio,gamma,waves_from,waves_to,small\n";
        for (const auto& op : r.ops)
            for (const auto& k : op.kernels)
                std::cout << csv_field(op.name) << "," << csv_field(k.name) << "," << detail::exact(to_double(k.measured) * 1e6)
                          << "," << detail::exact(to_double(k.predicted) * 1e6) << "," << detail::exact(quotient(k.predicted, k.measured))
                          << "," << detail::exact(to_double(k.gamma)) << ","
                          << (k.waves_origin ? std::to_string(*k.waves_origin) : "") << ","
                          << (k.waves_destination ? std::to_string(*k.waves_destination) : "") << ","
                          << (k.small ? "true" : "false") << "\n";
        return;
    }
    std::cout << "op,kernels,measured_us,overhead_us,predicted_us,ratio\n";
    for (const auto& op : r.ops)
        std::cout << csv_field(op.name) << "," << op.kernels.size() << "," << detail::exact(to_double(op.measured) * 1e6)
                  << "," << detail::exact(to_double(op.overhead) * 1e6) << ","
                  << detail::exact(to_double(op.predicted) * 1e6) << "," << detail::exact(quotient(op.predicted, op.measured)) << "\n";
}

void write_json(const scale_options& o, const device& from, const device& to, const scale::scaled_run& r) {
    using nlohmann::ordered_json;
    const auto micro = [](seconds t) { return to_double(t) * 1e6; };
    ordered_json out{{"measured", o.measured}, {"from", from.name}, {"to", to.name}, {"mode", o.mode},
                     {"measured_us", micro(r.measured)}, {"predicted_us", micro(r.predicted)},
                     {"ratio", quotient(r.predicted, r.measured)}};
    ordered_json ops = ordered_json::array();
    for (const auto& op : r.ops) {
        ordered_json kernels = ordered_json::array();
        for (const auto& k : op.kernels) {
            ordered_json jk{{"name", k.name}, {"measured_us", micro(k.measured)}, {"predicted_us", micro(k.predicted)},
                            {"gamma", to_double(k.gamma)}, {"small", k.small}};
            jk["waves_from"] = k.waves_origin ? ordered_json(*k.waves_origin) : ordered_json(nullptr);
            jk["waves_to"] = k.waves_destination ? ordered_json(*k.waves_destination) : ordered_json(nullptr);
            kernels.push_back(std::move(jk));
        }
        ops.push_back({{"name", op.name}, {"measured_us", micro(op.measured)}, {"overhead_us", micro(op.overhead)},
                       {"predicted_us", micro(op.predicted)}, {"ratio", quotient(op.predicted, op.measured)},
                       {"kernels", std::move(kernels)}});
    }
    out["ops"] = std::move(ops);
    std::cout << out.dump(2) << "\n";
}

void run(const scale_options& o) {
    const device from = load_device(o.from);
    const device to = load_device(o.to);
    const scale::scaling_options options{.mode = *scale::parse_scaling_mode(o.mode),  // checked by CLI11
                                         .launch_floor = parse_latency(o.launch_floor, "--launch-floor")};
    const scale::scaled_run r = scale::scale_ops(io::load_measured(o.measured), from, to, options);
    if (o.format == "json") write_json(o, from, to, r);
    else if (o.format == "csv") write_csv(o, r);
    else write_table(o, from, to, r);
}

}  // namespace

void add_scale_command(CLI::App& app) {
    auto o = std::make_shared<scale_options>();
    auto* cmd = app.add_subcommand("scale", "predict measured kernel times on another GPU by wave scaling (Habitat)");
    cmd->add_option("--measured", o->measured, "kernel CSV or PyTorch profiler (Kineto) trace JSON")->required();
    cmd->add_option("--from", o->from, "the GPU it was measured on: catalog name or device JSON file")->required();
    cmd->add_option("--to", o->to, "the GPU to predict: catalog name or device JSON file")->required();
    cmd->add_option("--mode", o->mode,
                    "wave (default), habitat-code, habitat-eq2, resimplified, or anchored-roofline (the measured "
                    "time x the ratio of the kernel's roofline times; needs flops and bytes)")
        ->check(CLI::IsMember({"wave", "habitat-code", "habitat-eq2", "resimplified", "anchored-roofline"}));
    cmd->add_option("--launch-floor", o->launch_floor, "mode wave: shortest prediction of a sub-wave kernel (default 2us)");
    cmd->add_flag("--kernels", o->kernels, "one row per kernel, with gamma and waves");
    cmd->add_option("--format", o->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
    cmd->callback([o] { run(*o); });
}

}  // namespace steptime::cli
