// steptime: the command-line face of the library (a thin layer over it).
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <steptime/io.hpp>

namespace {

using namespace steptime;

network load_model(const std::string& m) {
    if (const auto* z = zoo::find(m)) return z->build({});
    if (std::filesystem::exists(m)) return io::load_paleo_json(m);
    std::string names;
    for (const auto& z : zoo::catalog()) names += (names.empty() ? "" : ", ") + std::string(z.name);
    throw invalid_argument("unknown model '" + m + "': not in the zoo (" + names + ") and no such PALEO JSON file");
}

device load_device(const std::string& d) {
    if (const auto* dev = devices::find(d)) return *dev;
    if (std::filesystem::exists(d)) return io::load_device(d);
    return devices::get(d);  // throws invalid_device naming close catalog entries
}

struct predict_args {
    std::string model, device, cost_model = "paleo", precision = "fp32", format = "table";
    std::int64_t batch = 0;
    bool pipelined = false;
    std::optional<double> ppp_compute, ppp_memory, ppp_comm, cross_gbps;
};

template <class Model>
void print(const network& net, const device& dev, const Model& m, const predict_args& a, element_type precision) {
    const auto e = estimate(net, dev, m, {.batch = a.batch, .precision = precision});
    if (a.format == "json") std::cout << io::to_json(e).dump(2) << "\n";
    else if (a.format == "csv") write_csv(std::cout, e);
    else write_table(std::cout, e);
}

void predict(const predict_args& a) {
    const network net = load_model(a.model);
    const device dev = load_device(a.device);
    const auto precision = parse_element_type(a.precision);
    if (!precision) throw invalid_argument("unknown precision '" + a.precision + "'");
    const auto r = [](std::optional<double> v) { return ratio_of(v.value_or(1.0)); };
    std::optional<bytes_per_second> cross;
    if (a.cross_gbps) cross = bytes_per_second_of(*a.cross_gbps * 1e9);
    if (a.cost_model == "paleo-compat") {
        if (a.ppp_memory)
            throw invalid_argument("--ppp-memory: paleo-compat has no memory PPP (PALEO's ppp_comp scales memory too)");
        print(net, dev, cost::paleo_compat{r(a.ppp_compute), r(a.ppp_comm), cross, a.pipelined}, a, *precision);
    } else if (a.pipelined) {
        throw invalid_argument("--use-pipeline is PALEO's option: use it with --cost-model paleo-compat");
    } else if (a.cost_model == "roofline") {
        cost::roofline m;
        m.ppp_compute = r(a.ppp_compute), m.ppp_memory = r(a.ppp_memory), m.ppp_comm = r(a.ppp_comm);
        m.cross_device_bandwidth = cross;
        print(net, dev, m, a, *precision);
    } else {
        cost::paleo m;
        m.ppp_compute = r(a.ppp_compute), m.ppp_memory = r(a.ppp_memory), m.ppp_comm = r(a.ppp_comm);
        m.cross_device_bandwidth = cross;
        print(net, dev, m, a, *precision);
    }
}

template <class Q>
std::string opt_number(const std::optional<Q>& q, double scale) {
    if (!q) return "-";
    return detail::fixed(to_double(*q) / scale, 1);
}

void list_devices() {
    std::cout << detail::pad_right("name", 22) << detail::pad_left("FP32 TFLOP/s", 13) << detail::pad_left("FP16 TC", 9)
              << detail::pad_left("mem GB/s", 10) << detail::pad_left("mem GiB", 8) << "  description\n";
    for (const auto& d : devices::catalog()) {
        std::cout << detail::pad_right(d.name, 22) << detail::pad_left(detail::fixed(to_double(d.peak.fp32) / 1e12, 2), 13)
                  << detail::pad_left(opt_number(d.peak.fp16_tensor, 1e12), 9)
                  << detail::pad_left(detail::fixed(to_double(d.memory_bandwidth) / 1e9, 1), 10)
                  << detail::pad_left(opt_number(d.memory_capacity, 1073741824.0), 8) << "  " << d.description << "\n";
    }
}

void list_models() {
    std::cout << detail::pad_right("name", 10) << detail::pad_left("layers", 7) << detail::pad_left("parameters", 13)
              << detail::pad_left("batch", 7) << "  description\n";
    for (const auto& z : zoo::catalog()) {
        const network n = z.build({});
        std::cout << detail::pad_right(std::string(z.name), 10) << detail::pad_left(std::to_string(n.size()), 7)
                  << detail::pad_left(std::to_string(n.parameter_count()), 13)
                  << detail::pad_left(std::to_string(n.native_batch), 7) << "  " << z.description << "\n";
    }
    std::cout << "\nAny PALEO JSON network file is a model too: --model path/to/net.json\n";
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"steptime: predicts the time of a deep-network training step on GPUs"};
    app.set_version_flag("--version", std::string(steptime::version));
    app.require_subcommand(1);

    app.add_subcommand("devices", "list the built-in device catalog")->callback(list_devices);
    app.add_subcommand("models", "list the built-in networks")->callback(list_models);

    predict_args a;
    auto* p = app.add_subcommand("predict", "predict one training step on one device");
    p->add_option("--model,-m", a.model, "zoo name or PALEO JSON file")->required();
    p->add_option("--device,-d", a.device, "catalog name or device JSON file")->required();
    p->add_option("--batch,-b", a.batch, "samples per step (default: the model's own batch)")
        ->check(CLI::Range(std::int64_t{1}, steptime::max_batch));
    p->add_option("--cost-model", a.cost_model, "paleo (default), paleo-compat or roofline")
        ->check(CLI::IsMember({"paleo", "paleo-compat", "roofline"}));
    const auto ppp = CLI::Range(0.0, 1.0) & CLI::Validator([](std::string& s) {
                         return std::stod(s) > 0 ? std::string{} : std::string("PPP must be in (0, 1]");
                     }, "", "positive");
    p->add_option("--ppp-compute", a.ppp_compute, "fraction of peak FLOP/s reached (PALEO's ppp_comp)")->check(ppp);
    p->add_option("--ppp-memory", a.ppp_memory, "fraction of peak memory bandwidth reached")->check(ppp);
    p->add_option("--ppp-comm", a.ppp_comm, "fraction of link bandwidth reached (PALEO's ppp_comm)")->check(ppp);
    p->add_option("--cross-device-gbps", a.cross_gbps, "bandwidth between model-parallel devices, GB/s")
        ->check(CLI::PositiveNumber);
    p->add_flag("--use-pipeline", a.pipelined, "paleo-compat: a layer costs max(compute, memory) (PALEO's --use_pipeline)");
    p->add_option("--precision", a.precision, "fp32, tf32, fp16 or bf16")->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16"}));
    p->add_option("--format", a.format, "table, json or csv")->check(CLI::IsMember({"table", "json", "csv"}));
    p->callback([&] { predict(a); });

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::exception& e) {
        std::cerr << "steptime: error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
