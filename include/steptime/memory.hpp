// steptime/memory.hpp: what a training step (or an inference pass) keeps in one GPU's memory, and whether it fits the
// device's.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "steptime/cost/work.hpp"
#include "steptime/tensor.hpp"
#include "steptime/units.hpp"

namespace steptime {

// One GPU's tensors at the step's peak, when every activation its backward pass reads is held: the start of the
// backward pass, or on a pipeline stage the moment its micro-batches in flight hold the most.
// Not counted: the CUDA context, cuDNN's and cuBLAS's workspaces, the allocator's cached free blocks, the
// gradients flowing through the backward pass (README.md, "Memory").
struct memory_footprint {
    bytes weights{};          // FP32 (master) weights, and in mixed precision the half copies the matmuls read (inference:
                              // the weights in its precision)
    bytes gradients{};        // one per weight, in the precision the workers exchange
    bytes optimizer_state{};  // momentum: an FP32 tensor per weight; Adam: two
    bytes buffers{};          // data parallel: the gradient buckets, a second copy of the gradients
    bytes activations{};      // what the backward pass reads (activation_tally), for `samples`
    std::int64_t samples = 0;          // the samples whose activations are held: a worker's batch, a micro-batch
    std::optional<bytes> capacity{};   // the device's memory, where known

    bytes fixed() const { return weights + gradients + optimizer_state + buffers; }  // whatever the batch
    bytes total() const { return fixed() + activations; }
    // True where the capacity is unknown: nothing says it does not fit.
    bool fits() const { return !capacity || total() <= *capacity; }
    // The most samples (of the unit of `samples`) whose step fits: activations grow with the batch, the rest does
    // not; 0 where the rest alone does not fit; nullopt where the capacity is unknown or nothing grows (any batch
    // fits). Beyond 2^63 - 1 it says 2^63 - 1.
    std::optional<std::int64_t> largest_samples() const {
        if (!capacity) return std::nullopt;
        const double room = (*capacity - fixed()).value();
        if (room < 0) return 0;
        if (samples < 1 || !(activations.value() > 0)) return std::nullopt;
        const double n = std::floor(room / (activations.value() / static_cast<double>(samples)));
        return n < 0x1p63 ? static_cast<std::int64_t>(n) : std::numeric_limits<std::int64_t>::max();
    }
};

// Of two GPUs that run the same samples (pipeline stages, model-parallel devices), the one that limits them: the
// smaller largest batch, which fits exactly when both fit; where that is not known, the fuller.
inline const memory_footprint& limiting(const memory_footprint& a, const memory_footprint& b) {
    constexpr auto unbounded = std::numeric_limits<std::int64_t>::max();
    const std::int64_t la = a.largest_samples().value_or(unbounded), lb = b.largest_samples().value_or(unbounded);
    if (la != lb) return la < lb ? a : b;
    return a.total() >= b.total() ? a : b;
}

// The footprint of `parameters` weights trained in `precision` by `update_rule`, exchanging `gradients`, with
// `activations` held for `samples`. Bytes per weight: 4 (FP32 weights) + the precision's element size below FP32
// (autocast's cast cache holds each weight's half copy from the forward pass to its backward; Apex's O2 and
// Megatron-LM keep a half model beside FP32 master weights), the gradient's, and 4 per optimizer state tensor
// (ZeRO, Rajbhandari et al. 2020, section 3.1: 16 bytes with Adam in mixed precision, half gradients).
inline memory_footprint training_memory(std::int64_t parameters, element_type precision, element_type gradients,
                                        cost::optimizer update_rule, bytes activations, std::int64_t samples,
                                        std::optional<bytes> capacity) {
    const double n = static_cast<double>(parameters);
    const double half = element_bytes(precision) < 4 ? element_bytes(precision) : 0;
    memory_footprint m;
    m.weights = bytes_of(n * (4 + half));
    m.gradients = bytes_of(n * element_bytes(gradients));
    m.optimizer_state = bytes_of(n * cost::work_of(update_rule).state_bytes);
    m.activations = activations;
    m.samples = samples;
    m.capacity = capacity;
    return m;
}

// One GPU's memory for inference: the weights in the precision the network runs in (a served network is converted
// once: model.half(), TensorRT's engines), no gradients or optimizer state, and `activations`, the peak of those live
// at once for `samples` (inference_peak).
inline memory_footprint inference_memory(std::int64_t parameters, element_type precision, bytes activations,
                                         std::int64_t samples, std::optional<bytes> capacity) {
    return {.weights = bytes_of(static_cast<double>(parameters) * element_bytes(precision)),
            .activations = activations,
            .samples = samples,
            .capacity = capacity};
}

}  // namespace steptime
