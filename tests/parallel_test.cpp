// Distributed training: PALEO's communication schemes, data-parallel scaling and hybrid parallelism
// against PALEO's own outputs (tests/data/paleo/{comm,scaling,hybrid}.csv), and the default models' properties.
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <steptime/io.hpp>

#include "support/csv.hpp"

using namespace steptime;
using test_support::close;

namespace {

const network& paleo_net(const std::string& name) {
    static std::map<std::string, std::unique_ptr<network>> cache;
    auto& slot = cache[name];
    if (!slot) slot = std::make_unique<network>(io::load_paleo_json(test_support::source_path("data/nets/paleo/" + name + ".json")));
    return *slot;
}

collective paleo_scheme(const std::string& s) {
    if (s == "OneToAll") return collective::one_to_all;
    if (s == "TreeAllReduce") return collective::tree;
    if (s == "ButterflyAllReduce") return collective::butterfly;
    return collective::butterfly_mixing;
}

collective_model paleo_comm(const test_support::row& r, const std::string& scheme) {
    return {paleo_scheme(scheme), links::get("paleo:" + r.at("network")), {}, 8, ratio_of(std::stod(r.at("ppp_comm"))), true};
}

double ms(seconds t) { return t.value() * 1e3; }

}  // namespace

TEST_CASE("PALEO's four schemes, exactly (comm.csv, every row)") {
    const auto rows = test_support::read_csv(test_support::source_path("tests/data/paleo/comm.csv"));
    REQUIRE(rows.size() == 2880);
    for (const auto& r : rows) {
        INFO(r.at("network") << " " << r.at("scheme") << " N=" << r.at("workers") << " S=" << r.at("data_bytes"));
        const auto m = paleo_comm(r, r.at("scheme"));
        CHECK(comm::tree_height(std::stoi(r.at("workers"))) == std::stod(r.at("tree_height")));
        CHECK(close(ms(m.all_reduce(bytes_of(std::stod(r.at("data_bytes"))), std::stoi(r.at("workers")))),
                    std::stod(r.at("time_ms"))));
    }
}

TEST_CASE("PALEO's data-parallel scaling, weak and strong, pipelined or not (scaling.csv, every row)") {
    const auto rows = test_support::read_csv(test_support::source_path("tests/data/paleo/scaling.csv"));
    REQUIRE(rows.size() == 192);
    for (const auto& r : rows) {
        INFO(r.at("experiment") << " " << r.at("scaling") << " N=" << r.at("workers") << " " << r.at("scheme"));
        const cost::paleo_compat model{ratio_of(std::stod(r.at("ppp_comp"))), ratio_of(std::stod(r.at("ppp_comm"))), {},
                                       r.at("use_pipeline") == "True"};
        const data_parallel dp{std::stoi(r.at("workers")), r.at("scaling") == "weak" ? scaling::weak : scaling::strong};
        const auto e = estimate(paleo_net(r.at("net")), devices::get("paleo:" + r.at("device")), model,
                                paleo_comm(r, r.at("scheme")), dp, {.batch = std::stoll(r.at("batch_arg"))});
        CHECK(e.batch == std::stoll(r.at("effective_batch")));
        CHECK(e.batch_per_worker == std::stoll(r.at("batch_per_worker")));
        CHECK(close(ms(e.forward + e.backward + e.update), std::stod(r.at("time_comp_ms"))));
        CHECK(close(ms(e.communication), std::stod(r.at("comm_ms"))));
        CHECK(close(ms(e.total), std::stod(r.at("total_ms"))));
    }
}

