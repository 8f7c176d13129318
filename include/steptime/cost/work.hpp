// steptime/cost/work.hpp: the per-pass work of a layer under the library's own accounting (ops/), shared
// by the default cost models: data gradients skipped where nobody needs them, remote inputs of placed layers.
#pragma once

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "steptime/cost/layer_time.hpp"
#include "steptime/graph/network.hpp"

namespace steptime::cost {

namespace detail {
// The one of `values` that to_string names `name`; std::nullopt for none (the parse_* functions below).
template <class E>
constexpr std::optional<E> parse_named(std::string_view name, std::initializer_list<E> values) {
    for (const E e : values)
        if (name == to_string(e)) return e;
    return std::nullopt;
}
}  // namespace detail

// Optimizers priced by the weight update: operations and bytes per parameter.
enum class optimizer { sgd, momentum, adam };

// How the update's arithmetic is launched: a kernel per operation over all the weights (`foreach`: PyTorch's
// default, whose for-loop implementation moves the same bytes), or one pass (`fused`: Apex's and Megatron-LM's
// optimizers, MXNet's and TensorFlow's update ops).
enum class update_kernels { foreach, fused };

// The weight update's work per parameter, over FP32 weights, gradients and state.
struct update_work {
    double flops;                      // arithmetic
    double bytes_read, bytes_written;  // one fused pass: each tensor read or written once
    double state_bytes;                // kept from step to step besides the weights
    // A kernel per arithmetic operation (PyTorch's foreach optimizers): the operations, and the bytes they read
    // and write between them.
    double operations, operation_bytes_read, operation_bytes_written;

