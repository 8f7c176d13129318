// Tests of steptime/devices/catalog.hpp: the entries, PALEO's numbers, and relations between specs.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <steptime/steptime.hpp>  // devices/catalog.hpp, in both test variants

namespace {

using steptime::device;
using steptime::to_double;
namespace devices = steptime::devices;

constexpr double giga = 1e9, tera = 1e12, gib = 1073741824.0;

const std::vector<std::string> required_names = {
    "paleo:TITAN_X", "paleo:K20", "paleo:K20X", "paleo:K40", "paleo:K80", "paleo:GEFORCE_780_TI",
    "paleo:GEFORCE_750_M", "paleo:CPU_I7", "k20x", "k40", "k80", "m40", "titan-x-maxwell", "titan-x-pascal",
    "gtx-1080-ti", "titan-xp", "gtx-1080", "p4", "quadro-p4000", "p100-pcie-16gb", "p100-sxm2-16gb",
    "v100-pcie-16gb", "v100-pcie-32gb", "v100-sxm2-16gb", "v100-sxm2-32gb", "v100-sxm3-32gb", "v100s-pcie-32gb", "titan-v", "t4",
    "rtx-2070", "rtx-2080", "rtx-2080-ti", "quadro-rtx-4000", "titan-rtx", "quadro-rtx-5000", "quadro-rtx-6000",
    "quadro-rtx-8000", "a10", "rtx-3090", "rtx-3070", "rtx-3080", "a40", "rtx-a4000", "rtx-a5000", "rtx-a6000", "a30",
    "a100-pcie-40gb", "a100-sxm4-40gb", "a100-sxm4-80gb", "l4", "l40s", "rtx-4090", "h100-pcie-80gb",
    "h100-sxm5-80gb", "h200-sxm-141gb", "b200", "rtx-5090", "rtx-pro-6000", "rtx-pro-6000-max-q", "mi250x", "mi300x"};

bool is_paleo(const device& d) { return d.name.rfind("paleo:", 0) == 0; }

std::string unknown_name_message(std::string_view name) {
    try {
        devices::get(name);
    } catch (const steptime::invalid_device& e) {
        return e.what();
    }
    return "<nothing thrown>";
}

}  // namespace

TEST_CASE("the catalog holds exactly the required devices, once each") {
    std::set<std::string> names;
    for (const device& d : devices::catalog()) CHECK_MESSAGE(names.insert(d.name).second, "duplicate " << d.name);
    CHECK(names == std::set<std::string>(required_names.begin(), required_names.end()));
    for (const std::string& name : required_names) {
        REQUIRE_MESSAGE(devices::find(name) != nullptr, name);
        CHECK(devices::find(name)->name == name);
        CHECK(&devices::get(name) == devices::find(name));
    }
    CHECK(&devices::catalog() == &devices::catalog());  // built once
}

TEST_CASE("every entry validates and says where its numbers come from") {
    for (const device& d : devices::catalog()) {
        INFO(d.name);
        CHECK_NOTHROW(steptime::validate(d));
        CHECK_FALSE(d.description.empty());
        CHECK_FALSE(d.source.empty());
    }
}

