// steptime/io/paleo_json.hpp: reads PALEO's network description format (paleo-model.md section 6.1),
// including Block and ModelParallel constructs and @self/@all parent suffixes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "steptime/graph/network.hpp"
#include "steptime/io/read_file.hpp"

namespace steptime::io {

namespace detail_paleo {

using json = nlohmann::ordered_json;

// Nesting deeper than this is refused (PALEO's own nets nest one level).
inline constexpr int max_block_depth = 32;

// A value for an error message: at most 40 characters, and never a dump of nested containers (the
// serializer recurses once per level, so a deeply nested value would overflow the stack).
inline std::string excerpt(const json& v) {
    bool flat = true;
    if (v.is_structured())
        for (const auto& x : v) flat = flat && !x.is_structured();
    std::string s = flat ? v.dump(-1, ' ', false, json::error_handler_t::replace) : v.is_array() ? "[...]" : "{...}";
    if (s.size() <= 40) return s;
    std::size_t cut = 37;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
    return s.substr(0, cut) + "...";
}

// Builds the document in time linear in its size. nlohmann_json's own builder looks every key up in
// the ordered_map (a vector) before inserting it, which makes an object of n members cost n^2 / 2
// string comparisons: 11 s for a 100,000-layer file. Duplicate keys are refused, naming their path.
class dom_builder : public nlohmann::json_sax<json> {
public:
    explicit dom_builder(const std::string& origin) : origin_(origin) {}
    json root{};

