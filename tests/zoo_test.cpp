// Built-in networks (zoo/zoo.hpp): parameter counts against the published architectures, and the same
// PALEO-compatible times as PALEO's own description of each net.
#include <doctest/doctest.h>

#include <string>
#include <variant>
#include <steptime/io.hpp>

#include "support/csv.hpp"

using namespace steptime;
using test_support::close;

TEST_CASE("AlexNet (One weird trick, single tower; TF-slim alexnet_v2): 50,303,912 parameters") {
    // Krizhevsky, "One weird trick for parallelizing convolutional neural networks" (2014), as TF-slim's
    // alexnet_v2 writes it (tensorflow/models research/slim/nets/alexnet.py), 1000 classes, every layer with
    // biases. Weights kh*kw*Cin*Cout + Cout biases:
    //   conv1 11*11*3*64    + 64   =     23,296
    //   conv2 5*5*64*192    + 192  =    307,392
    //   conv3 3*3*192*384   + 384  =    663,936
    //   conv4 3*3*384*384   + 384  =  1,327,488
    //   conv5 3*3*384*256   + 256  =    884,992
    //   fc6   5*5*256*4096  + 4096 = 26,218,496   (pool5 is 5x5x256 at 224x224)
    //   fc7   4096*4096     + 4096 = 16,781,312
    //   fc8   4096*1000     + 1000 =  4,097,000
    //                          sum = 50,303,912
    const network net = zoo::alexnet();
    CHECK(net.parameter_count() == 50'303'912);
    CHECK(net.at("conv1").parameters == 23'296);
    CHECK(net.at("fc6").parameters == 26'218'496);
    CHECK(net.at("pool5").output.str() == "5x5x256");
    CHECK(net.at("fc8").output.str() == "1x1x1000");
    CHECK(net.native_batch == 128);  // paleo-model.md 6.1: alex_v2, batch 128
    // A ReLU after every layer but the classifier: conv1-5, fc6, fc7.
    int relus = 0;
    for (auto v : net.vertices()) relus += std::holds_alternative<ops::activation>(net[v].op);
    CHECK(relus == 7);
    // Ten classes change only fc8: 50,303,912 - 4,097,000 + (4096*10 + 10) = 46,247,882.
    CHECK(zoo::alexnet({.classes = 10}).parameter_count() == 46'247'882);
}

TEST_CASE("VGG-16: 138,357,544 parameters") {
    // Simonyan and Zisserman, "Very deep convolutional networks for large-scale image recognition"
    // (ICLR 2015), configuration D, Table 2: 138 million; exactly 138,357,544 in torchvision
    // (VGG16_Weights.IMAGENET1K_V1.meta["num_params"]): thirteen 3x3 convs with biases
    // (14,714,688) + fc6 7*7*512*4096 + 4096 + fc7 4096*4096 + 4096 + fc8 4096*1000 + 1000 (123,642,856).
    const network net = zoo::vgg16();
    CHECK(net.parameter_count() == 138'357'544);
    CHECK(net.at("pool5").output.str() == "7x7x512");
    CHECK(net.at("fc6").parameters == 102'764'544);  // 7*7*512*4096 + 4096
    CHECK(net.native_batch == 64);                   // paleo-model.md 6.1: vgg16, batch 64
    // Ten classes: 138,357,544 - 4,097,000 + 40,970 = 134,301,514.
    CHECK(zoo::vgg16({.classes = 10}).parameter_count() == 134'301'514);
}

TEST_CASE("VGG-11 and VGG-19: 132,863,336 and 143,667,240 parameters") {
    // Simonyan and Zisserman (ICLR 2015), Table 2: configurations A (133 million) and E (144 million);
    // exactly 132,863,336 and 143,667,240 in torchvision (VGG11_Weights / VGG19_Weights
    // .IMAGENET1K_V1.meta["num_params"]). A: 8 convs, 64-128-256-256-512-512-512-512, 9,220,480 with
    // biases; E: 16 convs, 20,024,384. Both + the 123,642,856 of the fully connected layers above.
    const network a = zoo::vgg11(), e = zoo::vgg19();
    CHECK(a.parameter_count() == 132'863'336);
    CHECK(e.parameter_count() == 143'667'240);
    CHECK(a.at("pool5").output.str() == "7x7x512");
    CHECK(e.at("conv5-4").output.str() == "14x14x512");
    CHECK_FALSE(a.find("conv1-2"));  // configuration A: one convolution in each of the first two stages
}

TEST_CASE("zoo catalog") {
    REQUIRE(zoo::find("alexnet"));
    REQUIRE(zoo::find("vgg16"));
    CHECK(zoo::find("alexnet")->build({}).parameter_count() == 50'303'912);
    CHECK_FALSE(zoo::find("resnet-9000"));
}

namespace {
// Under paleo_compat the zoo net must cost exactly what PALEO's JSON description costs: the zoo's extra
// ReLU layers are free in PALEO (section 5.2), and its loss layer, like PALEO's Softmax, too.
void check_same_as_paleo(const network& zoo_net, const std::string& file, std::int64_t batch) {
    const auto paleo_net = io::load_paleo_json(test_support::source_path("data/nets/paleo/" + file));
    // Every layer of the JSON net is in the zoo net, with the same output (the JSON's softmax is the zoo's loss).
    for (auto v : paleo_net.vertices()) {
        const auto& l = paleo_net[v];
        if (l.name == "softmax") continue;
        INFO(file << " " << l.name);
        REQUIRE(zoo_net.find(l.name));
        CHECK(zoo_net.at(l.name).output.str() == l.output.str());
        CHECK(zoo_net.at(l.name).parameters == l.parameters);
    }
    const device& dev = devices::get("paleo:TITAN_X");
    const auto z = estimate(zoo_net, dev, cost::paleo_compat{}, {.batch = batch});
    const auto p = estimate(paleo_net, dev, cost::paleo_compat{}, {.batch = batch});
    INFO(file);
    CHECK(close(z.forward.value(), p.forward.value(), 1e-12));
    CHECK(close(z.backward.value(), p.backward.value(), 1e-12));
    CHECK(close(z.update.value(), p.update.value(), 1e-12));
    CHECK(close(z.total.value(), p.total.value(), 1e-12));
}
}  // namespace

TEST_CASE("under paleo_compat the zoo nets cost what PALEO's JSON nets cost") {
    check_same_as_paleo(zoo::alexnet(), "alex_v2.json", 128);
    check_same_as_paleo(zoo::vgg16(), "vgg16.json", 64);
}
