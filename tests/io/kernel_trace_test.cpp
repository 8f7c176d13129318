// Tests of steptime/io/kernel_trace.hpp: the kernel CSV, PyTorch profiler traces, and their errors; and the
// device file's compute_capability field that wave scaling reads.
#include <doctest/doctest.h>

#include <string>
#include <steptime/io.hpp>
#include "support/csv.hpp"
#include "support/errors.hpp"

namespace {

using namespace steptime;
using test_support::message_of;
using test_support::source_path;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string csv_error(const std::string& text) {
    return message_of<parse_error>([&] { io::parse_kernel_csv(text, "k.csv"); });
}
std::string trace_error(const std::string& text) {
    return message_of<parse_error>([&] { io::parse_kineto_trace(text, "t.json"); });
}

// A one-kernel trace with `args` for the kernel event.
std::string trace_with(const std::string& kernel_fields) {
    return R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", )" + kernel_fields + "}]}";
}

}  // namespace

TEST_CASE("trace: the example kernel CSV reads as written (examples/data/kernels-v100.csv)") {
    const auto ops = io::load_measured(source_path("examples/data/kernels-v100.csv"));
    REQUIRE(ops.size() == 5);
    CHECK(ops[0].name == "aten::cudnn_convolution");
    REQUIRE(ops[0].kernels.size() == 2);
    CHECK(to_double(*ops[0].wall_time) == doctest::Approx(915e-6));
    const auto& conv = ops[0].kernels[1];
    CHECK(conv.name == "volta_scudnn_128x64_relu_interior_nn_v1");
    CHECK(to_double(conv.duration) == doctest::Approx(905.3e-6));
    REQUIRE(conv.launch);
    CHECK(conv.launch->blocks() == 1568);
    CHECK(conv.launch->threads_per_block() == 256);
    CHECK(conv.launch->registers_per_thread == 128);
    CHECK(to_double(conv.launch->shared_memory) == 16384);
    CHECK(to_double(*conv.work) == 7552892928.0);  // 2 x 32 x 112^2 x 64 x 7 x 7 x 3
    CHECK(conv.kind == scale::kernel_class::compute);
    // A quoted name keeps its commas; an empty class cell leaves the default.
    CHECK(ops[1].kernels[0].name == "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(...)");
    CHECK(ops[1].kernels[0].kind == scale::kernel_class::unknown);
    CHECK_FALSE(ops[1].wall_time);
    CHECK(ops[4].name == "aten::addmm");
    CHECK(ops[4].kernels.size() == 2);
}

TEST_CASE("trace: the example Kineto trace groups kernels under their operators (examples/data/trace-v100.json)") {
    const auto ops = io::load_measured(source_path("examples/data/trace-v100.json"));
    REQUIRE(ops.size() == 3);  // the memcpy is not a kernel
    CHECK(ops[0].name == "aten::cudnn_convolution");  // External id 5, not aten::conv2d's 2
    REQUIRE(ops[0].kernels.size() == 2);
    CHECK(ops[0].kernels[1].name == "volta_scudnn_128x64_relu_interior_nn_v1");
    CHECK(to_double(ops[0].kernels[1].duration) == doctest::Approx(905.3e-6));
    CHECK(ops[0].kernels[1].launch->grid == std::array<std::int64_t, 3>{1568, 1, 1});
    CHECK(ops[0].kernels[1].launch->registers_per_thread == 128);
    CHECK(to_double(ops[0].kernels[1].launch->shared_memory) == 16384);
    CHECK(ops[1].name == "aten::relu_");
    CHECK(ops[2].name == "aten::addmm");
    CHECK_FALSE(ops[2].wall_time);
}

