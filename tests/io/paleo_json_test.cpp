// PALEO JSON networks (io/paleo_json.hpp, format in paleo-model.md section 6.1): every shipped file loads,
// blocks and model-parallel splits expand to the names PALEO gives them, and bad inputs fail with the
// right exception type and a message naming the origin and the layer or field.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <random>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>
#include <steptime/io.hpp>

#include "support/csv.hpp"
#include "support/errors.hpp"

using namespace steptime;

namespace {


network parse(std::string_view text) { return io::parse_paleo_json(text, "origin.json"); }

// A network of an 8x8x3 input named "data" and the given further layers (JSON members).
std::string net_with(const std::string& layers) {
    return R"({"name": "t", "layers": {"data": {"parents": [], "type": "Input", "tensor": [2, 8, 8, 3]})" +
           std::string(layers.empty() ? "" : ", ") + layers + "}}";
}
// A 3x3 SAME convolution to 8 channels, with the given parents and fields replaced or added.
std::string conv_layer(const std::string& name, const std::string& parents, const std::string& fields = "") {
    return "\"" + name + "\": {\"parents\": " + parents +
           R"(, "type": "Convolution", "strides": [1, 1, 1, 1], )" +
           (fields.empty() ? R"("filter": [3, 3, 3, 8], "padding": "SAME")" : fields) + "}";
}

std::vector<std::string> parent_names(const network& net, const std::string& layer) {
    std::vector<std::string> out;
    for (auto p : net.parents(*net.find(layer))) out.push_back(net[p].name);
    return out;
}

}  // namespace

TEST_CASE("every shipped PALEO network loads") {
    std::size_t files = 0;
    for (const auto* dir : {"data/nets/paleo", "data/nets/paleo/converted"})
        for (const auto& f : std::filesystem::directory_iterator(test_support::source_path(dir))) {
            if (f.path().extension() != ".json") continue;
            INFO(f.path().string());
            network net("unloaded");
            CHECK_NOTHROW(net = io::load_paleo_json(f.path()));
            CHECK(net.size() > 1);
            CHECK(net.find("data"));
            ++files;
        }
    // PROVENANCE.md: alex_v2, alex_v2_{1,2,4,8}gpu, inception_v3, nin, overfeat, vgg16; converted resnet50, densenet.
    CHECK(files == 11);
}

TEST_CASE("inception_v3: Block sub-layers are named block/sub and inherit the block's parents") {
    const auto net = io::load_paleo_json(test_support::source_path("data/nets/paleo/inception_v3.json"));
    CHECK(net.name() == "Inception v3");
    CHECK(net.native_batch == 64);  // data.tensor [64, 299, 299, 3]
    REQUIRE(net.find("Mixed_5b/Branch_1/Conv2d_0a_1x1"));
    // A sub-layer with no parents inherits the block's.
    CHECK(parent_names(net, "Mixed_5b/Branch_1/Conv2d_0a_1x1") == std::vector<std::string>{"MaxPool_5a_3x3"});
    // Other sub-parents are resolved inside the block.
    CHECK(parent_names(net, "Mixed_5b/Branch_1/Conv2d_0b_5x5") ==
          std::vector<std::string>{"Mixed_5b/Branch_1/Conv2d_0a_1x1"});
    CHECK(parent_names(net, "Mixed_5b/concat").size() == 4);
    // 35x35 grid, 64 + 64 + 96 + 32 channels (TF-slim inception_v3 Mixed_5b).
    CHECK(net.at("Mixed_5b/concat").output.str() == "35x35x256");
    // Mixed_6a: 3x3/2 VALID on 35x35 -> 17x17; 384 + 96 + 288 channels.
    CHECK(net.at("Mixed_6a/concat").output.str() == "17x17x768");
    // Mixed_7b's branches fork again: Branch_1/concat joins a 1x3 and a 3x1 conv (384 + 384).
    CHECK(net.at("Mixed_7b/Branch_1/concat").output.str() == "8x8x768");
    CHECK(net.at("Mixed_7c/concat").output.str() == "8x8x2048");
    CHECK(net.at("Logits/Conv2d_1c_1x1").output.str() == "1x1x1000");
}

