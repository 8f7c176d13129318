// Tests of steptime/scale/wave_scaling.hpp: occupancy, gamma, Habitat's formulas and ours, the anchored ratio.
// Section numbers refer to /work/shared/reference/habitat-and-empirical-models.md.
#include <doctest/doctest.h>

#include <string>
#include <steptime/io.hpp>  // wave_scaling.hpp comes with its reader
#include <steptime/steptime.hpp>
#include "support/csv.hpp"
#include "support/errors.hpp"

namespace {

using namespace steptime;
using scale::kernel_class;
using scale::launch_geometry;
using scale::measured_kernel;
using scale::scaling_mode;
using test_support::close;
using test_support::message_of;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A GPU of Habitat's devices.yml (section 4's table): SMs, mem_bandwidth_gb, base_clock_mhz,
// peak_gflops_per_second, compute capability.
device habitat(const char* name, int sms, double gbps, double mhz, double gflops, int major, int minor) {
    device d{.name = name};
    d.peak.fp32 = flops_per_second_of(gflops * 1e9);
    d.memory_bandwidth = bytes_per_second_of(gbps * 1e9);
    d.sm_count = sms;
    d.compute_capability = cuda_compute_capability{major, minor};
    d.clock = megahertz_of(mhz);
    return d;
}
const device v100 = habitat("V100", 80, 739, 1312, 6716, 7, 0);
const device t4 = habitat("T4", 40, 239, 585, 1804, 7, 5);

launch_geometry grid_of(std::int64_t blocks, std::int64_t threads = 256, int registers = 32, double smem = 0) {
    return {.grid = {blocks, 1, 1}, .block = {threads, 1, 1}, .registers_per_thread = registers,
            .shared_memory = bytes_of(smem)};
}

measured_kernel kernel(kernel_class kind, std::optional<launch_geometry> launch, double us = 100) {
    return {.name = "k", .duration = microseconds_of(us), .launch = launch, .kind = kind};
}

double ratio_of_scaling(const measured_kernel& k, scaling_mode mode, const device& from = v100, const device& to = t4) {
    const auto s = scale::scale_kernel(k, from, to, {.mode = mode});
    return to_double(s.predicted) / to_double(k.duration);
}

}  // namespace

TEST_CASE("scale: occupancy is the least of the four limits (6.2 step 1), by hand on cc 7.0, 7.5 and 8.0") {
    // CUDA C++ Programming Guide, technical specifications: cc 7.0 has 32 blocks, 64 warps, 65536
    // registers, 96 KB shared memory per SM; cc 7.5 32 warps; cc 8.0 164 KB and 1 KB reserved per block.
    const auto volta = scale::limits_for({7, 0});
    const auto turing = scale::limits_for({7, 5});
    const auto ampere = scale::limits_for({8, 0});
    using scale::occupancy_limiter;
    // One warp a block, no registers or shared memory: 32 blocks (64 warps would allow 64).
    auto o = scale::occupancy_of(grid_of(1, 32, 0), volta);
    CHECK(o.blocks_per_sm == 32);
    CHECK(o.limiter == occupancy_limiter::blocks);
    // 1024 threads = 32 warps: floor(64 / 32) = 2 on Volta, floor(32 / 32) = 1 on Turing.
    o = scale::occupancy_of(grid_of(1, 1024, 0), volta);
    CHECK(o.blocks_per_sm == 2);
    CHECK(o.limiter == occupancy_limiter::warps);
    CHECK(scale::occupancy_of(grid_of(1, 1024, 0), turing).blocks_per_sm == 1);
    // 256 threads (8 warps), 128 registers: 65536 / (8 x 4096) = 2 < 8 by warps.
    o = scale::occupancy_of(grid_of(1, 256, 128), volta);
    CHECK(o.blocks_per_sm == 2);
    CHECK(o.limiter == occupancy_limiter::registers);
    // 33 registers: 33 x 32 = 1056 rounds up to 1280 a warp; 65536 / (8 x 1280) = 6.4 -> 6.
    CHECK(scale::occupancy_of(grid_of(1, 256, 33), volta).blocks_per_sm == 6);
    // 128 threads, 40000 bytes of shared memory: 98304 / 40000 -> 2 on Volta; 167936 / 41024 -> 4 on Ampere.
    o = scale::occupancy_of(grid_of(1, 128, 0, 40000), volta);
    CHECK(o.blocks_per_sm == 2);
    CHECK(o.limiter == occupancy_limiter::shared_memory);
    CHECK(scale::occupancy_of(grid_of(1, 128, 0, 40000), ampere).blocks_per_sm == 4);
    // A block that does not fit: 1024 threads x 255 registers needs 262144 registers.
    CHECK(contains(message_of<invalid_argument>([&] { scale::occupancy_of(grid_of(1, 1024, 255), volta, "kernel 'big'"); }),
                   "kernel 'big': one block of 1024 threads, 255 registers per thread and 0 bytes of shared memory does "
                   "not fit on an SM (limited by registers)"));
    CHECK(contains(message_of<invalid_argument>([&] { scale::occupancy_of(grid_of(1, 2048), volta); }), "block_x is 2048"));
    CHECK(contains(message_of<invalid_argument>([&] { scale::occupancy_of(grid_of(0), volta); }), "grid_x is 0"));
    CHECK(contains(message_of<invalid_argument>([] { scale::limits_for({4, 0}); }), "compute capability 4.0 has no"));
}

