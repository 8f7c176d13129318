// Benchmarks: one training-step estimate (AlexNet with both PALEO cost models, Inception v3) and
// graph construction (PALEO JSON text already in memory, and the builder API).
#include <steptime/io.hpp>
#include <steptime/steptime.hpp>

#include <benchmark/benchmark.h>

#include <string>

namespace {

const std::string data_dir = STEPTIME_DATA_DIR;
const std::string alexnet_json = data_dir + "/nets/paleo/alex_v2.json";
const std::string inception_json = data_dir + "/nets/paleo/inception_v3.json";

const steptime::device& bench_device() { return steptime::devices::get("v100-sxm2-16gb"); }

// One estimate of a whole training step (every layer, both passes, the update and the bounds).
template <class Model>
void estimate_step(benchmark::State& state, const steptime::network& net) {
    const steptime::device& dev = bench_device();
    const Model model{};
    for (auto _ : state) {
        auto r = steptime::estimate(net, dev, model);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(net.size()));  // layers/s
    state.counters["layers"] = static_cast<double>(net.size());
}

template <class Model>
void BM_estimate_alexnet(benchmark::State& state) {
    static const steptime::network net = steptime::zoo::alexnet();
    estimate_step<Model>(state, net);
}
BENCHMARK_TEMPLATE(BM_estimate_alexnet, steptime::cost::paleo);
BENCHMARK_TEMPLATE(BM_estimate_alexnet, steptime::cost::paleo_compat);

template <class Model>
void BM_estimate_inception_v3(benchmark::State& state) {
    static const steptime::network net = steptime::io::load_paleo_json(inception_json);
    estimate_step<Model>(state, net);
}
BENCHMARK_TEMPLATE(BM_estimate_inception_v3, steptime::cost::paleo);
BENCHMARK_TEMPLATE(BM_estimate_inception_v3, steptime::cost::paleo_compat);

// Graph construction from PALEO JSON text in memory: parsing, block expansion, shape inference.
void parse_json(benchmark::State& state, const std::string& path) {
    const std::string text = steptime::io::read_file(path);
    std::size_t layers = 0;
    for (auto _ : state) {
        auto net = steptime::io::parse_paleo_json(text, path);
        layers = net.size();
        benchmark::DoNotOptimize(net);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(layers));
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
    state.counters["layers"] = static_cast<double>(layers);
}
void BM_parse_json_alexnet(benchmark::State& state) { parse_json(state, alexnet_json); }
void BM_parse_json_inception_v3(benchmark::State& state) { parse_json(state, inception_json); }
BENCHMARK(BM_parse_json_alexnet);
BENCHMARK(BM_parse_json_inception_v3);

// Graph construction with the builder API: the zoo's AlexNet (alex_v2.json's network, with its ReLUs,
// dropouts and loss as layers of their own: 22 layers against 15).
void BM_build_alexnet_builder(benchmark::State& state) {
    std::size_t layers = 0;
    for (auto _ : state) {
        auto net = steptime::zoo::alexnet();
        layers = net.size();
        benchmark::DoNotOptimize(net);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(layers));
    state.counters["layers"] = static_cast<double>(layers);
}
BENCHMARK(BM_build_alexnet_builder);

}  // namespace

BENCHMARK_MAIN();
