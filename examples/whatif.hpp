// Shared by the what-if examples: one network across devices, batch sizes and its heaviest layers.
#pragma once

#include <algorithm>
#include <iostream>
#include <vector>

#include <steptime/steptime.hpp>

namespace whatif {

using namespace steptime;

inline void devices_side_by_side(const network& net, const std::vector<const char*>& names, std::int64_t batch) {
    std::cout << "== " << net.name() << ", batch " << batch << ", default cost model (paleo, PPP 1): devices side by side\n"
              << detail::pad_right("device", 18) << detail::pad_left("fwd ms", 10) << detail::pad_left("bwd ms", 10)
              << detail::pad_left("step ms", 10) << detail::pad_left("img/s", 10) << "\n";
    for (const char* name : names) {
        const auto e = estimate(net, devices::get(name), cost::paleo{}, {.batch = batch});
        std::cout << detail::pad_right(name, 18) << detail::pad_left(detail::ms(e.forward), 10)
                  << detail::pad_left(detail::ms(e.backward), 10) << detail::pad_left(detail::ms(e.total), 10)
                  << detail::pad_left(detail::fixed(double(batch) / e.total.value(), 0), 10) << "\n";
    }
}

inline void batch_sweep(const network& net, const char* device_name) {
    std::cout << "\n== batch sweep on " << device_name << ": time per step and per sample\n"
              << detail::pad_right("batch", 8) << detail::pad_left("step ms", 10) << detail::pad_left("ms/sample", 11)
              << detail::pad_left("memory GiB", 12) << "  fits\n";
    for (std::int64_t b : {1, 8, 32, 64, 128, 256, 512}) {
        const auto e = estimate(net, devices::get(device_name), cost::paleo{}, {.batch = b});
        std::cout << detail::pad_right(std::to_string(b), 8) << detail::pad_left(detail::ms(e.total), 10)
                  << detail::pad_left(detail::fixed(e.total.value() * 1e3 / double(b), 3), 11)
                  << detail::pad_left(detail::gib_text(e.memory.total()), 12)
                  << detail::pad_left(detail::fits_text(e.memory), 6) << "\n";
    }
}

inline void heaviest_layers(const network& net, const char* device_name, std::int64_t batch, std::size_t count) {
    const auto e = estimate(net, devices::get(device_name), cost::paleo{}, {.batch = batch});
    auto layers = e.layers;
    const auto step_time = [](const layer_estimate& l) { return (l.forward.total() + l.backward.total()).value(); };
    std::ranges::sort(layers, [&](const auto& a, const auto& b) { return step_time(a) > step_time(b); });
    std::cout << "\n== the " << count << " layers that dominate on " << device_name << " (batch " << batch << ")\n";
    for (std::size_t i = 0; i < std::min(count, layers.size()); ++i) {
        const auto& l = layers[i];
        const bool memory_bound = (l.forward.fetch + l.forward.write) > l.forward.compute;
        std::cout << detail::pad_right(l.name, 12) << detail::pad_left(detail::fixed(step_time(l) * 1e3, 3), 10) << " ms "
                  << detail::pad_left(detail::fixed(step_time(l) / e.total.value() * 100, 1), 5) << "% of the step, "
                  << (memory_bound ? "memory-bound" : "compute-bound") << " forward\n";
    }
}

}  // namespace whatif
