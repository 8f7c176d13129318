// steptime/io/published_csv.hpp: published measurements in validation/measured/calibration.csv's form,
// joined by id with a cases file that says how steptime predicts each (validation/measured/cases.csv):
//
//   id,model,device[,precision][,layout][,library][,optimizer][,update_kernels][,gradients][,phase][,link]
//     [,gpus_per_node][,overlap][,pipeline_stages][,micro_batches][,chunks_per_stage][,note]
//   (older cases files name the model column network)
//   model      a zoo name or spec (resnet50, gemm:m=..., conv2d:...) or a PALEO JSON file (the caller resolves it);
//              for metric allreduce_ms, allreduce:bytes=N, the size of the buffer all-reduced; for metric
//              tflops_per_gpu, a gpt: spec (its FLOPs by Narayanan et al.'s formula turn the rate into a step time);
//              a gpt: spec's tp=t makes the row's GPUs data-parallel groups of t (gpus and gpus_per_node multiples of t)
//   device     a catalog name or a device JSON file
//   precision  fp32 (default), tf32, fp16, bf16, amp or amp-bf16
//   layout     the activations' layout, nchw or nhwc (default: the cost model's own)
//   library    the convolution library, cudnn7 or cudnn9 (default: the cost model's own; cost::conv_library)
//   optimizer  the weight update of a training step, sgd, momentum or adam (default: the cost model's own)
//   update_kernels  how the framework launches that update, foreach or fused (default: the cost model's own;
//              cost::update_kernels)
//   gradients  what the GPUs of a multi-GPU row exchange gradients in, fp32, fp16 or bf16 (default fp32)
//   phase      for kernel metrics: the timed passes, e.g. forward+backward-weights (default: forward for
//              kernel_ms, all three for the fwd_plus_bwd metrics)
//   link       the network between the GPUs of a multi-GPU row (a link name; default: the device's own link;
//              an allreduce_ms row needs one)
//   gpus_per_node  a multi-GPU row's GPUs per node: the gradients are all-reduced hierarchically, inside each node
//              over the device's own link, across nodes over `link` (default: one ring over `link`)
//   overlap    a multi-GPU row's gradient exchange: backward (default: in buckets during the backward pass, as
//              DDP and Horovod run it) or none (after the backward pass; a pipeline's default and only choice)
//   pipeline_stages, micro_batches, chunks_per_stage
//              a step metric's pipeline: each data-parallel worker is pipeline_stages stages (of tp GPUs each),
//              running micro_batches micro-batches of batch_per_gpu samples per step, chunks_per_stage model chunks
//              per stage (Megatron-LM's interleaved schedule); default 1 each
//
// Only the rows the cases name are read, in the cases' order. Errors are parse_error "origin:line: ...".
#pragma once

#include <algorithm>
#include <charconv>
#include <optional>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "steptime/cost/work.hpp"
#include "steptime/detail/csv.hpp"
#include "steptime/estimate.hpp"
#include "steptime/phase_time.hpp"
#include "steptime/zoo/spec.hpp"

