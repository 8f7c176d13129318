// steptime/devices/catalog.hpp: the built-in devices, PALEO's eight and current vendor datasheets.
//
// Conventions for the vendor entries (every number's source is in the entry's `source` or a comment):
// - Rates are peaks: FP32 on the SIMT pipe at the boost clock; tensor (matrix-core) rates dense, without
//   2:4 sparsity (half the "with sparsity" figure where a datasheet quotes only that).
// - Memory bandwidth and link bandwidth are decimal (1 GB/s = 1e9 B/s); links are one direction.
// - Capacities are binary: GPU vendors' "GB" of memory is GiB (a "16 GB" V100 has 16 x 2^30 bytes).
// - `clock` is the base clock; for the V100s nvidia-smi's default application clock (1245 PCIe, 1312
//   SXM2, as in Habitat's devices.yml); for B200 and AMD, whose vendors quote no base clock, the peak.
// - Base clocks missing from NVIDIA's datasheets come from TechPowerUp's GPU database, Habitat's
//   devices.yml (shared/data/habitat) or pcspecchart.com, as noted.
// - GeForce Turing, Ampere and Ada cards run FP16/BF16/FP8 tensor math with FP32 accumulation, which
//   mixed-precision training uses, at half their FP16-accumulate rate: their entries carry the
//   whitepapers' "with FP32 Accumulate" rows (Titan and professional cards run both at full rate).
//   GeForce Blackwell halves FP16/BF16 but not FP8, as measured (rtx-5090's comment).
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "steptime/device.hpp"
#include "steptime/error.hpp"
#include "steptime/units.hpp"