TEST_CASE("PALEO's hybrid parallelism, both rows (hybrid.csv, every row)") {
    const auto rows = test_support::read_csv(test_support::source_path("tests/data/paleo/hybrid.csv"));
    REQUIRE(rows.size() == 8);
    for (std::size_t i = 0; i + 1 < rows.size(); i += 2) {
        const auto& r = rows[i];
        INFO(r.at("experiment") << " " << r.at("net") << " K=" << r.at("hybrid_workers"));
        const cost::paleo_compat model{ratio_of(std::stod(r.at("ppp_comp"))), ratio_of(std::stod(r.at("ppp_comm"))), {},
                                       r.at("use_pipeline") == "True"};
        const hybrid_parallel h{std::stoi(r.at("hybrid_workers")), links::get("paleo:" + r.at("network")),
                                ratio_of(std::stod(r.at("ppp_comm")))};
        const auto e = estimate(paleo_net(r.at("net")), devices::get("paleo:" + r.at("device")), model, h,
                                {.batch = std::stoll(r.at("batch_per_worker"))});
        REQUIRE(e.parts.size() == 2);
        CHECK(e.batch == std::stoll(r.at("effective_batch")));
        for (std::size_t p = 0; p < 2; ++p) {
            const auto& row = rows[i + p];
            INFO(row.at("part"));
            CHECK(e.parts[p].name == row.at("part"));
            CHECK(close(ms(e.parts[p].forward), std::stod(row.at("fwd_ms"))));
            CHECK(close(ms(e.parts[p].backward), std::stod(row.at("bwd_ms"))));
            CHECK(close(ms(e.parts[p].update), std::stod(row.at("apply_ms"))));
            CHECK(close(ms(e.parts[p].sync), std::stod(row.at("sync_tree_ms"))));
        }
    }
}

TEST_CASE("collectives: zero alone, monotone in payload and workers, latency-dominated for small messages") {
    const network_link l = links::get("ib-hdr");
    const bytes mb = bytes_of(1e6);
    for (auto kind : {collective::one_to_all, collective::tree, collective::butterfly, collective::butterfly_mixing,
                      collective::ring, collective::hierarchical}) {
        const collective_model m{kind, l, links::get("nvlink3"), 8};
        INFO(to_string(kind));
        CHECK(m.all_reduce(mb, 1) == seconds{});  // one worker has no one to talk to
        for (int n : {2, 3, 4, 8, 16, 64, 128}) {
            CHECK(m.all_reduce(mb, n) > seconds{});
            CHECK(m.all_reduce(2.0 * mb, n) >= m.all_reduce(mb, n));
            if (kind != collective::butterfly_mixing)  // mixing exchanges once whatever N is
                CHECK(m.all_reduce(mb, 2 * n) >= m.all_reduce(mb, n));
            // 4 bytes: the 1 us latency terms dwarf 4 B / 25 GB/s = 0.16 ns per step.
            const seconds tiny = m.all_reduce(bytes_of(4), n);
            const collective_model no_latency{kind, network_link{"x", l.bandwidth, {}, ""}, network_link{"y", links::get("nvlink3").bandwidth, {}, ""}, 8};
            CHECK(no_latency.all_reduce(bytes_of(4), n) < 0.01 * tiny);
        }
    }
    // Ring: 2(N-1) steps of S/N (Patarasuk and Yuan 2009): 8 workers, 1 MB, 25 GB/s, 1 us:
    // 14 * (1 us + 125,000 B / 25e9 B/s) = 14 * 6 us = 84 us.
    CHECK(close(comm::ring_all_reduce(mb, 8, l).value(), 84e-6));
    // Hierarchical, 16 GPUs as 2 nodes of 8: in-node reduce-scatter and all-gather, 7 steps each of
    // 125 kB over NVLink3 (300 GB/s, 2 us): 2 * 7 * (2 us + 0.41667 us) = 33.833 us; across nodes a ring
    // of 2 over the 125 kB shard: 2 * 1 * (1 us + 62,500 B / 25e9) = 2 * 3.5 us = 7 us.
    CHECK(close(comm::hierarchical_all_reduce(mb, 16, 8, links::get("nvlink3"), l).value(),
                2 * 7 * (2e-6 + 125e3 / 300e9) + 7e-6));
}

TEST_CASE("data parallel: overlap hides communication but never beyond max(compute, communication)") {
    const network net = zoo::alexnet();
    const device& dev = devices::get("v100-sxm2-16gb");
    for (const char* name : {"ethernet-10g", "ethernet-100g", "ib-hdr", "nvlink2"}) {
        for (int n : {2, 8, 64}) {
            const collective_model ring{collective::ring, links::get(name)};
            const auto plain = estimate(net, dev, cost::paleo{}, ring, {n}, {.batch = 128});
            const auto hidden = estimate(net, dev, cost::paleo{}, ring, {n, scaling::weak, overlap::backward}, {.batch = 128});
            INFO(name << " N=" << n);
            const seconds compute = plain.forward + plain.backward + plain.update;
            CHECK(plain.total == compute + plain.communication);
            CHECK(hidden.total <= plain.total);
            CHECK(hidden.total >= compute);
            CHECK(hidden.total >= plain.communication);
            CHECK(hidden.exposed_communication <= hidden.communication);
        }
    }
}

