// Issue 6, item 5: concurrent estimates. Eight threads released together run the same workload
// (single-device estimates with every model on every catalog device, data-parallel, model-parallel
// and hybrid estimates, PALEO JSON parsing) on shared const networks and the shared catalogs, and
// each gets exactly the numbers of a sequential run afterwards. Nothing in this file touches
// devices::catalog(), links::catalog() or zoo::catalog() before the threads start, so where this test
// runs in a process of its own (ctest's thread_safety) the function-local statics are first used
// concurrently. Meaningful under ThreadSanitizer (-fsanitize=thread), which reports any data race.
#include <doctest/doctest.h>

#include <cstdint>
#include <latch>
#include <string>
#include <thread>
#include <vector>
#include <steptime/io.hpp>

#include "support/csv.hpp"

using namespace steptime;

namespace {

constexpr int thread_count = 8;  // more than the build machine's cores: threads interleave

void record(std::vector<double>& out, const step_estimate& e) {
    for (const seconds& t : {e.forward, e.backward, e.update, e.communication, e.exposed_communication, e.total,
                            e.forward_bounds.lower, e.forward_bounds.upper, e.backward_bounds.lower, e.backward_bounds.upper})
        out.push_back(t.value());
    for (const auto& l : e.layers) {
        out.push_back(l.forward.total().value());
        out.push_back(l.backward.total().value());
    }
}

// Everything one thread does; returns every number it computed, in order.
std::vector<double> workload(const network& shared_alexnet, const network& shared_split, const std::string& paleo_text) {
    std::vector<double> out;
    // The catalogs' first use, from several threads at once in a fresh process.
    std::vector<network> nets;
    for (const auto& entry : zoo::catalog()) nets.push_back(entry.build({}));
    nets.push_back(io::parse_paleo_json(paleo_text, "inception_v3.json"));  // each thread parses its own copy
    for (const network* net : std::vector<const network*>{&shared_alexnet, &nets[0], &nets[1], &nets[2]})
        for (const device& dev : devices::catalog()) {
            record(out, estimate(*net, dev, cost::paleo{.ppp_compute = ratio_of(0.7)}, {.batch = 32}));
            record(out, estimate(*net, dev, cost::roofline{}, {.batch = 16, .precision = element_type::fp16}));
            if (net != &nets[1]) record(out, estimate(*net, dev, cost::paleo_compat{}, {.batch = 8}));  // vgg16: enough
        }
    const device& v100 = devices::get("v100-sxm2-16gb");
    for (const network_link& link : links::catalog())
        for (auto kind : {collective::ring, collective::tree, collective::hierarchical}) {
            const collective_model comm{kind, link, links::get("nvlink2"), 8};
            record(out, estimate(shared_alexnet, v100, cost::paleo{}, comm, {64, scaling::weak, overlap::backward}, {.batch = 128}));
            const any_comm_model any = comm;
            record(out, estimate(shared_alexnet, v100, cost::paleo{}, any, {16, scaling::strong}, {.batch = 512}));
        }
    record(out, estimate(shared_split, devices::get("paleo:K80"), cost::paleo_compat{}, model_parallel{}, {.batch = 128}));
    record(out, estimate(shared_split, devices::get("paleo:K80"), cost::paleo_compat{}, hybrid_parallel{2, links::get("paleo:ethernet")}, {.batch = 128}));
    record(out, estimate(shared_split, v100, cost::paleo{}, hybrid_parallel{2, links::get("ib-hdr")}, {.batch = 128}));
    return out;
}

}  // namespace

TEST_CASE("concurrent estimates from 8 threads give exactly the numbers of a sequential run") {
    // Shared, const, built before the threads without touching a catalog.
    const network alexnet = zoo::alexnet();
    const network split = io::load_paleo_json(test_support::source_path("data/nets/paleo/alex_v2_2gpu.json"));
    const std::string inception = io::read_file(test_support::source_path("data/nets/paleo/inception_v3.json"));

    std::vector<std::vector<double>> results(thread_count);
    std::vector<std::string> failures(thread_count);
    {
        std::latch go(thread_count);  // released together, so the catalogs' first uses overlap
        std::vector<std::jthread> threads;
        for (int i = 0; i < thread_count; ++i)
            threads.emplace_back([&, i] {
                go.arrive_and_wait();
                try {
                    results[static_cast<std::size_t>(i)] = workload(alexnet, split, inception);
                } catch (const std::exception& e) {
                    failures[static_cast<std::size_t>(i)] = e.what();
                }
            });
    }  // joined
    const std::vector<double> sequential = workload(alexnet, split, inception);
    // 4 networks x 40-odd devices x 3 models, 20-odd links x 3 collectives x 2, 3 split estimates, each
    // with at least its 10 totals: far more than 1,000 numbers.
    CHECK(sequential.size() > 10'000);
    for (int i = 0; i < thread_count; ++i) {
        INFO("thread " << i);
        CHECK(failures[static_cast<std::size_t>(i)].empty());
        CHECK(results[static_cast<std::size_t>(i)] == sequential);  // bit for bit
    }
}
