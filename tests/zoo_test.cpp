// Built-in networks (zoo/zoo.hpp): parameter counts against the published architectures, and the same
// PALEO-compatible times as PALEO's own description of each net.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <steptime/io.hpp>

#include "support/csv.hpp"
#include "support/errors.hpp"

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
    // Every entry builds, under its own name, with a native batch and a one-line description.
    std::set<std::string_view> names;
    for (const auto& e : zoo::catalog()) {
        INFO(e.name);
        CHECK(names.insert(e.name).second);
        CHECK_FALSE(e.description.empty());
        CHECK(e.description.find('\n') == std::string_view::npos);
        const network net = e.build({});
        CHECK(net.name() == e.name);
        CHECK(net.native_batch >= 64);
        CHECK(net.parameter_count() > 0);
    }
    CHECK(names.size() == 20);
}

namespace {
// Within `tolerance` (relative) of a published count.
bool near(double ours, double published, double tolerance) {
    INFO("ours " << ours << ", published " << published);
    return std::abs(ours - published) <= tolerance * published;
}
// Forward multiply-adds of the convolutions and fully connected layers, one sample (the published "FLOPs"
// of torchvision and of the papers below count these).
double forward_macs(const network& net) {
    double macs = 0;
    for (auto v : net.vertices()) {
        const auto& l = net[v];
        if (const auto* c = std::get_if<ops::conv2d>(&l.op)) macs += c->macs(work_args{l.inputs, l.output, 1, 4, l.parameters});
        if (const auto* d = std::get_if<ops::dense>(&l.op))
            macs += static_cast<double>(l.inputs[0].elements()) * static_cast<double>(d->outputs);
    }
    return macs;
}
std::int64_t count(const network& net, std::string_view kind) {
    std::int64_t n = 0;
    for (auto v : net.vertices()) n += ops::kind(net[v].op) == kind;
    return n;
}
}  // namespace

// Parameter counts: each within 1% of a published count (most are exact), with the source of the number.
TEST_CASE("ResNets: torchvision's parameter counts") {
    // torchvision model documentation, ResNet*_Weights.IMAGENET1K_V1.meta["num_params"].
    CHECK(near(zoo::resnet18().parameter_count(), 11'689'512, 0.01));
    CHECK(near(zoo::resnet34().parameter_count(), 21'797'672, 0.01));
    CHECK(near(zoo::resnet50().parameter_count(), 25'557'032, 0.01));
    CHECK(near(zoo::resnet101().parameter_count(), 44'549'160, 0.01));
    CHECK(near(zoo::resnet152().parameter_count(), 60'192'808, 0.01));
    // All exact: bias-free convolutions, 2 per channel in batch normalization (scale, shift), fc with bias.
    CHECK(zoo::resnet50().parameter_count() == 25'557'032);
    CHECK(zoo::resnet18().parameter_count() == 11'689'512);

    const network r50 = zoo::resnet50();
    CHECK(r50.native_batch == 64);
    CHECK(r50.at("maxpool").output.str() == "56x56x64");
    CHECK(r50.at("layer1.0/add").output.str() == "56x56x256");
    CHECK(r50.at("layer4.2/relu").output.str() == "7x7x2048");
    // v1.5: the stride is on the 3x3 convolution of the first block of stages 2-4.
    CHECK(r50.at("layer2.0/conv1").output.str() == "56x56x128");
    CHECK(r50.at("layer2.0/conv2").output.str() == "28x28x128");
    CHECK(r50.at("layer2.0/downsample").output.str() == "28x28x512");
    CHECK_FALSE(r50.find("layer2.1/downsample"));  // identity shortcuts inside a stage
    CHECK(count(r50, "elementwise") == 16);       // 3 + 4 + 6 + 3 residual sums
    CHECK(count(r50, "conv2d") == 53);            // 1 + 16 * 3 + 4 projections
    CHECK(count(zoo::resnet18(), "conv2d") == 20); // 1 + 8 * 2 + 3 projections
}

