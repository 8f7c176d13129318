// PPP calibration (fit/ppp.hpp, fit/measurements.hpp, cost/calibration.hpp, io/calibration_json.hpp):
// recovery of planted efficiencies from synthetic pass times, the bounds, agreement with estimate(),
// the readers' errors, and a held-out check on published measurements (validation/measured/).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "support/errors.hpp"
#include "support/gaussian.hpp"

#include <steptime/fit/ppp.hpp>
#include <steptime/io.hpp>
#include <steptime/steptime.hpp>

using namespace steptime;
using namespace steptime::fit;
using test_support::message_of;

namespace {

const device& titan_x() { return devices::get("titan-x-maxwell"); }

// Planted profile: efficiencies of the order PALEO's presets use (ppp 0.4-0.7, paleo-model.md), and a
// 40 us kernel overhead (old frameworks' launch and dispatch cost per layer).
const calibration_profile truth{.name = "truth",
                                .device = "titan-x-maxwell",
                                .compute_efficiency = ratio_of(0.55),
                                .memory_efficiency = ratio_of(0.8),
                                .kernel_overhead = microseconds_of(40)};

// AlexNet and VGG-16 passes at batches 8 to 128 on the Titan X, timed by `profile`, each time
// multiplied by (1 + sigma N(0, 1)).
std::vector<ppp_sample> planted(const calibration_profile& profile, double sigma, std::uint64_t seed) {
    test_support::gaussian noise(seed);
    const network nets[] = {zoo::alexnet(), zoo::vgg16()};
    std::vector<ppp_sample> out;
    for (const auto& net : nets)
        for (std::int64_t b : {8, 32, 128})
            for (auto phase : {measured_phase::forward, measured_phase::backward, measured_phase::training}) {
                const pass_measurement m{.id = net.name() + "/" + std::to_string(b), .batch = b, .phase = phase};
                ppp_sample s = decompose(m, net, titan_x());
                s.measured = predict(profile, s) * (1 + sigma * noise());
                out.push_back(s);
            }
    return out;
}

double rel(double x, double truth) { return std::abs(x / truth - 1); }

}  // namespace

TEST_CASE("ppp: noise-free pass times give back the planted profile") {
    const auto f = fit_ppp(planted(truth, 0, 1), "fit", "titan-x-maxwell");
    CHECK(rel(f.profile.compute_efficiency.value(), 0.55) < 1e-9);
    CHECK(rel(f.profile.memory_efficiency.value(), 0.8) < 1e-9);
    CHECK(rel(f.profile.kernel_overhead.value(), 40e-6) < 1e-9);
    CHECK(f.errors.max_error < 1e-9);
    CHECK(f.profile.measurements == 18);
}

TEST_CASE("ppp: with 1.5% measurement noise the profile is recovered within the noise") {
    // 18 samples, 3 unknowns: each coefficient's standard error is about sigma / sqrt(18 - 3) times a
    // conditioning factor; the bounds below are a few of those standard errors. Five noise draws.
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        CAPTURE(seed);
        const auto f = fit_ppp(planted(truth, 0.015, seed), "fit", "titan-x-maxwell");
        CHECK(rel(f.profile.compute_efficiency.value(), 0.55) < 0.03);
        CHECK(rel(f.profile.memory_efficiency.value(), 0.8) < 0.15);
        CHECK(std::abs(f.profile.kernel_overhead.value() - 40e-6) < 15e-6);
        CHECK(f.errors.mape < 0.03);  // the residuals are the noise: mean |N(0, 1.5%)| is 1.2%
    }
}

TEST_CASE("ppp: efficiencies stay within (0, 4] and the overhead non-negative") {
    // A device 5x faster than its peak says, with no overhead: e_c is held at its bound 4 and the
    // other unknowns absorb what they can.
    calibration_profile fast = truth;
    fast.compute_efficiency = ratio_of(5);
    auto samples = planted(truth, 0, 1);
    for (auto& s : samples) s.measured = s.compute / 5.0 + s.memory / 0.8;
    const auto f = fit_ppp(samples, "fit", "titan-x-maxwell");
    CHECK(f.profile.compute_efficiency.value() == doctest::Approx(max_efficiency).epsilon(1e-12));
    CHECK(f.profile.kernel_overhead.value() >= 0);
    // Times below the compute term alone at e_c = 4 cannot be met: the overhead stays at 0, not negative.
    for (auto& s : samples) s.measured = s.compute / 8.0;
    const auto g = fit_ppp(samples, "fit", "titan-x-maxwell");
    CHECK(g.profile.kernel_overhead.value() == 0);
    CHECK(g.profile.compute_efficiency.value() == doctest::Approx(4).epsilon(1e-12));
}

