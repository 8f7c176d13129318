// One GPU's memory in a training step: weights, gradients, optimizer state, buckets and activations, whether they
// fit the device's and the largest batch that does; every expected number derived beside it.
#include <doctest/doctest.h>

#include <sstream>

#include <steptime/io.hpp>

using namespace steptime;

namespace {

// x(10) -> fc1(100) -> fc2(5): 10 x 100 + 100 + 100 x 5 + 5 = 1605 parameters. The weight gradients read x and fc1's
// output, 110 values a sample; fc2's output no layer reads.
network two_layers() {
    network net("two layers");
    net.add("x", ops::input{tensor_shape::image(1, 1, 10)});
    ops::dense d;
    d.outputs = 100;
    net.add("fc1", d, {"x"});
    d.outputs = 5;
    net.add("fc2", d, {"fc1"});
    return net;
}

cost::kernel with(cost::optimizer o) {
    cost::kernel k;
    k.update_rule = o;
    return k;
}

const device& v100() { return devices::get("v100-sxm2-16gb"); }

}  // namespace

TEST_CASE("memory: 4 bytes a weight, its gradient's, 4 a state tensor, and the activations the backward pass reads") {
    const network net = two_layers();
    REQUIRE(net.parameter_count() == 1605);
    const auto sgd = estimate(net, v100(), with(cost::optimizer::sgd), {.batch = 8}).memory;
    CHECK(sgd.weights.value() == 1605 * 4);
    CHECK(sgd.gradients.value() == 1605 * 4);
    CHECK(sgd.optimizer_state.value() == 0);
    CHECK(sgd.buffers.value() == 0);
    CHECK(sgd.activations.value() == 110 * 4 * 8);  // FP32, 8 samples
    CHECK(sgd.samples == 8);
    CHECK(sgd.total().value() == 1605 * 8 + 110 * 4 * 8);
    CHECK(sgd.capacity->value() == 16.0 * 1073741824);  // the catalog's 16 GiB
    CHECK(estimate(net, v100(), with(cost::optimizer::momentum), {.batch = 8}).memory.optimizer_state.value() == 1605 * 4);
    CHECK(estimate(net, v100(), with(cost::optimizer::adam), {.batch = 8}).memory.optimizer_state.value() == 1605 * 8);

    // Mixed precision with Adam and half gradients: ZeRO's 16 bytes a parameter (Rajbhandari et al. 2020, 3.1: FP16
    // weights and gradients, FP32 weights, momentum and variance); FP32 gradients (autocast, DDP) 2 more.
    const estimate_options half{.batch = 8, .precision = element_type::fp16, .gradients = element_type::fp16};
    const auto zero = estimate(net, v100(), with(cost::optimizer::adam), half).memory;
    CHECK(zero.fixed().value() == 1605 * 16);
    CHECK(zero.activations.value() == 110 * 2 * 8);  // 2-byte activations
    auto fp32_gradients = half;
    fp32_gradients.gradients = element_type::fp32;
    CHECK(estimate(net, v100(), with(cost::optimizer::adam), fp32_gradients).memory.fixed().value() == 1605 * 18);
}

TEST_CASE("memory: fits while the total is within the device's, and the largest batch follows from the activations") {
    const network net = two_layers();
    device d = v100();
    // FP32 and SGD: 12,840 bytes whatever the batch and 440 a sample; 10.5 samples' room above that.
    d.memory_capacity = bytes_of(12840 + 440 * 10.5);
    const auto ten = estimate(net, d, with(cost::optimizer::sgd), {.batch = 10}).memory;
    CHECK(ten.fits());  // 17,240 of 17,460 bytes
    CHECK(ten.largest_samples() == 10);
    const auto eleven = estimate(net, d, with(cost::optimizer::sgd), {.batch = 11}).memory;
    CHECK_FALSE(eleven.fits());  // 17,680
    CHECK(eleven.largest_samples() == 10);

    std::ostringstream table;
    write_table(table, estimate(net, d, with(cost::optimizer::sgd), {.batch = 11}));
    CHECK(table.str().find("DOES NOT FIT (the largest batch that fits: 10)") != std::string::npos);

    d.memory_capacity = bytes_of(12000);  // below the weights and gradients alone
    const auto none = estimate(net, d, with(cost::optimizer::sgd), {.batch = 1}).memory;
    CHECK_FALSE(none.fits());
    CHECK(none.largest_samples() == 0);

    d.memory_capacity.reset();  // unknown: nothing says it does not fit
    const auto unknown = estimate(net, d, with(cost::optimizer::sgd), {.batch = 1 << 20}).memory;
    CHECK(unknown.fits());
    CHECK_FALSE(unknown.largest_samples().has_value());
    const auto j = io::to_json(estimate(net, d, with(cost::optimizer::sgd), {.batch = 2}));
    CHECK(j["memory"]["capacity_bytes"].is_null());
    CHECK(j["memory"]["largest_samples"].is_null());
    CHECK(j["memory"]["fits"] == true);
    CHECK(j["memory"]["total_bytes"] == 12840 + 440 * 2);
}

