// steptime/cost/layer_time.hpp: what a cost model returns, what it is given, and the CostModel concept.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>

#include "steptime/error.hpp"

#include "steptime/device.hpp"
#include "steptime/tensor.hpp"
#include "steptime/units.hpp"

namespace steptime {

// The passes of a training step a cost model is asked about. `backward` is both gradients
// together, which a model may cost differently from the sum of the two (remote fetches are paid once).
enum class pass { forward, backward, backward_data, backward_weights };

// Time of one layer in one pass, PALEO's decomposition T = R + C + W, plus fixed per-kernel costs,
// with the FLOPs and bytes the model charged for it.
struct layer_time {
    seconds fetch{};     // reading inputs and weights from the device's memory
    seconds compute{};
    seconds write{};
    seconds remote{};    // reading inputs produced on other devices (model parallelism), all-reducing across them (tensor)
    seconds overhead{};  // kernel launches and other fixed costs
    flops work{};
    bytes traffic{};
    double kernels = 0;  // kernels the framework launches, where the model prices kernels (kernel, roofline)

    seconds total() const { return fetch + compute + write + remote + overhead; }
    layer_time& operator+=(const layer_time& o) {
        fetch += o.fetch;
        compute += o.compute;
        write += o.write;
        remote += o.remote;
        overhead += o.overhead;
        work += o.work;
        traffic += o.traffic;
        kernels += o.kernels;
        return *this;
    }
    friend layer_time operator+(layer_time a, const layer_time& b) { return a += b; }
    // n runs of the same kernels.
    friend layer_time operator*(double n, layer_time t) {
        t.fetch *= n;
        t.compute *= n;
        t.write *= n;
        t.remote *= n;
        t.overhead *= n;
        t.work *= n;
        t.traffic *= n;
        t.kernels *= n;
        return t;
    }
};

// The configuration a layer is costed in.
struct cost_context {
    const device& dev;
    std::int64_t batch = 1;
    element_type precision = element_type::fp32;
    // A training step's framework kernels around the layers' own (gradient sums, a convolution's bias, mixed
    // precision's weight casts); false for the layers' kernels alone, as kernel benchmarks time them.
    bool framework_kernels = true;
    // The forward pass in inference mode (estimate_options::inference).
    bool inference = false;
};

// The weights a device updates: their parameters, and the tensors that hold them (a framework's optimizer
// works per tensor on the host; ops::parameter_tensors).
struct weights {
    std::int64_t parameters = 0;
    std::int64_t tensors = 0;
};

// A cost model turns (layer, pass, device) into a layer_time, counts the trained parameters of a
// network, and prices the update of some weights; validate() throws invalid_argument for settings it
// cannot use (estimate() calls it once).
template <class M, class Net>
concept CostModel = requires(const M& m, const Net& net, typename Net::vertex v, pass p, const cost_context& c,
                             const weights& w) {
    { M::name } -> std::convertible_to<std::string_view>;
    { m.layer(net, v, p, c) } -> std::same_as<layer_time>;
    { m.parameters(net) } -> std::same_as<std::int64_t>;
    { m.update(w, c) } -> std::same_as<layer_time>;
    m.validate();
};

namespace detail {
// A platform-percent-of-peak is a fraction of a peak rate: in (0, 1].
inline void require_ppp(std::string_view model, const char* field, ratio r) {
    if (!(r.value() > 0 && r.value() <= 1))
        throw invalid_argument(std::string(model) + ": " + field + " is " + std::to_string(r.value()) +
                               ", expected a fraction in (0, 1]");
}
}  // namespace detail

}  // namespace steptime