TEST_CASE("ppp: the calibrated model's estimate is the fit's prediction") {
    const network net = zoo::alexnet();
    const cost::calibrated model = [] {
        cost::calibrated m;
        m.profile = truth;
        return m;
    }();
    const auto e = estimate(net, titan_x(), model, {.batch = 64});
    CHECK(e.cost_model == "calibrated");
    const auto time = [&](measured_phase p, std::string layer = {}) {
        return predict(truth, decompose({.id = "x", .batch = 64, .phase = p, .layer = std::move(layer)}, net, titan_x()))
            .value();
    };
    CHECK(e.forward.value() == doctest::Approx(time(measured_phase::forward)).epsilon(1e-12));
    CHECK(e.backward.value() == doctest::Approx(time(measured_phase::backward)).epsilon(1e-12));
    // Both passes without the update (a framework's forward-and-backward timing).
    CHECK((e.forward + e.backward).value() == doctest::Approx(time(measured_phase::forward_backward)).epsilon(1e-12));
    CHECK(e.total.value() == doctest::Approx(time(measured_phase::training)).epsilon(1e-12));
    // One layer: conv2's forward time in the estimate's breakdown.
    const auto conv2 = std::ranges::find(e.layers, std::string("conv2"), &layer_estimate::name);
    REQUIRE(conv2 != e.layers.end());
    CHECK(conv2->forward.total().value() == doctest::Approx(time(measured_phase::forward, "conv2")).epsilon(1e-12));
    // The overhead is one per pass of each layer that does work: the input layer has none.
    CHECK(e.layers.front().forward.overhead.value() == 0);
    CHECK(conv2->forward.overhead.value() == doctest::Approx(40e-6));
    // A profile is its device's.
    CHECK(message_of<invalid_argument>([&] { (void)estimate(net, devices::get("v100-sxm2-16gb"), model); }) ==
          "calibration 'truth' was fitted on titan-x-maxwell, not on v100-sxm2-16gb (efficiencies are a device's own)");
}

TEST_CASE("ppp: bad measurements and profiles are refused with a reason") {
    CHECK(message_of<invalid_argument>([] { (void)fit_ppp({}, "fit", "d"); }) == "PPP fit: no measurements");
    const network net = zoo::alexnet();
    CHECK(message_of<invalid_argument>([&] {
              (void)decompose({.id = "row 3", .batch = 8, .layer = "conv9"}, net, titan_x());
          }) == "measurement row 3: network 'alexnet' has no layer 'conv9'");
    CHECK(message_of<invalid_argument>([&] { (void)decompose({.id = "row 4", .batch = 0}, net, titan_x()); })
              .starts_with("measurement row 4: batch 0 is outside [1, "));
    calibration_profile p = truth;
    p.compute_efficiency = ratio_of(4.5);
    CHECK(message_of<invalid_argument>([&] { validate(p); }) ==
          "calibration 'truth': compute_efficiency is 4.500000, expected a number in (0, 4]");
    p = truth;
    p.kernel_overhead = microseconds_of(-1);
    CHECK(message_of<invalid_argument>([&] { validate(p); }).find("kernel_overhead is -0.000001 s") != std::string::npos);
}

