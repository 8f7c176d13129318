// steptime/cost/kernel.hpp: each pass of each layer as the GPU kernel that runs it. Its time is the roofline
// of that kernel (the larger of compute and memory time, Williams et al., CACM 2009) at the efficiency its
// operator class reaches, with wave quantization of GEMM-like kernels and a launch cost per kernel.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "steptime/cost/work.hpp"

namespace steptime::cost {

// What kernels of each class reach, as fractions of the peaks of the pipe and memory they run on.
// The defaults and their reasoning are in docs/model.md; they come from
// DeepBench's large cuBLAS GEMMs, STREAM-like copies and the H100's measured ceilings, not from
// whole-network times.
struct kernel_efficiency {
    // SGEMM on CUDA cores, large sizes. A warp scheduler of 16 FP32 lanes (GV100, TU10x, GA100: 4 per 64-lane SM)
    // holds an FFMA warp instruction two cycles, and the loads and address arithmetic issue in between (DeepBench
    // V100: 94%).
    ratio simt_matmul = ratio_of(0.94);
    // A scheduler of more lanes ("wide", as Kepler's 48 below: 32 in Maxwell, Pascal, GP100's two per SM included,
    // GA10x, Ada, Hopper, Blackwell) issues an FFMA every cycle, so every other instruction takes an FFMA's slot
    // (DeepBench Titan X Maxwell: 71%; the H100's 8192^3 SGEMM measured here: 77%).
    ratio simt_matmul_wide = ratio_of(0.75);
    // The graphics dies' wide SMs (GA10x, Ada, GB20x: graphics_sm) reach less: PyTorch's FP32 torch.mm on desktop
    // GeForce boards in physical machines, best of 1024^2 to 10240^2, took 0.64-0.71 of the peak at the boost clock,
    // median 0.68 of nine runs (RTX 3090 two, 4070 SUPER two, 4090 three, 5090, 5090 D v2), where the same table's
    // H100 and H200 took 0.78 and 0.77 (zzc0721/torch-performance-test-data's database.md at 0785868).
    ratio simt_matmul_graphics = ratio_of(0.68);
    // Kepler's 48 lanes a scheduler fill only at 1.5 FFMA warp instructions a cycle, two of one warp issued together
    // every other cycle, which the loads between them and register bank conflicts rarely allow (Lai & Seznec, CGO
    // 2013, bound GK104's SGEMM at 58% of peak): cuBLAS 7.0's SGEMMs of 2048^3 to 5760^3 on a K40 with its clocks
    // set to boost reached 3.0-3.3 of 5.04 TFLOPS (clBLAS's doc/performance/cuBLAS_7.0/Tesla_K40/sgemm.csv).
    ratio simt_matmul_dual_issue = ratio_of(0.65);
    // On a wide SM a convolution's FP32 gradient kernels (cuDNN's implicit GEMMs) issue more instructions
    // besides their FFMAs than its forward kernel does, each in an FFMA's slot: the data gradient works out which
    // outputs and taps reach each input pixel, the weight gradient splits its reduction over the batch's pixels
    // and adds the slices up (so does Winograd's, over the batch's tiles; its data gradient is a forward pass of
    // the transformed tensors). The H100's ResNet-50 convolutions timed alone in FP32 (conv_layers.csv,
    // a fit network; GEMMs of one size in all three passes): data gradients 1.34x and weight gradients 1.48x the
    // forward time; not so the RGB first layer, whose 3 channels fill no 16-byte load (weight gradient 1.12x of a
    // forward pass slow too; gathered_weight_gradient_instructions).
    // With 16 lanes a scheduler those instructions issue in the FFMA's second cycle.
    ratio simt_wide_data_gradient = ratio_of(1 / 1.34);
    ratio simt_wide_weight_gradient = ratio_of(1 / 1.48);
    // In NCHW an ungrouped convolution whose input channels fill no 16-byte load (an RGB first layer's 3) gathers
    // its image's channel planes for the weight gradient an element a load: the warp instructions that gradient
    // issues per FFMA. A scheduler that issues an FFMA every cycle (32 or 48 lanes) then reaches 1/3 of the peak,
    // one that holds it two cycles 2/3. DeepBench's 7x7 stride-2 first layer at batch 16: 2.25 ms on the Titan X
    // Maxwell (cuDNN 5), 0.55 ms on the V100 (cuDNN 7.6; calibration.csv DB-040 and DB-009 less their forward
    // times); the H100's ResNet-50 conv1 at batch 64 in FP32, 0.83 ms (cuDNN 9, conv_layers.csv). So priced: 2.25,
    // 0.49, 0.89 ms.
    double gathered_weight_gradient_instructions = 3;
    // cuDNN 9 has no FP32 convolution kernels of Hopper's own (compute capability 9.x): the H100's ResNet-50 profile
    // shows Ampere's `sm80_xmma` implicit GEMMs going forward and older cuDNN engines (`dgrad_alg1`, `wgrad_alg0`)
    // for the gradients, which reach less of a 128-lane SM than cuBLAS's SGEMM (simt_matmul_wide). ResNet-50's 1x1
    // convolutions timed alone in FP32 (a fit network; conv_layers.csv), summed, took 1/0.68, 1/0.68 and 1/0.67 of
    // the model's time at that rate (forward; data and weight gradients at 1/1.34 and 1/1.48 of it). Applied, as
    // there, to ungrouped convolutions whose channels fill 16-byte loads, not under the flat Winograd share.
    ratio simt_conv_cudnn9_hopper = ratio_of(0.68);
    ratio tensor_matmul = ratio_of(0.75);  // HGEMM on tensor cores, large sizes (DeepBench V100 72-90%)
    // GeForce Ampere, Ada and Blackwell boards multiply FP16 and BF16 with FP32 accumulation (cuDNN's and cuBLAS's
    // for mixed precision) at half their SMs' tensor rate (GA102 and Ada whitepapers, GeForce Blackwell as measured
    // below: 512 FLOPs an SM and cycle against 1024 with FP16 accumulation and on the pro boards): feeding that pipe
    // takes half the operand traffic a FLOP, and large GEMMs reach the peak at the rated boost clock (the boards
    // clock above it). PyTorch's FP16 torch.mm with FP32 accumulation on the nine desktop GeForce runs of
    // simt_matmul_graphics: 1.00-1.13 of it, median 1.06 (BF16 1.02-1.16). cublasGemmEx with FP32 compute, 5376 x 5376
    // x 2048 on an RTX 3090: 65.5 TFLOPS of 71.2, 0.92 (KnowingNothing/MatmulTutorial, call_cublas.cu); an mma.sync
    // FP32-accumulate GEMM of 8192^3 on an RTX 4090: 163.5 of 165.2, 0.99 (xytpai/gpuk's README at 71db7cd);
    // cuBLAS's of 8192^3 on an RTX 5060 Ti, zero-filled: 46.4 of 47.4, 0.98 (QuantumDrizzy/BLACKWALL's README at
    // 71dc975). Turing's GeForce boards halve it too but have no such measurement here (docs/model.md).
    ratio tensor_matmul_half_rate = ratio_of(1.0);
    ratio memory = ratio_of(0.80);  // element-wise and normalization kernels, of DRAM bandwidth
    // Kernels that walk NCHW tensors across their channel planes: batch norm's per-channel reductions
    // (cuDNN's NCHW kernels; the H100's ResNet-50 profile: 0.63 of DRAM bandwidth forward, 0.52 backward) and
    // the transposes to NHWC around tensor-core convolutions (the H100's convolutions alone, NCHW against
    // NHWC: 0.58). validation/measured/pytorch-h100/README.md.
    ratio nchw_strided = ratio_of(0.55);
    // ... and no more bytes than this per busy SM and SM cycle (a batch norm keeps one SM per channel busy):
    // waiting on DRAM's latency, such a kernel moves what its SMs keep in flight (Little's law), which more
    // bandwidth does not raise. The H100's 0.55 x 3350 GB/s over its 132 SMs at 1980 MHz; an H200 (the same
    // SMs, 1.43x the bandwidth) runs them no faster (pytorch-h200/README.md). Batch norm loads an element at
    // a time: a 2-byte one moves half these bytes, off Hopper (kernel::batch_norm_bandwidth).
    double nchw_strided_bytes_per_sm_cycle = 7.05;
    // cuDNN 9's NCHW batch norm on Hopper's SMs (compute capability 9.x) moves more than those two bounds let
    // the transposes: ResNet-50's steps profiled at batch 256 on the H100 (the fit network; kernel_breakdown.csv)
    // spent 48.6 ms in it in TF32 and 41.7 ms in FP16, where they gave 59.8 ms for both. Both bounds this many
    // times higher (59.8 / 48.6), and a 2-byte element this share of a load's bytes, not half (0.5 x 48.6 / 41.7).
    double hopper_batch_norm_speedup = 1.23;
    double hopper_batch_norm_half_fill = 0.58;
    // PyTorch never hands a BF16 batch norm to cuDNN (ATen's _select_batch_norm_backend): its own NCHW kernels
    // take this many times cuDNN's FP16 time. The H100's BF16 steps of ResNet-50 (the fit network) at batch 128
    // and 256 took 10.1 and 20.5 ms longer than its FP16 ones, VGG-16's (no batch norm) 2% less: (41.7 + 20.5)
    // / 41.7 ms (validation/measured/pytorch-h100/train_steps.csv).
    double native_bf16_batch_norm_slowdown = 1.49;
    // A TF32 convolution's weight gradient on the tensor pipe takes this many times its GEMM's time: both of its
    // operands run along the batch's pixels, the reduction, so the activations must be transposed on their way
    // to the MMAs, and the transposing loads (ldmatrix .trans, Hopper's wgmma operand transpose) take only
    // 16-bit elements (PTX ISA). The H100's convolutions timed alone in TF32 NCHW (conv_layers.csv, the fit
    // networks' shapes of at least 40 us forward, first layers aside): weight gradients 1.39x (ResNet-50) and
    // 1.62x (VGG-16) their forward time, where the model gave 1.09x and 1.07x; so 1.27 and 1.52, geometric mean
    // 1.39 (in FP16 NCHW 1.03 and 0.94; the check networks' in TF32 1.18-1.56).
    double tf32_weight_gradient_slowdown = 1.39;
    // Multiplications a 3x3 stride-1 convolution saves by Winograd's minimal filtering, net of its
    // transforms: F(2x2,3x3) saves 2.25x (Lavin & Gray, CVPR 2016), the share the default library (cudnn9)
    // prices on CUDA cores. A 5x5 one keeps the same share of F(2x2,5x5)'s larger saving (kernel::winograd).
    // With library cudnn7 the non-fused Winograd kernels of cuDNN 5.1-7.6 are priced instead
    // (kernel::winograd_kernels).
    double winograd_speedup = 1.5;
    // Windowed pooling kernels do not run at DRAM speed: each thread works out its window's offsets and loads
    // them one after another, so an SM gets through a few elements every few cycles, and an FP16 pass takes as
    // long as an FP32 one. SM cycles per output element going forward and per input element going backward:
    // PyTorch's NCHW max pools in the H100's ResNet-50 (3x3 windows) and VGG-16 (2x2) profiles, 4.1 and 3.2
    // forward, 2.9 and 2.5 backward (validation/measured/pytorch-h100/README.md). Applied to average pools and
    // NHWC too, which the H100's and H200's Inception v3, DenseNet-121 and channels-last steps check.
    double pool_cycles_forward = 3.7;
    double pool_cycles_backward = 2.7;
};

// GEMM dimensions of a matmul-like kernel: C[m x n] += A[m x k] B[k x n], `groups` of them in one launch
// (a grouped convolution's).
struct gemm_shape {
    double m = 0, n = 0, k = 0;
    double groups = 1;
};

struct kernel {
    static constexpr std::string_view name = "kernel";