namespace steptime::io {

// What a published number measures, and so what steptime predicts for it.
enum class published_metric {
    forward_ms,           // one forward pass
    inference_ms,         // one forward pass in inference mode (eval, no autograd graph)
    backward_ms,          // one backward pass (both gradients, no weight update)
    forward_backward_ms,  // a forward and a backward pass of a network as a framework times them, no update
    images_per_s,         // a training step: (GPUs x batch per GPU) / rate
    kernel_ms,            // one library kernel: the forward pass of a single-operation model
    kernel_passes_ms,     // a kernel's forward and backward passes (fwd_plus_bwd..._ms), no update
    all_reduce_ms,        // a collective alone: an all-reduce of all_reduce_size bytes between the row's GPUs
    tflops_per_gpu,       // a GPT's training step: its FLOPs by Narayanan et al.'s formula over the GPUs' time
    peak_memory_gib,      // a training step's peak of one GPU's tensors (PyTorch's max_memory_allocated), GiB
};

struct published_case {
    std::string id{};
    std::string category{};
    std::string model{};
    std::string device{};
    element_type precision = element_type::fp32;
    int gpus = 1;
    std::int64_t batch = 0;  // per GPU; 0 where the row gives none (a kernel: the model's own)
    published_metric metric = published_metric::forward_ms;
    pass_selection passes{};  // what a kernel metric times: the cases' phase, else the metric's own
    std::string link{};
    int gpus_per_node = 0;  // 0: one ring over link
    int tensor_parallel = 1;  // GPUs per pipeline stage: a gpt: spec's tp
    int pipeline_stages = 1, micro_batches = 1, chunks_per_stage = 1;  // each worker's pipeline
    int gpus_per_worker() const { return tensor_parallel * pipeline_stages; }
    bool overlap = true;    // the gradient exchange overlaps the backward pass
    bytes all_reduce_size{};  // the buffer of an all_reduce_ms row
    std::optional<activation_layout> layout{};
    std::optional<cost::conv_library> library{};
    std::optional<cost::optimizer> update_rule{};
    std::optional<cost::update_kernels> update_launch{};
    element_type gradients = element_type::fp32;
    seconds time{};  // the measured time of what a time metric covers (all but peak_memory_gib)
    bytes peak_memory{};  // the measured peak of a peak_memory_gib row
    bool measures_memory() const { return metric == published_metric::peak_memory_gib; }
};

namespace detail {
// `time`, converted from the cell at `row`, `col`, if finite and positive: a tiny count of milliseconds
// underflows to 0 s, a batch over a tiny rate overflows to infinity.
inline seconds positive_time(seconds time, const steptime::detail::csv_table& t, std::size_t row, std::size_t col,
                             std::string_view expected) {
    if (!(std::isfinite(time.value()) && time.value() > 0))
        throw t.bad(row, col, std::string(expected) + " (a finite, non-zero time in seconds)");
    return time;
}

inline published_metric metric_of(const steptime::detail::csv_table& t, std::size_t r, std::size_t col,
                                  std::size_t unit) {
    const auto m = t.text(r, col);
    const auto in = [&](std::string_view u) {
        if (!t.text(r, unit).starts_with(u)) throw t.bad(r, unit, std::string(u) + " for metric " + std::string(m));
    };
    if (m == "forward_ms" || m == "inference_ms" || m == "backward_ms" || m == "forward_backward_ms" || m == "kernel_ms" ||
        m == "fwd_plus_bwd_ms" || m == "fwd_plus_bwd_data_plus_bwd_filter_ms") {
        in("ms");
        return m == "forward_ms"            ? published_metric::forward_ms
               : m == "inference_ms"        ? published_metric::inference_ms
               : m == "backward_ms"         ? published_metric::backward_ms
               : m == "forward_backward_ms" ? published_metric::forward_backward_ms
               : m == "kernel_ms"           ? published_metric::kernel_ms
                                            : published_metric::kernel_passes_ms;
    }
    if (m == "images_per_s") {
        in("images/s");
        return published_metric::images_per_s;
    }
    if (m == "allreduce_ms") {
        in("ms");
        return published_metric::all_reduce_ms;
    }
    if (m == "tflops_per_gpu") {
        in("TFLOP/s");
        return published_metric::tflops_per_gpu;
    }
    if (m == "peak_memory_gib") {
        in("GiB");
        return published_metric::peak_memory_gib;
    }
    throw t.bad(r, col,
                "forward_ms, inference_ms, backward_ms, forward_backward_ms, images_per_s, kernel_ms, fwd_plus_bwd_ms, "
                "fwd_plus_bwd_data_plus_bwd_filter_ms, allreduce_ms, tflops_per_gpu or peak_memory_gib (steptime does "
                "not predict the others yet)");
}

// The buffer of an all-reduce row's model, allreduce:bytes=N.
inline bytes all_reduce_size(const steptime::detail::csv_table& t, std::size_t r, std::size_t col) {
    constexpr std::string_view prefix = "allreduce:bytes=";
    const std::string_view s = t.text(r, col);
    const std::string_view n = s.substr(std::min(s.size(), prefix.size()));
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
    if (!s.starts_with(prefix) || n.empty() || ec != std::errc{} || end != n.data() + n.size() || v < 1 ||
        v > 1'000'000'000'000'000)
        throw t.bad(r, col, "allreduce:bytes=N, the all-reduced buffer of 1 to 10^15 bytes (metric allreduce_ms)");
    return bytes_of(static_cast<double>(v));
}
}  // namespace detail

inline std::vector<published_case> parse_published_cases(std::string_view published, const std::string& published_origin,
                                                         std::string_view cases, const std::string& cases_origin) {
    const steptime::detail::csv_table p(published, published_origin), c(cases, cases_origin);
    constexpr std::string_view p_format = "calibration.csv's columns id,category,num_gpus,batch_per_gpu,metric,value,unit";
    constexpr std::string_view c_format =
        "the columns id,model,device[,precision][,layout][,library][,optimizer][,update_kernels][,gradients][,phase]"
        "[,link][,gpus_per_node][,overlap][,pipeline_stages][,micro_batches][,chunks_per_stage]";
    const std::size_t p_id = p.column("id", p_format), gpus = p.column("num_gpus", p_format),
                      batch = p.column("batch_per_gpu", p_format), metric = p.column("metric", p_format),
                      value = p.column("value", p_format), unit = p.column("unit", p_format);
    const auto category = p.find("category");
    const std::size_t c_id = c.column("id", c_format), dev = c.column("device", c_format);
    const std::size_t model = c.find("model") ? *c.find("model") : c.column("network", c_format);
    const auto precision = c.find("precision"), layout = c.find("layout"), library = c.find("library"),
               update = c.find("optimizer"), launch = c.find("update_kernels"), gradients = c.find("gradients"),
               phase = c.find("phase"), link = c.find("link"), per_node = c.find("gpus_per_node"),
               overlap = c.find("overlap"), stages = c.find("pipeline_stages"), micro = c.find("micro_batches"),
               chunks = c.find("chunks_per_stage");
    // Each id names one row of each file: a repeated one would be read twice, or predict the wrong row.
    const auto rows_by_id = [](const steptime::detail::csv_table& t, std::size_t col) {
        std::unordered_map<std::string_view, std::size_t> rows;
        for (std::size_t r = 0; r < t.rows(); ++r)
            if (const auto [at, fresh] = rows.emplace(t.text(r, col), r); !fresh)
                throw t.bad(r, col, "an id of its own (line " + std::to_string(t.line(at->second)) + " has it too)");
        return rows;
    };
    const auto published_rows = rows_by_id(p, p_id);
    (void)rows_by_id(c, c_id);
    std::vector<published_case> out;
    for (std::size_t k = 0; k < c.rows(); ++k) {
        const auto found = published_rows.find(c.text(k, c_id));
        if (found == published_rows.end()) throw c.bad(k, c_id, "the id of a row of " + published_origin);
        const std::size_t r = found->second;
        published_case m;
        m.id = c.text(k, c_id);
        if (category) m.category = p.text(r, *category);
        m.model = c.text(k, model);
        if (m.model.empty()) throw c.bad(k, model, "a zoo network or spec, or a PALEO JSON file");
        m.device = c.text(k, dev);
        if (m.device.empty()) throw c.bad(k, dev, "a catalog device or a device JSON file");
        if (precision && !c.text(k, *precision).empty()) {
            const auto e = parse_precision(c.text(k, *precision));
            if (!e) throw c.bad(k, *precision, "fp32, tf32, fp16, bf16, amp or amp-bf16");
            m.precision = *e;
        }
        if (layout && !c.text(k, *layout).empty()) {
            m.layout = parse_layout(c.text(k, *layout));
            if (!m.layout) throw c.bad(k, *layout, "nchw or nhwc");
        }
        if (library && !c.text(k, *library).empty()) {
            m.library = cost::parse_conv_library(c.text(k, *library));
            if (!m.library) throw c.bad(k, *library, "cudnn7 or cudnn9");
        }
        if (update && !c.text(k, *update).empty()) {
            m.update_rule = cost::parse_optimizer(c.text(k, *update));
            if (!m.update_rule) throw c.bad(k, *update, "sgd, momentum or adam");
        }
        if (launch && !c.text(k, *launch).empty()) {
            m.update_launch = cost::parse_update_kernels(c.text(k, *launch));
            if (!m.update_launch) throw c.bad(k, *launch, "foreach or fused");
        }
        if (gradients && !c.text(k, *gradients).empty()) {
            const auto e = parse_element_type(c.text(k, *gradients));
            if (!e || (*e != element_type::fp32 && *e != element_type::fp16 && *e != element_type::bf16))
                throw c.bad(k, *gradients, "fp32, fp16 or bf16");
            m.gradients = *e;
        }
        if (link) m.link = c.text(k, *link);
        m.gpus = static_cast<int>(p.integer(r, gpus, 1, 1'000'000, "a GPU count of at least 1"));
        for (const auto col : {per_node, overlap})  // how GPUs exchange gradients: a single GPU's row has none
            if (col && !c.text(k, *col).empty() && m.gpus < 2) throw c.bad(k, *col, "empty: one GPU exchanges no gradients");
        if (per_node && !c.text(k, *per_node).empty())
            m.gpus_per_node = static_cast<int>(c.integer(k, *per_node, 1, m.gpus, "GPUs per node, 1 to the row's GPUs"));
        if (overlap && !c.text(k, *overlap).empty()) {
            if (c.text(k, *overlap) != "none" && c.text(k, *overlap) != "backward") throw c.bad(k, *overlap, "none or backward");
            m.overlap = c.text(k, *overlap) == "backward";
        }
        // A pipeline: each of the row's data-parallel workers holds pipeline_stages groups of tp GPUs.
        bool pipelined = false;
        for (const auto& [col, value, what] : {std::tuple{stages, &m.pipeline_stages, "pipeline stages"},
                                               {micro, &m.micro_batches, "micro-batches per step"},
                                               {chunks, &m.chunks_per_stage, "model chunks per stage"}})
            if (col && !c.text(k, *col).empty()) {
                const std::int64_t most = col == micro ? 1'000'000 : 100'000;
                *value = static_cast<int>(c.integer(k, *col, 1, most, std::string(what) + ", 1 to " + std::to_string(most)));
                pipelined = pipelined || *value > 1;
            }
        if (pipelined) {
            if (overlap && c.text(k, *overlap) == "backward")
                throw c.bad(k, *overlap, "none or empty: a pipeline's replicas exchange gradients after its flush");
            m.overlap = false;
        }
        std::optional<zoo::gpt_config> gpt;
        try {
            gpt = zoo::gpt_config_of(m.model);
        } catch (const invalid_argument& e) {
            throw parse_error(c.where(c.line(k)) + "row " + m.id + ": " + e.what());
        }
        if (gpt) m.tensor_parallel = gpt->tensor_parallel;  // tensor parallelism: each stage a group of tp GPUs
        if (const int w = m.gpus_per_worker(); m.gpus % w != 0)
            throw p.bad(r, gpus, "a multiple of " + std::to_string(w) + ", the GPUs of a worker (tp=" +
                                     std::to_string(m.tensor_parallel) + " x " + std::to_string(m.pipeline_stages) +
                                     " pipeline stages)");
        if (gpt) {
            const int t = m.tensor_parallel;
            if (m.gpus_per_node % t != 0)
                throw c.bad(k, *per_node, "a multiple of the model's tp=" + std::to_string(t) + " (a worker's GPUs share a node)");
        }
        if (!p.text(r, batch).empty()) m.batch = p.integer(r, batch, 1, max_batch, "a batch size of at least 1");
        m.metric = detail::metric_of(p, r, metric, unit);
        const bool kernel = m.metric == published_metric::kernel_ms || m.metric == published_metric::kernel_passes_ms;
        const std::string_view given = phase ? c.text(k, *phase) : std::string_view{};
        if (m.metric == published_metric::all_reduce_ms) {
            m.all_reduce_size = detail::all_reduce_size(c, k, model);
            if (m.gpus < 2) throw p.bad(r, gpus, "2 or more (an all-reduce runs between GPUs)");
            if (m.link.empty())
                throw parse_error(c.where(c.line(k)) + "row " + m.id + ": an allreduce_ms row needs a link (column 'link': "
                                  "the network it runs over, e.g. pcie3-x16 or ib-fdr)");
            if (!given.empty()) throw c.bad(k, *phase, "empty: only kernel metrics take a phase");
            if (m.layout || m.library || m.update_rule || m.update_launch || m.gradients != element_type::fp32 ||
                m.precision != element_type::fp32 || !m.overlap)
                throw parse_error(c.where(c.line(k)) + "row " + m.id + ": an allreduce_ms row takes no layout, library, "
                                  "optimizer, update_kernels, gradients, overlap or precision but fp32 (its buffer is all "
                                  "it moves)");
        } else if (m.model.starts_with("allreduce:")) {
            throw c.bad(k, model, "a zoo network or spec, or a PALEO JSON file (allreduce: is for metric allreduce_ms)");
        } else if (kernel) {
            if (m.gpus != 1) throw p.bad(r, gpus, "1 (a library kernel runs on one GPU)");
            const auto s = parse_phases(!given.empty() ? given : m.metric == published_metric::kernel_ms ? "forward" : "training");
            if (!s) throw c.bad(k, *phase, "forward, backward-data, backward-weights, backward, training or a '+' list");
            m.passes = *s;
        } else {
            if (!given.empty()) throw c.bad(k, *phase, "empty: only kernel metrics take a phase");
            if (m.batch == 0) throw p.bad(r, batch, "a batch size of at least 1 (a pass or step of a network)");
        }
        const bool step = m.metric == published_metric::images_per_s || m.metric == published_metric::tflops_per_gpu ||
                          m.measures_memory();
        if (pipelined && !step)
            throw parse_error(c.where(c.line(k)) + "row " + m.id + ": a pipeline (pipeline_stages, micro_batches, "
                              "chunks_per_stage) predicts a training step: metric images_per_s, tflops_per_gpu or "
                              "peak_memory_gib");
        // The samples of a step: every worker's micro-batches of batch_per_gpu.
        const double workers = static_cast<double>(m.gpus / m.gpus_per_worker());
        const double samples = workers * m.micro_batches * static_cast<double>(m.batch);
        double step_flops = 0;  // tflops_per_gpu: the step's FLOPs by the paper's formula, all GPUs together
        if (m.metric == published_metric::tflops_per_gpu) {
            if (!gpt) throw c.bad(k, model, "a gpt: spec (metric tflops_per_gpu divides the FLOPs of a GPT by Narayanan et al.)");
            step_flops = gpt->paper_flops(samples);
        }
        const double v = p.positive(r, value, "a positive measurement");
        const double gpus = static_cast<double>(m.gpus);
        if (m.measures_memory()) {
            m.peak_memory = bytes_of(v * 0x1p30);
            if (!std::isfinite(m.peak_memory.value()))
                throw p.bad(r, value, "a positive measurement (a finite count of GiB)");
        } else {
            m.time = detail::positive_time(m.metric == published_metric::images_per_s     ? seconds_of(samples / v)
                                           : m.metric == published_metric::tflops_per_gpu ? seconds_of(step_flops / (v * 1e12 * gpus))
                                                                                          : milliseconds_of(v),
                                           p, r, value, "a positive measurement");
        }
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace steptime::io