    bool null() override { return add(json(nullptr)); }
    bool boolean(bool v) override { return add(json(v)); }
    bool number_integer(number_integer_t v) override { return add(json(v)); }
    bool number_unsigned(number_unsigned_t v) override { return add(json(v)); }
    bool number_float(number_float_t v, const string_t&) override { return add(json(v)); }
    bool string(string_t& v) override { return add(json(std::move(v))); }
    bool binary(binary_t& v) override { return add(json::binary(std::move(v))); }
    bool start_object(std::size_t) override { return open(json::object()); }
    bool start_array(std::size_t) override { return open(json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override {
        if (duplicate(open_.back(), k)) {
            std::string path;
            for (const auto& o : open_)
                if (!o.key.empty()) path += o.key + ".";
            throw steptime::parse_error(origin_ + ": duplicate key '" + path + k + "'");
        }
        key_ = std::move(k);
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
        throw steptime::parse_error(origin_ + ": malformed JSON: " + e.what());
    }

private:
    struct container {
        json* value;
        std::string key;                        // its own key in its parent object, for messages
        std::unordered_set<std::string> keys{};  // its members' keys, once it has 16 (objects)
    };
    const std::string& origin_;
    std::vector<container> open_{};
    std::string key_{};

    // Small objects (every layer) are searched; large ones (a net's layers) get a set of their keys.
    static bool duplicate(container& c, const std::string& k) {
        const auto& members = c.value->get_ref<const json::object_t&>();
        if (members.size() < 16) return std::ranges::any_of(members, [&](const auto& m) { return m.first == k; });
        if (c.keys.empty())
            for (const auto& m : members) c.keys.insert(m.first);
        return !c.keys.insert(k).second;
    }

    json* add(json&& v) {
        if (open_.empty()) {
            root = std::move(v);
            return &root;
        }
        json& top = *open_.back().value;
        if (top.is_array()) {
            auto& a = top.get_ref<json::array_t&>();
            a.push_back(std::move(v));
            return &a.back();
        }
        auto& o = top.get_ref<json::object_t&>();
        o.json::object_t::Container::push_back({std::move(key_), std::move(v)});  // appended, not looked up
        return &o.back().second;
    }
    bool open(json&& v) {
        std::string k = !open_.empty() && open_.back().value->is_object() ? key_ : std::string{};
        open_.push_back({add(std::move(v)), std::move(k)});
        return true;
    }
    bool close() {
        open_.pop_back();
        return true;
    }
};

struct flat_layer {
    std::string name{};
    const json* spec;
    std::vector<std::string> parents{};
    std::optional<int> device{};  // split index inside a ModelParallel block
    int splits = 1;
};

class reader {
public:
    explicit reader(std::string origin) : origin_(std::move(origin)) {}

    network read(const json& root) {
        if (!root.is_object()) fail("", "the document must be a JSON object with 'name' and 'layers'");
        const auto& layers = field(root, "layers", "");
        if (!layers.is_object() || layers.empty()) fail("", "field 'layers' must be a non-empty object of layers");
        std::string name = "network";
        if (auto it = root.find("name"); it != root.end()) {
            if (!it->is_string()) fail("", "field 'name' must be a string");
            name = it->get<std::string>();
        }
        expand(layers, "", {}, 0);
        network net(name);
        insert_in_order(net);
        return net;
    }

private:
    std::string origin_{};
    std::vector<flat_layer> flat_{};
    std::map<std::string, std::string> endpoint_of_;            // block name -> its endpoint layer
    std::map<std::string, std::vector<std::string>> copies_of_;  // split layer -> its k copies

    [[noreturn]] void fail(const std::string& layer, const std::string& what) const {
        throw parse_error(origin_ + ": " + (layer.empty() ? "" : "layer '" + layer + "': ") + what);
    }

    const json& field(const json& spec, const char* key, const std::string& layer) const {
        auto it = spec.find(key);
        if (it == spec.end()) fail(layer, std::string("missing field '") + key + "'");
        return *it;
    }

    std::int64_t integer(const json& v, const std::string& layer, const std::string& what) const {
        if (!v.is_number_integer()) fail(layer, "field '" + what + "' must be an integer, got " + excerpt(v));
        constexpr auto largest = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        if (v.is_number_unsigned() && v.get<std::uint64_t>() > largest)  // get<int64_t> would wrap it negative
            fail(layer, "field '" + what + "' is " + v.dump() + ", beyond the 64-bit integer range");
        return v.get<std::int64_t>();
    }

    std::vector<std::int64_t> ints(const json& spec, const char* key, std::size_t n, const std::string& layer) const {
        const auto& v = field(spec, key, layer);
        if (!v.is_array() || (n && v.size() != n))
            fail(layer, std::string("field '") + key + "' must be an array of " + std::to_string(n) + " integers, got " +
                            excerpt(v));
        std::vector<std::int64_t> out;
        for (const auto& x : v) out.push_back(integer(x, layer, key));
        return out;
    }

    std::vector<std::string> parent_list(const json& spec, const std::string& layer) const {
        const auto& v = field(spec, "parents", layer);
        if (!v.is_array()) fail(layer, "field 'parents' must be an array of layer names");
        std::vector<std::string> out;
        for (const auto& p : v) {
            if (!p.is_string()) fail(layer, "field 'parents' must hold layer names, got " + excerpt(p));
            out.push_back(p.get<std::string>());
        }
        return out;
    }

    // Flattens blocks into `flat_`, renaming sub-layers `block/sub` and resolving their parents.
    void expand(const json& layers, const std::string& prefix, const std::vector<std::string>& inherited, int depth) {
        if (depth > max_block_depth) fail(prefix, "blocks nest deeper than " + std::to_string(max_block_depth));
        for (const auto& [key, spec] : layers.items()) {
            const std::string name = prefix + key;
            too_many_layers(name);
            if (!spec.is_object()) fail(name, "the layer must be a JSON object");
            const auto& type = field(spec, "type", name);
            if (!type.is_string()) fail(name, "field 'type' must be a string");
            auto parents = parent_list(spec, name);
            if (!prefix.empty()) {
                if (parents.empty()) parents = inherited;
                else
                    for (auto& p : parents) p = prefix + p;
            }
            if (type == "Block") {
                const auto& ep = field(spec, "endpoint", name);
                if (!ep.is_string()) fail(name, "field 'endpoint' must be a layer name");
                endpoint_of_[name] = name + "/" + ep.get<std::string>();
                const auto& sub = field(spec, "layers", name);
                if (!sub.is_object() || sub.empty()) fail(name, "field 'layers' must be a non-empty object");
                expand(sub, name + "/", parents, depth + 1);
            } else if (type == "ModelParallel") {
                expand_split(spec, name, parents);
            } else {
                flat_.push_back({name, &spec, std::move(parents), std::nullopt});
            }
        }
    }

    // ModelParallel: every sub-layer k times as `block/sub@i`, on device i.
    void expand_split(const json& spec, const std::string& name, const std::vector<std::string>& parents) {
        const std::int64_t k = integer(field(spec, "splits", name), name, "splits");
        if (k < 1 || k > 1024) fail(name, "field 'splits' is " + std::to_string(k) + ", expected 1 to 1024");
        const auto& sub = field(spec, "layers", name);
        if (!sub.is_object() || sub.empty()) fail(name, "field 'layers' must be a non-empty object");
        for (const auto& [key, s] : sub.items()) {
            const std::string base = name + "/" + key;
            if (!s.is_object()) fail(base, "the layer must be a JSON object");
            const auto own = parent_list(s, base);
            for (int i = 0; i < k; ++i) {
                const std::string copy = base + "@" + std::to_string(i);
                too_many_layers(copy);
                copies_of_[base].push_back(copy);
                std::vector<std::string> ps;
                if (own.empty()) ps = parents;
                for (const auto& p : own) {
                    if (p.ends_with("@self")) ps.push_back(name + "/" + p.substr(0, p.size() - 5) + "@" + std::to_string(i));
                    else if (p.ends_with("@all")) ps.push_back(name + "/" + p);  // expanded in resolve()
                    else ps.push_back(name + "/" + p);
                }
                flat_.push_back({copy, &s, std::move(ps), i, static_cast<int>(k)});
            }
        }
    }

    // Refuses the file before expanding it beyond what network::add would accept (ModelParallel
    // multiplies layers by up to 1,024).
    void too_many_layers(const std::string& name) const {
        if (flat_.size() >= network::max_layers)
            throw invalid_model(origin_ + ": layer '" + name + "': the network exceeds " +
                                std::to_string(network::max_layers) + " layers");
    }

    // A parent name as written -> the layers it stands for.
    std::vector<std::string> resolve(const std::string& p) const {
        if (auto it = endpoint_of_.find(p); it != endpoint_of_.end()) return {it->second};
        if (p.ends_with("@all")) {
            if (auto it = copies_of_.find(p.substr(0, p.size() - 4)); it != copies_of_.end()) return it->second;
        }
        return {p};
    }

    std::size_t resolved_count(const std::string& p) const {
        if (p.ends_with("@all") && !endpoint_of_.contains(p))
            if (auto it = copies_of_.find(p.substr(0, p.size() - 4)); it != copies_of_.end()) return it->second.size();
        return 1;
    }

    // Kahn's algorithm in file order, so the network lists layers as the file does where it can.
    void insert_in_order(network& net) {
        std::map<std::string, std::size_t> index;
        for (std::size_t i = 0; i < flat_.size(); ++i)
            if (!index.emplace(flat_[i].name, i).second)
                throw invalid_model(origin_ + ": layer '" + flat_[i].name + "' is defined twice");
        std::vector<std::vector<std::string>> parents(flat_.size());
        std::vector<std::vector<std::size_t>> children(flat_.size());
        std::vector<std::size_t> missing(flat_.size(), 0);
        std::size_t connections = 0;  // counted before @all expansions are materialized, which could exhaust memory
        for (const auto& f : flat_)
            for (const auto& written : f.parents)
                if ((connections += resolved_count(written)) > network::max_connections)
                    throw invalid_model(origin_ + ": layer '" + f.name + "': the network exceeds " +
                                        std::to_string(network::max_connections) + " connections between layers");
        for (std::size_t i = 0; i < flat_.size(); ++i)
            for (const auto& written : flat_[i].parents)
                for (auto& p : resolve(written)) {
                    auto it = index.find(p);
                    if (it == index.end())
                        throw invalid_model(origin_ + ": layer '" + flat_[i].name + "': unknown parent '" + written + "'");
                    children[it->second].push_back(i);
                    ++missing[i];
                    parents[i].push_back(std::move(p));
                }
        std::vector<std::size_t> ready;
        for (std::size_t i = flat_.size(); i-- > 0;)
            if (missing[i] == 0) ready.push_back(i);
        std::size_t inserted = 0;
        while (!ready.empty()) {
            const std::size_t i = ready.back();
            ready.pop_back();
            try {
                net.add(flat_[i].name, to_op(flat_[i], net, parents[i]), parents[i], flat_[i].device);
            } catch (const invalid_model& e) {
                throw invalid_model(origin_ + ": " + e.what());
            }
            ++inserted;
            std::vector<std::size_t> now;
            for (auto c : children[i])
                if (--missing[c] == 0) now.push_back(c);
            std::sort(now.rbegin(), now.rend());
            ready.insert(ready.end(), now.begin(), now.end());
        }
        if (inserted != flat_.size()) {
            std::string stuck;
            for (std::size_t i = 0; i < flat_.size(); ++i)
                if (missing[i] > 0) stuck += (stuck.empty() ? "'" : ", '") + flat_[i].name + "'";
            throw invalid_model(origin_ + ": the layers " + stuck + " form or depend on a cycle");
        }
    }

    ops::padding padding_of(const json& spec, const std::string& layer) const {
        const auto& p = field(spec, "padding", layer);
        if (p == "SAME") return ops::padding::same();
        if (p == "VALID") return ops::padding::valid();
        fail(layer, "field 'padding' must be \"SAME\" or \"VALID\", got " + excerpt(p));
    }

    // [1, h, w, 1] -> {h, w}
    ops::extent window(const json& spec, const char* key, const std::string& layer) const {
        const auto v = ints(spec, key, 4, layer);
        if (v[0] != 1 || v[3] != 1) fail(layer, std::string("field '") + key + "' must be [1, h, w, 1]");
        return {v[1], v[2]};
    }

    layer_op to_op(const flat_layer& f, network& net, const std::vector<std::string>& parents) const {
        const json& s = *f.spec;
        const std::string& n = f.name;
        const auto& t = field(s, "type", n);  // checked here: ModelParallel sub-layers are not checked on expansion
        if (!t.is_string()) fail(n, "field 'type' must be a string");
        const std::string type = t.get<std::string>();
        if (type == "Input") {
            if (!parents.empty()) fail(n, "an Input layer has no parents");
            const auto t = ints(s, "tensor", 0, n);
            if (t.size() != 4 && t.size() != 2) fail(n, "field 'tensor' must be [N, H, W, C] or [N, D]");
            if (t[0] < 1) fail(n, "field 'tensor' has batch " + std::to_string(t[0]) + ", expected a positive size");
            net.native_batch = t[0];
            return ops::input{t.size() == 4 ? tensor_shape{{t[1], t[2], t[3]}, 3} : tensor_shape{{t[1], 1, 1}, 1}};
        }
        if (type == "Convolution") {
            const auto fl = ints(s, "filter", 4, n);
            const std::int64_t out = fl[3] / f.splits;  // a split copy gets Cout // k channels (6.1)
            if (out < 1) fail(n, "field 'filter' has " + std::to_string(fl[3]) + " output channels for " +
                                     std::to_string(f.splits) + " splits");
            ops::conv2d c;
            c.filters = out;
            c.kernel = {fl[0], fl[1]};
            c.stride = window(s, "strides", n);
            c.pad = padding_of(s, n);
            if (fl[2] != -1) c.in_channels = fl[2];
            // PALEO's files give a bias its shape ("bias": [64]); steptime's extension "bias": false drops it.
            if (auto it = s.find("bias"); it != s.end()) {
                if (!it->is_boolean() && !it->is_array())
                    fail(n, "field 'bias' must be true, false or the bias's shape, got " + excerpt(*it));
                c.bias = !it->is_boolean() || it->get<bool>();
            }
            return c;
        }
        if (type == "Pooling" || type == "AvgPool") {
            ops::pool2d p;
            p.type = type == "Pooling" ? ops::pool2d::method::max : ops::pool2d::method::average;
            p.window = window(s, "ksize", n);
            p.stride = window(s, "strides", n);
            p.pad = padding_of(s, n);
            return p;
        }
        if (type == "InnerProduct") {
            ops::dense d;
            d.outputs = integer(field(s, "num_outputs", n), n, "num_outputs");
            return d;
        }
        if (type == "Dropout") {
            const auto& p = field(s, "dropout_keep_prob", n);
            if (!p.is_number()) fail(n, "field 'dropout_keep_prob' must be a number");
            return ops::dropout{p.get<double>()};
        }
        if (type == "Concatenate") {
            const std::int64_t dim = integer(field(s, "dim", n), n, "dim");
            if (dim < 1 || dim > 3)  // checked before narrowing to int
                fail(n, "field 'dim' is " + std::to_string(dim) + ", expected an NHWC axis other than the batch: 1, 2 or 3");
            return ops::concat{static_cast<int>(dim - 1)};  // NHWC index -> per-sample axis
        }
        if (type == "Softmax") {
            auto it = s.find("num_classes");
            if (it == s.end() || it->is_null()) return ops::softmax{};
            return ops::softmax{integer(*it, n, "num_classes")};
        }
        if (type == "Reshape") {
            auto shape = ints(s, "output_shape", 0, n);
            if (shape.size() < 2 || shape.size() > 4) fail(n, "field 'output_shape' must have 2 to 4 dimensions");
            std::vector<std::int64_t> per_sample(shape.begin() + 1, shape.end());
            for (auto& d : per_sample)
                if (d == -1) d = 0;
            return ops::reshape{per_sample};
        }
        if (type == "Pad") {
            const auto parent = parents.size() == 1 ? net.find(parents[0]) : std::nullopt;  // added: parents come first
            if (!parent) fail(n, "a Pad layer has one parent, got " + std::to_string(parents.size()));
            return pad_of(s, n, net[*parent].output.rank);
        }
        if (type == "Elementwise") return ops::elementwise{};
        if (type == "BatchNorm") return ops::batch_norm{};
        if (type == "LRN") return ops::lrn{};
        if (type == "ReLU") return ops::activation{ops::activation::function::relu};
        if (type == "Sigmoid") return ops::activation{ops::activation::function::sigmoid};
        if (type == "Accuracy" || type == "Scale") return ops::passthrough{type};
        fail(n, "unknown layer type '" + type +
                    "' (expected Input, Convolution, Pooling, AvgPool, InnerProduct, Dropout, Concatenate, Softmax, "
                    "Reshape, Pad, Elementwise, BatchNorm, LRN, ReLU, Sigmoid, Accuracy, Scale, Block or ModelParallel)");
    }

    // steptime's extension, tf.pad's argument: "paddings": [[0, 0], [top, bottom], [left, right], [0, 0]], a pair
    // of pads per axis of the input, NHWC for an image (two pairs for a flat one), the batch's [0, 0] first.
    ops::pad pad_of(const json& spec, const std::string& layer, int input_rank) const {
        const auto& v = field(spec, "paddings", layer);
        const auto pair = [](const json& p) { return p.is_array() && p.size() == 2; };
        const auto shown = [&v] {  // a row at a time: excerpt() shows a nested array as [...]
            if (!v.is_array()) return excerpt(v);
            std::string t = "[";
            for (std::size_t i = 0; i < std::min<std::size_t>(v.size(), 5); ++i) {
                if (i) t += ',';
                t += excerpt(v[i]);
            }
            return t + (v.size() > 5 ? ",...]" : "]");
        };
        const auto axes = static_cast<std::size_t>(input_rank) + 1;  // the batch's and the sample's
        if (!v.is_array() || v.size() != axes || !std::all_of(v.begin(), v.end(), pair))
            fail(layer, "field 'paddings' must be " + std::to_string(axes) + " pairs of pads, one per axis of the input (" +
                            (axes == 4 ? "[[0, 0], [top, bottom], [left, right], [0, 0]] for an NHWC image"
                                       : "[[0, 0], [before, after], ...]") +
                            "), got " + shown());
        ops::pad p;
        for (std::size_t axis = 0; axis < v.size(); ++axis) {
            const std::int64_t before = integer(v[axis][0], layer, "paddings");
            const std::int64_t after = integer(v[axis][1], layer, "paddings");
            if (before < 0 || after < 0) fail(layer, "field 'paddings' holds a negative pad: " + shown());
            if (axis == 0 && (before || after))
                fail(layer, "field 'paddings' pads the batch: " + shown() + ", expected [0, 0] first");
            if (axis > 0) p.before[axis - 1] = before, p.after[axis - 1] = after;
        }
        return p;
    }
};

}  // namespace detail_paleo

// Builds a network from PALEO JSON text; `origin` names the source in error messages.
inline network parse_paleo_json(std::string_view text, const std::string& origin = "<input>") {
    detail_paleo::dom_builder builder(origin);
    detail_paleo::json::sax_parse(text, &builder);
    return detail_paleo::reader(origin).read(builder.root);
}

inline network load_paleo_json(const std::filesystem::path& path) {
    return parse_paleo_json(read_file(path), path.string());
}

}  // namespace steptime::io
