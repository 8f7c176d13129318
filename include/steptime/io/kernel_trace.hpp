// steptime/io/kernel_trace.hpp: measured kernel times for wave scaling (scale/wave_scaling.hpp), from a
// CSV table or from the Chrome-trace JSON that PyTorch's profiler (Kineto) exports.
//
// CSV (examples/data/kernels-v100.csv): a header naming the columns, in any order, then one kernel a line.
//   name             required  kernel name; quote it ("...", "" for a quote) when it holds commas
//   duration_us      required  measured time, microseconds, > 0
//   op               operation the kernel belongs to; consecutive rows with the same op form one operation,
//                    a row without one is an operation of its own
//   op_duration_us   the operation's GPU wall time, us; the same on every row of the operation that gives it
//   grid_x grid_y grid_z block_x block_y block_z   launch geometry: all six columns or none
//   registers        registers per thread (0 or empty: unknown)
//   shared_bytes     static + dynamic shared memory per block, bytes
//   dest_registers   registers per thread on the destination GPU, if they differ
//   flops bytes      the kernel's FLOPs and DRAM bytes (both or neither): gamma from the roofline
//   class            memory, compute or unknown: gamma when flops and bytes are absent
//   precision        fp32 (default), tf32, fp16, bf16, fp8, int8: the compute pipe
// An empty cell is an absent value (geometry cells all empty or all filled, in each row). Blank lines and
// lines starting with '#' are skipped. Errors name the file, the line and the column.
//
// Kineto JSON (examples/data/trace-v100.json): {"traceEvents": [...]} (or the bare array). Events with
// "cat": "kernel" are the kernels: "name", "dur" (us) and, in "args", "grid" and "block" ([x, y, z]),
// "registers per thread", "shared memory" (bytes, static + dynamic) and "External id". A kernel whose
// External id is that of a "cat": "cpu_op" event belongs to that operator (e.g. aten::cudnn_convolution);
// the others are operations of their own. Memory copies and sets are not kernels and are skipped. An
// operation's time is the sum of its kernels': the trace has no GPU wall time per operator.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "steptime/detail/csv.hpp"
#include "steptime/devices/catalog.hpp"
#include "steptime/error.hpp"
#include "steptime/io/device_json.hpp"
#include "steptime/io/json_document.hpp"
#include "steptime/io/read_file.hpp"
#include "steptime/scale/wave_scaling.hpp"

namespace steptime::io {

// Larger measurement files are refused: a profiled training step's trace is a few MB.
inline constexpr std::uintmax_t max_trace_bytes = 64u << 20;

namespace kernel_trace_detail {

// The columns, in a namespace of their own: `bytes` and `flops` would hide the quantities.
namespace col {
enum id : std::size_t {
    name, duration_us, op, op_duration_us, grid_x, grid_y, grid_z, block_x, block_y, block_z,
    registers, shared_bytes, dest_registers, flops, bytes, kind, precision, count
};
}  // namespace col
using col::id;
inline constexpr std::array<std::string_view, col::count> column_names{
    "name", "duration_us", "op", "op_duration_us", "grid_x", "grid_y", "grid_z", "block_x", "block_y",
    "block_z", "registers", "shared_bytes", "dest_registers", "flops", "bytes", "class", "precision"};

// One data row: its cells by column, and the file:line prefix of its errors.
struct csv_row {
    const std::array<std::optional<std::size_t>, col::count>& index;
    const std::vector<std::string>& cells;
    std::string where;

    std::string_view cell(id c) const { return index[c] ? std::string_view(cells[*index[c]]) : std::string_view{}; }

    [[noreturn]] void fail(id c, const std::string& expected) const {
        throw parse_error(where + "column '" + std::string(column_names[c]) + "' is '" + std::string(cell(c)) +
                          "', expected " + expected);
    }

    std::optional<double> number(id c, bool positive) const {
        const std::string_view s = cell(c);
        if (s.empty()) return std::nullopt;
        double v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        const char* expected = positive ? "a finite positive number" : "a finite non-negative number";
        if (ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v) || v < 0 || (positive && v == 0))
            fail(c, expected);
        return v;
    }

    // A positive time in microseconds that stays positive in seconds (1e-320 us underflows to 0 s).
    std::optional<seconds> duration(id c) const {
        const auto us = number(c, true);
        if (!us) return std::nullopt;
        if (!(microseconds_of(*us).value() > 0)) fail(c, "a finite positive number of microseconds");
        return microseconds_of(*us);
    }

