// steptime/ops/common.hpp: what every operation shares: phases, work counts, window geometry.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include "steptime/error.hpp"
#include "steptime/tensor.hpp"
#include "steptime/units.hpp"

namespace steptime {

// The three computations of a training step a layer takes part in.
enum class phase { forward, backward_data, backward_weights };

// Arithmetic and memory traffic of one phase of one layer, for the whole batch.
struct op_work {
    double flops = 0;          // floating-point operations (a multiply-add is 2)
    double bytes_read = 0;     // inputs, weights, saved tensors
    double bytes_written = 0;  // outputs or gradients
};

// One kernel of an operation that launches several (a recurrent layer's steps, attention's matmuls and
// softmax, a product's gradients): its work and, for a matmul, its GEMM C[m x n] += A[m x k] B[k x n],
// `groups` of them in one launch (a batched GEMM); run `runs` times, not launched at 0.
struct kernel_work {
    op_work work{};
    double runs = 0;
    bool matmul = false;
    double m = 0, n = 0, k = 0, groups = 1;
};

// The work of such kernels together.
template <class Kernels>
op_work total_work(const Kernels& kernels) {
    op_work w{};
    for (const kernel_work& k : kernels) {
        w.flops += k.runs * k.work.flops;
        w.bytes_read += k.runs * k.work.bytes_read;
        w.bytes_written += k.runs * k.work.bytes_written;
    }
    return w;
}

// What an operation's work depends on besides its own parameters.
struct work_args {
    std::span<const tensor_shape> inputs;
    const tensor_shape& output;
    double batch;          // samples in the batch
    double element_bytes;  // storage size of activations and weights
    std::int64_t parameters;
    bool inference = false;  // the forward pass in inference mode: batch norm's running statistics, no dropout or loss
};

namespace ops {

// Padding of a sliding window: TensorFlow's SAME and VALID, or explicit symmetric pads.
struct padding {
    enum class mode { same, valid, explicit_ } kind = mode::valid;
    std::int64_t h = 0, w = 0;  // per-side pads, explicit mode only

    static constexpr padding same() { return {mode::same}; }
    static constexpr padding valid() { return {mode::valid}; }
    static constexpr padding explicit_pads(std::int64_t ph, std::int64_t pw) { return {mode::explicit_, ph, pw}; }
    friend bool operator==(const padding&, const padding&) = default;
};

struct extent {
    std::int64_t h = 1, w = 1;
    friend bool operator==(const extent&, const extent&) = default;
};

namespace detail {

inline std::string dims(std::int64_t h, std::int64_t w) { return std::to_string(h) + "x" + std::to_string(w); }

inline void require(bool ok, const std::string& layer, const std::string& what) {
    if (!ok) throw invalid_model("layer '" + layer + "': " + what);
}

inline void require_inputs(std::span<const tensor_shape> in, std::size_t n, const std::string& layer) {
    require(in.size() == n, layer,
            "expects " + std::to_string(n) + " input" + (n == 1 ? "" : "s") + ", got " + std::to_string(in.size()));
}

inline void require_image(const tensor_shape& s, const std::string& layer) {
    require(s.rank == 3, layer, "expects an image input HxWxC, got " + s.str());
}

// Output size of a window along one dimension (TensorFlow's rules for SAME and VALID:
// SAME = ceil(in / stride), VALID = ceil((in - k_eff + 1) / stride); explicit = floor((in + 2p - k_eff) / s) + 1).
inline std::int64_t window_out(std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t dilation,
                               padding::mode mode, std::int64_t pad, const std::string& layer) {
    require(k > 0 && stride > 0 && dilation > 0 && pad >= 0, layer,
            "window " + std::to_string(k) + ", stride " + std::to_string(stride) + ", dilation " +
                std::to_string(dilation) + ", pad " + std::to_string(pad) + ": expected positive sizes");
    const std::string what = "layer '" + layer + "'";
    using steptime::detail::checked_add, steptime::detail::checked_mul;
    const std::int64_t k_eff = checked_add(checked_mul(k - 1, dilation, what), 1, what);
    const std::int64_t padded = mode == padding::mode::explicit_ ? checked_add(in, checked_mul(2, pad, what), what) : in;
    std::int64_t out = 0;
    switch (mode) {
        case padding::mode::same: out = in > 0 ? (in - 1) / stride + 1 : 0; break;  // ceil(in / stride)
        case padding::mode::valid:
        case padding::mode::explicit_: out = padded >= k_eff ? (padded - k_eff) / stride + 1 : 0; break;
    }
    require(out > 0, layer,
            "window of " + std::to_string(k_eff) + " does not fit an input of " + std::to_string(in) +
                (mode == padding::mode::explicit_ ? " padded by " + std::to_string(pad) : std::string{}));
    return out;
}

inline tensor_shape window_output(const tensor_shape& in, extent k, extent stride, extent dilation, padding pad,
                                  std::int64_t channels, const std::string& layer) {
    return make_shape({window_out(in.h(), k.h, stride.h, dilation.h, pad.kind, pad.h, layer),
                       window_out(in.w(), k.w, stride.w, dilation.w, pad.kind, pad.w, layer), channels},
                      3, "layer '" + layer + "'");
}

inline double elems(const tensor_shape& s) { return static_cast<double>(s.elements()); }

// Parameter counts, checked against 64-bit overflow.
inline std::int64_t product(std::initializer_list<std::int64_t> factors) {
    std::int64_t n = 1;
    for (auto f : factors) n = steptime::detail::checked_mul(n, f, "parameter count");
    return n;
}

}  // namespace detail
}  // namespace ops
}  // namespace steptime
