// VGG-16 on a modern cluster: A100 SXM4 80 GB, 8 GPUs per node over NVLink 3, nodes over HDR InfiniBand,
// 1 to 128 GPUs, weak scaling. Ring vs hierarchical AllReduce, with and without overlapping the gradient
// exchange with the backward pass; then the time and cost to train ImageNet for 90 epochs at each size.
#include <algorithm>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <steptime/steptime.hpp>
#include <steptime/training.hpp>

using namespace steptime;
using steptime::detail::fixed;
using steptime::detail::ms;
using steptime::detail::pad_left;
using steptime::detail::pad_right;

namespace {

constexpr int gpus_per_node = 8;
constexpr std::int64_t batch_per_gpu = 128;
const std::vector<int> gpu_counts{1, 2, 4, 8, 16, 32, 64, 128};

struct scheme {
    std::string label;
    std::function<collective_model(int gpus)> comm;
    overlap overlap_with = overlap::none;
};

}  // namespace

int main() {
    const network net = zoo::vgg16();
    const device& a100 = devices::get("a100-sxm4-80gb");
    const cost::paleo model{};  // PPP 1: the datasheet's peaks, an optimistic bound
    const estimate_options opt{.batch = batch_per_gpu, .precision = element_type::tf32};
    const network_link& nvlink = links::get("nvlink3");
    const network_link& infiniband = links::get("ib-hdr");

    // A flat ring runs at its slowest hop: NVLink inside one node, InfiniBand once it spans nodes.
    // Hierarchical: reduce-scatter over NVLink, ring across nodes over InfiniBand, all-gather over NVLink.
    const auto ring = [&](int gpus) {
        return collective_model{collective::ring, gpus <= gpus_per_node ? nvlink : infiniband};
    };
    const auto hierarchical = [&](int) {
        return collective_model{collective::hierarchical, infiniband, nvlink, gpus_per_node};
    };
    const std::vector<scheme> schemes{{"ring", ring},
                                      {"ring+overlap", ring, overlap::backward},
                                      {"hierarchical", hierarchical},
                                      {"hier+overlap", hierarchical, overlap::backward}};

    std::cout << "== VGG-16 data-parallel on a100-sxm4-80gb, " << gpus_per_node << " GPUs per node over "
              << nvlink.name << ", nodes over " << infiniband.name << "\n"
              << "   paleo cost model (PPP 1), TF32, weak scaling at " << batch_per_gpu
              << " images per GPU; +overlap: 25 MB buckets reduced during the backward pass\n";

    const auto alone = estimate(net, a100, model, opt);
    std::vector<std::vector<step_estimate>> runs;  // [gpus][scheme]
    for (int n : gpu_counts) {
        auto& row = runs.emplace_back();
        for (const auto& s : schemes)
            row.push_back(estimate(net, a100, model, s.comm(n), data_parallel{n, scaling::weak, s.overlap_with, bytes_of(25e6)},
                                   opt));
    }
    std::cout << "\ngradients: " << fixed(alone.gradient_bytes.value() / 1e6, 1) << " MB per step; one GPU: "
              << ms(alone.total) << " ms a step, " << fixed(alone.throughput(), 0) << " images/s\n";

    std::cout << "\nstep time, ms (communication in parentheses: its exposed part)\n"
              << pad_left("GPUs", 5) << pad_left("nodes", 6) << pad_left("global batch", 14) << pad_left("compute", 9);
    for (const auto& s : schemes) std::cout << pad_left(s.label, 21);
    std::cout << "\n";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const int n = gpu_counts[i];
        const auto& first = runs[i].front();
        std::cout << pad_left(std::to_string(n), 5) << pad_left(std::to_string((n + gpus_per_node - 1) / gpus_per_node), 6)
                  << pad_left(std::to_string(first.batch), 14) << pad_left(ms(first.forward + first.backward + first.update), 9);
        for (const auto& e : runs[i]) std::cout << pad_left(ms(e.total) + " (" + ms(e.exposed_communication) + ")", 21);
        std::cout << "\n";
    }

    std::cout << "\nscaling efficiency: throughput / (GPUs x one GPU's throughput), %\n" << pad_left("GPUs", 5);
    for (const auto& s : schemes) std::cout << pad_left(s.label, 14);
    std::cout << "\n";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        std::cout << pad_left(std::to_string(gpu_counts[i]), 5);
        for (const auto& e : runs[i])
            std::cout << pad_left(fixed(100 * e.throughput() / (gpu_counts[i] * alone.throughput()), 1), 14);
        std::cout << "\n";
    }

    // Time and cost to train: steps follow the global batch (it grows with the GPUs under weak scaling).
    const training_run imagenet{1'281'167, 90};  // ILSVRC 2012 training images, 90 epochs
    const gpu_price& price = prices::builtin().at(a100.name);
    const std::size_t best = 3;  // hierarchical with overlap
    std::cout << "\ntime and cost to train ImageNet (" << imagenet.dataset_size << " images, " << imagenet.epochs
              << " epochs) with " << schemes[best].label << ",\nat $" << fixed(price.usd_per_gpu_hour, 4)
              << " per GPU-hour (" << price.source << ")\n"
              << pad_left("GPUs", 5) << pad_left("global batch", 14) << pad_left("steps", 9) << pad_left("step ms", 10)
              << pad_left("hours", 9) << pad_left("GPU-hours", 11) << pad_left("cost USD", 11) << "\n";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& e = runs[i][best];
        std::cout << pad_left(std::to_string(gpu_counts[i]), 5) << pad_left(std::to_string(e.batch), 14)
                  << pad_left(std::to_string(training_steps(imagenet, e.batch)), 9) << pad_left(ms(e.total), 10)
                  << pad_left(fixed(time_to_train(imagenet, e).value() / 3600, 2), 9)
                  << pad_left(fixed(gpu_hours(imagenet, e), 1), 11)
                  << pad_left(fixed(training_cost_usd(imagenet, e, price.usd_per_gpu_hour), 2), 11) << "\n";
    }
    std::cout << "(the model times steps, not convergence: a global batch of 16384 needs learning-rate warm-up and\n"
                 " may need more epochs to reach the same accuracy)\n";
}