    std::optional<std::int64_t> integer(id c, std::int64_t lo, std::int64_t hi) const {
        const std::string_view s = cell(c);
        if (s.empty()) return std::nullopt;
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc{} || end != s.data() + s.size() || v < lo || v > hi)
            fail(c, "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
        return v;
    }
};

// Checks the geometry with CUDA's launch limits; the error names `where` and the kernel.
inline void check_geometry(const scale::launch_geometry& g, const std::string& where, const std::string& kernel) {
    try {
        scale::validate(g, "kernel '" + kernel + "'");
    } catch (const invalid_argument& e) {
        throw parse_error(where + e.what());
    }
}

// Reads the fields of one Kineto event; every error names the event.
struct event_reader {
    const nlohmann::json& event;
    std::string where;  // "file: traceEvents[i] (kernel 'name'): "

    [[noreturn]] void fail(const std::string& field, const std::string& expected) const {
        const auto args = event.find("args");
        const nlohmann::json* v = nullptr;
        if (field.rfind("args.", 0) == 0 && args != event.end() && args->is_object()) {
            const auto it = args->find(field.substr(5));
            if (it != args->end()) v = &*it;
        } else if (const auto it = event.find(field); it != event.end()) {
            v = &*it;
        }
        throw parse_error(where + "field '" + field + "' must be " + expected +
                          (v ? std::string(", got ") + v->type_name() + " " + device_json_detail::excerpt(*v)
                             : std::string(", but it is missing")));
    }

    const nlohmann::json* arg(const std::string& key) const {
        const auto args = event.find("args");
        if (args == event.end()) return nullptr;
        if (!args->is_object()) fail("args", "an object");
        const auto it = args->find(key);
        return it == args->end() || it->is_null() ? nullptr : &*it;
    }

    std::int64_t integer(const nlohmann::json& v, const std::string& field, std::int64_t lo, std::int64_t hi) const {
        const std::string range = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
        if (!v.is_number_integer()) fail(field, range);
        if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) fail(field, range);
        if (v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) fail(field, range);
        return v.get<std::int64_t>();
    }

    std::array<std::int64_t, 3> dims(const std::string& key) const {
        const nlohmann::json* v = arg(key);
        const std::string field = "args." + key;
        if (!v || !v->is_array() || v->size() != 3) fail(field, "an array of 3 positive integers [x, y, z]");
        std::array<std::int64_t, 3> d{};
        for (std::size_t i = 0; i < 3; ++i) d[i] = integer((*v)[i], field, 1, 2147483647);
        return d;
    }
};

inline bool is_category(const nlohmann::json& event, std::string_view wanted) {
    const auto cat = event.find("cat");
    return cat != event.end() && cat->is_string() && devices::detail::lowercase(cat->get<std::string>()) == wanted;
}

}  // namespace kernel_trace_detail

