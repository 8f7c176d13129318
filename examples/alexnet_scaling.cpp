// How does AlexNet training scale from 1 to 128 K80s over 20 Gb/s Ethernet, with which gradient exchange,
// and where does it stop paying off? PALEO's case study (scripts/exp_case_alexnet_scalability.sh: alex_v2,
// K80, ethernet20, PPP 0.62 / 1.0, batch 256 and 2048), first as PALEO computes it, then with the default
// model (latency terms, ring AllReduce, communication overlapped with the backward pass).
// Weak scaling runs at 256 samples per worker; strong scaling at global batches 256 and 2048 (PALEO also
// runs 2048 per worker, which no longer fits a K80's memory, so it is left out).
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include <steptime/io.hpp>

using namespace steptime;
using steptime::detail::fixed;
using steptime::detail::pad_left;
using steptime::detail::pad_right;

namespace {

const std::vector<int> worker_counts{1, 2, 4, 8, 16, 32, 64, 128};

struct scheme {
    std::string label;
    collective_model comm;
    overlap overlap_with = overlap::none;
};

// One scaling experiment: a table of step times, one of speedups, and the best worker count per scheme.
// Speedup = throughput on N workers / throughput of one worker with no communication at all.
template <class Model>
void scaling_tables(const network& net, const device& dev, const Model& model, const std::vector<scheme>& schemes,
                    scaling scale, std::int64_t batch) {
    std::cout << "\n-- " << to_string(scale) << " scaling, "
              << (scale == scaling::weak ? "batch " + std::to_string(batch) + " per worker"
                                         : "global batch " + std::to_string(batch))
              << "\n";
    const auto alone = estimate(net, dev, model, {.batch = batch});
    std::size_t w = 10;
    for (const auto& s : schemes) w = std::max(w, s.label.size() + 2);

    std::vector<std::vector<step_estimate>> runs;  // [workers][scheme]
    for (int n : worker_counts) {
        auto& row = runs.emplace_back();
        for (const auto& s : schemes)
            row.push_back(estimate(net, dev, model, s.comm, data_parallel{n, scale, s.overlap_with, bytes_of(25e6)},
                                   {.batch = batch}));
    }

    std::cout << "step time, ms (compute = forward + backward + update of one worker)\n"
              << pad_left("workers", 7) << pad_left("global batch", 14) << pad_left("batch/worker", 14)
              << pad_left("compute", 10);
    for (const auto& s : schemes) std::cout << pad_left(s.label, w);
    std::cout << "\n";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& first = runs[i].front();
        std::cout << pad_left(std::to_string(worker_counts[i]), 7) << pad_left(std::to_string(first.batch), 14)
                  << pad_left(std::to_string(first.batch_per_worker), 14)
                  << pad_left(steptime::detail::ms(first.forward + first.backward + first.update), 10);
        for (const auto& e : runs[i]) std::cout << pad_left(steptime::detail::ms(e.total), w);
        std::cout << "\n";
    }

    std::cout << "speedup: throughput over one worker's " << fixed(alone.throughput(), 1)
              << " samples/s without communication\n"
              << pad_left("workers", 7) << pad_left("global batch", 14);
    for (const auto& s : schemes) std::cout << pad_left(s.label, w);
    std::cout << "\n";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        std::cout << pad_left(std::to_string(worker_counts[i]), 7) << pad_left(std::to_string(runs[i].front().batch), 14);
        for (const auto& e : runs[i]) std::cout << pad_left(fixed(e.throughput() / alone.throughput(), 2), w);
        std::cout << "\n";
    }

    // The best throughput, and the fewest workers that reach 95% of it (beyond them, little is gained).
    std::cout << "where it stops paying off\n"
              << pad_right("scheme", w) << pad_left("best at, workers", 17) << pad_left("samples/s", 11)
              << pad_left("95% of it from, workers", 25) << "\n";
    for (std::size_t k = 0; k < schemes.size(); ++k) {
        std::size_t best = 0;
        for (std::size_t i = 1; i < runs.size(); ++i)
            if (runs[i][k].throughput() > runs[best][k].throughput()) best = i;
        std::size_t enough = 0;
        while (runs[enough][k].throughput() < 0.95 * runs[best][k].throughput()) ++enough;
        std::cout << pad_right(schemes[k].label, w) << pad_left(std::to_string(worker_counts[best]), 17)
                  << pad_left(fixed(runs[best][k].throughput(), 0), 11) << pad_left(std::to_string(worker_counts[enough]), 25)
                  << (best + 1 == runs.size() ? "   (still rising)" : "") << "\n";
    }
}

}  // namespace

