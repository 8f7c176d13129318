// steptime/graph/activations.hpp: the layer outputs a training step holds for its backward pass, activation
// recompute included (Chen et al. 2016, "Training Deep Nets with Sublinear Memory Cost").
#pragma once

#include <algorithm>
#include <unordered_map>

namespace steptime {

// One sample's activations in elements, over the layers added. A layer's output is kept from the forward pass
// until its gradients are due, but a recomputed layer's is dropped when only layers of its own block read it (else
// it is the block's output, which the next block recomputes from, or the network's); when the block's gradients
// are due, its forward pass runs again and holds the block's dropped outputs meanwhile, one block at a time.
class activation_tally {
public:
    template <class Net>
    void add(const Net& net, typename Net::vertex v) {
        const double elements = static_cast<double>(net[v].output.elements());
        if (!dropped(net, v)) {
            kept_ += elements;
            return;
        }
        rebuilt_[net[v].block] += elements;
    }

    // The most held at once: the kept outputs of `in_flight` samples (a pipeline stage's micro-batches in flight
    // hold theirs) and the largest block's rebuilt ones.
    double peak(double in_flight = 1) const {
        double rebuilt = 0;
        for (const auto& [block, elements] : rebuilt_) rebuilt = std::max(rebuilt, elements);
        return kept_ * in_flight + rebuilt;
    }

private:
    template <class Net>
    static bool dropped(const Net& net, typename Net::vertex v) {
        const auto& l = net[v];
        if (!l.recomputed || l.block == 0) return false;  // outside a block, a layer is its own checkpoint
        bool read = false;
        for (auto w : net.children(v)) {
            if (net[w].block != l.block) return false;
            read = true;
        }
        return read;  // the network's output is kept
    }

    double kept_ = 0;
    std::unordered_map<int, double> rebuilt_;  // per block
};

}  // namespace steptime
