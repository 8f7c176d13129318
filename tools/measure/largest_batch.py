#!/usr/bin/env python3
"""Find the largest batch whose training step fits one GPU's memory, for steptime's zoo networks.

For each network and precision, batches double from 64 until a step runs out of memory, then bisection
finds the largest batch whose steps (two: the first creates the optimizer's state) run, as
train_steps.py builds them (synthetic data on the GPU, SGD with momentum or Adam, autocast and
GradScaler for amp). cudnn.benchmark is off: cuDNN's heuristics choose each convolution's algorithm,
so that no trial of the autotuner's decides whether a batch fits.

    python3 tools/measure/largest_batch.py --out DIR [--plan fp32,amp] [--networks resnet50,...]
                                           [--optimizer momentum|adam] [--budget-s 480]

writes DIR/largest_batch.csv: per network and precision the largest batch that ran, the smallest that
did not, the peak allocated and reserved memory of the largest, and the memory the device reports.
Rows are flushed as they are found, so a run stopped at its time limit keeps them.
"""
import argparse
import gc
import os
import time

import torch

from train_steps import NETWORKS, OPTIMIZERS, csv_appender, training_step

FIRST = 64  # the first batch tried; every zoo network fits it on a data-centre GPU
MOST = 8192  # no batch above this is tried


def fits(model, resolution, batch, precision, optimizer):
    """Whether two training steps of `batch` run, with the peak allocated and reserved memory (GiB); leaves
    nothing allocated behind it."""
    torch.cuda.reset_peak_memory_stats()
    try:
        step = training_step(model, resolution, batch, precision, optimizer=optimizer)
        for _ in range(2):
            step(None)
        torch.cuda.synchronize()
        ok = True
    except torch.OutOfMemoryError:
        ok = False
    step = None
    peaks = torch.cuda.max_memory_allocated() / 2**30, torch.cuda.max_memory_reserved() / 2**30
    model.zero_grad(set_to_none=True)
    gc.collect()
    torch.cuda.empty_cache()
    return ok, peaks


def largest(model, resolution, precision, optimizer):
    """(largest batch that ran, its peaks, smallest batch that did not), by doubling and then bisection."""
    lo, lo_peaks, hi = 0, (0.0, 0.0), None
    b = FIRST
    while hi is None and b <= MOST:
        ok, peaks = fits(model, resolution, b, precision, optimizer)
        if ok:
            lo, lo_peaks, b = b, peaks, 2 * b
        else:
            hi = b
    if hi is None:
        return lo, lo_peaks, None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        ok, peaks = fits(model, resolution, mid, precision, optimizer)
        if ok:
            lo, lo_peaks = mid, peaks
        else:
            hi = mid
    return lo, lo_peaks, hi


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--plan", default="fp32,amp", help="precisions: fp32, tf32, amp, amp-bf16, fp16")
    ap.add_argument("--networks", default="resnet50,vgg16")
    ap.add_argument("--optimizer", choices=OPTIMIZERS, default="momentum")
    ap.add_argument("--budget-s", type=float, default=480, help="start no search after this")
    args = ap.parse_args()
    start = time.monotonic()
    torch.backends.cudnn.benchmark = False
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "largest_batch.csv")
    device_gib = torch.cuda.get_device_properties(0).total_memory / 2**30
    f, w = csv_appender(path, ["network", "precision", "resolution", "layout", "optimizer", "largest_batch",
                               "first_failing_batch", "peak_allocated_gib", "peak_reserved_gib", "device_memory_gib"])
    with f:
        for name in args.networks.split(","):
            build, resolution = NETWORKS[name]
            model = build().cuda().train()
            for precision in args.plan.split(","):
                if time.monotonic() - start > args.budget_s:
                    print(f"budget spent: stopped before {name} {precision}", flush=True)
                    return
                batch, (allocated, reserved), failing = largest(model, resolution, precision, args.optimizer)
                row = {"network": name, "precision": precision, "resolution": resolution, "layout": "nchw",
                       "optimizer": args.optimizer, "largest_batch": batch, "first_failing_batch": failing or "",
                       "peak_allocated_gib": f"{allocated:.3f}", "peak_reserved_gib": f"{reserved:.3f}",
                       "device_memory_gib": f"{device_gib:.3f}"}
                w.writerow(row)
                f.flush()
                print(f"{time.monotonic() - start:6.0f}s", *row.values(), flush=True)
            del model
            gc.collect()
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
