// steptime/graph/issue_queue.hpp: a pass as an eager framework runs it. The host issues the kernels one after
// another, `dispatch` apart, into one stream; the GPU starts each once it is issued and the one before it has
// finished. The pass ends with its last kernel: the latest, over its kernels, of a kernel's issue time plus the
// GPU's work from that kernel on (the max-plus recurrence of a queue with one server).
#pragma once

#include <algorithm>

#include "steptime/units.hpp"

namespace steptime {

class issue_queue {
public:
    explicit issue_queue(seconds dispatch) : dispatch_(dispatch) {}

    // A layer's pass: `kernels` kernels taking `busy` of GPU time together, taken as equal. Kernel j of n is
    // issued at issued + j x dispatch and ends at the later of that and the previous kernel's end, plus
    // busy / n; the latest chain starts at the first kernel or at the last. Time without a kernel (a
    // transfer) follows the GPU's work.
    void add(double kernels, seconds busy) {
        if (kernels <= 0) {
            finished_ += busy;
            return;
        }
        const double n = std::max(kernels, 1.0);
        finished_ = std::max({finished_ + busy, issued_ + dispatch_ + busy, issued_ + dispatch_ * n + busy / n});
        issued_ += dispatch_ * n;
    }

    seconds finished() const { return finished_; }

private:
    seconds dispatch_;
    seconds issued_{}, finished_{};
};

}  // namespace steptime