TEST_CASE("data parallel: buckets wait for the gradients as the host issues the backward kernels") {
    // Three small layers at batch 1: each backward kernel takes a few microseconds on the GPU, but the host
    // issues one every host_dispatch (cost::kernel's, 30 us), so a bucket cannot be reduced before the kernel
    // that fills it has been issued and run; the exchange is never hidden beyond the pass's end.
    network net;
    net.add("data", ops::input{tensor_shape::features(16)});
    net.add("fc", ops::dense{16}, {"data"});
    net.add("relu", ops::activation{}, {"fc"});
    net.add("fc2", ops::dense{16}, {"relu"});
    const device& dev = devices::get("v100-sxm2-16gb");
    const collective_model ring{collective::ring, links::get("nvlink2")};
    const auto plain = estimate(net, dev, cost::kernel{}, ring, {2}, {.batch = 1});
    const auto hidden = estimate(net, dev, cost::kernel{}, ring, {2, scaling::weak, overlap::backward}, {.batch = 1});
    CHECK(plain.backward.value() > 4 * cost::kernel{}.host_dispatch.value());  // four backward kernels, the host binding
    CHECK(hidden.exposed_communication.value() >= 0);
    CHECK(hidden.exposed_communication <= hidden.communication);
    CHECK(hidden.total >= plain.forward + plain.backward + plain.update);
}

TEST_CASE("data parallel: one worker has no communication; weak keeps, strong splits the batch") {
    const network net = zoo::alexnet();
    const device& dev = devices::get("a100-sxm4-40gb");
    const collective_model ring{collective::ring, links::get("ib-hdr")};
    const auto one = estimate(net, dev, cost::paleo{}, ring, {1}, {.batch = 256});
    CHECK(one.communication == seconds{});
    CHECK(one.total == estimate(net, dev, cost::paleo{}, {.batch = 256}).total);
    const auto weak = estimate(net, dev, cost::paleo{}, ring, {8, scaling::weak}, {.batch = 256});
    CHECK(weak.batch == 8 * 256);
    CHECK(weak.batch_per_worker == 256);
    const auto strong = estimate(net, dev, cost::paleo{}, ring, {3, scaling::strong}, {.batch = 256});
    CHECK(strong.batch == 256);
    CHECK(strong.batch_per_worker == 86);  // ceil(256 / 3), PALEO's rounding (7.1)
    CHECK_THROWS_AS(estimate(net, dev, cost::paleo{}, ring, {0}, {.batch = 256}), invalid_argument);
}

TEST_CASE("data parallel: gradients are exchanged in FP32 in mixed precision too, in half precision when asked") {
    const network net = zoo::resnet50();
    const device& dev = devices::get("v100-sxm2-16gb");
    const collective_model ring{collective::ring, links::get("nvlink2")};
    const double params = static_cast<double>(net.parameter_count());
    const auto amp = estimate(net, dev, cost::kernel{}, ring, {8}, {.batch = 64, .precision = element_type::fp16});
    // FP32 master weights (4 B each) and their FP32 gradients, as PyTorch's DDP all-reduces them.
    CHECK(amp.parameter_bytes.value() == 4 * params);
    CHECK(amp.gradient_bytes.value() == 4 * params);
    CHECK(amp.communication == ring.all_reduce(bytes_of(4 * params), 8));
    // Half gradients (MXNet, Apex O2): 2 B each, the same compute.
    const auto half = estimate(net, dev, cost::kernel{}, ring, {8},
                               {.batch = 64, .precision = element_type::fp16, .gradients = element_type::fp16});
    CHECK(half.gradient_bytes.value() == 2 * params);
    CHECK(half.communication == ring.all_reduce(bytes_of(2 * params), 8));
    CHECK(half.communication < amp.communication);
    CHECK(half.forward + half.backward == amp.forward + amp.backward);
}