TEST_CASE("scale: every NVIDIA catalog GPU has a compute capability with occupancy limits") {
    for (const device& d : devices::catalog()) {
        INFO(d.name);
        const bool nvidia = d.description.rfind("NVIDIA", 0) == 0;
        CHECK(d.compute_capability.has_value() == nvidia);
        if (d.compute_capability) CHECK(scale::limits_for(*d.compute_capability).max_blocks_per_sm > 0);
    }
    CHECK(devices::get("a100-sxm4-40gb").compute_capability == cuda_compute_capability{8, 0});
    device bad = devices::get("t4");
    bad.compute_capability = cuda_compute_capability{7, 10};
    CHECK(contains(message_of<invalid_device>([&] { validate(bad); }), "field 'compute_capability' is 7.10"));
}

TEST_CASE("scale: gamma from the roofline (2.4), with Habitat's T4 ridge 1804/239") {
    const double ridge = 1804.0 / 239;  // about 7.5 FLOP/B
    // x = 20 > R: gamma = R / 2x, about 0.19 (section 2.4's worked number).
    CHECK(close(to_double(scale::roofline_gamma(flops_of(20e9), bytes_of(1e9), t4)), ridge / 40));
    CHECK(to_double(scale::roofline_gamma(flops_of(20e9), bytes_of(1e9), t4)) == doctest::Approx(0.19).epsilon(0.01));
    // x = R/2: 1 - x/2R = 0.75; at the ridge 0.5.
    CHECK(close(to_double(scale::roofline_gamma(flops_of(ridge / 2 * 1e9), bytes_of(1e9), t4)), 0.75));
    CHECK(close(to_double(scale::roofline_gamma(flops_of(ridge * 1e9), bytes_of(1e9), t4)), 0.5));
    CHECK(to_double(scale::roofline_gamma(flops_of(0), bytes_of(1e9), t4)) == 1);  // no FLOPs: memory-bound
    CHECK(to_double(scale::roofline_gamma(flops_of(1e9), bytes_of(0), t4)) == 0);  // no bytes: compute-bound
    // Class defaults without F and Q (6.2 step 2).
    CHECK(to_double(scale::gamma_of(kernel(kernel_class::memory, {}), t4)) == 1);
    CHECK(to_double(scale::gamma_of(kernel(kernel_class::unknown, {}), t4)) == 1);
    CHECK(to_double(scale::gamma_of(kernel(kernel_class::compute, {}), t4)) == 0);
    CHECK(contains(message_of<invalid_argument>([] { scale::roofline_gamma(flops_of(-1), bytes_of(1), t4); }), "FLOPs -1"));
}

TEST_CASE("scale: Habitat's worked numbers V100 -> T4 (2.4) in mode habitat-code") {
    const auto large = grid_of(100000);  // far above one wave on both GPUs
    // Memory-bound: D_o/D_d = 739/239, about 3.09.
    CHECK(close(ratio_of_scaling(kernel(kernel_class::memory, large), scaling_mode::habitat_code), 739.0 / 239));
    CHECK(ratio_of_scaling(kernel(kernel_class::memory, large), scaling_mode::habitat_code) == doctest::Approx(3.09).epsilon(0.01));
    // Compute-bound: (SM_o/SM_d)(C_o/C_d) = (80/40)(1312/585), about 4.49.
    CHECK(close(ratio_of_scaling(kernel(kernel_class::compute, large), scaling_mode::habitat_code), 2.0 * 1312 / 585));
    CHECK(ratio_of_scaling(kernel(kernel_class::compute, large), scaling_mode::habitat_code) == doctest::Approx(4.49).epsilon(0.01));
    // resimplified ignores gamma: the bandwidth ratio for every large kernel.
    CHECK(close(ratio_of_scaling(kernel(kernel_class::compute, large), scaling_mode::resimplified), 739.0 / 239));
}

