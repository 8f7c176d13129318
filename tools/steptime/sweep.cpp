#include "sweep.hpp"

#include <algorithm>
#include <charconv>
#include <iostream>

#include "plot.hpp"

namespace steptime::cli {
namespace {

sweep_row make_row(const plan& p, const step_estimate& e, const std::string& network, const std::string& comm, double t1,
                   std::size_t series) {
    sweep_row r{p.model_label, e.device, network, comm};
    r.workers = e.workers;
    r.tensor_parallel = e.tensor_parallel;
    r.pipeline_stages = e.pipeline_stages;
    r.batch = e.batch;
    r.batch_per_worker = e.batch_per_worker;
    r.step_s = e.total.value();
    r.compute_s = (e.forward + e.backward + e.pipeline_communication + e.bubble + e.update).value();
    r.comm_s = e.communication.value();
    r.exposed_comm_s = e.exposed_communication.value();
    r.throughput = e.throughput();
    r.speedup = speedup(p.scale, r.workers, t1, r.step_s);
    r.efficiency = r.speedup / r.workers;
    r.series = series;
    r.memory = e.memory;
    return r;
}

}  // namespace

std::string shortest(double v) {
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc{} ? std::string(buf, end) : detail::exact(v);
}

void write_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& cells, std::size_t text_columns) {
    std::vector<std::size_t> width;
    for (const auto& row : cells) {
        width.resize(std::max(width.size(), row.size()));
        for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    }
    for (const auto& row : cells) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (i > 0) line += "  ";
            line += i < text_columns ? detail::pad_right(row[i], width[i]) : detail::pad_left(row[i], width[i]);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out << line << "\n";
    }
}

double speedup(scaling s, int workers, double t1, double tn) {
    return (s == scaling::weak ? workers : 1) * t1 / tn;
}

std::vector<sweep_row> run_sweep(const plan& p) {
    std::vector<sweep_row> rows;
    rows.reserve(p.devices.size() * p.networks.size() * p.comms.size() * p.batches.size() * p.workers.size());
    std::size_t series = 0;
    for (const auto& dev : p.devices)
        for (const auto& net : p.networks)
            for (const auto c : p.comms) {
                const collective_model comm = p.comm_model(c, net);
                const std::string label(to_string(c));
                for (const auto batch : p.batches) {
                    // The baseline: the same configuration on one worker, listed or not.
                    const step_estimate one = p.run(dev, comm, 1, batch);
                    const double t1 = one.total.value();
                    for (const int w : p.workers)
                        rows.push_back(make_row(p, w == 1 ? one : p.run(dev, comm, w, batch), net.name, label, t1, series));
                    ++series;
                }
            }
    return rows;
}

void write_sweep_table(std::ostream& out, const plan& p, const std::vector<sweep_row>& rows) {
    using detail::fixed;
    out << p.model_label << (p.net.name() == p.model_label ? "" : " (" + p.net.name() + ")") << ": "
        << to_string(p.parallel) << " parallelism, " << to_string(p.scale) << " scaling, " << p.cost_name() << " cost model, " << to_string(p.precision)
        << (p.overlap_with == overlap::backward ? ", gradients exchanged during the backward pass" : "")
        << (p.inference ? ", inference (the forward pass in eval mode)" : "") << "; speedup over the same configuration on 1 worker\n\n";
    const bool overlapped = p.overlap_with == overlap::backward;
    std::vector<std::vector<std::string>> cells;
    std::vector<std::string> head{"model", "device", "network", "comm", "workers", "batch", "batch/worker", "step ms",
                                  "compute ms", "comm ms"};
    if (overlapped) head.emplace_back("exposed ms");
    for (const char* h : {"samples/s", "speedup", "efficiency", "memory GiB", "fits"}) head.emplace_back(h);
    cells.push_back(std::move(head));
    for (const auto& r : rows) {
        std::vector<std::string> c{r.model,
                                   r.device,
                                   r.network,
                                   r.comm,
                                   std::to_string(r.workers),
                                   std::to_string(r.batch),
                                   std::to_string(r.batch_per_worker),
                                   fixed(r.step_s * 1e3, 3),
                                   fixed(r.compute_s * 1e3, 3),
                                   fixed(r.comm_s * 1e3, 3)};
        if (overlapped) c.push_back(fixed(r.exposed_comm_s * 1e3, 3));
        c.push_back(fixed(r.throughput, 1));
        c.push_back(fixed(r.speedup, 2));
        c.push_back(fixed(r.efficiency * 100, 1) + "%");
        c.push_back(detail::gib_text(r.memory.total()));
        c.push_back(detail::fits_text(r.memory));
        cells.push_back(std::move(c));
    }
    write_aligned(out, cells, 4);
}

