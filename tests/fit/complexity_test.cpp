// Seed 000's complexity convention and seed 002's network characteristics (fit/complexity.hpp): the
// table's formulas on a small network, the counting conventions side by side, and seed 002 Tables 2 and 3
// against the zoo's networks and a Caffe-style AlexNet. GoogLeNet, Table 2's third network, is not
// checked: neither the zoo nor data/nets/paleo/ describes it (inception_v3 is a different network).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "support/caffe_alexnet.hpp"

#include <steptime/fit/complexity.hpp>
#include <steptime/steptime.hpp>

using namespace steptime;
using namespace steptime::fit;

using test_support::caffe_alexnet;

namespace {

// 8x8x3 -> conv 3x3, 4 filters, SAME (8x8x4) -> ReLU -> LRN(5) -> max pool 2x2/2 (4x4x4) -> FC 10 -> loss.
network small() {
    network net("small");
    net.add("data", ops::input{tensor_shape::image(8, 8, 3)});
    ops::conv2d c;
    c.filters = 4;
    c.kernel = {3, 3};
    c.stride = {1, 1};
    c.pad = ops::padding::same();
    net.add("conv", c, {"data"});
    net.add("relu", ops::activation{}, {"conv"});
    net.add("norm", ops::lrn{5}, {"relu"});
    ops::pool2d p;
    p.window = {2, 2};
    p.stride = {2, 2};
    net.add("pool", p, {"norm"});
    net.add("fc", ops::dense{10}, {"pool"});
    net.add("loss", ops::softmax_cross_entropy{}, {"fc"});
    return net;
}

// Table 2 prints three significant figures.
double three_figures(double x) {
    const double scale = std::pow(10.0, std::floor(std::log10(x)) - 2);
    return std::round(x / scale) * scale;
}

// Per-category shares of the forward and backward complexity, in percent (seed 002 Table 3's c_l columns).
struct shares {
    double conv_fc[2]{}, norm[2]{}, pool[2]{}, relu_drop[2]{};
};
shares complexity_shares(const network& net) {
    shares s;
    const auto total = complexity(net, counting::seed000);
    for (auto v : net.vertices()) {
        const auto k = classify(net, v);
        double* to = k.kind == layer_kind::conv || k.kind == layer_kind::fc ? s.conv_fc
                     : k.kind == layer_kind::norm                           ? s.norm
                     : k.kind == layer_kind::pool                           ? s.pool
                     : k.kind == layer_kind::relu || k.kind == layer_kind::dropout ? s.relu_drop
                                                                                   : nullptr;
        if (!to) continue;
        to[0] += 100 * k.per_sample.forward / total.forward;
        to[1] += 100 * k.per_sample.backward / total.backward;
    }
    return s;
}

}  // namespace

TEST_CASE("seed 000 complexity: each row of the table on a small network") {
    const network net = small();
    const auto at = [&](const char* name) { return classify(net, *net.find(name)); };
    // Conv: H_f W_f C_in C_out = 3*3*3 * (8*8*4) = 27 * 256 = 6,912; (2*27 + 1) * 256 = 14,080.
    CHECK(at("conv").kind == layer_kind::conv);
    CHECK(at("conv").per_sample.forward == 6912);
    CHECK(at("conv").per_sample.backward == 14080);
    // ReLU: 3 C_out = 768; 4 C_out = 1,024.
    CHECK(at("relu").per_sample.forward == 768);
    CHECK(at("relu").per_sample.backward == 1024);
    // Norm: 5 C_out + C_n - 2 = 1,280 + 5 - 2 = 1,283; 8 C_out + C_n - 1 = 2,048 + 4 = 2,052.
    CHECK(at("norm").per_sample.forward == 1283);
    CHECK(at("norm").per_sample.backward == 2052);
    // Pool: H_f W_f C_out = 4 * 64 = 256; (H_f W_f + 1) C_out = 320; stride 2.
    CHECK(at("pool").per_sample.forward == 256);
    CHECK(at("pool").per_sample.backward == 320);
    CHECK(at("pool").stride == 2);
    // FC: H_in W_in C_in C_out = 64 * 10 = 640; twice that backward.
    CHECK(at("fc").per_sample.forward == 640);
    CHECK(at("fc").per_sample.backward == 1280);
    // Loss over 10 class scores: 4 * 10 - 1 = 39; 10 + 1 = 11.
    CHECK(at("loss").per_sample.forward == 39);
    CHECK(at("loss").per_sample.backward == 11);
    CHECK(at("data").kind == layer_kind::none);
    CHECK(at("data").per_sample.total() == 0);
    // Proportional to the batch (seed 002 section 4.2).
    CHECK(complexity(net, *net.find("conv"), counting::seed000, 32).forward == 32 * 6912);
}

TEST_CASE("counting conventions: seed 000 counts multiply-adds once, FLOPs twice") {
    const network net = small();
    const auto conv = *net.find("conv");
    // ops/conv.hpp: forward 2 * 6,912 + 256 bias adds = 14,080 FLOPs; backward data 13,824 + weights 14,080.
    CHECK(complexity(net, conv, counting::flops).forward == 14080);
    CHECK(complexity(net, conv, counting::flops).backward == 27904);
    CHECK(complexity(net, conv, counting::seed000).forward == 6912);
    // Over the zoo's VGG-16 the two conventions differ by the factor 2 of a multiply-add to within 0.2%.
    const network vgg = zoo::vgg16();
    const auto f = complexity(vgg, counting::flops), s = complexity(vgg, counting::seed000);
    CHECK(std::abs(f.forward / s.forward / 2 - 1) < 2e-3);
    CHECK(std::abs(f.backward / s.backward / 2 - 1) < 2e-3);
}