    kernel_efficiency efficiency{};
    ratio ppp_comm = ratio_of(1.0);
    // Launch and framework dispatch of one kernel (NVIDIA CUDA C++ Best Practices Guide: about 5 us).
    seconds launch_overhead = microseconds_of(5);
    // Per step on the host: data loading and framework work not hidden behind the GPU. Zero by default (it is
    // the job's, not the GPU's); charged with the weight update.
    seconds host_overhead{};
    // The host's time to issue one kernel (an eager framework's dispatch): a training step's passes run
    // their kernels as the host issues them (steptime/graph/issue_queue.hpp), so a pass is no shorter than its
    // kernels times this, however little each does. PyTorch 2.11 on the H100 machine: the fit networks' batch-1
    // steps, bound by the host, over the model's kernels: ResNet-50's FP32 step 11.9 ms over 456 (26.2 us), its
    // AMP step 19.7 ms over 623 (31.6 us), VGG-16's AMP step 7.1 ms over 228 (31.3 us); their mean, 29.7 us,
    // rounded (validation/measured/pytorch-h100/kernels.csv; VGG-16's FP32 step is bound by its GPU).
    seconds host_dispatch = microseconds_of(30);
    // Activations in NCHW (PyTorch's and Caffe's default) cost two things around tensor cores, both measured
    // on the H100 (validation/measured/pytorch-h100/README.md): cuDNN 9 transposes a tensor-core convolution's
    // tensors to NHWC and back, reading and writing each once at nchw_strided (one more kernel per pass,
    // which the host issues like any other: so counted, ResNet-50's batch-1 AMP step comes out at 19.6 ms,
    // measured 19.7), except a 1x1 stride-1 convolution's, a GEMM on the NCHW tensors as they are (timed
    // alone, its NCHW and NHWC times agree); and NCHW batch norm walks strided channel planes an element a
    // load, which on the H100's SMs takes nearly as long in FP16 as in FP32 (ResNet-50, batch 256: 41.7 ms in
    // FP16 against 48.6 in TF32; batch_norm_bandwidth).
    activation_layout layout = activation_layout::nchw;
    // cudnn7 (cuDNN 5.1-7.6): no transposes around NCHW tensor-core convolutions, non-fused Winograd on CUDA cores.
    conv_library library = conv_library::cudnn9;
    // Output tile of a GEMM-like kernel on one SM (cuBLAS/CUTLASS's common 128x128 threadblock tile).
    double tile = 128;
    optimizer update_rule = optimizer::sgd;
    update_kernels update_launch = update_kernels::foreach;
    // The host's work per weight tensor and update kernel (PyTorch's foreach operations check and gather their
    // tensor lists). It shows only where the GPU waits for it: in FP16, where the host reads the loss scaler's
    // overflow flag before it issues the update. ResNet-50's AMP steps on the H100 (161 tensors, GradScaler):
    // 1.43-1.99 ms with momentum's 3 kernels and the unscale, 3.62 ms with Adam's 7 and the unscale, 2.3 and
    // 2.8 us (validation/measured/pytorch-h100/README.md).
    seconds host_per_update_tensor = microseconds_of(2.5);
    std::optional<bytes_per_second> cross_device_bandwidth{};