int main() {
    const network net = io::load_paleo_json(STEPTIME_DATA_DIR "/nets/paleo/alex_v2.json");
    const std::vector<std::pair<std::string, collective>> paleo_schemes{{"onetoall", collective::one_to_all},
                                                                        {"tree", collective::tree},
                                                                        {"butterfly", collective::butterfly},
                                                                        {"mixing", collective::butterfly_mixing}};

    // 1. PALEO-compatible: PALEO's K80 (the whole dual-GPU board), 20 Gb/s without latency, its formulas,
    //    step = time_comp + comm (paleo-model.md 7.1).
    std::cout << "== 1. AlexNet (PALEO's alex_v2) data-parallel, PALEO-compatible\n"
                 "   paleo-compat cost model, PPP 0.62 compute / 1.0 comm; paleo:K80 (the whole dual-GPU board per\n"
                 "   worker) over paleo:ethernet20 (20 Gb/s, no latency); PALEO's formulas; step = compute + comm\n";
    const cost::paleo_compat compat{ratio_of(0.62), ratio_of(1.0), {}, false};
    std::vector<scheme> compat_schemes;
    for (const auto& [label, kind] : paleo_schemes)
        compat_schemes.push_back({label, collective_model{kind, links::get("paleo:ethernet20"), {}, 8, ratio_of(1.0), true}});
    const device& paleo_k80 = devices::get("paleo:K80");
    scaling_tables(net, paleo_k80, compat, compat_schemes, scaling::weak, 256);
    scaling_tables(net, paleo_k80, compat, compat_schemes, scaling::strong, 256);
    scaling_tables(net, paleo_k80, compat, compat_schemes, scaling::strong, 2048);

    // 2. The default model: one K80 die per worker, a 20 Gb/s link with a latency, ring AllReduce, and the
    //    ring's buckets (25 MB, PyTorch DDP's default) overlapped with the backward pass.
    std::cout << "\n\n== 2. AlexNet (PALEO's alex_v2) data-parallel, default model\n"
                 "   paleo cost model, PPP 0.62 compute and memory / 1.0 comm; k80 (one GK210 die per worker) over\n"
                 "   ethernet-20g (20 Gb/s, 10 us latency); ring+overlap: 25 MB buckets reduced during the backward pass\n";
    cost::paleo fixed_model;
    fixed_model.ppp_compute = ratio_of(0.62);
    fixed_model.ppp_memory = ratio_of(0.62);
    const network_link ethernet20{"ethernet-20g", gigabits_per_second_of(20), microseconds_of(10),
                                  "20 Gb/s as PALEO's ethernet20, with a typical 10 us TCP latency"};
    std::vector<scheme> default_schemes;
    for (const auto& [label, kind] : paleo_schemes) default_schemes.push_back({label, collective_model{kind, ethernet20}});
    default_schemes.push_back({"ring", collective_model{collective::ring, ethernet20}});
    default_schemes.push_back({"ring+overlap", collective_model{collective::ring, ethernet20}, overlap::backward});
    const device& k80 = devices::get("k80");
    scaling_tables(net, k80, fixed_model, default_schemes, scaling::weak, 256);
    scaling_tables(net, k80, fixed_model, default_schemes, scaling::strong, 256);
    scaling_tables(net, k80, fixed_model, default_schemes, scaling::strong, 2048);
}