TEST_CASE("PALEO's eight devices carry PALEO's exact numbers and nothing else") {
    // paleo/device.py at TalwalkarLab/paleo 984bbf5 (reference/paleo-model.md section 2):
    // clock MHz, peak GFLOPS, memory "GB/s", is_gpu.
    struct row {
        const char* key;
        double mhz, gflops, gbs;
        bool gpu;
    };
    const row table[] = {{"paleo:TITAN_X", 1000, 6144, 336.5, true},  {"paleo:K20", 1000, 3520, 208, true},
                         {"paleo:K20X", 1000, 3935, 250, true},       {"paleo:K40", 745, 4290, 288, true},
                         {"paleo:K80", 560, 5600, 480, true},         {"paleo:GEFORCE_780_TI", 875, 5040, 336, true},
                         {"paleo:GEFORCE_750_M", 941, 722.7, 80, true}, {"paleo:CPU_I7", 210000, 289, 68, false}};
    std::size_t count = 0;
    for (const device& d : devices::catalog()) count += is_paleo(d);
    CHECK(count == std::size(table));
    for (const row& r : table) {
        INFO(r.key);
        const device& d = devices::get(r.key);
        CHECK(d.is_gpu == r.gpu);
        CHECK(to_double(d.clock) == r.mhz * 1e6);
        CHECK(to_double(d.peak.fp32) == r.gflops * giga);
        CHECK(to_double(d.memory_bandwidth) == r.gbs * giga);
        CHECK(d.source == "PALEO paleo/device.py (TalwalkarLab/paleo 984bbf5)");
        CHECK_FALSE(d.peak.fp16);
        CHECK_FALSE(d.peak.tf32_tensor);
        CHECK_FALSE(d.peak.fp16_tensor);
        CHECK_FALSE(d.peak.bf16_tensor);
        CHECK_FALSE(d.peak.fp8_tensor);
        CHECK_FALSE(d.memory_capacity);
        CHECK_FALSE(d.sm_count);
        CHECK_FALSE(d.boost_clock);
        CHECK_FALSE(d.tdp_watts);
        CHECK_FALSE(d.intra_node_link);
    }
    // Spot checks against the literal values, independent of the table's arithmetic.
    CHECK(to_double(devices::get("paleo:GEFORCE_750_M").peak.fp32) == 722.7e9);
    CHECK(to_double(devices::get("paleo:CPU_I7").clock) == 210000e6);  // 6 x 35000 MHz, sic
}

TEST_CASE("vendor entries are complete where the vendor publishes the number") {
    for (const device& d : devices::catalog()) {
        if (is_paleo(d)) continue;
        INFO(d.name);
        CHECK(d.is_gpu);
        CHECK(d.memory_capacity);
        CHECK(d.sm_count);
        CHECK(d.tdp_watts);
        CHECK(d.intra_node_link);
    }
}

TEST_CASE("pipe peaks are ordered: fp32 SIMT < fp16 SIMT, fp32 SIMT <= tf32 < fp16 = bf16 <= fp8 tensor") {
    for (const device& d : devices::catalog()) {
        INFO(d.name);
        const double fp32 = to_double(d.peak.fp32);
        if (d.peak.fp16) CHECK(to_double(*d.peak.fp16) > fp32);  // stored only where faster
        if (d.peak.tf32_tensor) {
            CHECK(to_double(*d.peak.tf32_tensor) >= fp32);
            REQUIRE(d.peak.fp16_tensor);
            CHECK(to_double(*d.peak.tf32_tensor) < to_double(*d.peak.fp16_tensor));
        }
        if (d.peak.fp16_tensor) CHECK(to_double(*d.peak.fp16_tensor) >= 2 * fp32);
        // Every catalog GPU with BF16 tensor support runs it on the FP16 datapath at the same rate.
        if (d.peak.bf16_tensor) CHECK(to_double(*d.peak.bf16_tensor) == to_double(*d.peak.fp16_tensor));
        if (d.peak.fp8_tensor) CHECK(to_double(*d.peak.fp8_tensor) >= to_double(*d.peak.fp16_tensor));
        if (d.boost_clock) CHECK(to_double(*d.boost_clock) > to_double(d.clock));
    }
}