TEST_CASE("ppp: pass-time CSV") {
    const auto rows = parse_pass_times(
        "network,device,batch,phase,time_ms,layer,precision,id\n"
        "alexnet,titan-x-maxwell,128,forward,26,,,CNN-001\n"
        "\"nets/my net.json\", v100-sxm2-16gb ,64,training,12.5,conv1,fp16,\n",
        "m.csv");
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].id == "CNN-001");
    CHECK(rows[0].time.value() == doctest::Approx(0.026));
    CHECK(rows[0].layer.empty());
    CHECK(rows[1].id == "line 3");  // no id: the line
    CHECK(rows[1].network == "nets/my net.json");
    CHECK(rows[1].device == "v100-sxm2-16gb");
    CHECK(rows[1].phase == measured_phase::training);
    CHECK(rows[1].precision == element_type::fp16);
    CHECK(rows[1].layer == "conv1");

    const auto err = [](const std::string& text) { return message_of<parse_error>([&] { parse_pass_times(text, "m.csv"); }); };
    const std::string h = "network,device,batch,phase,time_ms\n";
    CHECK(err("network,device,batch,time_ms\n") ==
          "m.csv: the header has no column 'phase', expected the columns "
          "network,device,batch,phase,time_ms[,layer][,precision][,id]");
    CHECK(err(h + "alexnet,k80,128,sideways,10\n") ==
          "m.csv:2: column 'phase': 'sideways', expected forward, backward, forward+backward or training");
    CHECK(err(h + "alexnet,k80,0,forward,10\n") == "m.csv:2: column 'batch': '0', expected a batch size of at least 1");
    CHECK(err(h + "alexnet,k80,8,forward,-1\n") == "m.csv:2: column 'time_ms': '-1', expected a positive time in milliseconds");
    CHECK(err(h + "alexnet,k80,8,forward,nan\n") == "m.csv:2: column 'time_ms': 'nan', expected a positive time in milliseconds");
    CHECK(err(h + "alexnet,k80,8,forward,1e-321\n") ==  // underflows to 0 s
          "m.csv:2: column 'time_ms': '1e-321', expected a positive time in milliseconds (a finite, non-zero time in seconds)");
    CHECK(err(h + ",k80,8,forward,1\n") == "m.csv:2: column 'network': '', expected a zoo network or a PALEO JSON file");
    CHECK(err(h + "alexnet,k80,8,forward\n") == "m.csv:2: 4 fields, expected 5 as in the header");
    CHECK(err(h + "\"alexnet\"x,k80,8,forward,1\n") == "m.csv:2: text after a quoted field, expected a comma");
}

TEST_CASE("ppp: published measurements joined with their cases") {
    const std::string published =
        "id,num_gpus,batch_per_gpu,metric,value,unit,notes\n"
        "A,1,128,forward_ms,26,ms,\"trust=A; a, quoted note\"\n"
        "B,1,64,images_per_s,154,images/s (aggregate),\n"
        "C,8,64,images_per_s,1000,images/s (aggregate),\n"
        "D,1,,kernel_ms,0.088,ms,\n"
        "E,1,,forward_ms,26,ms,\n"
        "F,1,16,forward_backward_ms,108.8,ms,\n"
        "G,1,16,inference_ms,31.3,ms,\n";
    const auto rows = parse_published_times(published, "cal.csv",
                                            "id,network,device\nB,vgg16,p100\nA,alexnet,k80\nF,vgg16,v100\n", "cases.csv");
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].id == "B");  // the cases' order
    CHECK(rows[0].phase == measured_phase::training);
    CHECK(rows[0].time.value() == doctest::Approx(64.0 / 154));  // a step of 64 images at 154 images/s
    CHECK(rows[1].phase == measured_phase::forward);
    CHECK(rows[1].batch == 128);
    CHECK(rows[2].phase == measured_phase::forward_backward);
    CHECK(rows[2].time.value() == doctest::Approx(0.1088));
    const auto err = [&](const std::string& cases) {
        return message_of<parse_error>([&] { parse_published_times(published, "cal.csv", cases, "cases.csv"); });
    };
    CHECK(err("id,network,device\nZ,alexnet,k80\n") == "cases.csv:2: column 'id': 'Z', expected the id of a row of cal.csv");
    // Rows of 8 GPUs, kernel rows and inference rows are validate's, not a calibration's: skipped.
    CHECK(parse_published_times(published, "cal.csv", "id,network,device\nC,alexnet,k80\nD,alexnet,k80\nG,vgg16,v100\n",
                                "cases.csv").empty());
    CHECK(err("id,network,device\nE,alexnet,k80\n") ==
          "cal.csv:6: column 'batch_per_gpu': '', expected a batch size of at least 1 (a pass or step of a network)");
}

