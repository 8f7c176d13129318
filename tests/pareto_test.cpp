// Time/cost trade-offs (pareto.hpp): the 2-D Pareto filter on hand-made sets and against a brute-force
// definition on random ones; training options priced by hand from training.hpp's formulas.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <utility>
#include <vector>
#include <steptime/steptime.hpp>
#include "support/errors.hpp"
#include "support/steps.hpp"

using namespace steptime;

namespace {

using test_support::message_of;
using point = std::pair<double, double>;  // (time, cost)

std::vector<std::size_t> front_of(const std::vector<point>& pts) {
    return pareto_front(pts, &point::first, &point::second);
}

bool dominated(const point& p, const point& by) { return dominates(by.first, by.second, p.first, p.second); }

using test_support::step;

// ImageNet-1k's 1,281,167 training images, 90 epochs (as in training_test.cpp).
constexpr training_run imagenet_90{1'281'167, 90};

}  // namespace

TEST_CASE("pareto: dominance: no worse in both, better in one") {
    CHECK(dominates(1.0, 1.0, 2.0, 2.0));
    CHECK(dominates(1.0, 2.0, 1.0, 3.0));   // same time, cheaper
    CHECK(dominates(1.0, 2.0, 2.0, 2.0));   // same cost, faster
    CHECK_FALSE(dominates(1.0, 2.0, 1.0, 2.0));  // equal points do not dominate each other
    CHECK_FALSE(dominates(1.0, 3.0, 2.0, 2.0));  // a trade-off
}

TEST_CASE("pareto: the Pareto front of hand-made sets") {
    CHECK(front_of({}).empty());
    CHECK(front_of({{3, 4}}) == std::vector<std::size_t>{0});
    // Already a front (cost falls as time grows): all of it, fastest first.
    CHECK(front_of({{3, 1}, {1, 3}, {2, 2}}) == std::vector<std::size_t>{1, 2, 0});

    const std::vector<point> pts{
        {1, 10},   // 0 A: on the front
        {2, 5},    // 1 B: on the front
        {3, 5},    // 2 C: B's cost, slower: dominated by B
        {2, 7},    // 3 D: B's time, dearer: dominated by B
        {4, 1},    // 4 E: the cheapest
        {5, 2},    // 5 F: dominated by E
        {1, 10},   // 6 G: A again: equal points are both kept
        {0.5, 20}, // 7 H: the fastest
        {6, 1},    // 8 I: E's cost, slower: dominated by E
    };
    CHECK(front_of(pts) == std::vector<std::size_t>{7, 0, 6, 1, 4});  // H, A, G (index order), B, E

    // Every point the same: none dominates another, all kept in index order.
    CHECK(front_of({{2, 2}, {2, 2}, {2, 2}}) == std::vector<std::size_t>{0, 1, 2});
    // One point better in both than the rest: it alone.
    CHECK(front_of({{5, 5}, {1, 1}, {3, 2}, {2, 3}}) == std::vector<std::size_t>{1});
}

TEST_CASE("pareto: a NaN coordinate is refused") {
    const double nan = std::nan("");
    CHECK(message_of<invalid_argument>([&] { front_of({{1, 1}, {nan, 2}}); }) ==
          "pareto_front: point 1 has a NaN time or cost");
    CHECK_THROWS_AS(front_of({{1, nan}}), invalid_argument);
}

TEST_CASE("pareto: property: the front is exactly the undominated points, fastest first") {
    // 300 random sets of 0 to 40 points on a 10 x 10 integer grid, so that ties in time, in cost and in
    // both are frequent; checked against the definition by brute force.
    std::mt19937 rng(20190924);  // fixed seed: reproducible
    std::uniform_int_distribution<int> coord(0, 9), size(0, 40);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<point> pts(static_cast<std::size_t>(size(rng)));
        for (auto& p : pts) p = {coord(rng), coord(rng)};
        const auto front = front_of(pts);
        std::vector<bool> on_front(pts.size(), false);
        for (const auto i : front) on_front[i] = true;
        INFO("trial " << trial);
        for (std::size_t i = 0; i < pts.size(); ++i) {
            const bool undominated = std::none_of(pts.begin(), pts.end(), [&](const point& q) { return dominated(pts[i], q); });
            CHECK(on_front[i] == undominated);
            if (!on_front[i])  // every point off the front is dominated by a point on it
                CHECK(std::any_of(front.begin(), front.end(), [&](std::size_t f) { return dominated(pts[i], pts[f]); }));
        }
        for (std::size_t k = 1; k < front.size(); ++k) {  // fastest first, costs never rising
            CHECK(pts[front[k - 1]].first <= pts[front[k]].first);
            CHECK(pts[front[k - 1]].second >= pts[front[k]].second);
        }
    }
}