TEST_CASE("the FP32 peak matches SMs x FP32 FLOP per SM per clock x boost clock within 2%") {
    // FLOP per SM (CU) per clock = 2 x FP32 lanes, from each architecture's whitepaper: Kepler SMX 192
    // lanes, Maxwell/GP102/GP104/GA10x/Ada/Hopper/Blackwell SM 128, GP100/Volta/Turing/GA100 SM 64, CDNA CU
    // 64 lanes doing packed FP32 (4 FLOP per lane per clock). B200 and AMD have no boost clock: `clock`.
    const std::pair<const char*, double> flop_per_sm_clock[] = {
        {"k20x", 384},          {"k40", 384},         {"k80", 384},          {"m40", 256},
        {"titan-x-maxwell", 256}, {"titan-x-pascal", 256}, {"gtx-1080-ti", 256}, {"p100-pcie-16gb", 128},
        {"p100-sxm2-16gb", 128}, {"v100-pcie-16gb", 128}, {"v100-pcie-32gb", 128}, {"v100-sxm2-16gb", 128}, {"v100-sxm2-32gb", 128},
        {"v100-sxm3-32gb", 128}, {"t4", 128},           {"a10", 256},          {"a100-pcie-40gb", 128},
        {"a100-sxm4-40gb", 128}, {"a100-sxm4-80gb", 128}, {"l4", 256},          {"l40s", 256},
        {"titan-xp", 256},      {"gtx-1080", 256},    {"p4", 256},           {"quadro-p4000", 256},
        {"v100s-pcie-32gb", 128}, {"titan-v", 128},    {"rtx-2070", 128},     {"rtx-2080", 128},     {"rtx-2080-ti", 128},
        {"quadro-rtx-4000", 128}, {"titan-rtx", 128},  {"rtx-3090", 256},     {"a40", 256},
        {"rtx-a4000", 256},     {"a30", 128},         {"rtx-4090", 256},
        {"quadro-rtx-5000", 128}, {"quadro-rtx-6000", 128}, {"quadro-rtx-8000", 128}, {"rtx-3070", 256},
        {"rtx-3080", 256},      {"rtx-a5000", 256},   {"rtx-a6000", 256},
        {"h100-pcie-80gb", 256}, {"h100-sxm5-80gb", 256}, {"h200-sxm-141gb", 256}, {"b200", 256},
        {"rtx-5090", 256},      {"rtx-pro-6000", 256}, {"rtx-pro-6000-max-q", 256}, {"mi250x", 256}, {"mi300x", 256}};
    CHECK(std::size(flop_per_sm_clock) == required_names.size() - 8);  // every vendor entry
    for (const auto& entry : flop_per_sm_clock) {  // no structured bindings: clang 14 cannot capture them
        INFO(entry.first);
        const device& d = devices::get(entry.first);
        const double clock = to_double(d.boost_clock.value_or(d.clock));
        CHECK(to_double(d.peak.fp32) == doctest::Approx(*d.sm_count * entry.second * clock).epsilon(0.02));
    }
}

TEST_CASE("FP16/BF16 and TF32 tensor peaks an SM and cycle, FP32 accumulation: GeForce 512 and 256, pro Blackwell 1024, 512") {
    // At the boost clock, half the pro boards' FP16 rate: the GA102 and Ada whitepapers' "with FP32 Accumulate" rows;
    // GeForce Blackwell's as an RTX 5060 Ti's cuBLAS GEMMs ran (catalog.hpp, rtx-5090). cost::kernel's half-rate
    // share reads this ratio.
    for (const char* name : {"rtx-3070", "rtx-3080", "rtx-3090", "rtx-4090", "rtx-5090"}) {
        INFO(name);
        const device& d = devices::get(name);
        const double sm_cycles = *d.sm_count * to_double(*d.boost_clock);
        CHECK(to_double(*d.peak.fp16_tensor) / sm_cycles == doctest::Approx(512).epsilon(0.005));
        CHECK(to_double(*d.peak.bf16_tensor) / sm_cycles == doctest::Approx(512).epsilon(0.005));
        CHECK(to_double(*d.peak.tf32_tensor) / sm_cycles == doctest::Approx(256).epsilon(0.005));
    }
    // The professional boards on GeForce Blackwell's die run them at the full rate (catalog.hpp, rtx-pro-6000): 1024
    // and 512 (FP8 2048), which cost::kernel's share tells from the half rate by this ratio, the compute capability
    // being the RTX 5090's.
    for (const char* name : {"rtx-pro-6000", "rtx-pro-6000-max-q"}) {
        INFO(name);
        const device& pro = devices::get(name);
        CHECK(pro.compute_capability == devices::get("rtx-5090").compute_capability);
        const double sm_cycles = *pro.sm_count * to_double(pro.boost_clock.value_or(pro.clock));
        CHECK(to_double(*pro.peak.fp16_tensor) / sm_cycles == doctest::Approx(1024).epsilon(0.005));
        CHECK(to_double(*pro.peak.bf16_tensor) / sm_cycles == doctest::Approx(1024).epsilon(0.005));
        CHECK(to_double(*pro.peak.tf32_tensor) / sm_cycles == doctest::Approx(512).epsilon(0.005));
        CHECK(to_double(*pro.peak.fp8_tensor) / sm_cycles == doctest::Approx(2048).epsilon(0.005));
    }
}

