// steptime/tensor.hpp: element types and per-sample tensor shapes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "steptime/detail/checked.hpp"
#include "steptime/units.hpp"

namespace steptime {

enum class element_type { fp32, tf32, fp16, bf16, fp8, int8 };

// Storage size of one element (TF32 is stored as FP32).
constexpr double element_bytes(element_type t) {
    switch (t) {
        case element_type::fp32:
        case element_type::tf32: return 4;
        case element_type::fp16:
        case element_type::bf16: return 2;
        case element_type::fp8:
        case element_type::int8: return 1;
    }
    return 4;
}

constexpr std::string_view to_string(element_type t) {
    switch (t) {
        case element_type::fp32: return "fp32";
        case element_type::tf32: return "tf32";
        case element_type::fp16: return "fp16";
        case element_type::bf16: return "bf16";
        case element_type::fp8: return "fp8";
        case element_type::int8: return "int8";
    }
    return "fp32";
}

inline std::optional<element_type> parse_element_type(std::string_view s) {
    for (auto t : {element_type::fp32, element_type::tf32, element_type::fp16, element_type::bf16,
                   element_type::fp8, element_type::int8})
        if (s == to_string(t)) return t;
    return std::nullopt;
}

// A precision as users name it: an element type, or "amp" / "amp-bf16" (automatic mixed precision), which are
// fp16 and bf16 here: the models run matmuls in half precision on tensor cores where the device has them,
// keep activations in half precision and update FP32 master weights (the models' update()).
inline std::optional<element_type> parse_precision(std::string_view s) {
    if (s == "amp") return element_type::fp16;
    if (s == "amp-bf16") return element_type::bf16;
    return parse_element_type(s);
}

// How a framework lays out activations in memory: NCHW (PyTorch's and Caffe's default) or NHWC (channels
// last: TensorFlow's default, PyTorch's channels_last, NVIDIA's tuned recipes). The kernel cost model prices
// the transposes and slower batch norm that NCHW costs around tensor cores.
enum class activation_layout { nchw, nhwc };

constexpr std::string_view to_string(activation_layout l) { return l == activation_layout::nchw ? "nchw" : "nhwc"; }

inline std::optional<activation_layout> parse_layout(std::string_view s) {
    if (s == "nchw") return activation_layout::nchw;
    if (s == "nhwc") return activation_layout::nhwc;
    return std::nullopt;
}

// The shape of one sample (the batch dimension is a parameter of every estimate, not of the
// network). Images are rank 3 (H, W, C, i.e. NHWC without N); feature vectors rank 1.
struct tensor_shape {
    std::array<std::int64_t, 3> dims{1, 1, 1};
    int rank = 0;

    static tensor_shape image(std::int64_t h, std::int64_t w, std::int64_t c) { return {{h, w, c}, 3}; }
    static tensor_shape features(std::int64_t n) { return {{n, 1, 1}, 1}; }

    std::int64_t h() const { return rank == 3 ? dims[0] : 1; }
    std::int64_t w() const { return rank == 3 ? dims[1] : 1; }
    std::int64_t c() const { return dims[rank - 1]; }  // channels, or features for rank 1
    std::int64_t elements() const { return dims[0] * dims[1] * dims[2]; }  // unused dims are 1

    friend bool operator==(const tensor_shape& a, const tensor_shape& b) {
        return a.rank == b.rank && a.dims == b.dims;
    }

    // "NxHxWxC" for a batch of n, or the per-sample shape when n is omitted.
    std::string str(std::optional<std::int64_t> n = std::nullopt) const {
        std::string s = n ? std::to_string(*n) : std::string{};
        for (int i = 0; i < rank; ++i) {
            if (!s.empty()) s += 'x';
            s += std::to_string(dims[i]);
        }
        return s;
    }
};

// Builds a shape after checking every dimension is positive and the element count fits in 64 bits.
inline tensor_shape make_shape(const std::array<std::int64_t, 3>& dims, int rank, const std::string& what) {
    tensor_shape s{};
    s.rank = rank;
    std::int64_t n = 1;
    for (int i = 0; i < rank; ++i) {
        if (dims[i] <= 0)
            throw invalid_model(what + ": dimension " + std::to_string(i) + " is " + std::to_string(dims[i]) +
                                ", expected a positive size");
        s.dims[i] = dims[i];
        n = detail::checked_mul(n, dims[i], what);
    }
    return s;
}

}  // namespace steptime
