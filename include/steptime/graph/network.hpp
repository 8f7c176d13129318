// steptime/graph/network.hpp: the network DAG over Boost.Graph, built layer by layer with shape inference.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "steptime/error.hpp"
#include "steptime/ops/layer_op.hpp"

namespace steptime {

// Where a layer split across a tensor-parallel group all-reduces (Megatron-LM's conjugate operators, Shoeybi et
// al. 2019): `output` sums its partial outputs going forward (after a row-split layer: g); `input_gradient` sums
// the gradient of its replicated input going backward (before a column-split layer: f).
enum class group_all_reduce : std::uint8_t { none, output, input_gradient };

// One node: its operation and what insertion inferred about it.
template <class Op>
struct layer {
    std::string name{};
    Op op{};
    std::vector<tensor_shape> inputs{};  // in parent order
    tensor_shape output{};
    std::int64_t parameters = 0;
    std::optional<int> device{};  // model-parallel placement; unset = not split across devices
    // Activation recompute (checkpointing; Chen et al. 2016): the backward pass runs the forward pass again before
    // its own (Megatron-LM's --checkpoint-activations of transformer layers), and the output is not kept when only
    // recomputed layers of its block read it (activation_tally): outside a block, recompute costs time, saves nothing.
    bool recomputed = false;
    group_all_reduce all_reduce = group_all_reduce::none;  // tensor parallelism: see the enum
    // The repeated unit it belongs to (a transformer layer), numbered from 1; 0: none. Pipeline stages take whole
    // blocks, as Megatron-LM gives each stage an equal share of the transformer layers.
    int block = 0;
    // The network's input data, or a copy or view of it (ops::moves_data: a pad, a reshape): no gradient flows into
    // it, so the layers it feeds compute none for it.
    bool input_data = false;
};

template <class Op>
class basic_network {
public:
    using graph_type = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, layer<Op>>;
    using vertex = typename graph_type::vertex_descriptor;

    // Upper limit on layers: a guard against runaway generated inputs, far above real networks.
    static constexpr std::size_t max_layers = 100'000;
    // Upper limit on connections (parent links), for the same reason: PALEO's @all parents of a
    // 1,024-way ModelParallel block make a million of them from a few lines of JSON.
    static constexpr std::size_t max_connections = 1'000'000;

    explicit basic_network(std::string name = "network") : name_(std::move(name)) {}

    const std::string& name() const { return name_; }

    // Adds a layer after its parents (which must exist, so the graph stays acyclic and vertex
    // order is a topological order). Infers the output shape; throws invalid_model naming the
    // layer and the shapes on any mismatch.
    vertex add(std::string name, Op op, std::span<const std::string> parents, std::optional<int> device = {}) {
        if (name.empty()) throw invalid_model("a layer has an empty name");
        if (by_name_.contains(name)) throw invalid_model("layer '" + name + "' is defined twice");
        if (boost::num_vertices(g_) >= max_layers)
            throw invalid_model("layer '" + name + "': the network exceeds " + std::to_string(max_layers) + " layers");
        if (parents.size() > max_connections - boost::num_edges(g_))
            throw invalid_model("layer '" + name + "': the network exceeds " + std::to_string(max_connections) +
                                " connections between layers");
        layer<Op> l{std::move(name), std::move(op), {}, {}, 0, device};
        std::vector<vertex> from;
        for (const auto& p : parents) {
            auto it = by_name_.find(p);
            if (it == by_name_.end()) throw invalid_model("layer '" + l.name + "': unknown parent '" + p + "'");
            from.push_back(it->second);
            l.inputs.push_back(g_[it->second].output);
        }
        l.output = ops::infer(l.op, l.inputs, l.name);
        try {
            l.parameters = ops::parameters(l.op, l.inputs);
        } catch (const invalid_model& e) {
            throw invalid_model("layer '" + l.name + "': " + e.what());
        }
        l.input_data = from.empty() || (ops::moves_data(l.op) && std::ranges::all_of(from, [&](vertex u) {
                                            return g_[u].input_data;
                                        }));
        const vertex v = boost::add_vertex(std::move(l), g_);
        for (vertex u : from) boost::add_edge(u, v, g_);
        by_name_.emplace(g_[v].name, v);
        return v;
    }
    vertex add(std::string name, Op op, std::initializer_list<std::string> parents = {}, std::optional<int> device = {}) {
        return add(std::move(name), std::move(op), std::span<const std::string>(parents.begin(), parents.size()),
                   device);
    }