TEST_CASE("trace: CSV grouping, quoting and optional columns") {
    const auto ops = io::parse_kernel_csv("# comment\n\nname,duration_us,op\n"
                                          "a,1,x\nb,2,x\n\"c,\"\"d\"\"\",3,\nb,4,x\n");
    REQUIRE(ops.size() == 3);
    CHECK(ops[0].kernels.size() == 2);
    CHECK(ops[1].name == "c,\"d\"");  // a row without op is its own operation, named after the kernel
    CHECK(ops[2].name == "x");         // x again, not consecutive: a new operation
    CHECK_FALSE(ops[0].kernels[0].launch);
}

TEST_CASE("trace: bad kernel CSVs are refused naming the file, line and column") {
    CHECK(contains(csv_error(""), "k.csv: empty, expected a header line naming the columns"));
    CHECK(contains(csv_error("name,duration_us\n"), "k.csv: no kernels after the header"));
    CHECK(contains(csv_error("name,duration_us,colour\n"), "k.csv:1: unknown column 'colour' in the header (expected name, duration_us"));
    CHECK(contains(csv_error("name,op\n"), "k.csv:1: the header lacks the required column 'duration_us'"));
    CHECK(contains(csv_error("name,name,duration_us\n"), "column 'name' appears twice"));
    CHECK(contains(csv_error("name,duration_us,grid_x\n"), "give all six columns grid_x"));
    CHECK(contains(csv_error("name,duration_us,flops\n"), "give both columns flops and bytes"));
    CHECK(contains(csv_error("name,duration_us\na,12a\n"), "k.csv:2: column 'duration_us' is '12a', expected a finite positive"));
    CHECK(contains(csv_error("name,duration_us\na,0\n"), "k.csv:2: column 'duration_us' is '0'"));
    CHECK(contains(csv_error("name,duration_us\na,nan\n"), "column 'duration_us' is 'nan'"));
    CHECK(contains(csv_error("name,duration_us\na,\n"), "column 'duration_us' is ''"));
    CHECK(contains(csv_error("name,duration_us\n,1\n"), "k.csv:2: column 'name' is empty"));
    CHECK(contains(csv_error("name,duration_us\na,1,2\n"), "k.csv:2: 3 fields, expected 2 as in the header"));
    CHECK(contains(csv_error("name,duration_us\n\"a,1\n"), "k.csv:2: a quoted field has no closing quote"));
    CHECK(contains(csv_error("name,duration_us\n\"a\"x,1\n"), "k.csv:2: text after a quoted field, expected a comma"));
    const std::string geometry = "name,duration_us,grid_x,grid_y,grid_z,block_x,block_y,block_z,registers\n";
    CHECK(contains(csv_error(geometry + "a,1,1,1,1,2048,1,1,32\n"), "k.csv:2: kernel 'a': block_x is 2048, expected 1 to 1024"));
    CHECK(contains(csv_error(geometry + "a,1,1,1,1,1,,1,32\n"), "must be all filled or all empty"));
    CHECK(contains(csv_error(geometry + "a,1,1,1,1,1,1,1,300\n"), "column 'registers' is '300', expected an integer from 0 to 255"));
    CHECK(contains(csv_error("name,duration_us,registers\na,1,32\n"), "need the launch geometry"));
    CHECK(contains(csv_error("name,duration_us,class\na,1,fast\n"), "column 'class' is 'fast', expected memory, compute or unknown"));
    CHECK(contains(csv_error("name,duration_us,precision\na,1,fp64\n"), "column 'precision' is 'fp64'"));
    CHECK(contains(csv_error("name,duration_us,flops,bytes\na,1,5,\n"), "give both flops and bytes, or neither"));
    CHECK(contains(csv_error("name,duration_us,op,op_duration_us\na,1,x,5\nb,1,x,6\n"),
                   "k.csv:3: op_duration_us of 'x' differs from the one on line 2"));
    CHECK(contains(csv_error("name,duration_us,op_duration_us\na,1,5\n"), "op_duration_us without an op"));
}

