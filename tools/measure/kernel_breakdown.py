#!/usr/bin/env python3
"""Where a real training step spends its GPU time: every kernel of one profiled step, summed by name.

    python3 tools/measure/kernel_breakdown.py --out DIR resnet50:fp32:256 vgg16:amp:128 resnet50:tf32:256:nhwc ...

writes DIR/kernel_breakdown.csv (network, precision, batch, layout, kernel, count, total_ms), after warm-up,
for the same training step as train_steps.py; a configuration's layout is nchw unless it ends in :nhwc
(channels last, as train_steps.py --channels-last).
"""
import argparse
import collections
import csv
import os

import torch

from train_steps import LAYOUTS, NETWORKS, PRECISIONS, gpu_events


def configuration(text):
    """(network, precision, batch, layout) of a network:precision:batch[:layout] argument, or what is wrong."""
    fields = text.split(":")
    if not 3 <= len(fields) <= 4:
        raise ValueError(f"{len(fields)} fields, expected network:precision:batch[:nchw|:nhwc]")
    name, precision, batch, layout = fields + ["nchw"] * (4 - len(fields))
    if name not in NETWORKS:
        raise ValueError(f"network {name!r}, expected one of train_steps.py's: {', '.join(NETWORKS)}")
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}, expected one of {', '.join(PRECISIONS)}")
    if not batch.isdigit() or int(batch) < 1:
        raise ValueError(f"batch {batch!r}, expected a positive whole number")
    if layout not in LAYOUTS:
        raise ValueError(f"layout {layout!r}, expected {' or '.join(LAYOUTS)}")
    return name, precision, int(batch), layout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("configs", nargs="+", help="network:precision:batch[:nchw|:nhwc]")
    args = ap.parse_args()
    configs = []
    for config in args.configs:  # all checked before the GPU starts
        try:
            configs.append((config, *configuration(config)))
        except ValueError as e:
            ap.error(f"{config}: {e}")
    torch.backends.cudnn.benchmark = True
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "kernel_breakdown.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["network", "precision", "batch", "layout", "kernel", "count", "total_ms"])
        for config, name, precision, batch, layout in configs:
            build, resolution = NETWORKS[name]
            model = build().cuda().train().to(memory_format=LAYOUTS[layout])
            total = collections.defaultdict(lambda: [0, 0.0])
            for e in gpu_events(model, resolution, batch, precision, LAYOUTS[layout]):
                total[e.name][0] += 1
                total[e.name][1] += e.time_range.elapsed_us() / 1e3
            for kernel, (count, ms) in sorted(total.items(), key=lambda kv: -kv[1][1]):
                w.writerow([name, precision, batch, layout, kernel, count, f"{ms:.4f}"])
            print(f"{config}: {sum(v[1] for v in total.values()):.2f} ms in {sum(v[0] for v in total.values())} "
                  f"operations", flush=True)
            del model
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