    // The update of `parameters` weights, launched as `launch` says, and its kernels.
    constexpr op_work of(double parameters, update_kernels launch = update_kernels::fused) const {
        const bool fused = launch == update_kernels::fused;
        return {flops * parameters, (fused ? bytes_read : operation_bytes_read) * parameters,
                (fused ? bytes_written : operation_bytes_written) * parameters};
    }
    constexpr double kernels(update_kernels launch) const { return launch == update_kernels::fused ? 1 : operations; }
};
constexpr update_work work_of(optimizer o) {
    switch (o) {
        // w -= lr * g: reads w, g; writes w. PyTorch: add_(w, g), the same.
        case optimizer::sgd: return {2, 8, 4, 0, 1, 8, 4};
        // v = mu v + g; w -= lr v: reads w, g, v; writes w, v. PyTorch: mul_(v), add_(v, g), add_(w, v), each
        // reading its operands and writing its first: 20 B read, 12 written.
        case optimizer::momentum: return {4, 12, 8, 4, 3, 20, 12};
        // Two moments, bias correction, sqrt, divide: reads w, g, m, v; writes w, m, v. PyTorch: lerp_(m, g),
        // mul_(v), addcmul_(v, g, g), d = sqrt(v), div_(d), add_(d, eps), addcdiv_(w, m, d), each reading its
        // operands and writing one tensor: 44 B read, 28 written.
        case optimizer::adam: return {12, 16, 12, 8, 7, 44, 28};
    }
    return {2, 8, 4, 0, 1, 8, 4};
}

constexpr std::string_view to_string(update_kernels k) { return k == update_kernels::fused ? "fused" : "foreach"; }

// "foreach" or "fused"; std::nullopt for anything else.
constexpr std::optional<update_kernels> parse_update_kernels(std::string_view name) {
    return detail::parse_named(name, {update_kernels::foreach, update_kernels::fused});
}

constexpr std::string_view to_string(optimizer o) {
    switch (o) {
        case optimizer::sgd: return "sgd";
        case optimizer::momentum: return "momentum";
        case optimizer::adam: return "adam";
    }
    return "sgd";
}

// "sgd", "momentum" or "adam"; std::nullopt for anything else.
constexpr std::optional<optimizer> parse_optimizer(std::string_view name) {
    return detail::parse_named(name, {optimizer::sgd, optimizer::momentum, optimizer::adam});
}

// The convolution library's generation, where the kernel model prices them apart: cuDNN 9 (PyTorch 2's;
// measured on the H100) transposes an NCHW tensor-core convolution's tensors to NHWC and back; cuDNN 7.6 ran
// them on the NCHW tensors as they were (DeepBench's FP16 convolutions on the V100 took their multiplications'
// time alone), and its generation (5.1 to 7.6) ran 3x3 and 5x5 convolutions on CUDA cores by non-fused Winograd
// kernels. cuDNN 8 is not known to either (docs/accuracy.md, "ResNet-50 training steps on seventeen GPUs").
enum class conv_library { cudnn7, cudnn9 };

constexpr std::string_view to_string(conv_library l) { return l == conv_library::cudnn7 ? "cudnn7" : "cudnn9"; }

// "cudnn7" or "cudnn9"; std::nullopt for anything else.
constexpr std::optional<conv_library> parse_conv_library(std::string_view name) {
    return detail::parse_named(name, {conv_library::cudnn7, conv_library::cudnn9});
}

namespace detail {

// What a layer's work depends on in context c.
inline work_args args_of(const network& net, network::vertex v, const cost_context& c) {
    const auto& l = net[v];
    return {l.inputs, l.output, static_cast<double>(c.batch), element_bytes(c.precision), l.parameters, c.inference};
}

// Work of one pass of one layer. The data gradient of a layer fed only by the network's input data (a pad or
// reshape of it included) is not computed (no framework back-propagates into its input data), but for a recurrent
// layer's: cuDNN's backward-data call always writes dx, and goes back through time, which the weight gradients need.
inline op_work pass_work(const network& net, network::vertex v, pass p, const cost_context& c) {
    const auto& l = net[v];
    const work_args a = args_of(net, v, c);
    const bool needs_data_gradient = std::holds_alternative<ops::recurrent>(l.op) ||
                                     !std::ranges::all_of(net.parents(v), [&](auto q) { return net[q].input_data; });
    const auto data = [&] { return needs_data_gradient ? ops::work(l.op, phase::backward_data, a) : op_work{}; };
    switch (p) {
        case pass::forward: return ops::work(l.op, phase::forward, a);
        case pass::backward_data: return data();
        case pass::backward_weights: return ops::work(l.op, phase::backward_weights, a);
        case pass::backward: {
            const auto d = data(), w = ops::work(l.op, phase::backward_weights, a);
            return {d.flops + w.flops, d.bytes_read + w.bytes_read, d.bytes_written + w.bytes_written};
        }
    }
    return {};
}

// Bytes a placed layer fetches from parents on other devices: its inputs going forward, their
// gradients going back (charged with the data gradient).
inline double remote_bytes(const network& net, network::vertex v, pass p, const cost_context& c) {
    if (p == pass::backward_weights) return 0;
    const auto& l = net[v];
    double b = 0;
    std::size_t i = 0;
    for (auto q : net.parents(v)) {
        if (net[q].device.value_or(0) != l.device.value_or(0))
            b += static_cast<double>(l.inputs[i].elements()) * static_cast<double>(c.batch) * element_bytes(c.precision);
        ++i;
    }
    return b;
}

// The settings paleo and roofline share.
inline void validate_common(std::string_view model, ratio compute, ratio memory, ratio comm,
                            const std::optional<bytes_per_second>& cross) {
    steptime::detail::require_ppp(model, "ppp_compute", compute);
    steptime::detail::require_ppp(model, "ppp_memory", memory);
    steptime::detail::require_ppp(model, "ppp_comm", comm);
    if (cross && !(cross->value() > 0 && std::isfinite(cross->value())))
        throw invalid_argument(std::string(model) + ": cross_device_bandwidth must be finite and positive");
}

// A fixed cost per kernel: finite and non-negative.
inline void require_overhead(std::string_view model, const char* field, seconds t) {
    if (!(t.value() >= 0 && std::isfinite(t.value())))
        throw invalid_argument(std::string(model) + ": " + field + " is " + std::to_string(t.value()) +
                               " s, expected a finite non-negative time");
}

// One kernel on the roofline: the binding resource's time (split into fetch and write by bytes when memory
// binds) plus a fixed cost.
inline layer_time roofline_kernel(const op_work& w, flops_per_second rate, bytes_per_second bandwidth, seconds fixed) {
    const seconds compute = flops_of(w.flops) / rate;
    const bytes moved = bytes_of(w.bytes_read + w.bytes_written);
    const seconds memory = moved / bandwidth;
    layer_time t{.overhead = fixed, .work = flops_of(w.flops), .traffic = moved, .kernels = 1};
    if (compute >= memory) {
        t.compute = compute;
    } else {
        t.fetch = memory * (w.bytes_read / moved.value());
        t.write = memory - t.fetch;
    }
    return t;
}

// The kernels of one pass of a layer, each priced by `time_of(work, pass)`: the backward pass is two (data
// and weight gradients), and a pass without work launches none; plus the fetches of a placed layer's
// inputs from other devices at `remote_bandwidth`.
template <class KernelTime>
layer_time per_kernel(const network& net, network::vertex v, pass p, const cost_context& c,
                      bytes_per_second remote_bandwidth, KernelTime time_of) {
    layer_time t{};
    const auto add = [&](pass q) {
        const op_work w = pass_work(net, v, q, c);
        if (w.flops > 0 || w.bytes_read + w.bytes_written > 0) t += time_of(w, q);
    };
    if (p == pass::backward) {
        add(pass::backward_data);
        add(pass::backward_weights);
    } else {
        add(p);
    }
    if (const double remote = remote_bytes(net, v, p, c); remote > 0) {
        t.remote = bytes_of(remote) / remote_bandwidth;
        t.traffic += bytes_of(remote);
    }
    return t;
}

// Bandwidth between devices: the given one, else the device's intra-node link, else its memory.
inline bytes_per_second cross_bandwidth(const std::optional<bytes_per_second>& given, const device& d) {
    return given ? *given : d.intra_node_link ? *d.intra_node_link : d.memory_bandwidth;
}

}  // namespace detail
}  // namespace steptime::cost