TEST_CASE("pareto: a training option on hand-derived numbers") {
    // 8 V100s (AWS p3, $3.06 per GPU-hour in the built-in table), global batch 2048, 0.25 s a step:
    // 1,281,167 / 2048 = 625.57 -> 626 steps an epoch, x 90 = 56,340 steps, x 0.25 s = 14,085 s = 3.9125 h;
    // 8 GPUs -> 31.3 GPU-hours, x $3.06 = $95.778.
    const auto o = training_option_of(imagenet_90, step(2048, 8, 0.25, "v100-sxm2-16gb"));
    CHECK(o.model == "net");
    CHECK(o.device == "v100-sxm2-16gb");
    CHECK(o.workers == 8);
    CHECK(o.batch == 2048);
    CHECK(o.step.value() == 0.25);
    CHECK(o.steps == 56'340);
    CHECK(o.time.value() == doctest::Approx(14'085));
    CHECK(o.gpu_hours == doctest::Approx(31.3));
    CHECK(o.usd_per_gpu_hour == 3.06);
    CHECK(o.cost_usd == doctest::Approx(95.778));

    // A table of one's own: $2 per GPU-hour -> 31.3 x 2 = $62.6.
    price_table mine;
    mine.set("v100-sxm2-16gb", 2.0, "my rate");
    CHECK(training_option_of(imagenet_90, step(2048, 8, 0.25, "v100-sxm2-16gb"), mine).cost_usd == doctest::Approx(62.6));
    // No price for the device: the error names it.
    CHECK(message_of<invalid_argument>([&] { training_option_of(imagenet_90, step(256, 1, 0.4, "k40"), mine); })
              .find("'k40'") != std::string::npos);
}

TEST_CASE("pareto: options priced, then filtered: one K80 against eight V100s against one V100") {
    // Hand-made steps, costs from the built-in prices (k80 $0.90, v100-sxm2-16gb $3.06 per GPU-hour):
    //   1 K80,  batch 256, 0.4 s:  450,450 steps x 0.4 = 180,180 s = 50.05 h;   x $0.90 = $45.045
    //   1 V100, batch 256, 0.1 s:  450,450 x 0.1 = 45,045 s = 12.5125 h;         x $3.06 = $38.28825
    //   8 V100, batch 2048, 0.25 s: 14,085 s = 3.9125 h, 31.3 GPU-hours;          x $3.06 = $95.778
    // One V100 is faster and cheaper than one K80; eight V100s are faster still but dearer: a trade-off.
    const std::vector<training_option> options{
        training_option_of(imagenet_90, step(256, 1, 0.4, "k80")),
        training_option_of(imagenet_90, step(256, 1, 0.1, "v100-sxm2-16gb")),
        training_option_of(imagenet_90, step(2048, 8, 0.25, "v100-sxm2-16gb")),
    };
    CHECK(options[0].cost_usd == doctest::Approx(45.045));
    CHECK(options[1].cost_usd == doctest::Approx(38.28825));
    CHECK(pareto_front(options) == std::vector<std::size_t>{2, 1});
}

TEST_CASE("pareto: real estimates: the fastest and the cheapest configurations are always on the front") {
    // AlexNet, data-parallel over 100 Gb/s Ethernet, 1 to 16 workers of two devices: the fastest option
    // (cheapest among equally fast ones) and the cheapest (fastest among equally cheap) are undominated.
    const auto net = zoo::alexnet();
    const collective_model ring{collective::ring, links::get("ethernet-100g")};
    std::vector<training_option> options;
    for (const char* d : {"k80", "v100-sxm2-16gb"})
        for (const int w : {1, 2, 4, 8, 16})
            options.push_back(training_option_of(
                imagenet_90, estimate(net, devices::get(d), cost::paleo{}, ring, data_parallel{w, scaling::weak}, {.batch = 128})));
    const auto front = pareto_front(options);
    REQUIRE(!front.empty());
    const auto by_time = [](const training_option& a, const training_option& b) {
        return a.time < b.time || (a.time == b.time && a.cost_usd < b.cost_usd);
    };
    const auto by_cost = [](const training_option& a, const training_option& b) {
        return a.cost_usd < b.cost_usd || (a.cost_usd == b.cost_usd && a.time < b.time);
    };
    const auto fastest = static_cast<std::size_t>(std::min_element(options.begin(), options.end(), by_time) - options.begin());
    const auto cheapest = static_cast<std::size_t>(std::min_element(options.begin(), options.end(), by_cost) - options.begin());
    CHECK(front.front() == fastest);
    CHECK(front.back() == cheapest);
    for (const auto& o : options) {  // each option is priced by training.hpp's formulas
        CHECK(o.cost_usd == doctest::Approx(o.gpu_hours * prices::builtin().usd_per_gpu_hour(o.device)));
        CHECK(o.gpu_hours == doctest::Approx(o.time.value() / 3600 * o.workers));
    }
}
