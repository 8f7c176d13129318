// The network DAG (graph/network.hpp), its pass bounds (graph/bounds.hpp) and the estimate() facade's
// handling of graphs and batches.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <typeinfo>
#include <utility>
#include <vector>
#include <steptime/io.hpp>

#include "support/csv.hpp"
#include "support/errors.hpp"

using namespace steptime;

namespace {


ops::activation relu() { return ops::activation{}; }
ops::elementwise sum() { return ops::elementwise{}; }

// Names of a vertex range, in order.
template <class Range>
std::vector<std::string> names(const network& net, const Range& r) {
    std::vector<std::string> out;
    for (auto v : r) out.push_back(net[v].name);
    return out;
}

// Per-vertex times from a name -> milliseconds table (the others 0).
std::vector<seconds> times(const network& net, const std::map<std::string, double>& ms) {
    std::vector<seconds> t(net.size());
    for (const auto& [name, value] : ms) t[*net.find(name)] = milliseconds_of(value);
    return t;
}
double ms(seconds t) { return t.value() * 1e3; }

}  // namespace

TEST_CASE("builder: errors name the layer") {
    network net("n");
    net.add("data", ops::input{tensor_shape::image(8, 8, 16)});
    net.add("wide", ops::input{tensor_shape::image(8, 8, 32)});
    CHECK_ERROR(invalid_model, (net.add("conv", relu(), {"nope"})), "layer 'conv'", "unknown parent 'nope'");
    CHECK_ERROR(invalid_model, (net.add("data", relu(), {"wide"})), "layer 'data'", "twice");
    CHECK_ERROR(invalid_model, (net.add("", relu(), {"data"})), "empty name");
    CHECK_ERROR(invalid_model, (net.add("join", sum(), {"data", "wide"})), "layer 'join'", "8x8x16", "8x8x32");
    // A failed add leaves the network as it was.
    CHECK(net.size() == 2);
    CHECK_FALSE(net.find("conv"));
    CHECK_FALSE(net.find("join"));
    CHECK_ERROR(invalid_model, net.at("missing"), "network 'n'", "'missing'");
}

TEST_CASE("builder: parents keep the order they were given in, inputs follow them") {
    network net;
    net.add("data", ops::input{tensor_shape::image(8, 8, 3)});
    net.add("a", relu(), {"data"});
    ops::conv2d c;
    c.filters = 5;
    c.kernel = {1, 1};
    c.stride = {1, 1};
    net.add("b", c, {"data"});
    const auto cat = net.add("cat", ops::concat{2}, {"b", "a"});  // b (5 channels) before a (3)
    CHECK(names(net, net.parents(cat)) == std::vector<std::string>{"b", "a"});
    REQUIRE(net[cat].inputs.size() == 2);
    CHECK(net[cat].inputs[0].str() == "8x8x5");
    CHECK(net[cat].inputs[1].str() == "8x8x3");
    CHECK(net[cat].output.str() == "8x8x8");
    CHECK(names(net, net.children(*net.find("data"))) == std::vector<std::string>{"a", "b"});
    // The same parent twice (x * x) is two inputs.
    const auto sq = net.add("square", ops::elementwise{ops::elementwise::operation::multiply}, {"a", "a"});
    CHECK(net.parents(sq).size() == 2);
    CHECK(net[sq].inputs.size() == 2);
}

TEST_CASE("vertices() is a topological order") {
    const auto check = [](const network& net) {
        std::map<network::vertex, std::size_t> position;
        for (auto v : net.vertices()) position[v] = position.size();
        CHECK(position.size() == net.size());
        for (auto v : net.vertices())
            for (auto p : net.parents(v)) CHECK_MESSAGE(position[p] < position[v], net[p].name << " after " << net[v].name);
    };
    // The converted Caffe nets list layers in name order, many before their parents (densenet's
    // "BatchNorm1" before "Convolution1", resnet50's "res2a" before "res2a_branch1"); inception_v3 nests
    // blocks two deep. Whatever the file order, the network must come out ordered.
    check(io::load_paleo_json(test_support::source_path("data/nets/paleo/converted/densenet.json")));
    check(io::load_paleo_json(test_support::source_path("data/nets/paleo/converted/resnet50.json")));
    check(io::load_paleo_json(test_support::source_path("data/nets/paleo/inception_v3.json")));
}