    // Marks a layer's forward pass to run again in the backward pass (activation recompute).
    void recompute(vertex v) { g_[v].recomputed = true; }
    // Marks where a layer of a tensor-parallel network all-reduces among the group's GPUs.
    void all_reduce(vertex v, group_all_reduce where) { g_[v].all_reduce = where; }
    // Puts a layer in a repeated block (see layer::block).
    void set_block(vertex v, int block) {
        if (block < 0)
            throw invalid_model("network '" + name_ + "': layer '" + g_[v].name + "' put in block " +
                                std::to_string(block) + ", expected a block number from 1 (0: none)");
        g_[v].block = block;
    }

    std::size_t size() const { return boost::num_vertices(g_); }
    bool empty() const { return size() == 0; }
    const layer<Op>& operator[](vertex v) const { return g_[v]; }
    std::optional<vertex> find(std::string_view name) const {
        auto it = by_name_.find(std::string(name));
        return it == by_name_.end() ? std::nullopt : std::optional<vertex>(it->second);
    }
    const layer<Op>& at(std::string_view name) const {
        if (auto v = find(name)) return g_[*v];
        throw invalid_model("network '" + name_ + "' has no layer '" + std::string(name) + "'");
    }

    // Parents in the order they were given (the order of the layer's inputs).
    auto parents(vertex v) const { return range(boost::inv_adjacent_vertices(v, g_)); }
    // Children, in the order they were added.
    auto children(vertex v) const { return range(boost::adjacent_vertices(v, g_)); }
    // Layers in a topological order (insertion order).
    auto vertices() const { return range(boost::vertices(g_)); }
    const graph_type& graph() const { return g_; }

    std::int64_t parameter_count() const {
        std::int64_t n = 0;
        for (auto v : vertices()) n = detail::checked_add(n, g_[v].parameters, "network '" + name_ + "' parameter count");
        return n;
    }
    // The tensors that hold them (ops::parameter_tensors).
    std::int64_t parameter_tensor_count() const {
        std::int64_t n = 0;
        for (auto v : vertices()) n += ops::parameter_tensors(g_[v].op, g_[v].parameters);
        return n;
    }
    // Elements of every layer's output for one sample (PALEO's activation count, input included).
    std::int64_t activation_elements() const {
        std::int64_t n = 0;
        for (auto v : vertices())
            n = detail::checked_add(n, g_[v].output.elements(), "network '" + name_ + "' activation count");
        return n;
    }

    // The batch the network's description was written for (PALEO files carry one); estimates may use another.
    std::int64_t native_batch = 1;
    // The GPUs its split layers span (tensor parallelism, Megatron-LM's t): the network is one GPU's part, and
    // the layers marked with all_reduce() sum their partial results over this many GPUs.
    int tensor_parallel = 1;

private:
    template <class It>
    struct iterator_range {
        It b, e;
        It begin() const { return b; }
        It end() const { return e; }
        std::size_t size() const { return static_cast<std::size_t>(std::distance(b, e)); }
    };
    template <class It>
    static iterator_range<It> range(std::pair<It, It> p) { return {p.first, p.second}; }

    std::string name_;
    graph_type g_;
    std::unordered_map<std::string, vertex> by_name_;
};

using network = basic_network<layer_op>;

}  // namespace steptime
