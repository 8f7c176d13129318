// Benchmarks of the hot paths: one training-step estimate (AlexNet with both PALEO cost models, Inception
// v3, ResNet-152 and a tensor-parallel GPT with the default model), one inference estimate (ResNet-152), graph construction (PALEO JSON text in memory, the builder API), a sweep, wave scaling of one
// kernel, a remaining-time estimate and a Pareto front.
#include <steptime/io.hpp>
#include <steptime/steptime.hpp>

#include <benchmark/benchmark.h>

#include <string>
#include <utility>
#include <vector>

namespace {

const std::string data_dir = STEPTIME_DATA_DIR;
const std::string alexnet_json = data_dir + "/nets/paleo/alex_v2.json";
const std::string inception_json = data_dir + "/nets/paleo/inception_v3.json";

const steptime::device& bench_device() { return steptime::devices::get("v100-sxm2-16gb"); }

// One estimate of a whole training step (every layer, both passes, the update and the bounds).
template <class Model>
void estimate_step(benchmark::State& state, const steptime::network& net, const steptime::estimate_options& opt = {}) {
    const steptime::device& dev = bench_device();
    const Model model{};
    for (auto _ : state) {
        auto r = steptime::estimate(net, dev, model, opt);
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
BENCHMARK_TEMPLATE(BM_estimate_alexnet, steptime::cost::kernel);

template <class Model>
void BM_estimate_inception_v3(benchmark::State& state) {
    static const steptime::network net = steptime::io::load_paleo_json(inception_json);
    estimate_step<Model>(state, net);
}
BENCHMARK_TEMPLATE(BM_estimate_inception_v3, steptime::cost::paleo);
BENCHMARK_TEMPLATE(BM_estimate_inception_v3, steptime::cost::paleo_compat);

// The default model on the zoo's deepest ResNet (v1.5, 224x224, batch 64).
void BM_estimate_resnet152_kernel(benchmark::State& state) {
    static const steptime::network net = steptime::zoo::resnet152();
    estimate_step<steptime::cost::kernel>(state, net);
}
BENCHMARK(BM_estimate_resnet152_kernel);

// The same network served: its forward pass in inference mode and the activations live at its peak.
void BM_estimate_resnet152_inference(benchmark::State& state) {
    static const steptime::network net = steptime::zoo::resnet152();
    estimate_step<steptime::cost::kernel>(state, net, {.inference = true});
}
BENCHMARK(BM_estimate_resnet152_inference);

// Megatron's GPT 7.5B on one GPU of a tensor-parallel group of 4 (LLM-003: 36 recomputed layers, 16 sequences of
// 2048 tokens, mixed precision), with the default model, alone and as one of 32 data-parallel workers whose
// hierarchical gradient exchange overlaps the backward pass in 25 MB buckets.
const steptime::network& gpt_7_5b() {
    static const steptime::network net = steptime::zoo::gpt({36, 4096, 32, 2048, 51200, true, 4});
    return net;
}
constexpr steptime::estimate_options gpt_options{16, steptime::element_type::fp16, steptime::element_type::fp16};

void BM_estimate_gpt_7_5b_kernel(benchmark::State& state) { estimate_step<steptime::cost::kernel>(state, gpt_7_5b(), gpt_options); }
BENCHMARK(BM_estimate_gpt_7_5b_kernel);

void BM_estimate_gpt_7_5b_data_parallel(benchmark::State& state) {
    using namespace steptime;
    const collective_model comm{collective::hierarchical, links::get("ib-hdr"), links::get("nvlink3"), 2};
    const data_parallel dp{32, scaling::weak, overlap::backward};
    const device& dev = bench_device();
    for (auto _ : state) {
        auto r = estimate(gpt_7_5b(), dev, cost::kernel{}, comm, dp, gpt_options);
        benchmark::DoNotOptimize(r);
    }
    state.counters["layers"] = static_cast<double>(gpt_7_5b().size());
}
BENCHMARK(BM_estimate_gpt_7_5b_data_parallel);

// Megatron's 1T GPT (SC21-1T: 128 recomputed layers, one GPU of a tensor-parallel group of 8) in 64 pipeline stages
// of 512 micro-batches of 1, one of 6 data-parallel pipelines: the estimate, the cut and the schedule.
void BM_estimate_gpt_1t_pipeline(benchmark::State& state) {
    using namespace steptime;
    static const network net = zoo::gpt({128, 25600, 160, 2048, 51200, true, 8});
    const collective_model comm{collective::hierarchical, links::get("ib-hdr"), links::get("nvlink3"), 1};
    const pipeline_parallel pp{64, 512, 1, links::get("ib-hdr")};
    const device& dev = bench_device();
    for (auto _ : state) {
        auto r = estimate(net, dev, cost::kernel{}, comm, data_parallel{6}, pp, {1, element_type::fp16, element_type::fp16});
        benchmark::DoNotOptimize(r);
    }
    state.counters["layers"] = static_cast<double>(net.size());
}
BENCHMARK(BM_estimate_gpt_1t_pipeline);

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

// A sweep of 10,000 data-parallel configurations of AlexNet: 10 devices x 10 worker counts x
// 5 collectives x 4 links x 5 batch sizes, with overlap (what `steptime sweep` does per row).
void BM_sweep_alexnet_10000(benchmark::State& state) {
    using namespace steptime;
    static const network net = zoo::alexnet();
    const char* devices_[] = {"k80", "m40", "p100-sxm2-16gb", "v100-sxm2-16gb", "t4", "a10", "a100-sxm4-40gb",
                              "l4", "h100-sxm5-80gb", "b200"};
    const char* links_[] = {"ethernet-10g", "ethernet-100g", "ib-hdr", "nvlink3"};
    const collective kinds[] = {collective::one_to_all, collective::tree, collective::butterfly, collective::ring,
                                collective::hierarchical};
    for (auto _ : state) {
        double sum = 0;
        for (const char* d : devices_)
            for (int n = 1; n <= 512; n *= 2)
                for (auto k : kinds)
                    for (const char* l : links_)
                        for (std::int64_t b : {16, 32, 64, 128, 256}) {
                            const collective_model comm{k, links::get(l), links::get("nvlink3"), 8};
                            const data_parallel dp{n, scaling::weak, overlap::backward};
                            sum += estimate(net, devices::get(d), cost::paleo{}, comm, dp, {.batch = b}).total.value();
                        }
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * 10'000);
}
BENCHMARK(BM_sweep_alexnet_10000)->Unit(benchmark::kMillisecond);

// Wave scaling of one kernel with launch geometry (occupancy on both GPUs, gamma, waves), V100 -> T4.
void BM_scale_kernel(benchmark::State& state) {
    using namespace steptime;
    const scale::measured_kernel k{.name = "volta_sgemm_128x64_nn",
                                   .duration = microseconds_of(905),
                                   .launch = scale::launch_geometry{.grid = {1568, 1, 1}, .block = {256, 1, 1},
                                                                    .registers_per_thread = 128,
                                                                    .shared_memory = bytes_of(16384)},
                                   .work = flops_of(7.55e9),
                                   .traffic = bytes_of(1.22e8)};
    const device& from = devices::get("v100-sxm2-16gb");
    const device& to = devices::get("t4");
    for (auto _ : state) benchmark::DoNotOptimize(scale::scale_kernel(k, from, to).predicted);
}
BENCHMARK(BM_scale_kernel);

// The remaining time from 1,000 progress reports (window 50: the median and MAD of the window, the band).
void BM_eta_1000_reports(benchmark::State& state) {
    using namespace steptime;
    std::vector<progress_sample> samples;
    for (std::int64_t i = 0; i <= 1000; ++i)
        samples.push_back({.iteration = 10 * i, .time = seconds_of(3.1 * static_cast<double>(i) + 0.01 * (i % 7))});
    for (auto _ : state) benchmark::DoNotOptimize(estimate_eta(samples, 10'000, 50'000).remaining);
}
BENCHMARK(BM_eta_1000_reports);

// The Pareto front of 10,000 (time, cost) points.
void BM_pareto_front_10000(benchmark::State& state) {
    std::vector<std::pair<double, double>> points;
    for (int i = 0; i < 10'000; ++i) points.emplace_back((i * 7919) % 10007, (i * 104729) % 10009);
    for (auto _ : state)
        benchmark::DoNotOptimize(steptime::pareto_front(points, &std::pair<double, double>::first,
                                                        &std::pair<double, double>::second));
    state.SetItemsProcessed(state.iterations() * 10'000);
}
BENCHMARK(BM_pareto_front_10000)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