TEST_CASE("scale: Eq. (1)'s limits gamma = 1 and gamma = 0 in mode wave, and Eq. (2) in habitat-eq2") {
    // 256 threads, 32 registers: 8 blocks/SM on V100 (warps and registers), 4 on T4 (32 warps / 8).
    // W_o = 640, W_d = 160; 6400 blocks are exactly 10 and 40 waves.
    const auto exact = grid_of(6400);
    const auto s = scale::scale_kernel(kernel(kernel_class::memory, exact), v100, t4);
    CHECK(*s.waves_origin == 10);
    CHECK(*s.waves_destination == 40);
    // gamma = 1: (n_d/n_o)(D_o/D_d)(W_d/W_o) = 4 x 739/239 / 4 = D_o/D_d.
    CHECK(close(ratio_of_scaling(kernel(kernel_class::memory, exact), scaling_mode::wave), 739.0 / 239));
    // gamma = 0: waves ratio x per-SM FP32 throughput ratio = 4 x (6716/80) / (1804/40).
    CHECK(close(ratio_of_scaling(kernel(kernel_class::compute, exact), scaling_mode::wave), 4 * (6716.0 / 80) / (1804.0 / 40)));
    // Eq. (2), gamma = 0: (W_o/W_d)(C_o/C_d) = 4 x 1312/585 (the code's SM ratio would give 2 x 1312/585).
    CHECK(close(ratio_of_scaling(kernel(kernel_class::compute, exact), scaling_mode::habitat_eq2), 4 * 1312.0 / 585));
    // A gamma between: Eq. (1)'s product with gamma = 0.25 (F/Q chosen on the T4 ridge: x = 1.5 R).
    measured_kernel mixed = kernel(kernel_class::unknown, exact);
    const double ridge = 1804.0 / 239;
    mixed.work = flops_of(1.5 * ridge * 1e6);
    mixed.traffic = bytes_of(1e6);
    const double g = ridge / (2 * 1.5 * ridge);  // R / 2x = 1/3
    CHECK(close(ratio_of_scaling(mixed, scaling_mode::wave),
                4 * std::pow(739.0 / 239 * 160 / 640, g) * std::pow((6716.0 / 80) / (1804.0 / 40), 1 - g)));
}

TEST_CASE("scale: the tail effect of a kernel of 1.2 waves (6.2 step 3)") {
    // 768 blocks: 1.2 waves of 640 on V100 -> 2; 4.8 waves of 160 on T4 -> 5.
    const auto k = kernel(kernel_class::memory, grid_of(768));
    const auto s = scale::scale_kernel(k, v100, t4);
    CHECK(*s.waves_origin == 2);
    CHECK(*s.waves_destination == 5);
    // (5/2) x (739/239) x (160/640), against Eq. (2)'s 739/239 without the ceiling.
    CHECK(close(ratio_of_scaling(k, scaling_mode::wave), 2.5 * 739.0 / 239 * 160 / 640));
    CHECK(close(ratio_of_scaling(k, scaling_mode::habitat_eq2), 739.0 / 239));
    // Registers on the destination: 128 a thread gives T4 2 blocks/SM, W_d = 80, ceil(768/80) = 10 waves.
    measured_kernel more = kernel(kernel_class::compute, grid_of(768));
    more.destination_registers = 128;
    CHECK(*scale::scale_kernel(more, v100, t4).waves_destination == 10);
    CHECK(close(ratio_of_scaling(more, scaling_mode::wave), 10.0 / 2 * (6716.0 / 80) / (1804.0 / 40)));
}