namespace steptime::devices {

// GCC 12 warns about members a designated initializer leaves to their default; that is the intent here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

inline const std::vector<device>& catalog() {
    static const std::vector<device> all = [] {
        constexpr auto tflops = [](double v) { return flops_per_second_of(v * 1e12); };
        constexpr auto gbps = [](double v) { return bytes_per_second_of(v * 1e9); };
        constexpr auto gib = [](double v) { return bytes_of(v * 1073741824.0); };
        constexpr auto mhz = [](double v) { return megahertz_of(v); };
        // Compute capabilities: NVIDIA's "CUDA GPUs" list (developer.nvidia.com/cuda-gpus).
        constexpr auto cc = [](int major, int minor) { return cuda_compute_capability{major, minor}; };
        // FP32 SIMT peak from the core count: 2 FLOP per fused multiply-add x cores x clock. Rounded in
        // TFLOP/s first, like every other rate here, so that it reads back exactly from a device file.
        constexpr auto fma_peak = [](int cores, double clock_mhz) {
            return flops_per_second_of(2.0 * cores * clock_mhz / 1e6 * 1e12);
        };
        // The RTX PRO 6000 Blackwell editions' peaks at their boost clock: GB202's 24064 cores, the professional tensor
        // rates as multiples of their FP32 rate (the entries' comment).
        constexpr auto rtx_pro_6000_peaks = [fma_peak](double clock_mhz) {
            const auto rate = [&](int times_fp32) { return fma_peak(times_fp32 * 24064, clock_mhz); };
            return peak_rates{.fp32 = rate(1), .tf32_tensor = rate(2), .fp16_tensor = rate(4), .bf16_tensor = rate(4),
                              .fp8_tensor = rate(8)};
        };
        // NVLink: links x GB/s per link and direction (20 for NVLink 1, 25 for NVLink 2-4, 50 for NVLink 5).
        constexpr auto nvlink = [](int links, double gbps_each) {
            return bytes_per_second_of(links * gbps_each * 1e9);
        };
        // PCIe x16, one direction: GT/s x 16 lanes x line-code efficiency / 8 bits (PCI-SIG base specs).
        constexpr auto pcie2 = bytes_per_second_of(5e9 * 16 * 0.8 / 8);              // 8b/10b: 8 GB/s
        constexpr auto pcie3 = bytes_per_second_of(8e9 * 16 * (128.0 / 130) / 8);   // 128b/130b: 15.75 GB/s
        constexpr auto pcie4 = bytes_per_second_of(16e9 * 16 * (128.0 / 130) / 8);  // 31.5 GB/s
        constexpr auto pcie5 = bytes_per_second_of(32e9 * 16 * (128.0 / 130) / 8);  // 63.0 GB/s

        // PALEO's table, number for number: paleo/device.py of TalwalkarLab/paleo at 984bbf5.
        const auto paleo = [](const char* key, const char* what, double clock_mhz, double gflops, double gbs,
                              bool is_gpu = true) {
            return device{.name = std::string("paleo:") + key,
                          .description = std::string("PALEO's ") + what,
                          .is_gpu = is_gpu,
                          .peak = {.fp32 = flops_per_second_of(gflops * 1e9)},
                          .memory_bandwidth = bytes_per_second_of(gbs * 1e9),
                          .clock = megahertz_of(clock_mhz),
                          .source = "PALEO paleo/device.py (TalwalkarLab/paleo 984bbf5)"};
        };

        return std::vector<device>{
            paleo("TITAN_X", "Titan X", 1000, 6144, 336.5),
            paleo("K20", "K20", 1000, 3520, 208),
            paleo("K20X", "K20X", 1000, 3935, 250),
            paleo("K40", "K40", 745, 4290, 288),
            paleo("K80", "K80 (whole dual-GPU board)", 560, 5600, 480),
            paleo("GEFORCE_780_TI", "GeForce 780 Ti", 875, 5040, 336),
            paleo("GEFORCE_750_M", "GeForce 750 M", 941, 722.7, 80),
            paleo("CPU_I7", "CPU i7 5930K (clock 6 x 35000 MHz sic)", 210000, 289, 68, false),

            // Kepler (GK110/GK210): 192 FP32 cores per SMX.
            {.name = "k20x", .description = "NVIDIA Tesla K20X (GK110, no GPU Boost)",
             .peak = {.fp32 = fma_peak(2688, 732)},  // 2 x 2688 cores x 732 MHz = 3.94
             .memory_bandwidth = gbps(250), .memory_capacity = gib(6), .sm_count = 14,
             .compute_capability = cc(3, 5),
             .clock = mhz(732), .tdp_watts = 235, .intra_node_link = pcie2,
             .source = "NVIDIA Tesla K20X board specification BD-06397 (2012); Kepler GK110 whitepaper"},
            {.name = "k40", .description = "NVIDIA Tesla K40 (GK110B)",
             .peak = {.fp32 = fma_peak(2880, 875)},  // 2 x 2880 cores x 875 MHz = 5.04
             .memory_bandwidth = gbps(288), .memory_capacity = gib(12), .sm_count = 15,
             .compute_capability = cc(3, 5),
             .clock = mhz(745), .boost_clock = mhz(875), .tdp_watts = 235, .intra_node_link = pcie3,
             .source = "NVIDIA Tesla K40 datasheet (2013): 4.29 TFLOPS at base, 5.04 with GPU Boost"},
            // One of the board's two GK210 dies: the datasheet's board figures halved.
            {.name = "k80", .description = "NVIDIA Tesla K80, one GK210 die (half the board)",
             .peak = {.fp32 = fma_peak(2496, 875)},  // 2 x 2496 cores x 875 MHz = 4.37
             .memory_bandwidth = gbps(480.0 / 2), .memory_capacity = gib(24.0 / 2), .sm_count = 13,
             .compute_capability = cc(3, 7),
             .clock = mhz(560), .boost_clock = mhz(875), .tdp_watts = 300.0 / 2,
             .intra_node_link = pcie3,  // the two dies share the board's x16 through a PCIe switch
             .source = "NVIDIA Tesla K80 datasheet (2014): 8.74 TFLOPS, 480 GB/s, 24 GB, 300 W per board"},

            // Maxwell (GM200) and Pascal GP102: 128 FP32 cores per SM, FP16 no faster than FP32.
            {.name = "m40", .description = "NVIDIA Tesla M40 12 GB (GM200)",
             .peak = {.fp32 = fma_peak(3072, 1114)},  // 2 x 3072 cores x 1114 MHz = 6.84
             .memory_bandwidth = gbps(288), .memory_capacity = gib(12), .sm_count = 24,
             .compute_capability = cc(5, 2),
             .clock = mhz(948), .boost_clock = mhz(1114), .tdp_watts = 250, .intra_node_link = pcie3,
             .source = "NVIDIA Tesla M40 datasheet (2015); Volta whitepaper Table 1 (M40 column); "
                       "base clock from TechPowerUp"},
            {.name = "titan-x-maxwell", .description = "NVIDIA GeForce GTX Titan X (Maxwell, GM200)",
             .peak = {.fp32 = fma_peak(3072, 1075)},  // 2 x 3072 cores x 1075 MHz = 6.60
             .memory_bandwidth = gbps(336.5), .memory_capacity = gib(12), .sm_count = 24,
             .compute_capability = cc(5, 2),
             .clock = mhz(1000), .boost_clock = mhz(1075), .tdp_watts = 250, .intra_node_link = pcie3,
             .source = "NVIDIA GeForce GTX Titan X specifications (2015)"},
            {.name = "titan-x-pascal", .description = "NVIDIA Titan X (Pascal, GP102)",
             .peak = {.fp32 = fma_peak(3584, 1531)},  // 2 x 3584 cores x 1531 MHz = 10.97
             .memory_bandwidth = gbps(480), .memory_capacity = gib(12), .sm_count = 28,
             .compute_capability = cc(6, 1),
             .clock = mhz(1417), .boost_clock = mhz(1531), .tdp_watts = 250, .intra_node_link = pcie3,
             .source = "NVIDIA Titan X (Pascal) specifications (2016)"},
            {.name = "gtx-1080-ti", .description = "NVIDIA GeForce GTX 1080 Ti (GP102)",
             .peak = {.fp32 = fma_peak(3584, 1582)},  // 2 x 3584 cores x 1582 MHz = 11.34
             .memory_bandwidth = gbps(484), .memory_capacity = gib(11), .sm_count = 28,
             .compute_capability = cc(6, 1),
             .clock = mhz(1480), .boost_clock = mhz(1582), .tdp_watts = 250, .intra_node_link = pcie3,
             .source = "NVIDIA GeForce GTX 1080 Ti specifications (2017)"},
            {.name = "titan-xp", .description = "NVIDIA Titan Xp (GP102)",
             .peak = {.fp32 = fma_peak(3840, 1582)},  // 2 x 3840 cores x 1582 MHz = 12.15
             .memory_bandwidth = gbps(547.7), .memory_capacity = gib(12), .sm_count = 30,
             .compute_capability = cc(6, 1),
             .clock = mhz(1405), .boost_clock = mhz(1582), .tdp_watts = 250, .intra_node_link = pcie3,
             .source = "NVIDIA Titan Xp specifications (2017); base clock from TechPowerUp"},
            // Pascal GP104: 128 FP32 cores per SM.
            {.name = "gtx-1080", .description = "NVIDIA GeForce GTX 1080 (GP104)",
             .peak = {.fp32 = fma_peak(2560, 1733)},  // 2 x 2560 cores x 1733 MHz = 8.87
             .memory_bandwidth = gbps(320), .memory_capacity = gib(8), .sm_count = 20,
             .compute_capability = cc(6, 1),
             .clock = mhz(1607), .boost_clock = mhz(1733), .tdp_watts = 180, .intra_node_link = pcie3,
             .source = "NVIDIA GeForce GTX 1080 specifications (2016)"},
            {.name = "p4", .description = "NVIDIA Tesla P4 (GP104, 75 W)",
             .peak = {.fp32 = fma_peak(2560, 1063)},  // 2 x 2560 cores x 1063 MHz = 5.44 (datasheet: 5.5)
             .memory_bandwidth = gbps(192), .memory_capacity = gib(8), .sm_count = 20,
             .compute_capability = cc(6, 1),
             .clock = mhz(810), .boost_clock = mhz(1063), .tdp_watts = 75, .intra_node_link = pcie3,
             .source = "NVIDIA Tesla P4 datasheet (2016); base clock from Habitat's devices.yml"},
            {.name = "quadro-p4000", .description = "NVIDIA Quadro P4000 (GP104)",
             .peak = {.fp32 = fma_peak(1792, 1480)},  // 2 x 1792 cores x 1480 MHz = 5.30
             .memory_bandwidth = gbps(243), .memory_capacity = gib(8), .sm_count = 14,
             .compute_capability = cc(6, 1),
             .clock = mhz(1227), .boost_clock = mhz(1480), .tdp_watts = 105, .intra_node_link = pcie3,
             .source = "NVIDIA Quadro P4000 datasheet (2017); base clock from Habitat's devices.yml"},

            // Pascal GP100: 3584 cores in 56 SMs, FP16 at twice FP32 on SIMT.
            {.name = "p100-pcie-16gb", .description = "NVIDIA Tesla P100 PCIe 16 GB",
             .peak = {.fp32 = tflops(9.3), .fp16 = tflops(18.7)},
             .memory_bandwidth = gbps(732), .memory_capacity = gib(16), .sm_count = 56,
             .compute_capability = cc(6, 0),
             .clock = mhz(1126), .boost_clock = mhz(1303), .tdp_watts = 250, .intra_node_link = pcie3,
             .source = "NVIDIA Tesla P100 PCIe datasheet (2016); Pascal GP100 whitepaper"},
            {.name = "p100-sxm2-16gb", .description = "NVIDIA Tesla P100 SXM2 16 GB (NVLink)",
             .peak = {.fp32 = tflops(10.6), .fp16 = tflops(21.2)},
             .memory_bandwidth = gbps(732), .memory_capacity = gib(16), .sm_count = 56,
             .compute_capability = cc(6, 0),
             .clock = mhz(1328), .boost_clock = mhz(1480), .tdp_watts = 300,
             .intra_node_link = nvlink(4, 20),  // 4 NVLink 1 links, 160 GB/s both directions
             .source = "NVIDIA Tesla P100 SXM2 datasheet (2016); Pascal GP100 whitepaper Table 1"},

            // Volta GV100: 5120 cores and 640 tensor cores in 80 SMs. The PCIe datasheet's peaks
            // (14 / 28 / 112) correspond to about 1370 MHz, a little under its 1380 MHz boost.
            {.name = "v100-pcie-16gb", .description = "NVIDIA Tesla V100 PCIe 16 GB",
             .peak = {.fp32 = tflops(14), .fp16 = tflops(28), .fp16_tensor = tflops(112)},
             .memory_bandwidth = gbps(900), .memory_capacity = gib(16), .sm_count = 80,
             .compute_capability = cc(7, 0),
             .clock = mhz(1245), .boost_clock = mhz(1380), .tdp_watts = 250, .intra_node_link = pcie3,
             .source = "NVIDIA Tesla V100 datasheet (2017); V100 PCIe product brief PB-08744"},
            {.name = "v100-pcie-32gb", .description = "NVIDIA Tesla V100 PCIe 32 GB",
             .peak = {.fp32 = tflops(14), .fp16 = tflops(28), .fp16_tensor = tflops(112)},
             .memory_bandwidth = gbps(900), .memory_capacity = gib(32), .sm_count = 80,
             .compute_capability = cc(7, 0),
             .clock = mhz(1245), .boost_clock = mhz(1380), .tdp_watts = 250, .intra_node_link = pcie3,
             .source = "NVIDIA Tesla V100 datasheet (2018, 32 GB); V100 PCIe product brief PB-08744"},
            {.name = "v100-sxm2-16gb", .description = "NVIDIA Tesla V100 SXM2 16 GB (NVLink)",
             .peak = {.fp32 = tflops(15.7), .fp16 = tflops(31.4), .fp16_tensor = tflops(125)},
             .memory_bandwidth = gbps(900), .memory_capacity = gib(16), .sm_count = 80,
             .compute_capability = cc(7, 0),
             .clock = mhz(1312), .boost_clock = mhz(1530), .tdp_watts = 300,
             .intra_node_link = nvlink(6, 25),  // 6 NVLink 2 links, 300 GB/s both directions
             .source = "NVIDIA Tesla V100 datasheet (2017); Volta whitepaper Table 1"},
            {.name = "v100-sxm2-32gb", .description = "NVIDIA Tesla V100 SXM2 32 GB (NVLink)",
             .peak = {.fp32 = tflops(15.7), .fp16 = tflops(31.4), .fp16_tensor = tflops(125)},
             .memory_bandwidth = gbps(900), .memory_capacity = gib(32), .sm_count = 80,
             .compute_capability = cc(7, 0),
             .clock = mhz(1312), .boost_clock = mhz(1530), .tdp_watts = 300, .intra_node_link = nvlink(6, 25),
             .source = "NVIDIA Tesla V100 datasheet (2018, 32 GB); Volta whitepaper Table 1"},
            // DGX-2's V100: 2 PFLOPS tensor / 16 GPUs = 125 TFLOPS each, i.e. the SXM2 clocks at 350 W.
            {.name = "v100-sxm3-32gb", .description = "NVIDIA Tesla V100 SXM3 32 GB (DGX-2, NVSwitch)",
             .peak = {.fp32 = tflops(15.7), .fp16 = tflops(31.4), .fp16_tensor = tflops(125)},
             .memory_bandwidth = gbps(900), .memory_capacity = gib(32), .sm_count = 80,
             .compute_capability = cc(7, 0),
             .clock = mhz(1290), .boost_clock = mhz(1530), .tdp_watts = 350, .intra_node_link = nvlink(6, 25),
             .source = "NVIDIA DGX-2 datasheet (2018); Volta whitepaper Table 1; base clock from TechPowerUp"},
            {.name = "v100s-pcie-32gb", .description = "NVIDIA Tesla V100S PCIe 32 GB",
             .peak = {.fp32 = tflops(16.4), .fp16 = tflops(32.8), .fp16_tensor = tflops(130)},
             .memory_bandwidth = gbps(1134), .memory_capacity = gib(32), .sm_count = 80,
             .compute_capability = cc(7, 0),
             .clock = mhz(1245), .boost_clock = mhz(1597), .tdp_watts = 250, .intra_node_link = pcie3,
             .source = "NVIDIA V100S datasheet (2019); clocks from TechPowerUp"},
            // NVIDIA quotes the Titan V's tensor cores at 110 TFLOPS, under the 119 that its boost clock gives.
            {.name = "titan-v", .description = "NVIDIA Titan V (GV100)",
             .peak = {.fp32 = fma_peak(5120, 1455), .fp16 = fma_peak(2 * 5120, 1455), .fp16_tensor = tflops(110)},
             .memory_bandwidth = gbps(652.8), .memory_capacity = gib(12), .sm_count = 80,
             .compute_capability = cc(7, 0),
             .clock = mhz(1200), .boost_clock = mhz(1455), .tdp_watts = 250, .intra_node_link = pcie3,
             .source = "NVIDIA Titan V specifications (2017)"},

            // Turing TU104: 2560 cores, 320 tensor cores in 40 SMs; FP16 at twice FP32 on SIMT.
            {.name = "t4", .description = "NVIDIA T4 (TU104, 70 W)",
             .peak = {.fp32 = tflops(8.1), .fp16 = tflops(2 * 8.1), .fp16_tensor = tflops(65)},
             .memory_bandwidth = gbps(320), .memory_capacity = gib(16), .sm_count = 40,
             .compute_capability = cc(7, 5),
             .clock = mhz(585), .boost_clock = mhz(1590), .tdp_watts = 70, .intra_node_link = pcie3,
             .source = "NVIDIA T4 datasheet (2018); Turing whitepaper (T4 clocks; FP16 SIMT = 2 x FP32)"},
            // TU102/TU106: 64 FP32 cores and 8 tensor cores (128 FP16 FLOP per clock each) per SM.
            {.name = "rtx-2070", .description = "NVIDIA GeForce RTX 2070 (TU106)",
             .peak = {.fp32 = fma_peak(2304, 1620), .fp16 = fma_peak(2 * 2304, 1620), .fp16_tensor = tflops(29.9)},
             .memory_bandwidth = gbps(448), .memory_capacity = gib(8), .sm_count = 36,
             .compute_capability = cc(7, 5),
             .clock = mhz(1410), .boost_clock = mhz(1620), .tdp_watts = 175, .intra_node_link = pcie3,
             .source = "Turing whitepaper Appendix A (RTX 2070 reference clocks); base clock also in "
                       "Habitat's devices.yml"},
            {.name = "rtx-2080", .description = "NVIDIA GeForce RTX 2080 (TU104)",
             .peak = {.fp32 = fma_peak(2944, 1710), .fp16 = fma_peak(2 * 2944, 1710), .fp16_tensor = tflops(40.3)},
             .memory_bandwidth = gbps(448), .memory_capacity = gib(8), .sm_count = 46,
             .compute_capability = cc(7, 5),
             .clock = mhz(1515), .boost_clock = mhz(1710), .tdp_watts = 215, .intra_node_link = pcie3,
             .source = "Turing whitepaper Appendix A (RTX 2080 reference clocks; FP16 tensor with FP32 "
                       "accumulate)"},
            {.name = "rtx-2080-ti", .description = "NVIDIA GeForce RTX 2080 Ti (TU102)",
             .peak = {.fp32 = fma_peak(4352, 1545), .fp16 = fma_peak(2 * 4352, 1545), .fp16_tensor = tflops(53.8)},
             .memory_bandwidth = gbps(616), .memory_capacity = gib(11), .sm_count = 68,
             .compute_capability = cc(7, 5),
             .clock = mhz(1350), .boost_clock = mhz(1545), .tdp_watts = 250, .intra_node_link = pcie3,
             .source = "Turing whitepaper Appendix A (RTX 2080 Ti reference clocks); base clock also in "
                       "Habitat's devices.yml"},
            {.name = "quadro-rtx-4000", .description = "NVIDIA Quadro RTX 4000 (TU104)",
             .peak = {.fp32 = fma_peak(2304, 1545), .fp16 = fma_peak(2 * 2304, 1545), .fp16_tensor = tflops(57)},
             .memory_bandwidth = gbps(416), .memory_capacity = gib(8), .sm_count = 36,
             .compute_capability = cc(7, 5),
             .clock = mhz(1005), .boost_clock = mhz(1545), .tdp_watts = 160, .intra_node_link = pcie3,
             .source = "NVIDIA Quadro RTX 4000 datasheet (2018); base clock from Habitat's devices.yml"},
            {.name = "titan-rtx", .description = "NVIDIA Titan RTX (TU102)",
             .peak = {.fp32 = fma_peak(4608, 1770), .fp16 = fma_peak(2 * 4608, 1770), .fp16_tensor = tflops(130.5)},
             .memory_bandwidth = gbps(672), .memory_capacity = gib(24), .sm_count = 72,
             .compute_capability = cc(7, 5),
             .clock = mhz(1350), .boost_clock = mhz(1770), .tdp_watts = 280, .intra_node_link = pcie3,
             .source = "NVIDIA Titan RTX specifications (2018); Turing whitepaper"},
            {.name = "quadro-rtx-5000", .description = "NVIDIA Quadro RTX 5000 (TU104)",
             .peak = {.fp32 = fma_peak(3072, 1815), .fp16 = fma_peak(2 * 3072, 1815), .fp16_tensor = tflops(89.2)},
             .memory_bandwidth = gbps(448), .memory_capacity = gib(16), .sm_count = 48,
             .compute_capability = cc(7, 5),
             .clock = mhz(1620), .boost_clock = mhz(1815), .tdp_watts = 265, .intra_node_link = pcie3,
             .source = "NVIDIA Quadro RTX 5000 datasheet (2018); clocks from TechPowerUp"},
            {.name = "quadro-rtx-6000", .description = "NVIDIA Quadro RTX 6000 (TU102)",
             .peak = {.fp32 = fma_peak(4608, 1770), .fp16 = fma_peak(2 * 4608, 1770), .fp16_tensor = tflops(130.5)},
             .memory_bandwidth = gbps(672), .memory_capacity = gib(24), .sm_count = 72,
             .compute_capability = cc(7, 5),
             .clock = mhz(1440), .boost_clock = mhz(1770), .tdp_watts = 295, .intra_node_link = pcie3,
             .source = "NVIDIA Quadro RTX 6000 datasheet (2018); clocks from TechPowerUp"},
            {.name = "quadro-rtx-8000", .description = "NVIDIA Quadro RTX 8000 (TU102)",
             .peak = {.fp32 = fma_peak(4608, 1770), .fp16 = fma_peak(2 * 4608, 1770), .fp16_tensor = tflops(130.5)},
             .memory_bandwidth = gbps(672), .memory_capacity = gib(48), .sm_count = 72,
             .compute_capability = cc(7, 5),
             .clock = mhz(1395), .boost_clock = mhz(1770), .tdp_watts = 295, .intra_node_link = pcie3,
             .source = "NVIDIA Quadro RTX 8000 datasheet (2018); clocks from TechPowerUp"},

            // Ampere. GA102/GA104 (A10, GeForce RTX 30, A40, RTX A4000-A6000) run FP16 on SIMT at the FP32 rate;
            // GA100 (A100, A30) at 4x.
            {.name = "a10", .description = "NVIDIA A10 (GA102, 150 W)",
             .peak = {.fp32 = tflops(31.2), .tf32_tensor = tflops(62.5), .fp16_tensor = tflops(125),
                      .bf16_tensor = tflops(125)},
             .memory_bandwidth = gbps(600), .memory_capacity = gib(24), .sm_count = 72,
             .compute_capability = cc(8, 6),
             .clock = mhz(885), .boost_clock = mhz(1695), .tdp_watts = 150, .intra_node_link = pcie4,
             .source = "NVIDIA A10 datasheet (2021); base clock from TechPowerUp"},
            {.name = "rtx-3090", .description = "NVIDIA GeForce RTX 3090 (GA102)",
             .peak = {.fp32 = fma_peak(10496, 1695), .tf32_tensor = tflops(35.6),
                      .fp16_tensor = tflops(71.2), .bf16_tensor = tflops(71.2)},  // 82 SMs x 512 x 1695 MHz
             .memory_bandwidth = gbps(936), .memory_capacity = gib(24), .sm_count = 82,
             .compute_capability = cc(8, 6),
             .clock = mhz(1395), .boost_clock = mhz(1695), .tdp_watts = 350, .intra_node_link = pcie4,
             .source = "Ampere GA102 whitepaper Table 9 (RTX 3090; FP16 tensor with FP32 accumulate 71); "
                       "base clock also in Habitat's devices.yml"},
            {.name = "rtx-3070", .description = "NVIDIA GeForce RTX 3070 (GA104)",
             .peak = {.fp32 = fma_peak(5888, 1725), .tf32_tensor = fma_peak(5888, 1725),
                      .fp16_tensor = fma_peak(2 * 5888, 1725), .bf16_tensor = fma_peak(2 * 5888, 1725)},
             .memory_bandwidth = gbps(448), .memory_capacity = gib(8), .sm_count = 46,
             .compute_capability = cc(8, 6),
             .clock = mhz(1500), .boost_clock = mhz(1725), .tdp_watts = 220, .intra_node_link = pcie4,
             .source = "Ampere GA102 whitepaper Appendix A (RTX 3070: TF32 tensor 20.3 TFLOPS, the FP32 rate; FP16 "
                       "tensor with FP32 accumulate 40.6, twice it)"},
            {.name = "rtx-3080", .description = "NVIDIA GeForce RTX 3080 10 GB (GA102)",
             .peak = {.fp32 = fma_peak(8704, 1710), .tf32_tensor = fma_peak(8704, 1710),
                      .fp16_tensor = fma_peak(2 * 8704, 1710), .bf16_tensor = fma_peak(2 * 8704, 1710)},
             .memory_bandwidth = gbps(760), .memory_capacity = gib(10), .sm_count = 68,
             .compute_capability = cc(8, 6),
             .clock = mhz(1440), .boost_clock = mhz(1710), .tdp_watts = 320, .intra_node_link = pcie4,
             .source = "Ampere GA102 whitepaper Table 9 (RTX 3080: TF32 tensor 29.8 TFLOPS, the FP32 rate; FP16 "
                       "tensor with FP32 accumulate 59.5, twice it)"},
            {.name = "a40", .description = "NVIDIA A40 (GA102, 300 W)",
             .peak = {.fp32 = tflops(37.4), .tf32_tensor = tflops(74.8), .fp16_tensor = tflops(149.7),
                      .bf16_tensor = tflops(149.7)},
             .memory_bandwidth = gbps(696), .memory_capacity = gib(48), .sm_count = 84,
             .compute_capability = cc(8, 6),
             .clock = mhz(1305), .boost_clock = mhz(1740), .tdp_watts = 300, .intra_node_link = pcie4,
             .source = "NVIDIA A40 datasheet (2021); clocks from TechPowerUp and Habitat's devices.yml"},
            {.name = "rtx-a4000", .description = "NVIDIA RTX A4000 (GA104)",
             .peak = {.fp32 = tflops(19.2), .tf32_tensor = tflops(153.4 / 4), .fp16_tensor = tflops(153.4 / 2),
                      .bf16_tensor = tflops(153.4 / 2)},
             .memory_bandwidth = gbps(448), .memory_capacity = gib(16), .sm_count = 48,
             .compute_capability = cc(8, 6),
             .clock = mhz(735), .boost_clock = mhz(1560), .tdp_watts = 140, .intra_node_link = pcie4,
             .source = "NVIDIA RTX A4000 datasheet (2021: 153.4 sparse FP16 tensor TFLOPS; TF32 at half FP16, "
                       "as on A40); clocks from TechPowerUp and Habitat's devices.yml"},
            {.name = "rtx-a5000", .description = "NVIDIA RTX A5000 (GA102)",
             .peak = {.fp32 = fma_peak(8192, 1695), .tf32_tensor = tflops(222.2 / 4), .fp16_tensor = tflops(222.2 / 2),
                      .bf16_tensor = tflops(222.2 / 2)},
             .memory_bandwidth = gbps(768), .memory_capacity = gib(24), .sm_count = 64,
             .compute_capability = cc(8, 6),
             .clock = mhz(1170), .boost_clock = mhz(1695), .tdp_watts = 230, .intra_node_link = pcie4,
             .source = "NVIDIA RTX A5000 datasheet (2021: 222.2 sparse FP16 tensor TFLOPS; TF32 at half FP16, "
                       "as on A40); clocks from TechPowerUp"},
            {.name = "rtx-a6000", .description = "NVIDIA RTX A6000 (GA102)",
             .peak = {.fp32 = fma_peak(10752, 1800), .tf32_tensor = tflops(309.7 / 4), .fp16_tensor = tflops(309.7 / 2),
                      .bf16_tensor = tflops(309.7 / 2)},
             .memory_bandwidth = gbps(768), .memory_capacity = gib(48), .sm_count = 84,
             .compute_capability = cc(8, 6),
             .clock = mhz(1410), .boost_clock = mhz(1800), .tdp_watts = 300, .intra_node_link = pcie4,
             .source = "NVIDIA RTX A6000 datasheet (2020: 309.7 sparse FP16 tensor TFLOPS; TF32 at half FP16, "
                       "as on A40); clocks from TechPowerUp"},
            {.name = "a30", .description = "NVIDIA A30 (GA100, 165 W)",
             .peak = {.fp32 = tflops(10.3), .fp16 = tflops(4 * 10.3), .tf32_tensor = tflops(82), .fp16_tensor = tflops(165),
                      .bf16_tensor = tflops(165)},
             .memory_bandwidth = gbps(933), .memory_capacity = gib(24), .sm_count = 56,
             .compute_capability = cc(8, 0),
             .clock = mhz(930), .boost_clock = mhz(1440), .tdp_watts = 165, .intra_node_link = pcie4,
             .source = "NVIDIA A30 datasheet (2021); clocks from TechPowerUp"},
            {.name = "a100-pcie-40gb", .description = "NVIDIA A100 PCIe 40 GB",
             .peak = {.fp32 = tflops(19.5), .fp16 = tflops(78), .tf32_tensor = tflops(156),
                      .fp16_tensor = tflops(312), .bf16_tensor = tflops(312)},
             .memory_bandwidth = gbps(1555), .memory_capacity = gib(40), .sm_count = 108,
             .compute_capability = cc(8, 0),
             .clock = mhz(765), .boost_clock = mhz(1410), .tdp_watts = 250,
             .intra_node_link = pcie4,  // the optional NVLink bridge joins pairs only
             .source = "NVIDIA A100 datasheet (2020); Ampere GA100 whitepaper Table 3; base clock from TechPowerUp"},
            {.name = "a100-sxm4-40gb", .description = "NVIDIA A100 SXM4 40 GB (NVLink)",
             .peak = {.fp32 = tflops(19.5), .fp16 = tflops(78), .tf32_tensor = tflops(156),
                      .fp16_tensor = tflops(312), .bf16_tensor = tflops(312)},
             .memory_bandwidth = gbps(1555), .memory_capacity = gib(40), .sm_count = 108,
             .compute_capability = cc(8, 0),
             .clock = mhz(1095), .boost_clock = mhz(1410), .tdp_watts = 400,
             .intra_node_link = nvlink(12, 25),  // 12 NVLink 3 links, 600 GB/s both directions
             .source = "NVIDIA A100 datasheet (2020); Ampere GA100 whitepaper Table 3; base clock from TechPowerUp"},
            {.name = "a100-sxm4-80gb", .description = "NVIDIA A100 SXM4 80 GB (NVLink)",
             .peak = {.fp32 = tflops(19.5), .fp16 = tflops(78), .tf32_tensor = tflops(156),
                      .fp16_tensor = tflops(312), .bf16_tensor = tflops(312)},
             .memory_bandwidth = gbps(2039), .memory_capacity = gib(80), .sm_count = 108,
             .compute_capability = cc(8, 0),
             .clock = mhz(1275), .boost_clock = mhz(1410), .tdp_watts = 400, .intra_node_link = nvlink(12, 25),
             .source = "NVIDIA A100 80GB datasheet (2021); Ampere GA100 whitepaper Table 3; "
                       "base clock from TechPowerUp"},

            // Ada (AD104, AD102): FP16 on SIMT at the FP32 rate; tensor figures are the datasheets'
            // sparse ones halved.
            {.name = "l4", .description = "NVIDIA L4 (AD104, 72 W)",
             .peak = {.fp32 = tflops(30.3), .tf32_tensor = tflops(120.0 / 2), .fp16_tensor = tflops(242.0 / 2),
                      .bf16_tensor = tflops(242.0 / 2), .fp8_tensor = tflops(485.0 / 2)},
             .memory_bandwidth = gbps(300), .memory_capacity = gib(24), .sm_count = 58,  // 7424 cores / 128
             .compute_capability = cc(8, 9),
             .clock = mhz(795), .boost_clock = mhz(2040), .tdp_watts = 72, .intra_node_link = pcie4,
             .source = "NVIDIA L4 datasheet (2023); Ada Lovelace whitepaper; clocks from TechPowerUp"},
            {.name = "l40s", .description = "NVIDIA L40S (AD102, 350 W)",
             .peak = {.fp32 = tflops(91.6), .tf32_tensor = tflops(183), .fp16_tensor = tflops(362.05),
                      .bf16_tensor = tflops(362.05), .fp8_tensor = tflops(733)},
             .memory_bandwidth = gbps(864), .memory_capacity = gib(48), .sm_count = 142,
             .compute_capability = cc(8, 9),
             .clock = mhz(1110), .boost_clock = mhz(2520), .tdp_watts = 350, .intra_node_link = pcie4,
             .source = "NVIDIA L40S datasheet (2023, dense figures); base clock from TechPowerUp"},
            {.name = "rtx-4090", .description = "NVIDIA GeForce RTX 4090 (AD102)",
             .peak = {.fp32 = fma_peak(16384, 2520), .tf32_tensor = tflops(82.6), .fp16_tensor = tflops(165.2),
                      .bf16_tensor = tflops(165.2), .fp8_tensor = tflops(330.3)},
             .memory_bandwidth = gbps(1008), .memory_capacity = gib(24), .sm_count = 128,
             .compute_capability = cc(8, 9),
             .clock = mhz(2235), .boost_clock = mhz(2520), .tdp_watts = 450, .intra_node_link = pcie4,
             .source = "Ada Lovelace whitepaper Appendix A (RTX 4090; tensor rates with FP32 accumulate)"},

            // Hopper GH100: FP16 on SIMT at twice FP32. Tensor figures are the datasheets' sparse ones halved.
            {.name = "h100-pcie-80gb", .description = "NVIDIA H100 PCIe 80 GB",
             .peak = {.fp32 = tflops(51), .fp16 = tflops(2 * 51), .tf32_tensor = tflops(756.0 / 2),
                      .fp16_tensor = tflops(1513.0 / 2), .bf16_tensor = tflops(1513.0 / 2),
                      .fp8_tensor = tflops(3026.0 / 2)},
             .memory_bandwidth = gbps(2000), .memory_capacity = gib(80), .sm_count = 114,
             .compute_capability = cc(9, 0),
             .clock = mhz(1125), .boost_clock = mhz(1755), .tdp_watts = 350,
             .intra_node_link = pcie5,  // the optional NVLink bridge joins pairs only
             .source = "NVIDIA H100 datasheet (2022, PCIe column); Hopper whitepaper; base clock from TechPowerUp"},
            {.name = "h100-sxm5-80gb", .description = "NVIDIA H100 SXM5 80 GB (NVLink)",
             .peak = {.fp32 = tflops(66.9), .fp16 = tflops(133.8), .tf32_tensor = tflops(494.7),
                      .fp16_tensor = tflops(989.4), .bf16_tensor = tflops(989.4), .fp8_tensor = tflops(1978.9)},
             .memory_bandwidth = gbps(3350), .memory_capacity = gib(80), .sm_count = 132,
             .compute_capability = cc(9, 0),
             .clock = mhz(1590), .boost_clock = mhz(1980), .tdp_watts = 700,
             .intra_node_link = nvlink(18, 25),  // 18 NVLink 4 links, 900 GB/s both directions
             .source = "NVIDIA H100 datasheet (2022, SXM column); Hopper whitepaper Table 3 (H100 SXM5); "
                       "base clock from TechPowerUp"},
            {.name = "h200-sxm-141gb", .description = "NVIDIA H200 SXM 141 GB (NVLink)",
             .peak = {.fp32 = tflops(66.9), .fp16 = tflops(133.8), .tf32_tensor = tflops(494.7),
                      .fp16_tensor = tflops(989.4), .bf16_tensor = tflops(989.4), .fp8_tensor = tflops(1978.9)},
             .memory_bandwidth = gbps(4800), .memory_capacity = gib(141), .sm_count = 132,
             .compute_capability = cc(9, 0),
             .clock = mhz(1590), .boost_clock = mhz(1980), .tdp_watts = 700, .intra_node_link = nvlink(18, 25),
             .source = "NVIDIA H200 datasheet (2024): the H100 SXM5's GH100 and clocks (Hopper whitepaper "
                       "Table 3), 141 GB HBM3e at 4.8 TB/s"},

            // Blackwell B200 in HGX B200 (1000 W); NVIDIA quotes no clocks for it.
            {.name = "b200", .description = "NVIDIA B200 180 GB (HGX B200, 1000 W)",
             .peak = {.fp32 = tflops(600.0 / 8), .tf32_tensor = tflops(2200.0 / 2),
                      .fp16_tensor = tflops(4500.0 / 2), .bf16_tensor = tflops(4500.0 / 2),
                      .fp8_tensor = tflops(9000.0 / 2)},
             .memory_bandwidth = gbps(8000), .memory_capacity = gib(180), .sm_count = 148,
             .compute_capability = cc(10, 0),
             .clock = mhz(1980),  // third-party (TechPowerUp) boost clock: 75 TFLOPS = 2 x 18944 x 1.98 GHz
             .tdp_watts = 1000,
             .intra_node_link = nvlink(18, 50),  // 18 NVLink 5 links, 1.8 TB/s both directions
             .source = "NVIDIA HGX B200 datasheet (2024; 8-GPU totals / 8); Blackwell architecture technical "
                       "brief (sparse / 2); SM count from cudaGetDeviceProperties"},
            // GeForce Blackwell SMs (compute capability 12.0, as in GB202): FP16 and BF16 with FP32 accumulation at
            // half the SM's FP16-accumulate rate, 512 FLOPs an SM and cycle (170 x 2407 MHz x 512 = 209.5), TF32 at
            // 256, FP8 at 2048, as an RTX 5060 Ti's (GB206) cuBLAS GEMMs of 8192^3 ran (QuantumDrizzy/BLACKWALL's
            // README): 46.4, 23.2 and 182.1 TFLOPS of 47.4, 23.7 and 189.6 at its 36 SMs and 2572 MHz.
            {.name = "rtx-5090", .description = "NVIDIA GeForce RTX 5090 (GB202)",
             .peak = {.fp32 = fma_peak(21760, 2407), .tf32_tensor = fma_peak(21760, 2407),
                      .fp16_tensor = fma_peak(2 * 21760, 2407), .bf16_tensor = fma_peak(2 * 21760, 2407),
                      .fp8_tensor = fma_peak(8 * 21760, 2407)},
             .memory_bandwidth = gbps(1792), .memory_capacity = gib(32), .sm_count = 170,
             .compute_capability = cc(12, 0),
             .clock = mhz(2017), .boost_clock = mhz(2407), .tdp_watts = 575, .intra_node_link = pcie5,
             .source = "Linux Format's review of the RTX 5090 (May 2025: 170 SMs, 21760 shaders, 2407 MHz boost, "
                       "32 GB GDDR7 on 512 bits, 1792 GB/s, 575 W); tensor rates per SM and cycle as above; base "
                       "clock from pcspecchart.com"},
            // Professional Blackwell on the same die runs its tensor pipe at the full rate with FP32 accumulation:
            // 1024 FLOPs an SM and cycle in FP16 and BF16, 512 in TF32, 2048 in FP8 (the RTX PRO 6000 Workstation
            // Edition's 503.8, 251.9 and 1007.6 TFLOPS at 188 x 2617 MHz, hmc-tech.com's spec page; its
            // torch.matmul in FP16 ran 390.9 TFLOPS at 4096^3, zzc0721/torch-performance-test-data issue 160,
            // above the half rate's 252).
            {.name = "rtx-pro-6000", .description = "NVIDIA RTX PRO 6000 Blackwell Workstation Edition (GB202, 600 W)",
             .peak = rtx_pro_6000_peaks(2617),
             .memory_bandwidth = gbps(1792), .memory_capacity = gib(96), .sm_count = 188,
             .compute_capability = cc(12, 0),
             .clock = mhz(2617),  // the boost clock, at which hmc-tech.com gives the rates; no base clock at hand
             .tdp_watts = 600, .intra_node_link = pcie5,
             .source = "hmc-tech.com's RTX PRO 6000 Blackwell page (24064 cores at 2617 MHz: 125.95 FP32 TFLOPS, "
                       "tensor rates as above); hardware-corner.net (March 2025: 96 GB GDDR7 on 512 bits, 1792 GB/s, "
                       "600 W); 188 SMs of 128 cores"},
            // The Max-Q edition: the same board at 300 W and a 2288 MHz boost.
            {.name = "rtx-pro-6000-max-q", .description = "NVIDIA RTX PRO 6000 Blackwell Max-Q (GB202, 300 W)",
             .peak = rtx_pro_6000_peaks(2288),
             .memory_bandwidth = gbps(1792), .memory_capacity = gib(96), .sm_count = 188,
             .compute_capability = cc(12, 0),
             .clock = mhz(1590), .boost_clock = mhz(2288), .tdp_watts = 300, .intra_node_link = pcie5,
             .source = "technical.city's RTX PRO 6000 Blackwell Max-Q page (GB202, 24064 cores, 188 SMs, 1590 and "
                       "2288 MHz, 110.1 FP32 TFLOPS, 300 W, PCIe 5.0); 96 GB GDDR7 at 1792 GB/s as every RTX PRO 6000 "
                       "edition (hardware-corner.net, March 2025); tensor rates per SM and cycle as above"},

            // AMD CDNA. Matrix cores count as tensor pipes. FP32 is the packed-FP32 vector rate, which
            // equals the FP32 matrix rate (AMD's MI300X sheet quotes only it; unpacked is half).
            // Clocks: AMD quotes only the peak engine clock. Infinity Fabric: AMD's aggregate peak
            // (both directions) halved.
            {.name = "mi250x", .description = "AMD Instinct MI250X (two CDNA2 GCDs in one OAM package)",
             .peak = {.fp32 = tflops(95.7), .fp16_tensor = tflops(383), .bf16_tensor = tflops(383)},
             .memory_bandwidth = gbps(3276.8),  // 8192-bit HBM2e x 3.2 Gb/s ("3.2 TB/s")
             .memory_capacity = gib(128), .sm_count = 220,
             .clock = mhz(1700), .tdp_watts = 560,
             .intra_node_link = gbps(8 * 100.0 / 2),  // 8 links x 100 GB/s
             .source = "AMD Instinct MI250X data sheet (2021); CDNA2 whitepaper"},
            {.name = "mi300x", .description = "AMD Instinct MI300X (CDNA3 OAM)",
             .peak = {.fp32 = tflops(163.4), .tf32_tensor = tflops(653.7), .fp16_tensor = tflops(1307.4),
                      .bf16_tensor = tflops(1307.4), .fp8_tensor = tflops(2614.9)},
             .memory_bandwidth = gbps(5300), .memory_capacity = gib(192), .sm_count = 304,
             .clock = mhz(2100), .tdp_watts = 750,
             .intra_node_link = gbps(7 * 128.0 / 2),  // 7 links x 128 GB/s
             .source = "AMD Instinct MI300X data sheet (2023); CDNA3 whitepaper"},
        };
    }();
    return all;
}

#pragma GCC diagnostic pop

// The catalog entry with this exact name, or nullptr.
inline const device* find(std::string_view name) {
    const auto& all = catalog();
    const auto it = std::find_if(all.begin(), all.end(), [&](const device& d) { return d.name == name; });
    return it == all.end() ? nullptr : &*it;
}

namespace detail {
inline std::string lowercase(std::string_view s) {
    std::string r(s);
    for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return r;
}

// Levenshtein distance (insertions, deletions, substitutions).
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}
}  // namespace detail

// The catalog entry with this name; throws invalid_device naming close matches when there is none.
inline const device& get(std::string_view name) {
    if (const device* d = find(name)) return *d;
    std::string message = "unknown device '" + std::string(name) + "'";
    const std::string wanted = detail::lowercase(name);
    const std::size_t typos = std::max<std::size_t>(1, wanted.size() / 4);  // edits tolerated
    std::string close{};
    for (const device& d : catalog()) {
        const std::string candidate = detail::lowercase(d.name);
        if (!wanted.empty() && (candidate.find(wanted) != std::string::npos ||
                                detail::edit_distance(wanted, candidate) <= typos))
            close += (close.empty() ? "" : ", ") + d.name;
    }
    if (!close.empty()) message += " (did you mean " + close + "?)";
    throw invalid_device(message + "; run 'steptime devices' for the catalog");
}

}  // namespace steptime::devices