    void validate() const {
        // The shared check of the communication settings; the compute and memory efficiencies are checked
        // below under their own names.
        detail::validate_common(name, ratio_of(1.0), ratio_of(1.0), ppp_comm, cross_device_bandwidth);
        steptime::detail::require_ppp(name, "simt_matmul", efficiency.simt_matmul);
        steptime::detail::require_ppp(name, "simt_matmul_wide", efficiency.simt_matmul_wide);
        steptime::detail::require_ppp(name, "simt_matmul_graphics", efficiency.simt_matmul_graphics);
        steptime::detail::require_ppp(name, "simt_matmul_dual_issue", efficiency.simt_matmul_dual_issue);
        steptime::detail::require_ppp(name, "simt_wide_data_gradient", efficiency.simt_wide_data_gradient);
        steptime::detail::require_ppp(name, "simt_wide_weight_gradient", efficiency.simt_wide_weight_gradient);
        steptime::detail::require_ppp(name, "simt_conv_cudnn9_hopper", efficiency.simt_conv_cudnn9_hopper);
        steptime::detail::require_ppp(name, "tensor_matmul", efficiency.tensor_matmul);
        steptime::detail::require_ppp(name, "tensor_matmul_half_rate", efficiency.tensor_matmul_half_rate);
        steptime::detail::require_ppp(name, "memory", efficiency.memory);
        steptime::detail::require_ppp(name, "nchw_strided", efficiency.nchw_strided);
        if (const double v = efficiency.nchw_strided_bytes_per_sm_cycle; !(v > 0 && std::isfinite(v)))
            throw invalid_argument("kernel: nchw_strided_bytes_per_sm_cycle is " + std::to_string(v) +
                                   ", expected a finite positive number of bytes");
        const auto require_cycles = [](std::string_view field, double cycles) {
            if (!(cycles >= 0 && std::isfinite(cycles)))
                throw invalid_argument("kernel: " + std::string(field) + " is " + std::to_string(cycles) +
                                       ", expected a finite number of SM cycles, at least 0");
        };
        if (const double v = efficiency.gathered_weight_gradient_instructions; !(v >= 1 && std::isfinite(v)))
            throw invalid_argument("kernel: gathered_weight_gradient_instructions is " + std::to_string(v) +
                                   ", expected a finite number of instructions per FFMA, at least 1");
        const auto require_factor = [](std::string_view field, double factor, std::string_view why = "") {
            if (!(factor >= 1 && factor <= 4))
                throw invalid_argument("kernel: " + std::string(field) + " is " + std::to_string(factor) +
                                       ", expected a factor in [1, 4]" + std::string(why));
        };
        require_factor("hopper_batch_norm_speedup", efficiency.hopper_batch_norm_speedup);
        require_factor("native_bf16_batch_norm_slowdown", efficiency.native_bf16_batch_norm_slowdown);
        require_factor("tf32_weight_gradient_slowdown", efficiency.tf32_weight_gradient_slowdown);
        if (const double v = efficiency.hopper_batch_norm_half_fill; !(v > 0 && v <= 1))
            throw invalid_argument("kernel: hopper_batch_norm_half_fill is " + std::to_string(v) +
                                   ", expected a share of a load in (0, 1]");
        require_cycles("pool_cycles_forward", efficiency.pool_cycles_forward);
        require_cycles("pool_cycles_backward", efficiency.pool_cycles_backward);
        require_factor("winograd_speedup", efficiency.winograd_speedup, " (F(4x4,3x3) saves at most 4x)");
        if (!(tile >= 1 && std::isfinite(tile)))
            throw invalid_argument("kernel: tile is " + std::to_string(tile) + ", expected at least 1");
        detail::require_overhead(name, "launch_overhead", launch_overhead);
        detail::require_overhead(name, "host_overhead", host_overhead);
        detail::require_overhead(name, "host_dispatch", host_dispatch);
        detail::require_overhead(name, "host_per_update_tensor", host_per_update_tensor);
    }

