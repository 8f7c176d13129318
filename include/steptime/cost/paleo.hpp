// steptime/cost/paleo.hpp: the default model, PALEO's decomposition T = R + C + W with its defects fixed
// (paleo-model.md section 13): decimal units, no per-term clock floors, costs for every operation,
// sparse-aware data gradients of strided convolutions, separate compute and memory PPP applied to
// the weight update too, optimizer state.
#pragma once

#include "steptime/cost/work.hpp"

namespace steptime::cost {

struct paleo {
    static constexpr std::string_view name = "paleo";

    ratio ppp_compute = ratio_of(1.0);  // fraction of peak FLOP/s reached
    ratio ppp_memory = ratio_of(1.0);   // fraction of peak memory bandwidth reached
    ratio ppp_comm = ratio_of(1.0);     // fraction of the cross-device bandwidth reached
    // A fixed cost per kernel (each layer's pass that does work, and the weight update): launches and
    // framework overhead. PALEO has none (zero); a PPP calibration (fit/ppp.hpp) fits it.
    seconds kernel_overhead{};
    optimizer update_rule = optimizer::sgd;
    std::optional<bytes_per_second> cross_device_bandwidth{};  // unset: the device's intra-node link

    void validate() const {
        detail::validate_common(name, ppp_compute, ppp_memory, ppp_comm, cross_device_bandwidth);
        detail::require_overhead(name, "kernel_overhead", kernel_overhead);
    }

    layer_time layer(const network& net, network::vertex v, pass p, const cost_context& c) const {
        return layer(net, v, p, c, kernel_overhead);
    }

    // Reads and writes of weights, gradients and optimizer state in FP32 (master weights).
    std::int64_t parameters(const network& net) const { return net.parameter_count(); }

    layer_time update(const weights& updated, const cost_context& c) const {
        return update(updated.parameters, c, kernel_overhead);
    }

protected:
    // The same with another fixed cost per kernel (cost::calibrated's profile).
    layer_time layer(const network& net, network::vertex v, pass p, const cost_context& c, seconds overhead) const {
        const op_work w = detail::pass_work(net, v, p, c);
        const double remote = detail::remote_bytes(net, v, p, c);
        layer_time t = time_of(w, c, overhead);
        if (remote > 0) t.remote = bytes_of(remote) / (detail::cross_bandwidth(cross_device_bandwidth, c.dev) * ppp_comm);
        t.traffic += bytes_of(remote);
        return t;
    }

    layer_time update(std::int64_t count, const cost_context& c, seconds overhead) const {
        return time_of(work_of(update_rule).of(static_cast<double>(count)), c, overhead);
    }

private:
    layer_time time_of(const op_work& w, const cost_context& c, seconds overhead) const {
        const bytes_per_second bw = c.dev.memory_bandwidth * ppp_memory;
        const bool launches = w.flops > 0 || w.bytes_read + w.bytes_written > 0;
        return {.fetch = bytes_of(w.bytes_read) / bw,
                .compute = flops_of(w.flops) / (c.dev.peak_for(c.precision) * ppp_compute),
                .write = bytes_of(w.bytes_written) / bw,
                .overhead = launches ? overhead : seconds{},
                .work = flops_of(w.flops),
                .traffic = bytes_of(w.bytes_read + w.bytes_written)};
    }
};

}  // namespace steptime::cost
