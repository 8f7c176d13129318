// steptime: the command-line face of the library (a thin layer over it).
//   main.cpp   the subcommands, `predict`'s output
//   plan.cpp   the options predict and sweep share, resolved and checked together
//   sweep.cpp  `sweep`: the grid, its table and CSV, its plot
//   plot.cpp   gnuplot as a child process
//   parse.cpp  strict parsing of quantities with units, integers and lists
//   fit.cpp, scale.cpp, eta.cpp, pareto.cpp, validate.cpp: the subcommands of commands.hpp
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <steptime/io.hpp>

#include "commands.hpp"
#include "parse.hpp"
#include "plan.hpp"
#include "sweep.hpp"

namespace {

using namespace steptime;
using namespace steptime::cli;

// JSON: the estimate, with how it was parallelized inserted before the parts and layers.
nlohmann::ordered_json to_json(const plan& p, const step_estimate& e) {
    nlohmann::ordered_json setup;
    setup["parallelism"] = to_string(p.parallel);
    if (p.parallel != parallelism::model) {
        setup["scaling"] = to_string(p.scale);
        setup["collective"] = to_string(p.comms.front());
        setup["network"] = p.networks.front().name;
        setup["network_bandwidth_Bps"] = to_double(p.networks.front().bandwidth);
        setup["network_latency_s"] = p.compat ? 0.0 : to_double(p.networks.front().latency);
        setup["overlap"] = to_string(p.overlap_with);
    }
    const nlohmann::ordered_json estimate = io::to_json(e);
    nlohmann::ordered_json out;
    for (const auto& item : estimate.items()) {
        if (item.key() == "parts" || item.key() == "layers") {
            for (const auto& s : setup.items()) out[s.key()] = s.value();
            setup.clear();
        }
        out[item.key()] = item.value();
    }
    return out;
}

// The table, then how the step was parallelized when it was.
void write_parallel_table(std::ostream& out, const plan& p, const step_estimate& e) {
    using detail::fixed;
    using detail::ms;
    using detail::pad_left;
    using detail::pad_right;
    write_table(out, e);
    if (e.tensor_parallel > 1)
        out << "tensor groups  " << pad_left(std::to_string(e.tensor_parallel), 12) << "      (GPUs per " << (e.pipeline_stages > 1 ? "stage" : "worker") << ", each layer "
            << "split across them: parameters and activations are one GPU's; " << ms(e.group_communication)
            << " ms of their all-reduces are in the passes)\n";
    const std::string per_worker = std::to_string(e.batch_per_worker) + " samples per worker, " +
                                   std::to_string(e.batch) + " per step";
    // The parts, one row each; a pipeline's stages whose times print the same in one row ("stages 2-63").
    const auto write_parts = [&](std::string_view what) {
        out << "\n" << pad_right(std::string(what), 24) << pad_left("fwd ms", 12) << pad_left("bwd ms", 12)
            << pad_left("apply ms", 12) << pad_left("sync ms", 12) << "\n";
        const auto cells = [&](const step_part& q) {
            return pad_left(ms(q.forward), 12) + pad_left(ms(q.backward), 12) + pad_left(ms(q.update), 12) +
                   pad_left(ms(q.sync), 12);
        };
        for (std::size_t i = 0, j = 0; i < e.parts.size(); i = j) {
            const std::string row = cells(e.parts[i]);
            for (j = i + 1; e.pipeline_stages > 1 && j < e.parts.size() && cells(e.parts[j]) == row;) ++j;
            out << pad_right(j - i > 1 ? "stages " + std::to_string(i + 1) + "-" + std::to_string(j) : e.parts[i].name, 24)
                << row << "\n";
        }
    };
    if (e.pipelined())
        out << "pipeline       " << pad_left(std::to_string(e.pipeline_stages), 12) << "      (stages of "
            << e.tensor_parallel << " GPU" << (e.tensor_parallel > 1 ? "s" : "") << ", "
            << (e.chunks_per_stage > 1 ? std::to_string(e.chunks_per_stage) + " model chunks each, interleaved " : "")
            << "1F1B over " << p.networks.front().name << ", " << e.micro_batches << " micro-batches of "
            << e.micro_batch() << " per step)\n";
    switch (p.parallel) {
        case parallelism::model:
            if (e.workers > 1)
                out << "devices        " << pad_left(std::to_string(e.workers), 12)
                    << "      (model parallelism: layers placed by the network's ModelParallel blocks)\n";
            return;
        case parallelism::hybrid: {
            out << "workers        " << pad_left(std::to_string(e.workers), 12) << "      (hybrid parallelism, "
                << per_worker << ")\n"
                << "sync           " << to_string(p.comms.front()) << " AllReduce of the data-parallel layers' gradients over "
                << p.networks.front().name << " (" << describe(p.networks.front(), p.compat) << ")\n";
            write_parts("part");
            return;
        }
        case parallelism::data:
            if (e.workers == 1) {
                if (e.pipeline_stages > 1) write_parts("stage");
                return;
            }
            if (e.inference) {
                out << "workers        " << pad_left(std::to_string(e.workers), 12) << "      (replicas serving alone, "
                    << to_string(p.scale) << " scaling, " << per_worker << ")\n";
                return;
            }
            out << "workers        " << pad_left(std::to_string(e.workers), 12) << "      (data parallelism, "
                << to_string(p.scale) << " scaling, " << per_worker << ")\n"
                << "comm           " << to_string(p.comms.front()) << " AllReduce of "
                << fixed(e.gradient_bytes.value() / 1e6, 1) << " MB" << (e.pipeline_stages > 1 ? " (the largest stage's)" : "")
                << " over " << p.networks.front().name << " ("
                << describe(p.networks.front(), p.compat) << ")";
            if (p.comms.front() == collective::hierarchical)
                out << ", " << p.gpus_per_node << " GPUs per node over " << p.intra_node.name
                    << (e.tensor_parallel > 1 ? " (" + std::to_string(p.gpus_per_node / e.tensor_parallel) + " worker" +
                                                    (p.gpus_per_node > e.tensor_parallel ? "s)" : ")")
                                              : "");
            out << "\n";
            if (p.overlap_with == overlap::backward)
                out << "exposed comm   " << pad_left(ms(e.exposed_communication), 12)
                    << " ms   (the rest overlaps the backward pass)\n";
            if (e.pipeline_stages > 1) write_parts("stage");
            return;
    }
}

// `--anchor DEVICE=TIME`: a time measured on DEVICE for the same configuration, carried to this device by the
// model's ratio of its two predictions (Habitat's anchoring, scale::anchored_ratio), which cancels the
// model's bias for the network. `--anchor-batch N`: that time was measured at batch N, which the model's
// prediction there takes, so that the ratio carries the batch as well as the device.
struct anchor_option {
    std::optional<std::string> measured;  // DEVICE=TIME
    std::optional<std::int64_t> batch;    // the anchor's batch, if not the prediction's
};

struct anchored_time {
    std::string device;  // where `measured` was taken
    std::optional<std::int64_t> batch;  // at which batch, if not the prediction's
    seconds measured, model_there, model_here;
    seconds time;  // measured x model_here / model_there
};

// `here` is this device's prediction at `batch` (0: the model's own); `there(dev, batch)` predicts the same on
// another device.
template <class Predict>
std::optional<anchored_time> anchored(const anchor_option& a, seconds here, std::int64_t batch, Predict there) {
    if (!a.measured) return std::nullopt;
    auto [dev, measured] = parse_device_time(*a.measured, "--anchor");
    try {
        const seconds model_there = there(load_device(dev), a.batch.value_or(batch));
        return anchored_time{std::move(dev), a.batch, measured, model_there, here,
                             scale::anchored_ratio(measured, model_there, here)};
    } catch (const error& e) {  // the device's file or name, or its prediction
        throw invalid_argument("--anchor '" + *a.measured + "': " + e.what());
    }
}

// The anchored time in the table's words, labelled `what` ("step" or "total").
void write_anchored(std::ostream& out, const anchored_time& a, std::string_view what) {
    using detail::ms;
    out << detail::pad_right("anchored " + std::string(what), 15) << detail::pad_left(ms(a.time), 12) << " ms   ("
        << ms(a.measured) << " ms measured on " << a.device
        << (a.batch ? " at batch " + std::to_string(*a.batch) : std::string()) << " x " << detail::fixed(a.model_here / a.model_there, 4)
        << ", the model's " << ms(a.model_here) << " ms here over its " << ms(a.model_there) << " ms there)\n";
}

nlohmann::ordered_json to_json(const anchored_time& a) {
    nlohmann::ordered_json j{{"device", a.device}};
    if (a.batch) j["batch"] = *a.batch;
    j.update({{"measured_s", a.measured.value()}, {"model_there_s", a.model_there.value()},
              {"model_here_s", a.model_here.value()}, {"time_s", a.time.value()}});
    return j;
}

// `predict --phase`: the chosen passes of one worker, per layer and in total, without the weight update
// (a kernel benchmark's time).
void predict_phases(const plan& p, const options& o, const std::string& phase, const anchor_option& anchor) {
    using namespace detail;
    const auto passes = parse_phases(phase);
    if (!passes)
        throw invalid_argument("--phase '" + phase + "': expected forward, backward-data, backward-weights, backward "
                               "(both gradients), training (all three) or a '+' list such as forward+backward-data");
    if (p.parallel != parallelism::data || p.workers.front() != 1 || p.pipelined())
        throw invalid_argument("--phase times the passes on one device: leave out --workers, --parallelism and the "
                               "pipeline's options");
    if (o.host_overhead)
        throw invalid_argument("--host-overhead is a training step's, charged with its weight update: --phase times "
                               "passes without it");
    const auto on = [&](const device& dev, std::int64_t batch) {
        const estimate_options opt{.batch = batch, .precision = p.precision, .inference = p.inference};
        return std::visit([&](const auto& model) { return estimate_phases(p.net, dev, model, *passes, opt); }, p.cost);
    };
    const phase_estimate e = on(p.devices.front(), p.batches.front());
    const auto a = anchored(anchor, e.total.total(), p.batches.front(),
                            [&](const device& dev, std::int64_t batch) { return on(dev, batch).total.total(); });
    const double seconds_total = e.total.total().value();
    const double rate = seconds_total > 0 ? e.total.work.value() / seconds_total : 0;  // achieved FLOP/s
    if (o.format == "json") {
        nlohmann::ordered_json j;
        j["model"] = e.model;
        j["device"] = e.device;
        j["batch"] = e.batch;
        j["precision"] = to_string(e.precision);
        j["cost_model"] = e.cost_model;
        j["phase"] = to_string(e.passes);
        j["inference"] = e.inference;
        j["time_s"] = seconds_total;
        j["flops"] = e.total.work.value();
        j["bytes"] = e.total.traffic.value();
        j["flops_per_s"] = rate;
        auto& layers = j["layers"] = nlohmann::ordered_json::array();
        for (const auto& l : e.layers)
            layers.push_back({{"name", l.name}, {"op", l.op}, {"flops", l.time.work.value()},
                              {"bytes", l.time.traffic.value()}, {"time_s", l.time.total().value()}});
        if (a) j["anchored"] = to_json(*a);
        std::cout << j.dump(2) << "\n";
    } else if (o.format == "csv") {
        std::cout << "model,device,batch,cost_model,phase,layer,op,flops,bytes,time_s\n";
        const auto row = [&](const std::string& layer, std::string_view op, const layer_time& t) {
            std::cout << csv_field(e.model) << "," << csv_field(e.device) << "," << e.batch << "," << e.cost_model << ","
                      << to_string(e.passes) << "," << csv_field(layer) << "," << op << "," << exact(t.work.value()) << ","
                      << exact(t.traffic.value()) << "," << exact(t.total().value()) << "\n";
        };
        for (const auto& l : e.layers) row(l.name, l.op, l.time);
        row("(total)", "", e.total);
        if (a)
            std::cout << csv_field(e.model) << "," << csv_field(e.device) << "," << e.batch << "," << e.cost_model << ","
                      << to_string(e.passes) << ",(anchored),,,," << exact(a->time.value()) << "\n";
    } else {
        std::cout << e.model << " on " << e.device << ", batch " << e.batch << ", " << to_string(e.precision) << ", "
                  << e.cost_model << " cost model, " << to_string(e.passes)
                  << (e.inference ? " in inference mode" : " (no weight update)") << "\n\n";
        std::size_t w = 5;
        for (const auto& l : e.layers) w = std::max(w, l.name.size());
        std::cout << pad_right("layer", w) << "  " << pad_right("op", 12) << pad_left("FLOPs", 18) << pad_left("bytes", 16)
                  << pad_left("ms", 12) << "\n";
        for (const auto& l : e.layers)
            std::cout << pad_right(l.name, w) << "  " << pad_right(std::string(l.op), 12)
                      << pad_left(fixed(l.time.work.value(), 0), 18) << pad_left(fixed(l.time.traffic.value(), 0), 16)
                      << pad_left(ms(l.time.total()), 12) << "\n";
        std::cout << "\n" << pad_right("total", w) << "  " << pad_right("", 12) << pad_left(fixed(e.total.work.value(), 0), 18)
                  << pad_left(fixed(e.total.traffic.value(), 0), 16) << pad_left(ms(e.total.total()), 12) << "   ("
                  << fixed(rate / 1e12, 2) << " TFLOP/s)\n";
        if (a) write_anchored(std::cout, *a, "total");
    }
}

void predict(const options& o, const std::optional<std::string>& phase, const anchor_option& anchor) {
    const plan p = make_plan(o, /*lists=*/false);
    if (phase) return predict_phases(p, o, *phase, anchor);
    const auto on = [&](const device& dev, std::int64_t batch) {
        return p.run(dev, p.comm_model(p.comms.front(), p.networks.front()), p.workers.front(), batch);
    };
    const step_estimate e = on(p.devices.front(), p.batches.front());
    const auto a = anchored(anchor, e.total, p.batches.front(),
                            [&](const device& dev, std::int64_t batch) { return on(dev, batch).total; });
    if (o.format == "json") {
        auto j = to_json(p, e);
        if (a) j["anchored"] = to_json(*a);
        std::cout << j.dump(2) << "\n";
    } else if (o.format == "csv") {
        write_csv(std::cout, e);
        if (a)
            std::cout << detail::csv_field(e.model) << "," << detail::csv_field(e.device) << "," << e.batch << ","
                      << e.cost_model << ",(anchored),,,,,,,,," << detail::exact(a->time.value()) << "\n";
    } else {
        write_parallel_table(std::cout, p, e);
        if (a) write_anchored(std::cout, *a, "step");
    }
}

template <class Q>
std::string opt_number(const std::optional<Q>& q, double scale) {
    if (!q) return "-";
    return detail::fixed(to_double(*q) / scale, 1);
}

// The catalog as a table, or as a JSON array of device files' objects (a start for a --device file).
void list_devices(const std::string& format) {
    if (format == "json") {
        nlohmann::json all = nlohmann::json::array();
        for (const auto& d : devices::catalog()) all.push_back(io::to_json(d));
        std::cout << all.dump(2) << "\n";
        return;
    }
    std::cout << detail::pad_right("name", 22) << detail::pad_left("FP32 TFLOP/s", 13) << detail::pad_left("FP16 TC", 9)
              << detail::pad_left("mem GB/s", 10) << detail::pad_left("mem GiB", 8) << "  description\n";
    for (const auto& d : devices::catalog()) {
        std::cout << detail::pad_right(d.name, 22) << detail::pad_left(detail::fixed(to_double(d.peak.fp32) / 1e12, 2), 13)
                  << detail::pad_left(opt_number(d.peak.fp16_tensor, 1e12), 9)
                  << detail::pad_left(detail::fixed(to_double(d.memory_bandwidth) / 1e9, 1), 10)
                  << detail::pad_left(opt_number(d.memory_capacity, 1073741824.0), 8) << "  " << d.description << "\n";
    }
}

void list_models() {
    std::cout << detail::pad_right("name", 21) << detail::pad_left("layers", 7) << detail::pad_left("parameters", 13)
              << detail::pad_left("batch", 7) << "  description\n";
    for (const auto& z : zoo::catalog()) {
        const network n = z.build({});
        std::cout << detail::pad_right(std::string(z.name), 21) << detail::pad_left(std::to_string(n.size()), 7)
                  << detail::pad_left(std::to_string(n.parameter_count()), 13)
                  << detail::pad_left(std::to_string(n.native_batch), 7) << "  " << z.description << "\n";
    }
    std::cout << "\nAny PALEO JSON network file is a model too: --model path/to/net.json\n"
                 "Specs: --model vgg16:resolution=160,classes=10 (a zoo network with options),\n"
                 "       --model gemm:m=1760,n=128,k=1760[,ta=1,tb=0] (C[MxN] = op(A)[MxK] op(B)[KxN]),\n"
                 "       --model conv2d:n=16,h=112,w=112,c=64,k=128,r=3,s=3[,stride=1,pad=0,groups=1]\n"
                 "       --model lstm:hidden=1024,batch=128,steps=25[,input=512,skip_input=1] (gru:, rnn: alike)\n"
                 "       --model gpt:layers=24,hidden=2304,heads=24,seq=2048,vocab=51200[,recompute=1] (GPT-2 small by default)\n"
                 "       (with predict --phase forward|backward-data|backward-weights|... for kernel times)\n";
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"steptime: predicts the time of a deep-network training step on GPUs"};
    // Every error, CLI11's own included, is one line on stderr (set before the subcommands inherit it).
    app.failure_message([](const CLI::App*, const CLI::Error& e) {
        return "steptime: error: " + std::string(e.what()) + " (see --help)\n";
    });
    app.set_version_flag("--version", std::string(steptime::version));
    app.require_subcommand(1);

