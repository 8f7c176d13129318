// steptime/parallel/data_parallel.hpp: one step on N workers that each hold a replica of the model
// and AllReduce their gradients (paleo-model.md 7.1), optionally overlapped with the backward pass.
#pragma once

#include <algorithm>
#include <string_view>

#include "steptime/comm/collectives.hpp"
#include "steptime/estimate.hpp"
#include "steptime/graph/issue_queue.hpp"

namespace steptime {

// weak: every worker keeps the batch (the global batch grows with N);
// strong: the global batch is split, ceil(B / N) per worker (PALEO's rounding, 7.1).
enum class scaling { weak, strong };

// none: gradients are exchanged after the backward pass (PALEO);
// backward: in buckets, as soon as a bucket's gradients are computed (PyTorch DDP, Horovod).
enum class overlap { none, backward };

inline std::string_view to_string(scaling s) { return s == scaling::weak ? "weak" : "strong"; }
inline std::string_view to_string(overlap o) { return o == overlap::none ? "none" : "backward"; }

struct data_parallel {
    int workers = 1;
    scaling scale = scaling::weak;
    overlap overlap_with = overlap::none;
    bytes bucket = bytes_of(25e6);  // PyTorch DistributedDataParallel's default bucket_cap_mb = 25

    std::int64_t batch_per_worker(std::int64_t batch) const {
        // ceil(batch / workers) without overflow; a batch below 1 is left for estimate() to refuse.
        return scale == scaling::weak || batch < 1 ? batch : (batch - 1) / workers + 1;
    }
};

// Refuses a worker count outside [1, 1000000] and a bucket that is not positive.
inline void validate(const data_parallel& dp) {
    if (dp.workers < 1 || dp.workers > 1'000'000)
        throw invalid_argument("workers is " + std::to_string(dp.workers) + ", expected 1 to 1000000");
    if (!(dp.bucket.value() > 0)) throw invalid_argument("gradient bucket size must be positive");
}

namespace detail {

// Gradient buckets, filled in backward order (last layer first), each reduced when full and the link
// is free; returns when the last reduction ends, counted from the start of the backward pass. A layer's
// gradients are ready when its last kernel ends, as the host issues them `dispatch` apart (issue_queue.hpp,
// as estimate() times the pass).
template <class Net, class Comm>
seconds bucketed_reduction_end(const Net& net, const step_estimate& e, const Comm& comm, int workers, bytes bucket,
                               double element_bytes, seconds dispatch) {
    issue_queue queue{dispatch};
    seconds clock{}, link_free{};
    bytes pending{};
    const auto flush = [&] {
        if (pending.value() > 0) link_free = std::max(clock, link_free) + comm.all_reduce(pending, workers);
        pending = bytes{};
    };
    for (std::size_t i = e.layers.size(); i-- > 0;) {
        queue.add(e.layers[i].backward.kernels, e.layers[i].backward.total());
        clock = queue.finished();
        pending += bytes_of(static_cast<double>(net[i].parameters) * element_bytes);
        if (pending >= bucket) flush();
    }
    flush();
    return std::max(clock, link_free);
}

}  // namespace detail

// `opt.batch` is the per-worker batch under weak scaling and the global batch under strong scaling.
template <class Net, class Model, class Comm>
    requires CostModel<Model, Net> && CommModel<Comm>
step_estimate estimate(const Net& net, const device& dev, const Model& model, const Comm& comm,
                       const data_parallel& dp, const estimate_options& opt = {}) {
    validate(dp);
    const std::int64_t batch = opt.batch == 0 ? net.native_batch : opt.batch;
    if (dp.scale == scaling::strong && batch < dp.workers)
        throw invalid_argument("strong scaling of a batch of " + std::to_string(batch) + " over " +
                               std::to_string(dp.workers) + " workers leaves some without a sample");
    if (batch < 1 || batch > max_batch)  // the global batch too under strong scaling
        throw invalid_argument("batch " + std::to_string(batch) + " is outside [1, " + std::to_string(max_batch) + "]");
    estimate_options per_worker = opt;
    per_worker.batch = dp.batch_per_worker(batch);
    step_estimate r = estimate(net, dev, model, per_worker);
    r.workers = dp.workers;
    r.batch = dp.scale == scaling::weak ? batch * dp.workers : batch;
    if (opt.inference) return r;  // replicas that serve their samples alone
    // PyTorch DDP's buckets: the gradients copied out for the all-reduce (its default; gradient_as_bucket_view
    // saves "the total gradients size", its documentation says).
    if (dp.workers > 1) r.memory.buffers = r.gradient_bytes;
    r.communication = comm.all_reduce(r.gradient_bytes, dp.workers);
    r.exposed_communication = r.communication;
    if (dp.overlap_with == overlap::backward && r.communication.value() > 0) {
        const seconds end = detail::bucketed_reduction_end(net, r, comm, dp.workers, dp.bucket, element_bytes(opt.gradients),
                                                           detail::host_dispatch_of(model));
        // Buckets pay the latency once each; never worse than exchanging everything after the pass.
        r.exposed_communication = std::min(end - r.backward, r.communication);
    }
    r.total = r.forward + r.backward + r.update + r.exposed_communication;
    detail::require_finite(r.total, "the data-parallel step time of '" + r.model + "'");
    return r;
}

}  // namespace steptime
