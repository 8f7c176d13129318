// Cost models (cost/): where the default `paleo` model departs from `paleo_compat`, one case per fix listed
// in paleo-model.md section 13; the roofline model; properties every model keeps over the zoo and PALEO's
// nets; and the report writers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#include <steptime/io.hpp>

#include "support/csv.hpp"
#include "support/errors.hpp"

using namespace steptime;
using test_support::close;
using test_support::message_of;

namespace {

// Round numbers, so that times can be derived by hand: 1 TFLOP/s, 100 GB/s (decimal), 1000 MHz (tau = 1 ns).
device test_device(double clock_mhz = 1000) {
    device d;
    d.name = "test";
    d.peak.fp32 = flops_per_second_of(1e12);
    d.memory_bandwidth = bytes_per_second_of(1e11);
    d.clock = megahertz_of(clock_mhz);
    return d;
}

constexpr double gib_over_gb = 1073741824.0 / 1e9;  // 2^30 / 1e9: PALEO's "GB/s" read as GiB/s (section 3)

using zoo::detail::conv;  // a square convolution
using zoo::detail::max_pool;

template <class Model>
layer_time cost_of(const Model& m, const network& net, const std::string& layer, pass p, const device& dev,
                   std::int64_t batch) {
    return m.layer(net, *net.find(layer), p, cost_context{dev, batch});
}

std::string path(const std::string& rel) { return test_support::source_path(rel); }

// Every PALEO network file shipped (data/nets/paleo/*.json and converted/*.json).
std::vector<std::filesystem::path> paleo_files() {
    std::vector<std::filesystem::path> out;
    for (const auto* dir : {"data/nets/paleo", "data/nets/paleo/converted"})
        for (const auto& f : std::filesystem::directory_iterator(path(dir)))
            if (f.path().extension() == ".json") out.push_back(f.path());
    return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// paleo vs paleo_compat: the fixes of paleo-model.md section 13, one test case each, named by item.

TEST_CASE("13.10: decimal memory units (paleo) vs GB/s read as GiB/s (compat)") {
    // A max pool over 64x64x64 at batch 32 reads 4 * 64*64*64*32 = 2^25 B and writes 4 * 32*32*64*32 = 2^23 B;
    // both models count the same bytes. Floors (1 ns) are far below these times.
    network net;
    net.add("data", ops::input{tensor_shape::image(64, 64, 64)});
    net.add("pool", max_pool(2, 2), {"data"});
    const device dev = test_device();
    const auto p = cost_of(cost::paleo{}, net, "pool", pass::forward, dev, 32);
    const auto c = cost_of(cost::paleo_compat{}, net, "pool", pass::forward, dev, 32);
    CHECK(p.traffic == c.traffic);
    // paleo: 2^25 B / 1e11 B/s = 335.54432 us; compat: 2^25 / 2^30 / 100 s = 312.5 us.
    CHECK(close(p.fetch.value(), 33'554'432 / 1e11));
    CHECK(close(c.fetch.value(), 312.5e-6));
    CHECK(close(p.fetch / c.fetch, gib_over_gb));
    // Writes: 2^23 B: 83.88608 us vs 78.125 us.
    CHECK(close(p.write / c.write, gib_over_gb));
}

TEST_CASE("13.10: no one-clock floor per term (paleo) vs max(tau, t) per term (compat)") {
    // A 2x2/2 max pool over 2x2x1 at batch 1: 4 FLOPs (compat counts 2 per window element: 8),
    // reads 16 B, writes 4 B. With a 1 MHz clock tau = 1 us, which dwarfs every term.
    network net;
    net.add("data", ops::input{tensor_shape::image(2, 2, 1)});
    net.add("tiny", max_pool(2, 2), {"data"});
    const device dev = test_device(1);
    // compat: compute, read and write are each floored to 1 us.
    CHECK(close(cost_of(cost::paleo_compat{}, net, "tiny", pass::forward, dev, 1).total().value(), 3e-6));
    // paleo: 4 / 1e12 + 16 / 1e11 + 4 / 1e11 = 4 ps + 160 ps + 40 ps = 204 ps.
    CHECK(close(cost_of(cost::paleo{}, net, "tiny", pass::forward, dev, 1).total().value(), 204e-12));
}

TEST_CASE("13.2: paleo costs the operations PALEO treats as free") {
    // PALEO's flops profiler gives activations, BN, LRN, concat, softmax and element-wise adds zero time
    // (section 5.2, "Zero cost"); they read and write whole tensors, so paleo charges them. A conv first,
    // so that no layer below is fed by the input alone (whose data gradient is skipped).
    network net;
    net.add("data", ops::input{tensor_shape::image(8, 8, 16)});
    net.add("conv", conv(16, 1, 1, ops::padding::same()), {"data"});
    net.add("relu", ops::activation{}, {"conv"});
    net.add("bn", ops::batch_norm{}, {"relu"});
    net.add("lrn", ops::lrn{5}, {"bn"});
    net.add("concat", ops::concat{2}, {"lrn", "relu"});
    net.add("add", ops::elementwise{}, {"lrn", "relu"});
    net.add("softmax", ops::softmax{}, {"add"});
    const device dev = test_device();

    for (const char* name : {"relu", "bn", "lrn", "concat", "add", "softmax"}) {
        INFO(name);
        const auto c = cost_of(cost::paleo_compat{}, net, name, pass::forward, dev, 2);
        const auto p = cost_of(cost::paleo{}, net, name, pass::forward, dev, 2);
        CHECK(c.total().value() == 0);
        CHECK(p.total().value() > 0);
        CHECK(p.traffic.value() > 0);
        CHECK(cost_of(cost::paleo_compat{}, net, name, pass::backward, dev, 2).total().value() == 0);
    }
    // ReLU by hand: 8*8*16*2 = 2,048 elements, 1 FLOP each, reads and writes 8,192 B:
    // 2,048 / 1e12 + 16,384 / 1e11 = 2.048 ns + 163.84 ns.
    CHECK(close(cost_of(cost::paleo{}, net, "relu", pass::forward, dev, 2).total().value(), 2.048e-9 + 163.84e-9));
    // Backward: the gradients of all but the add (which passes its gradient through) cost time too.
    for (const char* name : {"relu", "bn", "lrn", "concat", "softmax"}) {
        INFO(name);
        CHECK(cost_of(cost::paleo{}, net, name, pass::backward, dev, 2).total().value() > 0);
    }
}

TEST_CASE("13.1: sparse-aware data gradient of strided and shrinking convolutions") {
    SUBCASE("AlexNet fc6: 5x5 VALID over pool5's 5x5x256 -> 1x1x4096, batch 128 (alex_v2.json)") {
        const auto net = io::load_paleo_json(path("data/nets/paleo/alex_v2.json"));
        const device& dev = devices::get("paleo:TITAN_X");
        const auto p = cost_of(cost::paleo{}, net, "fc6", pass::backward_data, dev, 128);
        const auto c = cost_of(cost::paleo_compat{}, net, "fc6", pass::backward_data, dev, 128);
        // paleo: the forward product again, 2 * 5*5*256 * 1*1*4096 * 128 = 6,710,886,400 FLOPs (6.7 GFLOP).
        CHECK(p.work.value() == 6'710'886'400.0);
        // compat convolves the gradient padded to 9x9 densely back to 5x5: 2 * 5*5*4096 * 5*5*256 * 128
        // = 25 x forward = 167,772,160,000 (paleo-model.md 5.1: "167.8 vs 6.7 GFLOP").
        CHECK(c.work.value() == 167'772'160'000.0);
    }
    SUBCASE("inception_v3 Mixed_6a 3x3/2 VALID, 35x35x288 -> 17x17x384, batch 32: about s^2 = 4") {
        network net;
        net.add("data", ops::input{tensor_shape::image(35, 35, 288)});
        net.add("relu", ops::activation{}, {"data"});  // so that the conv's data gradient is needed
        net.add("conv", conv(384, 3, 2, ops::padding::valid()), {"relu"});
        const device& dev = devices::get("paleo:TITAN_X");
        const double p = cost_of(cost::paleo{}, net, "conv", pass::backward_data, dev, 32).work.value();
        const double c = cost_of(cost::paleo_compat{}, net, "conv", pass::backward_data, dev, 32).work.value();
        // paleo: 2 * 3*3*288 * 17*17*384 * 32 = 18,409,586,688 (the forward product, "18.4 GFLOP").
        CHECK(p == 18'409'586'688.0);
        // compat (5.1): E = 16*2 + 1 = 33, pad 2; dense 2 * 3*3*384 * 35*35*288 * 32 = 78,033,715,200, plus
        // 2 * 32 * 33*33*384 * (289 / 1089) = 7,102,464 for the zero-inserted operand ("78.0 GFLOP").
        CHECK(close(c, 78'040'817'664.0));
        CHECK(c / p > 4.0);
        CHECK(c / p < 4.5);
    }
}

TEST_CASE("13.4: the weight update scales with PPP (compat always uses PPP 1)") {
    const network net = zoo::alexnet();
    const device dev = test_device();
    const cost_context ctx{dev, 128};
    const double params = static_cast<double>(net.parameter_count());
    // SGD: 2 FLOPs per parameter, reads w and g, writes w (12 B per parameter):
    // 2 P / 1e12 + 12 P / 1e11.
    const double at_one = 2 * params / 1e12 + 12 * params / 1e11;
    const weights all{net.parameter_count(), net.parameter_tensor_count()};
    CHECK(close(cost::paleo{}.update(all, ctx).total().value(), at_one));
    const cost::paleo half{.ppp_compute = ratio_of(0.5), .ppp_memory = ratio_of(0.5)};
    CHECK(close(half.update(all, ctx).total().value(), 2 * at_one));
    // PALEO evaluates the update with default options (section 5.2): ppp_comp has no effect.
    const cost::paleo_compat compat_half{.ppp_compute = ratio_of(0.5)};
    CHECK(compat_half.update(all, ctx).total() == cost::paleo_compat{}.update(all, ctx).total());
}

TEST_CASE("13.3: separate compute and memory PPP (compat scales memory by ppp_comp)") {
    // conv2 of AlexNet (5x5 SAME, 27x27x64 -> 27x27x192) at batch 32: large enough that no floor binds.
    network net;
    net.add("data", ops::input{tensor_shape::image(27, 27, 64)});
    net.add("relu", ops::activation{}, {"data"});
    net.add("conv2", conv(192, 5, 1, ops::padding::same()), {"relu"});
    const device dev = test_device();
    for (pass ps : {pass::forward, pass::backward}) {
        const auto base = cost_of(cost::paleo{}, net, "conv2", ps, dev, 32);
        const auto mem = cost_of(cost::paleo{.ppp_memory = ratio_of(0.5)}, net, "conv2", ps, dev, 32);
        CHECK(close(mem.fetch.value(), 2 * base.fetch.value()));
        CHECK(close(mem.write.value(), 2 * base.write.value()));
        CHECK(mem.compute == base.compute);
        const auto comp = cost_of(cost::paleo{.ppp_compute = ratio_of(0.5)}, net, "conv2", ps, dev, 32);
        CHECK(close(comp.compute.value(), 2 * base.compute.value()));
        CHECK(comp.fetch == base.fetch);
        CHECK(comp.write == base.write);
        // compat (section 3): ppp_comp divides local memory time as well as compute.
        const auto cb = cost_of(cost::paleo_compat{}, net, "conv2", ps, dev, 32);
        const auto ch = cost_of(cost::paleo_compat{.ppp_compute = ratio_of(0.5)}, net, "conv2", ps, dev, 32);
        CHECK(close(ch.compute.value(), 2 * cb.compute.value()));
        CHECK(close(ch.fetch.value(), 2 * cb.fetch.value()));
    }
}

TEST_CASE("paleo: a layer with parameters has a weight gradient even when fed by the input") {
    // No framework back-propagates into the input data (cost/work.hpp), but batch normalization's scale
    // and shift (2 per channel) still get gradients: reductions over the batch of dy and dy * x-hat.
    network net;
    net.add("data", ops::input{tensor_shape::image(8, 8, 16)});
    net.add("bn", ops::batch_norm{}, {"data"});
    REQUIRE(net.at("bn").parameters == 32);
    CHECK(cost_of(cost::paleo{}, net, "bn", pass::backward, test_device(), 2).total().value() > 0);
}

TEST_CASE("settings outside the model's domain are refused with the documented error type") {
    const network net = zoo::alexnet();
    // error.hpp: invalid_argument is "a request outside what the library accepts (batch, PPP, precision...)".
    // Checking the final step time is not enough: a negative memory PPP with a positive compute PPP can
    // still sum to a positive, plausible, wrong time.
    for (double ppp : {0.0, -0.5}) {
        INFO("ppp " << ppp);
        CHECK_THROWS_AS(estimate(net, test_device(), cost::paleo{.ppp_compute = ratio_of(ppp)}), invalid_argument);
        CHECK_THROWS_AS(estimate(net, test_device(), cost::paleo{.ppp_memory = ratio_of(ppp)}), invalid_argument);
        CHECK_THROWS_AS(estimate(net, test_device(), cost::paleo_compat{.ppp_compute = ratio_of(ppp)}), invalid_argument);
    }
    CHECK_THROWS_AS(estimate(net, test_device(), cost::roofline{.launch_overhead = seconds_of(-1e-6)}), invalid_argument);
    // error.hpp: invalid_device is "a device spec that cannot be used: non-positive or non-finite rates".
    device zero = test_device();
    zero.peak.fp32 = flops_per_second_of(0);
    CHECK_THROWS_AS(estimate(net, zero, cost::paleo{}), invalid_device);
    device nan = test_device();
    nan.memory_bandwidth = bytes_per_second_of(std::nan(""));
    CHECK_THROWS_AS(estimate(net, nan, cost::paleo{}), invalid_device);
}

// ---------------------------------------------------------------------------------------------------
// roofline

TEST_CASE("roofline: per kernel max(compute, memory) + launch overhead") {
    network net;
    net.add("data", ops::input{tensor_shape::image(28, 28, 256)});
    net.add("relu", ops::activation{}, {"data"});
    net.add("conv", conv(256, 3, 1, ops::padding::same()), {"relu"});
    const device dev = test_device();
    const cost::roofline zero{.launch_overhead = seconds_of(0)};
    const cost::roofline five{};  // 5 us per kernel (its default)

    // Forward conv, batch 4: 2 * 3*3*256 * 28*28*256 * 4 + 28*28*256*4 bias = 3,699,376,128 + 802,816
    // = 3,700,178,944 FLOPs -> 3.70 ms at 1e12; bytes 4 (x + w + y) = 4 (802,816 + 590,080 + 802,816)
    // = 8,782,848 -> 87.8 us at 1e11. Compute-bound.
    const auto conv_fwd = cost_of(zero, net, "conv", pass::forward, dev, 4);
    CHECK(close(conv_fwd.total().value(), 3'700'178'944 / 1e12));
    CHECK(close(conv_fwd.traffic.value(), 8'782'848.0));
    CHECK(close(cost_of(five, net, "conv", pass::forward, dev, 4).total().value(), 3'700'178'944 / 1e12 + 5e-6));
    // Forward ReLU: 802,816 FLOPs (0.8 us) vs 2 * 4 * 802,816 = 6,422,528 B (64.2 us). Memory-bound.
    CHECK(close(cost_of(zero, net, "relu", pass::forward, dev, 4).total().value(), 6'422'528 / 1e11));
    // Backward conv = two kernels (data and weight gradients), each with its own overhead.
    const auto bz = cost_of(zero, net, "conv", pass::backward, dev, 4);
    CHECK(close(cost_of(five, net, "conv", pass::backward, dev, 4).total().value(), bz.total().value() + 10e-6));
    CHECK(close(bz.total().value(), cost_of(zero, net, "conv", pass::backward_data, dev, 4).total().value() +
                                        cost_of(zero, net, "conv", pass::backward_weights, dev, 4).total().value()));
    // The input layer launches nothing.
    CHECK(cost_of(five, net, "data", pass::forward, dev, 4).total().value() == 0);
}

TEST_CASE("roofline without overhead never exceeds paleo's fetch + compute + write, layer by layer") {
    // max(a, b) <= a + b for the same work at the same PPP.
    const device& dev = devices::get("paleo:TITAN_X");
    const cost::roofline roof{.launch_overhead = seconds_of(0)};
    for (const network& net : {zoo::alexnet(), zoo::vgg16(), io::load_paleo_json(path("data/nets/paleo/inception_v3.json"))})
        for (auto v : net.vertices())
            for (pass ps : {pass::forward, pass::backward}) {
                INFO(net.name() << " " << net[v].name);
                const cost_context ctx{dev, 32};
                const auto r = roof.layer(net, v, ps, ctx), p = cost::paleo{}.layer(net, v, ps, ctx);
                CHECK(r.total() <= p.total());
                CHECK(r.work == p.work);
            }
}

// ---------------------------------------------------------------------------------------------------
// kernel: per-operator-class efficiency, tile and wave quantization, tensor-core alignment.

TEST_CASE("kernel: each pass is a kernel on the roofline at its operator class's efficiency") {
    network net;
    net.add("data", ops::input{tensor_shape::image(28, 28, 256)});
    net.add("relu", ops::activation{}, {"data"});
    net.add("conv", conv(256, 3, 1, ops::padding::same()), {"relu"});
    net.add("conv_s2", conv(256, 3, 2, ops::padding::same()), {"conv"});
    const device dev = test_device();  // no SM count: no quantization
    const cost::kernel k{};            // defaults: matmul 0.94 on CUDA cores (no SM count: 64 lanes), Winograd 1.5 (3x3), memory 0.8, 5 us
    // ReLU, batch 4: 6,422,528 B (see the roofline case) at 0.8 x 1e11 B/s, plus one launch.
    CHECK(close(cost_of(k, net, "relu", pass::forward, dev, 4).total().value(), 6'422'528 / 0.8e11 + 5e-6));
    // 3x3 stride-1 conv, batch 4: 3,700,178,944 FLOPs at 1e12 x 0.94 x 1.5 (Winograd), against 8,782,848 B
    // at 0.8e11 (110 us): compute-bound. Its bias is a kernel of its own: 28*28*256*4 outputs read and
    // written in FP32 (2 x 3,211,264 B) at 0.8e11, and a second launch.
    const double bias_add = 2 * 3'211'264 / 0.8e11 + 5e-6;
    CHECK(close(cost_of(k, net, "conv", pass::forward, dev, 4).total().value(),
                3'700'178'944 / (1e12 * 0.94 * 1.5) + 5e-6 + bias_add));
    // Stride 2 has no Winograd: 14x14 outputs, 2 * 2304 * 14*14*256 * 4 + 14*14*256*4 = 925,044,736 FLOPs at
    // 0.94e12, and a bias add over a quarter of the bytes.
    CHECK(close(cost_of(k, net, "conv_s2", pass::forward, dev, 4).total().value(),
                925'044'736 / 0.94e12 + 5e-6 + 2 * 802'816 / 0.8e11 + 5e-6));
    // Backward: three kernels (data and weight gradients, the bias gradient), three launches.
    CHECK(close(cost_of(k, net, "conv", pass::backward, dev, 4).overhead.value(), 15e-6));
    // 5x5 stride 1: Winograd's F(2x2,5x5) saves 100/36 against F(2x2,3x3)'s 36/16, so 1.5 x (100/36) /
    // (36/16) = 1.85185x. 2 * 6400 * 28*28*256 * 4 + 28*28*256*4 = 10,276,847,616 FLOPs at 0.94e12 x that,
    // against 3,211,264 + 1,638,656 * 4 + 3,211,264 = 12,977,152 B at 0.8e11: compute-bound. 5x5 stride 2
    // gets none: a plain GEMM.
    network wide;
    wide.add("data", ops::input{tensor_shape::image(28, 28, 256)});
    wide.add("conv5", conv(256, 5, 1, ops::padding::same()), {"data"});
    wide.add("conv5_s2", conv(256, 5, 2, ops::padding::same()), {"conv5"});
    const double saving_5x5 = 1.5 * (100.0 / 36) / (36.0 / 16);
    CHECK(close(cost_of(k, wide, "conv5", pass::forward, dev, 4).total().value(),
                10'276'847'616 / (1e12 * 0.94 * saving_5x5) + 5e-6 + bias_add));
    // 14x14 outputs: 2 * 6400 * 14*14*256 * 4 + 14*14*256*4 = 2,569,211,904 FLOPs at 0.94e12.
    CHECK(close(cost_of(k, wide, "conv5_s2", pass::forward, dev, 4).total().value(),
                2'569'211'904 / 0.94e12 + 5e-6 + 2 * 802'816 / 0.8e11 + 5e-6));
    // The update: SGD reads w and g and writes w in FP32 (12 B per parameter), memory-bound, plus a launch
    // and the host's per-step overhead.
    cost::kernel host = k;
    host.host_overhead = milliseconds_of(2);
    const std::int64_t params = 1'000'000;
    CHECK(close(host.update(weights{params, 2}, cost_context{dev, 4}).total().value(), 12e6 / 0.8e11 + 5e-6 + 2e-3));
}

TEST_CASE("kernel: the optimizer's update, a kernel per operation or one fused pass") {
    const device dev = test_device();  // 100 GB/s: memory-bound at 0.8e11 B/s
    const weights w{1'000'000, 100};
    const auto update = [&](cost::optimizer o, cost::update_kernels k, element_type e = element_type::fp32) {
        return cost::kernel{.update_rule = o, .update_launch = k}.update(w, cost_context{dev, 1, e}).total().value();
    };
    using enum cost::update_kernels;
    // Fused: SGD reads w, g and writes w; momentum also reads and writes v; Adam reads w, g, m, v and writes w,
    // m, v (work.hpp): 3, 5 and 7 tensors of 4 B per parameter, and a launch.
    CHECK(close(update(cost::optimizer::sgd, fused), 3 * 4e6 / 0.8e11 + 5e-6));
    CHECK(close(update(cost::optimizer::momentum, fused), 5 * 4e6 / 0.8e11 + 5e-6));
    CHECK(close(update(cost::optimizer::adam, fused), 7 * 4e6 / 0.8e11 + 5e-6));
    // A kernel per operation (PyTorch's foreach, the default), each reading and writing its tensors: SGD's one
    // add_ as before; momentum's mul_, add_, add_ 8 + 12 + 12 = 32 B and 3 launches; Adam's lerp_, mul_,
    // addcmul_, sqrt, div_, add_, addcdiv_ 12 + 8 + 12 + 8 + 8 + 8 + 16 = 72 B and 7 launches.
    CHECK(close(update(cost::optimizer::sgd, foreach), update(cost::optimizer::sgd, fused)));
    CHECK(close(update(cost::optimizer::momentum, foreach), 32e6 / 0.8e11 + 3 * 5e-6));
    CHECK(close(update(cost::optimizer::adam, foreach), 72e6 / 0.8e11 + 7 * 5e-6));
    // In FP16 the loss scaler unscales the gradients first (8 B and a launch), and the host issues the kernels
    // only after reading its overflow flag: 100 tensors x 4 kernels x 2.5 us = 1 ms of host work, longer than
    // momentum's 0.5 ms of GPU work; on 1e9 parameters the GPU's 500 ms hold instead.
    CHECK(close(update(cost::optimizer::momentum, foreach, element_type::fp16), 100 * 4 * 2.5e-6));
    const weights large{1'000'000'000, 100};
    CHECK(close(cost::kernel{.update_rule = cost::optimizer::momentum}.update(large, cost_context{dev, 1, element_type::fp16})
                    .total().value(),
                40e9 / 0.8e11 + 4 * 5e-6));
    // BF16 scales no loss: the GPU's time alone.
    CHECK(close(update(cost::optimizer::momentum, foreach, element_type::bf16), 32e6 / 0.8e11 + 3 * 5e-6));
    CHECK(cost::parse_update_kernels("fused") == fused);
    CHECK(cost::parse_update_kernels(cost::to_string(foreach)) == foreach);
    CHECK(cost::parse_update_kernels("for-loop") == std::nullopt);
    for (const auto o : {cost::optimizer::sgd, cost::optimizer::momentum, cost::optimizer::adam})
        CHECK(cost::parse_optimizer(cost::to_string(o)) == o);
    CHECK(cost::parse_optimizer("Adam") == std::nullopt);
}

TEST_CASE("kernel: utilization of a GEMM, by hand") {
    const cost::kernel k{};  // tiles 128 and 64
    device dev = test_device();
    dev.sm_count = 80;
    // 12288 x 128: 96 tiles of 128 on 80 SMs are 1.2 waves that cost 2 (96/160 = 0.6); 384 tiles of 64 are
    // 4.8 waves that cost 5 (384/400 = 0.96). The better: 0.96.
    CHECK(close(k.utilization({12288, 128, 4096, 1}, dev), 0.96));
    // DeepBench's 1760 x 128 x 1760 on a V100's 80 SMs. 128-tiles: 14 x 1, filled 1760*128 / (14*128*128)
    // = 0.98214; 14 tiles split-K 5 ways (floor(80/14)) = 70 of 80 SMs: 0.98214 * 0.875 = 0.859375.
    // 64-tiles: 28 x 2 = 56 tiles, no split (floor(80/56) = 1), 0.98214 * 0.7. The better: 0.859375.
    CHECK(close(k.utilization({1760, 128, 1760, 1}, dev), 1760.0 * 128 / (14 * 128 * 128) * 70 / 80));
    // A 16-wide matrix fills a quarter of a 64-wide tile.
    CHECK(close(k.utilization({64 * 80, 16, 4096, 1}, dev), 0.25));
    // 32 groups of 4 x 4 tiles of 64 (a grouped convolution's one launch): 512 tiles, 6.4 waves that cost 7.
    CHECK(close(k.utilization({256, 256, 4096, 32}, dev), 512.0 / 560));
    // Without an SM count, no quantization.
    CHECK(k.utilization({1, 1, 1, 1}, test_device()) == 1);
}

TEST_CASE("kernel: a convolution's data gradient is an implicit GEMM over its input pixels") {
    // ResNeXt's grouped 3x3 convolution, 32 groups of 4 channels in and out, on 80 SMs, batch 8. The data
    // gradient's GEMM per group is [N*H*W x K*R*S][K*R*S x C] (CUTLASS's implicit GEMM convolution):
    // 4 columns, a sixteenth of a 64-wide tile, as the forward GEMM's 4 output channels. With as many channels
    // in as out and the same pixels in and out, both passes move the same bytes and do the same FLOPs, so they
    // take the same time. (The 3x3 stride-1 convolutions of the H100's conv_layers.csv, summed: the data
    // gradients took 1.01-1.09x the forward time, grouped ones 1.02-1.04x but 1.66x in FP32. Priced as the
    // im2col GEMM's transpose, 36 columns, the grouped ones came out at 0.13 of their measured time.)
    network net;
    net.add("data", ops::input{tensor_shape::image(56, 56, 128)});
    net.add("x", ops::passthrough{}, {"data"});
    net.add("grouped", zoo::detail::conv(128, {3, 3}, 1, {1, 1}, false, 32), {"x"});
    device dev = test_device();
    dev.sm_count = 80;
    const cost::kernel k{};
    // 8 * 56 * 56 = 25,088 rows: 392 tiles of 64 per group, 12,544 in all, 156.8 waves that cost 157; a
    // sixteenth filled.
    CHECK(close(k.utilization({25'088, 4, 36, 32}, dev), 12'544.0 / (157 * 80) / 16));
    const double forward = cost_of(k, net, "grouped", pass::forward, dev, 8).total().value();
    CHECK(close(cost_of(k, net, "grouped", pass::backward_data, dev, 8).total().value(), forward));
}

TEST_CASE("no data gradient for the input data, padded or not; a pad's gradient is a slice") {
    // The same 3x3 convolution of a 28x28x16 image padded by 1, by itself (explicit padding) and after a copy
    // into a 30x30 tensor (ops::pad, then VALID): the same forward and weight-gradient work and neither computes
    // a data gradient for the image. Behind a layer that is not data (the identity "x") both do.
    network net;
    net.add("data", ops::input{tensor_shape::image(28, 28, 16)});
    net.add("padded", zoo::detail::conv(32, {3, 3}, 1, {1, 1}, false), {"data"});
    net.add("pad", ops::pad{{1, 1, 0}, {1, 1, 0}}, {"data"});
    net.add("valid", zoo::detail::conv(32, {3, 3}, 1, {0, 0}, false), {"pad"});
    net.add("x", ops::passthrough{}, {"data"});
    net.add("x_pad", ops::pad{{1, 1, 0}, {1, 1, 0}}, {"x"});
    net.add("x_valid", zoo::detail::conv(32, {3, 3}, 1, {0, 0}, false), {"x_pad"});
    const device dev = test_device();
    const cost::roofline r{.launch_overhead = seconds{}};  // the bytes' time alone
    const auto cost = [&](const char* layer, pass p) { return cost_of(r, net, layer, p, dev, 4).total().value(); };
    CHECK(cost("padded", pass::forward) == cost("valid", pass::forward));
    CHECK(cost("padded", pass::backward_weights) == cost("valid", pass::backward_weights));
    CHECK(cost("padded", pass::backward_data) == 0);
    CHECK(cost("valid", pass::backward_data) == 0);
    CHECK(cost("pad", pass::backward_data) == 0);
    CHECK(cost("x_valid", pass::backward_data) > 0);
    // The pad behind "x" slices its gradient: 28*28*16*4 = 50,176 elements read and written, 4 B each, at the test
    // device's 1e11 B/s (the roofline at PPP 1); going forward it writes the 30*30*16*4 = 57,600 of the padded tensor.
    CHECK(close(cost("x_pad", pass::backward_data), 2 * 4 * 50'176 / 1e11));
    CHECK(close(cost("x_pad", pass::forward), 4 * (50'176 + 57'600) / 1e11));
}

TEST_CASE("kernel: with cudnn7 a 3x3 convolution on CUDA cores runs the faster of non-fused Winograd and its GEMM") {
    // 28x28 images, batch 4, no bias, on the test device (1 TFLOP/s at 0.94, no SM count: no quantization;
    // 1e11 B/s at 0.8). F(4x4,3x3) tiles each image 7 x 7 times: 196 tiles of 6x6.
    network net;
    net.add("data", ops::input{tensor_shape::image(28, 28, 256)});
    net.add("x", ops::passthrough{}, {"data"});
    net.add("wide", zoo::detail::conv(256, {3, 3}, 1, {1, 1}, false), {"x"});
    net.add("narrow_in", ops::input{tensor_shape::image(28, 28, 16)});
    net.add("narrow", zoo::detail::conv(16, {3, 3}, 1, {1, 1}, false), {"narrow_in"});
    const device dev = test_device();
    const cost::kernel cudnn7{.library = cost::conv_library::cudnn7};
    // 256 channels in and out. The GEMM: 2 * 2304 * 256 * 3136 = 3,699,376,128 FLOPs at 0.94e12 (no flat
    // Winograd factor with this library), 3.94 ms. Winograd's four kernels:
    // - 36 GEMMs [196 x 256][256 x 256]: 2 * 36 * 196 * 256^2 = 924,844,032 FLOPs at 0.94e12, against
    //   4 * 36 * (196 * 256 + 256^2) + 4 * 36 * 196 * 256 = 23,887,872 B at 0.8e11: compute-bound;
    // - the two tensors' transforms: each tensor (3136 * 256 elements) read or written once and 36 * 196 * 256
    //   tile elements of each written or read, 4 B each: 2 * 4 * (802,816 + 1,806,336) = 20,873,216 B, two launches;
    // - the filter's: 9 * 256^2 elements read, 36 * 256^2 written: 11,796,480 B.
    const double winograd = 924'844'032 / 0.94e12 + 20'873'216 / 0.8e11 + 11'796'480 / 0.8e11 + 4 * 5e-6;
    const layer_time w = cost_of(cudnn7, net, "wide", pass::forward, dev, 4);
    CHECK(close(w.total().value(), winograd));
    CHECK(w.kernels == 4);
    CHECK(w.work.value() == 3'699'376'128);  // the layer's own FLOPs, as counted
    // Its gradients tile the same 28x28 images with as many channels in as out: the same kernels' times (the
    // weight gradient's GEMMs [256 x 196][196 x 256] reduce over the tiles).
    CHECK(close(cost_of(cudnn7, net, "wide", pass::backward_data, dev, 4).total().value(), winograd));
    CHECK(close(cost_of(cudnn7, net, "wide", pass::backward_weights, dev, 4).total().value(), winograd));
    // Unpadded, 30x30 in and 28x28 out, the passes tile different images. Going forward the 196 tiles cover the
    // output, as above, and the tensor transforms move 4 * (900 * 4 * 256 + 2 * 1,806,336 + 784 * 4 * 256) =
    // 21,348,352 B. The data gradient tiles the 30x30 input, 8 x 8 tiles an image (256): its GEMMs do
    // 2 * 36 * 256 * 256^2 = 1,207,959,552 FLOPs (above their 28,311,552 B at 0.8e11), its transforms move
    // 4 * (784 * 4 * 256 + 2 * 36 * 256 * 256 + 900 * 4 * 256) = 25,772,032 B. (Their GEMMs: 3.9 and 4.5 ms.)
    net.add("data30", ops::input{tensor_shape::image(30, 30, 256)});
    net.add("x30", ops::passthrough{}, {"data30"});  // so that a data gradient flows into the convolution's input
    net.add("unpadded", zoo::detail::conv(256, {3, 3}, 1, {0, 0}, false), {"x30"});
    CHECK(close(cost_of(cudnn7, net, "unpadded", pass::forward, dev, 4).total().value(),
                924'844'032 / 0.94e12 + 21'348'352 / 0.8e11 + 11'796'480 / 0.8e11 + 4 * 5e-6));
    CHECK(close(cost_of(cudnn7, net, "unpadded", pass::backward_data, dev, 4).total().value(),
                1'207'959'552 / 0.94e12 + 25'772'032 / 0.8e11 + 11'796'480 / 0.8e11 + 4 * 5e-6));
    // cuDNN 9's flat share of the saving (1.5x the GEMM rate) instead:
    CHECK(close(cost_of(cost::kernel{}, net, "wide", pass::forward, dev, 4).total().value(),
                3'699'376'128 / (0.94e12 * 1.5) + 5e-6));
    // 16 channels: the GEMM, 2 * 144 * 16 * 3136 = 14,450,688 FLOPs at 0.94e12 (15 us, above its 410,624 B at
    // 0.8e11), beats Winograd's transforms (above 16 us of memory traffic and three launches alone).
    CHECK(close(cost_of(cudnn7, net, "narrow", pass::forward, dev, 4).total().value(), 14'450'688 / 0.94e12 + 5e-6));
}

TEST_CASE("kernel: a convolution's FP32 gradients on CUDA cores of wide SMs run below its forward rate") {
    // A 1x1 convolution of 128 channels in and out on 16x16 images, batch 8, no bias: every pass is a GEMM of
    // 2048 x 128 x 128 (2 * 2048 * 128 * 128 = 67,108,864 FLOPs), in whole tiles and waves on 4 or 8 SMs.
    // The test device's 1 TFLOP/s at 1000 MHz is 125 FP32 lanes per SM on 4 SMs (wide: 0.75), 62.5 on 8 (0.94).
    network net;
    net.add("data", ops::input{tensor_shape::image(16, 16, 128)});
    net.add("x", ops::passthrough{}, {"data"});
    net.add("pointwise", zoo::detail::conv(128, {1, 1}, 1, {0, 0}, false), {"x"});
    net.add("winograd", zoo::detail::conv(128, {3, 3}, 1, {1, 1}, false), {"x"});
    const cost::kernel k{};
    device wide = test_device();
    wide.sm_count = 4;
    const auto time = [&](const device& dev, const char* layer, pass p) {
        return k.layer(net, *net.find(layer), p, cost_context{dev, 8}).total().value();
    };
    const double flops = 67'108'864;
    // Forward: 16 tiles of 128 on 4 SMs, 4 whole waves, at 0.75e12 (against 2,162,688 B at 0.8e11: 27 us).
    CHECK(close(time(wide, "pointwise", pass::forward), flops / 0.75e12 + 5e-6));
    // The data gradient, [2048 x 128][128 x 128] too, at 1/1.34 of that (simt_wide_data_gradient).
    CHECK(close(time(wide, "pointwise", pass::backward_data), flops / (0.75e12 / 1.34) + 5e-6));
    // The weight gradient, [128 x 2048][2048 x 128]: one tile of 128 split 4 ways over the SMs, at 1/1.48 of the
    // rate (simt_wide_weight_gradient), then its 4 FP32 partials of 128 x 128 written and read back.
    CHECK(close(time(wide, "pointwise", pass::backward_weights),
                flops / (0.75e12 / 1.48) + 5e-6 + 2 * 4 * 128 * 128 * 4 / 0.8e11));
    // On 64-lane SMs the data gradient runs at the forward rate, as do FP16's kernels on CUDA cores (their
    // multiplications; FP16's forward pass adds the weights' cast) and Winograd's.
    device narrow = test_device();
    narrow.sm_count = 8;
    CHECK(close(time(narrow, "pointwise", pass::backward_data), time(narrow, "pointwise", pass::forward)));
    const auto fp16_compute = [&](pass p) {
        return k.layer(net, *net.find("pointwise"), p, cost_context{wide, 8, element_type::fp16}).compute.value();
    };
    CHECK(close(fp16_compute(pass::backward_data), fp16_compute(pass::forward)));
    CHECK(close(time(wide, "winograd", pass::backward_data), time(wide, "winograd", pass::forward)));
    // cudnn7's Winograd kernels: 8 x 4 x 4 = 128 tiles of 6x6, and 36 GEMMs [128 x 128][128 x 128] in every pass
    // (2 * 36 * 128^3 = 150,994,944 FLOPs at 0.75e12, above their 7,077,888 B at 0.8e11; 36 tiles, 9 whole waves),
    // with the same bytes around them, since as many channels go in as out. Its data gradient is a forward pass
    // of the transformed tensors; its weight gradient reduces over the batch's tiles, at 1/1.48 of the rate.
    const cost::kernel k7{.library = cost::conv_library::cudnn7};
    const auto time7 = [&](pass p) { return k7.layer(net, *net.find("winograd"), p, cost_context{wide, 8}); };
    REQUIRE(time7(pass::forward).kernels == 4);
    CHECK(close(time7(pass::backward_data).total().value(), time7(pass::forward).total().value()));
    CHECK(close(time7(pass::backward_weights).total().value() - time7(pass::forward).total().value(),
                150'994'944 / 0.75e12 * (1.48 - 1)));
}

TEST_CASE("kernel: cuDNN 9's FP32 convolutions on Hopper run below the wide SGEMM rate") {
    // The 1x1 convolution above (2048 x 128 x 128, 67,108,864 FLOPs a pass, whole tiles and waves on 4 wide SMs)
    // on a device of compute capability 9.0: at 0.68 of the wide rate (simt_conv_cudnn9_hopper), the gradients at
    // their own fractions of that.
    network net;
    net.add("data", ops::input{tensor_shape::image(16, 16, 128)});
    net.add("x", ops::passthrough{}, {"data"});
    net.add("pointwise", zoo::detail::conv(128, {1, 1}, 1, {0, 0}, false), {"x"});
    net.add("winograd", zoo::detail::conv(128, {3, 3}, 1, {1, 1}, false), {"x"});
    net.add("grouped", zoo::detail::conv(128, {1, 1}, 1, {0, 0}, false, 4), {"x"});
    // A 7x7 first layer on RGB: 2 * 2048 * 147 * 128 = 77,070,336 FLOPs, compute-bound like the others.
    net.add("rgb", ops::input{tensor_shape::image(16, 16, 3)});
    net.add("first", zoo::detail::conv(128, {7, 7}, 1, {3, 3}, false), {"rgb"});
    device hopper = test_device();
    hopper.sm_count = 4;
    hopper.compute_capability = cuda_compute_capability{9, 0};
    // The same wide SMs with GA100's and GB100's compute capabilities (not graphics dies): the wide SGEMM rate.
    device ampere = hopper, blackwell = hopper;
    ampere.compute_capability = cuda_compute_capability{8, 0};
    blackwell.compute_capability = cuda_compute_capability{10, 0};
    const auto time = [&](const cost::kernel& k, const device& dev, const char* layer, pass p,
                          element_type e = element_type::fp32) {
        return k.layer(net, *net.find(layer), p, cost_context{dev, 8, e}).total().value();
    };
    const cost::kernel k{};
    const double flops = 67'108'864;
    CHECK(close(time(k, hopper, "pointwise", pass::forward), flops / (0.75e12 * 0.68) + 5e-6));
    CHECK(close(time(k, hopper, "pointwise", pass::backward_data), flops / (0.75e12 * 0.68 / 1.34) + 5e-6));
    // The weight gradient, one tile split 4 ways, at 0.68 / 1.48, then its FP32 partials written and read back.
    CHECK(close(time(k, hopper, "pointwise", pass::backward_weights),
                flops / (0.75e12 * 0.68 / 1.48) + 5e-6 + 2 * 4 * 128 * 128 * 4 / 0.8e11));
    for (const device& other : {ampere, blackwell})
        CHECK(close(time(k, other, "pointwise", pass::forward), flops / 0.75e12 + 5e-6));
    // Not with cuDNN 7, nor under the flat Winograd share, nor for a grouped convolution or one whose 3 channels
    // fill no 16-byte load (other kernels), nor in FP16.
    const cost::kernel k7{.library = cost::conv_library::cudnn7};
    CHECK(close(time(k7, hopper, "pointwise", pass::forward), time(k7, ampere, "pointwise", pass::forward)));
    for (const char* layer : {"winograd", "grouped", "first"})
        CHECK(close(time(k, hopper, layer, pass::forward), time(k, ampere, layer, pass::forward)));
    CHECK(close(time(k, hopper, "pointwise", pass::forward, element_type::fp16),
                time(k, ampere, "pointwise", pass::forward, element_type::fp16)));
}

TEST_CASE("kernel: a TF32 convolution runs the faster of the tensor pipe and the CUDA cores' FP32 algorithm") {
    // The 3x3 stride-1 convolution of the roofline case, 28x28x256 to 256 channels, batch 4: 3,700,178,944 FLOPs,
    // compute-bound; NHWC, so that no transposes enter. The test device (no SM count: 64 lanes, 0.94) with a TF32
    // pipe at its FP32 rate, as GeForce Ampere's (GA102 whitepaper: the RTX 3090's 35.6 TFLOPS both): Winograd on
    // the CUDA cores, 1e12 x 0.94 x 1.5 = 1.41e12, beats the tensor pipe's 1e12 x 0.75, so TF32 prices as FP32.
    network net;
    net.add("data", ops::input{tensor_shape::image(28, 28, 256)});
    net.add("conv", conv(256, 3, 1, ops::padding::same()), {"data"});
    net.add("pointwise", conv(256, 1, 1, ops::padding::same()), {"conv"});
    const cost::kernel k{.layout = activation_layout::nhwc};
    device geforce = test_device();
    geforce.peak.tf32_tensor = flops_per_second_of(1e12);
    const auto time = [&](const cost::kernel& model, const device& dev, const char* layer, pass p, element_type e) {
        return model.layer(net, *net.find(layer), p, cost_context{dev, 4, e}).total().value();
    };
    const double bias_add = 2 * 3'211'264 / 0.8e11 + 5e-6;  // FP32 outputs read and written, and a launch
    CHECK(close(time(k, geforce, "conv", pass::forward, element_type::tf32),
                3'700'178'944 / (1e12 * 0.94 * 1.5) + 5e-6 + bias_add));
    // So does a 1x1 convolution, a GEMM on the CUDA cores at 0.94 against the tensor pipe's 0.75: 2 * 256 *
    // 28*28*256 * 4 + 28*28*256*4 = 411,844,608 FLOPs against 6,685,696 B at 0.8e11 (84 us): compute-bound.
    CHECK(close(time(k, geforce, "pointwise", pass::forward, element_type::tf32),
                411'844'608 / 0.94e12 + 5e-6 + bias_add));
    for (const char* layer : {"conv", "pointwise"})
        for (pass p : {pass::forward, pass::backward_data, pass::backward_weights})
            CHECK(close(time(k, geforce, layer, p, element_type::tf32), time(k, geforce, layer, p, element_type::fp32)));
    // A TF32 pipe at twice the FP32 rate (the A40's datasheet: 74.8 against 37.4) wins both: 2e12 x 0.75 = 1.5e12.
    device pro = geforce;
    pro.peak.tf32_tensor = flops_per_second_of(2e12);
    CHECK(close(time(k, pro, "conv", pass::forward, element_type::tf32), 3'700'178'944 / 1.5e12 + 5e-6 + bias_add));
    CHECK(close(time(k, pro, "pointwise", pass::forward, element_type::tf32), 411'844'608 / 1.5e12 + 5e-6 + bias_add));
    // The catalog's RTX 3090 in NCHW (a graphics die's wide SMs, 0.68; cuDNN 9 transposes around the tensor pipe):
    // the 3x3 convolution's Winograd on the CUDA cores, 0.68 x 1.5 = 1.02 of the 35.6 TFLOPS both pipes have, against
    // the tensor pipe's 0.75 and its transposes, in every pass.
    const device& rtx3090 = devices::get("rtx-3090");
    const cost::kernel nchw{};
    for (pass p : {pass::forward, pass::backward_data, pass::backward_weights})
        CHECK(close(time(nchw, rtx3090, "conv", p, element_type::tf32), time(nchw, rtx3090, "conv", p, element_type::fp32)));
}

TEST_CASE("kernel: a TF32 convolution's weight gradient on the tensor pipe transposes its activations") {
    // A 1x1 convolution, 28x28x256 to 256 channels at batch 4 in NHWC, no bias: 2 x 4*28*28 x 256 x 256 =
    // 411,041,792 FLOPs a pass against 6.7 MB (84 us at 0.8e11), compute-bound. The test device with TF32 and
    // FP16 tensor pipes at 2e12 (no SM count: whole tiles): 2e12 x 0.75 = 1.5e12 forward and for the data
    // gradient; the weight gradient at 1.5e12 / 1.39 (tf32_weight_gradient_slowdown), 381 us, still ahead of the
    // CUDA cores' 411,041,792 / 0.94e12 = 437 us.
    network net;
    net.add("data", ops::input{tensor_shape::image(28, 28, 256)});
    net.add("x", ops::passthrough{}, {"data"});
    net.add("pointwise", zoo::detail::conv(256, {1, 1}, 1, {0, 0}, false), {"x"});
    device dev = test_device();
    dev.peak.tf32_tensor = dev.peak.fp16_tensor = flops_per_second_of(2e12);
    const cost::kernel k{.layout = activation_layout::nhwc};
    const auto time = [&](const device& d, pass p, element_type e) {
        return k.layer(net, *net.find("pointwise"), p, cost_context{d, 4, e}).total().value();
    };
    const double flops = 411'041'792;
    CHECK(close(time(dev, pass::forward, element_type::tf32), flops / 1.5e12 + 5e-6));
    CHECK(close(time(dev, pass::backward_data, element_type::tf32), flops / 1.5e12 + 5e-6));
    CHECK(close(time(dev, pass::backward_weights, element_type::tf32), flops / (1.5e12 / 1.39) + 5e-6));
    // 16-bit operands have transposing loads: FP16's weight gradient runs at its forward rate.
    CHECK(close(time(dev, pass::backward_weights, element_type::fp16), time(dev, pass::forward, element_type::fp16)));
    // A tcgen05 GPU's (compute capability 10.x), which the slowdown was not measured on, keeps the GEMM's rate.
    device blackwell = dev;
    blackwell.compute_capability = cuda_compute_capability{10, 0};
    CHECK(close(time(blackwell, pass::backward_weights, element_type::tf32), flops / 1.5e12 + 5e-6));
}

TEST_CASE("kernel: a GeForce board's half-rate FP16 and BF16 tensor pipe reaches its rated peak") {
    // A 1x1 convolution without bias, 512 to 512 channels at 28x28, batch 64, in NHWC: 2 * 512 * 512 * 784 * 64 =
    // 26,306,674,688 FLOPs against 2 x 25,690,112 FP16 activations and 262,144 weights (103 MB, 138 us at 0.8 x
    // 936 GB/s): compute-bound on the RTX 3090's tensor pipe at either efficiency (370 us at 1.0, 493 at 0.75,
    // before waves; the compute time compared below leaves out the FP16 weights' cast, a memory-bound kernel of
    // its own). Its FP16 and BF16 peaks (FP32 accumulation, 71.2 TFLOPS) are 512 FLOPs an SM and cycle (82 SMs,
    // 1695 MHz), which it reaches whole (tensor_matmul_half_rate). The same board with the pro GA102's full rate
    // (twice the peak, the A40's 1024 an SM and cycle) reaches 0.75 of it; so do SMs of compute capability 8.0
    // (GA100's, not GeForce's) and 7.5 (Turing's, which no GEMM measured here checks) at the half rate, where GeForce
    // Blackwell's (12.0) reach it as GA10x's do, and at the full rate 0.75 as the RTX PRO 6000 Blackwell's would. The
    // tiles and waves are the same on all.
    network net;
    net.add("data", ops::input{tensor_shape::image(28, 28, 512)});
    net.add("pointwise", zoo::detail::conv(512, {1, 1}, 1, {0, 0}, false), {"data"});
    const cost::kernel k{.layout = activation_layout::nhwc};
    const auto busy = [&](const device& dev, element_type e) {
        return k.layer(net, *net.find("pointwise"), pass::forward, cost_context{dev, 64, e}).compute.value();
    };
    const device& geforce = devices::get("rtx-3090");
    CHECK(close(geforce.peak.fp16_tensor->value() / (*geforce.sm_count * quoted_clock(geforce).value()), 512.0, 1e-3));
    device full_rate = geforce;
    full_rate.peak.fp16_tensor = *geforce.peak.fp16_tensor * 2.0;
    full_rate.peak.bf16_tensor = *geforce.peak.bf16_tensor * 2.0;
    device ga100_sm = geforce, turing_sm = geforce, blackwell_sm = geforce;
    ga100_sm.compute_capability = cuda_compute_capability{8, 0};
    turing_sm.compute_capability = cuda_compute_capability{7, 5};
    blackwell_sm.compute_capability = cuda_compute_capability{12, 0};
    device pro_blackwell_sm = full_rate;
    pro_blackwell_sm.compute_capability = cuda_compute_capability{12, 0};
    for (element_type e : {element_type::fp16, element_type::bf16}) {
        CHECK(close(busy(full_rate, e) / busy(geforce, e), 1.0 / (2 * 0.75)));
        CHECK(close(busy(ga100_sm, e) / busy(geforce, e), 1.0 / 0.75));
        CHECK(close(busy(turing_sm, e) / busy(geforce, e), 1.0 / 0.75));
        CHECK(close(busy(blackwell_sm, e) / busy(geforce, e), 1.0));
        CHECK(close(busy(pro_blackwell_sm, e) / busy(geforce, e), 1.0 / (2 * 0.75)));
    }
}

TEST_CASE("kernel: Kepler's 48-lane schedulers and the graphics dies' SMs reach less of the FP32 peak in GEMMs") {
    // A [2048 x 128][128 x 128] GEMM (a 1x1 convolution, batch 8 of 16x16 images: 67,108,864 FLOPs), 16 tiles of
    // 128 in 4 whole waves on 4 SMs. At 1.536 TFLOP/s and 1000 MHz those SMs have 1.536e12 / (2 x 4 SMs x 1e9 x 4)
    // = 48 lanes a scheduler, Kepler's: 0.65 of the peak (simt_matmul_dual_issue), where the test device's 1 TFLOP/s
    // on 4 SMs (31.25 lanes a scheduler) reaches 0.75.
    network net;
    net.add("data", ops::input{tensor_shape::image(16, 16, 128)});
    net.add("pointwise", zoo::detail::conv(128, {1, 1}, 1, {0, 0}, false), {"data"});
    device kepler = test_device();
    kepler.sm_count = 4;
    kepler.peak.fp32 = flops_per_second_of(1.536e12);
    const auto time = [&](const device& dev) {
        return cost::kernel{}.layer(net, *net.find("pointwise"), pass::forward, cost_context{dev, 8}).total().value();
    };
    CHECK(close(time(kepler), 67'108'864 / (1.536e12 * 0.65) + 5e-6));
    device wide = test_device();  // 31.25 lanes a scheduler on 4 SMs: wide, as Maxwell's 32
    wide.sm_count = 4;
    CHECK(close(time(wide), 67'108'864 / 0.75e12 + 5e-6));
    // The catalog's K80 die: 2496 lanes on 13 SMs at its 875 MHz boost, 4.37 TFLOP/s, is such an SM.
    const device& k80 = devices::get("k80");
    CHECK(close(k80.peak.fp32.value() / (2 * *k80.sm_count * quoted_clock(k80).value() * 4), 48.0));
    // Those 31.25-lane SMs reach 0.68 (simt_matmul_graphics) with the compute capability of GA10x, Ada or GB20x
    // (8.6, 8.9, 12.0), and keep 0.75 with a compute die's, GA100's (8.0) or GB100's (10.0); GH100's (9.0) has its own
    // rule for cuDNN 9's FP32 convolutions.
    for (auto cc : {cuda_compute_capability{8, 6}, cuda_compute_capability{8, 9}, cuda_compute_capability{12, 0}}) {
        wide.compute_capability = cc;
        CHECK(close(time(wide), 67'108'864 / 0.68e12 + 5e-6));
    }
    for (auto cc : {cuda_compute_capability{8, 0}, cuda_compute_capability{10, 0}}) {
        wide.compute_capability = cc;
        CHECK(close(time(wide), 67'108'864 / 0.75e12 + 5e-6));
    }
}

TEST_CASE("kernel: in NCHW a first layer's weight gradient gathers its image an element a load") {
    // A 7x7 convolution of 64 filters on 16x16 RGB images, batch 8, no bias: 3 FP32 channels (12 bytes) fill no
    // 16-byte load. Its weight gradient is [64 x 2048][2048 x 147], 2 * 64 * 147 * 2048 = 38,535,168 FLOPs.
    network net;
    net.add("rgb", ops::input{tensor_shape::image(16, 16, 3)});
    ops::conv2d c = conv(64, 7, 1, ops::padding::same());
    c.bias = false;
    net.add("first", c, {"rgb"});
    const auto compute = [&](const cost::kernel& k, const device& dev, pass p, const char* layer = "first") {
        return k.layer(net, *net.find(layer), p, cost_context{dev, 8}).compute.value();
    };
    const double flops = 38'535'168;
    const cost::kernel nchw{};
    // 3 instructions per FFMA (gathered_weight_gradient_instructions): the test device's 16-lane schedulers (no
    // SM count: no quantization) hold each FFMA two cycles, 3 cycles for 2 of the peak's: 2/3 of 1 TFLOP/s.
    const device narrow = test_device();
    CHECK(close(compute(nchw, narrow, pass::backward_weights), flops / (1e12 * 2 / 3)));
    // Going forward, and in NHWC (the 3 channels side by side), the matmul rate, 0.94.
    CHECK(close(compute(nchw, narrow, pass::forward), flops / 0.94e12));
    cost::kernel nhwc{};
    nhwc.layout = activation_layout::nhwc;
    CHECK(close(compute(nhwc, narrow, pass::backward_weights), flops / 0.94e12));
    // A wide SM's schedulers (4 SMs of 125 lanes at 1000 MHz) issue an FFMA a cycle: 1/3 of the peak, on the
    // machine share the GEMM's tiles keep busy.
    device wide = test_device();
    wide.sm_count = 4;
    // [64 x 2048][2048 x 147] in 64-wide tiles: 3 of them on 4 SMs, 64 * 147 / (64 * 192) of each filled.
    CHECK(close(compute(nchw, wide, pass::backward_weights), flops / (1e12 / 3 * 0.57421875)));
    // A grouped convolution of one channel a group (8 of 8 filters each) keeps its GEMM's rate: the H100's ResNeXt
    // layers of 4 FP16 channels a group did. 8 * 2 * 8 * 49 * 2048 = 12,845,056 FLOPs at 0.94e12.
    net.add("planes", ops::input{tensor_shape::image(16, 16, 8)});
    ops::conv2d grouped = conv(64, 7, 1, ops::padding::same());
    grouped.bias = false;
    grouped.groups = 8;
    net.add("grouped", grouped, {"planes"});
    CHECK(close(compute(nchw, narrow, pass::backward_weights, "grouped"), 12'845'056 / 0.94e12));
}

TEST_CASE("kernel: a split-K GEMM writes its partial products and reads them back") {
    network net;
    net.add("data", ops::input{tensor_shape::features(1760)});
    net.add("fc", ops::dense{.outputs = 1760}, {"data"});
    device dev = test_device();  // 1 TFLOP/s on 64-lane SMs (0.94), 1e11 B/s
    dev.sm_count = 80;
    const cost::kernel k{};
    // Batch 128: the forward GEMM is 128 x 1760 x 1760, 14 tiles of 128 split 5 ways on 80 SMs (utilization
    // 0.859375, as in the case above). 2 * 1760 * 1760 * 128 + 128 * 1760 (bias) = 793,210,880 FLOPs, then
    // 5 FP32 partials of 128 x 1760 (4,505,600 B) written and read back at 0.8e11 B/s.
    CHECK(k.plan({128, 1760, 1760, 1}, dev).split == 5);
    CHECK(close(cost_of(k, net, "fc", pass::forward, dev, 128).total().value(),
                793'210'880 / (0.94e12 * 0.859375) + 5e-6 + 2 * 4'505'600 / 0.8e11));
    // On 14 SMs the 14 tiles are one whole wave: no split, and only the multiplications.
    dev.sm_count = 14;
    CHECK(k.plan({128, 1760, 1760, 1}, dev).split == 1);
    CHECK(close(cost_of(k, net, "fc", pass::forward, dev, 128).total().value(),
                793'210'880 / (0.94e12 * 1760.0 * 128 / (14 * 128 * 128)) + 5e-6));
}

TEST_CASE("kernel: tensor cores for aligned channels in half precision, CUDA cores otherwise") {
    const device& v100 = devices::get("v100-sxm2-16gb");  // 15.7 FP32, 31.4 FP16 SIMT, 125 FP16 tensor TFLOP/s
    network net;
    net.add("data", ops::input{tensor_shape::image(56, 56, 512)});
    net.add("x", ops::passthrough{}, {"data"});
    net.add("rgb", ops::input{tensor_shape::image(56, 56, 3)});
    ops::conv2d c = conv(512, 1, 1, ops::padding::same());
    c.bias = false;
    net.add("aligned", c, {"x"});  // 512 input channels, 1x1
    ops::conv2d first = conv(64, 7, 1, ops::padding::same());
    first.bias = false;
    net.add("odd", first, {"rgb"});  // 3 input channels, 7x7
    const cost::kernel k{.launch_overhead = seconds_of(0)};
    const auto compute = [&](const char* layer, element_type p) {
        return k.layer(net, *net.find(layer), pass::forward, cost_context{v100, 256, p}).compute.value();
    };
    const double rows = 256.0 * 56 * 56;
    // Both are compute-bound: 1x1, 2 * 512 * 512 * rows = 4.2e11 FLOPs against 2 x 822 MB of FP16 (2.3 ms
    // at 720 GB/s); 7x7, 2 * 147 * 64 * rows = 1.5e10 FLOPs against 103 MB of output.
    const double aligned = 2 * 512.0 * 512 * rows, odd = 2 * 147.0 * 64 * rows;
    const auto u = [&](double out, double in) { return k.utilization({rows, out, in, 1}, v100); };
    CHECK(close(compute("aligned", element_type::fp16), aligned / (125e12 * 0.75 * u(512, 512))));
    // The V100's SMs have 64 FP32 lanes (15.7e12 / (2 x 80 x 1.53 GHz)): SGEMM's 0.94.
    CHECK(close(compute("aligned", element_type::fp32), aligned / (15.7e12 * 0.94 * u(512, 512))));
    // 3 channels: FP16 on the SIMT pipe, at the CUDA-core matmul efficiency.
    CHECK(close(compute("odd", element_type::fp16), odd / (31.4e12 * 0.94 * u(64, 147))));
    // An H100's SMs have 128 (66.9e12 / (2 x 132 x 1.98 GHz)): every instruction but FFMA takes an FFMA's
    // issue slot, 0.75 (with cuDNN 7's kernels; cuDNN 9's reach 0.68 of that on Hopper: simt_conv_cudnn9_hopper).
    const device& h100 = devices::get("h100-sxm5-80gb");
    const auto h100_fp32 = [&](const cost::kernel& with) {
        return with.layer(net, *net.find("aligned"), pass::forward, cost_context{h100, 256, element_type::fp32})
            .compute.value();
    };
    const double h100_rate = 66.9e12 * 0.75 * k.utilization({rows, 512, 512, 1}, h100);
    CHECK(close(h100_fp32(cost::kernel{.library = cost::conv_library::cudnn7}), aligned / h100_rate));
    CHECK(close(h100_fp32(k), aligned / (h100_rate * 0.68)));
    // A P100's SMs have 64 lanes too (10.6e12 / (2 x 56 x 1.48 GHz)), but in two schedulers of 32 (compute
    // capability 6.0, the GP100 whitepaper), so an FFMA issues every cycle there as well: 0.75, not the V100's 0.94.
    const device& p100 = devices::get("p100-sxm2-16gb");
    const double p100_fp32 = k.layer(net, *net.find("aligned"), pass::forward, cost_context{p100, 256, element_type::fp32})
                                 .compute.value();
    CHECK(close(p100_fp32, aligned / (10.6e12 * 0.75 * k.utilization({rows, 512, 512, 1}, p100))));
}

TEST_CASE("kernel: tensor cores take channels that fill whole 16-byte loads: 4 in TF32, 8 in FP16") {
    device h100 = devices::get("h100-sxm5-80gb");
    h100.memory_bandwidth = bytes_per_second_of(1e18);  // so that 4 channels are compute-bound, on either pipe
    network net;
    net.add("data", ops::input{tensor_shape::image(56, 56, 4)});  // 4 channels: 16 B of TF32, 8 B of FP16
    net.add("x", ops::passthrough{}, {"data"});
    ops::conv2d c = conv(64, 3, 2, ops::padding::same());  // stride 2: no Winograd on the CUDA cores
    c.bias = false;
    net.add("conv", c, {"x"});
    const cost::kernel k{.launch_overhead = seconds_of(0), .layout = activation_layout::nhwc};
    const auto compute = [&](element_type p) {
        return k.layer(net, *net.find("conv"), pass::forward, cost_context{h100, 256, p}).compute.value();
    };
    const double rows = 256.0 * 28 * 28, flops = 2 * 36.0 * 64 * rows;  // 3 x 3 x 4 = 36 products per output
    const double u = k.utilization({rows, 64, 36, 1}, h100);
    // TF32: 4 x 4 B = 16 B, tensor cores at 0.75.
    CHECK(close(compute(element_type::tf32), flops / (h100.tensor_peak_for(element_type::tf32)->value() * 0.75 * u)));
    // FP16: 4 x 2 B = 8 B, half a load: the CUDA cores' FP16 rate at the wide-SM matmul efficiency 0.75.
    CHECK(close(compute(element_type::fp16), flops / (h100.simt_peak_for(element_type::fp16).value() * 0.75 * u)));
}

TEST_CASE("kernel: a pass runs its kernels as the host issues them") {
    const device dev = test_device();
    network net;
    net.add("data", ops::input{tensor_shape::features(16)});
    net.add("fc", ops::dense{16}, {"data"});
    net.add("relu", ops::activation{}, {"fc"});
    net.add("fc2", ops::dense{16}, {"relu"});
    const cost::kernel k{};
    const double dispatch = k.host_dispatch.value();  // the default, 30 us
    const auto e = estimate(net, dev, k, {.batch = 1});
    // Three kernels forward (fc, relu, fc2), each a few microseconds of GPU time: the host's 3 dispatches bind,
    // and the last kernel runs after its issue. Backward, in reverse: fc2's two gradients, relu's, and fc's
    // weight gradient last (its data gradient is not computed: it feeds on the input).
    CHECK(e.layers[3].forward.total().value() < dispatch);
    CHECK(close(e.forward.value(), 3 * dispatch + e.layers[3].forward.total().value()));
    CHECK(close(e.backward.value(), 4 * dispatch + e.layers[1].backward.total().value()));
    // Without the floor, the layers' sum (each kernel's 5 us launch at least) is shorter.
    const auto gpu = estimate(net, dev, cost::kernel{.host_dispatch = seconds_of(0)}, {.batch = 1});
    CHECK(gpu.forward.value() < e.forward.value());
    CHECK(gpu.forward.value() >= 3 * 5e-6);
    // A pass long on the GPU waits only for its first kernel's issue.
    const auto big = estimate(net, dev, k, {.batch = 1'000'000});
    const auto big_gpu = estimate(net, dev, cost::kernel{.host_dispatch = seconds_of(0)}, {.batch = 1'000'000});
    CHECK(close(big.forward.value(), big_gpu.forward.value() + dispatch));
    CHECK(big.forward.value() > 3 * dispatch);
}

TEST_CASE("kernel: NCHW transposes tensor-core convolutions and walks batch norm's strided channel planes") {
    const device& v100 = devices::get("v100-sxm2-16gb");
    network net;
    net.add("data", ops::input{tensor_shape::image(56, 56, 64)});
    net.add("x", ops::passthrough{}, {"data"});
    ops::conv2d c = conv(64, 3, 1, ops::padding::same());
    c.bias = false;
    net.add("conv", c, {"x"});
    net.add("bn", ops::batch_norm{}, {"conv"});
    ops::conv2d pointwise = conv(64, 1, 1, ops::padding::valid());
    pointwise.bias = false;
    net.add("conv1x1", pointwise, {"bn"});
    const cost::kernel nchw{}, nhwc{.layout = activation_layout::nhwc};
    const auto layer = [&](const cost::kernel& k, const char* name, element_type p) {
        return k.layer(net, *net.find(name), pass::forward, cost_context{v100, 64, p, false});  // no casts
    };
    // FP16 on tensor cores: NCHW adds a transpose pass that reads and writes each of the convolution's tensors
    // (inputs, weights and output at 2 B) once, at the strided 0.55 of 900 GB/s, plus its launch.
    const auto h_nchw = layer(nchw, "conv", element_type::fp16), h_nhwc = layer(nhwc, "conv", element_type::fp16);
    const double moved = h_nhwc.traffic.value();
    CHECK(close(h_nchw.total().value() - h_nhwc.total().value(), 2 * moved / (0.55 * 900e9) + 5e-6));
    CHECK(h_nchw.kernels == h_nhwc.kernels + 1);  // the host issues cuDNN's transposes too
    // A 1x1 stride-1 convolution is a GEMM on the NCHW tensors as they are: no transposes.
    CHECK(layer(nchw, "conv1x1", element_type::fp16).total() == layer(nhwc, "conv1x1", element_type::fp16).total());
    // FP32 runs on CUDA cores: no transposes in either layout.
    CHECK(layer(nchw, "conv", element_type::fp32).total() == layer(nhwc, "conv", element_type::fp32).total());
    // Batch norm in NCHW walks strided channel planes: the lower of 0.55 of the DRAM's bandwidth and 7.05 bytes
    // per busy SM (one per channel, 64 here) and cycle, at 1530 MHz on the V100. In FP32, 64 x 7.05 x 1.53 GHz
    // = 690 GB/s is more than 0.55 x 900 GB/s, which binds; FP16 elements fill half of each load, so the SMs'
    // 345 GB/s binds. In NHWC, FP16 bytes at the element-wise 0.8.
    const auto bn32 = layer(nchw, "bn", element_type::fp32);
    CHECK(close(bn32.total().value(), bn32.traffic.value() / (0.55 * 900e9) + 5e-6));
    CHECK(close(layer(nchw, "bn", element_type::fp16).total().value(),
                bn32.traffic.value() / 2 / (64 * 7.05 * 1.53e9 / 2) + 5e-6));
    CHECK(close(layer(nhwc, "bn", element_type::fp16).total().value(), bn32.traffic.value() / 2 / (0.8 * 900e9) + 5e-6));
    // The ceiling is per SM cycle: held at 765 MHz, the V100's 64 busy SMs move 64 x 7.05 x 0.765 GHz = 345 GB/s
    // of FP32, below 0.55 x 900 GB/s, which no longer binds.
    const auto slow = nchw.layer(net, *net.find("bn"), pass::forward,
                                 cost_context{at_clock(v100, megahertz_of(765)), 64, element_type::fp32, false});
    CHECK(close(slow.total().value(), slow.traffic.value() / (64 * 7.05 * 0.765e9) + 5e-6));
    // An H200 (132 SMs at 1980 MHz, 4800 GB/s) holds these strided kernels at 7.05 x 1.98 GHz = 13.96 GB/s per
    // busy SM (the H100's 0.55 x 3350 GB/s over the same 132 SMs), not at 0.55 of its own bandwidth, and
    // cuDNN's batch norm on Hopper at 1.23x that (ResNet-50's profile on the H100): 64 SMs for this batch norm,
    // all 132 for one of 256 channels. There an FP16 element fills 0.58 of a load, not half; BF16 runs in
    // PyTorch's own kernels at 1/1.49 of FP16's rate.
    network wide;
    wide.add("data", ops::input{tensor_shape::image(14, 14, 256)});
    wide.add("bn", ops::batch_norm{}, {"data"});
    const auto bn_on = [&](const network& n, const char* gpu, element_type p) {
        return nchw.layer(n, *n.find("bn"), pass::forward, cost_context{devices::get(gpu), 64, p, false});
    };
    const auto bn64 = bn_on(net, "h200-sxm-141gb", element_type::fp32);
    const auto bn256 = bn_on(wide, "h200-sxm-141gb", element_type::fp32);
    CHECK(close(bn64.total().value(), bn64.traffic.value() / (1.23 * 64 * 7.05 * 1.98e9) + 5e-6));
    CHECK(close(bn256.total().value(), bn256.traffic.value() / (1.23 * 132 * 7.05 * 1.98e9) + 5e-6));
    const double fp16_rate = 1.23 * 132 * 7.05 * 0.58 * 1.98e9;
    CHECK(close(bn_on(wide, "h200-sxm-141gb", element_type::fp16).total().value(),
                bn256.traffic.value() / 2 / fp16_rate + 5e-6));
    CHECK(close(bn_on(wide, "h200-sxm-141gb", element_type::bf16).total().value(),
                bn256.traffic.value() / 2 / (fp16_rate / 1.49) + 5e-6));
    // An RTX A6000 (84 SMs at 1800 MHz, 768 GB/s of GDDR6) has SMs to spare for its DRAM: 0.55 x 768 GB/s
    // binds in FP32 and in FP16 (84 x 7.05 x 1.8 GHz / 2 = 533 GB/s above it), so FP16 takes half FP32's time.
    const auto a6000_32 = bn_on(wide, "rtx-a6000", element_type::fp32);
    CHECK(close(a6000_32.total().value(), a6000_32.traffic.value() / (0.55 * 768e9) + 5e-6));
    CHECK(close(bn_on(wide, "rtx-a6000", element_type::fp16).total().value(),
                a6000_32.traffic.value() / 2 / (0.55 * 768e9) + 5e-6));
    // PyTorch's own BF16 kernels take 1.49x cuDNN's time on any GPU.
    CHECK(close(bn_on(wide, "rtx-a6000", element_type::bf16).total().value(),
                a6000_32.traffic.value() / 2 / (0.55 * 768e9 / 1.49) + 5e-6));
    CHECK(parse_layout("nhwc") == activation_layout::nhwc);
    CHECK(parse_layout("NCHW") == std::nullopt);
    // cuDNN 7.6 ran NCHW tensor-core convolutions without transposes: its NCHW convolution costs what NHWC's
    // does, and its batch norm still walks NCHW's strided planes.
    const cost::kernel cudnn7{.library = cost::conv_library::cudnn7};
    CHECK(layer(cudnn7, "conv", element_type::fp16).total() == h_nhwc.total());
    CHECK(layer(cudnn7, "conv", element_type::fp16).kernels == h_nhwc.kernels);
    CHECK(layer(cudnn7, "bn", element_type::fp16).total() == layer(nchw, "bn", element_type::fp16).total());
    CHECK(cost::parse_conv_library("cudnn7") == cost::conv_library::cudnn7);
    CHECK(cost::parse_conv_library(cost::to_string(cost::conv_library::cudnn9)) == cost::conv_library::cudnn9);
    CHECK(cost::parse_conv_library("cudnn8") == std::nullopt);
}

TEST_CASE("kernel: windowed pooling runs at its SMs' cycles per element, not at DRAM speed") {
    // VGG-16's first pool at batch 128 on an H100 (132 SMs quoted at 1980 MHz): 224x224x64 in, 112x112x64 out.
    network net;
    net.add("data", ops::input{tensor_shape::image(224, 224, 64)});
    net.add("x", ops::passthrough{}, {"data"});  // a gradient flows back to x, none into the data
    net.add("pool", max_pool(2, 2), {"x"});
    ops::pool2d global{.type = ops::pool2d::method::average, .global = true};
    net.add("gap", global, {"pool"});
    const cost::kernel k{};
    const device& h100 = devices::get("h100-sxm5-80gb");
    const auto time = [&](const char* name, pass p, element_type e) {
        return k.layer(net, *net.find(name), p, cost_context{h100, 128, e}).total().value();
    };
    const double sm_cycles_per_s = 132 * 1980e6, in = 224.0 * 224 * 64 * 128, out = 112.0 * 112 * 64 * 128;
    // Forward: 3.7 SM cycles per output (102.8M outputs: 1.455 ms), where DRAM would take the FP32 bytes
    // (5 x 102.8M x 4 B = 2.06 GB) in 0.77 ms at 0.8 x 3350 GB/s; plus the launch. FP16 takes as long.
    CHECK(close(time("pool", pass::forward, element_type::fp32), 3.7 * out / sm_cycles_per_s + 5e-6));
    CHECK(close(time("pool", pass::forward, element_type::fp16), time("pool", pass::forward, element_type::fp32)));
    // Backward: 2.7 cycles per input (411M: 4.24 ms) against 3.7 GB of FP32 reads and writes (1.38 ms).
    CHECK(close(time("pool", pass::backward, element_type::fp32), 2.7 * in / sm_cycles_per_s + 5e-6));
    // A global pool reduces each plane in one window: priced by its bytes, backward too, where 2.7 cycles per
    // input (103M) would take 1.06 ms against the bytes' 0.15 ms (its FP32 input gradient written).
    for (const pass p : {pass::forward, pass::backward}) {
        const auto gap = k.layer(net, *net.find("gap"), p, cost_context{h100, 128});
        CHECK(close(gap.total().value(), gap.traffic.value() / (0.8 * 3350e9) + 5e-6));
    }
    // Without an SM count there are no cycles to count: the roofline alone (the FP32 bytes at 0.8 x 1e11).
    const auto bare = k.layer(net, *net.find("pool"), pass::forward, cost_context{test_device(), 128});
    CHECK(close(bare.total().value(), bare.traffic.value() / 0.8e11 + 5e-6));
}

TEST_CASE("kernel: the kernels a training step adds around the layers' own") {
    const device dev = test_device();  // 1 TFLOP/s, 100 GB/s: memory-bound kernels at 0.8e11 B/s
    network net;
    net.add("data", ops::input{tensor_shape::image(8, 8, 16)});
    net.add("x", ops::passthrough{}, {"data"});
    net.add("a", conv(16, 1, 1, ops::padding::same()), {"x"});  // with a bias: 16 x 16 weights, 16 biases
    net.add("left", ops::activation{}, {"a"});
    net.add("right", ops::activation{}, {"a"});
    net.add("sum", ops::elementwise{}, {"left", "right"});
    net.add("fc", ops::dense{10}, {"sum"});  // 1024 x 10 weights, 10 biases
    const cost::kernel k{};
    const auto at = [&](const char* layer, pass p, element_type e, bool framework) {
        return k.layer(net, *net.find(layer), p, cost_context{dev, 2, e, framework});
    };
    const double y = 8 * 8 * 16 * 2;  // a's output elements at batch 2
    SUBCASE("a layer read by two sums their gradients going backward: one add of output-sized tensors") {
        const auto both = at("a", pass::backward_data, element_type::fp32, true);
        network chain;  // the same layer read once
        chain.add("data", ops::input{tensor_shape::image(8, 8, 16)});
        chain.add("x", ops::passthrough{}, {"data"});
        chain.add("a", conv(16, 1, 1, ops::padding::same()), {"x"});
        chain.add("left", ops::activation{}, {"a"});
        const auto once = k.layer(chain, *chain.find("a"), pass::backward_data, cost_context{dev, 2});
        CHECK(close(both.total().value() - once.total().value(), 3 * y * 4 / 0.8e11 + 5e-6));  // read 2, write 1
        CHECK(both.kernels == once.kernels + 1);
    }
    SUBCASE("a convolution's bias: an add going forward, a sum for its gradient, none for the data gradient") {
        const auto extra = [&](pass p) {
            return at("a", p, element_type::fp32, true).total().value() - at("a", p, element_type::fp32, false).total().value();
        };
        CHECK(close(extra(pass::forward), 2 * y * 4 / 0.8e11 + 5e-6));
        CHECK(close(extra(pass::backward_weights), y * 4 / 0.8e11 + 5e-6));
        // The bias has no kernel in the data gradient: what is left there is the gradient sum of the first subcase.
        CHECK(close(extra(pass::backward_data), 3 * y * 4 / 0.8e11 + 5e-6));
        // A dense layer's bias rides in its GEMM: no kernel of its own in FP32.
        CHECK(at("fc", pass::forward, element_type::fp32, true).total() == at("fc", pass::forward, element_type::fp32, false).total());
    }
    SUBCASE("mixed precision casts each FP32 master weight tensor to 2 bytes forward and its gradient back") {
        const auto extra = [&](const char* layer, pass p) {
            const auto with = at(layer, p, element_type::fp16, true), without = at(layer, p, element_type::fp16, false);
            return std::pair{with.total().value() - without.total().value(), with.kernels - without.kernels};
        };
        // Forward: the bias add in FP16 (2 x y x 2 B), then 256 weights and 16 biases read at 4 B, written at 2.
        const auto [forward, forward_kernels] = extra("a", pass::forward);
        CHECK(close(forward, (2 * y * 2 + 6 * 256 + 6 * 16) / 0.8e11 + 3 * 5e-6));
        CHECK(forward_kernels == 3);
        // Backward: the bias gradient's sum (y x 2 B), then both gradients read at 2 B and written at 4.
        CHECK(close(extra("a", pass::backward_weights).first, (y * 2 + 6 * 256 + 6 * 16) / 0.8e11 + 3 * 5e-6));
        // A dense layer: two casts (10,240 weights and 10 biases), no bias kernel.
        CHECK(close(extra("fc", pass::forward).first, (6 * 10240 + 6 * 10) / 0.8e11 + 2 * 5e-6));
        // TF32 keeps FP32 tensors: no casts.
        CHECK(at("fc", pass::forward, element_type::tf32, true).total() == at("fc", pass::forward, element_type::tf32, false).total());
    }
    SUBCASE("kernel benchmarks time the layers' kernels alone") {
        const auto phases = estimate_phases(net, dev, k, {.forward = true}, {.batch = 2});
        double alone = 0;
        for (auto v : net.vertices()) alone += k.layer(net, v, pass::forward, cost_context{dev, 2, element_type::fp32, false}).total().value();
        CHECK(close(phases.total.total().value(), alone));
    }
}

TEST_CASE("kernel: a broadcast product's gradient runs as three of the framework's kernels") {
    // Squeeze-and-excitation's scale: x (8x8x16) times a 1x1x16 gate. Batch 2: y = 8 x 8 x 16 x 2 = 2,048
    // elements of x, g = 16 x 2 = 32 of the gate.
    const device dev = test_device();  // memory-bound kernels at 0.8 x 100 GB/s
    network net;
    net.add("data", ops::input{tensor_shape::image(8, 8, 16)});
    net.add("x", ops::passthrough{}, {"data"});
    net.add("pool", ops::pool2d{.type = ops::pool2d::method::average, .global = true}, {"x"});
    net.add("gate", ops::activation{ops::activation::function::sigmoid}, {"pool"});
    net.add("scale", ops::elementwise{ops::elementwise::operation::multiply}, {"x", "gate"});
    const auto t = cost::kernel{}.layer(net, *net.find("scale"), pass::backward_data,
                                        cost_context{dev, 2, element_type::fp32, false});
    // dx = dy * gate (reads y + g, writes y), dy * x at full size (reads 2y, writes y), summed over the 8x8
    // positions (reads y, writes g): 4 x (6y + 2g) bytes and three launches, where one fused kernel would
    // move 4 x (3y + 2g).
    const double y = 2048, g = 32;
    CHECK(t.kernels == 3);
    CHECK(close(t.total().value(), 4 * (6 * y + 2 * g) / 0.8e11 + 3 * 5e-6));
}

TEST_CASE("kernel: settings outside the model's domain are refused") {
    const auto err = [](const cost::kernel& k) { return message_of<invalid_argument>([&] { k.validate(); }); };
    cost::kernel k;
    k.efficiency.winograd_speedup = 5;
    CHECK(err(k) == "kernel: winograd_speedup is 5.000000, expected a factor in [1, 4] (F(4x4,3x3) saves at most 4x)");
    k = {};
    k.efficiency.tensor_matmul = ratio_of(1.5);
    CHECK(err(k) == "kernel: tensor_matmul is 1.500000, expected a fraction in (0, 1]");
    k = {};
    k.efficiency.tensor_matmul_half_rate = ratio_of(0);
    CHECK(err(k) == "kernel: tensor_matmul_half_rate is 0.000000, expected a fraction in (0, 1]");
    k = {};
    k.efficiency.simt_matmul = ratio_of(0);
    CHECK(err(k) == "kernel: simt_matmul is 0.000000, expected a fraction in (0, 1]");
    k = {};
    k.efficiency.simt_matmul_wide = ratio_of(-0.5);
    CHECK(err(k) == "kernel: simt_matmul_wide is -0.500000, expected a fraction in (0, 1]");
    k = {};
    k.efficiency.simt_matmul_graphics = ratio_of(1.5);
    CHECK(err(k) == "kernel: simt_matmul_graphics is 1.500000, expected a fraction in (0, 1]");
    k = {};
    k.efficiency.simt_matmul_dual_issue = ratio_of(1.2);
    CHECK(err(k) == "kernel: simt_matmul_dual_issue is 1.200000, expected a fraction in (0, 1]");
    k = {};
    k.efficiency.simt_wide_data_gradient = ratio_of(0);
    CHECK(err(k) == "kernel: simt_wide_data_gradient is 0.000000, expected a fraction in (0, 1]");
    k = {};
    k.efficiency.simt_wide_weight_gradient = ratio_of(std::nan(""));
    CHECK(err(k).starts_with("kernel: simt_wide_weight_gradient is nan"));
    k = {};
    k.efficiency.simt_conv_cudnn9_hopper = ratio_of(-0.5);
    CHECK(err(k) == "kernel: simt_conv_cudnn9_hopper is -0.500000, expected a fraction in (0, 1]");
    k = {};
    k.efficiency.memory = ratio_of(2);
    CHECK(err(k) == "kernel: memory is 2.000000, expected a fraction in (0, 1]");
    k = {};
    k.efficiency.nchw_strided = ratio_of(0);
    CHECK(err(k) == "kernel: nchw_strided is 0.000000, expected a fraction in (0, 1]");
    k = {};
    k.efficiency.nchw_strided_bytes_per_sm_cycle = -1;
    CHECK(err(k) == "kernel: nchw_strided_bytes_per_sm_cycle is -1.000000, expected a finite positive number of bytes");
    k = {};
    k.efficiency.hopper_batch_norm_speedup = 0.5;
    CHECK(err(k) == "kernel: hopper_batch_norm_speedup is 0.500000, expected a factor in [1, 4]");
    k = {};
    k.efficiency.hopper_batch_norm_half_fill = 0;
    CHECK(err(k) == "kernel: hopper_batch_norm_half_fill is 0.000000, expected a share of a load in (0, 1]");
    k = {};
    k.efficiency.native_bf16_batch_norm_slowdown = std::nan("");
    CHECK(err(k) == "kernel: native_bf16_batch_norm_slowdown is nan, expected a factor in [1, 4]");
    k = {};
    k.efficiency.tf32_weight_gradient_slowdown = 0.5;
    CHECK(err(k) == "kernel: tf32_weight_gradient_slowdown is 0.500000, expected a factor in [1, 4]");
    k = {};
    k.efficiency.pool_cycles_forward = std::nan("");
    CHECK(err(k) == "kernel: pool_cycles_forward is nan, expected a finite number of SM cycles, at least 0");
    k = {};
    k.efficiency.gathered_weight_gradient_instructions = 0.5;
    CHECK(err(k) == "kernel: gathered_weight_gradient_instructions is 0.500000, expected a finite number of "
                    "instructions per FFMA, at least 1");
    k = {};
    k.efficiency.pool_cycles_backward = -1;
    CHECK(err(k) == "kernel: pool_cycles_backward is -1.000000, expected a finite number of SM cycles, at least 0");
    k = {};
    k.host_per_update_tensor = seconds_of(-1);
    CHECK(err(k) == "kernel: host_per_update_tensor is -1.000000 s, expected a finite non-negative time");
    k = {};
    k.host_overhead = seconds_of(-1);
    CHECK(err(k) == "kernel: host_overhead is -1.000000 s, expected a finite non-negative time");
    k = {};
    k.host_dispatch = seconds_of(std::nan(""));
    CHECK(err(k) == "kernel: host_dispatch is nan s, expected a finite non-negative time");
}

// ---------------------------------------------------------------------------------------------------
// Properties of every model over every network.

TEST_CASE("every model on every network: finite positive, monotone in batch, bounds ordered, no communication") {
    std::vector<network> nets{zoo::alexnet(), zoo::vgg16()};
    for (const auto& f : paleo_files()) nets.push_back(io::load_paleo_json(f));
    REQUIRE(nets.size() == 13);  // 2 zoo + 9 PALEO nets + 2 converted Caffe nets
    const device& dev = devices::get("paleo:TITAN_X");
    const auto check = [&](const network& net, const auto& model) {
        step_estimate previous;
        for (std::int64_t batch : {1, 2, 16, 64, 256}) {
            INFO(net.name() << " / " << model.name << " / batch " << batch);
            const auto e = estimate(net, dev, model, {.batch = batch});
            for (seconds t : {e.forward, e.backward, e.update, e.total}) {
                CHECK(std::isfinite(t.value()));
                CHECK(t.value() > 0);
            }
            CHECK(e.communication.value() == 0);  // one device exchanges no gradients
            CHECK(e.forward_bounds.lower <= e.forward_bounds.upper);
            CHECK(e.backward_bounds.lower <= e.backward_bounds.upper);
            CHECK(e.forward_bounds.lower.value() > 0);
            if (batch > 1) {
                CHECK(e.forward >= previous.forward);
                CHECK(e.backward >= previous.backward);
                CHECK(e.total >= previous.total);
            }
            previous = e;
        }
    };
    for (const auto& net : nets) {
        check(net, cost::paleo{});
        check(net, cost::paleo_compat{});
        check(net, cost::roofline{});
        check(net, cost::kernel{});
    }
}

// ---------------------------------------------------------------------------------------------------
// Reports.

TEST_CASE("step_estimate and its writers: table, CSV, JSON") {
    const network net = zoo::alexnet();
    const auto e = estimate(net, devices::get("paleo:TITAN_X"), cost::paleo{}, {.batch = 32});
    CHECK(e.total == e.forward + e.backward + e.update + e.communication);
    CHECK(e.layers.size() == net.size());

    SUBCASE("table") {
        std::ostringstream out;
        write_table(out, e);
        const std::string t = out.str();
        for (const char* part : {"alexnet", "paleo:TITAN_X", "batch 32", "paleo cost model", "forward", "backward",
                                 "update", "communication", "step", "parameters"})
            CHECK_MESSAGE(t.find(part) != std::string::npos, "table lacks " << part);
        for (const auto& l : e.layers) CHECK_MESSAGE(t.find(l.name) != std::string::npos, "table lacks " << l.name);
        // Aligned: the header and every layer's row end in the same column, softmax_cross_entropy's too.
        std::istringstream in(t);
        std::vector<std::size_t> widths;
        std::string line;
        std::getline(in, line);
        std::getline(in, line);  // the title and a blank line
        while (std::getline(in, line) && !line.empty()) widths.push_back(line.size());
        CHECK(widths.size() == net.size() + 1);
        CHECK(std::ranges::count(widths, widths.front()) == static_cast<std::ptrdiff_t>(widths.size()));
    }
    SUBCASE("CSV") {
        std::ostringstream out;
        write_csv(out, e);
        std::istringstream in(out.str());
        std::vector<std::vector<std::string>> rows;
        for (std::string line; std::getline(in, line);) {
            std::vector<std::string> fields;
            std::stringstream s(line);
            for (std::string f; std::getline(s, f, ',');) fields.push_back(f);
            if (!line.empty() && line.back() == ',') fields.emplace_back();
            rows.push_back(fields);
        }
        REQUIRE(rows.size() == net.size() + 2);  // header, one row per layer, "(step)"
        const std::vector<std::string> header{"model", "device", "batch", "cost_model", "layer", "op", "forward_s",
                                              "backward_s", "forward_flops", "backward_flops", "forward_bytes",
                                              "backward_bytes", "update_s", "step_s"};
        CHECK(rows[0] == header);
        for (const auto& r : rows) CHECK(r.size() == header.size());
        CHECK(rows[1][4] == e.layers[0].name);
        // Values are written to round-trip exactly.
        CHECK(std::stod(rows[2][6]) == e.layers[1].forward.total().value());
        CHECK(std::stod(rows[2][8]) == e.layers[1].forward.work.value());
        const auto& step = rows.back();
        CHECK(step[4] == "(step)");
        CHECK(std::stod(step[6]) == e.forward.value());
        CHECK(std::stod(step[7]) == e.backward.value());
        CHECK(std::stod(step[12]) == e.update.value());
        CHECK(std::stod(step[13]) == e.total.value());
    }
    SUBCASE("CSV quotes fields that hold commas (RFC 4180)") {
        // PALEO's overfeat.json is named "Overfeat net, LeCun 2014 - From SLIM".
        const auto over = io::load_paleo_json(path("data/nets/paleo/overfeat.json"));
        REQUIRE(over.name().find(',') != std::string::npos);
        std::ostringstream out;
        write_csv(out, estimate(over, devices::get("paleo:TITAN_X"), cost::paleo{}));
        std::istringstream in(out.str());
        std::string header, first;
        std::getline(in, header);
        std::getline(in, first);
        CHECK(first.starts_with("\"" + over.name() + "\","));
    }
    SUBCASE("JSON") {
        const auto j = io::to_json(e);
        for (const char* key : {"model", "device", "batch", "cost_model", "forward_s", "backward_s", "update_s",
                                "communication_s", "step_s", "forward_bounds_s", "backward_bounds_s", "parameters",
                                "parameter_bytes", "gradient_bytes", "memory", "layers"})
            CHECK_MESSAGE(j.contains(key), "JSON lacks " << key);
        CHECK(j["model"] == "alexnet");
        CHECK(j["device"] == "paleo:TITAN_X");
        CHECK(j["batch"] == 32);
        CHECK(j["cost_model"] == "paleo");
        CHECK(j["parameters"] == net.parameter_count());
        CHECK(j["communication_s"] == 0.0);
        const double step = j["step_s"], fwd = j["forward_s"], bwd = j["backward_s"], upd = j["update_s"];
        CHECK(close(step, fwd + bwd + upd, 1e-15));
        CHECK(step == e.total.value());
        for (const char* b : {"forward_bounds_s", "backward_bounds_s"}) {
            REQUIRE(j[b].is_array());
            REQUIRE(j[b].size() == 2);
            CHECK(j[b][0].get<double>() <= j[b][1].get<double>());
        }
        REQUIRE(j["layers"].size() == net.size());
        for (const auto& l : j["layers"])
            for (const char* key : {"name", "op", "forward_flops", "backward_flops", "forward_bytes", "backward_bytes",
                                    "forward_s", "backward_s"})
                CHECK_MESSAGE(l.contains(key), "layer lacks " << key);
        CHECK(j["layers"][1]["name"] == "conv1");
        CHECK(j["layers"][1]["op"] == "conv2d");
        // conv1 forward: 2 * 11*11*3 * 54*54*64 * 32 = 4,335,648,768 + 54*54*64*32 = 5,971,968 bias adds.
        CHECK(j["layers"][1]["forward_flops"].get<double>() == 4'341'620'736.0);
    }
}
