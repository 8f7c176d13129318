// steptime/scale/wave_scaling.hpp: measured kernel and operation times from one GPU predicted on another
// by wave scaling (Habitat: Yu et al., USENIX ATC'21), and the anchored ratio of any two model times.
//
// Formulation: habitat-and-empirical-models.md section 6.2 (steps 1-6); Habitat's own formulas
// (its paper's Eq. (1) and (2), and what its released code computes) in section 2 there.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "steptime/device.hpp"
#include "steptime/error.hpp"
#include "steptime/tensor.hpp"
#include "steptime/units.hpp"

namespace steptime::scale {

// ---------------------------------------------------------------------------------------------------------
// Occupancy
// ---------------------------------------------------------------------------------------------------------

// What bounds the resident blocks of one SM: the four limits of section 6.2 step 1.
struct sm_limits {
    int max_blocks_per_sm = 0;
    int max_warps_per_sm = 0;
    int registers_per_sm = 0;
    int max_registers_per_thread = 0;
    bytes shared_memory_per_sm{};              // the largest carve-out an SM offers
    bytes reserved_shared_memory_per_block{};  // taken by the system from each block (1 KB from cc 8.0)
};

inline constexpr int warp_size = 32;                 // every NVIDIA GPU to date
inline constexpr int register_allocation_unit = 256;  // registers, allocated per warp (cc 3.x to 12.x)
inline constexpr int max_threads_per_block = 1024;   // cc 2.0 and later

// CUDA C++ Programming Guide (12.x), "Technical Specifications per Compute Capability": maximum resident
// blocks and warps per SM, 32-bit registers per SM, registers per thread, shared memory per SM; the
// reserved 1 KB per block is cudaDevAttrReservedSharedMemoryPerBlock (cc 8.0 and later). Throws
// invalid_argument for a compute capability not in the table.
inline sm_limits limits_for(cuda_compute_capability cc) {
    struct row {
        int major, minor, blocks, warps, registers, shared_kib;
    };
    static constexpr std::array<row, 18> table{{
        {3, 5, 16, 64, 65536, 48},  {3, 7, 16, 64, 131072, 112}, {5, 0, 32, 64, 65536, 64},
        {5, 2, 32, 64, 65536, 96},  {5, 3, 32, 64, 65536, 64},   {6, 0, 32, 64, 65536, 64},
        {6, 1, 32, 64, 65536, 96},  {6, 2, 32, 64, 65536, 64},   {7, 0, 32, 64, 65536, 96},
        {7, 2, 32, 64, 65536, 96},  {7, 5, 16, 32, 65536, 64},   {8, 0, 32, 64, 65536, 164},
        {8, 6, 16, 48, 65536, 100}, {8, 7, 16, 48, 65536, 164},  {8, 9, 24, 48, 65536, 100},
        {9, 0, 32, 64, 65536, 228}, {10, 0, 32, 64, 65536, 228}, {12, 0, 32, 48, 65536, 100},
    }};
    for (const row& r : table)
        if (r.major == cc.major && r.minor == cc.minor)
            return {.max_blocks_per_sm = r.blocks,
                    .max_warps_per_sm = r.warps,
                    .registers_per_sm = r.registers,
                    .max_registers_per_thread = 255,
                    .shared_memory_per_sm = bytes_of(r.shared_kib * 1024.0),
                    .reserved_shared_memory_per_block = bytes_of(cc.major >= 8 ? 1024.0 : 0.0)};
    std::string known;
    for (const row& r : table) {
        if (!known.empty()) known += ", ";
        known += std::to_string(r.major) + "." + std::to_string(r.minor);
    }
    throw invalid_argument("compute capability " + std::to_string(cc.major) + "." + std::to_string(cc.minor) +
                           " has no occupancy limits in steptime's table (known: " + known + ")");
}

// How a kernel was launched (CUPTI's activity record, as PyTorch's profiler exports it).
struct launch_geometry {
    std::array<std::int64_t, 3> grid{1, 1, 1};   // blocks per dimension
    std::array<std::int64_t, 3> block{1, 1, 1};  // threads per dimension
    int registers_per_thread = 0;                // 0: unknown, no register limit
    bytes shared_memory{};                       // static + dynamic, per block