    std::string devices_format = "table";
    auto* dv = app.add_subcommand("devices", "list the built-in device catalog");
    dv->add_option("--format", devices_format, "table, or json: each device as a --device file holds it")
        ->check(CLI::IsMember({"table", "json"}));
    dv->callback([&] { list_devices(devices_format); });
    app.add_subcommand("models", "list the built-in networks")->callback(list_models);

    options po;
    auto* p = app.add_subcommand("predict", "predict one training step, on one device or on many workers");
    add_options(*p, po, /*lists=*/false);
    p->add_option("--format", po.format, "table, json or csv")->check(CLI::IsMember({"table", "json", "csv"}));
    std::optional<std::string> phase;
    p->add_option("--phase", phase,
                  "time only these passes on one device, without the weight update: forward, backward-data, "
                  "backward-weights, backward, training, or a '+' list (forward+backward-data)");
    anchor_option anchor;
    auto* anchor_time = p->add_option("--anchor", anchor.measured,
                  "DEVICE=TIME: a time measured on another device for the same prediction (the step, or the --phase "
                  "passes), e.g. titan-x-maxwell=104ms; also prints it carried here by the model's ratio of the two "
                  "devices' times (Habitat's anchoring)");
    p->add_option("--anchor-batch", anchor.batch,
                  "the batch the --anchor time was measured at, if not --batch: the model's ratio carries the batch too")
        ->check(CLI::Range(std::int64_t{1}, max_batch))->needs(anchor_time);
    p->callback([&] { predict(po, phase, anchor); });

    options so;
    sweep_options ss;
    auto* s = app.add_subcommand("sweep", "predict a grid of configurations: speedup and efficiency against 1 worker");
    add_options(*s, so, /*lists=*/true);
    s->add_option("--format", ss.format, "table or csv")->check(CLI::IsMember({"table", "csv"}));
    s->add_option("--plot", ss.plot, "draw speedup against workers into this SVG file (needs gnuplot)");
    s->callback([&] { sweep(so, ss); });

    add_fit_command(app);
    add_scale_command(app);
    add_validate_command(app);
    add_eta_command(app);
    add_pareto_command(app);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::exception& e) {
        std::cerr << "steptime: error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
