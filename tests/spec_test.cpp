// Networks from specs (zoo/spec.hpp): single GEMMs and convolutions with their hand-counted FLOPs, zoo networks
// with options, every error path; pass selection and phase_time (phase_time.hpp).
#include <doctest/doctest.h>

#include <string>
#include <steptime/steptime.hpp>

using namespace steptime;

namespace {

// The message of the invalid_argument that from_spec throws, or what happened instead.
std::string error_of(std::string_view spec) {
    try {
        const auto net = zoo::from_spec(spec);
        return net ? "<built " + net->name() + ">" : "<nullopt>";
    } catch (const invalid_argument& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("<other exception: ") + e.what() + ">";
    }
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

network spec(std::string_view s) {
    auto net = zoo::from_spec(s);
    REQUIRE(net);
    return std::move(*net);
}

// FLOPs of one pass summed over the network.
double pass_flops(const network& net, pass_selection p, std::int64_t batch = 0) {
    return phase_time(net, devices::get("v100-sxm2-16gb"), cost::paleo{}, p, {batch, element_type::fp32}).work.value();
}

constexpr pass_selection fwd{true, false, false}, bwd_data{false, true, false}, bwd_weights{false, false, true};
constexpr pass_selection all_passes{true, true, true};

}  // namespace

TEST_CASE("gemm spec: 2MNK FLOPs in each pass, A, B and C once each, transposes kept in the name only") {
    // DeepBench's first training GEMM row: M=1760, N=128, K=1760; 2*1760*128*1760 = 792,985,600.
    const network net = spec("gemm:m=1760,n=128,k=1760");
    CHECK(net.native_batch == 128);
    CHECK(net.name() == "gemm:m=1760,n=128,k=1760,ta=0,tb=0");
    CHECK(net.parameter_count() == 1760 * 1760);
    CHECK(pass_flops(net, fwd) == 792'985'600.0);
    CHECK(pass_flops(net, bwd_data) == 792'985'600.0);  // fed through "x": the data gradient is costed
    CHECK(pass_flops(net, bwd_weights) == 792'985'600.0);
    CHECK(pass_flops(net, all_passes) == 3 * 792'985'600.0);
    // A non-square one: 2*35*8457*2560 = 1,515,494,400 (DeepBench's M=35, N=8457, K=2560 row).
    const network odd = spec("gemm:m=35,n=8457,k=2560,ta=1,tb=0");
    CHECK(odd.name() == "gemm:m=35,n=8457,k=2560,ta=1,tb=0");
    CHECK(pass_flops(odd, fwd) == 1'515'494'400.0);
    // Forward bytes: A (MxK), B (KxN), C (MxN) in FP32.
    const auto t = phase_time(odd, devices::get("v100-sxm2-16gb"), cost::paleo{}, fwd, {});
    CHECK(t.traffic.value() == 4.0 * (35 * 2560 + 2560 * 8457 + 35 * 8457));
    // The transposes change nothing the model sees.
    CHECK(pass_flops(spec("gemm:m=35,n=8457,k=2560,ta=0,tb=1"), all_passes) == pass_flops(odd, all_passes));
}

TEST_CASE("conv2d spec: 2 N P Q K C R S FLOPs, P and Q by hand") {
    // ResNet's first layer: 224x224x3, 64 filters 7x7, stride 2, pad 3: P = (224 + 6 - 7) / 2 + 1 = 112.
    // 2 * 16 * 112 * 112 * 64 * 3 * 7 * 7 = 3,776,446,464.
    const network first = spec("conv2d:n=16,h=224,w=224,c=3,k=64,r=7,s=7,stride=2,pad=3");
    CHECK(first.native_batch == 16);
    CHECK(first.at("conv").output.str() == "112x112x64");
    CHECK(first.parameter_count() == 7 * 7 * 3 * 64);  // no bias
    CHECK(pass_flops(first, fwd) == 3'776'446'464.0);
    CHECK(pass_flops(first, bwd_data) == 3'776'446'464.0);
    CHECK(pass_flops(first, bwd_weights) == 3'776'446'464.0);
    // 112x112x64 to 128 filters 3x3, pad 1: P = (112 + 2 - 3) / 1 + 1 = 112; 2*16*112*112*128*64*9 = 29,595,009,024.
    const network mid = spec("conv2d:n=16,h=112,w=112,c=64,k=128,r=3,s=3,pad=1");
    CHECK(mid.at("conv").output.str() == "112x112x128");
    CHECK(pass_flops(mid, fwd) == 29'595'009'024.0);
    // Defaults stride 1, pad 0: 14x14 with 3x3 gives 12x12; 2*8*12*12*256*512*9 = 2,717,908,992.
    const network valid = spec("conv2d:n=8,h=14,w=14,c=512,k=256,r=3,s=3");
    CHECK(valid.at("conv").output.str() == "12x12x256");
    CHECK(pass_flops(valid, fwd) == 2'717'908'992.0);
    // Rectangular kernels: r is the height, s the width. 161x700x1, 32 filters 20x5, stride 2:
    // P = (161 - 20) / 2 + 1 = 71, Q = (700 - 5) / 2 + 1 = 348; 2*4*71*348*32*1*20*5 = 632,524,800.
    const network speech = spec("conv2d:n=4,h=161,w=700,c=1,k=32,r=20,s=5,stride=2");
    CHECK(speech.at("conv").output.str() == "71x348x32");
    CHECK(pass_flops(speech, fwd) == 632'524'800.0);
    // Groups divide the work: 32 groups of 8 channels, 2*1*56*56*256*(256/32)*9 = 115,605,504.
    const network grouped = spec("conv2d:n=1,h=56,w=56,c=256,k=256,r=3,s=3,pad=1,groups=32");
    CHECK(grouped.name() == "conv2d:n=1,h=56,w=56,c=256,k=256,r=3,s=3,stride=1,pad=1,groups=32");
    CHECK(pass_flops(grouped, fwd) == 115'605'504.0);
    // The batch of an estimate overrides the spec's n, as for any network.
    CHECK(pass_flops(valid, fwd, 16) == 2 * 2'717'908'992.0);
    // Per-dimension pads and strides (Inception v3's 1x7 and 7x1): 17x17x128, 192 filters 1x7, pad_w 3 keeps
    // 17x17; 2*64*17*17*192*128*7 = 6,363,807,744. The shared key fills the dimension not named.
    const network wide = spec("conv2d:n=64,h=17,w=17,c=128,k=192,r=1,s=7,pad_w=3");
    CHECK(wide.name() == "conv2d:n=64,h=17,w=17,c=128,k=192,r=1,s=7,stride=1,pad_h=0,pad_w=3");
    CHECK(wide.at("conv").output.str() == "17x17x192");
    CHECK(pass_flops(wide, fwd) == 6'363'807'744.0);
    // stride_h 2 with the shared stride 1: P = (35 + 2 - 3) / 2 + 1 = 18, Q = 35.
    const network tall = spec("conv2d:n=1,h=35,w=35,c=8,k=8,r=3,s=3,pad=1,stride_h=2");
    CHECK(tall.name() == "conv2d:n=1,h=35,w=35,c=8,k=8,r=3,s=3,stride_h=2,stride_w=1,pad=1");
    CHECK(tall.at("conv").output.str() == "18x35x8");
    // Both named equal: the same layer and name as the shared key.
    CHECK(spec("conv2d:n=8,h=14,w=14,c=512,k=256,r=3,s=3,pad_h=1,pad_w=1").name() ==
          spec("conv2d:n=8,h=14,w=14,c=512,k=256,r=3,s=3,pad=1").name());
}

TEST_CASE("recurrent specs: the steps' GEMMs and gates, back through time, one weight-gradient GEMM") {
    // DeepBench's LSTM row (rnn_bench.cu: hidden 1024, batch 128, 25 steps, CUDNN_SKIP_INPUT): 4 gates, so
    // each step multiplies [128 x 1024] by [1024 x 4096], 2*128*4096*1024 = 1,073,741,824 FLOPs, and its gates
    // kernel does 4 FLOPs per gate element, 4*128*4096 = 2,097,152.
    const network lstm = spec("lstm:hidden=1024,batch=128,steps=25,skip_input=1");
    CHECK(lstm.name() == "lstm:hidden=1024,batch=128,steps=25,input=1024,skip_input=1");
    CHECK(lstm.native_batch == 128);
    CHECK(lstm.parameter_count() == 4 * 1024 * (1024 + 2));  // recurrent weights and two biases per gate
    CHECK(pass_flops(lstm, fwd) == 25 * (1'073'741'824.0 + 2'097'152.0));
    CHECK(pass_flops(lstm, bwd_data) == 25 * (1'073'741'824.0 + 2'097'152.0));
    // One GEMM over the 25 x 128 rows, and the biases' gradients: the gates' gradients summed, 3200 x 4096.
    CHECK(pass_flops(lstm, bwd_weights) == 25 * 1'073'741'824.0 + 3200 * 4096);
    // With input weights (input 512): the input's projections for all steps, [3200 x 512][512 x 4096], and the
    // same again for the input gradient and for its weights' gradient: 2*3200*4096*512 = 13,421,772,800.
    const network projected = spec("lstm:hidden=1024,batch=128,steps=25,input=512");
    CHECK(projected.parameter_count() == 4 * 1024 * (512 + 1024 + 2));
    CHECK(pass_flops(projected, fwd) == pass_flops(lstm, fwd) + 13'421'772'800.0);
    CHECK(pass_flops(projected, bwd_data) == pass_flops(lstm, bwd_data) + 13'421'772'800.0);
    CHECK(pass_flops(projected, bwd_weights) == pass_flops(lstm, bwd_weights) + 13'421'772'800.0);
    // A GRU has 3 gates: per step 2*128*3072*1024 = 805,306,368 in its GEMM, 4*128*3072 = 1,572,864 in its gates.
    const network gru = spec("gru:hidden=1024,batch=128,steps=25");
    CHECK(gru.parameter_count() == 3 * 1024 * (1024 + 1024 + 2));
    CHECK(pass_flops(gru, fwd) == 2.0 * 3200 * 3072 * 1024 + 25 * (805'306'368.0 + 1'572'864.0));
    // A plain RNN, 1 gate: DeepBench's vanilla row, 2*16*1760*1760 = 99,123,200 per step, biases over 800 x 1760.
    CHECK(pass_flops(spec("rnn:hidden=1760,batch=16,steps=50,skip_input=1"), bwd_weights) == 50 * 99'123'200.0 + 800 * 1760);
    // Fed by the data, not through "x": cuDNN's backward-data call still writes dx (the other layers skip
    // the data gradient of the network's input), so the pass is the same.
    network bare("bare lstm");
    bare.add("data", ops::input{tensor_shape::image(25, 1, 512)});
    ops::recurrent r;
    r.hidden = 1024;
    bare.add("lstm", r, {"data"});
    CHECK(pass_flops(bare, bwd_data, 128) == pass_flops(projected, bwd_data));
}

TEST_CASE("recurrent layers in the kernel model: each step's kernels priced as their GEMMs and gates alone") {
    const device& v100 = devices::get("v100-sxm2-16gb");
    const cost::kernel model;
    const auto time = [&](const network& net, pass_selection p) {
        return phase_time(net, v100, model, p, {0, element_type::fp32}).total().value();
    };
    const network lstm = spec("lstm:hidden=1024,batch=128,steps=25,skip_input=1");
    // The weight gradient is one GEMM, [4096 x 3200][3200 x 1024] (the gemm spec of that shape), and the
    // biases' reduction, memory-bound: 4 B x (3200 x 4096 read + 2 x 4096 written) at 0.80 of 900 GB/s, plus 5 us.
    const double biases = 4.0 * (3200 * 4096 + 2 * 4096) / (0.80 * 900e9) + 5e-6;
    CHECK(time(lstm, bwd_weights) ==
          doctest::Approx(time(spec("gemm:m=1024,n=4096,k=3200"), fwd) + biases).epsilon(1e-12));
    // Forward, each of the 25 steps: the [128 x 1024][1024 x 4096] GEMM, and the gates kernel, memory-bound:
    // it reads the gate sums, x(t) and c(t-1) and writes h(t), c(t) and the 4 activated gates,
    // 4 B x 128 x (4096 + 1024 + 1024 + 1024 + 1024 + 4096) = 6,291,456 B, at 0.80 of 900 GB/s, plus 5 us.
    const double gates = 6'291'456.0 / (0.80 * 900e9) + 5e-6;
    CHECK(time(lstm, fwd) == doctest::Approx(25 * (time(spec("gemm:m=4096,n=128,k=1024"), fwd) + gates)).epsilon(1e-12));
    // A training step's passes are the layer's kernels: the host issues each pass as one cuDNN call, so a short
    // LSTM's forward pass waits for one dispatch (30 us), not for 401 of them (12 ms).
    const network small = spec("lstm:hidden=256,batch=32,steps=200");
    const device& h100 = devices::get("h100-sxm5-80gb");
    const step_estimate e = estimate(small, h100, model);
    const double dispatch = model.host_dispatch.value();
    CHECK(e.forward.value() ==
          doctest::Approx(dispatch + phase_time(small, h100, model, fwd, {}).total().value()).epsilon(1e-12));
    CHECK(e.forward.value() < 401 * dispatch);
}

TEST_CASE("zoo specs: a name alone, or with resolution and classes") {
    CHECK(spec("vgg16").parameter_count() == zoo::find("vgg16")->build({}).parameter_count());
    CHECK(spec("vgg16:").parameter_count() == zoo::find("vgg16")->build({}).parameter_count());
    const network small = spec("vgg11:resolution=160,classes=10");
    zoo::options o;
    o.resolution = 160;
    o.classes = 10;
    CHECK(small.parameter_count() == zoo::find("vgg11")->build(o).parameter_count());
    CHECK(small.at("data").output.str() == "160x160x3");
    CHECK(small.at("fc8").output.str() == "1x1x10");
    CHECK(spec("alexnet:classes=10").at("data").output.str() == "224x224x3");
}

TEST_CASE("specs: names that are not specs are left to the caller (a file path)") {
    CHECK(!zoo::from_spec("resnet9000"));
    CHECK(!zoo::from_spec("data/nets/paleo/alex_v2.json"));
    CHECK(!zoo::from_spec("dir/a:b.json"));  // text before ':' that is not a name
    CHECK(!zoo::from_spec("./x:1"));
}

TEST_CASE("specs: every error names the spec, the key and what was expected") {
    const std::string g = "gemm:m=1,n=2,k=3";
    CHECK(contains(error_of(""), "empty model spec"));
    CHECK(contains(error_of("  "), "empty model spec"));
    // Unknown key, with the accepted ones.
    auto e = error_of(g + ",q=4");
    CHECK(contains(e, "model spec 'gemm:m=1,n=2,k=3,q=4': unknown key 'q' (gemm accepts m, n, k, ta, tb)"));
    CHECK(contains(error_of("conv2d:n=1,h=8,w=8,c=1,k=1,r=1,s=1,padding=1"),
                   "unknown key 'padding' (conv2d accepts n, h, w, c, k, r, s, stride, pad, groups, stride_h, stride_w, pad_h, pad_w)"));
    CHECK(contains(error_of("vgg16:batch=8"), "unknown key 'batch' (vgg16 accepts resolution, classes)"));
    // Missing required keys, one at a time, and the bare op.
    CHECK(contains(error_of("gemm:m=1,n=2"), "missing key 'k' (gemm needs m, n, k)"));
    CHECK(contains(error_of("gemm"), "missing key 'm'"));
    CHECK(contains(error_of("gemm:"), "missing key 'm'"));
    CHECK(contains(error_of("conv2d:n=1,h=8,w=8,c=1,k=1,r=1"), "missing key 's' (conv2d needs n, h, w, c, k, r, s)"));
    // Duplicates.
    CHECK(contains(error_of(g + ",m=4"), "key 'm' is given twice"));
    // Values: non-integer, non-positive, out of range, not 0 or 1.
    CHECK(contains(error_of("gemm:m=1.5,n=2,k=3"), "key 'm' is '1.5', expected a positive integer"));
    CHECK(contains(error_of("gemm:m=x,n=2,k=3"), "key 'm' is 'x', expected a positive integer"));
    CHECK(contains(error_of("gemm:m=,n=2,k=3"), "key 'm' is '', expected a positive integer"));
    CHECK(contains(error_of("gemm:m=0,n=2,k=3"), "key 'm' is 0, expected a positive integer"));
    CHECK(contains(error_of("gemm:m=-4,n=2,k=3"), "key 'm' is -4, expected a positive integer"));
    CHECK(contains(error_of("gemm:m=99999999999999999999,n=2,k=3"), "key 'm' is 99999999999999999999, expected a positive integer"));
    CHECK(contains(error_of("gemm:m=1,n=4294967296,k=3"), "key 'n' is 4294967296, expected a positive integer up to 2147483648"));
    CHECK(contains(error_of(g + ",ta=2"), "key 'ta' is 2, expected 0 or 1"));
    CHECK(contains(error_of("conv2d:n=1,h=8,w=8,c=1,k=1,r=1,s=1,pad=-1"), "key 'pad' is -1, expected a non-negative integer"));
    CHECK(contains(error_of("conv2d:n=1,h=8,w=8,c=1,k=1,r=1,s=1,stride=0"), "key 'stride' is 0, expected a positive integer"));
    CHECK(contains(error_of("conv2d:n=1,h=8,w=8,c=1,k=1,r=1,s=1,stride_w=0"), "key 'stride_w' is 0, expected a positive integer"));
    CHECK(contains(error_of("conv2d:n=1,h=8,w=8,c=1,k=1,r=1,s=1,pad_h=-1"), "key 'pad_h' is -1, expected a non-negative integer"));
    CHECK(contains(error_of("alexnet:resolution=0"), "key 'resolution' is 0"));
    // Malformed items.
    CHECK(contains(error_of("gemm:m=1,n"), "'n', expected key=value"));
    CHECK(contains(error_of("gemm:m=1,,n=2,k=3"), "an empty item, expected key=value"));
    CHECK(contains(error_of(g + ","), "a trailing ','"));
    CHECK(contains(error_of("gemm:=1,n=2,k=3"), "'=1' has no key"));
    // Unknown ops, with the known ones.
    CHECK(contains(error_of("matmul:m=1"), "model spec 'matmul:m=1': unknown model 'matmul' (known: gemm, conv2d, lstm, gru, rnn, gpt, alexnet,"));
    // Shapes that do not work out, sizes that overflow: invalid_argument naming the spec and the layer.
    e = error_of("conv2d:n=1,h=2,w=2,c=1,k=1,r=3,s=3");
    CHECK(contains(e, "model spec 'conv2d:n=1,h=2,w=2,c=1,k=1,r=3,s=3': layer 'conv': window of 3 does not fit an input of 2"));
    CHECK(contains(error_of("conv2d:n=1,h=8,w=8,c=6,k=4,r=1,s=1,groups=4"), "expected positive counts divisible by the groups"));
    CHECK(contains(error_of("conv2d:n=1,h=4294967296,w=4294967296,c=4,k=1,r=1,s=1"), "overflows 64-bit integers"));
    CHECK(contains(error_of("gemm:m=4294967296,n=1,k=4294967296"), "overflows 64-bit integers"));
    CHECK(contains(error_of("alexnet:resolution=16"), "model spec 'alexnet:resolution=16': layer '"));
    CHECK(contains(error_of("lstm:hidden=1024,batch=128"), "missing key 'steps' (lstm needs hidden, batch, steps)"));
    CHECK(contains(error_of("gru:hidden=8,batch=1,steps=2,skip_input=2"), "key 'skip_input' is 2, expected 0 or 1"));
    CHECK(contains(error_of("lstm:hidden=9223372036854775807,batch=1,steps=1"), "overflows 64-bit integers"));
    CHECK(contains(error_of("rnn:hidden=8,batch=1,steps=2,input=4,skip_input=1"),
                   "skips its input weights, so expects 8 input features (hidden), got 4"));
}

TEST_CASE("parse_phases: names, '+' lists, and the canonical name back") {
    CHECK(parse_phases("forward") == fwd);
    CHECK(parse_phases("backward-data") == bwd_data);
    CHECK(parse_phases("backward-weights") == bwd_weights);
    CHECK(parse_phases("backward") == pass_selection{false, true, true});
    CHECK(parse_phases("training") == all_passes);
    CHECK(parse_phases("forward+backward-weights") == pass_selection{true, false, true});
    CHECK(parse_phases("backward-weights+backward-data+forward") == all_passes);
    CHECK(parse_phases("forward+forward") == fwd);
    for (const char* bad : {"", "+", "forward+", "+forward", "Forward", "backward_data", "forward backward", "fwd"})
        CHECK_MESSAGE(!parse_phases(bad), bad);
    CHECK(to_string(all_passes) == "training");
    CHECK(to_string(*parse_phases("forward+backward")) == "training");
    CHECK(to_string(*parse_phases("backward-data+backward-weights")) == "backward");
    CHECK(to_string(pass_selection{true, true, false}) == "forward+backward-data");
    CHECK(to_string(pass_selection{true, false, true}) == "forward+backward-weights");
    CHECK(to_string(bwd_data) == "backward-data");
}

TEST_CASE("phase_time: training is the sum of the three passes, without the update") {
    const device& dev = devices::get("a100-sxm4-40gb");
    const cost::paleo model{};
    for (const auto* s : {"gemm:m=1760,n=128,k=1760", "conv2d:n=16,h=56,w=56,c=64,k=64,r=3,s=3,pad=1", "vgg11"}) {
        CAPTURE(s);
        const network net = spec(s);
        const auto sum = phase_time(net, dev, model, fwd, {}) + phase_time(net, dev, model, bwd_data, {}) +
                         phase_time(net, dev, model, bwd_weights, {});
        const auto all = phase_time(net, dev, model, all_passes, {});
        CHECK(all.total().value() == doctest::Approx(sum.total().value()).epsilon(1e-12));
        CHECK(all.work.value() == doctest::Approx(sum.work.value()).epsilon(1e-12));
        CHECK(all.traffic.value() == doctest::Approx(sum.traffic.value()).epsilon(1e-12));
        // estimate()'s forward and backward, without its update.
        const step_estimate e = estimate(net, dev, model);
        CHECK(all.total().value() == doctest::Approx((e.forward + e.backward).value()).epsilon(1e-12));
    }
    // The per-layer rows sum to the total.
    const auto e = estimate_phases(spec("vgg11"), dev, model, all_passes);
    CHECK(e.passes == all_passes);
    CHECK(e.cost_model == "paleo");
    seconds rows{};
    for (const auto& l : e.layers) rows += l.time.total();
    CHECK(rows.value() == doctest::Approx(e.total.total().value()));
}

TEST_CASE("phase_time: checks its arguments as estimate() does") {
    const network net = spec("gemm:m=8,n=8,k=8");
    const device& dev = devices::get("v100-sxm2-16gb");
    CHECK_THROWS_AS(phase_time(net, dev, cost::paleo{}, pass_selection{}, {}), invalid_argument);
    CHECK_THROWS_AS(phase_time(net, dev, cost::paleo{}, fwd, {-1, element_type::fp32}), invalid_argument);
    CHECK_THROWS_AS(phase_time(net, dev, cost::paleo{}, fwd, {max_batch + 1, element_type::fp32}), invalid_argument);
    cost::paleo bad;
    bad.ppp_compute = ratio_of(2.0);
    CHECK_THROWS_AS(phase_time(net, dev, bad, fwd, {}), invalid_argument);
    device broken = dev;
    broken.memory_bandwidth = bytes_per_second_of(0);
    CHECK_THROWS(phase_time(net, broken, cost::paleo{}, fwd, {}));
    CHECK_THROWS_AS(phase_time(network("empty"), dev, cost::paleo{}, fwd, {}), invalid_model);
}