TEST_CASE("ppp: a profile survives its JSON file") {
    calibration_profile p = truth;
    p.measurements = 8;
    p.mape = 0.035;
    const auto back = io::calibration_from_json(nlohmann::json::parse(io::to_json(p).dump()), "p.json");
    CHECK(back.name == p.name);
    CHECK(back.device == p.device);
    CHECK(back.compute_efficiency.value() == p.compute_efficiency.value());
    CHECK(back.memory_efficiency.value() == p.memory_efficiency.value());
    CHECK(back.kernel_overhead.value() == doctest::Approx(p.kernel_overhead.value()).epsilon(1e-15));
    CHECK(back.measurements == 8);
    const auto err = [](const char* text) {
        return message_of<parse_error>([&] { io::calibration_from_json(nlohmann::json::parse(text), "p.json"); });
    };
    CHECK(err(R"({"name": "x", "device": "k80", "compute_efficiency": 0.5, "memory_efficiency": 0.5})") ==
          "p.json: missing field 'kernel_overhead_us'");
    CHECK(err(R"({"name": "x", "device": "k80", "compute_efficiency": 0.5, "memory_efficiency": 0.5,
                  "kernel_overhead_us": 5, "speed": 1})")
              .starts_with("p.json: unknown field 'speed' (expected name, device,"));
    CHECK(err(R"({"name": "x", "device": "k80", "compute_efficiency": 0, "memory_efficiency": 0.5,
                  "kernel_overhead_us": 5})") ==
          "p.json: calibration 'x': compute_efficiency is 0.000000, expected a number in (0, 4]");
}

// validation/measured/calibration.csv rows CNN-001 to CNN-008 (soumith/convnet-benchmarks, one Maxwell
// GTX Titan X, batch 128): TensorFlow and Torch7 + cuDNN R4 timed the same networks. A profile fitted
// to one framework's four rows predicts the other's within issue 5's accuracy goal of 8%.
TEST_CASE("ppp: fitted on TensorFlow's Titan X rows, it predicts Torch's") {
    const std::string dir = STEPTIME_SOURCE_DIR "/validation/measured/";
    const std::string published = io::read_file(dir + "calibration.csv");
    const auto samples = [&](const char* cases) {
        std::vector<ppp_sample> out;
        for (const auto& m : parse_published_times(published, "calibration.csv", cases, "cases")) {
            const network net = m.network == "alexnet" ? zoo::alexnet() : io::load_paleo_json(dir + m.network);
            out.push_back(decompose(m, net, devices::get(m.device)));
        }
        return out;
    };
    const auto overfeat = "../../data/nets/paleo/overfeat.json";
    const std::string h = "id,network,device\n";
    const auto tensorflow = samples((h + "CNN-001,alexnet,titan-x-maxwell\nCNN-002,alexnet,titan-x-maxwell\nCNN-005," +
                                     overfeat + ",titan-x-maxwell\nCNN-006," + overfeat + ",titan-x-maxwell\n").c_str());
    const auto torch = samples((h + "CNN-003,alexnet,titan-x-maxwell\nCNN-004,alexnet,titan-x-maxwell\nCNN-007," +
                                overfeat + ",titan-x-maxwell\nCNN-008," + overfeat + ",titan-x-maxwell\n").c_str());
    const auto f = fit_ppp(tensorflow, "tensorflow", "titan-x-maxwell");
    const auto held_out = evaluate(f.profile, torch);
    CHECK(held_out.mape < 0.08);
    CHECK(held_out.max_error < 0.15);
    // Both efficiencies are finite and positive; compute is within a factor 2 of the nominal peak.
    CHECK(f.profile.compute_efficiency.value() > 0.5);
    CHECK(f.profile.compute_efficiency.value() < 2);
}

// fuzz/regressions/measurements: the inputs fuzz/measurements_fuzzer.cpp found (the robustness suite
// replays the other readers' ones; these need fit/, outside the single header). Each is read or refused
// with a steptime::error, as the fuzzer does it.
TEST_CASE("ppp: the measurement readers' fuzz regressions are read or refused") {
    std::size_t replayed = 0;
    for (const auto& f : std::filesystem::directory_iterator(STEPTIME_SOURCE_DIR "/fuzz/regressions/measurements")) {
        if (f.path().filename() == ".gitkeep") continue;
        INFO(f.path().string());
        const std::string text = io::read_file(f.path());
        try { (void)parse_pass_times(text, "f"); } catch (const steptime::error&) {}
        if (const auto nul = text.find('\0'); nul != std::string::npos)
            try {
                (void)parse_published_times(std::string_view(text).substr(0, nul), "p", std::string_view(text).substr(nul + 1), "c");
            } catch (const steptime::error&) {}
        ++replayed;
    }
    CHECK(replayed >= 3);  // the three inputs fixed with measurements.hpp's positive_time
}
