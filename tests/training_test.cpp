// Time and cost to train (training.hpp): steps from the dataset and the global batch, time, GPU-hours and
// dollars on hand-derived numbers; the built-in price table, overrides, and the price CSV's errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <steptime/io.hpp>
#include "support/errors.hpp"
#include "support/steps.hpp"

using namespace steptime;

namespace {

using test_support::message_of;

// ImageNet-1k (ILSVRC 2012) training set: 1,281,167 images; 90 epochs: AlexNet's schedule (Krizhevsky 2012,
// "roughly 90 cycles") and the usual ResNet-50 recipe (Goyal et al. 2017).
constexpr training_run imagenet_90{1'281'167, 90};

using test_support::step;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("steps: ceil(dataset / global batch) per epoch, times the epochs") {
    // 1,281,167 / 256 = 5004.56 -> 5005 steps per epoch (the last one partial); x 90 = 450,450.
    CHECK(training_steps(imagenet_90, 256) == 450'450);
    // Global batch 8 x 256 = 2048: 1,281,167 / 2048 = 625.57 -> 626; x 90 = 56,340.
    CHECK(training_steps(imagenet_90, 2048) == 56'340);
    // A batch that divides the dataset: 1,000 / 100 = 10 steps per epoch, 3 epochs = 30.
    CHECK(training_steps({1000, 3}, 100) == 30);
    // Batch above the dataset: one (partial) step per epoch.
    CHECK(training_steps({10, 4}, 256) == 4);
    // Fractional epochs round up to a whole step: 10 x 0.25 = 2.5 -> 3.
    CHECK(training_steps({1000, 0.25}, 100) == 3);
    // 25 steps x 2.2 epochs is 55.00000000000001 in doubles: still 55 steps, not 56.
    CHECK(training_steps({2500, 2.2}, 100) == 55);
}

TEST_CASE("steps follow the global batch, not PALEO's demo's N-independent count (paleo-model.md 7.5, bug 19)") {
    // Weak scaling: 256 per worker on 8 workers is a global batch of 2048, so 8x fewer steps than on one worker
    // (up to the rounding of the last partial batch: 5005 vs 626 x 8 = 5008).
    const auto one = step(256, 1, 0.5), eight = step(2048, 8, 0.5);
    CHECK(time_to_train(imagenet_90, one).value() == doctest::Approx(450'450 * 0.5));
    CHECK(time_to_train(imagenet_90, eight).value() == doctest::Approx(56'340 * 0.5));
}

TEST_CASE("time, GPU-hours and cost on hand-derived numbers") {
    // 450,450 steps x 0.4 s = 180,180 s = 50.05 h on one K80 at $0.90 (AWS p2.xlarge): 50.05 x 0.90 = $45.045.
    const auto e = step(256, 1, 0.4);
    CHECK(time_to_train(imagenet_90, e).value() == doctest::Approx(180'180));
    CHECK(gpu_hours(imagenet_90, e) == doctest::Approx(50.05));
    CHECK(training_cost_usd(imagenet_90, e) == doctest::Approx(45.045));
    CHECK(training_cost_usd(imagenet_90, e, 2.0) == doctest::Approx(100.1));

    // 8 V100s (AWS p3 at $3.06 per GPU), global batch 2048, 0.25 s a step: 56,340 x 0.25 = 14,085 s = 3.9125 h,
    // 8 GPUs -> 31.3 GPU-hours, x $3.06 = $95.778.
    const auto v = step(2048, 8, 0.25, "v100-sxm2-16gb");
    CHECK(time_to_train(imagenet_90, v).value() == doctest::Approx(14'085));
    CHECK(gpu_hours(imagenet_90, v) == doctest::Approx(31.3));
    CHECK(training_cost_usd(imagenet_90, v) == doctest::Approx(95.778));
    // The same 8 workers, each a tensor-parallel pair: 16 GPUs busy for the same 3.9125 h, 62.6 GPU-hours.
    auto pairs = v;
    pairs.tensor_parallel = 2;
    CHECK(gpu_hours(imagenet_90, pairs) == doctest::Approx(62.6));
    // And each pair a stage of a 4-stage pipeline: 8 x 2 x 4 = 64 GPUs, 250.4 GPU-hours.
    pairs.pipeline_stages = 4;
    CHECK(gpu_hours(imagenet_90, pairs) == doctest::Approx(250.4));
}

TEST_CASE("time to train a real estimate: AlexNet data-parallel on PALEO's K80s") {
    // The step comes from the model; the training time is steps x step, steps from the estimate's global batch.
    const auto net = zoo::alexnet();
    const collective_model tree{collective::tree, links::get("paleo:ethernet20"), {}, 8, ratio_of(1.0), true};
    const auto e = estimate(net, devices::get("paleo:K80"), cost::paleo_compat{ratio_of(0.62)}, tree,
                            data_parallel{4, scaling::weak}, {.batch = 256});
    REQUIRE(e.batch == 1024);
    CHECK(time_to_train(imagenet_90, e).value() == doctest::Approx(training_steps(imagenet_90, 1024) * e.total.value()));
    CHECK(training_steps(imagenet_90, 1024) == 1252 * 90);  // 1,281,167 / 1024 = 1251.1 -> 1252
    // PALEO's demo price: $0.90 per "GPU" (its K80 board), 4 of them.
    CHECK(training_cost_usd(imagenet_90, e) == doctest::Approx(time_to_train(imagenet_90, e).value() / 3600 * 4 * 0.90));
}

TEST_CASE("bad runs are refused") {
    CHECK_THROWS_AS(training_steps({0, 90}, 256), invalid_argument);
    CHECK_THROWS_AS(training_steps({100, 0}, 256), invalid_argument);
    CHECK_THROWS_AS(training_steps({100, -1}, 256), invalid_argument);
    CHECK_THROWS_AS(training_steps({100, std::nan("")}, 256), invalid_argument);
    CHECK_THROWS_AS(training_steps({100, 1e300}, 1), invalid_argument);  // beyond 2^53 steps
    // The largest dataset: ceil(dataset / batch) without overflowing: (2^63 - 1) / 2^20 rounds up to 2^43.
    CHECK(training_steps({std::numeric_limits<std::int64_t>::max(), 1}, std::int64_t{1} << 20) == std::int64_t{1} << 43);
    CHECK(training_steps({std::numeric_limits<std::int64_t>::max(), 3}, std::int64_t{1} << 20) == 3 * (std::int64_t{1} << 43));
    CHECK_THROWS_AS(training_steps({100, 1}, 0), invalid_argument);
    CHECK_THROWS_AS(training_cost_usd(imagenet_90, step(256, 1, 0.4), -1.0), invalid_argument);
}

TEST_CASE("the built-in price table") {
    const auto& p = prices::builtin();
    CHECK(p.usd_per_gpu_hour("k80") == 0.90);             // AWS p2.xlarge
    CHECK(p.usd_per_gpu_hour("paleo:K80") == 0.90);       // PALEO's web demo
    CHECK(p.usd_per_gpu_hour("v100-sxm2-16gb") == 3.06);  // AWS p3.2xlarge
    CHECK(p.usd_per_gpu_hour("t4") == 0.526);             // AWS g4dn.xlarge
    CHECK(p.usd_per_gpu_hour("a100-sxm4-40gb") == doctest::Approx(32.7726 / 8));  // AWS p4d.24xlarge
    CHECK(p.usd_per_gpu_hour("h100-sxm5-80gb") == doctest::Approx(12.29));         // AWS p5.48xlarge $98.32 / 8
    for (const auto& e : p.entries()) {
        INFO(e.device);
        CHECK(devices::find(e.device) != nullptr);  // keyed by catalog names
        CHECK(e.usd_per_gpu_hour > 0);
        CHECK(!e.source.empty());
    }
    // No price: the error names the device.
    const auto m = message_of<invalid_argument>([&] { (void)p.usd_per_gpu_hour("k20x"); });
    CHECK(contains(m, "'k20x'"));
    CHECK_THROWS_AS((void)training_cost_usd(imagenet_90, step(256, 1, 0.4, "mi300x")), invalid_argument);
}

TEST_CASE("prices can be overridden and extended") {
    price_table mine = prices::builtin();
    mine.set("k80", 0.45, "spot").set("k20x", 0.30);
    CHECK(mine.usd_per_gpu_hour("k80") == 0.45);
    CHECK(mine.at("k80").source == "spot");
    CHECK(mine.usd_per_gpu_hour("k20x") == 0.30);
    CHECK(prices::builtin().usd_per_gpu_hour("k80") == 0.90);  // the built-in table is untouched
    CHECK(mine.entries().size() == prices::builtin().entries().size() + 1);
    // 50.05 GPU-hours (above) at $0.45.
    CHECK(training_cost_usd(imagenet_90, step(256, 1, 0.4), mine) == doctest::Approx(22.5225));

    price_table base = prices::builtin();
    base.merge(prices::parse_csv("device,usd_per_gpu_hour\nt4,0.35\nm40,1.0\n"));
    CHECK(base.usd_per_gpu_hour("t4") == 0.35);
    CHECK(base.usd_per_gpu_hour("m40") == 1.0);
    CHECK(base.usd_per_gpu_hour("l4") == prices::builtin().usd_per_gpu_hour("l4"));

    CHECK_THROWS_AS(mine.set("k80", -1), invalid_argument);
    CHECK_THROWS_AS(mine.set("k80", std::nan("")), invalid_argument);
    CHECK_THROWS_AS(mine.set("", 1), invalid_argument);
}

TEST_CASE("price CSV: the format") {
    const auto t = prices::parse_csv(
        "device,usd_per_gpu_hour,source\r\n"
        "a100-sxm4-80gb, 1.89 ,my provider, 2024 contract\r\n"
        "\r\n"
        "h100-sxm5-80gb,2.5\r\n");
    REQUIRE(t.entries().size() == 2);
    CHECK(t.usd_per_gpu_hour("a100-sxm4-80gb") == 1.89);
    CHECK(t.at("a100-sxm4-80gb").source == "my provider, 2024 contract");  // the rest of the line
    CHECK(t.at("h100-sxm5-80gb").source.empty());
    CHECK(prices::parse_csv("device,usd_per_gpu_hour\nk80,0\n").usd_per_gpu_hour("k80") == 0);  // free is allowed
    CHECK(prices::parse_csv("device,usd_per_gpu_hour\n").entries().empty());
}

TEST_CASE("price CSV: errors name the file and the line") {
    const auto error_of = [](const std::string& text) {
        return message_of<parse_error>([&] { (void)prices::parse_csv(text, "rates.csv"); });
    };
    CHECK(contains(error_of(""), "rates.csv: empty"));
    CHECK(contains(error_of("k80,0.9\n"), "rates.csv:1: expected the header"));
    CHECK(contains(error_of("device,price\n"), "rates.csv:1: expected the header"));
    CHECK(contains(error_of("device,usd_per_gpu_hour,notes\n"), "rates.csv:1: expected the header"));
    CHECK(contains(error_of("device,usd_per_gpu_hour\nk80\n"), "rates.csv:2: expected 'device,usd_per_gpu_hour"));
    CHECK(contains(error_of("device,usd_per_gpu_hour\n,0.9\n"), "rates.csv:2: empty device name"));
    CHECK(contains(error_of("device,usd_per_gpu_hour\n\nk80,\n"), "rates.csv:3: price of 'k80' is ''"));
    CHECK(contains(error_of("device,usd_per_gpu_hour\nk80,0.9$\n"), "rates.csv:2: price of 'k80' is '0.9$', expected a number"));
    CHECK(contains(error_of("device,usd_per_gpu_hour\nk80,cheap\n"), "rates.csv:2: price of 'k80' is 'cheap'"));
    CHECK(contains(error_of("device,usd_per_gpu_hour\nk80,nan\n"), "rates.csv:2: price of 'k80' is nan, expected a finite"));
    CHECK(contains(error_of("device,usd_per_gpu_hour\nk80,inf\n"), "rates.csv:2: price of 'k80' is inf"));
    CHECK(contains(error_of("device,usd_per_gpu_hour\nk80,-0.9\n"), "rates.csv:2: price of 'k80' is -0.9"));
    CHECK(contains(error_of("device,usd_per_gpu_hour\nk80,0.9\nt4,0.5\nk80,0.8\n"),
                   "rates.csv:4: device 'k80' already has a price (line 2)"));
}

TEST_CASE("price CSV: from a file") {
    // A directory of its own: the suite runs twice (headers and single header), possibly at the same time.
    const auto dir = std::filesystem::temp_directory_path() / ("steptime_training_test_" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir);
    const auto good = dir / "prices.csv", bad = dir / "bad.csv";
    std::ofstream(good) << "device,usd_per_gpu_hour,source\nv100-sxm2-16gb,2.48,GCP 2023\n";
    std::ofstream(bad) << "device,usd_per_gpu_hour\nv100-sxm2-16gb,-2\n";
    CHECK(prices::load_csv(good).usd_per_gpu_hour("v100-sxm2-16gb") == 2.48);
    CHECK(contains(message_of<parse_error>([&] { (void)prices::load_csv(bad); }), bad.string() + ":2: price"));
    CHECK(contains(message_of<parse_error>([&] { (void)prices::load_csv(dir / "missing.csv"); }), "missing.csv"));
    std::filesystem::remove_all(dir);
}
