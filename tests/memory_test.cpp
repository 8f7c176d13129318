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
