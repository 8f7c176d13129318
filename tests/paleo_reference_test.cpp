// PALEO compatibility: the paleo-compat cost model against the outputs of PALEO's own code
// (tests/data/paleo/, copied from the shared validation set; its README says how they were made).
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <steptime/io.hpp>

#include "support/csv.hpp"

using namespace steptime;
using test_support::close;

namespace {

std::string net_file(const std::string& net) {
    if (net == "resnet50_from_caffe") return test_support::source_path("data/nets/paleo/converted/resnet50.json");
    if (net == "densenet_from_caffe") return test_support::source_path("data/nets/paleo/converted/densenet.json");
    return test_support::source_path("data/nets/paleo/" + net + ".json");
}

const network& paleo_net(const std::string& name) {
    static std::map<std::string, std::unique_ptr<network>> cache;
    auto& slot = cache[name];
    if (!slot) slot = std::make_unique<network>(io::load_paleo_json(net_file(name)));
    return *slot;
}

cost::paleo_compat compat_model(const test_support::row& r) {
    cost::paleo_compat m{.ppp_compute = ratio_of(std::stod(r.at("ppp_comp"))), .ppp_comm = ratio_of(std::stod(r.at("ppp_comm")))};
    if (r.at("cross_bw_GBps") != "none") m.cross_device_bandwidth = bytes_per_second_of(std::stod(r.at("cross_bw_GBps")) * 1e9);
    return m;
}

pass pass_of(const std::string& phase) {
    if (phase == "forward") return pass::forward;
    if (phase == "backward") return pass::backward;
    if (phase == "backward_data") return pass::backward_data;
    return pass::backward_weights;
}

double ms(seconds t) { return t.value() * 1e3; }

}  // namespace

TEST_CASE("paleo-compat reproduces PALEO's per-layer times and FLOPs (layers.csv, every row)") {
    const auto rows = test_support::read_csv(test_support::source_path("tests/data/paleo/layers.csv"));
    REQUIRE(rows.size() == 4864);
    std::size_t checked = 0;
    for (const auto& r : rows) {
        const network& net = paleo_net(r.at("net"));
        const auto v = net.find(r.at("layer"));
        REQUIRE_MESSAGE(v, r.at("net") << " has no layer " << r.at("layer"));
        const device& dev = devices::get("paleo:" + r.at("device"));
        const cost_context ctx{dev, std::stoll(r.at("batch"))};
        const layer_time t = compat_model(r).layer(net, *v, pass_of(r.at("phase")), ctx);
        INFO(r.at("net") << " " << r.at("device") << " batch " << r.at("batch") << " cross " << r.at("cross_bw_GBps")
                         << " " << r.at("layer") << " " << r.at("phase"));
        CHECK(close(ms(t.total()), std::stod(r.at("time_ms"))));
        CHECK(close(ms(t.compute), std::stod(r.at("comp_ms"))));
        CHECK(close(ms(t.fetch + t.write + t.remote), std::stod(r.at("comm_ms"))));
        auto pipelined = compat_model(r);
        pipelined.pipelined = true;
        CHECK(close(ms(pipelined.layer(net, *v, pass_of(r.at("phase")), ctx).total()), std::stod(r.at("pipelined_ms"))));
        CHECK(close(t.work.value(), std::stod(r.at("flops"))));
        CHECK(close(t.traffic.value(), std::stod(r.at("mem_bytes")) + std::stod(r.at("remote_bytes"))));
        CHECK(net[*v].output.str(std::stoll(r.at("batch"))) == r.at("output_shape"));
        ++checked;
    }
    CHECK(checked == rows.size());
}

TEST_CASE("paleo-compat reproduces PALEO's pass totals and parallel bounds (totals.csv, every row)") {
    const auto rows = test_support::read_csv(test_support::source_path("tests/data/paleo/totals.csv"));
    REQUIRE(rows.size() == 156);
    for (const auto& r : rows) {
        const network& net = paleo_net(r.at("net"));
        const device& dev = devices::get("paleo:" + r.at("device"));
        const auto e = estimate(net, dev, compat_model(r), {.batch = std::stoll(r.at("batch"))});
        INFO(r.at("net") << " " << r.at("device") << " batch " << r.at("batch") << " ppp " << r.at("ppp_comp") << "/"
                         << r.at("ppp_comm") << " cross " << r.at("cross_bw_GBps"));
        CHECK(close(ms(e.forward), std::stod(r.at("fwd_ms"))));
        CHECK(close(ms(e.backward), std::stod(r.at("bwd_ms"))));
        CHECK(close(ms(e.update), std::stod(r.at("apply_ms"))));
        CHECK(close(ms(e.total), std::stod(r.at("step_ms"))));
        auto pipelined = compat_model(r);
        pipelined.pipelined = true;
        const auto p = estimate(net, dev, pipelined, {.batch = std::stoll(r.at("batch"))});
        CHECK(close(ms(p.forward), std::stod(r.at("fwd_pipelined_ms"))));
        CHECK(close(ms(p.backward), std::stod(r.at("bwd_pipelined_ms"))));
        CHECK(close(ms(p.update), std::stod(r.at("apply_pipelined_ms"))));
        CHECK(close(ms(p.total), std::stod(r.at("step_pipelined_ms"))));
        CHECK(e.parameter_bytes.value() == std::stod(r.at("params_bytes")));  // PALEO counts conv and FC weights only
        if (r.at("fwd_parallel_lower_ms") == "error") {
            // PALEO raises AttributeError on nested branches (inception_v3); we bound them.
            CHECK(e.forward_bounds.lower < e.forward_bounds.upper);
            continue;
        }
        CHECK(close(ms(e.forward_bounds.lower), std::stod(r.at("fwd_parallel_lower_ms"))));
        CHECK(close(ms(e.forward_bounds.upper), std::stod(r.at("fwd_parallel_upper_ms"))));
        CHECK(close(ms(e.backward_bounds.lower), std::stod(r.at("bwd_parallel_lower_ms"))));
        CHECK(close(ms(e.backward_bounds.upper), std::stod(r.at("bwd_parallel_upper_ms"))));
    }
}

TEST_CASE("PALEO's summary: layers, parameters and activations of every net (nets_summary.csv)") {
    for (const auto& r : test_support::read_csv(test_support::source_path("tests/data/paleo/nets_summary.csv"))) {
        const network& net = paleo_net(r.at("net"));
        INFO(r.at("net"));
        CHECK(net.native_batch == std::stoll(r.at("native_batch")));
        CHECK(net.size() == std::stoul(r.at("num_layers")));
        CHECK(cost::paleo_compat::parameters(net) == std::stoll(r.at("num_params")));
        // steptime also counts batch normalization's learned scale and shift (2 per channel), which PALEO drops.
        std::int64_t bn = 0;
        for (auto v : net.vertices())
            if (std::holds_alternative<ops::batch_norm>(net[v].op)) bn += 2 * net[v].output.c();
        CHECK(net.parameter_count() == cost::paleo_compat::parameters(net) + bn);
        // activation_bytes = 4 x every layer's output elements at the file's batch.
        CHECK(4 * net.activation_elements() * net.native_batch == std::stoll(r.at("activation_bytes")));
    }
}