void write_sweep_csv(std::ostream& out, const std::vector<sweep_row>& rows) {
    using detail::csv_field;
    const auto exact = shortest;
    out << "model,device,network,comm,workers,batch,batch_per_worker,step_ms,compute_ms,comm_ms,exposed_comm_ms,"
           "throughput_samples_per_s,speedup,efficiency,memory_bytes,fits\n";
    for (const auto& r : rows)
        out << csv_field(r.model) << "," << csv_field(r.device) << "," << csv_field(r.network) << "," << r.comm << ","
            << r.workers << "," << r.batch << "," << r.batch_per_worker << "," << exact(r.step_s * 1e3) << ","
            << exact(r.compute_s * 1e3) << "," << exact(r.comm_s * 1e3) << "," << exact(r.exposed_comm_s * 1e3) << ","
            << exact(r.throughput) << "," << exact(r.speedup) << "," << exact(r.efficiency) << ","
            << exact(r.memory.total().value()) << "," << detail::fits_text(r.memory) << "\n";
}

void plot_sweep(const std::string& svg_file, const plan& p, const std::vector<sweep_row>& rows) {
    // What is the same for every curve goes in the title; what differs names the curves.
    const bool by_device = p.devices.size() > 1, by_network = p.networks.size() > 1, by_comm = p.comms.size() > 1,
               by_batch = p.batches.size() > 1;
    const auto batch_text = [&](std::int64_t b) {
        return "batch " + std::to_string(b == 0 ? p.net.native_batch : b) +
               (p.scale == scaling::strong ? " (global)" : " per worker");
    };
    std::string title = p.model_label + ", " + std::string(to_string(p.parallel)) + " parallelism, " +
                        std::string(to_string(p.scale)) + " scaling";
    if (!by_batch) title += ", " + batch_text(p.batches.front());
    std::string subtitle;
    const auto sub = [&](const std::string& s) { subtitle += (subtitle.empty() ? "" : ", ") + s; };
    if (!by_device) sub(p.devices.front().name);
    if (!by_comm && !by_network) sub(rows.front().comm + " AllReduce over " + rows.front().network);
    else if (!by_comm) sub(rows.front().comm + " AllReduce");
    else if (!by_network) sub("over " + rows.front().network);
    if (std::find(p.comms.begin(), p.comms.end(), collective::hierarchical) != p.comms.end())
        sub("hierarchical: " + std::to_string(p.gpus_per_node) + " GPUs per node over " + p.intra_node.name);
    sub(std::string(p.cost_name()) + " cost model");

    std::vector<curve> curves;
    for (const auto& r : rows) {
        if (r.series >= curves.size()) {
            std::string label;
            const auto add = [&](const std::string& s) { label += (label.empty() ? "" : ", ") + s; };
            if (by_device) add(r.device);
            if (by_comm && by_network) add(r.comm + " over " + r.network);
            else if (by_comm) add(r.comm);
            else if (by_network) add(r.network);
            if (by_batch) add(batch_text(p.batches[r.series % p.batches.size()]));
            if (label.empty()) label = r.comm + " over " + r.network;
            curves.push_back({label, {}});
        }
        curves[r.series].points.emplace_back(r.workers, r.speedup);
    }
    run_gnuplot(speedup_script(svg_file, title, subtitle, curves), svg_file);
}

void sweep(const options& o, const sweep_options& s) {
    if (s.plot) require_gnuplot(), require_writable(*s.plot);  // before any work
    const plan p = make_plan(o, /*lists=*/true);
    if (p.parallel == parallelism::model)
        throw invalid_argument("--parallelism model: the network's placement fixes the devices; use steptime predict");
    const std::vector<sweep_row> rows = run_sweep(p);
    if (s.format == "csv") write_sweep_csv(std::cout, rows);
    else write_sweep_table(std::cout, p, rows);
    std::cout.flush();
    if (s.plot) plot_sweep(*s.plot, p, rows);
}

}  // namespace steptime::cli