TEST_CASE("SXM/NVLink variants are at least their PCIe siblings") {
    const std::pair<const char*, const char*> pairs[] = {{"p100-sxm2-16gb", "p100-pcie-16gb"},
                                                         {"v100-sxm2-16gb", "v100-pcie-16gb"},
                                                         {"a100-sxm4-40gb", "a100-pcie-40gb"},
                                                         {"h100-sxm5-80gb", "h100-pcie-80gb"}};
    for (const auto& pair : pairs) {
        INFO(pair.first);
        const device& sxm = devices::get(pair.first);
        const device& pcie = devices::get(pair.second);
        CHECK(to_double(sxm.peak.fp32) >= to_double(pcie.peak.fp32));
        CHECK(to_double(sxm.memory_bandwidth) >= to_double(pcie.memory_bandwidth));
        CHECK(*sxm.tdp_watts > *pcie.tdp_watts);
        CHECK(to_double(*sxm.intra_node_link) > 2 * to_double(*pcie.intra_node_link));  // NVLink vs PCIe
        CHECK(*sxm.sm_count >= *pcie.sm_count);
        if (pcie.peak.fp16_tensor) CHECK(to_double(*sxm.peak.fp16_tensor) >= to_double(*pcie.peak.fp16_tensor));
    }
}

TEST_CASE("memory variants differ only where the datasheets say") {
    const device& v16 = devices::get("v100-sxm2-16gb");
    const device& v32 = devices::get("v100-sxm2-32gb");
    CHECK(to_double(*v16.memory_capacity) == 16 * gib);  // Tesla V100 datasheet: 16 or 32 GB HBM2
    CHECK(to_double(*v32.memory_capacity) == 32 * gib);
    CHECK(to_double(v16.peak.fp32) == to_double(v32.peak.fp32));
    const device& a40 = devices::get("a100-sxm4-40gb");
    const device& a80 = devices::get("a100-sxm4-80gb");
    CHECK(to_double(a40.memory_bandwidth) == 1555 * giga);  // A100 40GB datasheet
    CHECK(to_double(a80.memory_bandwidth) == 2039 * giga);  // A100 80GB datasheet (SXM)
    CHECK(to_double(*a80.peak.fp16_tensor) == to_double(*a40.peak.fp16_tensor));
    // H200 is the H100 SXM's GH100 with more and faster HBM3e (H200 datasheet: 141 GB, 4.8 TB/s).
    const device& h100 = devices::get("h100-sxm5-80gb");
    const device& h200 = devices::get("h200-sxm-141gb");
    CHECK(to_double(h200.peak.fp32) == to_double(h100.peak.fp32));
    CHECK(to_double(*h200.peak.fp8_tensor) == to_double(*h100.peak.fp8_tensor));
    CHECK(to_double(h200.memory_bandwidth) > to_double(h100.memory_bandwidth));
}

TEST_CASE("the k80 entry is one GK210 die: half the K80 board") {
    // Tesla K80 datasheet, per board: 2 x GK210, 4992 cores, 480 GB/s, 24 GB, 300 W, 8.74 TFLOPS at boost.
    const device& k80 = devices::get("k80");
    CHECK(to_double(k80.memory_bandwidth) == 240 * giga);
    CHECK(to_double(*k80.memory_capacity) == 12 * gib);
    CHECK(*k80.sm_count == 13);  // 2496 cores / 192 per SMX
    CHECK(*k80.tdp_watts == 150);
    CHECK(to_double(k80.peak.fp32) == doctest::Approx(8.74 * tera / 2).epsilon(0.001));
    // PALEO's K80 is the whole board at base clock: twice the die's bandwidth.
    CHECK(to_double(devices::get("paleo:K80").memory_bandwidth) == 2 * to_double(k80.memory_bandwidth));
}

