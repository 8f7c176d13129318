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