TEST_CASE("ResNeXt-101 32x4d and SE-ResNeXt-101 32x4d: Cadene's pretrained-models counts") {
    // Cadene/pretrained-models.pytorch resnext101_32x4d and se_resnext101_32x4d, 44,177,704 and 48,955,416
    // parameters as osmr/imgclsmob's tables list them for Cadene's weights.
    const network x = zoo::resnext101_32x4d(), se = zoo::se_resnext101_32x4d();
    CHECK(near(x.parameter_count(), 44'177'704, 0.01));
    CHECK(near(se.parameter_count(), 48'955'416, 0.01));
    CHECK(x.parameter_count() == 44'177'704);
    CHECK(se.parameter_count() == 48'955'416);
    // 32 groups of 4 channels in the first stage's 3x3: 128 wide, 3*3*(128/32)*128 weights.
    CHECK(x.at("layer1.0/conv2").parameters == 3 * 3 * 4 * 128);
    CHECK(x.at("layer4.0/conv2").output.str() == "7x7x1024");
    // The SE gate of a last-stage block: 2048 -> 128 -> 2048 with biases, scaling 7x7x2048.
    CHECK(se.at("layer4.2/se/pool").output.str() == "1x1x2048");
    CHECK(se.at("layer4.2/se/reduce").parameters == 2048 * 128 + 128);
    CHECK(se.at("layer4.2/se/expand").parameters == 128 * 2048 + 2048);
    CHECK(se.at("layer4.2/se/scale").output.str() == "7x7x2048");
    CHECK(count(se, "elementwise") == 2 * 33);  // a scale and a sum in each of the 33 blocks
    CHECK(se.parameter_count() - x.parameter_count() == 4'777'712);  // the 33 SE modules
}

TEST_CASE("DenseNets, GoogLeNet and Inception v3") {
    // torchvision DenseNet121_Weights.IMAGENET1K_V1.meta["num_params"]: 7,978,856.
    const network d = zoo::densenet121();
    CHECK(near(d.parameter_count(), 7'978'856, 0.01));
    CHECK(d.parameter_count() == 7'978'856);
    CHECK(d.at("denseblock1/layer6/concat").output.str() == "56x56x256");  // 64 + 6 * 32
    CHECK(d.at("transition1/pool").output.str() == "28x28x128");
    CHECK(d.at("denseblock4/layer16/concat").output.str() == "7x7x1024");
    CHECK(count(d, "conv2d") == 120);  // 1 + 2 * 58 dense layers + 3 transitions

    // The rest of torchvision's family, meta["num_params"] of DenseNet161/169/201_Weights.IMAGENET1K_V1:
    // 28,681,000, 14,149,480 and 20,013,928. Each name's number is its convolutions plus the classifier (160 + 1).
    const network d161 = zoo::densenet161(), d169 = zoo::densenet169(), d201 = zoo::densenet201();
    CHECK(near(d161.parameter_count(), 28'681'000, 0.01));
    CHECK(near(d169.parameter_count(), 14'149'480, 0.01));
    CHECK(near(d201.parameter_count(), 20'013'928, 0.01));
    CHECK(count(d161, "conv2d") == 160);  // 1 + 2 * 78 + 3
    CHECK(count(d169, "conv2d") == 168);  // 1 + 2 * 82 + 3
    CHECK(count(d201, "conv2d") == 200);  // 1 + 2 * 98 + 3
    // Growth 48 from a 96-channel stem: 96 + 6 * 48 = 384, halved by the transition; the last block ends at
    // 1056 + 24 * 48 = 2208 channels (timm's densenet161 num_features 2208, densenet169's 1664).
    CHECK(d161.at("denseblock1/layer6/concat").output.str() == "56x56x384");
    CHECK(d161.at("transition1/pool").output.str() == "28x28x192");
    CHECK(d161.at("denseblock4/layer24/concat").output.str() == "7x7x2208");
    CHECK(d169.at("denseblock4/layer32/concat").output.str() == "7x7x1664");

    // GoogLeNet as Caffe's bvlc_googlenet without its two auxiliary classifiers: 6,998,552 parameters,
    // HewlettPackard/dlcookbook-dlbs's model table (googlenet, 3x224x224); Szegedy et al. 2015 Table 1's
    // "params" column sums to 6.8M (weights only, rounded per row): within 3%.
    const network g = zoo::googlenet();
    CHECK(near(g.parameter_count(), 6'998'552, 0.01));
    CHECK(near(g.parameter_count(), 6'797'700, 0.03));
    CHECK(g.at("inception_3a/output").output.str() == "28x28x256");
    CHECK(g.at("inception_4e/output").output.str() == "14x14x832");
    CHECK(g.at("inception_5b/output").output.str() == "7x7x1024");
    CHECK(g.at("inception_3a/5x5").parameters == 5 * 5 * 16 * 32 + 32);
    CHECK(count(g, "lrn") == 2);

    // Inception v3: torchvision's Inception_V3_Weights.IMAGENET1K_V1.meta["num_params"] is 27,161,264 with
    // the auxiliary classifier (InceptionAux: 1x1 768->128 conv + BN 98,560, 5x5 128->768 conv + BN
    // 2,459,136, fc 768->1000 769,000: 3,326,696), which our builder leaves out: 23,834,568.
    const network v3 = zoo::inception_v3();
    CHECK(near(v3.parameter_count(), 27'161'264 - 3'326'696, 0.01));
    CHECK(v3.parameter_count() == 23'834'568);
    CHECK(v3.native_batch == 64);
    CHECK(v3.at("data").output.str() == "299x299x3");
    CHECK(v3.at("MaxPool_5a_3x3").output.str() == "35x35x192");
    CHECK(v3.at("Mixed_5b").output.str() == "35x35x256");
    CHECK(v3.at("Mixed_6a").output.str() == "17x17x768");
    CHECK(v3.at("Mixed_7a").output.str() == "8x8x1280");
    CHECK(v3.at("Mixed_7c").output.str() == "8x8x2048");
    CHECK(v3.at("Mixed_6b/b7x7/conv2").parameters == 1 * 7 * 128 * 128);  // 1x7, no bias
    CHECK(v3.at("Mixed_6b/b7x7/conv2/bn").parameters == 2 * 128);
}

