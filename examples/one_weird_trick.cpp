// "One weird trick" (Krizhevsky 2014): AlexNet's convolutional layers data-parallel, its fully connected
// layers model-parallel, on 1, 2, 4 and 8 GPUs, next to pure data parallelism. PALEO's case study
// (scripts/exp_case_hybrid.sh: alex_v2_{1,2,4,8}gpu, K20, pcie2, batch 128 per GPU, PPP 0.46 / 0.75; then
// weak scaling of alex_v2_1gpu on 1, 2, 4, 8 workers), first as PALEO prints it, then with the default model.
#include <iostream>
#include <string>
#include <vector>

#include <steptime/io.hpp>

using namespace steptime;
using steptime::detail::fixed;
using steptime::detail::ms;
using steptime::detail::pad_left;
using steptime::detail::pad_right;

int main() {
    constexpr std::int64_t batch = 128;  // per GPU
    const std::vector<int> gpu_counts{1, 2, 4, 8};
    const auto net_for = [](int k) {
        return io::load_paleo_json(STEPTIME_DATA_DIR "/nets/paleo/alex_v2_" + std::to_string(k) + "gpu.json");
    };
    const device& k20 = devices::get("paleo:K20");
    const network_link& pcie2 = links::get("paleo:pcie2");
    const ratio ppp_comm = ratio_of(0.75);
    const cost::paleo_compat compat{ratio_of(0.46), ppp_comm, {}, false};
    cost::paleo fixed_model;  // the default model at the same efficiencies
    fixed_model.ppp_compute = ratio_of(0.46);
    fixed_model.ppp_memory = ratio_of(0.46);
    fixed_model.ppp_comm = ppp_comm;

    std::cout << "== AlexNet, One Weird Trick on paleo:K20 GPUs over paleo:pcie2 (8 GB/s), batch " << batch
              << " per GPU, PPP 0.46 compute / 0.75 comm\n\n"
              << "PALEO's two rows per configuration (paleo-compat; PALEO prints them and never adds them), ms\n"
              << pad_left("GPUs", 5) << pad_left("batch", 7) << "  " << pad_right("layers", 24) << pad_left("fwd", 10)
              << pad_left("bwd", 10) << pad_left("apply", 8) << pad_left("sync", 8) << "\n";
    std::vector<step_estimate> hybrid_compat, hybrid_default, data_compat, data_default;
    const network single = net_for(1);
    for (int k : gpu_counts) {
        const network net = net_for(k);
        hybrid_compat.push_back(estimate(net, k20, compat, hybrid_parallel{k, pcie2, ppp_comm}, {.batch = batch}));
        hybrid_default.push_back(estimate(net, k20, fixed_model, hybrid_parallel{k, pcie2, ppp_comm}, {.batch = batch}));
        // Pure data parallelism of the single-GPU net: weak scaling, tree AllReduce (PALEO's and, for the
        // default model, with the link's latency, here none: paleo:pcie2 has no latency figure).
        const data_parallel dp{k, scaling::weak, overlap::none, bytes_of(25e6)};
        data_compat.push_back(estimate(single, k20, compat, collective_model{collective::tree, pcie2, {}, 8, ppp_comm, true},
                                       dp, {.batch = batch}));
        data_default.push_back(estimate(single, k20, fixed_model, collective_model{collective::tree, pcie2, {}, 8, ppp_comm},
                                        dp, {.batch = batch}));
        for (const auto& part : hybrid_compat.back().parts)
            std::cout << pad_left(std::to_string(k), 5) << pad_left(std::to_string(hybrid_compat.back().batch), 7) << "  "
                      << pad_right(part.name, 24) << pad_left(ms(part.forward), 10) << pad_left(ms(part.backward), 10)
                      << pad_left(ms(part.update), 8) << pad_left(ms(part.sync), 8) << "\n";
    }

    const auto per_image = [](const step_estimate& e) { return fixed(e.throughput(), 0); };
    std::cout << "\nstep time, ms, and throughput, images/s: hybrid vs data-parallel (alex_v2_1gpu, weak scaling, tree)\n"
              << pad_left("", 12) << pad_right("   PALEO-compatible", 38) << "   default model\n"
              << pad_left("GPUs", 5) << pad_left("batch", 7) << pad_left("hybrid", 10) << pad_left("img/s", 8)
              << pad_left("data", 10) << pad_left("img/s", 8) << "   " << pad_left("hybrid", 10) << pad_left("img/s", 8)
              << pad_left("data", 10) << pad_left("img/s", 8) << "\n";
    for (std::size_t i = 0; i < gpu_counts.size(); ++i) {
        std::cout << pad_left(std::to_string(gpu_counts[i]), 5) << pad_left(std::to_string(hybrid_compat[i].batch), 7)
                  << pad_left(ms(hybrid_compat[i].total), 10) << pad_left(per_image(hybrid_compat[i]), 8)
                  << pad_left(ms(data_compat[i].total), 10) << pad_left(per_image(data_compat[i]), 8) << "   "
                  << pad_left(ms(hybrid_default[i].total), 10) << pad_left(per_image(hybrid_default[i]), 8)
                  << pad_left(ms(data_default[i].total), 10) << pad_left(per_image(data_default[i]), 8) << "\n";
    }
    std::cout << "(PALEO-compatible hybrid = PALEO's data row + model row; the default model counts the gathered\n"
                 " activations in bytes, gives each GPU only its share of the split weights' update, and syncs the\n"
                 " data-parallel layers' gradients with a ring)\n";
}