TEST_CASE("alex_v2_2gpu: ModelParallel copies @0 and @1 on devices 0 and 1, @self and @all") {
    const auto net = io::load_paleo_json(test_support::source_path("data/nets/paleo/alex_v2_2gpu.json"));
    for (int i : {0, 1}) {
        const std::string s = "@" + std::to_string(i);
        const auto& fc6 = net.at("parallel_fc67/fc6" + s);
        CHECK(fc6.device == i);
        CHECK(fc6.output.str() == "1x1x2048");  // 4096 // 2 output channels per copy
        CHECK(parent_names(net, "parallel_fc67/fc6" + s) == std::vector<std::string>{"pool5"});  // the block's parent
        // @self: the copy in the same split.
        CHECK(parent_names(net, "parallel_fc67/dropout6" + s) == std::vector<std::string>{"parallel_fc67/fc6" + s});
        // @all inside the block: each copy's concat gathers both halves again.
        CHECK(parent_names(net, "parallel_fc67/concat6" + s) ==
              std::vector<std::string>{"parallel_fc67/dropout6@0", "parallel_fc67/dropout6@1"});
        CHECK(net.at("parallel_fc67/concat6" + s).output.str() == "1x1x4096");
    }
    // @all from outside the block.
    CHECK(parent_names(net, "concat7") ==
          std::vector<std::string>{"parallel_fc67/dropout7@0", "parallel_fc67/dropout7@1"});
    CHECK(net.at("concat7").output.str() == "1x1x4096");
    CHECK_FALSE(net.at("concat7").device.has_value());
    CHECK_FALSE(net.at("pool5").device.has_value());
}

