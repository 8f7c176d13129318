// steptime/cost/paleo_compat.hpp: PALEO's flops profiler (GEMM path), number for number, quirks included.
// Specification: paleo-model.md sections 3-5 (copied to docs/paleo-model.md); every formula cites its section.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>

#include "steptime/cost/layer_time.hpp"
#include "steptime/graph/network.hpp"

namespace steptime::cost {

struct paleo_compat {
    static constexpr std::string_view name = "paleo-compat";

    ratio ppp_compute = ratio_of(1.0);  // PALEO's ppp_comp: scales compute AND local memory (section 3)
    ratio ppp_comm = ratio_of(1.0);     // PALEO's ppp_comm: scales remote fetches (section 5.4)
    // Bandwidth of remote fetches between split layers; unset = the device's memory bandwidth (5.4).
    std::optional<bytes_per_second> cross_device_bandwidth{};
    // PALEO's --use_pipeline: memory traffic overlaps computation, a layer costs max(comp, comm) (3).
    bool pipelined = false;

    void validate() const {
        steptime::detail::require_ppp(name, "ppp_compute", ppp_compute);
        steptime::detail::require_ppp(name, "ppp_comm", ppp_comm);
        if (cross_device_bandwidth && !(cross_device_bandwidth->value() > 0 && std::isfinite(cross_device_bandwidth->value())))
            throw invalid_argument("paleo-compat: cross_device_bandwidth must be finite and positive");
    }

    layer_time layer(const network& net, network::vertex v, pass p, const cost_context& c) const {
        const units u(c, *this);
        const auto& l = net[v];
        acc a;
        const double n = static_cast<double>(c.batch);
        if (const auto* conv = std::get_if<ops::conv2d>(&l.op)) {
            if (conv->groups != 1 || conv->dilation != ops::extent{})
                throw unsupported_operation("layer '" + l.name +
                                            "': paleo-compat models neither grouped nor dilated convolutions");
            const bool from_data = std::ranges::any_of(net.parents(v), [&](auto q) { return net[q].name == "data"; });
            conv_costs(u, a, *conv, l.inputs[0], l.output, n, p, from_data);
        } else if (std::holds_alternative<ops::recurrent>(l.op) || std::holds_alternative<ops::attention>(l.op) ||
                   std::holds_alternative<ops::embedding>(l.op)) {
            throw unsupported_operation("layer '" + l.name + "': paleo-compat has no " + std::string(ops::kind(l.op)) +
                                        " layers (PALEO has none)");
        } else if (const auto* pool = std::get_if<ops::pool2d>(&l.op)) {
            // 5.2: F = 2 kh kw C Ho Wo N; read input, write output; backward = forward, no filter part.
            if (p != pass::backward_weights) {
                const auto k = pool->window_for(l.inputs[0]);
                a.compute(u, 2.0 * double(k.h) * double(k.w) * ops::detail::elems(l.output) * n);
                a.read(u, 4 * n * ops::detail::elems(l.inputs[0]));
                a.write(u, 4 * n * ops::detail::elems(l.output));
            }
        } else if (std::holds_alternative<ops::dropout>(l.op)) {
            // 5.2: F = elements(input); read input, write output; backward = forward, no filter part. Inference
            // runs none (as the other models: ops::dropout).
            if (p != pass::backward_weights && !c.inference) {
                a.compute(u, n * ops::detail::elems(l.inputs[0]));
                a.read(u, 4 * n * ops::detail::elems(l.inputs[0]));
                a.write(u, 4 * n * ops::detail::elems(l.output));
            }
        } else if (const auto* fc = std::get_if<ops::dense>(&l.op)) {
            if (fc->per_position || fc->tied)
                throw unsupported_operation("layer '" + l.name +
                                            "': paleo-compat's inner products flatten their input and own their weights");
            // 5.2: X[N,D] W[D,M] Y[N,M]; forward X*W, data Y*W^T, filter X^T*Y, each 2abc FLOPs + 3 memory terms.
            const double d = ops::detail::elems(l.inputs[0]), m = ops::detail::elems(l.output);
            if (p == pass::forward) gemm(u, a, n, d, m);
            if (p == pass::backward || p == pass::backward_data) gemm(u, a, n, m, d);
            if (p == pass::backward || p == pass::backward_weights) gemm(u, a, d, n, m);
        }
        // 5.2: every other operation (input, concat, softmax, element-wise, LRN, BN, ...) costs nothing.
        remote_fetch(u, a, net, v, n);
        return a.result(pipelined);
    }

    // 4: PALEO counts the weights and biases of convolutions and inner products only (not BN's scale/shift).
    static std::int64_t parameters(const network& net) {
        std::int64_t n = 0;
        for (auto v : net.vertices())
            if (std::holds_alternative<ops::conv2d>(net[v].op) || std::holds_alternative<ops::deconv2d>(net[v].op) ||
                std::holds_alternative<ops::dense>(net[v].op))
                n += net[v].parameters;
        return n;
    }

