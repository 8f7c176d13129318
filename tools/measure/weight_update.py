#!/usr/bin/env python3
"""Time the weight update alone: `optimizer.step()` over a zoo network's FP32 weights and random gradients.

For each network, update rule (SGD with momentum, Adam) and PyTorch implementation (foreach: the default,
one pass over the weights per arithmetic operation; fused: one kernel; for-loop: one tensor at a time),
the median of 20 steps after 3 warm-up ones, timed with CUDA events, and the bytes a weight that time
moves at the device-to-device copy bandwidth measured first (what one pass of the update would need).

    python3 tools/measure/weight_update.py --out DIR [--networks resnet50,vgg16,densenet121]

writes DIR/weight_update.csv.
"""
import argparse
import os
import statistics

import torch

from train_steps import NETWORKS, copy_bandwidth, csv_appender

RULES = {"momentum": lambda p, impl: torch.optim.SGD(p, lr=1e-3, momentum=0.9, **impl),
         "adam": lambda p, impl: torch.optim.Adam(p, lr=1e-3, **impl)}
IMPLEMENTATIONS = {"foreach": {"foreach": True}, "fused": {"fused": True}, "for-loop": {"foreach": False}}


def timed_ms(fn, warmup=3, reps=20):
    """The median of `fn`'s times (ms), each from an idle GPU: what the host takes to issue it counts."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--networks", default="resnet50,vgg16,densenet121")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    copy_bps = copy_bandwidth()
    f, w = csv_appender(os.path.join(args.out, "weight_update.csv"),
                        ["network", "parameters", "tensors", "optimizer", "implementation", "step_ms", "copy_gbps",
                         "bytes_per_parameter"])
    with f:
        for name in args.networks.split(","):
            model = NETWORKS[name][0]().cuda()
            params = [p for p in model.parameters() if p.requires_grad]
            count = sum(p.numel() for p in params)
            for p in params:
                p.grad = torch.randn_like(p)
            for rule, make in RULES.items():
                for impl, flags in IMPLEMENTATIONS.items():
                    opt = make(params, flags)
                    ms = timed_ms(opt.step)
                    row = {"network": name, "parameters": count, "tensors": len(params), "optimizer": rule,
                           "implementation": impl, "step_ms": f"{ms:.4f}", "copy_gbps": f"{copy_bps / 1e9:.0f}",
                           "bytes_per_parameter": f"{ms / 1e3 * copy_bps / count:.1f}"}
                    w.writerow(row)
                    f.flush()
                    print(*row.values(), flush=True)
                    del opt
            del model, params
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