    layer_time layer(const network& net, network::vertex v, pass p, const cost_context& c) const {
        return detail::per_kernel(net, v, p, c, detail::cross_bandwidth(cross_device_bandwidth, c.dev) * ppp_comm,
                                  [&](const op_work& w, pass q) {
                                      return std::visit(
                                          [&](const auto& o) {
                                              if constexpr (requires(const work_args& a) { o.kernels(phase::forward, a); })
                                                  return kernels_pass(o, q, detail::args_of(net, v, c), c);
                                              else
                                                  return run(w, traits_of(net[v].op, q, net[v], c), c);
                                          },
                                          net[v].op);
                                  }) +
               gradient_sums(net, v, p, c) + framework_kernels(net, v, p, c);
    }

    std::int64_t parameters(const network& net) const { return net.parameter_count(); }

    // The optimizer's element-wise update over FP32 master weights, gradients and state: memory-bound, one
    // pass or a pass per arithmetic operation (update_launch). In FP16 the loss scaler first unscales the
    // gradients (a pass reading and writing each) and the host, having read its overflow flag, issues the
    // update while the GPU waits: no shorter than the host's work per tensor and kernel.
    layer_time update(const weights& updated, const cost_context& c) const {
        layer_time t{};
        if (updated.parameters > 0) {
            const auto u = work_of(update_rule);
            const double params = static_cast<double>(updated.parameters);
            t = run(u.of(params, update_launch), {}, c);
            t.kernels = u.kernels(update_launch);
            t.overhead = launch_overhead * t.kernels;
            if (c.precision == element_type::fp16) {
                t += run({params, 4 * params, 4 * params}, {}, c);
                const seconds host = host_per_update_tensor * (static_cast<double>(updated.tensors) * t.kernels);
                if (host > t.total()) t.overhead += host - t.total();
            }
        }
        t.overhead += host_overhead;
        return t;
    }

    // How a GEMM of this shape is launched, under the better of two configurations: output tiles of `tile`
    // or tile/2 square (CUTLASS's large and small threadblock tiles; tile quantization: a 16-wide matrix
    // wastes most of a 64-wide tile), in whole waves over the SMs (1.2 waves cost 2); a grid smaller than one
    // wave splits the reduction over the idle SMs (cuBLAS and cuDNN's split-K; weight gradients reduce over
    // the whole batch). Either configuration's time (waves x k / split) grows with m, n and k, so the better
    // one's does too. Utilization 1 and no split without an SM count.
    struct launch_plan {
        double utilization = 1;  // the fraction of the machine kept busy
        double split = 1;        // slices of the reduction, each on SMs of its own
    };
    double utilization(const gemm_shape& g, const device& dev) const { return plan(g, dev).utilization; }
    launch_plan plan(const gemm_shape& g, const device& dev) const {
        if (!dev.sm_count || g.m <= 0 || g.n <= 0) return {};
        const double sms = *dev.sm_count;
        launch_plan best{0, 1};
        for (const double t : {tile, tile / 2}) {
            const double tm = std::ceil(g.m / t), tn = std::ceil(g.n / t);
            const double filled = g.m * g.n / (tm * tn * t * t);
            const double grid = g.groups * tm * tn;
            const double split = std::max(1.0, std::floor(sms / grid));
            const double tiles = grid * split;
            if (const double u = filled * tiles / (std::ceil(tiles / sms) * sms); u > best.utilization) best = {u, split};
        }
        return best;
    }

private:
    // FP32 lanes per warp scheduler: the FP32 peak over 2 FLOPs x SMs x the clock it is quoted at (boost where
    // given) x 4 schedulers per SM, GP100's 2 (compute capability 6.0: two processing blocks of 32 lanes; Pascal
    // GP100 whitepaper): 16, 32 or Kepler's 48. 0 without an SM count, taken as 16.
    static double lanes_per_scheduler(const device& d) {
        const double schedulers = d.compute_capability == cuda_compute_capability{6, 0} ? 2 : 4;
        return d.sm_count ? d.peak.fp32.value() / (2 * *d.sm_count * quoted_clock(d).value() * schedulers) : 0;
    }

    // An SM of a graphics die: GA10x, Ada or GB20x (compute capability 8.6, 8.9 or 12.x), not GA100, GH100 or GB100.
    static bool graphics_sm(const device& d) {
        const auto& cc = d.compute_capability;
        return cc && ((cc->major == 8 && (cc->minor == 6 || cc->minor == 9)) || cc->major == 12);
    }

    // A Hopper SM (compute capability 9.x: GH100).
    static bool hopper_sm(const device& d) { return d.compute_capability && d.compute_capability->major == 9; }

    // A datacenter Blackwell SM (compute capability 10.x: GB100), whose tcgen05 MMAs read their operands otherwise.
    static bool tcgen05_sm(const device& d) { return d.compute_capability && d.compute_capability->major == 10; }