TEST_CASE("input data: the network's input, and a pad or reshape of it; nothing computed from weights") {
    // DLBS's ResNet stem pads the image by 3 for a VALID 7x7 convolution (tf.pad), then a ResNet pads each 3x3's input.
    network net;
    net.add("data", ops::input{tensor_shape::image(224, 224, 3)});
    net.add("stem_pad", ops::pad{{3, 3, 0}, {3, 3, 0}}, {"data"});
    net.add("flat", ops::reshape::flatten(), {"stem_pad"});
    net.add("stem", zoo::detail::conv(64, {7, 7}, 2, {0, 0}, false), {"stem_pad"});
    net.add("relu", ops::activation{}, {"stem"});
    net.add("pad", ops::pad{{1, 1, 0}, {1, 1, 0}}, {"relu"});
    net.add("second_input", ops::input{tensor_shape::image(230, 230, 3)});
    net.add("sum", ops::elementwise{}, {"stem_pad", "second_input"});  // data, but not a copy or view of it
    const auto data = [&](const char* name) { return net.at(name).input_data; };
    CHECK(data("data"));
    CHECK(data("stem_pad"));
    CHECK(data("flat"));
    CHECK(data("second_input"));
    CHECK_FALSE(data("stem"));
    CHECK_FALSE(data("relu"));
    CHECK_FALSE(data("pad"));
    CHECK_FALSE(data("sum"));
    CHECK(net.at("stem").output.str() == "112x112x64");  // (224 + 6 - 7) / 2 + 1
}

TEST_CASE("pass_bounds: chain, diamond, nested branches") {
    network net;
    net.add("data", ops::input{tensor_shape::image(4, 4, 4)});

    SUBCASE("a chain has no parallelism: lower == upper == the sum") {
        net.add("a", relu(), {"data"});
        net.add("b", relu(), {"a"});
        net.add("c", relu(), {"b"});
        const auto b = pass_bounds(net, times(net, {{"a", 1}, {"b", 2}, {"c", 3}}));
        CHECK(ms(b.lower) == doctest::Approx(6));  // 1 + 2 + 3
        CHECK(ms(b.upper) == doctest::Approx(6));
    }
    SUBCASE("a diamond: lower = the longer branch") {
        //        a(1)
        //   b(2)      c(5)
        //        d(1)
        net.add("a", relu(), {"data"});
        net.add("b", relu(), {"a"});
        net.add("c", relu(), {"a"});
        net.add("d", sum(), {"b", "c"});
        const auto b = pass_bounds(net, times(net, {{"a", 1}, {"b", 2}, {"c", 5}, {"d", 1}}));
        CHECK(ms(b.lower) == doctest::Approx(7));  // a + c + d = 1 + 5 + 1
        CHECK(ms(b.upper) == doctest::Approx(9));  // 1 + 2 + 5 + 1
        // Swapping the branch times moves the critical path, not the bound.
        const auto s = pass_bounds(net, times(net, {{"a", 1}, {"b", 5}, {"c", 2}, {"d", 1}}));
        CHECK(ms(s.lower) == doctest::Approx(7));
    }
    SUBCASE("nested branches: a branch that itself forks and joins (PALEO crashes on these)") {
        //            a
        //       b          f
        //     c   d        |
        //       e          |
        //            g
        net.add("a", relu(), {"data"});
        net.add("b", relu(), {"a"});
        net.add("c", relu(), {"b"});
        net.add("d", relu(), {"b"});
        net.add("e", sum(), {"c", "d"});
        net.add("f", relu(), {"a"});
        net.add("g", sum(), {"e", "f"});
        // Inner fork longest: a + b + max(c, d) + e + g = 1 + 1 + 3 + 1 + 1 = 7 > a + f + g = 1 + 4 + 1 = 6.
        auto b = pass_bounds(net, times(net, {{"a", 1}, {"b", 1}, {"c", 2}, {"d", 3}, {"e", 1}, {"f", 4}, {"g", 1}}));
        CHECK(ms(b.lower) == doctest::Approx(7));
        CHECK(ms(b.upper) == doctest::Approx(13));  // 1 + 1 + 2 + 3 + 1 + 4 + 1
        // Outer branch longest: a + f + g = 1 + 9 + 1 = 11 > 7.
        b = pass_bounds(net, times(net, {{"a", 1}, {"b", 1}, {"c", 2}, {"d", 3}, {"e", 1}, {"f", 9}, {"g", 1}}));
        CHECK(ms(b.lower) == doctest::Approx(11));
        CHECK(ms(b.upper) == doctest::Approx(18));
    }
}