// The measured operations of a kernel CSV (format above); `origin` (a file name) starts every error.
inline std::vector<scale::measured_op> parse_kernel_csv(std::string_view text, const std::string& origin = "<kernels>") {
    namespace kt = kernel_trace_detail;
    const steptime::detail::csv_table t(text, origin);
    std::array<std::optional<std::size_t>, kt::col::count> index{};
    {
        const std::string where = t.where(t.header_line());
        const auto& cells = t.header();
        for (std::size_t i = 0; i < cells.size(); ++i) {
            const auto known = std::find(kt::column_names.begin(), kt::column_names.end(), cells[i]);
            if (known == kt::column_names.end()) {
                std::string list;
                for (std::string_view n : kt::column_names) {
                    if (!list.empty()) list += ", ";
                    list += n;
                }
                throw parse_error(where + "unknown column '" + cells[i] + "' in the header (expected " + list + ")");
            }
            auto& slot = index[static_cast<std::size_t>(known - kt::column_names.begin())];
            if (slot) throw parse_error(where + "column '" + cells[i] + "' appears twice in the header");
            slot = i;
        }
        for (const auto required : {kt::col::name, kt::col::duration_us})
            if (!index[required])
                throw parse_error(where + "the header lacks the required column '" +
                                  std::string(kt::column_names[required]) + "'");
        int geometry = 0;
        for (std::size_t c = kt::col::grid_x; c <= kt::col::block_z; ++c) geometry += index[c].has_value();
        if (geometry != 0 && geometry != 6)
            throw parse_error(where + "give all six columns grid_x, grid_y, grid_z, block_x, block_y, block_z or none");
        if (index[kt::col::flops].has_value() != index[kt::col::bytes].has_value())
            throw parse_error(where + "give both columns flops and bytes, or neither");
    }
    std::vector<scale::measured_op> ops;
    std::vector<std::size_t> op_time_line;  // per op, the line that gave its wall time (0: none)
    for (std::size_t r = 0; r < t.rows(); ++r) {
        const std::size_t line_no = t.line(r);
        const std::string where = t.where(line_no);
        const kt::csv_row row{index, t.record(r), where};
        scale::measured_kernel k{.name = std::string(row.cell(kt::col::name))};
        if (k.name.empty()) throw parse_error(where + "column 'name' is empty");
        const auto duration = row.duration(kt::col::duration_us);
        if (!duration) row.fail(kt::col::duration_us, "a finite positive number of microseconds");
        k.duration = *duration;
        if (index[kt::col::grid_x]) {
            std::array<std::optional<std::int64_t>, 6> dims{};
            for (std::size_t i = 0; i < 6; ++i) dims[i] = row.integer(static_cast<kt::id>(kt::col::grid_x + i), 1, INT64_MAX / 2);
            const auto given = std::count_if(dims.begin(), dims.end(), [](const auto& d) { return d.has_value(); });
            if (given != 0 && given != 6)
                throw parse_error(where + "the six geometry cells (grid_x to block_z) must be all filled or all empty");
            if (given == 6) {
                scale::launch_geometry g{.grid = {*dims[0], *dims[1], *dims[2]}, .block = {*dims[3], *dims[4], *dims[5]}};
                g.registers_per_thread = static_cast<int>(row.integer(kt::col::registers, 0, 255).value_or(0));
                g.shared_memory = bytes_of(static_cast<double>(row.integer(kt::col::shared_bytes, 0, 1'000'000'000).value_or(0)));
                kt::check_geometry(g, where, k.name);
                k.launch = g;
            }
        }
        if ((!row.cell(kt::col::registers).empty() || !row.cell(kt::col::shared_bytes).empty() ||
             !row.cell(kt::col::dest_registers).empty()) && !k.launch)
            throw parse_error(where + "registers, shared_bytes and dest_registers need the launch geometry (grid_x to block_z)");
        if (const auto r = row.integer(kt::col::dest_registers, 1, 255)) k.destination_registers = static_cast<int>(*r);
        const auto f = row.number(kt::col::flops, false), q = row.number(kt::col::bytes, false);
        if (f.has_value() != q.has_value()) throw parse_error(where + "give both flops and bytes, or neither");
        if (f) {
            k.work = flops_of(*f);
            k.traffic = bytes_of(*q);
        }
        if (const std::string_view c = row.cell(kt::col::kind); !c.empty()) {
            const auto kind = scale::parse_kernel_class(c);
            if (!kind) row.fail(kt::col::kind, "memory, compute or unknown");
            k.kind = *kind;
        }
        if (const std::string_view p = row.cell(kt::col::precision); !p.empty()) {
            const auto type = parse_element_type(p);
            if (!type) row.fail(kt::col::precision, "fp32, tf32, fp16, bf16, fp8 or int8");
            k.precision = *type;
        }
        const std::string op_name(row.cell(kt::col::op));
        const auto wall = row.duration(kt::col::op_duration_us);
        if (wall && op_name.empty()) throw parse_error(where + "op_duration_us without an op");
        if (op_name.empty() || ops.empty() || ops.back().name != op_name || op_time_line.back() == SIZE_MAX) {
            ops.push_back({.name = op_name.empty() ? k.name : op_name});
            op_time_line.push_back(op_name.empty() ? SIZE_MAX : 0);  // SIZE_MAX: a kernel of its own
        }
        scale::measured_op& current = ops.back();
        if (wall) {
            if (current.wall_time && to_double(*current.wall_time) != to_double(*wall))
                throw parse_error(where + "op_duration_us of '" + op_name + "' differs from the one on line " +
                                  std::to_string(op_time_line.back()));
            current.wall_time = *wall;
            op_time_line.back() = line_no;
        }
        current.kernels.push_back(std::move(k));
    }
    if (ops.empty()) throw parse_error(origin + ": no kernels after the header");
    return ops;
}

// The kernels of a PyTorch profiler (Kineto) Chrome trace, grouped by operator (format above).
inline std::vector<scale::measured_op> parse_kineto_trace(std::string_view text, const std::string& origin = "<trace>") {
    namespace kt = kernel_trace_detail;
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw parse_error(origin + ": malformed JSON: " + json_document_detail::message(e));
    }
    const nlohmann::json* events = &j;
    if (j.is_object()) {
        const auto it = j.find("traceEvents");
        if (it == j.end()) throw parse_error(origin + ": no 'traceEvents' member; expected a PyTorch profiler trace");
        events = &*it;
    }
    if (!events->is_array())
        throw parse_error(origin + ": 'traceEvents' must be an array of events, got " + events->type_name());

    std::map<std::int64_t, std::string> operators;  // External id -> cpu_op name
    for (std::size_t i = 0; i < events->size(); ++i) {
        const nlohmann::json& e = (*events)[i];
        const std::string where = origin + ": traceEvents[" + std::to_string(i) + "]: ";
        if (!e.is_object()) throw parse_error(where + "expected an event object, got " + e.type_name());
        if (!kt::is_category(e, "cpu_op") && !kt::is_category(e, "operator")) continue;
        const kt::event_reader r{e, where};
        const auto name = e.find("name");
        if (name == e.end() || !name->is_string()) r.fail("name", "a string");
        if (const nlohmann::json* id = r.arg("External id"))
            operators.emplace(r.integer(*id, "args.External id", INT64_MIN, INT64_MAX), name->get<std::string>());
    }

    std::vector<scale::measured_op> ops;
    std::map<std::int64_t, std::size_t> op_of_id;  // External id -> index in ops
    for (std::size_t i = 0; i < events->size(); ++i) {
        const nlohmann::json& e = (*events)[i];
        if (!kt::is_category(e, "kernel")) continue;
        const std::string at = origin + ": traceEvents[" + std::to_string(i) + "]";
        const auto name = e.find("name");
        if (name == e.end() || !name->is_string()) kt::event_reader{e, at + ": "}.fail("name", "a string");
        const kt::event_reader r{e, at + " (kernel '" + name->get<std::string>() + "'): "};
        if (const auto ph = e.find("ph"); ph != e.end() && *ph != "X")
            r.fail("ph", "\"X\" (a complete event with a duration)");
        const auto dur = e.find("dur");
        if (dur == e.end() || !dur->is_number() || !std::isfinite(dur->get<double>()) ||
            !(microseconds_of(dur->get<double>()).value() > 0))  // 1e-320 us underflows to 0 s
            r.fail("dur", "a positive number of microseconds");
        scale::measured_kernel k{.name = name->get<std::string>(), .duration = microseconds_of(dur->get<double>())};
        if (r.arg("grid") || r.arg("block")) {
            scale::launch_geometry g{.grid = r.dims("grid"), .block = r.dims("block")};
            if (const nlohmann::json* v = r.arg("registers per thread"))
                g.registers_per_thread = static_cast<int>(r.integer(*v, "args.registers per thread", 0, 255));
            if (const nlohmann::json* v = r.arg("shared memory"))
                g.shared_memory = bytes_of(static_cast<double>(r.integer(*v, "args.shared memory", 0, 1'000'000'000)));
            kt::check_geometry(g, at + ": ", k.name);
            k.launch = g;
        }
        std::optional<std::int64_t> id{};
        if (const nlohmann::json* v = r.arg("External id")) id = r.integer(*v, "args.External id", INT64_MIN, INT64_MAX);
        if (id && operators.count(*id)) {
            const auto [slot, fresh] = op_of_id.emplace(*id, ops.size());
            if (fresh) ops.push_back({.name = operators.at(*id)});
            ops[slot->second].kernels.push_back(std::move(k));
        } else {
            ops.push_back({.name = k.name});
            ops.back().kernels.push_back(std::move(k));
        }
    }
    if (ops.empty())
        throw parse_error(origin + ": no kernel events (\"cat\": \"kernel\"); was the profiler run with "
                                   "ProfilerActivity.CUDA?");
    return ops;
}

// The measured operations in a file: a Kineto trace when its first character is '{' or '[', else a kernel CSV.
inline std::vector<scale::measured_op> load_measured(const std::filesystem::path& path) {
    const std::string text = read_file(path, max_trace_bytes);
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (text[first] == '{' || text[first] == '['))
        return parse_kineto_trace(text, path.string());
    return parse_kernel_csv(text, path.string());
}

}  // namespace steptime::io