    // The share of a tensor pipe's peak that a large matmul reaches: tensor_matmul_half_rate where FP16 or BF16
    // runs at half its SM's rate, with FP32 accumulation on a GeForce Ampere, Ada or Blackwell board (a graphics
    // SM), whose peak comes to 512 FLOPs an SM and cycle where those SMs do 1024. TF32, half rate there too, is
    // priced by run()'s faster-pipe rule.
    ratio tensor_matmul_share(const device& d, flops_per_second peak, element_type precision) const {
        const bool half_rate = element_bytes(precision) == 2 && d.sm_count && graphics_sm(d) &&
                               peak.value() / (*d.sm_count * quoted_clock(d).value()) < 768;  // 512, not 1024
        return half_rate ? efficiency.tensor_matmul_half_rate : efficiency.tensor_matmul;
    }

    // Going backward, a layer's output read by k layers receives k gradients, which the framework adds pairwise
    // before the layer back-propagates (PyTorch's autograd; TensorFlow's AddN): k - 1 element-wise kernels,
    // each reading two output-sized tensors and writing one. Nothing back-propagates into the input data.
    layer_time gradient_sums(const network& net, network::vertex v, pass p, const cost_context& c) const {
        const auto readers = std::ranges::distance(net.children(v));
        if (!c.framework_kernels || (p != pass::backward && p != pass::backward_data) || readers < 2 || net[v].input_data)
            return {};
        const double elements = static_cast<double>(net[v].output.elements()) * static_cast<double>(c.batch);
        const double bytes = elements * element_bytes(c.precision);
        const layer_time one = run({elements, 2 * bytes, bytes}, {}, c);
        layer_time t{};
        for (auto i = readers; i > 1; --i) t += one;
        return t;
    }

    // The parameter tensors of a layer that a matmul reads: a convolution's, dense or recurrent layer's weights and
    // biases.
    struct matmul_parameters {
        double weights = 0, biases = 0;  // elements
        bool separate_bias = false;      // added by a kernel of its own (a convolution's: cuDNN adds none)
    };
    static matmul_parameters matmul_parameters_of(const steptime::layer<layer_op>& l) {
        return std::visit(
            [&](const auto& o) -> matmul_parameters {
                using O = std::decay_t<decltype(o)>;
                if constexpr (std::is_same_v<O, ops::recurrent>) {
                    const double biases = 2 * o.gates() * static_cast<double>(o.hidden);
                    return {static_cast<double>(l.parameters) - biases, biases, false};
                }
                if constexpr (std::is_same_v<O, ops::conv2d> || std::is_same_v<O, ops::deconv2d> ||
                              std::is_same_v<O, ops::dense>) {
                    const double biases = o.bias ? static_cast<double>(l.output.c()) : 0;
                    return {static_cast<double>(l.parameters) - biases, biases, o.bias && !std::is_same_v<O, ops::dense>};
                }
                return {};
            },
            l.op);
    }

    // Kernels the framework launches around a matmul layer's own, all memory-bound:
    // - a convolution's bias, added to the output going forward and summed from the output gradient for its
    //   gradient (PyTorch's add_ and sum, TensorFlow's BiasAdd and BiasAddGrad, Caffe's bias GEMMs), since
    //   cuDNN's convolutions add none (dense layers add theirs in the GEMM's epilogue);
    // - in mixed precision (FP16 and BF16 train on FP32 master weights), each weight tensor cast to the half
    //   type going forward and its half gradient cast back going backward (autocast; TensorFlow's Cast ops); none
    //   in inference, which runs a network converted to the half type once (estimate_options::inference).
    layer_time framework_kernels(const network& net, network::vertex v, pass p, const cost_context& c) const {
        const auto& l = net[v];
        const matmul_parameters mp = matmul_parameters_of(l);
        if (!c.framework_kernels || p == pass::backward_data || mp.weights == 0) return {};
        layer_time t{};
        if (mp.separate_bias) {
            const double y = static_cast<double>(l.output.elements()) * static_cast<double>(c.batch);
            const double bytes = y * element_bytes(c.precision);
            t += run({y, bytes, p == pass::forward ? bytes : 0}, {}, c);
        }
        if (const double half = element_bytes(c.precision); half == 2 && !c.inference)  // inference: a converted network
            for (const double elements : {mp.weights, mp.biases})
                if (elements > 0)
                    t += p == pass::forward ? run({0, 4 * elements, half * elements}, {}, c)
                                            : run({0, half * elements, 4 * elements}, {}, c);
        return t;
    }

    // What an NCHW-strided kernel (batch norm, a transpose) moves per second: nchw_strided of the DRAM's
    // bandwidth, and no more than nchw_strided_bytes_per_sm_cycle per busy SM and cycle, times `load_fill`,
    // the share of a 4-byte load its elements fill (batch norm's: one element a load). A batch norm of
    // `channels` channels keeps at most that many SMs busy: cuDNN's NCHW kernels reduce each channel in one
    // thread block (the H100's ResNet-50 profile: its 64-channel conv1/bn ran at 850-1,290 GB/s, the layers of
    // 128 channels and more at 2,350-2,440; validation/measured/pytorch-h100/README.md).
    bytes_per_second strided_bandwidth(const device& d, double channels = 0, double load_fill = 1) const {
        const bytes_per_second b = d.memory_bandwidth * efficiency.nchw_strided;
        if (!d.sm_count) return b;
        const double busy = channels > 0 ? std::min<double>(*d.sm_count, channels) : *d.sm_count;
        return std::min(b, bytes_per_second_of(busy * efficiency.nchw_strided_bytes_per_sm_cycle * load_fill *
                                               quoted_clock(d).value()));
    }

    // NCHW training batch norm's bandwidth: strided_bandwidth at one element a load as cuDNN runs it, on
    // Hopper at its profiled rate, and slower in BF16, which PyTorch runs in its own kernels.
    bytes_per_second batch_norm_bandwidth(const cost_context& c, double channels) const {
        const double e = element_bytes(c.precision);
        const bool hopper = hopper_sm(c.dev);
        const double fill = hopper && e == 2 ? efficiency.hopper_batch_norm_half_fill : e / 4;
        const double speedup = hopper ? efficiency.hopper_batch_norm_speedup : 1.0;
        const double slowdown = c.precision == element_type::bf16 ? efficiency.native_bf16_batch_norm_slowdown : 1.0;
        return strided_bandwidth(c.dev, channels, fill) * (speedup / slowdown);
    }

