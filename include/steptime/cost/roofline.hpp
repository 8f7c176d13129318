// steptime/cost/roofline.hpp: per layer, the larger of compute and memory time (Williams et al.,
// "Roofline", CACM 2009), plus a fixed launch overhead per kernel.
#pragma once

#include "steptime/cost/work.hpp"

namespace steptime::cost {

struct roofline {
    static constexpr std::string_view name = "roofline";

    ratio ppp_compute = ratio_of(1.0);
    ratio ppp_memory = ratio_of(1.0);
    ratio ppp_comm = ratio_of(1.0);
    // Launch latency of one kernel: about 5 us from the host on recent CUDA GPUs (NVIDIA CUDA C++
    // Best Practices Guide, "Kernel launch overhead"; measured 3-7 us on Volta to Hopper).
    seconds launch_overhead = microseconds_of(5);
    optimizer update_rule = optimizer::sgd;
    std::optional<bytes_per_second> cross_device_bandwidth{};

    void validate() const {
        detail::validate_common(name, ppp_compute, ppp_memory, ppp_comm, cross_device_bandwidth);
        detail::require_overhead(name, "launch_overhead", launch_overhead);
    }

    layer_time layer(const network& net, network::vertex v, pass p, const cost_context& c) const {
        return detail::per_kernel(net, v, p, c, detail::cross_bandwidth(cross_device_bandwidth, c.dev) * ppp_comm,
                                  [&](const op_work& w, pass) { return bound(w, c); });
    }

    std::int64_t parameters(const network& net) const { return net.parameter_count(); }

    layer_time update(const weights& updated, const cost_context& c) const {
        if (updated.parameters == 0) return {};
        return bound(work_of(update_rule).of(static_cast<double>(updated.parameters)), c);
    }

private:
    layer_time bound(const op_work& w, const cost_context& c) const {
        return detail::roofline_kernel(w, c.dev.peak_for(c.precision) * ppp_compute, c.dev.memory_bandwidth * ppp_memory,
                                       launch_overhead);
    }
};

}  // namespace steptime::cost