TEST_CASE("issue_queue: the host issues kernels 10 us apart, the GPU runs them in order") {
    const auto us = [](double t) { return microseconds_of(t); };
    const auto finish = [&](std::initializer_list<std::pair<double, double>> layers) {  // {kernels, busy us}
        issue_queue q{us(10)};
        for (const auto& [kernels, busy] : layers) q.add(kernels, us(busy));
        return q.finished().value() * 1e6;
    };
    // One 100 us kernel: issued at 10 us, done at 110.
    CHECK(finish({{1, 100}}) == doctest::Approx(110));
    // Four 1 us kernels: the host binds; the last is issued at 40 and runs 1 us.
    CHECK(finish({{4, 4}}) == doctest::Approx(41));
    // A heavy kernel, then ten light ones: issued by 110, they wait for it and run back to back (110 + 10 x 1).
    CHECK(finish({{1, 100}, {10, 10}}) == doctest::Approx(120));
    // The other way round the GPU idles while the light ones are issued; the heavy one starts at its issue,
    // 110, and ends at 210: twice the larger of the GPU's 110 us and the host's 110 us.
    CHECK(finish({{10, 10}, {1, 100}}) == doctest::Approx(210));
    // Time without a kernel (a transfer) follows the GPU's work.
    CHECK(finish({{1, 100}, {0, 5}}) == doctest::Approx(115));

    // The closed form per layer agrees with issuing each kernel on its own.
    const std::vector<std::pair<int, double>> layers{{3, 50}, {1, 2}, {7, 140}, {2, 1}, {5, 30}, {1, 400}, {9, 9}};
    double issued = 0, done = 0;
    for (const auto& [kernels, busy] : layers)
        for (int j = 0; j < kernels; ++j) {
            issued += 10;
            done = std::max(done, issued) + busy / kernels;
        }
    issue_queue q{us(10)};
    for (const auto& [kernels, busy] : layers) q.add(kernels, us(busy));
    CHECK(q.finished().value() * 1e6 == doctest::Approx(done));
    // Without a dispatch time a pass is its layers' sum.
    issue_queue free{us(0)};
    for (const auto& [kernels, busy] : layers) free.add(kernels, us(busy));
    CHECK(free.finished().value() * 1e6 == doctest::Approx(50 + 2 + 140 + 1 + 30 + 400 + 9));
}

TEST_CASE("estimate() on inception_v3, the net PALEO's parallel bounds crash on (paleo-model.md 6.3)") {
    const auto net = io::load_paleo_json(test_support::source_path("data/nets/paleo/inception_v3.json"));
    const device& dev = devices::get("paleo:TITAN_X");
    const auto check = [&](const step_estimate& e) {
        for (const auto& b : {e.forward_bounds, e.backward_bounds}) {
            CHECK(std::isfinite(b.lower.value()));
            CHECK(std::isfinite(b.upper.value()));
            CHECK(b.lower.value() > 0);
            CHECK(b.lower < b.upper);  // the four-branch blocks run side by side
        }
        // The sequential bound is the pass sum.
        CHECK(test_support::close(e.forward_bounds.upper.value(), e.forward.value(), 1e-12));
        CHECK(test_support::close(e.backward_bounds.upper.value(), e.backward.value(), 1e-12));
    };
    check(estimate(net, dev, cost::paleo{}));
    check(estimate(net, dev, cost::paleo_compat{}));
    check(estimate(net, dev, cost::roofline{}));
}

TEST_CASE("estimate(): empty network, batch 0 = native, batches out of range") {
    const device& dev = devices::get("paleo:TITAN_X");
    CHECK_ERROR(invalid_model, estimate(network("void"), dev, cost::paleo{}), "'void'");

    const network net = zoo::alexnet();
    REQUIRE(net.native_batch == 128);  // One weird trick's batch (paleo-model.md 6.1: alex_v2, batch 128)
    const auto native = estimate(net, dev, cost::paleo{}, {.batch = 0});
    const auto explicit128 = estimate(net, dev, cost::paleo{}, {.batch = 128});
    CHECK(native.batch == 128);
    CHECK(native.total == explicit128.total);
    CHECK(estimate(net, dev, cost::paleo{}).batch == 128);  // default options: batch 0

    CHECK_ERROR(invalid_argument, estimate(net, dev, cost::paleo{}, {.batch = -1}), "-1");
    CHECK_ERROR(invalid_argument, estimate(net, dev, cost::paleo{}, {.batch = 1'000'000'000'000}), "1000000000000");
    CHECK_NOTHROW(estimate(net, dev, cost::paleo{}, {.batch = 1}));
}

