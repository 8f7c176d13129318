#include "plan.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <type_traits>

#include <steptime/io.hpp>

#include "parse.hpp"

namespace steptime::cli {

network load_model(const std::string& m) {
    if (auto net = zoo::from_spec(m)) return std::move(*net);  // a zoo name, name:options, gemm:..., conv2d:...
    if (std::filesystem::exists(m)) return io::load_paleo_json(m);
    std::string names;
    for (const auto& z : zoo::catalog()) names += (names.empty() ? "" : ", ") + std::string(z.name);
    throw invalid_argument("unknown model '" + m + "': not in the zoo (" + names +
                           "), not a spec (gemm:m=,n=,k= or conv2d:n=,h=,w=,c=,k=,r=,s= or lstm|gru|rnn:hidden=,batch=,steps= or gpt[:layers=,hidden=,...] or "
                           "<zoo name>:resolution=,classes=) "
                           "and no such PALEO JSON file");
}

device load_device(const std::string& d) {
    if (const auto* dev = devices::find(d)) return *dev;
    if (std::filesystem::exists(d)) return io::load_device(d);
    // NAME@CLOCK: the device at a sustained clock, the name at_clock gives it.
    const auto at = d.rfind('@');
    if (at != std::string::npos && at + 1 < d.size() && std::isdigit(static_cast<unsigned char>(d[at + 1])))
        return at_clock(load_device(d.substr(0, at)),
                        parse_frequency(std::string_view(d).substr(at + 1), "device '" + d + "': clock"));
    return devices::get(d);  // throws invalid_device naming close catalog entries
}

std::string relative_to(const std::filesystem::path& base, const std::string& name) {
    const auto local = base / name;
    return name.ends_with(".json") && std::filesystem::exists(local) ? local.string() : name;
}

namespace {

constexpr int max_workers = 1'000'000;  // data_parallel's own limit

network_link load_link(const std::string& name, std::string_view option) {
    try {
        if (std::filesystem::exists(name)) return io::load_link(name);
        return links::get(name);
    } catch (const invalid_argument& e) {
        throw invalid_argument(std::string(option) + ": " + e.what());
    }
}

// The items of a grid axis: a comma list in `sweep`, exactly one value in `predict`.
std::vector<std::string> items(const std::string& text, std::string_view option, bool lists) {
    if (!lists && text.find(',') != std::string::npos)
        throw invalid_argument(std::string(option) + " '" + text + "': predict takes one value (steptime sweep takes lists)");
    return lists ? split_list(text, option) : std::vector<std::string>{text};
}

std::vector<collective> make_comms(const options& o, parallelism par, bool compat, bool lists) {
    if (par != parallelism::data) {
        if (!o.comms.empty())
            throw invalid_argument("--comm: " + std::string(to_string(par)) +
                                   " parallelism has no choice of collective (hybrid uses a tree AllReduce "
                                   "with paleo-compat, a ring otherwise; model parallelism none)");
        return {compat ? collective::tree : collective::ring};
    }
    if (o.comms.empty()) return {compat ? collective::tree : collective::ring};
    std::vector<collective> comms;
    for (const auto& name : items(o.comms, "--comm", lists)) {
        collective c{};
        try {
            c = parse_collective(name);
        } catch (const invalid_argument& e) {
            throw invalid_argument(std::string("--comm: ") + e.what());
        }
        if (compat && (c == collective::ring || c == collective::hierarchical))
            throw invalid_argument("--comm " + name + ": PALEO has no " + name +
                                   " AllReduce; with --cost-model paleo-compat use onetoall, tree, butterfly or "
                                   "butterfly-mixing");
        comms.push_back(c);
    }
    return comms;
}

std::vector<network_link> make_networks(const options& o, parallelism par, bool compat, bool lists) {
    if (par == parallelism::model && (!o.networks.empty() || o.bandwidth || o.latency))
        throw invalid_argument("--network: model parallelism has no network between workers; the bandwidth between "
                               "its devices is --cross-device-gbps");
    if (o.latency && !o.bandwidth)
        throw invalid_argument("--latency needs --bandwidth (a preset --network has its own latency)");
    if (o.bandwidth) {
        if (!o.networks.empty()) throw invalid_argument("give --network or --bandwidth, not both");
        network_link l{*o.bandwidth, parse_bandwidth(*o.bandwidth), {}, "--bandwidth/--latency"};
        if (o.latency) {
            l.latency = parse_latency(*o.latency);
            l.name += "+" + *o.latency;
            if (compat && l.latency.value() > 0)
                throw invalid_argument("--latency: paleo-compat uses PALEO's formulas, which have no latency term");
        }
        return {l};
    }
    if (o.networks.empty()) return {load_link(compat ? "paleo:ethernet20" : "ethernet-100g", "--network")};
    std::vector<network_link> nets;
    for (const auto& name : items(o.networks, "--network", lists)) nets.push_back(load_link(name, "--network"));
    return nets;
}

// --intra-network and --gpus-per-node, the node of a hierarchical collective; the others take neither, but
// for the link of a tensor-parallel model's groups.
void set_node(const options& o, bool hierarchical, network_link& intra_node, int& gpus_per_node, bool tensor_parallel = false) {
    if (!hierarchical) {
        if ((o.intra_network && !tensor_parallel) || o.gpus_per_node)
            throw invalid_argument(std::string(o.gpus_per_node ? "--gpus-per-node applies to --comm hierarchical only"
                                                               : "--intra-network applies to --comm hierarchical or "
                                                                 "a tensor-parallel model (gpt:...,tp=N) only"));
        return;
    }
    intra_node = load_link(o.intra_network.value_or("nvlink3"), "--intra-network");
    if (o.gpus_per_node) gpus_per_node = static_cast<int>(parse_integer(*o.gpus_per_node, "--gpus-per-node", 1, max_workers));
}

}  // namespace

any_cost make_cost(const options& o, const std::optional<calibration_profile>& calibration) {
    const auto r = [](std::optional<double> v) { return ratio_of(v.value_or(1.0)); };
    std::optional<bytes_per_second> cross;
    if (o.cross_gbps) cross = bytes_per_second_of(*o.cross_gbps * 1e9);
    if (calibration || !(o.cost_model.empty() || o.cost_model == "kernel")) {
        // The options only the kernel model reads, and what each sets.
        struct kernel_option {
            const std::optional<std::string>& value;
            std::string_view name, sets;
        };
        for (const kernel_option k : {kernel_option{o.layout, "layout", "layout"}, {o.library, "library", "library"},
                                      {o.update_kernels, "update-kernels", "update kernels"},
                                      {o.host_dispatch, "host-dispatch", "host's time per kernel"},
                                      {o.host_overhead, "host-overhead", "host's time per step"}})
            if (k.value)
                throw invalid_argument("--" + std::string(k.name) + " sets the kernel model's " + std::string(k.sets) +
                                       " (the default model, without --calibration); leave it out with other cost models");
    }
    const std::optional<cost::optimizer> update = o.optimizer ? cost::parse_optimizer(*o.optimizer) : std::nullopt;  // checked by its option
    if (update && o.cost_model == "paleo-compat")
        throw invalid_argument("--optimizer: paleo-compat prices PALEO's own update (plain SGD); leave it out");
    if (calibration) {
        if (!(o.cost_model.empty() || o.cost_model == "paleo") || o.ppp_compute || o.ppp_memory)
            throw invalid_argument("--calibration sets paleo's efficiencies: leave out --cost-model (or give paleo), "
                                   "--ppp-compute and --ppp-memory");
        cost::calibrated m;
        m.profile = *calibration;
        if (update) m.update_rule = *update;
        m.ppp_comm = r(o.ppp_comm);
        m.cross_device_bandwidth = cross;
        return m;
    }
    if (o.cost_model == "paleo-compat") {
        if (o.ppp_memory)
            throw invalid_argument("--ppp-memory: paleo-compat has no memory PPP (PALEO's ppp_comp scales memory too)");
        return cost::paleo_compat{r(o.ppp_compute), r(o.ppp_comm), cross, o.use_pipeline};
    }
    if (o.use_pipeline) throw invalid_argument("--use-pipeline is PALEO's option: use it with --cost-model paleo-compat");
    if (o.cost_model == "roofline") {
        cost::roofline m;
        m.ppp_compute = r(o.ppp_compute), m.ppp_memory = r(o.ppp_memory), m.ppp_comm = r(o.ppp_comm);
        m.cross_device_bandwidth = cross;
        if (update) m.update_rule = *update;
        return m;
    }
    if (o.cost_model == "paleo") {
        cost::paleo m;
        m.ppp_compute = r(o.ppp_compute), m.ppp_memory = r(o.ppp_memory), m.ppp_comm = r(o.ppp_comm);
        m.cross_device_bandwidth = cross;
        if (update) m.update_rule = *update;
        return m;
    }
    if (o.ppp_compute || o.ppp_memory)
        throw invalid_argument("--ppp-compute and --ppp-memory set paleo's and roofline's one efficiency; the default "
                               "model (kernel) has one per operator class: add --cost-model paleo or roofline");
    cost::kernel m;
    if (o.layout) m.layout = *parse_layout(*o.layout);  // checked by its option
    if (o.library) m.library = *cost::parse_conv_library(*o.library);  // checked by its option
    if (o.update_kernels) m.update_launch = *cost::parse_update_kernels(*o.update_kernels);  // likewise
    if (o.host_dispatch) m.host_dispatch = parse_latency(*o.host_dispatch, "--host-dispatch");
    if (o.host_overhead) m.host_overhead = parse_latency(*o.host_overhead, "--host-overhead");
    m.ppp_comm = r(o.ppp_comm);
    m.cross_device_bandwidth = cross;
    if (update) m.update_rule = *update;
    return m;
}

std::string_view to_string(parallelism p) {
    return p == parallelism::data ? "data" : p == parallelism::model ? "model" : "hybrid";
}

void add_options(CLI::App& cmd, options& o, bool lists) {
    // The grid axes: one value in predict, a comma list in sweep.
    const auto axis = [lists](const std::string& one, const std::string& many) { return lists ? many : one; };
    cmd.add_option("--model,-m", o.model, "zoo name or PALEO JSON file")->required();
    cmd.add_option("--device,-d", o.devices,
                   axis("catalog name or device JSON file", "catalog names or device JSON files, comma-separated") +
                       "; NAME@CLOCK (k80@560MHz) runs it at a sustained clock: compute peaks scale, memory bandwidth not")
        ->required();
    cmd.add_option("--batch,-b", o.batches,
                   axis("samples", "comma list of samples") +
                       " per step (default: the model's own batch): per worker under weak scaling, split among the "
                       "workers under strong scaling");
    cmd.add_option("--workers,-w", o.workers,
                   axis("workers (GPUs; of a tp=N model's N GPUs each, times --pipeline-stages), 1 to 1000000 (default 1)",
                        "comma list of worker counts (GPUs; of a tp=N model's N GPUs each, times --pipeline-stages), 1 "
                        "to 1000000 (default PALEO's 1,2,4,8,16,32,64,128)"));
    cmd.add_option("--parallelism", o.parallelism, lists ? "data (default) or hybrid" : "data (default), model or hybrid")
        ->check(CLI::IsMember(lists ? std::vector<std::string>{"data", "hybrid"}
                                    : std::vector<std::string>{"data", "model", "hybrid"}));
    cmd.add_option("--scaling", o.scaling, "weak (default: the batch is per worker) or strong (the batch is split)")
        ->check(CLI::IsMember({"weak", "strong"}));
    cmd.add_option("--comm", o.comms,
                   axis("", "comma list of ") +
                       "onetoall, tree, butterfly, butterfly-mixing, ring or hierarchical (default ring; with "
                       "paleo-compat tree, and only PALEO's four)");
    cmd.add_option("--network", o.networks,
                   axis("link between workers, a preset", "comma list of links between workers, presets") +
                       " (default ethernet-100g, or paleo:ethernet20 with paleo-compat)");
    cmd.add_option("--bandwidth", o.bandwidth, "a link of this bandwidth instead of a preset, e.g. 25Gbps or 12.5GB/s");
    cmd.add_option("--latency", o.latency, "the latency of the --bandwidth link, e.g. 5us (default 0)");
    cmd.add_option("--intra-network", o.intra_network,
                   "link between the GPUs of a node: hierarchical's (default nvlink3), and a tp=N model's groups' "
                   "(default the device's intra_node_link)");
    cmd.add_option("--gpus-per-node", o.gpus_per_node, "hierarchical: GPUs per node (default 8)");
    cmd.add_option("--pipeline-stages", o.pipeline_stages,
                   "stages of consecutive layers per worker, each on its own GPU (of a tp=N model: N GPUs), passing "
                   "micro-batches over --network (default 1)")
        ->check(CLI::Range(1, 100'000));
    cmd.add_option("--micro-batches", o.micro_batches,
                   "micro-batches of --batch samples each that a worker's pipeline runs per step, 1F1B (default 1; "
                   "with one stage: gradient accumulation)")
        ->check(CLI::Range(1, 1'000'000));
    cmd.add_option("--chunks-per-stage", o.chunks_per_stage,
                   "model chunks per pipeline stage, Megatron-LM's interleaved schedule (default 1)")
        ->check(CLI::Range(1, 100'000));
    cmd.add_option("--overlap", o.overlap, "none (default) or backward (gradients exchanged in buckets during the backward pass)")
        ->check(CLI::IsMember({"none", "backward"}));
    cmd.add_option("--cost-model", o.cost_model, "kernel (default), paleo, paleo-compat or roofline")
        ->check(CLI::IsMember({"kernel", "paleo", "paleo-compat", "roofline"}));
    const auto ppp = CLI::Range(0.0, 1.0) & CLI::Validator([](std::string& s) {
                         return std::stod(s) > 0 ? std::string{} : std::string("PPP must be in (0, 1]");
                     }, "", "positive");
    cmd.add_option("--calibration", o.calibration,
                   "a device's fitted efficiencies and kernel overhead (the JSON of steptime fit ppp --save)");
    cmd.add_option("--ppp-compute", o.ppp_compute, "fraction of peak FLOP/s reached (PALEO's ppp_comp)")->check(ppp);
    cmd.add_option("--ppp-memory", o.ppp_memory, "fraction of peak memory bandwidth reached")->check(ppp);
    cmd.add_option("--ppp-comm", o.ppp_comm, "fraction of link bandwidth reached (PALEO's ppp_comm)")->check(ppp);
    cmd.add_option("--cross-device-gbps", o.cross_gbps, "bandwidth between model-parallel devices, GB/s")
        ->check(CLI::PositiveNumber);
    cmd.add_flag("--use-pipeline", o.use_pipeline, "paleo-compat: a layer costs max(compute, memory) (PALEO's --use_pipeline)");
    cmd.add_option("--layout", o.layout,
                   "the default model's activation layout: nchw (default: PyTorch's, Caffe's) or nhwc (channels last: "
                   "TensorFlow's, NVIDIA's tuned recipes); NCHW transposes around tensor-core convolutions")
        ->check(CLI::IsMember({"nchw", "nhwc"}));
    cmd.add_option("--library", o.library,
                   "the default model's convolution library: cudnn9 (default: PyTorch 2's; transposes NCHW tensor-core "
                   "convolutions to NHWC and back) or cudnn7 (cuDNN 5.1 to 7.6: runs them on the NCHW tensors as they "
                   "are, and 3x3 and 5x5 convolutions on CUDA cores by non-fused Winograd)")
        ->check(CLI::IsMember({"cudnn7", "cudnn9"}));
    cmd.add_option("--host-dispatch", o.host_dispatch,
                   "the default model's host time to issue one kernel, e.g. 60us (default 30us: PyTorch 2.11 on a "
                   "fast host; older frameworks and slower CPUs take longer): a pass is no shorter than its kernels "
                   "times this");
    cmd.add_option("--host-overhead", o.host_overhead,
                   "the default model's host time per training step that the GPU waits for, e.g. 5ms (default 0: data "
                   "loading and the framework's per-step work, which belong to the job, not the GPU)");
    cmd.add_option("--optimizer", o.optimizer,
                   "the weight update: sgd (default), momentum or adam (FP32 weights, gradients and state read and "
                   "written, once per step or per kernel: --update-kernels; not with paleo-compat)")
        ->check(CLI::IsMember({"sgd", "momentum", "adam"}));
    cmd.add_option("--update-kernels", o.update_kernels,
                   "the default model's update kernels: foreach (default: PyTorch's, a kernel per arithmetic operation over "
                   "all the weights) or fused (one pass: Apex, Megatron-LM, MXNet, TensorFlow)")
        ->check(CLI::IsMember({"foreach", "fused"}));
    cmd.add_option("--precision", o.precision,
                   "fp32, tf32, fp16 or bf16; amp and amp-bf16 name fp16 and bf16, which are mixed precision: "
                   "half-precision activations and tensor-core matmuls, FP32 master weights")
        ->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16", "amp", "amp-bf16"}));
    cmd.add_option("--gradients", o.gradients,
                   "what workers exchange gradients in: fp32 (default, in mixed precision too: PyTorch's DDP and "
                   "TensorFlow reduce the FP32 master weights' gradients), fp16 or bf16 (MXNet, Apex O2, compression)")
        ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
    cmd.add_flag("--inference", o.inference,
                 "the forward pass alone in inference mode (eval: batch norm's running statistics, no dropout, no loss; "
                 "in fp16 or bf16 a converted network, no FP32 weights), with the memory it holds; one GPU, a "
                 "tensor-parallel group or data-parallel replicas");
}

plan make_plan(const options& o, bool lists) {
    const auto precision = parse_precision(o.precision);
    if (!precision) throw invalid_argument("unknown precision '" + o.precision + "'");
    const parallelism par = o.parallelism == "model" ? parallelism::model
                            : o.parallelism == "hybrid" ? parallelism::hybrid
                                                        : parallelism::data;
    const scaling scale = o.scaling == "strong" ? scaling::strong : scaling::weak;
    const overlap ov = o.overlap == "backward" ? overlap::backward : overlap::none;
    const bool compat = o.cost_model == "paleo-compat";
    std::optional<calibration_profile> calibration;
    if (o.calibration) calibration = io::load_calibration(*o.calibration);
    any_cost cost = make_cost(o, calibration);

    if (par != parallelism::data && scale == scaling::strong)
        throw invalid_argument("--scaling strong: " + std::string(to_string(par)) +
                               " parallelism takes the batch per worker (weak scaling only)");
    if (ov == overlap::backward && (par != parallelism::data || compat))
        throw invalid_argument(std::string("--overlap backward: ") +
                               (compat ? "PALEO never overlaps communication with computation (paleo-compat)"
                                       : "only data parallelism overlaps its gradient exchange"));
    if (compat && o.gradients)
        throw invalid_argument("--gradients: PALEO exchanges FP32 gradients (paleo-compat)");
    if (o.inference && (ov == overlap::backward || o.optimizer || o.gradients || o.update_kernels || o.host_overhead))
        throw invalid_argument("--inference runs no backward pass, update or gradient exchange: leave out --overlap, "
                               "--optimizer, --gradients, --update-kernels and --host-overhead");
    if (par == parallelism::hybrid && o.cross_gbps)
        throw invalid_argument("--cross-device-gbps: hybrid parallelism fetches over the --network link");

    std::vector<int> workers;
    for (const auto& w : items(o.workers.empty() ? (lists ? "1,2,4,8,16,32,64,128" : "1") : o.workers, "--workers", lists))
        workers.push_back(static_cast<int>(parse_integer(w, "--workers", 1, max_workers)));
    if (par == parallelism::model && (workers.size() != 1 || workers[0] != 1))
        throw invalid_argument("--workers: model parallelism takes its devices from the network's ModelParallel "
                               "blocks; leave --workers out");

    std::vector<std::int64_t> batches;
    if (o.batches.empty()) batches = {0};  // the model's own
    else
        for (const auto& b : items(o.batches, "--batch", lists)) batches.push_back(parse_integer(b, "--batch", 1, max_batch));

    std::vector<collective> comms = make_comms(o, par, compat, lists);
    const bool hierarchical = std::find(comms.begin(), comms.end(), collective::hierarchical) != comms.end();
    std::vector<network_link> networks = make_networks(o, par, compat, lists);

    std::vector<device> devs;
    for (const auto& d : items(o.devices, "--device", lists)) devs.push_back(load_device(d));

    std::string label = zoo::find(o.model) ? o.model : std::filesystem::path(o.model).stem().string();
    plan p{load_model(o.model), std::move(label), std::move(devs),     std::move(batches),
           std::move(workers),  std::move(comms), std::move(networks), std::move(cost)};
    p.precision = *precision;
    if (o.gradients) p.gradients = *parse_element_type(*o.gradients);  // CLI::IsMember lets only fp32, fp16, bf16 through
    p.parallel = par;
    p.scale = scale;
    p.overlap_with = ov;
    p.compat = compat;
    p.inference = o.inference;
    p.ppp_comm = ratio_of(o.ppp_comm.value_or(1.0));
    const int t = p.net.tensor_parallel;
    set_node(o, hierarchical, p.intra_node, p.gpus_per_node, t > 1);
    if (t > 1 && o.intra_network) p.tensor_link = load_link(*o.intra_network, "--intra-network");
    p.pipeline_stages = o.pipeline_stages;
    p.micro_batches = o.micro_batches;
    p.chunks_per_stage = o.chunks_per_stage;
    if (p.pipelined() && (par != parallelism::data || scale == scaling::strong || ov == overlap::backward))
        throw invalid_argument("--pipeline-stages, --micro-batches and --chunks-per-stage: a pipeline runs with data "
                               "parallelism, weak scaling (--batch is the micro-batch) and --overlap none (its replicas "
                               "exchange gradients after the pipeline's flush)");
    if (t > 1 && hierarchical && p.gpus_per_node % t != 0)
        throw invalid_argument("--gpus-per-node " + std::to_string(p.gpus_per_node) + ": the model's workers are groups of " +
                               std::to_string(t) + " GPUs (tp=" + std::to_string(t) + "), which must fill whole nodes");
    return p;
}

collective_model make_collective(const options& o) {
    const bool compat = o.cost_model == "paleo-compat";
    collective_model m{make_comms(o, parallelism::data, compat, false).front(),
                       make_networks(o, parallelism::data, compat, false).front()};
    set_node(o, m.kind == collective::hierarchical, m.intra_node, m.gpus_per_node);
    m.ppp_comm = ratio_of(o.ppp_comm.value_or(1.0));
    m.paleo_formulas = compat;
    return m;
}

std::string_view plan::cost_name() const {
    return std::visit([](const auto& m) { return std::remove_cvref_t<decltype(m)>::name; }, cost);
}

collective_model plan::comm_model(collective c, const network_link& network) const {
    return {c, network, intra_node, gpus_per_node / net.tensor_parallel, ppp_comm, compat};  // workers per node
}

step_estimate plan::run(const device& dev, const collective_model& comm, int workers, std::int64_t batch) const {
    const estimate_options opt{.batch = batch, .precision = precision, .gradients = gradients, .tensor_link = tensor_link,
                               .inference = inference};
    if (parallel == parallelism::data && scale == scaling::strong) {
        const std::int64_t b = batch == 0 ? net.native_batch : batch;
        if (b < workers)
            throw invalid_argument("--scaling strong splits the batch: " + std::to_string(b) + " samples cannot be shared by " +
                                   std::to_string(workers) + " workers (give --batch " + std::to_string(workers) +
                                   " or more)");
    }
    return std::visit(
        [&](const auto& model) -> step_estimate {
            if (pipelined()) {  // the stages send over the network between workers, at --ppp-comm of its rate
                network_link link = comm.network;
                link.bandwidth = link.bandwidth * ppp_comm;
                return estimate(net, dev, model, comm, data_parallel{workers, scale, overlap_with},
                                pipeline_parallel{pipeline_stages, micro_batches, chunks_per_stage, link}, opt);
            }
            switch (parallel) {
                case parallelism::model: return estimate(net, dev, model, model_parallel{}, opt);
                case parallelism::hybrid:
                    return estimate(net, dev, model, hybrid_parallel{workers, comm.network, ppp_comm}, opt);
                case parallelism::data: break;
            }
            return estimate(net, dev, model, comm, data_parallel{workers, scale, overlap_with}, opt);
        },
        cost);
}

std::string describe(const network_link& l, bool paleo_formulas) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%g Gb/s", to_double(l.bandwidth) * 8 / 1e9);
    std::string s = buf;
    if (paleo_formulas) return s + "; PALEO's formulas, no latency";
    std::snprintf(buf, sizeof buf, ", %g us latency", to_double(l.latency) * 1e6);
    return s + buf;
}

}  // namespace steptime::cli