TEST_CASE("scale: kernels under one wave on both GPUs (6.2 step 4) and the launch floor") {
    // 100 blocks < W_d = 160 < W_o = 640. Max blocks per SM: ceil(100/40) = 3 on T4, ceil(100/80) = 2 on V100.
    const auto few = grid_of(100);
    CHECK(scale::scale_kernel(kernel(kernel_class::compute, few), v100, t4).small);
    CHECK(close(ratio_of_scaling(kernel(kernel_class::compute, few), scaling_mode::habitat_code), 1312.0 / 585 * 3 / 2));
    CHECK(close(ratio_of_scaling(kernel(kernel_class::memory, few), scaling_mode::habitat_code), 1.0));  // no bandwidth term
    CHECK(close(ratio_of_scaling(kernel(kernel_class::compute, few), scaling_mode::resimplified), 1.0));  // unchanged
    CHECK(close(ratio_of_scaling(kernel(kernel_class::compute, few), scaling_mode::wave),
                (6716.0 / 80) / (1804.0 / 40) * 3 / 2));
    // habitat-eq2 has no small-kernel case: (W_o/W_d)(C_o/C_d) = 4 x 1312/585.
    CHECK(close(ratio_of_scaling(kernel(kernel_class::compute, few), scaling_mode::habitat_eq2), 4 * 1312.0 / 585));
    // T4 -> V100, 8 blocks, gamma 0: t x (45.1 / 83.95) = 0.537 t. A 3 us kernel would take 1.61 us: the
    // 2 us floor holds it; a 1.5 us one keeps its own time (the floor never lengthens a kernel).
    const auto one = grid_of(8);
    CHECK(close(to_double(scale::scale_kernel(kernel(kernel_class::compute, one, 3), t4, v100).predicted), 2e-6));
    CHECK(close(to_double(scale::scale_kernel(kernel(kernel_class::compute, one, 1.5), t4, v100).predicted), 1.5e-6));
    CHECK(close(to_double(scale::scale_kernel(kernel(kernel_class::compute, one, 3), t4, v100,
                                              {.mode = scaling_mode::habitat_code}).predicted),
                3e-6 * 585 / 1312));  // Habitat has no floor
    CHECK(close(to_double(scale::scale_kernel(kernel(kernel_class::compute, one, 3), t4, v100,
                                              {.launch_floor = seconds_of(0)}).predicted),
                3e-6 * (1804.0 / 40) / (6716.0 / 80)));
}

TEST_CASE("scale: without launch geometry, the large-grid limit at equal occupancy") {
    const device& a = devices::get("v100-sxm2-16gb");
    const device& b = devices::get("t4");
    // wave: (D_o/D_d)^g (peak_o/peak_d)^(1-g): 900/320 for memory, 15.7/8.1 for compute.
    CHECK(close(ratio_of_scaling(kernel(kernel_class::memory, {}), scaling_mode::wave, a, b), 900.0 / 320));
    CHECK(close(ratio_of_scaling(kernel(kernel_class::compute, {}), scaling_mode::wave, a, b), 15.7 / 8.1));
    // habitat-code and -eq2: (SM_o/SM_d)(C_o/C_d) = 2 x 1312/585 for compute.
    CHECK(close(ratio_of_scaling(kernel(kernel_class::compute, {}), scaling_mode::habitat_code, a, b), 2 * 1312.0 / 585));
    CHECK(close(ratio_of_scaling(kernel(kernel_class::compute, {}), scaling_mode::habitat_eq2, a, b), 2 * 1312.0 / 585));
    // A device without SMs or compute capability (PALEO's) works in mode wave only for such kernels.
    const device& k80 = devices::get("paleo:K80");
    CHECK(close(ratio_of_scaling(kernel(kernel_class::memory, {}), scaling_mode::wave, k80, b), 480.0 / 320));
    CHECK(contains(message_of<invalid_device>([&] { ratio_of_scaling(kernel(kernel_class::memory, {}), scaling_mode::habitat_code, k80, b); }),
                   "device 'paleo:K80': field 'sm_count' is missing"));
    device no_cc = b;
    no_cc.compute_capability.reset();
    CHECK(contains(message_of<invalid_device>([&] { ratio_of_scaling(kernel(kernel_class::memory, grid_of(10)), scaling_mode::wave, a, no_cc); }),
                   "device 't4': field 'compute_capability' is missing"));
}