    // Winograd's non-fused kernels transform 6x6 tiles (cuDNN 5.1-7.6: F(4x4,3x3) and F(2x2,5x5); Lavin & Gray,
    // CVPR 2016).
    static constexpr double winograd_alpha = 6;

    // Multiplications Winograd's F(2x2, r x r) saves on an r x r filter: 4 r^2 outputs' products in
    // (r + 1)^2 (Lavin & Gray, CVPR 2016): 2.25x for 3x3, 2.78x for 5x5.
    static constexpr double winograd_saving(double r) { return 4 * r * r / ((r + 1) * (r + 1)); }

    // The speedup of an r x r filter's Winograd convolution: winograd_speedup for 3x3, and the same share of
    // F(2x2, r x r)'s saving for 5x5 (1.5 x 2.78 / 2.25 = 1.85x); 1 for r = 0, no Winograd.
    double winograd(double r) const {
        return r > 0 ? efficiency.winograd_speedup * winograd_saving(r) / winograd_saving(3) : 1.0;
    }

    struct kernel_traits {
        bool is_matmul = false;
        gemm_shape shape{};
        double channels = 0;         // the reduction's channels (input channels, per group), 0 if none
        // r of an r x r stride-1 dense convolution that cuDNN runs by Winograd (or FFT) on CUDA cores: 3 or 5
        // (cuDNN's non-fused Winograd takes both, in all three passes); 0 for any other kernel.
        double winograd_filter = 0;
        // The pass as cuDNN 5.1-7.6's non-fused Winograd runs it (library cudnn7): the 6x6 tiles it transforms, and
        // the pixels and channels of the activations it reads and of those it writes (the weight gradient reads
        // both); none where winograd_filter is 0.
        struct winograd_pass {
            double tiles = 0;
            double read_pixels = 0, read_channels = 0, written_pixels = 0, written_channels = 0;
        } winograd{};
        bool transposed = false;     // a convolution transposed around tensor cores in NCHW (not 1x1 stride 1)
        double normalized_channels = 0;  // training batch norm's channels, 0 for any other kernel (strided in NCHW)
        double sm_cycles = 0;        // the least the kernel spends, in SM cycles (windowed pooling's)
        std::optional<pass> convolution{};  // the pass of a convolution's kernel; none for any other kernel
    };

    // What decides a kernel's pipe and time: the implicit GEMM of a convolution or dense layer in pass q
    // (NHWC; per group for grouped convolutions), or the kind of an element-wise kernel.
    kernel_traits traits_of(const layer_op& op, pass q, const steptime::layer<layer_op>& l, const cost_context& c) const {
        const double n = static_cast<double>(c.batch);
        const auto by_pass = [&](double rows, double out, double in) -> gemm_shape {  // forward: [rows x in][in x out]
            switch (q) {
                case pass::forward: return {rows, out, in, 1};
                case pass::backward_data: return {rows, in, out, 1};
                default: return {out, in, rows, 1};  // weight gradient: reduces over the rows
            }
        };
        if (const auto* d = std::get_if<ops::dense>(&op)) {
            const double in = static_cast<double>(d->reduced(l.inputs[0]));
            const double positions = d->per_position ? static_cast<double>(l.inputs[0].elements()) / in : 1;
            return {true, by_pass(n * positions, static_cast<double>(d->outputs), in), in};
        }
        if (const auto* cv = std::get_if<ops::conv2d>(&op)) {
            const std::int64_t cin = l.inputs[0].c() / cv->groups, cout = cv->filters / cv->groups;
            const double taps = static_cast<double>(cv->kernel.h * cv->kernel.w);
            // The implicit GEMMs of a convolution, per group (CUTLASS's implicit GEMM convolution): forward
            // [N*P*Q x C*R*S][C*R*S x K]; data gradient [N*H*W x K*R*S][K*R*S x C], one row per input pixel;
            // weight gradient [K x N*P*Q][N*P*Q x C*R*S].
            const auto pixels = [&](const tensor_shape& t) { return n * static_cast<double>(t.h() * t.w()); };
            const double in = taps * static_cast<double>(cin), out = static_cast<double>(cout);
            gemm_shape shape = q == pass::backward_data
                                   ? gemm_shape{pixels(l.inputs[0]), static_cast<double>(cin), taps * out}
                                   : by_pass(pixels(l.output), out, in);
            shape.groups = static_cast<double>(cv->groups);
            const bool unit_stride = cv->stride.h == 1 && cv->stride.w == 1;
            const bool winograd = (cv->kernel.h == 3 || cv->kernel.h == 5) && cv->kernel.w == cv->kernel.h &&
                                  unit_stride && cv->dilation.h == 1 && cv->dilation.w == 1 && cv->groups == 1;
            kernel_traits::winograd_pass wp{};
            if (winograd) {
                // F(m x m, r x r) on 6x6 tiles: m = 6 - r + 1 outputs a side (F(4x4,3x3), F(2x2,5x5)), tiled over the
                // image the pass writes (the data gradient's: the input's), its weight gradient over the output's.
                const tensor_shape& tiled = q == pass::backward_data ? l.inputs[0] : l.output;
                const double m = winograd_alpha - static_cast<double>(cv->kernel.h) + 1;
                const double tiles = n * std::ceil(static_cast<double>(tiled.h()) / m) *
                                     std::ceil(static_cast<double>(tiled.w()) / m);
                const double x = pixels(l.inputs[0]), y = pixels(l.output), c_in = static_cast<double>(cin);
                wp = q == pass::backward_data
                         ? kernel_traits::winograd_pass{.tiles = tiles, .read_pixels = y, .read_channels = out,
                                                        .written_pixels = x, .written_channels = c_in}
                         : kernel_traits::winograd_pass{.tiles = tiles, .read_pixels = x, .read_channels = c_in,
                                                        .written_pixels = y, .written_channels = out};
            }
            return {.is_matmul = true,
                    .shape = shape,
                    .channels = static_cast<double>(cin),
                    .winograd_filter = winograd ? static_cast<double>(cv->kernel.h) : 0,
                    .winograd = wp,
                    .transposed = !(taps == 1 && unit_stride && cv->groups == 1),
                    .convolution = q};
        }
        if (const auto* dc = std::get_if<ops::deconv2d>(&op)) {
            const double rows = n * static_cast<double>(l.inputs[0].h() * l.inputs[0].w());
            return {.is_matmul = true,
                    .shape = by_pass(rows, static_cast<double>(dc->kernel.h * dc->kernel.w * dc->filters),
                                     static_cast<double>(l.inputs[0].c())),
                    .channels = static_cast<double>(l.inputs[0].c()),
                    .transposed = true};
        }
        if (const auto* pl = std::get_if<ops::pool2d>(&op); pl && !pl->global) {
            const bool forward = q == pass::forward;
            const double elements = static_cast<double>((forward ? l.output : l.inputs[0]).elements()) * n;
            return {.sm_cycles = elements * (forward ? efficiency.pool_cycles_forward : efficiency.pool_cycles_backward)};
        }
        if (std::holds_alternative<ops::batch_norm>(op) && !c.inference)  // inference's is element-wise, no reduction
            return {.normalized_channels = static_cast<double>(l.output.c())};
        return {};
    }