TEST_CASE("seed 002 Table 2, VGG-16: 16 layers, 1.38e8 weights, 1.52e7 activations, 4.65e10 complexity") {
    const auto c = characterize(zoo::vgg16());
    CHECK(c.layers == 16);
    CHECK(c.weights == 138'357'544);  // Table 2: 1.38e+8
    CHECK(three_figures(static_cast<double>(c.weights)) == 1.38e8);
    // 224*224*3 input + every conv, pool and FC output (ReLU and dropout in place) + the loss value:
    // 150,528 + 15,087,080 + 1 = 15,237,609. Table 2: 1.52e+7.
    CHECK(c.activations == 15'237'609);
    CHECK(three_figures(static_cast<double>(c.activations)) == 1.52e7);
    // Forward 1.5517e10 (the multiply-adds) + backward 3.1016e10 = 4.6533e10. Table 2: 4.65e+10. The zoo
    // writes fc6-8 as convolutions, whose backward row has one more operation per output than FC's
    // (4,096 + 4,096 + 1,000 in all): invisible at three figures.
    CHECK(std::abs(c.complexity / 4.6533e10 - 1) < 1e-4);
    CHECK(three_figures(c.complexity) == 4.65e10);
}

TEST_CASE("seed 002 Table 2, AlexNet: Caffe's AlexNet matches; the zoo's is a different AlexNet") {
    // Caffe's (ungrouped) AlexNet reproduces every column: 8 layers, 6.24e7 weights, 1.41e6
    // activations, 3.42e9 complexity.
    const auto caffe = characterize(caffe_alexnet());
    CHECK(caffe.layers == 8);
    CHECK(caffe.weights == 62'378'344);
    CHECK(three_figures(static_cast<double>(caffe.weights)) == 6.24e7);
    // 227*227*3 = 154,587 input + conv 290,400 + 186,624 + 64,896 * 2 + 43,264, norm 290,400 + 186,624,
    // pool 69,984 + 43,264 + 9,216, FC 4,096 * 2 + 1,000, loss 1 = 1,413,348.
    CHECK(caffe.activations == 1'413'348);
    CHECK(three_figures(static_cast<double>(caffe.activations)) == 1.41e6);
    CHECK(three_figures(caffe.complexity) == 3.42e9);
    // zoo::alexnet() is Krizhevsky's "One weird trick" single tower (PALEO's alex_v2): 224x224 input,
    // 64 and 192 filters in conv1-2, no LRN, 5x5x256 into fc6. Hence 19% fewer weights (fc6 sees 25
    // positions, not 36), half the activations (smaller conv1-2 outputs, no LRN outputs) and 35% less
    // complexity (conv1-2 do 3.5x fewer multiply-adds).
    const auto zoo_alex = characterize(zoo::alexnet());
    CHECK(zoo_alex.layers == 8);
    CHECK(zoo_alex.weights == 50'303'912);
    CHECK(std::abs(static_cast<double>(zoo_alex.weights) / 6.24e7 - 1 + 0.194) < 0.001);
    CHECK(zoo_alex.activations == 700'905);
    CHECK(std::abs(static_cast<double>(zoo_alex.activations) / 1.41e6 - 1 + 0.503) < 0.001);
    CHECK(std::abs(zoo_alex.complexity / 3.42e9 - 1 + 0.352) < 0.001);
}

TEST_CASE("seed 002 Table 3: the complexity shares of each layer category") {
    // Table 3, c_l^fw and c_l^bw in percent, two decimals. First block AlexNet, third VGG-16 (no Norm rows).
    // Caffe's AlexNet: Conv/FC 99.51 / 99.66, Norm 0.21 / 0.17, Pool 0.10 / 0.05, ReLU/Drop 0.19 / 0.12.
    const auto a = complexity_shares(caffe_alexnet());
    CHECK(std::abs(a.conv_fc[0] - 99.51) < 0.015);
    CHECK(std::abs(a.conv_fc[1] - 99.66) < 0.01);
    CHECK(std::abs(a.norm[0] - 0.21) < 0.005);
    CHECK(std::abs(a.norm[1] - 0.17) < 0.005);
    CHECK(std::abs(a.pool[0] - 0.10) < 0.005);
    CHECK(std::abs(a.pool[1] - 0.05) < 0.005);
    // 0.175 against 0.19: the one entry off by more than rounding, by about 1.7e5 of 1.14e9 forward
    // operations; the paper does not list its layers, so the difference stays unexplained.
    CHECK(std::abs(a.relu_drop[0] - 0.19) < 0.02);
    CHECK(std::abs(a.relu_drop[1] - 0.12) < 0.005);
    // VGG-16: Conv/FC 99.70 / 99.80, Pool 0.04 / 0.02, ReLU/Drop 0.26 / 0.17.
    const auto v = complexity_shares(zoo::vgg16());
    CHECK(std::abs(v.conv_fc[0] - 99.70) < 0.005);
    CHECK(std::abs(v.conv_fc[1] - 99.80) < 0.005);
    CHECK(std::abs(v.pool[0] - 0.04) < 0.005);
    CHECK(std::abs(v.pool[1] - 0.02) < 0.005);
    CHECK(std::abs(v.relu_drop[0] - 0.26) < 0.005);
    CHECK(std::abs(v.relu_drop[1] - 0.17) < 0.005);
    CHECK(v.norm[0] == 0);
}