TEST_CASE("scale: the same GPU on both sides gives back the measured time, in every mode") {
    const device& a = devices::get("a100-sxm4-40gb");
    for (const auto mode : {scaling_mode::wave, scaling_mode::habitat_code, scaling_mode::habitat_eq2, scaling_mode::resimplified,
                            scaling_mode::anchored_roofline})
        for (const auto kind : {kernel_class::memory, kernel_class::compute})
            for (const auto& launch : {std::optional<launch_geometry>{}, std::optional(grid_of(1)), std::optional(grid_of(777, 96, 61, 5000))}) {
                INFO(to_string(mode), " ", to_string(kind));
                auto k = kernel(kind, launch, 0.7);  // below the launch floor too
                k.work = flops_of(kind == kernel_class::compute ? 1e9 : 1e6);
                k.traffic = bytes_of(1e6);
                CHECK(close(to_double(scale::scale_kernel(k, a, a, {.mode = mode}).predicted), 0.7e-6, 1e-12));
            }
}

TEST_CASE("scale: operations carry their overhead unscaled (6.2 step 5)") {
    scale::measured_op op{.name = "aten::conv2d", .wall_time = microseconds_of(10)};
    op.kernels = {kernel(kernel_class::memory, grid_of(100000), 4), kernel(kernel_class::memory, grid_of(100000), 3)};
    const auto s = scale::scale_op(op, v100, t4, {.mode = scaling_mode::habitat_code});
    CHECK(close(to_double(s.overhead), 3e-6));
    CHECK(close(to_double(s.measured), 10e-6));
    CHECK(close(to_double(s.predicted), 3e-6 + 7e-6 * 739 / 239));
    op.wall_time = microseconds_of(6);  // below the kernels' sum: no overhead (Habitat clamps at 0)
    CHECK(to_double(scale::scale_op(op, v100, t4).overhead) == 0);
    const auto run = scale::scale_ops({op, op}, v100, t4, {.mode = scaling_mode::resimplified});
    CHECK(close(to_double(run.predicted), 2 * 7e-6 * 739 / 239));
    CHECK(close(to_double(run.measured), 12e-6));
    CHECK(contains(message_of<invalid_argument>([&] { scale::scale_op({.name = "empty"}, v100, t4); }), "operation 'empty': no kernels"));
}

TEST_CASE("scale: the anchored ratio T x M(dest) / M(origin) (6.3)") {
    CHECK(close(to_double(scale::anchored_ratio(milliseconds_of(10), milliseconds_of(4), milliseconds_of(2))), 5e-3));
    const auto err = message_of<invalid_argument>([] { scale::anchored_ratio(seconds_of(1), seconds_of(0), seconds_of(1)); });
    CHECK(contains(err, "model_origin is 0"));
}

TEST_CASE("scale: mode anchored-roofline, the measured time x roofline(to) / roofline(from) (6.3)") {
    // Habitat's table: V100 6716 GFLOP/s and 739 GB/s (ridge 9.1 FLOP/B), T4 1804 and 239 (ridge 7.5).
    measured_kernel k = kernel(kernel_class::unknown, grid_of(5000));
    const auto anchored = [&](double flops, double bytes) {
        k.work = flops_of(flops);
        k.traffic = bytes_of(bytes);
        return ratio_of_scaling(k, scaling_mode::anchored_roofline);
    };
    CHECK(close(anchored(1e12, 1e9), 6716.0 / 1804));  // 1000 FLOP/B: compute-bound on both
    CHECK(close(anchored(1e9, 1e9), 739.0 / 239));     // 1 FLOP/B: memory-bound on both
    // 8 FLOP/B: memory-bound on the V100 (8 < 9.1), compute-bound on the T4 (8 > 7.5).
    CHECK(close(anchored(8e9, 1e9), (8e9 / 1804e9) / (1e9 / 739e9)));
    k.work.reset();
    k.traffic.reset();
    CHECK(contains(message_of<invalid_argument>([&] { ratio_of_scaling(k, scaling_mode::anchored_roofline); }),
                   "kernel 'k': mode anchored-roofline needs the kernel's FLOPs and bytes"));
}

TEST_CASE("scale: bad kernels are refused with their name") {
    CHECK(contains(message_of<invalid_argument>([] { scale::scale_kernel(kernel(kernel_class::memory, {}, -1), v100, t4); }),
                   "kernel 'k': duration is -0.000001"));
    measured_kernel half = kernel(kernel_class::memory, {});
    half.work = flops_of(1);
    CHECK(contains(message_of<invalid_argument>([&] { scale::scale_kernel(half, v100, t4); }), "both FLOPs and bytes"));
    CHECK(scale::parse_scaling_mode("habitat-eq2") == scaling_mode::habitat_eq2);
    CHECK_FALSE(scale::parse_scaling_mode("eq2"));
}
