// A program of a steptime user: includes both umbrella headers, builds a small network with the builder
// API, reads one in PALEO's JSON format, and estimates a training step of each. Exits 0 iff every step
// time is finite and positive. Built against the installed package (installed/) and through
// add_subdirectory (subdir/), with the multi-file headers (steptime::steptime) and the single headers
// (steptime::single).
#include <steptime/steptime.hpp>
#include <steptime/io.hpp>

#include <cmath>
#include <cstdio>
#include <exception>

namespace {

bool check(const steptime::step_estimate& e) {
    const double t = steptime::to_double(e.total);
    std::printf("steptime %s: %s on %s, batch %lld, %s: %.6g ms per step\n", steptime::version, e.model.c_str(),
                e.device.c_str(), static_cast<long long>(e.batch), std::string(e.cost_model).c_str(), t * 1e3);
    return std::isfinite(t) && t > 0;
}

}  // namespace

int main() try {
    namespace ops = steptime::ops;

    steptime::network net("tiny");
    net.add("data", ops::input{steptime::tensor_shape::image(32, 32, 3)});
    net.add("conv", ops::conv2d{.filters = 16, .kernel = {3, 3}, .stride = {1, 1}, .pad = ops::padding::same()},
            {"data"});
    net.add("pool", ops::pool2d{.window = {2, 2}, .stride = {2, 2}}, {"conv"});
    net.add("fc", ops::dense{.outputs = 10}, {"pool"});

    const steptime::device& dev = steptime::devices::get("v100-sxm2-16gb");
    bool ok = check(steptime::estimate(net, dev, steptime::cost::paleo{}, {.batch = 8}));

    // The file-format half (nlohmann_json): the same kind of network from PALEO's JSON.
    const auto parsed = steptime::io::parse_paleo_json(R"({"name": "tiny-json", "layers": {
        "data": {"parents": [], "type": "Input", "tensor": [8, 32, 32, 3]},
        "conv": {"parents": ["data"], "type": "Convolution", "filter": [3, 3, 3, 16],
                 "padding": "SAME", "strides": [1, 1, 1, 1]}}})",
                                                       "main.cpp");
    ok = check(steptime::estimate(parsed, dev, steptime::cost::paleo_compat{})) && ok;
    return ok ? 0 : 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
}