TEST_CASE("sizes beyond 64 bits throw invalid_model instead of wrapping") {
    network net;
    net.add("data", ops::input{tensor_shape::image(4096, 4096, 256)});  // 2^32 elements per sample: fine
    // 2^40 outputs x 2^32 inputs = 2^72 weights.
    ops::dense fc;
    fc.outputs = std::int64_t{1} << 40;
    CHECK_ERROR(invalid_model, (net.add("fc", fc, {"data"})), "layer 'fc'");
    // 2^62 filters: 3 * 2^62 weights, and 4096*4096 * 2^62 output elements.
    ops::conv2d c;
    c.filters = std::int64_t{1} << 62;
    c.kernel = {1, 1};
    c.stride = {1, 1};
    CHECK_ERROR(invalid_model, (net.add("conv", c, {"data"})), "layer 'conv'");
}

TEST_CASE("activations held: a recomputed block drops all but its output and rebuilds them one block at a time") {
    // x(10) -> fc1(100) -> fc2(200) | fc3(300) -> fc4(40) | fc5(5): blocks 1 and 2 recomputed, fc5 in none.
    network net("checkpointed");
    net.add("x", ops::input{tensor_shape::image(1, 1, 10)});
    std::string last = "x";
    const std::pair<std::int64_t, int> layers[] = {{100, 1}, {200, 1}, {300, 2}, {40, 2}, {5, 0}};
    for (int i = 0; i < 5; ++i) {
        ops::dense d;
        d.outputs = layers[i].first;
        const std::string name = "fc" + std::to_string(i + 1);
        const auto v = net.add(name, d, {last});
        if (layers[i].second > 0) {
            net.set_block(v, layers[i].second);
            net.recompute(v);
        }
        last = name;
    }
    activation_tally held;
    for (auto v : net.vertices()) held.add(net, v, 1.0);  // a byte a value: bytes count values
    // A dense layer's weight gradient reads its input. Kept: x, fc2 (read by block 2), fc4 (read by fc5): 10 + 200
    // + 40 = 250; rebuilt: fc1's 100 in block 1, fc3's 300 in block 2, the larger 300; fc5's output no layer reads.
    CHECK(held.peak() == 550);
    activation_tally three;  // three micro-batches in flight keep theirs; one block is rebuilt at a time
    three.add_copies(held, 3);
    CHECK(three.peak() == 3 * 250 + 300);
    CHECK(net.activation_elements() == 655);  // PALEO's count: every output
    const auto e = estimate(net, devices::get("v100-sxm2-16gb"), cost::paleo{}, {.batch = 8});
    CHECK(e.memory.activations.value() == 550.0 * 8 * 4);  // FP32

    // A recomputed layer outside a block is its own checkpoint: nothing dropped (x's 10 kept for fc's gradient).
    network lone("lone");
    lone.add("x", ops::input{tensor_shape::image(1, 1, 10)});
    ops::dense d;
    d.outputs = 7;
    lone.recompute(lone.add("fc", d, {"x"}));
    activation_tally alone;
    for (auto v : lone.vertices()) alone.add(lone, v, 1.0);
    CHECK(alone.peak() == 10);
}

TEST_CASE("activations held: a GPT with full recompute keeps each transformer layer's output") {
    // The backward pass reads 16 s x h values of a layer's outputs: ln1's (read by qkv), qkv's 3 (attention),
    // attention's (proj), add1's (ln2), ln2's (fc1), fc1's 4 (GELU reads its input), GELU's 4 (fc2) and add2's (the
    // next layer's ln1); proj's, fc2's and the dropouts' only a sum or a dropout reads. The two dropouts keep their
    // masks, a byte a value (2 x 2048 bytes), and attention 4 heads' 32 x 32 probabilities, their dropout (2 bytes
    // each) and its mask (1): 4 x 32 x 32 x 5 = 20480 bytes. Recomputed, a layer keeps add2's one value and rebuilds
    // the rest, one layer at a time: 4 layers hold 3 x (15 x 2048 x 2 + 2 x 2048 + 20480) bytes fewer a sample, for 2
    // samples.
    const zoo::gpt_config plain{4, 64, 4, 32, 128, false};
    zoo::gpt_config recomputed = plain;
    recomputed.recompute = true;
    const device& dev = devices::get("a100-sxm4-80gb");
    const estimate_options opt{.batch = 2, .precision = element_type::fp16};
    const auto full = estimate(zoo::gpt(plain), dev, cost::kernel{}, opt);
    const auto checkpointed = estimate(zoo::gpt(recomputed), dev, cost::kernel{}, opt);
    CHECK(full.memory.activations.value() - checkpointed.memory.activations.value() ==
          3.0 * (15 * 2048 * 2 + 2 * 2048 + 20480) * 2);
}

