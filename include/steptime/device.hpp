// steptime/device.hpp: what a cost model needs to know about one accelerator.
#pragma once

#include <cmath>
#include <optional>
#include <string>

#include "steptime/error.hpp"
#include "steptime/tensor.hpp"
#include "steptime/units.hpp"

namespace steptime {

// Peak arithmetic rates per compute pipe. Tensor-core pipes are absent on devices without them.
struct peak_rates {
    flops_per_second fp32{};                     // FP32 on the SIMT (CUDA-core) pipe
    std::optional<flops_per_second> fp16{};        // FP16 on the SIMT pipe (packed half2), if faster than FP32
    std::optional<flops_per_second> tf32_tensor{};  // dense, without sparsity
    std::optional<flops_per_second> fp16_tensor{};  // dense, FP32 accumulate where the vendor quotes both
    std::optional<flops_per_second> bf16_tensor{};
    std::optional<flops_per_second> fp8_tensor{};
};

// CUDA compute capability, major.minor (e.g. 8.0): it fixes the SM's occupancy limits (scale/wave_scaling.hpp).
struct cuda_compute_capability {
    int major = 0;
    int minor = 0;
    friend bool operator==(const cuda_compute_capability&, const cuda_compute_capability&) = default;
};

struct device {
    std::string name{};         // catalog key, e.g. "v100-sxm2-16gb"
    std::string description{};  // e.g. "NVIDIA Tesla V100 SXM2 16 GB"
    bool is_gpu = true;
    peak_rates peak{};
    bytes_per_second memory_bandwidth{};
    std::optional<bytes> memory_capacity{};
    std::optional<int> sm_count{};           // streaming multiprocessors (compute units on AMD)
    std::optional<cuda_compute_capability> compute_capability{};  // NVIDIA GPUs only
    hertz clock{};                         // the clock a cycle is counted in (PALEO's one-cycle floor)
    std::optional<hertz> boost_clock{};
    std::optional<double> tdp_watts{};       // board power
    std::optional<bytes_per_second> intra_node_link{};  // per-GPU bandwidth to its peers in a node
    std::string source{};                    // where the numbers come from

    // The tensor-core pipe a precision runs on, where the device has one (FP8 and INT8 fall back to FP16's).
    std::optional<flops_per_second> tensor_peak_for(element_type precision) const {
        switch (precision) {
            case element_type::fp32: return std::nullopt;
            case element_type::tf32: return peak.tf32_tensor;
            case element_type::fp16: return peak.fp16_tensor;
            case element_type::bf16: return peak.bf16_tensor;
            case element_type::fp8:
            case element_type::int8: return peak.fp8_tensor ? peak.fp8_tensor : peak.fp16_tensor;
        }
        return std::nullopt;
    }
    // The CUDA-core (SIMT) pipe: FP16 on SIMT for fp16/bf16 where faster, else FP32.
    flops_per_second simt_peak_for(element_type precision) const {
        const bool half = precision == element_type::fp16 || precision == element_type::bf16;
        return half && peak.fp16 ? *peak.fp16 : peak.fp32;
    }
    // The peak of the pipe a given precision runs on: its tensor pipe where the device has one, else SIMT.
    flops_per_second peak_for(element_type precision) const {
        const auto tensor = tensor_peak_for(precision);
        return tensor ? *tensor : simt_peak_for(precision);
    }
};

namespace detail {
template <class Q>
void require_positive(const std::string& dev, const char* field, Q q) {
    const double v = q.value();
    if (!std::isfinite(v) || v <= 0)
        throw invalid_device("device '" + dev + "': field '" + field + "' is " + std::to_string(v) +
                             ", expected a finite positive number");
}
template <class Q>
void require_positive(const std::string& dev, const char* field, const std::optional<Q>& q) {
    if (q) require_positive(dev, field, *q);
}
}  // namespace detail

// Throws invalid_device naming the first field that is missing, non-finite or not positive.
inline void validate(const device& d) {
    if (d.name.empty()) throw invalid_device("device: field 'name' is empty, expected a name");
    using detail::require_positive;
    require_positive(d.name, "peak_fp32", d.peak.fp32);
    require_positive(d.name, "peak_fp16", d.peak.fp16);
    require_positive(d.name, "peak_tf32_tensor", d.peak.tf32_tensor);
    require_positive(d.name, "peak_fp16_tensor", d.peak.fp16_tensor);
    require_positive(d.name, "peak_bf16_tensor", d.peak.bf16_tensor);
    require_positive(d.name, "peak_fp8_tensor", d.peak.fp8_tensor);
    require_positive(d.name, "memory_bandwidth", d.memory_bandwidth);
    require_positive(d.name, "memory_capacity", d.memory_capacity);
    require_positive(d.name, "clock", d.clock);
    require_positive(d.name, "boost_clock", d.boost_clock);
    require_positive(d.name, "intra_node_link", d.intra_node_link);
    if (d.sm_count && *d.sm_count <= 0)
        throw invalid_device("device '" + d.name + "': field 'sm_count' is " + std::to_string(*d.sm_count) +
                             ", expected a positive count");
    if (const auto& cc = d.compute_capability; cc && !(cc->major >= 1 && cc->major <= 99 && cc->minor >= 0 && cc->minor <= 9))
        throw invalid_device("device '" + d.name + "': field 'compute_capability' is " + std::to_string(cc->major) + "." +
                             std::to_string(cc->minor) + ", expected major.minor such as 8.0 (major 1-99, minor 0-9)");
    if (d.tdp_watts && !(std::isfinite(*d.tdp_watts) && *d.tdp_watts > 0))
        throw invalid_device("device '" + d.name + "': field 'tdp_watts' is " + std::to_string(*d.tdp_watts) +
                             ", expected a finite positive number");
}

// The clock a device's peaks are quoted at: its boost clock where given.
inline hertz quoted_clock(const device& d) { return d.boost_clock ? *d.boost_clock : d.clock; }

// The device running at a sustained clock f instead of the one its peaks are quoted at (quoted_clock): every compute peak scales with the clock (cores x FLOPs per cycle x clock), the memory's
// bandwidth, on a clock of its own, does not. For a GPU held below its boost by power or temperature (a K80
// under autoboost), locked (nvidia-smi --lock-gpu-clocks) or running above it. Named NAME@FMHz.
inline device at_clock(device d, hertz f) {
    if (!(f.value() > 0 && std::isfinite(f.value())))
        throw invalid_device("device '" + d.name + "' at a clock of " + std::to_string(f.value()) +
                             " Hz: expected a finite positive clock");
    const double s = (f / quoted_clock(d)).value();
    for (auto* peak : {&d.peak.tf32_tensor, &d.peak.fp16_tensor, &d.peak.bf16_tensor, &d.peak.fp8_tensor, &d.peak.fp16})
        if (*peak) **peak *= s;
    d.peak.fp32 *= s;
    if (const auto at = d.name.rfind('@'); at != std::string::npos && d.name.ends_with("MHz"))
        d.name.resize(at);  // a device clocked again is named by its last clock
    d.name += '@';  // appended piece by piece: GCC 12 warns falsely on "@" + std::string
    d.name += std::to_string(std::lround(f.value() / 1e6));
    d.name += "MHz";
    d.clock = f;
    if (d.boost_clock) d.boost_clock = f;
    return d;
}

}  // namespace steptime
