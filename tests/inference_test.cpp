// Inference (estimate_options::inference): the forward pass alone in eval mode, what differs from a training step's
// forward pass (batch norm on running statistics, no dropout, no loss), what it leaves out (gradients, update, their
// exchange) and the memory it holds; every expected number derived beside it.
#include <doctest/doctest.h>

#include <tuple>
#include <type_traits>
#include <utility>

#include <steptime/io.hpp>

using namespace steptime;

namespace {

// x(10) -> fc1(100) -> dropout -> fc2(5): 10 x 100 + 100 + 100 x 5 + 5 = 1605 parameters.
network with_dropout() {
    network net("dropout");
    net.add("x", ops::input{tensor_shape::image(1, 1, 10)});
    ops::dense d;
    d.outputs = 100;
    net.add("fc1", d, {"x"});
    net.add("drop", ops::dropout{0.5}, {"fc1"});
    d.outputs = 5;
    net.add("fc2", d, {"drop"});
    return net;
}

// x(10) -> a(20) -> b(30) -> c(20) -> a + c: a residual branch, whose input `a` lives until the sum.
network residual() {
    network net("residual");
    net.add("x", ops::input{tensor_shape::image(1, 1, 10)});
    ops::dense d;
    for (const auto& [name, width, parent] :
         {std::tuple{"a", 20, "x"}, std::tuple{"b", 30, "a"}, std::tuple{"c", 20, "b"}}) {
        d.outputs = width;
        net.add(name, d, {parent});
    }
    net.add("sum", ops::elementwise{}, {"a", "c"});
    return net;
}

const device& v100() { return devices::get("v100-sxm2-16gb"); }
constexpr estimate_options inference{.batch = 8, .inference = true};

}  // namespace

TEST_CASE("inference: the forward pass alone, batch norm in one pass, no loss") {
    const network net = zoo::resnet18();
    const cost::kernel k;
    const auto train = estimate(net, v100(), k, {.batch = 32});
    const auto infer = estimate(net, v100(), k, {.batch = 32, .inference = true});
    CHECK(infer.inference);
    CHECK_FALSE(train.inference);
    CHECK(infer.backward.value() == 0);
    CHECK(infer.update.value() == 0);
    CHECK(infer.total == infer.forward);
    CHECK(infer.gradient_bytes.value() == 0);
    REQUIRE(infer.layers.size() == train.layers.size());
    int norms = 0;
    for (std::size_t i = 0; i < infer.layers.size(); ++i) {
        const auto& t = train.layers[i];
        const auto& f = infer.layers[i];
        INFO(t.name);
        CHECK(f.backward.total().value() == 0);
        if (t.op == "batch_norm") {
            // Training reads x twice (statistics, then normalize), inference once: less traffic, less time.
            CHECK(f.forward.traffic.value() == doctest::Approx(2.0 / 3 * t.forward.traffic.value()));
            CHECK(f.forward.total() < t.forward.total());
            ++norms;
        } else if (t.op == "softmax_cross_entropy") {
            CHECK(t.forward.total().value() > 0);
            CHECK(f.forward.total().value() == 0);  // the logits are the output
        } else {
            CHECK(f.forward.total() == t.forward.total());  // convolutions, ReLUs, sums: the same kernels
        }
    }
    CHECK(norms == 20);  // ResNet-18: the stem's, two a basic block's (8 blocks) and three downsamples'
    CHECK(infer.forward < train.forward);
}

TEST_CASE("inference: dropout returns its input, in every cost model") {
    const network net = with_dropout();
    const auto drop = *net.find("drop");
    const cost_context train{v100(), 8}, infer{.dev = v100(), .batch = 8, .inference = true};
    const auto check = [&](const auto& model) {
        INFO(std::remove_cvref_t<decltype(model)>::name);
        CHECK(model.layer(net, drop, pass::forward, train).total().value() > 0);
        const layer_time none = model.layer(net, drop, pass::forward, infer);
        CHECK(none.total().value() == 0);
        CHECK(none.kernels == 0);
    };
    check(cost::kernel{});
    check(cost::paleo{});
    check(cost::roofline{});
    check(cost::paleo_compat{});
    // The rest of the forward pass is a training step's.
    const auto t = estimate(net, v100(), cost::kernel{}, {.batch = 8});
    const auto i = estimate(net, v100(), cost::kernel{}, inference);
    for (const char* layer : {"fc1", "fc2"}) {
        const auto v = *net.find(layer);
        CHECK(i.layers[v].forward.total() == t.layers[v].forward.total());
    }
}