TEST_CASE("AlexNet on 8 K80s: the default model differs from compat only by the documented fixes") {
    const network& net = paleo_net("alex_v2");
    const device& k80 = devices::get("paleo:K80");
    // Same link without latency: the tree AllReduce is PALEO's formula exactly (7.1), so what remains
    // is the per-layer cost model (section 13: decimal units, floors, strided gradients, update PPP).
    network_link ethernet20 = links::get("paleo:ethernet20");
    const collective_model paleo_tree{collective::tree, ethernet20, {}, 8, ratio_of(1.0), true};
    const collective_model tree{collective::tree, ethernet20};
    const auto compat = estimate(net, k80, cost::paleo_compat{}, paleo_tree, {8}, {.batch = 128});
    const auto fixed = estimate(net, k80, cost::paleo{}, tree, {8}, {.batch = 128});
    CHECK(close(fixed.communication.value(), compat.communication.value()));
    CHECK(close((fixed.total - fixed.communication).value(), estimate(net, k80, cost::paleo{}, {.batch = 128}).total.value()));
    // Section 13.1: PALEO's fc6 data gradient is 25x its forward pass; the fix makes backward cheaper.
    CHECK(fixed.backward < compat.backward);
    // With a latency the default model adds 2 ceil(log2 8) = 6 latencies to the tree.
    ethernet20.latency = microseconds_of(10);
    const collective_model slow{collective::tree, ethernet20};
    CHECK(close(estimate(net, k80, cost::paleo{}, slow, {8}, {.batch = 128}).communication.value(),
                compat.communication.value() + 6 * 10e-6));
}

TEST_CASE("hybrid: the default model combines the two parts into one step") {
    const network& net = paleo_net("alex_v2_4gpu");
    const hybrid_parallel h{4, links::get("pcie3-x16")};
    const auto e = estimate(net, devices::get("k40"), cost::paleo{}, h, {.batch = 128});
    REQUIRE(e.parts.size() == 2);
    CHECK(close(e.total.value(), (e.parts[0].forward + e.parts[0].backward + e.parts[0].update + e.parts[0].sync +
                                  e.parts[1].forward + e.parts[1].backward + e.parts[1].update)
                                     .value()));
    CHECK(e.batch == 4 * 128);
    CHECK(e.parts[1].sync == seconds{});
}

TEST_CASE("hybrid: a worker runs its optimizer once over both parts' weights") {
    const network& net = paleo_net("alex_v2_4gpu");
    const hybrid_parallel h{4, links::get("pcie3-x16")};
    cost::kernel k{};
    // Charged with the update, once a step: far above the update's own time (at most its 49.6M weights x 12 B of SGD at
    // 0.8 x the K40's 288 GB/s, 3 ms, and a few launches).
    k.host_overhead = seconds_of(1);
    const auto e = estimate(net, devices::get("k40"), k, h, {.batch = 128});
    REQUIRE(e.parts.size() == 2);
    // Once, not once per part (2 s and more).
    CHECK(e.update.value() > 1);
    CHECK(e.update.value() < 1.01);
    CHECK(close(e.update.value(), (e.parts[0].update + e.parts[1].update).value()));
    CHECK(e.parts[0].update > seconds{});
    CHECK(e.parts[1].update > seconds{});
}

TEST_CASE("links from JSON: the example file, and bad ones named by file and field") {
    const network_link l = io::load_link(test_support::source_path("data/links/example-link.json"));
    CHECK(l.name == "my-roce-200g");
    CHECK(l.bandwidth.value() == 200e9 / 8);  // 200 Gb/s in bytes per second
    CHECK(l.latency.value() == doctest::Approx(3e-6));
    const auto fails = [](const char* text, const char* expected) {
        try {
            io::link_from_json(nlohmann::json::parse(text), "net.json");
            FAIL("no error for " << text);
        } catch (const parse_error& e) {
            CHECK(std::string(e.what()).find("net.json") != std::string::npos);
            CHECK(std::string(e.what()).find(expected) != std::string::npos);
        }
    };
    fails(R"({"bandwidth_gbps": 10})", "missing field 'name'");
    fails(R"({"name": "x"})", "missing field 'bandwidth_gbps'");
    fails(R"({"name": "x", "bandwidth_gbps": "fast"})", "must be a number");
    fails(R"({"name": "x", "bandwidth_gbps": -1})", "bandwidth");
    fails(R"({"name": "x", "bandwidth_gbps": 10, "latency_us": -2})", "latency");
    fails(R"({"name": "x", "bandwith_gbps": 10})", "unknown field 'bandwith_gbps'");
    fails(R"([1, 2])", "expected a JSON object");
}
