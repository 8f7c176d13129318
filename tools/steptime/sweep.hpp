// `steptime sweep`: one estimate per point of a grid (devices x networks x collectives x batches x
// workers), with speedup and efficiency against the same configuration on one worker.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "plan.hpp"

namespace steptime::cli {

struct sweep_row {
    std::string model, device, network, comm;
    int workers = 1, tensor_parallel = 1, pipeline_stages = 1;  // data-parallel workers; their stages of t GPUs
    std::int64_t batch = 0, batch_per_worker = 0;
    double step_s = 0, compute_s = 0, comm_s = 0, exposed_comm_s = 0, throughput = 0, speedup = 0, efficiency = 0;
    std::size_t series = 0;  // rows of one (device, network, comm, batch) share a series
    memory_footprint memory{};  // one GPU's
};

// The shortest text that reads back as the same double.
std::string shortest(double v);

// An aligned text table: the first `text_columns` columns flush left, the others flush right.
void write_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& cells, std::size_t text_columns);

// Speedup over one worker: strong scaling t(1)/t(N), weak scaling N t(1)/t(N) (PALEO, 7.1).
double speedup(scaling s, int workers, double t1, double tn);

std::vector<sweep_row> run_sweep(const plan& p);

void write_sweep_table(std::ostream& out, const plan& p, const std::vector<sweep_row>& rows);
void write_sweep_csv(std::ostream& out, const std::vector<sweep_row>& rows);

// The scaling curves of the rows as an SVG drawn by gnuplot.
void plot_sweep(const std::string& svg_file, const plan& p, const std::vector<sweep_row>& rows);

// The `sweep` subcommand: options parsed, grid run, output written, plot drawn.
struct sweep_options {
    std::string format = "table";
    std::optional<std::string> plot;
};
void sweep(const options& o, const sweep_options& s);

}  // namespace steptime::cli
