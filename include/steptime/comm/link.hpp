// steptime/comm/link.hpp: a network link as bandwidth and latency (the alpha-beta model), and presets.
// (Named network_link, not link, which would clash with POSIX link() under using-directives.)
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "steptime/error.hpp"
#include "steptime/units.hpp"

namespace steptime {

// Sending m bytes over a link takes latency + m / bandwidth (Hockney's alpha-beta model).
struct network_link {
    std::string name{};
    bytes_per_second bandwidth{};  // per direction
    seconds latency{};
    std::string source{};

    seconds transfer(bytes m) const { return latency + m / bandwidth; }
};

inline void validate(const network_link& l) {
    if (!(l.bandwidth.value() > 0 && std::isfinite(l.bandwidth.value())))
        throw invalid_argument("link '" + l.name + "': bandwidth is " + std::to_string(l.bandwidth.value()) +
                               " B/s, expected a finite positive rate");
    if (!(l.latency.value() >= 0 && std::isfinite(l.latency.value())))
        throw invalid_argument("link '" + l.name + "': latency is " + std::to_string(l.latency.value()) +
                               " s, expected a finite non-negative time");
}

constexpr bytes_per_second gigabits_per_second_of(double v) { return bytes_per_second_of(v * 1e9 / 8); }

namespace links {

template <class = void>
const std::vector<network_link>& catalog() {
    static const std::vector<network_link> all{
        // PALEO's networks (paleo/device.py NETWORKS), bandwidth only: PALEO has no latency term.
        {"paleo:aws", gigabits_per_second_of(2), {}, "PALEO NETWORKS['aws']: 2 Gb/s"},
        {"paleo:ethernet", gigabits_per_second_of(10), {}, "PALEO NETWORKS['ethernet']: 10 Gb/s"},
        {"paleo:ethernet20", gigabits_per_second_of(20), {}, "PALEO NETWORKS['ethernet20']: 20 Gb/s"},
        {"paleo:infiniband", gigabits_per_second_of(70), {}, "PALEO NETWORKS['infiniband']: 70 Gb/s"},
        {"paleo:pcie2", gigabits_per_second_of(64), {}, "PALEO NETWORKS['pcie2']: 64 Gb/s (PCIe 2.0 x16, 8 GB/s)"},
        {"paleo:pcie3", gigabits_per_second_of(128), {}, "PALEO NETWORKS['pcie3']: 128 Gb/s (16 GB/s)"},
        // Ethernet: IEEE 802.3 line rates; latency of a TCP/RoCE message through one switch, typical figures.
        {"ethernet-10g", gigabits_per_second_of(10), microseconds_of(15), "IEEE 802.3ae 10 Gb/s; ~15 us one-way (TCP)"},
        {"ethernet-25g", gigabits_per_second_of(25), microseconds_of(10), "IEEE 802.3by 25 Gb/s; ~10 us"},
        {"ethernet-100g", gigabits_per_second_of(100), microseconds_of(5), "IEEE 802.3bj 100 Gb/s; ~5 us (RoCE)"},
        {"ethernet-400g", gigabits_per_second_of(400), microseconds_of(3), "IEEE 802.3bs 400 Gb/s; ~3 us (RoCE)"},
        // InfiniBand 4x links: data rates after encoding (IBTA); ~1 us MPI-level latency (vendor specs 0.6-0.7 us port to port).
        {"ib-fdr", gigabits_per_second_of(54.54), microseconds_of(1.0), "IBTA FDR 4x: 14.0625 Gb/s x 4 x 64/66"},
        {"ib-edr", gigabits_per_second_of(100), microseconds_of(1.0), "IBTA EDR 4x: 25.78125 Gb/s x 4 x 64/66"},
        {"ib-hdr", gigabits_per_second_of(200), microseconds_of(1.0), "IBTA HDR 4x: 200 Gb/s"},
        {"ib-ndr", gigabits_per_second_of(400), microseconds_of(1.0), "IBTA NDR 4x: 400 Gb/s"},
        // PCIe x16, one direction, after 128b/130b encoding (PCI-SIG); ~1 us for a DMA round.
        {"pcie3-x16", bytes_per_second_of(15.75e9), microseconds_of(1.0), "PCIe 3.0: 8 GT/s x 16 x 128/130"},
        {"pcie4-x16", bytes_per_second_of(31.5e9), microseconds_of(1.0), "PCIe 4.0: 16 GT/s x 16 x 128/130"},
        {"pcie5-x16", bytes_per_second_of(63.0e9), microseconds_of(1.0), "PCIe 5.0: 32 GT/s x 16 x 128/130"},
        // NVLink per GPU, one direction (half the bidirectional figure NVIDIA quotes); ~2 us per NCCL step.
        {"nvlink2", bytes_per_second_of(150e9), microseconds_of(2.0), "V100: 6 links x 25 GB/s (300 GB/s bidirectional)"},
        {"nvlink3", bytes_per_second_of(300e9), microseconds_of(2.0), "A100: 12 links x 25 GB/s (600 GB/s bidirectional)"},
        {"nvlink4", bytes_per_second_of(450e9), microseconds_of(2.0), "H100: 18 links x 25 GB/s (900 GB/s bidirectional)"},
    };
    return all;
}

template <class = void>
const network_link& get(std::string_view name) {
    for (const auto& l : catalog())
        if (l.name == name) return l;
    std::string names;
    for (const auto& l : catalog()) names += (names.empty() ? "" : ", ") + l.name;
    throw invalid_argument("unknown network '" + std::string(name) + "' (known: " + names + ")");
}

}  // namespace links
}  // namespace steptime