    // The pass of an operation of several kernels (ops::recurrent, ops::attention, a product's gradients):
    // each priced on its own, a per-step kernel once a step. A recurrent layer's pass is one cuDNN call, one
    // dispatch for the host.
    template <class Op>
    layer_time kernels_pass(const Op& o, pass q, const work_args& a, const cost_context& c) const {
        const phase p = q == pass::forward ? phase::forward : q == pass::backward_data ? phase::backward_data
                                                                                       : phase::backward_weights;
        double channels = 1;  // an op of no matmul kernels names no alignment: one element fills no 16-byte load
        if constexpr (requires { o.matmul_alignment(a); }) channels = static_cast<double>(o.matmul_alignment(a));
        layer_time t{};
        for (const auto& k : o.kernels(p, a))
            if (k.runs > 0)
                t += k.runs * run(k.work, {.is_matmul = k.matmul, .shape = {k.m, k.n, k.k, k.groups}, .channels = channels}, c);
        if constexpr (Op::one_library_call) t.kernels = 1;
        return t;
    }

    // One kernel: the binding resource's time at its class's efficiency, plus its launch, plus a split-K
    // GEMM's partial products written and read back in FP32 after its multiplications. Element-wise
    // work runs on the CUDA cores. Matmuls run on the precision's tensor pipe where the device has one and
    // the input channels fill whole 16-byte loads (8 FP16, 4 TF32, 16 FP8 elements: NVIDIA's Deep Learning
    // Performance Guide's alignment rule), else on the CUDA cores, where 3x3 and 5x5 convolutions use
    // Winograd (cuDNN's tensor-core kernels are GEMMs): cudnn9's flat share of its saving, or with cudnn7 the
    // faster of its kernels and the GEMM. In NCHW, batch norm walks strided channel planes and cuDNN 9
    // transposes tensor-core convolutions. TF32 lets cuDNN use tensor cores, it does not make it:
    // cudnn.benchmark times its FP32 algorithms too, so a TF32 convolution takes the faster of the two, which
    // on GPUs that run TF32 at their FP32 rate (GeForce Ampere and Ada) is often the CUDA cores'.
    layer_time run(const op_work& w, const kernel_traits& k, const cost_context& c) const {
        layer_time t = run_on(w, k, c, true);
        if (c.precision == element_type::tf32 && k.convolution && c.dev.tensor_peak_for(c.precision))
            if (layer_time simt = run_on(w, k, c, false); simt.total() < t.total()) t = simt;
        return t;
    }

