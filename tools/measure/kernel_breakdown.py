#!/usr/bin/env python3
"""Where a real training step spends its GPU time: every kernel of one profiled step, summed by name.

    python3 tools/measure/kernel_breakdown.py --out DIR resnet50:fp32:256 vgg16:amp:128 ...

writes DIR/kernel_breakdown.csv (network, precision, batch, kernel, count, total_ms), after warm-up,
for the same training step as train_steps.py.
"""
import argparse
import collections
import csv
import os

import torch

from train_steps import NETWORKS, gpu_events


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("configs", nargs="+", help="network:precision:batch")
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "kernel_breakdown.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["network", "precision", "batch", "kernel", "count", "total_ms"])
        for config in args.configs:
            name, precision, batch = config.split(":")
            build, resolution = NETWORKS[name]
            model = build().cuda().train()
            total = collections.defaultdict(lambda: [0, 0.0])
            for e in gpu_events(model, resolution, int(batch), precision):
                total[e.name][0] += 1
                total[e.name][1] += e.time_range.elapsed_us() / 1e3
            for kernel, (count, ms) in sorted(total.items(), key=lambda kv: -kv[1][1]):
                w.writerow([name, precision, batch, kernel, count, f"{ms:.4f}"])
            print(f"{config}: {sum(v[1] for v in total.values()):.2f} ms in {sum(v[0] for v in total.values())} "
                  f"operations", flush=True)
            del model
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