TEST_CASE("at_clock: compute peaks follow the clock, the memory's bandwidth and the lanes per SM do not") {
    // The K80 die at its 560 MHz base clock: 2496 cores x 2 FLOPs x 560 MHz = 2.796 TFLOP/s (the datasheet's
    // 5.6 TFLOPS per two-die board), against 4.368 at the 875 MHz boost the catalog quotes.
    const device& k80 = devices::get("k80");
    const device base = at_clock(k80, steptime::megahertz_of(560));
    CHECK(base.name == "k80@560MHz");
    CHECK(to_double(base.peak.fp32) == doctest::Approx(2496 * 2 * 560e6).epsilon(1e-3));
    CHECK(to_double(base.memory_bandwidth) == to_double(k80.memory_bandwidth));
    CHECK(to_double(base.clock) == 560e6);
    CHECK(to_double(*base.boost_clock) == 560e6);
    // Every pipe scales alike: the V100's tensor cores at half its 1530 MHz boost do half their 125 TFLOP/s.
    const device& v100 = devices::get("v100-sxm2-16gb");
    const device half = at_clock(v100, steptime::megahertz_of(765));
    CHECK(to_double(*half.peak.fp16_tensor) == doctest::Approx(62.5 * tera));
    CHECK(to_double(*half.peak.fp16) == doctest::Approx(to_double(*v100.peak.fp16) / 2));
    CHECK(to_double(half.peak.fp32) / to_double(*half.boost_clock) == doctest::Approx(to_double(v100.peak.fp32) / 1530e6));
    CHECK_THROWS_AS(at_clock(v100, steptime::megahertz_of(0)), steptime::invalid_device);
    // Clocked again, from 765 MHz to 1530: the boost's peaks again, and the name of the last clock only.
    const device back = at_clock(half, steptime::megahertz_of(1530));
    CHECK(back.name == "v100-sxm2-16gb@1530MHz");
    CHECK(to_double(*back.peak.fp16_tensor) == doctest::Approx(125 * tera));
}

TEST_CASE("SM counts agree with Habitat's devices.yml (num_sms from cudaGetDeviceProperties)") {
    // /work/shared/data/habitat/devices.yml and deepview_predict/devices.yml: GTX1080Ti 28, P100 56,
    // T4 40, V100 80, A100 108, H100 (SXM) 132, P4000 14, P4 20, RTX2070 36, RTX2080Ti 68, RTX4000 36,
    // RTX3090 82, A40 84, A4000 48.
    const std::pair<const char*, int> habitat[] = {
        {"gtx-1080-ti", 28}, {"p100-pcie-16gb", 56}, {"t4", 40},          {"v100-sxm2-16gb", 80},
        {"a100-sxm4-40gb", 108}, {"h100-sxm5-80gb", 132}, {"quadro-p4000", 14}, {"p4", 20},
        {"rtx-2070", 36},    {"rtx-2080-ti", 68},   {"quadro-rtx-4000", 36}, {"rtx-3090", 82},
        {"a40", 84},         {"rtx-a4000", 48}};
    for (const auto& entry : habitat) CHECK_MESSAGE(*devices::get(entry.first).sm_count == entry.second, entry.first);
}

TEST_CASE("find returns nullptr and get throws invalid_device for an unknown name") {
    CHECK(devices::find("foo") == nullptr);
    CHECK(devices::find("") == nullptr);
    CHECK(devices::find("V100-SXM2-16GB") == nullptr);  // names are exact keys
    CHECK_THROWS_AS(devices::get("foo"), steptime::invalid_device);
    CHECK_THROWS_WITH(devices::get("foo"), "unknown device 'foo'; run 'steptime devices' for the catalog");
    const std::string v100 = unknown_name_message("V100");
    CHECK(v100.find("'V100'") != std::string::npos);
    CHECK(v100.find("v100-sxm2-16gb") != std::string::npos);                          // a close name
    CHECK(unknown_name_message("a100-sxm-40gb").find("a100-sxm4-40gb") != std::string::npos);  // one typo
}