    // One kernel on the tensor pipe where it may take it (tensor_allowed), else on the CUDA cores.
    layer_time run_on(const op_work& w, const kernel_traits& k, const cost_context& c, bool tensor_allowed) const {
        const bytes_per_second bandwidth =
            layout == activation_layout::nchw && k.normalized_channels > 0
                ? batch_norm_bandwidth(c, k.normalized_channels)
                : c.dev.memory_bandwidth * efficiency.memory;
        flops_per_second rate = c.dev.peak.fp32, simt = rate;
        bool tensor_pipe = false;
        launch_plan gemm{};
        if (k.is_matmul) {
            const auto tensor = c.dev.tensor_peak_for(c.precision);
            const bool aligned = std::fmod(k.channels * element_bytes(c.precision), 16) == 0;
            const double lanes = lanes_per_scheduler(c.dev);
            const bool wide = lanes > 24;  // 32 or 48 (not 16): an FFMA warp instruction issues every cycle
            tensor_pipe = tensor && aligned && tensor_allowed;
            const ratio wide_share = graphics_sm(c.dev) ? efficiency.simt_matmul_graphics : efficiency.simt_matmul_wide;
            simt = c.dev.simt_peak_for(c.precision) * (lanes > 40 ? efficiency.simt_matmul_dual_issue  // Kepler's 48
                                                       : wide     ? wide_share
                                                                  : efficiency.simt_matmul);
            // cuDNN 9's Winograd as a share of the multiplications saved; cuDNN 7's kernels are priced below.
            const bool flat_winograd = k.winograd_filter > 0 && library == conv_library::cudnn9;
            rate = tensor_pipe     ? *tensor * tensor_matmul_share(c.dev, *tensor, c.precision)
                   : flat_winograd ? simt * winograd(k.winograd_filter)
                                   : simt;
            // A TF32 convolution's weight gradient transposes its activations for the MMAs (not on a tcgen05 GPU,
            // which this was not measured on).
            if (tensor_pipe && c.precision == element_type::tf32 && k.convolution == pass::backward_weights &&
                !tcgen05_sm(c.dev))
                rate /= efficiency.tf32_weight_gradient_slowdown;
            // A convolution in FP32 on a wide SM's CUDA cores, its channels filling 16-byte loads (not a first layer).
            const bool wide_fp32_conv =
                !tensor_pipe && wide && aligned && element_bytes(c.precision) == 4 && k.convolution.has_value();
            // Its gradient GEMMs: the implicit GEMM's (not under the flat Winograd share), and the weight gradient's
            // of cudnn7's Winograd kernels, which reduce over the batch's tiles as the implicit GEMM over its pixels.
            if (wide_fp32_conv && *k.convolution != pass::forward) {
                const bool weights = *k.convolution == pass::backward_weights;
                if (!flat_winograd)
                    rate *= weights ? efficiency.simt_wide_weight_gradient : efficiency.simt_wide_data_gradient;
                if (weights) simt *= efficiency.simt_wide_weight_gradient;
            }
            // cuDNN 9's FP32 convolutions on Hopper: not Hopper's own kernels.
            if (wide_fp32_conv && !flat_winograd && k.shape.groups == 1 && library == conv_library::cudnn9 &&
                hopper_sm(c.dev))
                rate *= efficiency.simt_conv_cudnn9_hopper;
            // An NCHW first layer's weight gradient (not a grouped one's: the H100's ResNeXt layers of 4 FP16
            // channels a group ran at their GEMM's rate): its instructions per FFMA, which holds a wide SM's scheduler
            // one cycle and a 16-lane one's two. (cudnn7's Winograd for a 3x3 first layer fills 3/64 of its tiles:
            // never faster.)
            if (!tensor_pipe && !aligned && k.shape.groups == 1 && layout == activation_layout::nchw &&
                k.convolution == pass::backward_weights)
                rate = std::min(rate, c.dev.simt_peak_for(c.precision) * (wide ? 1.0 : 2.0) /
                                          efficiency.gathered_weight_gradient_instructions);
            gemm = plan(k.shape, c.dev);
            rate *= gemm.utilization;
        }
        layer_time t = detail::roofline_kernel(w, rate, bandwidth, launch_overhead);
        if (k.sm_cycles > 0 && c.dev.sm_count) {  // the SMs' own ceiling, where it is lower than the roofline's
            const seconds busy = seconds_of(k.sm_cycles / (*c.dev.sm_count * quoted_clock(c.dev).value()));
            if (busy > t.fetch + t.compute + t.write) {
                t.fetch = t.write = seconds{};
                t.compute = busy;
            }
        }
        if (gemm.split > 1) {  // split-K: each slice writes its FP32 partial product, read back to sum them
            const double partials = gemm.split * k.shape.m * k.shape.n * k.shape.groups * 4;
            layer_time sum = detail::roofline_kernel({0, partials, partials}, rate, bandwidth, seconds{});
            sum.kernels = 0;  // within the GEMM's own launch
            t += sum;
        }
        if (tensor_pipe && k.transposed && layout == activation_layout::nchw && library == conv_library::cudnn9) {
            const double moved = w.bytes_read + w.bytes_written;  // each tensor read once and written once
            t += detail::roofline_kernel({0, moved, moved}, rate, strided_bandwidth(c.dev), launch_overhead);
        }
        if (k.winograd_filter > 0 && !tensor_pipe && library == conv_library::cudnn7)  // cudnnFind's faster one
            if (layer_time wt = winograd_kernels(k, c, simt, bandwidth); wt.total() < t.total()) {
                wt.work = t.work;  // the convolution's own FLOPs, as counted for the layer
                t = wt;
            }
        return t;
    }

    // cuDNN 5.1-7.6's non-fused Winograd for an r x r filter (Lavin & Gray, CVPR 2016), four kernels: going forward
    // (and for the data gradient, the other way round) one transforms the filter to 6x6 tiles and one the tensor
    // read, 36 GEMMs, one per tile element, of [tiles x C][C x K] multiply them, and one transforms the product
    // back. The weight gradient transforms both tensors it reads, its GEMMs reduce over the tiles, and the last
    // kernel transforms the filter's tiles back. The GEMMs run at `simt`, the CUDA cores' matmul rate for the pass
    // (run()), the transforms at the memory's efficiency.
    layer_time winograd_kernels(const kernel_traits& k, const cost_context& c, flops_per_second simt,
                                bytes_per_second bandwidth) const {
        const auto& g = k.winograd;
        const double eb = element_bytes(c.precision), a2 = winograd_alpha * winograd_alpha;
        const double r2 = k.winograd_filter * k.winograd_filter, filters = g.read_channels * g.written_channels;
        const double read_tensor = g.read_pixels * g.read_channels;
        const double written_tensor = g.written_pixels * g.written_channels;
        const double read_tiles = a2 * g.tiles * g.read_channels, written_tiles = a2 * g.tiles * g.written_channels;
        const bool weights = k.convolution == pass::backward_weights;
        const gemm_shape shape = weights ? gemm_shape{g.written_channels, g.read_channels, g.tiles, a2}
                                         : gemm_shape{g.tiles, g.written_channels, g.read_channels, a2};
        const double products = 2 * a2 * g.tiles * filters;
        const op_work gemm = weights ? op_work{products, eb * (read_tiles + written_tiles), eb * a2 * filters}
                                     : op_work{products, eb * (read_tiles + a2 * filters), eb * written_tiles};
        const op_work transforms =
            weights ? op_work{0, eb * (read_tensor + written_tensor), eb * (read_tiles + written_tiles)}
                    : op_work{0, eb * (read_tensor + written_tiles), eb * (read_tiles + written_tensor)};
        const op_work filter = weights ? op_work{0, eb * a2 * filters, eb * r2 * filters}
                                       : op_work{0, eb * r2 * filters, eb * a2 * filters};
        layer_time t = detail::roofline_kernel(gemm, simt * plan(shape, c.dev).utilization, bandwidth, launch_overhead);
        t += detail::roofline_kernel(transforms, simt, bandwidth, 2.0 * launch_overhead);
        t += detail::roofline_kernel(filter, simt, bandwidth, launch_overhead);
        t.kernels = 4;
        return t;
    }
};

}  // namespace steptime::cost