TEST_CASE("inference memory: the weights in their precision, each output until its last reader has run") {
    // FP32: 1605 x 4 bytes of weights, no gradients, optimizer state or buckets.
    const auto m = estimate(with_dropout(), v100(), cost::kernel{}, inference).memory;
    CHECK(m.weights.value() == 1605 * 4);
    CHECK(m.gradients.value() == 0);
    CHECK(m.optimizer_state.value() == 0);
    CHECK(m.buffers.value() == 0);
    CHECK(m.samples == 8);
    // The input x (10) is held throughout; dropout shares fc1's storage (100), freed after fc2 (5): the peak is while
    // fc2 runs, 115 values a sample, 4 bytes each, 8 samples.
    CHECK(inference_peak(with_dropout(), 4) == 115 * 4);
    CHECK(m.activations.value() == 115 * 4 * 8);
    // In FP16, 2 bytes a weight (the network converted once, no FP32 master copy) and a value.
    const auto half = estimate(with_dropout(), v100(), cost::kernel{},
                               {.batch = 8, .precision = element_type::fp16, .inference = true}).memory;
    CHECK(half.weights.value() == 1605 * 2);
    CHECK(half.activations.value() == 115 * 2 * 8);
    // The residual branch: a (20) lives until the sum, so while c runs x (10), a, b (30) and c (20) are all live: 80.
    // b is freed after c, so the sum's 20 make 70.
    CHECK(inference_peak(residual(), 4) == 80 * 4);
}

TEST_CASE("inference: replicas serve alone, and the strategies that only train refuse it") {
    const network net = zoo::resnet18();
    const cost::kernel k;
    const collective_model ring{collective::ring, links::get("ib-hdr")};
    const auto one = estimate(net, v100(), k, {.batch = 16, .inference = true});
    const auto four = estimate(net, v100(), k, ring, data_parallel{4}, {.batch = 16, .inference = true});
    CHECK(four.batch == 64);  // 16 a replica (weak scaling)
    CHECK(four.communication.value() == 0);
    CHECK(four.memory.buffers.value() == 0);
    CHECK(four.total == one.total);
    CHECK_THROWS_WITH_AS(estimate(net, v100(), k, model_parallel{}, inference), doctest::Contains("trains only"),
                         invalid_argument);
    CHECK_THROWS_WITH_AS(estimate(net, v100(), k, hybrid_parallel{4, links::get("pcie3-x16")}, inference),
                         doctest::Contains("hybrid parallelism trains only"), invalid_argument);
    CHECK_THROWS_WITH_AS(estimate(net, v100(), k, ring, data_parallel{1}, pipeline_parallel{2, 4, 1, links::get("ib-hdr")},
                                  inference),
                         doctest::Contains("pipeline parallelism trains only"), invalid_argument);
}

TEST_CASE("inference: a tensor-parallel GPT all-reduces its outputs once, and its attention drops nothing") {
    zoo::gpt_config g{.layers = 2, .hidden = 64, .heads = 4, .sequence = 32, .vocabulary = 160, .recompute = true};
    g.tensor_parallel = 2;
    const network net = zoo::gpt(g);
    const device& a100 = devices::get("a100-sxm4-80gb");
    const auto train = estimate(net, a100, cost::kernel{}, {.batch = 2});
    const auto infer = estimate(net, a100, cost::kernel{}, {.batch = 2, .inference = true});
    CHECK(infer.backward.value() == 0);  // no recomputed forward pass either
    seconds outputs{}, input_gradients{};
    for (std::size_t v = 0; v < net.size(); ++v) {
        outputs += infer.layers[v].forward.remote;
        input_gradients += infer.layers[v].backward.remote;
        CHECK(infer.layers[v].forward.remote == train.layers[v].forward.remote);
    }
    CHECK(outputs.value() > 0);
    CHECK(infer.group_communication == outputs);  // the forward pass's all-reduces, once each
    CHECK(input_gradients.value() == 0);
    int attentions = 0;
    for (auto v : net.vertices())
        if (std::holds_alternative<ops::attention>(net[v].op)) {
            INFO(net[v].name);
            // The same GEMMs and softmax, without the dropout kernel over every score.
            CHECK(infer.layers[v].forward.kernels == train.layers[v].forward.kernels - 1);
            CHECK(infer.layers[v].forward.total() < train.layers[v].forward.total());
            ++attentions;
        }
    CHECK(attentions == 2);
}

TEST_CASE("inference: the forward pass as a kernel benchmark times it, and no gradient") {
    const network net = zoo::resnet18();
    const pass_selection forward{.forward = true};
    const auto train = phase_time(net, v100(), cost::kernel{}, forward, {.batch = 32});
    const auto infer = phase_time(net, v100(), cost::kernel{}, forward, {.batch = 32, .inference = true});
    CHECK(infer.total() < train.total());
    CHECK_THROWS_WITH_AS(phase_time(net, v100(), cost::kernel{}, {.forward = true, .backward_data = true},
                                    {.batch = 32, .inference = true}),
                         doctest::Contains("inference runs the forward pass alone, not forward+backward-data"),
                         invalid_argument);
}
