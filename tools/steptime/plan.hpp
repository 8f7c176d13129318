// The options `predict` and `sweep` share, and what they resolve to: a network loaded once, devices,
// links, collectives and a cost model, checked together before any estimate runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>
#include <steptime/steptime.hpp>

namespace steptime::cli {

// What was typed. In `sweep` the devices, batches, workers, comms and networks are comma lists.
struct options {
    std::string model, devices, batches, workers, comms, networks;
    std::optional<std::string> bandwidth, latency, intra_network, gpus_per_node, calibration, layout, library, optimizer, gradients,
        update_kernels, host_dispatch, host_overhead;
    int pipeline_stages = 1, micro_batches = 1, chunks_per_stage = 1;
    // cost_model empty: the default (kernel), which --calibration replaces with paleo's calibrated variant.
    std::string cost_model{}, precision = "fp32", parallelism = "data", scaling = "weak", overlap = "none";
    std::optional<double> ppp_compute, ppp_memory, ppp_comm, cross_gbps;
    bool use_pipeline = false;
    bool inference = false;
    std::string format = "table";
};

// A zoo network by name, or a PALEO JSON file.
network load_model(const std::string& m);
// A catalog device by name, or a device JSON file; either as NAME@CLOCK (k80@560MHz) at that sustained clock.
device load_device(const std::string& d);
// A network or device named in a data file: a JSON file beside that file (in `base`) where there is one,
// else the name as given (a zoo name or spec, a catalog device, a path from the working directory).
std::string relative_to(const std::filesystem::path& base, const std::string& name);

// Registers the shared options on `cmd`; `lists` words the help of the grid axes for `sweep`.
void add_options(CLI::App& cmd, options& o, bool lists);

using any_cost = std::variant<cost::kernel, cost::paleo, cost::paleo_compat, cost::roofline, cost::calibrated>;

// The cost model the options choose (--cost-model, the PPPs, --calibration's profile), checked.
any_cost make_cost(const options& o, const std::optional<calibration_profile>& calibration);

enum class parallelism { data, model, hybrid };

std::string_view to_string(parallelism p);

// The options resolved and checked together. The grid axes hold one value each in `predict`.
struct plan {
    network net;
    std::string model_label;            // the zoo name, or the PALEO JSON file's name without .json
    std::vector<device> devices;
    std::vector<std::int64_t> batches;  // 0: the model's own batch
    std::vector<int> workers;
    std::vector<collective> comms;      // hybrid: the one the library uses (tree in compat, else ring)
    std::vector<network_link> networks;
    any_cost cost;
    element_type precision = element_type::fp32;
    element_type gradients = element_type::fp32;  // what workers exchange
    parallelism parallel = parallelism::data;
    scaling scale = scaling::weak;
    overlap overlap_with = overlap::none;
    network_link intra_node{};
    int gpus_per_node = 8;  // GPUs, not workers: a tensor-parallel model's workers are groups of its tp GPUs
    std::optional<network_link> tensor_link{};  // --intra-network for a tensor-parallel model's groups
    int pipeline_stages = 1, micro_batches = 1, chunks_per_stage = 1;  // a pipeline's p, m and v (over the --network)
    ratio ppp_comm = ratio_of(1.0);
    bool compat = false;
    bool inference = false;  // the forward pass alone in inference mode (estimate_options::inference)

    std::string_view cost_name() const;
    collective_model comm_model(collective c, const network_link& network) const;
    bool pipelined() const { return pipeline_stages > 1 || micro_batches > 1 || chunks_per_stage > 1; }
    // One step of `workers` workers; `batch` is per worker (weak scaling, hybrid; a pipeline's micro-batch) or
    // global (strong).
    step_estimate run(const device& dev, const collective_model& comm, int workers, std::int64_t batch) const;
};

plan make_plan(const options& o, bool lists);

// The collective of the options' --comm over their --network (one each), as make_plan resolves them for data
// parallelism: for what is predicted without a network to train (validate's all-reduce rows).
collective_model make_collective(const options& o);

// "20 Gb/s, 5 us latency" (or "no latency term" for PALEO's formulas).
std::string describe(const network_link& l, bool paleo_formulas);

}  // namespace steptime::cli