TEST_CASE("Caffe AlexNet, OverFeat and NiN") {
    // BVLC AlexNet (models/bvlc_alexnet deploy.prototxt; "60 million parameters", Krizhevsky et al. 2012):
    //   conv1 11*11*3*96 + 96 = 34,944; conv2 5*5*48*256 + 256 = 307,456 (groups 2); conv3 3*3*256*384 + 384
    //   = 885,120; conv4 3*3*192*384 + 384 = 663,936; conv5 3*3*192*256 + 256 = 442,624;
    //   fc6 6*6*256*4096 + 4096 = 37,752,832; fc7 16,781,312; fc8 4,097,000; sum 60,965,224.
    const network a = zoo::alexnet_caffe();
    CHECK(near(a.parameter_count(), 60'965'224, 0.01));
    CHECK(a.parameter_count() == 60'965'224);
    CHECK(a.at("conv2").parameters == 307'456);
    CHECK(a.at("conv1").output.str() == "55x55x96");
    CHECK(a.at("pool5").output.str() == "6x6x256");
    CHECK(a.native_batch == 128);

    // OverFeat fast (Sermanet et al. 2014, Table 1, as convnet-benchmarks and tf_cnn_benchmarks build it):
    // 145,920,872 in HewlettPackard/dlcookbook-dlbs's model table (overfeat, 3x231x231).
    const network o = zoo::overfeat();
    CHECK(near(o.parameter_count(), 145'920'872, 0.01));
    CHECK(o.at("pool5").output.str() == "6x6x1024");
    // PALEO's overfeat.json (TF-slim) has the same layers and shapes but 64 filters in conv1.
    const auto paleo_o = io::load_paleo_json(test_support::source_path("data/nets/paleo/overfeat.json"));
    for (auto v : paleo_o.vertices()) {
        const auto& l = paleo_o[v];
        if (l.name == "softmax" || l.name == "conv1" || l.name == "pool1") continue;
        INFO("overfeat " << l.name);
        REQUIRE(o.find(l.name));
        CHECK(o.at(l.name).output.str() == l.output.str());
    }
    for (const char* l : {"conv3", "conv4", "conv5", "fc6", "fc7", "fc8"})
        CHECK(o.at(l).parameters == paleo_o.at(l).parameters);
    CHECK(o.at("conv2").parameters - paleo_o.at("conv2").parameters == 5 * 5 * (96 - 64) * 256);

    // NiN (Caffe model zoo nin_imagenet, gist mavenlin/d802a5849de39225bcc6): "a snapshot of size 29MB",
    // 29 MiB of fp32 = 7.60 million parameters; its train_val.prototxt sums to 7,595,176:
    //   conv1 34,944 + cccp1-2 2*9,312 + conv2 614,656 + cccp3-4 2*65,792 + conv3 885,120 + cccp5-6 2*147,840
    //   + conv4 3,539,968 + cccp7 1,049,600 + cccp8 1,025,000.
    const network n = zoo::nin();
    CHECK(near(n.parameter_count(), 29.0 * 1024 * 1024 / 4, 0.01));
    CHECK(n.parameter_count() == 7'595'176);
    // PALEO's nin.json: the same layers, shapes and parameters (its convolutions have biases too).
    const auto paleo_n = io::load_paleo_json(test_support::source_path("data/nets/paleo/nin.json"));
    for (auto v : paleo_n.vertices()) {
        const auto& l = paleo_n[v];
        if (l.name == "softmax") continue;
        INFO("nin " << l.name);
        REQUIRE(n.find(l.name));
        CHECK(n.at(l.name).output.str() == l.output.str());
        CHECK(n.at(l.name).parameters == l.parameters);
    }
}

TEST_CASE("forward multiply-adds against published counts") {
    // torchvision's model documentation, meta["_ops"] ("GFLOPS", counted as multiply-adds): resnet18 1.81,
    // resnet50 4.09, vgg16 15.47, inception_v3 5.71, densenet121 2.83, densenet161 7.73,
    // densenet169 3.36, densenet201 4.29; within 2%
    // (ours counts convolutions and fully connected layers only).
    CHECK(near(forward_macs(zoo::resnet18()), 1.81e9, 0.02));
    CHECK(near(forward_macs(zoo::resnet50()), 4.09e9, 0.02));
    CHECK(near(forward_macs(zoo::vgg16()), 15.47e9, 0.02));
    CHECK(near(forward_macs(zoo::inception_v3()), 5.71e9, 0.02));
    CHECK(near(forward_macs(zoo::densenet121()), 2.83e9, 0.02));
    CHECK(near(forward_macs(zoo::densenet161()), 7.73e9, 0.02));
    CHECK(near(forward_macs(zoo::densenet169()), 3.36e9, 0.02));
    CHECK(near(forward_macs(zoo::densenet201()), 4.29e9, 0.02));
    // Szegedy et al. 2015, section 1: GoogLeNet's budget of "1.5 billion multiply-adds at inference time";
    // within 6% (ours 1.58G).
    CHECK(near(forward_macs(zoo::googlenet()), 1.5e9, 0.06));
    // osmr/imgclsmob: ResNeXt-101 (32x4d) 8,003.45M (also counts BN and additions); within 2%.
    CHECK(near(forward_macs(zoo::resnext101_32x4d()), 8'003.45e6, 0.02));
}

TEST_CASE("resolution and classes options reshape the zoo nets") {
    // ResNet-50 at 160x160 with 10 classes: 160/32 = 5x5 before the global pooling; the classifier shrinks
    // from 2048*1000 + 1000 to 2048*10 + 10: 25,557,032 - 2,049,000 + 20,490 = 23,528,522.
    const network r = zoo::resnet50({.resolution = 160, .classes = 10});
    CHECK(r.at("data").output.str() == "160x160x3");
    CHECK(r.at("layer4.2/relu").output.str() == "5x5x2048");
    CHECK(r.at("fc").output.str() == "10");
    CHECK(r.parameter_count() == 23'528'522);
    // Fewer pixels, fewer multiply-adds: (160/224)^2 of the convolutions.
    CHECK(forward_macs(r) < 0.55 * forward_macs(zoo::resnet50()));
    // The default resolution is each network's own.
    CHECK(zoo::alexnet_caffe().at("data").output.str() == "227x227x3");
    CHECK(zoo::overfeat().at("data").output.str() == "231x231x3");
    CHECK(zoo::inception_v3().at("data").output.str() == "299x299x3");
    CHECK(zoo::googlenet().at("data").output.str() == "224x224x3");
    // Others follow the options too.
    CHECK(zoo::densenet121({.resolution = 256}).at("denseblock4/layer16/concat").output.str() == "8x8x1024");
    CHECK(zoo::inception_v3({.resolution = 224, .classes = 5}).at("Mixed_7c").output.str() == "5x5x2048");
    CHECK(zoo::se_resnext101_32x4d({.classes = 10}).at("fc").output.str() == "10");
    CHECK(zoo::googlenet({.classes = 10}).parameter_count() == 6'998'552 - 1'025'000 + 10'250);
    CHECK(zoo::overfeat({.resolution = 263}).at("pool5").output.str() == "7x7x1024");
    CHECK(zoo::find("nin")->build({.resolution = 0, .classes = 100}).at("pool4").output.str() == "1x1x100");
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

TEST_CASE("gpt: GPT-2's published parameter counts, Megatron's formulas") {
    // Hugging Face's gpt2, gpt2-medium and gpt2-large checkpoints, the sums of their tensors' sizes (tied output
    // layer, biases, the final layer norm): 124,439,808, 354,823,168 and 774,030,080.
    CHECK(zoo::gpt({}).parameter_count() == 124'439'808);
    CHECK(zoo::from_spec("gpt:layers=24,hidden=1024,heads=16")->parameter_count() == 354'823'168);
    CHECK(zoo::from_spec("gpt:layers=36,hidden=1280,heads=20")->parameter_count() == 774'030'080);
    // Narayanan et al. (SC21) 5.1 count the same less the final layer norm's 2h: Megatron's GPT 1.7B (LLM-001).
    const zoo::gpt_config g{24, 2304, 24, 2048, 51200, false};
    CHECK(static_cast<double>(zoo::gpt(g).parameter_count()) == doctest::Approx(g.paper_parameters() + 2 * 2304).epsilon(1e-12));
    // Eq. (3) for a global batch of 512: 96 x 512 x 2048 x 24 x 2304^2 x (1 + 2048/13824 + 51200/884736).
    CHECK(g.paper_flops(512) == doctest::Approx(1.5466830067924994e16).epsilon(1e-12));
}

namespace {
// FLOPs of a network's forward matmuls for one sequence: its dense layers' and attention's GEMMs.
double forward_matmul_flops(const network& net) {
    double flops = 0;
    for (auto v : net.vertices()) {
        const auto& l = net[v];
        const work_args a{l.inputs, l.output, 1, 2, l.parameters};
        if (const auto* d = std::get_if<ops::dense>(&l.op))
            flops += 2.0 * static_cast<double>(l.inputs[0].elements()) * static_cast<double>(d->outputs);
        if (const auto* at = std::get_if<ops::attention>(&l.op))
            for (const auto& k : at->kernels(phase::forward, a))
                if (k.matmul) flops += k.runs * k.work.flops;
    }
    return flops;
}
}  // namespace

TEST_CASE("gpt: the forward matmuls are the paper's count, 24 s h^2 + 4 s^2 h per layer and 2 s h V for the logits") {
    const zoo::gpt_config g{3, 64, 4, 32, 100, false};
    const network net = zoo::gpt(g);
    const double matmul_flops = forward_matmul_flops(net);
    const double s = 32, h = 64, V = 100, layers = 3;
    CHECK(matmul_flops == doctest::Approx(layers * (24 * s * h * h + 4 * s * s * h) + 2 * s * h * V).epsilon(1e-12));
    // Eq. (3) is four such forward passes of the layers (forward, recompute, two gradients) and three of the logits.
    CHECK(g.paper_flops(1) == doctest::Approx(4 * layers * (24 * s * h * h + 4 * s * s * h) + 6 * s * h * V).epsilon(1e-12));
    // tokens, embed, its dropout; per block ln1, qkv, attention, proj, dropout1, add1, ln2, fc1, gelu, fc2,
    // dropout2, add2; ln_f, logits, loss
    CHECK(net.size() == 3 + 3 * 12 + 3);
}

TEST_CASE("gpt: recompute runs each transformer layer's forward pass again in the backward pass, and changes no other time") {
    const zoo::gpt_config g{2, 64, 4, 32, 100, false};
    zoo::gpt_config r = g;
    r.recompute = true;
    const network plain = zoo::gpt(g), recomputed = zoo::gpt(r);
    for (auto v : recomputed.vertices())
        CHECK(recomputed[v].recomputed == recomputed[v].name.starts_with("layer"));
    const device& dev = devices::get("a100-sxm4-80gb");
    const auto e = estimate(plain, dev, cost::paleo{}, {.batch = 4, .precision = element_type::fp16});
    const auto er = estimate(recomputed, dev, cost::paleo{}, {.batch = 4, .precision = element_type::fp16});
    seconds again{};
    for (const auto& l : e.layers)
        if (l.name.starts_with("layer")) again += l.forward.total();
    CHECK(to_double(again) > 0);
    CHECK(to_double(er.forward) == doctest::Approx(to_double(e.forward)).epsilon(1e-12));
    CHECK(to_double(er.backward) == doctest::Approx(to_double(e.backward + again)).epsilon(1e-12));
    // The kernel model dispatches attention's kernels one by one (a recurrent layer's pass is one cuDNN call):
    // Q K^T, softmax, dropout, P V and the copy back to tokens.
    const cost_context ctx{dev, 4, element_type::fp16};
    CHECK(cost::kernel{}.layer(plain, *plain.find("layer1/attention"), pass::forward, ctx).kernels == 5);
}

TEST_CASE("gpt: tensor parallelism splits each layer as Megatron-LM does; the parts add up to the whole") {
    const zoo::gpt_config g{2, 64, 4, 32, 128, false};
    const network whole = zoo::gpt(g);
    const double l = 2, h = 64, s = 32;
    for (const int t : {2, 4}) {
        INFO("t = " << t);
        zoo::gpt_config split = g;
        split.tensor_parallel = t;
        const network part = zoo::gpt(split);
        CHECK(part.tensor_parallel == t);
        CHECK(part.name() == g.name() + ",tp=" + std::to_string(t));
        // Columns: QKV 3h / t, heads / t, fc1 4h / t, the vocabulary / t; rows: proj and fc2 back to h.
        CHECK(part.at("layer1/qkv").output.str() == "32x1x" + std::to_string(3 * 64 / t));
        CHECK(std::get<ops::attention>(part.at("layer1/attention").op).heads == 4 / t);
        CHECK(part.at("layer1/fc1").output.str() == "32x1x" + std::to_string(4 * 64 / t));
        CHECK(part.at("layer1/fc2").output.str() == "32x1x64");
        CHECK(part.at("logits").output.str() == "32x1x" + std::to_string(128 / t));
        // Every GPU holds the layer norms (2h each, two a layer and the final one), the row-split layers' biases
        // (h each, two a layer) and the position table (s h); the t parts of everything else make the whole.
        const double repeated = l * (2 * 2 * h + 2 * h) + 2 * h + s * h;
        CHECK(t * static_cast<double>(part.parameter_count()) - (t - 1) * repeated ==
              static_cast<double>(whole.parameter_count()));
        // Each GPU does 1/t of every matmul.
        CHECK(forward_matmul_flops(part) == doctest::Approx(forward_matmul_flops(whole) / t).epsilon(1e-12));
    }
    // Where the parts all-reduce: the outputs of the embedding and the row-split layers going forward, the inputs'
    // gradients of the column-split layers going backward; nothing without tensor parallelism.
    zoo::gpt_config pair = g;
    pair.tensor_parallel = 2;
    const network part = zoo::gpt(pair);
    for (auto v : part.vertices()) {
        const auto& n = part[v].name;
        INFO(n);
        const bool row = n == "embed" || n.ends_with("/proj") || n.ends_with("/fc2");
        const bool column = n == "logits" || n.ends_with("/qkv") || n.ends_with("/fc1");
        CHECK(part[v].all_reduce == (row      ? group_all_reduce::output
                                     : column ? group_all_reduce::input_gradient
                                              : group_all_reduce::none));
        CHECK(whole[v].all_reduce == group_all_reduce::none);
    }
    // Sizes that do not split are refused by name.
    pair.vocabulary = 127;
    CHECK(test_support::message_of<invalid_model>([&] { (void)zoo::gpt(pair); }).find("gpt: vocab 127 does not split over 2 GPUs") == 0);
}

TEST_CASE("gpt: a tensor-parallel step pays its ring all-reduces over the node's link, again where recomputed") {
    zoo::gpt_config g{2, 64, 4, 32, 128, false};
    g.tensor_parallel = 2;
    const network part = zoo::gpt(g);
    g.recompute = true;
    const network recomputed = zoo::gpt(g);
    const device& dev = devices::get("a100-sxm4-80gb");
    const estimate_options opt{.batch = 4, .precision = element_type::fp16};
    const auto e = estimate(part, dev, cost::paleo{}, opt);
    // Every all-reduce moves b s h FP16 activations, 4 x 32 x 64 x 2 = 16,384 B; a ring of 2 over the A100's
    // 300 GB/s NVLink (2 us a step) takes 2 (t - 1) steps of S / t: 2 x (2 us + 8,192 B / 300 GB/s).
    const double ring = 2 * (2e-6 + 8192 / 300e9);
    seconds forward{}, backward{};
    for (const auto& l : e.layers) {
        forward += l.forward.remote;
        backward += l.backward.remote;
    }
    // Two a layer each way, plus the embedding's going forward and the logits' input gradient going backward.
    CHECK(to_double(forward) == doctest::Approx(5 * ring).epsilon(1e-12));
    CHECK(to_double(backward) == doctest::Approx(5 * ring).epsilon(1e-12));
    CHECK(to_double(e.group_communication) == doctest::Approx(10 * ring).epsilon(1e-12));
    CHECK(e.tensor_parallel == 2);
    // Recompute runs the layers' forward all-reduces again, in the backward pass: 2 more per layer.
    const auto er = estimate(recomputed, dev, cost::paleo{}, opt);
    CHECK(to_double(er.group_communication) == doctest::Approx(14 * ring).epsilon(1e-12));
    seconds backward_again{};
    double kernels = 0, kernels_again = 0;
    for (std::size_t i = 0; i < er.layers.size(); ++i) {
        backward_again += er.layers[i].backward.remote;
        kernels += e.layers[i].backward.kernels;
        kernels_again += er.layers[i].backward.kernels;
    }
    CHECK(to_double(backward_again) == doctest::Approx(9 * ring).epsilon(1e-12));
    CHECK(kernels_again > kernels);
    // A network marked split over GPUs whose layers never all-reduce is refused, not priced as if alone.
    network unmarked = zoo::gpt({2, 64, 4, 32, 128, false});
    unmarked.tensor_parallel = 2;
    CHECK(test_support::message_of<invalid_model>([&] { (void)estimate(unmarked, dev, cost::paleo{}, opt); })
              .find("marks no layer to all-reduce") != std::string::npos);
    // A given link replaces the device's: PCIe 3.0 x16 (15.75 GB/s, 1 us).
    estimate_options pcie = opt;
    pcie.tensor_link = links::get("pcie3-x16");
    CHECK(to_double(estimate(part, dev, cost::paleo{}, pcie).group_communication) ==
          doctest::Approx(10 * 2 * (1e-6 + 8192 / 15.75e9)).epsilon(1e-12));
    // A device that does not say how its GPUs connect needs a link.
    device alone = dev;
    alone.intra_node_link.reset();
    CHECK(test_support::message_of<invalid_argument>([&] { (void)estimate(part, alone, cost::paleo{}, opt); })
              .find("no intra_node_link") != std::string::npos);
}

TEST_CASE("gpt spec: GPT-2 small by default, named keys, errors naming the spec") {
    CHECK(zoo::from_spec("gpt")->name() == "gpt:layers=12,hidden=768,heads=12,seq=1024,vocab=50257,recompute=0");
    CHECK(zoo::gpt_config_of("gpt:layers=2,recompute=1")->recompute);
    CHECK(zoo::gpt_config_of("gpt:tp=4,vocab=50304")->tensor_parallel == 4);
    CHECK(zoo::from_spec("gpt:tp=4,vocab=50304")->tensor_parallel == 4);
    CHECK(!zoo::gpt_config_of("resnet50"));
    CHECK(test_support::message_of<invalid_argument>([] { (void)zoo::from_spec("gpt:heads=5"); }).find(
              "model spec 'gpt:heads=5': layer 'layer1/attention': 2304 input features do not split into queries, keys "
              "and values of 5 heads") == 0);
}

TEST_CASE("gpt: the models without transformer layers refuse them by name, not at zero cost") {
    const network net = zoo::gpt({2, 64, 4, 32, 100, false});
    const cost_context ctx{devices::get("a100-sxm4-80gb"), 4};
    const auto refusal = [&](const auto& model, std::string_view layer) {
        return test_support::message_of<unsupported_operation>([&] { (void)model.layer(net, *net.find(layer), pass::forward, ctx); });
    };
    CHECK(refusal(cost::paleo_compat{}, "embed") == "layer 'embed': paleo-compat has no embedding layers (PALEO has none)");
    CHECK(refusal(cost::paleo_compat{}, "layer1/attention") ==
          "layer 'layer1/attention': paleo-compat has no attention layers (PALEO has none)");
    CHECK(refusal(cost::paleo_compat{}, "layer1/qkv") ==
          "layer 'layer1/qkv': paleo-compat's inner products flatten their input and own their weights");
}

TEST_CASE("parameter tensors: what PyTorch's optimizers walk, layer by layer") {
    // len(list(model.parameters())) of torchvision's networks, as validation/measured/pytorch-h100/weight_update.csv
    // recorded them: a convolution's weight (no bias before batch norm), batch norm's scale and shift, the
    // classifier's weight and bias. ResNet-50: 53 convolutions, 53 batch norms, the fc: 53 + 106 + 2.
    CHECK(zoo::resnet50().parameter_tensor_count() == 161);
    CHECK(zoo::resnet152().parameter_tensor_count() == 467);      // 155 + 310 + 2
    CHECK(zoo::densenet121().parameter_tensor_count() == 364);    // 120 + 242 + 2
    CHECK(zoo::vgg16().parameter_tensor_count() == 32);           // 16 weights and 16 biases
    // A recurrent layer holds w_ih, w_hh, b_ih, b_hh, without input weights three; an embedding its token
    // table and a position table where it has one; a layer without parameters none.
    ops::recurrent lstm{.hidden = 8};
    CHECK(ops::parameter_tensors(lstm, 1) == 4);
    lstm.skip_input = true;
    CHECK(ops::parameter_tensors(lstm, 1) == 3);
    CHECK(ops::parameter_tensors(ops::embedding{.vocabulary = 10, .features = 4}, 40) == 1);
    CHECK(ops::parameter_tensors(ops::embedding{.vocabulary = 10, .features = 4, .positions = 8}, 72) == 2);
    // A dense layer tied to another's weights (GPT's logits) owns its bias alone.
    CHECK(ops::parameter_tensors(ops::dense{.outputs = 10, .tied = true}, 10) == 1);
    CHECK(zoo::gpt({2, 64, 4, 32, 128, false}).parameter_tensor_count() == 2 + 2 * 12 + 2);  // tables, layers, ln_f
}
