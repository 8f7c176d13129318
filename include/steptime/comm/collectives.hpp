// steptime/comm/collectives.hpp: the time of an AllReduce of a payload over workers, per algorithm.
// Each is a plain function a simulator can call alone; the structs below wrap them behind CommModel.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <functional>
#include <string>
#include <string_view>

#include "steptime/comm/link.hpp"

namespace steptime {

// The collectives selectable by name (CLI, configuration files).
enum class collective { one_to_all, tree, butterfly, butterfly_mixing, ring, hierarchical };

inline std::string_view to_string(collective c) {
    switch (c) {
        case collective::one_to_all: return "onetoall";
        case collective::tree: return "tree";
        case collective::butterfly: return "butterfly";
        case collective::butterfly_mixing: return "butterfly-mixing";
        case collective::ring: return "ring";
        case collective::hierarchical: return "hierarchical";
    }
    return "tree";
}

inline collective parse_collective(std::string_view s) {
    for (auto c : {collective::one_to_all, collective::tree, collective::butterfly, collective::butterfly_mixing,
                   collective::ring, collective::hierarchical})
        if (s == to_string(c)) return c;
    throw invalid_argument("unknown collective '" + std::string(s) +
                           "' (expected onetoall, tree, butterfly, butterfly-mixing, ring or hierarchical)");
}

namespace comm {

// ceil(log2 n): the height of a binary tree, the rounds of a butterfly (paleo-model.md 7.1).
inline int tree_height(int n) {
    int h = 0;
    while ((1LL << h) < n) ++h;
    return h;
}

inline void require_workers(int n) {
    if (n < 1) throw invalid_argument("workers is " + std::to_string(n) + ", expected at least 1");
}
// A zero, negative or non-finite bandwidth or latency would give an infinite or negative time.
inline void require_workers(int n, const network_link& l) {
    require_workers(n);
    validate(l);
}

// Parameter server on one master: it receives N-1 gradients and sends N-1 updates (PALEO 7.1).
inline seconds one_to_all(bytes s, int n, const network_link& l) {
    require_workers(n, l);
    return 2.0 * (n - 1) * l.transfer(s);
}
// Reduce up a binary tree, broadcast down: 2 ceil(log2 N) steps of the whole payload (PALEO 7.1).
inline seconds tree_all_reduce(bytes s, int n, const network_link& l) {
    require_workers(n, l);
    return 2.0 * tree_height(n) * l.transfer(s);
}
// Recursive doubling: ceil(log2 N) exchanges of the whole payload (PALEO 7.1).
inline seconds butterfly_all_reduce(bytes s, int n, const network_link& l) {
    require_workers(n, l);
    return 1.0 * tree_height(n) * l.transfer(s);
}
// Butterfly mixing (Zhao and Canny 2013): one exchange per step; nothing to exchange alone.
inline seconds butterfly_mixing(bytes s, int n, const network_link& l) {
    require_workers(n, l);
    return n == 1 ? seconds{} : l.transfer(s);
}
// Ring: reduce-scatter then all-gather, 2(N-1) steps of S/N each (Patarasuk and Yuan, JPDC 2009).
inline seconds ring_all_reduce(bytes s, int n, const network_link& l) {
    require_workers(n, l);
    return 2.0 * (n - 1) * l.transfer(s / static_cast<double>(n));
}
// Hierarchical: reduce-scatter inside each node of g GPUs over the intra-node link, ring AllReduce of
// each GPU's 1/g shard across the N/g nodes, then all-gather inside the node (as NCCL and Horovod do).
inline seconds hierarchical_all_reduce(bytes s, int n, int gpus_per_node, const network_link& intra, const network_link& inter) {
    require_workers(n, intra);
    validate(inter);
    if (gpus_per_node < 1) throw invalid_argument("gpus per node is " + std::to_string(gpus_per_node) + ", expected at least 1");
    const int g = std::min(n, gpus_per_node);
    const int nodes = (n + g - 1) / g;
    const seconds in_node = 1.0 * (g - 1) * intra.transfer(s / static_cast<double>(g));
    return 2.0 * in_node + ring_all_reduce(s / static_cast<double>(g), nodes, inter);
}

// PALEO's formulas exactly (paleo-model.md 7.1): bandwidth only, divided by ppp_comm.
namespace paleo {
inline seconds all_reduce(collective k, bytes s, int n, bytes_per_second bw, double ppp_comm) {
    require_workers(n);
    if (!(bw.value() > 0 && std::isfinite(bw.value())))
        throw invalid_argument("PALEO AllReduce: bandwidth is " + std::to_string(bw.value()) +
                               " B/s, expected a finite positive rate");
    if (!(ppp_comm > 0 && ppp_comm <= 1))
        throw invalid_argument("PALEO AllReduce: ppp_comm is " + std::to_string(ppp_comm) + ", expected a fraction in (0, 1]");
    const double h = tree_height(n);
    double steps = 1;  // butterfly mixing: one exchange, even alone (PALEO's quirk)
    switch (k) {
        case collective::one_to_all: steps = 2.0 * (n - 1); break;
        case collective::tree: steps = 2 * h; break;
        case collective::butterfly: steps = h; break;
        case collective::butterfly_mixing: break;
        case collective::ring:
        case collective::hierarchical:
            throw unsupported_operation("PALEO has no " + std::string(to_string(k)) + " AllReduce");
    }
    return steps * s / bw / ppp_comm;
}
}  // namespace paleo

}  // namespace comm

// What a communication model gives: the time of an AllReduce of `payload` bytes among `workers`.
template <class M>
concept CommModel = requires(const M& m, bytes payload, int workers) {
    { m.all_reduce(payload, workers) } -> std::same_as<seconds>;
    { m.name() } -> std::convertible_to<std::string>;
};

// A collective over a network, with latency terms (the default) or PALEO's exact formulas.
struct collective_model {
    collective kind = collective::ring;
    network_link network{};                 // between nodes (between all workers unless hierarchical)
    network_link intra_node{};              // hierarchical only: between the GPUs of a node
    int gpus_per_node = 8;          // hierarchical only
    ratio ppp_comm = ratio_of(1.0);  // fraction of the link bandwidth reached
    bool paleo_formulas = false;    // PALEO's four schemes exactly: no latency, mixing non-zero alone