    // 5.2: update of S = 4 * params weight bytes: F = 2 (S // 4), memory 3 Mem(S); always at PPP 1.0.
    layer_time update(const weights& updated, const cost_context& c) const {
        const std::int64_t params = updated.parameters;
        paleo_compat at_one = *this;
        at_one.ppp_compute = ratio_of(1.0);
        const units u(c, at_one);
        const double s = 4.0 * static_cast<double>(params);
        acc a;
        a.compute(u, 2.0 * std::floor(s / 4));
        const double t = u.mem_ms(s);
        a.read_ms += 2 * t;
        a.write_ms += t;
        a.bytes += 3 * s;
        return a.result(pipelined);
    }

private:
    // Section 3's primitives, in PALEO's units: milliseconds, GFLOPS, "GB/s" read as GiB/s.
    struct units {
        double tau_ms, gflops, gbps, ppp_comp, ppp_comm;
        units(const cost_context& c, const paleo_compat& m)
            : tau_ms(1 / (to_double(c.dev.clock) / 1e6) / 1e3),
              gflops(to_double(c.dev.peak.fp32) / 1e9),
              gbps(to_double(c.dev.memory_bandwidth) / 1e9),
              ppp_comp(m.ppp_compute.value()),
              ppp_comm(m.ppp_comm.value()) {
            if (c.precision != element_type::fp32)
                throw unsupported_operation("paleo-compat models fp32 only (PALEO's 4-byte floats), not " +
                                            std::string(to_string(c.precision)));
        }
        // C(F) = 0 if F == 0 else max(tau, F / 1e9 / P * 1e3 / ppp_comp)
        double comp_ms(double f) const { return f == 0 ? 0 : std::max(tau_ms, f / 1e9 / gflops * 1e3 / ppp_comp); }
        // Mem(B) = max(tau, B / 2^30 / M * 1e3 / ppp)
        double mem_ms(double b, double bw, double ppp) const { return std::max(tau_ms, b / 1073741824.0 / bw * 1e3 / ppp); }
        double mem_ms(double b) const { return mem_ms(b, gbps, ppp_comp); }
    };

    struct acc {
        double comp_ms = 0, read_ms = 0, write_ms = 0, remote_ms = 0, flops = 0, bytes = 0;
        void compute(const units& u, double f) { comp_ms += u.comp_ms(f), flops += f; }
        void read(const units& u, double b) { read_ms += u.mem_ms(b), bytes += b; }
        void write(const units& u, double b) { write_ms += u.mem_ms(b), bytes += b; }
        // With pipelining only the larger of compute and PALEO's comm (memory and remote) counts.
        layer_time result(bool pipelined) const {
            const bool hide_comm = pipelined && comp_ms >= read_ms + write_ms + remote_ms;
            const bool hide_compute = pipelined && !hide_comm;
            const auto comm = [&](double t) { return milliseconds_of(hide_comm ? 0 : t); };
            return {.fetch = comm(read_ms), .compute = milliseconds_of(hide_compute ? 0 : comp_ms),
                    .write = comm(write_ms), .remote = comm(remote_ms), .work = flops_of(flops), .traffic = bytes_of(bytes)};
        }
    };

    // 5.2: A[a,b] x B[b,c]: 2abc FLOPs, memory terms 4ab, 4bc, 4ac.
    static void gemm(const units& u, acc& a, double x, double y, double z) {
        a.compute(u, 2 * x * y * z);
        a.read(u, 4 * x * y);
        a.read(u, 4 * y * z);
        a.write(u, 4 * x * z);
    }

    // Section 5's generic GEMM convolution: input [n,h,w,c] padded by (ph,pw), filter [fh,fw,fc,fk],
    // output [n,oh,ow,fk], hole fractions hf (filter operand) and hi (input operand).
    struct gemm_conv {
        double n, h, w, c, ph, pw, fh, fw, fc, fk, oh, ow, hf = 0, hi = 0;
    };
    static void gemm_conv_cost(const units& u, acc& a, const gemm_conv& g) {
        double f = 2 * g.fh * g.fw * g.fc;
        f *= g.oh * g.ow * g.fk;
        f *= g.n;
        f *= 1.0 - g.hf;
        if (g.hi > 0) f += 2 * g.n * g.h * g.w * g.c * (1.0 - g.hi);
        a.compute(u, f);
        a.read(u, 4 * g.n * (g.h + 2 * g.ph) * (g.w + 2 * g.pw) * g.c);
        a.read(u, 4 * g.fh * g.fw * g.fc * g.fk * (1.0 - g.hf));
        a.write(u, 4 * g.n * g.oh * g.ow * g.fk);
    }

    static std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

    // 4: per-side pad; SAME uses floor(total / 2) with total = (Ho - 1) s + k - H.
    static std::int64_t forward_pad(const ops::padding& p, std::int64_t in, std::int64_t out, std::int64_t k,
                                    std::int64_t s, std::int64_t explicit_pad) {
        switch (p.kind) {
            case ops::padding::mode::same: return floor_div((out - 1) * s - in + k, 2);  // (out-1)s < in: no overflow
            case ops::padding::mode::valid: return 0;
            case ops::padding::mode::explicit_: return explicit_pad;
        }
        return 0;
    }