TEST_CASE("memory: data-parallel workers hold PyTorch DDP's buckets, a second copy of the gradients") {
    const network net = two_layers();
    const network_link link{"10 GB/s", bytes_per_second_of(10e9), microseconds_of(1), "test"};
    const collective_model ring{collective::ring, link};
    const auto four = estimate(net, v100(), with(cost::optimizer::sgd), ring, data_parallel{4}, {.batch = 8});
    CHECK(four.memory.buffers.value() == 1605 * 4);
    CHECK(four.memory.samples == 8);  // a worker's batch
    CHECK(estimate(net, v100(), with(cost::optimizer::sgd), ring, data_parallel{1}, {.batch = 8}).memory.buffers.value() == 0);
    // Half gradients, half buckets.
    const auto half = estimate(net, v100(), with(cost::optimizer::sgd), ring, data_parallel{4},
                               {.batch = 8, .precision = element_type::fp16, .gradients = element_type::fp16});
    CHECK(half.memory.buffers.value() == 1605 * 2);
}

TEST_CASE("memory: a pipeline's is the stage's that limits the micro-batch, not always the fullest") {
    // pipeline_test's GPT with a vocabulary of 160 in 2 stages, 4 micro-batches, FP16. Stage 1 holds 112,256
    // weights (the embedding's 160 x 64 + 32 x 64 and 2 layers' 99,968) at 10 bytes (FP32 and its half copy, an FP32
    // gradient, SGD), 1,122,560 bytes whatever the micro-batch, and 114,688 a sample of it (pipeline_test: 2 in
    // flight); stage 2 110,336 weights (2 layers, ln_f's 128, the tied table's 10,240), 1,103,360 bytes, and 32,768
    // + 86,016 + 32 x 32 x 4 = 122,880 a sample (1 in flight; the FP32 probabilities over 32 more logits a token).
    // With room for 20.5 of stage 2's samples, 3,622,400 bytes: stage 2 takes a micro-batch of 20, stage 1 of 21
    // (2,499,840 / 114,688 = 21.8). At 2 stage 1 is the fuller (1,351,936 against 1,349,120); stage 2 limits.
    const network net = zoo::gpt({4, 64, 4, 32, 160, true});
    device d = devices::get("a100-sxm4-80gb");
    d.memory_capacity = bytes_of(3622400);
    const network_link instant{"instant", bytes_per_second_of(1e18), seconds{}, "test"};
    const auto run = [&](std::int64_t micro_batch) {
        return estimate(net, d, cost::kernel{}, collective_model{collective::ring, instant}, data_parallel{1},
                        pipeline_parallel{2, 4, 1, instant}, {.batch = micro_batch, .precision = element_type::fp16})
            .memory;
    };
    const auto two = run(2);
    CHECK(two.largest_samples() == 20);
    CHECK(two.weights.value() == 110336.0 * 6);  // stage 2's weights
    CHECK(two.total().value() == 1349120.0);
    CHECK(two.fits());
    CHECK(run(20).fits());
    CHECK_FALSE(run(21).fits());  // stage 2: 1,103,360 + 21 x 122,880 = 3,683,840 bytes; stage 1's 3,531,008 fit
}

TEST_CASE("memory: model-parallel devices hold their own layers' weights and outputs") {
    // x(10) -> fc1(100) on device 0 -> fc2(5) on device 1, FP32, SGD, batch 4. Device 0 holds fc1's 1,100 weights
    // and 110 values a sample: x's, which fc1's gradient reads, and fc1's, which fc2's reads, held where computed.
    // Device 1 holds fc2's 505 weights and no output. Device 0: 1100 x 8 + 110 x 4 x 4 = 10,560 bytes, the limit
    // (device 1's 4,040 do not grow with the batch).
    network net("placed");
    net.add("x", ops::input{tensor_shape::image(1, 1, 10)});
    ops::dense fc;
    fc.outputs = 100;
    net.add("fc1", fc, {"x"}, 0);
    fc.outputs = 5;
    net.add("fc2", fc, {"fc1"}, 1);
    const auto m = estimate(net, v100(), with(cost::optimizer::sgd), model_parallel{}, {.batch = 4}).memory;
    CHECK(m.weights.value() == 1100 * 4);
    CHECK(m.activations.value() == 110 * 4 * 4);
    CHECK(m.total().value() == 10560);
}

TEST_CASE("memory: the largest batch's edges") {
    memory_footprint m{.weights = bytes_of(100), .capacity = bytes_of(50)};
    CHECK(m.largest_samples() == 0);  // the weights alone do not fit, activations or not
    m.capacity = bytes_of(150);
    CHECK_FALSE(m.largest_samples().has_value());  // nothing grows with the batch: any batch fits
    m.activations = bytes_of(1e-300);
    m.samples = 1;
    CHECK(m.largest_samples() == std::numeric_limits<std::int64_t>::max());  // beyond 2^63 - 1
    // limiting: the smaller largest batch, else the fuller.
    const memory_footprint small{.weights = bytes_of(10), .activations = bytes_of(10), .samples = 1, .capacity = bytes_of(100)};
    const memory_footprint big{.weights = bytes_of(50), .activations = bytes_of(1), .samples = 1, .capacity = bytes_of(100)};
    CHECK(&limiting(small, big) == &small);  // 9 samples against 50
    CHECK(&limiting(big, small) == &small);
    memory_footprint unknown = big;
    unknown.capacity.reset();
    CHECK(&limiting(unknown, unknown) == &unknown);
}