TEST_CASE("trace: bad Kineto traces are refused naming the file, the event and the field") {
    CHECK(contains(trace_error("{\"traceEvents\": ["), "t.json: malformed JSON"));
    CHECK(contains(trace_error("{}"), "t.json: no 'traceEvents' member"));
    CHECK(contains(trace_error("{\"traceEvents\": 3}"), "'traceEvents' must be an array of events, got number"));
    CHECK(contains(trace_error("{\"traceEvents\": [7]}"), "t.json: traceEvents[0]: expected an event object, got number"));
    CHECK(contains(trace_error("{\"traceEvents\": []}"), "t.json: no kernel events"));
    CHECK(contains(trace_error(R"({"traceEvents": [{"cat": "kernel", "dur": 3}]})"),
                   "traceEvents[0]: field 'name' must be a string, but it is missing"));
    CHECK(contains(trace_error(trace_with(R"("dur": "3")")),
                   "t.json: traceEvents[0] (kernel 'k'): field 'dur' must be a positive number of microseconds, got string \"3\""));
    CHECK(contains(trace_error(trace_with(R"("dur": -1)")), "field 'dur' must be a positive number"));
    CHECK(contains(trace_error(trace_with(R"("dur": 1, "args": {"grid": [1, 2]})")),
                   "field 'args.grid' must be an array of 3 positive integers [x, y, z], got array [1,2]"));
    CHECK(contains(trace_error(trace_with(R"("dur": 1, "args": {"grid": [1, 1, 1]})")),
                   "field 'args.block' must be an array of 3 positive integers [x, y, z], but it is missing"));
    CHECK(contains(trace_error(trace_with(R"("dur": 1, "args": {"grid": [1, 1, 1], "block": [1, 0, 1]})")),
                   "field 'args.block' must be an integer from 1 to 2147483647"));
    CHECK(contains(trace_error(trace_with(R"("dur": 1, "args": {"grid": [1, 1, 1], "block": [32, 1, 1], "registers per thread": 300})")),
                   "field 'args.registers per thread' must be an integer from 0 to 255"));
    CHECK(contains(trace_error(trace_with(R"("dur": 1, "args": {"grid": [1, 1, 1], "block": [2048, 1, 1]})")),
                   "traceEvents[0]: kernel 'k': block_x is 2048"));
    CHECK(contains(trace_error(trace_with(R"("dur": 1, "args": 5)")), "field 'args' must be an object"));
    CHECK(contains(trace_error(trace_with(R"("ph": "B", "dur": 1)")), "field 'ph' must be \"X\""));
    // A kernel without geometry or operator is an operation of its own.
    const auto ops = io::parse_kineto_trace(trace_with(R"("dur": 2.5, "args": {"External id": 99})"));
    REQUIRE(ops.size() == 1);
    CHECK(ops[0].name == "k");
    CHECK_FALSE(ops[0].kernels[0].launch);
}

TEST_CASE("trace: device files carry the compute capability") {
    const auto base = nlohmann::json::parse(R"({"name": "g", "peak_tflops": {"fp32": 1}, "memory_bandwidth_gbps": 2,
                                                "clock_mhz": 3})");
    auto j = base;
    j["compute_capability"] = "8.6";
    const device d = io::device_from_json(j, "g.json");
    CHECK(d.compute_capability == cuda_compute_capability{8, 6});
    CHECK(io::device_from_json(io::to_json(d), "again").compute_capability == cuda_compute_capability{8, 6});
    CHECK(io::to_json(io::device_from_json(base, "g.json"))["compute_capability"].is_null());
    j["compute_capability"] = "8";
    CHECK(contains(message_of<parse_error>([&] { io::device_from_json(j, "g.json"); }),
                   "g.json: field 'compute_capability' must be a string \"major.minor\" such as \"8.0\", got string \"8\""));
    j["compute_capability"] = 8.0;
    CHECK(contains(message_of<parse_error>([&] { io::device_from_json(j, "g.json"); }), "got number"));
    j["compute_capability"] = "0.0";
    CHECK(contains(message_of<invalid_device>([&] { io::device_from_json(j, "g.json"); }),
                   "g.json: device 'g': field 'compute_capability' is 0.0, expected major.minor"));
}