    // 5.1: gradient geometry per spatial dimension: E (zero-inserted gradient size) and pad p.
    struct grad_dim {
        std::int64_t e, p;
    };
    static grad_dim gradient_geometry(std::int64_t in, std::int64_t out, std::int64_t k, std::int64_t s,
                                      std::int64_t pad) {
        std::int64_t e = (out - 1) * s + 1;
        const std::int64_t before = k - 1 - pad;
        const std::int64_t after = in - e + pad;  // (in + k - 1) - e - before, without overflow for huge k
        if (std::abs(before - after) == 1) e += 1;
        return {e, std::min(before, after)};
    }

    static void conv_costs(const units& u, acc& a, const ops::conv2d& conv, const tensor_shape& in,
                           const tensor_shape& out, double n, pass p, bool from_data) {
        const double H = double(in.h()), W = double(in.w()), C = double(in.c());
        const double Ho = double(out.h()), Wo = double(out.w()), K = double(out.c());
        const double kh = double(conv.kernel.h), kw = double(conv.kernel.w);
        if (p == pass::forward) {  // 5.1 forward: the layer's own GEMM cost
            const auto ph = forward_pad(conv.pad, in.h(), out.h(), conv.kernel.h, conv.stride.h, conv.pad.h);
            const auto pw = forward_pad(conv.pad, in.w(), out.w(), conv.kernel.w, conv.stride.w, conv.pad.w);
            gemm_conv_cost(u, a, {n, H, W, C, double(ph), double(pw), kh, kw, C, K, Ho, Wo});
            return;
        }
        const auto ph = forward_pad(conv.pad, in.h(), out.h(), conv.kernel.h, conv.stride.h, conv.pad.h);
        const auto pw = forward_pad(conv.pad, in.w(), out.w(), conv.kernel.w, conv.stride.w, conv.pad.w);
        const auto gh = gradient_geometry(in.h(), out.h(), conv.kernel.h, conv.stride.h, ph);
        const auto gw = gradient_geometry(in.w(), out.w(), conv.kernel.w, conv.stride.w, pw);
        const double eh = double(gh.e), ew = double(gw.e);
        const double holes = 1.0 - (Ho * Wo) / (eh * ew);
        if ((p == pass::backward || p == pass::backward_data) && !from_data) {
            // 5.1 data gradient: dummy conv of [N, E_h, E_w, Cout] with [kh, kw, Cout, Cin], stride 1, pads p, hi = holes.
            const double oh = eh + 2.0 * double(gh.p) - kh + 1, ow = ew + 2.0 * double(gw.p) - kw + 1;
            gemm_conv_cost(u, a, {n, eh, ew, K, double(gh.p), double(gw.p), kh, kw, K, C, oh, ow, 0, holes});
        }
        if (p == pass::backward || p == pass::backward_weights) {
            // 5.1 filter gradient: dummy conv of [Cin, H, W, N] with [E_h, E_w, N, Cout], stride 1, hf = holes,
            // VALID for VALID layers, else pads p.
            const bool valid = conv.pad.kind == ops::padding::mode::valid;
            const double fph = valid ? 0 : double(gh.p), fpw = valid ? 0 : double(gw.p);
            const double oh = H + 2 * fph - eh + 1, ow = W + 2 * fpw - ew + 1;
            gemm_conv_cost(u, a, {C, H, W, n, fph, fpw, eh, ew, n, K, oh, ow, holes, 0});
        }
    }

    // 5.4: remote fetch of inputs produced on another device. Device ids are PALEO's: an unsplit
    // layer has the integer 0, a split copy the string of its index, and "0" != 0.
    void remote_fetch(const units& u, acc& a, const network& net, network::vertex v, double n) const {
        const auto& l = net[v];
        const auto differs = [&](const std::optional<int>& d) {
            return d.has_value() != l.device.has_value() || d.value_or(0) != l.device.value_or(0);
        };
        double bw = cross_device_bandwidth ? to_double(*cross_device_bandwidth) / 1e9 : u.gbps;
        const auto parents = net.parents(v);
        const std::size_t count = parents.size();  // std::distance: once, not once per parent
        std::size_t i = 0;
        for (auto q : parents) {
            const auto& d = net[q].device;
            if (differs(d)) {
                // With several parents, one on another host (device // 4) halves the bandwidth from there on.
                if (count > 1 && l.device.value_or(0) / 4 != d.value_or(0) / 4) bw /= 2;
                const double b = 4 * n * ops::detail::elems(l.inputs[i]);
                a.remote_ms += u.mem_ms(b, bw, u.ppp_comm);
                a.bytes += b;
            }
            ++i;
        }
    }
};

}  // namespace steptime::cost