TEST_CASE("activations held: read outside its block, or by its own backward pass, an output is kept") {
    // x(10) -> a(20) -> b(30) in block 1; c(40) <- b, e = ReLU(c), f(60) <- e, g = ReLU(f) and d(50) <- a in block
    // 2; all recomputed, all dense but the ReLUs.
    network net("skips");
    net.add("x", ops::input{tensor_shape::image(1, 1, 10)});
    const std::tuple<const char*, std::int64_t, const char*, int> layers[] = {
        {"a", 20, "x", 1}, {"b", 30, "a", 1}, {"c", 40, "b", 2}, {"e", 0, "c", 2}, {"f", 60, "e", 2}, {"g", 0, "f", 2},
        {"d", 50, "a", 2}};
    for (const auto& [name, width, parent, block] : layers) {
        ops::dense d;
        d.outputs = width;
        const auto v = width > 0 ? net.add(name, d, {parent}) : net.add(name, ops::activation{}, {parent});
        net.set_block(v, block);
        net.recompute(v);
    }
    activation_tally held;
    for (auto v : net.vertices()) held.add(net, v, 1.0);  // a byte a value: bytes count values
    // Kept: x (a reads it), a (d in block 2 reads it), b (c in block 2), g (ReLU reads its output; the network's):
    // 10 + 20 + 30 + 60 = 120. Rebuilt in block 2: e's 40 (ReLU reads its output, f its input). Held by none: c
    // (ReLU reads its output, not its input), f (likewise), d (no layer reads it).
    CHECK(held.peak() == 120 + 40);
    CHECK_ERROR(invalid_model, net.set_block(*net.find("a"), -1),
                "layer 'a' put in block -1, expected a block number from 1 (0: none)");
}

TEST_CASE("activations held: dropout keeps its mask and max pooling its indices, whatever the precision") {
    // x (4 x 4 x 2 = 32 values) -> 2x2 pooling, stride 2 (8 values) -> dropout -> dense(3), 2 bytes a value.
    // Max pooling's backward pass reads its input (64 bytes) and an int64 index per output (PyTorch's
    // max_pool2d_with_indices: 64 bytes); nothing reads its output. Dropout's reads its mask, a byte a value (8);
    // the dense layer's gradient reads dropout's output (16). Average pooling keeps its input and no indices.
    const auto held = [](ops::pool2d::method how) {
        network net("pooled");
        net.add("x", ops::input{tensor_shape::image(4, 4, 2)});
        net.add("pool", ops::pool2d{how, {2, 2}, {2, 2}}, {"x"});
        net.add("drop", ops::dropout{}, {"pool"});
        ops::dense d;
        d.outputs = 3;
        net.add("fc", d, {"drop"});
        activation_tally t;
        for (auto v : net.vertices()) t.add(net, v, 2.0);
        return t.peak();
    };
    CHECK(held(ops::pool2d::method::max) == 64 + 64 + 8 + 16);
    CHECK(held(ops::pool2d::method::average) == 64 + 8 + 16);
}

TEST_CASE("activations held: a view holds no storage of its own; a reader outside the recompute keeps an output") {
    // x (2 x 2 x 3 = 12 values) -> ReLU -> flatten -> dense(5): ReLU's output is held once, for its own gradient and
    // (through the view) the dense layer's; x no gradient reads (ReLU reads its output), the dense output none.
    network views("views");
    views.add("x", ops::input{tensor_shape::image(2, 2, 3)});
    views.add("r", ops::activation{}, {"x"});
    views.add("f", ops::reshape{{0}}, {"r"});
    ops::dense d;
    d.outputs = 5;
    views.add("d", d, {"f"});
    activation_tally held;
    for (auto v : views.vertices()) held.add(views, v, 1.0);
    CHECK(held.peak() == 12);

    // x(10) -> a(20) -> b(30) -> c(40), all in block 1, b not recomputed: b saved a's output going forward, so a's is
    // kept, as is b's own (not rebuilt): 10 + 20 + 30 = 60, nothing rebuilt.
    network partial("partial");
    partial.add("x", ops::input{tensor_shape::image(1, 1, 10)});
    std::string last = "x";
    for (const auto& [name, width] : {std::pair{"a", 20}, std::pair{"b", 30}, std::pair{"c", 40}}) {
        ops::dense fc;
        fc.outputs = width;
        const auto v = partial.add(name, fc, {last});
        partial.set_block(v, 1);
        if (std::string_view(name) != "b") partial.recompute(v);
        last = name;
    }
    activation_tally kept;
    for (auto v : partial.vertices()) kept.add(partial, v, 1.0);
    CHECK(kept.peak() == 60);
}