    std::string name() const { return std::string(to_string(kind)) + " over " + network.name; }

    seconds all_reduce(bytes s, int n) const {
        if (!(ppp_comm.value() > 0 && ppp_comm.value() <= 1))
            throw invalid_argument(name() + ": ppp_comm is " + std::to_string(ppp_comm.value()) +
                                   ", expected a fraction in (0, 1]");
        if (paleo_formulas) return comm::paleo::all_reduce(kind, s, n, network.bandwidth, ppp_comm.value());
        network_link eff = network;
        eff.bandwidth = network.bandwidth * ppp_comm;
        switch (kind) {
            case collective::one_to_all: return comm::one_to_all(s, n, eff);
            case collective::tree: return comm::tree_all_reduce(s, n, eff);
            case collective::butterfly: return comm::butterfly_all_reduce(s, n, eff);
            case collective::butterfly_mixing: return comm::butterfly_mixing(s, n, eff);
            case collective::ring: return comm::ring_all_reduce(s, n, eff);
            case collective::hierarchical: {
                network_link in = intra_node;
                in.bandwidth = intra_node.bandwidth * ppp_comm;
                return comm::hierarchical_all_reduce(s, n, gpus_per_node, in, eff);
            }
        }
        return {};
    }
};

// Any CommModel behind one type, for simulators that choose a model from configuration at run time.
class any_comm_model {
public:
    template <CommModel M>
    any_comm_model(M m)  // NOLINT: implicit by design, like std::function
        : name_(m.name()), all_reduce_([m = std::move(m)](bytes s, int n) { return m.all_reduce(s, n); }) {}

    seconds all_reduce(bytes s, int n) const { return all_reduce_(s, n); }
    std::string name() const { return name_; }

private:
    std::string name_;
    std::function<seconds(bytes, int)> all_reduce_;
};

static_assert(CommModel<collective_model> && CommModel<any_comm_model>);

}  // namespace steptime