TEST_CASE("a block named as a parent means its endpoint; blocks nest") {
    const auto net = parse(net_with(R"(
        "blk": {"type": "Block", "parents": ["data"], "endpoint": "b", "layers": {
            "a": {"parents": [], "type": "Pooling", "ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"},
            "b": {"parents": ["a"], "type": "Dropout", "dropout_keep_prob": 0.5},
            "inner": {"type": "Block", "parents": ["b"], "endpoint": "c", "layers": {
                "c": {"parents": [], "type": "Dropout", "dropout_keep_prob": 0.5}}}}},
        "out": {"parents": ["blk"], "type": "Softmax"})"));
    CHECK(parent_names(net, "out") == std::vector<std::string>{"blk/b"});
    CHECK(parent_names(net, "blk/inner/c") == std::vector<std::string>{"blk/b"});
    CHECK(net.at("out").output.str() == "48");  // 4x4x3 after the 2x2/2 pool
}

TEST_CASE("a Convolution has a bias unless it says \"bias\": false (PALEO's files give its shape)") {
    // 3x3x3 weights to 8 channels: 216, and 8 biases.
    CHECK(parse(net_with(conv_layer("conv", "[\"data\"]"))).at("conv").parameters == 224);
    const std::string no_bias = R"("filter": [3, 3, 3, 8], "padding": "SAME", "bias": false)";
    CHECK(parse(net_with(conv_layer("conv", "[\"data\"]", no_bias))).at("conv").parameters == 216);
    const std::string paleo_shape = R"("filter": [3, 3, 3, 8], "padding": "SAME", "bias": [8])";  // overfeat.json's form
    CHECK(parse(net_with(conv_layer("conv", "[\"data\"]", paleo_shape))).at("conv").parameters == 224);
    CHECK_ERROR(parse_error,
                parse(net_with(conv_layer("conv", "[\"data\"]", R"("filter": [3, 3, 3, 8], "padding": "SAME", "bias": 0)"))),
                "origin.json", "layer 'conv'", "'bias'", "true, false or the bias's shape");
}

TEST_CASE("a Pad layer (steptime's extension, tf.pad's paddings) copies its input into a larger tensor") {
    const auto pad = [](const std::string& paddings) {
        return net_with(R"("pad": {"parents": ["data"], "type": "Pad", "paddings": )" + paddings + "}");
    };
    // The 8x8x3 input padded by 1 above and 2 below, 3 left and 0 right: 11x11x3; then a VALID 3x3 convolution.
    const network net = parse(net_with(R"("pad": {"parents": ["data"], "type": "Pad", "paddings": [[0, 0], [1, 2], [3, 0], [0, 0]]}, )" +
                                       conv_layer("conv", R"(["pad"])", R"("filter": [3, 3, 3, 8], "padding": "VALID")")));
    CHECK(net.at("pad").output.str() == "11x11x3");
    CHECK(net.at("conv").output.str() == "9x9x8");
    CHECK(parse(pad("[[0, 0], [0, 0], [0, 0], [2, 3]]")).at("pad").output.str() == "8x8x8");  // channels too

    CHECK_ERROR(parse_error, parse(net_with(R"("pad": {"parents": ["data"], "type": "Pad"})")), "origin.json", "layer 'pad'",
                "missing field 'paddings'");
    // Three pairs for the 4 axes of an NHWC image; a pair of three; a pad that is not an integer; a negative pad; the batch.
    CHECK_ERROR(parse_error, parse(pad("[[0, 0], [1, 1], [1, 1]]")), "origin.json", "layer 'pad'", "must be 4 pairs",
                "[[0,0],[1,1],[1,1]]");
    CHECK_ERROR(parse_error, parse(pad("[[0, 0], [1, 1, 1], [1, 1], [0, 0]]")), "origin.json", "layer 'pad'", "4 pairs");
    CHECK_ERROR(parse_error, parse(pad("[[0, 0], [1, 1.5], [1, 1], [0, 0]]")), "origin.json", "layer 'pad'", "'paddings'",
                "1.5");
    CHECK_ERROR(parse_error, parse(pad("[[0, 0], [1, -1], [1, 1], [0, 0]]")), "origin.json", "layer 'pad'", "negative");
    CHECK_ERROR(parse_error, parse(pad("[[1, 0], [1, 1], [1, 1], [0, 0]]")), "origin.json", "layer 'pad'", "the batch");
    // One parent, no more, no fewer.
    CHECK_ERROR(parse_error, parse(net_with(R"("pad": {"parents": [], "type": "Pad", "paddings": [[0, 0], [1, 1]]})")),
                "origin.json", "layer 'pad'", "one parent, got 0");
    CHECK_ERROR(parse_error,
                parse(net_with(R"("pad": {"parents": ["data", "data"], "type": "Pad", "paddings": [[0, 0], [1, 1]]})")),
                "origin.json", "layer 'pad'", "one parent, got 2");
    // A flat input (100 features) has two axes, the batch's and its own: 2 + 100 + 3 = 105 features.
    const std::string flat = R"({"name": "t", "layers": {"data": {"parents": [], "type": "Input", "tensor": [2, 100]}, )";
    CHECK(parse(flat + R"("pad": {"parents": ["data"], "type": "Pad", "paddings": [[0, 0], [2, 3]]}}})").at("pad").output.str() ==
          "105");
    CHECK_ERROR(parse_error,
                parse(flat + R"("pad": {"parents": ["data"], "type": "Pad", "paddings": [[0, 0], [1, 1], [1, 1], [0, 0]]}}})"),
                "origin.json", "layer 'pad'", "must be 2 pairs");
    // Pads that overflow the dimension: invalid_model naming the layer and the axis.
    CHECK_ERROR(invalid_model, parse(pad("[[0, 0], [9223372036854775807, 1], [1, 1], [0, 0]]")), "origin.json",
                "layer 'pad'", "padding axis 0");
}

TEST_CASE("malformed documents: parse_error naming the origin") {
    CHECK_ERROR(parse_error, parse(R"({"layers": {)"), "origin.json", "malformed JSON");
    CHECK_ERROR(parse_error, parse("[1, 2]"), "origin.json", "JSON object");
    CHECK_ERROR(parse_error, parse(R"({"name": "x"})"), "origin.json", "'layers'");
    CHECK_ERROR(parse_error, parse(R"({"name": 5, "layers": {"data": {"parents": [], "type": "Input", "tensor": [1, 1]}}})"),
                "origin.json", "'name'");
    // Invalid UTF-8 (a lone 0xFF byte) inside a layer name.
    CHECK_ERROR(parse_error, parse(net_with(conv_layer("conv\xff", "[\"data\"]"))), "origin.json");
}

TEST_CASE("bad fields: parse_error naming the origin, the layer and the field") {
    CHECK_ERROR(parse_error, parse(net_with(conv_layer("conv", "[\"data\"]", R"("filter": "3x3", "padding": "SAME")"))),
                "origin.json", "layer 'conv'", "'filter'");
    CHECK_ERROR(parse_error, parse(net_with(conv_layer("conv", "\"data\""))), "origin.json", "layer 'conv'", "'parents'");
    CHECK_ERROR(parse_error,
                parse(net_with(conv_layer("conv", "[\"data\"]", R"("filter": [3, 3.5, 3, 8], "padding": "SAME")"))),
                "origin.json", "layer 'conv'", "'filter'", "3.5");
    CHECK_ERROR(parse_error, parse(net_with(conv_layer("conv", "[\"data\"]", R"("filter": [3, 3, 3, 8], "padding": "same")"))),
                "origin.json", "layer 'conv'", "'padding'", "same");
    CHECK_ERROR(parse_error, parse(net_with(conv_layer("conv", "[\"data\"]", R"("filter": [3, 3, 3, 8])"))),
                "origin.json", "layer 'conv'", "missing field 'padding'");
    CHECK_ERROR(parse_error, parse(net_with(R"("x": {"parents": ["data"], "type": "Frobnicate"})")), "origin.json",
                "layer 'x'", "'Frobnicate'");
}

TEST_CASE("graph errors: invalid_model naming the origin and the layers") {
    // error.hpp: invalid_model is "a network that cannot be built: unknown parent, cycle, shape mismatch".
    CHECK_ERROR(invalid_model, parse(net_with(conv_layer("conv", "[\"nope\"]"))), "origin.json", "layer 'conv'",
                "'nope'");
    CHECK_ERROR(invalid_model,
                parse(net_with(conv_layer("a", "[\"b\"]", R"("filter": [1, 1, 8, 8], "padding": "SAME")") + ", " +
                               conv_layer("b", "[\"a\"]", R"("filter": [1, 1, 8, 8], "padding": "SAME")"))),
                "origin.json", "'a'", "'b'", "cycle");
    // "blk/conv" written at the top level and as sub-layer "conv" of block "blk".
    CHECK_ERROR(invalid_model,
                parse(net_with(conv_layer("blk/conv", "[\"data\"]") + R"(, "blk": {"type": "Block", "parents": ["data"],
                    "endpoint": "conv", "layers": {)" + conv_layer("conv", "[]") + "}}")),
                "origin.json", "'blk/conv'", "twice");
    // Shape mismatch: the filter expects 5 input channels, the input has 3.
    CHECK_ERROR(invalid_model, parse(net_with(conv_layer("conv", "[\"data\"]", R"("filter": [3, 3, 5, 8], "padding": "SAME")"))),
                "origin.json", "layer 'conv'", "5 input channels", "8x8x3");
}

TEST_CASE("limits: block nesting depth, file size; missing files") {
    // 100 nested blocks, far past any real net (PALEO's nest at most two deep).
    std::string deep = conv_layer("conv", "[]");
    for (int i = 0; i < 100; ++i)
        deep = "\"b" + std::to_string(i) + R"(": {"type": "Block", "parents": [], "endpoint": "x", "layers": {)" + deep + "}}";
    CHECK_ERROR(parse_error, parse(net_with(deep)), "origin.json", "deeper");
    // Three levels load, named level by level.
    std::string three = conv_layer("conv", "[]");
    for (const char* b : {"c", "b", "a"})
        three = "\"" + std::string(b) + R"(": {"type": "Block", "parents": [], "endpoint": "conv", "layers": {)" + three + "}}";
    const std::string inherit = R"("parents": [])";  // the outermost block's, which the others inherit
    three.replace(three.find(inherit), inherit.size(), R"("parents": ["data"])");
    CHECK(parse(net_with(three)).find("a/b/c/conv"));

    const auto dir = std::filesystem::temp_directory_path();
    // A name of its own: the suite runs twice (headers and single include), maybe at the same time.
    const auto big = dir / ("steptime_paleo_json_test_" + std::to_string(std::random_device{}()) + ".json");
    {
        std::ofstream out(big, std::ios::binary);
        const std::string text = net_with("");
        out << text << std::string(io::max_input_bytes + 1 - text.size(), ' ');  // valid JSON, one byte too long
    }
    REQUIRE(std::filesystem::file_size(big) == io::max_input_bytes + 1);
    const std::string big_name = big.string();
    CHECK_ERROR(parse_error, io::load_paleo_json(big), big_name, "limit");
    std::filesystem::remove(big);

    const auto missing = dir / "steptime_no_such_file.json";
    const std::string missing_name = missing.string();
    CHECK_ERROR(parse_error, io::load_paleo_json(missing), missing_name);
}