    std::int64_t blocks() const { return grid[0] * grid[1] * grid[2]; }
    std::int64_t threads_per_block() const { return block[0] * block[1] * block[2]; }
};

// Throws invalid_argument naming `what` (the kernel) when a dimension is outside CUDA's launch limits
// (CUDA C++ Programming Guide, "Technical Specifications": grid x < 2^31, y and z < 2^16; block x and
// y <= 1024, z <= 64, 1024 threads in all) or registers or shared memory are negative or absurd.
inline void validate(const launch_geometry& g, const std::string& what) {
    constexpr std::array<std::int64_t, 3> grid_max{2147483647, 65535, 65535}, block_max{1024, 1024, 64};
    constexpr std::array<const char*, 3> axis{"x", "y", "z"};
    const auto in = [&](const char* field, std::int64_t v, std::int64_t hi) {
        if (v < 1 || v > hi)
            throw invalid_argument(what + ": " + field + " is " + std::to_string(v) + ", expected 1 to " +
                                   std::to_string(hi));
    };
    for (std::size_t i = 0; i < 3; ++i) {
        in((std::string("grid_") + axis[i]).c_str(), g.grid[i], grid_max[i]);
        in((std::string("block_") + axis[i]).c_str(), g.block[i], block_max[i]);
    }
    if (g.threads_per_block() > max_threads_per_block)
        throw invalid_argument(what + ": a block of " + std::to_string(g.threads_per_block()) +
                               " threads, above CUDA's " + std::to_string(max_threads_per_block));
    if (g.registers_per_thread < 0 || g.registers_per_thread > 255)
        throw invalid_argument(what + ": registers per thread is " + std::to_string(g.registers_per_thread) +
                               ", expected 0 (unknown) to 255");
    const double smem = to_double(g.shared_memory);
    if (!(smem >= 0) || smem > 1e9)  // far above any SM's shared memory; also catches NaN and infinity
        throw invalid_argument(what + ": shared memory is " + std::to_string(smem) +
                               " bytes, expected a non-negative number of bytes per block");
}

enum class occupancy_limiter { blocks, warps, registers, shared_memory };

inline std::string_view to_string(occupancy_limiter l) {
    switch (l) {
        case occupancy_limiter::blocks: return "blocks";
        case occupancy_limiter::warps: return "warps";
        case occupancy_limiter::registers: return "registers";
        case occupancy_limiter::shared_memory: return "shared memory";
    }
    return "?";
}

struct occupancy {
    int blocks_per_sm = 0;
    occupancy_limiter limiter = occupancy_limiter::blocks;  // the smallest limit (the first of equal ones)
};

// Resident blocks per SM, the least of four limits (habitat-and-empirical-models.md 6.2 step 1; NVIDIA's
// cuda_occupancy.h without its per-partition and carve-out refinements). Throws invalid_argument, naming
// `what`, when one block does not fit on an SM.
inline occupancy occupancy_of(const launch_geometry& g, const sm_limits& sm, const std::string& what = "kernel") {
    validate(g, what);
    const std::int64_t warps = (g.threads_per_block() + warp_size - 1) / warp_size;  // ceil(threads / warp)
    occupancy o{.blocks_per_sm = sm.max_blocks_per_sm, .limiter = occupancy_limiter::blocks};
    const auto limit = [&](std::int64_t blocks, occupancy_limiter why) {
        if (blocks < o.blocks_per_sm) o = {static_cast<int>(blocks), why};
    };
    limit(sm.max_warps_per_sm / warps, occupancy_limiter::warps);  // floor(max warps / warps per block)
    if (g.registers_per_thread > sm.max_registers_per_thread)
        throw invalid_argument(what + ": " + std::to_string(g.registers_per_thread) + " registers per thread, above the " +
                               std::to_string(sm.max_registers_per_thread) + " a thread may use");
    if (g.registers_per_thread > 0) {
        // floor(regs/SM / (warps/block x roundup(regs/thread x warp, 256)))
        const std::int64_t per_warp = (std::int64_t{g.registers_per_thread} * warp_size + register_allocation_unit - 1) /
                                      register_allocation_unit * register_allocation_unit;
        limit(sm.registers_per_sm / (warps * per_warp), occupancy_limiter::registers);
    }
    if (to_double(g.shared_memory) > 0)  // floor(smem/SM / (smem per block + reserved))
        limit(static_cast<std::int64_t>(std::floor(
                  to_double(sm.shared_memory_per_sm) /
                  (std::ceil(to_double(g.shared_memory)) + to_double(sm.reserved_shared_memory_per_block)))),
              occupancy_limiter::shared_memory);
    if (o.blocks_per_sm == 0)
        throw invalid_argument(what + ": one block of " + std::to_string(g.threads_per_block()) + " threads, " +
                               std::to_string(g.registers_per_thread) + " registers per thread and " +
                               std::to_string(static_cast<std::int64_t>(to_double(g.shared_memory))) +
                               " bytes of shared memory does not fit on an SM (limited by " +
                               std::string(to_string(o.limiter)) + ")");
    return o;
}

// ---------------------------------------------------------------------------------------------------------
// Measured kernels and operations
// ---------------------------------------------------------------------------------------------------------

// What a kernel is bound by when its FLOPs and bytes are unknown (section 6.2 step 2's class defaults).
enum class kernel_class {
    unknown,  // gamma 1, as Habitat does for kernels without counter metrics (its "resimplified" branch)
    memory,   // elementwise, reduction, normalization, copy, index: gamma 1
    compute,  // GEMM, convolution: gamma 0, the limit of R/(2x) for x far right of the ridge
};

inline std::string_view to_string(kernel_class k) {
    switch (k) {
        case kernel_class::unknown: return "unknown";
        case kernel_class::memory: return "memory";
        case kernel_class::compute: return "compute";
    }
    return "?";
}

inline std::optional<kernel_class> parse_kernel_class(std::string_view s) {
    if (s == "unknown") return kernel_class::unknown;
    if (s == "memory") return kernel_class::memory;
    if (s == "compute") return kernel_class::compute;
    return std::nullopt;
}

// One kernel measured on the origin GPU.
struct measured_kernel {
    std::string name{};
    seconds duration{};
    std::optional<launch_geometry> launch{};     // without it: the large-grid limit (see scale_kernel)
    std::optional<flops> work{};                 // F and Q give gamma from the roofline (both or neither)
    std::optional<bytes> traffic{};              // DRAM bytes read and written
    kernel_class kind = kernel_class::unknown;   // gamma when F and Q are unknown
    element_type precision = element_type::fp32;  // picks the compute pipe (device::peak_for)
    std::optional<int> destination_registers{};  // registers per thread on the destination, if they differ
};

// One operation (e.g. aten::conv2d): its kernels and, optionally, its measured GPU wall time.
struct measured_op {
    std::string name{};
    std::optional<seconds> wall_time{};  // overhead = wall time - sum of kernel times, carried unscaled
    std::vector<measured_kernel> kernels{};
};

// ---------------------------------------------------------------------------------------------------------
// Scaling
// ---------------------------------------------------------------------------------------------------------

enum class scaling_mode {
    wave,          // section 6.2: occupancy-aware waves with the tail effect, per-SM pipe throughput, launch floor
    habitat_code,  // Habitat's released code: SM-count ratio, base clocks, no tail effect (section 2.3)
    habitat_eq2,   // Habitat's paper Eq. (2): wave-size ratio, base clocks, no tail effect, no small-kernel case (2.2)
    resimplified,  // Habitat's code without metrics: gamma 1, small kernels unchanged (section 2.3)
    anchored_roofline,  // section 6.3: the measured time x roofline(destination) / roofline(origin)
};

inline std::string_view to_string(scaling_mode m) {
    switch (m) {
        case scaling_mode::wave: return "wave";
        case scaling_mode::habitat_code: return "habitat-code";
        case scaling_mode::habitat_eq2: return "habitat-eq2";
        case scaling_mode::resimplified: return "resimplified";
        case scaling_mode::anchored_roofline: return "anchored-roofline";
    }
    return "?";
}

inline std::optional<scaling_mode> parse_scaling_mode(std::string_view s) {
    for (const auto m : {scaling_mode::wave, scaling_mode::habitat_code, scaling_mode::habitat_eq2, scaling_mode::resimplified,
                         scaling_mode::anchored_roofline})
        if (to_string(m) == s) return m;
    return std::nullopt;
}

struct scaling_options {
    scaling_mode mode = scaling_mode::wave;
    // Mode wave: a kernel under one wave on both GPUs is predicted no shorter than this (or than its
    // measured time, if shorter). Our assumption: section 6.2 step 4 asks for "a few us"; the shortest
    // kernels in PyTorch profiles take 1-3 us.
    seconds launch_floor = microseconds_of(2);
};

// gamma from the roofline (Habitat roofline.py::_roofline_gamma; habitat-and-empirical-models.md 2.4 and
// 6.2 step 2): x = F/Q against the destination's ridge R = peak/bandwidth.
inline ratio roofline_gamma(flops work, bytes traffic, const device& destination,
                            element_type precision = element_type::fp32) {
    const double f = to_double(work), q = to_double(traffic);
    if (!(f >= 0) || !(q >= 0) || !std::isfinite(f) || !std::isfinite(q))
        throw invalid_argument("roofline gamma: FLOPs " + std::to_string(f) + " and bytes " + std::to_string(q) +
                               ", expected finite non-negative numbers");
    if (f == 0) return ratio_of(1.0);  // no arithmetic: memory-bound (Habitat: < 1e-9 GFLOP gives 1)
    if (q == 0) return ratio_of(0.0);  // no DRAM traffic: compute-bound (Habitat: 0 bytes gives 0)
    const double x = f / q;
    const double ridge = to_double(destination.peak_for(precision)) / to_double(destination.memory_bandwidth);
    return ratio_of(x <= ridge ? 1 - x / (2 * ridge) : ridge / (2 * x));  // 1 - x/2R up to R, then R/2x
}

// The kernel's gamma on `destination`: from F and Q when known, else its class's default (section 6.2 step 2).
inline ratio gamma_of(const measured_kernel& k, const device& destination) {
    if (k.work && k.traffic) return roofline_gamma(*k.work, *k.traffic, destination, k.precision);
    return ratio_of(k.kind == kernel_class::compute ? 0.0 : 1.0);
}

struct scaled_kernel {
    std::string name{};
    seconds measured{};
    seconds predicted{};
    ratio gamma{};
    bool small = false;                             // under one wave on both GPUs (section 6.2 step 4)
    std::optional<std::int64_t> waves_origin{};     // n = ceil(B / W), when the geometry is known
    std::optional<std::int64_t> waves_destination{};
};

namespace detail {

inline int require_sms(const device& d, const std::string& what) {
    if (!d.sm_count)
        throw invalid_device("device '" + d.name + "': field 'sm_count' is missing; " + what + " needs it");
    return *d.sm_count;
}

inline sm_limits require_limits(const device& d, const std::string& what) {
    if (!d.compute_capability)
        throw invalid_device("device '" + d.name + "': field 'compute_capability' is missing; " + what +
                             " needs it for the occupancy of the launch geometry");
    return limits_for(*d.compute_capability);
}

inline double ceil_div(std::int64_t a, std::int64_t b) { return static_cast<double>((a + b - 1) / b); }

}  // namespace detail

// The anchored ratio (Habitat predictor.py, used with its MLPs; habitat-and-empirical-models.md 3 and 6.3):
// T_dest = T_measured x M(dest) / M(origin) for any model M's two times, which cancels M's bias for the shape.
inline seconds anchored_ratio(seconds measured, seconds model_origin, seconds model_destination) {
    const auto check = [](const char* field, seconds t) {
        if (!(t.value() > 0) || !std::isfinite(t.value()))
            throw invalid_argument(std::string("anchored ratio: ") + field + " is " + std::to_string(t.value()) +
                                   " s, expected a finite positive time");
    };
    check("measured", measured);
    check("model_origin", model_origin);
    check("model_destination", model_destination);
    return measured * (model_destination / model_origin);
}

// One kernel's time on `destination` (habitat-and-empirical-models.md 6.2 steps 1-4 and 6). Throws
// invalid_argument naming the kernel for a bad measurement or geometry, invalid_device for a device that
// lacks what the mode needs (sm_count; compute_capability when the geometry is known).
inline scaled_kernel scale_kernel(const measured_kernel& k, const device& origin, const device& destination,
                                  const scaling_options& options = {}) {
    const std::string what = "kernel '" + k.name + "'";
    const double t = to_double(k.duration);
    if (!(t > 0) || !std::isfinite(t))
        throw invalid_argument(what + ": duration is " + std::to_string(t) + " s, expected a finite positive time");
    if (k.work.has_value() != k.traffic.has_value())
        throw invalid_argument(what + ": give both FLOPs and bytes, or neither");
    steptime::validate(origin);
    steptime::validate(destination);
    const scaling_mode mode = options.mode;
    scaled_kernel out{.name = k.name, .measured = k.duration};
    const double g = mode == scaling_mode::resimplified ? 1.0 : to_double(gamma_of(k, destination));
    out.gamma = ratio_of(g);
    const double bandwidth = to_double(origin.memory_bandwidth) / to_double(destination.memory_bandwidth);  // D_o/D_d
    const double clocks = to_double(origin.clock) / to_double(destination.clock);                           // C_o/C_d
    const double peak_o = to_double(origin.peak_for(k.precision)), peak_d = to_double(destination.peak_for(k.precision));
    const auto result = [&](double predicted) {
        if (!std::isfinite(predicted))
            throw invalid_argument(what + ": predicted time is not finite (" + std::to_string(t) + " s measured)");
        out.predicted = seconds_of(predicted);
        return out;
    };
    if (mode == scaling_mode::anchored_roofline) {
        if (!k.work)
            throw invalid_argument(what + ": mode anchored-roofline needs the kernel's FLOPs and bytes");
        // Roofline (Williams et al., CACM 2009): the larger of compute and memory time on each device.
        const auto roofline = [&](const device& d) {
            return std::max(*k.work / d.peak_for(k.precision), *k.traffic / d.memory_bandwidth);
        };
        return result(to_double(anchored_ratio(k.duration, roofline(origin), roofline(destination))));
    }

    if (!k.launch) {
        // Without geometry no kernel is known to be small, and occupancy is taken equal on both GPUs
        // (W_o/W_d = SM_o/SM_d, n_d/n_o = W_o/W_d in the large-grid limit).
        switch (mode) {
            case scaling_mode::wave:  // Eq. (1) generalised (6.2 step 3) with those two substitutions
                return result(t * std::pow(bandwidth, g) * std::pow(peak_o / peak_d, 1 - g));
            case scaling_mode::resimplified: return result(t * bandwidth);  // Habitat resimplified.py
            case scaling_mode::habitat_code:
            case scaling_mode::habitat_eq2: {  // Habitat code (2.3) = Eq. (2) at equal occupancy
                const double sms = double(detail::require_sms(origin, what)) / detail::require_sms(destination, what);
                return result(t * std::pow(bandwidth, g) * std::pow(clocks * sms, 1 - g));
            }
            case scaling_mode::anchored_roofline: break;  // returned above
        }
    }

    const int sm_o = detail::require_sms(origin, what), sm_d = detail::require_sms(destination, what);
    const launch_geometry& geo = *k.launch;
    launch_geometry geo_d = geo;
    if (k.destination_registers) geo_d.registers_per_thread = *k.destination_registers;
    const occupancy occ_o = occupancy_of(geo, detail::require_limits(origin, what), what + " on '" + origin.name + "'");
    const occupancy occ_d =
        occupancy_of(geo_d, detail::require_limits(destination, what), what + " on '" + destination.name + "'");
    const std::int64_t blocks = geo.blocks();
    const std::int64_t wave_o = std::int64_t{occ_o.blocks_per_sm} * sm_o;  // W = occ x SM (6.2 step 1)
    const std::int64_t wave_d = std::int64_t{occ_d.blocks_per_sm} * sm_d;
    const double n_o = detail::ceil_div(blocks, wave_o), n_d = detail::ceil_div(blocks, wave_d);  // ceil(B/W)
    out.waves_origin = static_cast<std::int64_t>(n_o);
    out.waves_destination = static_cast<std::int64_t>(n_d);
    out.small = blocks < wave_o && blocks < wave_d;
    // Per-SM compute: the pipe's peak per SM (6.2 step 3), or the base clock in Habitat's modes (2.2).
    const double per_sm = mode == scaling_mode::wave ? (peak_o / sm_o) / (peak_d / sm_d) : clocks;

    if (out.small && mode != scaling_mode::habitat_eq2) {
        if (mode == scaling_mode::resimplified) return result(t);  // Habitat resimplified.py: unchanged
        // Habitat roofline.py small-kernel case (2.3; 6.2 step 4): [c_o/c_d x ceil(B/SM_d)/ceil(B/SM_o)]^(1-g)
        const double scaled =
            t * std::pow(per_sm * detail::ceil_div(blocks, sm_d) / detail::ceil_div(blocks, sm_o), 1 - g);
        if (mode == scaling_mode::habitat_code) return result(scaled);
        return result(std::max(scaled, std::min(t, to_double(options.launch_floor))));  // our launch floor
    }
    switch (mode) {
        case scaling_mode::wave:  // 6.2 step 3: t (n_d/n_o) (D_o/D_d x W_d/W_o)^g (per-SM compute_o/_d)^(1-g)
            return result(t * (n_d / n_o) * std::pow(bandwidth * double(wave_d) / double(wave_o), g) *
                          std::pow(per_sm, 1 - g));
        case scaling_mode::habitat_code:  // Habitat roofline.py (2.3): (D_o/D_d)^g (C_o/C_d)^(1-g) (SM_o/SM_d)^(1-g)
            return result(t * std::pow(bandwidth, g) * std::pow(clocks * double(sm_o) / sm_d, 1 - g));
        case scaling_mode::habitat_eq2:  // Habitat Eq. (2) (2.2): (D_o/D_d)^g (W_o/W_d)^(1-g) (C_o/C_d)^(1-g)
            return result(t * std::pow(bandwidth, g) * std::pow(clocks * double(wave_o) / double(wave_d), 1 - g));
        case scaling_mode::resimplified: return result(t * bandwidth);  // Habitat resimplified.py: D_o/D_d
        case scaling_mode::anchored_roofline: break;  // returned above
    }
    return out;
}

struct scaled_op {
    std::string name{};
    seconds measured{};   // the wall time, or the sum of the kernels' times
    seconds overhead{};   // measured minus the kernels' sum, carried unscaled
    seconds predicted{};  // overhead + the kernels' predicted times
    std::vector<scaled_kernel> kernels{};
};

// Section 6.2 step 5 (Habitat predictor.py::_wave_scale): overhead_o + sum of the scaled kernels, the
// overhead max(0, wall time - sum of kernel times).
inline scaled_op scale_op(const measured_op& op, const device& origin, const device& destination,
                          const scaling_options& options = {}) {
    if (op.kernels.empty()) throw invalid_argument("operation '" + op.name + "': no kernels");
    scaled_op out{.name = op.name};
    seconds sum{};
    for (const measured_kernel& k : op.kernels) {
        out.kernels.push_back(scale_kernel(k, origin, destination, options));
        sum += k.duration;
        out.predicted += out.kernels.back().predicted;
    }
    out.measured = sum;
    if (op.wall_time) {
        const double wall = to_double(*op.wall_time);
        if (!(wall > 0) || !std::isfinite(wall))
            throw invalid_argument("operation '" + op.name + "': wall time is " + std::to_string(wall) +
                                   " s, expected a finite positive time");
        out.measured = *op.wall_time;
        if (*op.wall_time > sum) out.overhead = *op.wall_time - sum;
    }
    out.predicted += out.overhead;
    return out;
}

struct scaled_run {
    std::vector<scaled_op> ops{};
    seconds measured{};   // sum over operations (no overlap: Habitat analysis/trace.py)
    seconds predicted{};
};

inline scaled_run scale_ops(const std::vector<measured_op>& ops, const device& origin, const device& destination,
                            const scaling_options& options = {}) {
    scaled_run out{};
    for (const measured_op& op : ops) {
        out.ops.push_back(scale_op(op, origin, destination, options));
        out.measured += out.ops.back().measured;
        out.predicted += out.ops.back().predicted;
    }
    return out;
}

}  // namespace steptime::scale
