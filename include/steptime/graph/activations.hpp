// steptime/graph/activations.hpp: the layer outputs a training step holds for its backward pass, activation
// recompute included (Chen et al. 2016, "Training Deep Nets with Sublinear Memory Cost").
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace steptime {

// One sample's activations in elements, over the layers added. A layer's output is kept from the forward pass
// until its gradients are due, but a recomputed layer's is dropped unless a layer outside its block reads it (the
// block's output, which the next block recomputes from); when the block's gradients are due, its forward pass runs
// again and holds the block's dropped outputs meanwhile, one block at a time.
class activation_tally {
public:
    template <class Net>
    void add(const Net& net, typename Net::vertex v) {
        const double elements = static_cast<double>(net[v].output.elements());
        if (!dropped(net, v)) {
            kept_ += elements;
            return;
        }
        const auto block = static_cast<std::size_t>(net[v].block);
        if (rebuilt_.size() <= block) rebuilt_.resize(block + 1);
        rebuilt_[block] += elements;
    }

    // The most held at once: the kept outputs of `in_flight` samples (a pipeline stage's micro-batches in flight
    // hold theirs) and the largest block's rebuilt ones.
    double peak(double in_flight = 1) const {
        const double rebuilt = rebuilt_.empty() ? 0 : *std::max_element(rebuilt_.begin(), rebuilt_.end());
        return kept_ * in_flight + rebuilt;
    }

private:
    template <class Net>
    static bool dropped(const Net& net, typename Net::vertex v) {
        const auto& l = net[v];
        if (!l.recomputed || l.block == 0) return false;  // outside a block, a layer is its own checkpoint
        for (auto w : net.children(v))
            if (net[w].block != l.block) return false;
        return true;
    }

    double kept_ = 0;
    std::vector<double> rebuilt_;  // per block
};

}  // namespace steptime
