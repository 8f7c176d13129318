#!/usr/bin/env python3
"""Measure forward passes in inference mode of steptime's zoo networks with PyTorch on one GPU.

What `steptime predict --inference` predicts: `model.eval()` (batch norm over its running statistics,
dropout off) and one forward pass under `torch.inference_mode()` (no autograd graph, no loss), on synthetic
data already on the GPU, timed per iteration with CUDA events, after warm-up (cuDNN's autotuner runs on
the first). The median over the timed iterations, the spread and the steady passes' peak GPU memory go to
one CSV row. Precisions: fp32 (TF32 off), tf32, amp (torch.autocast to FP16 over FP32 weights) and fp16
(`model.half()` and a half input: every layer in FP16, as a converted network runs).

    python3 tools/measure/inference.py --out DIR [--plan fp32,amp,fp16] [--batches 1,8,64] [--budget-s 300]

writes DIR/inference-environment.json (GPU, driver, library versions, host CPU, settings) and DIR/inference.csv; rows
are flushed as they are measured, so a run stopped at its time limit keeps what it measured.
`to_calibration.py DIR DEVICE` turns them into inference_ms rows.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_steps import (CALIBRATION_NETWORKS, NETWORKS, TIMED, WARMUP, csv_appender, environment,  # noqa: E402
                         measure_batches, set_precision, timed_iterations)

BATCHES = (1, 8, 32, 128)  # batch 1 is a latency (the host's dispatch binds), 128 a throughput

SETTINGS = {
    "cudnn.benchmark": True,
    "memory_format": "NCHW (contiguous)",
    "mode": "model.eval() and torch.inference_mode(): batch norm over running statistics, dropout off, no loss",
    "fp32": "allow_tf32 off for cuDNN and cuBLAS",
    "tf32": "allow_tf32 on for cuDNN and cuBLAS",
    "amp": "torch.autocast(float16) over FP32 weights",
    "amp-bf16": "torch.autocast(bfloat16) over FP32 weights",
    "fp16": "model.half() and a half input",
    "warmup_iterations": WARMUP,
    "timed_iterations": TIMED,
    "timing": "CUDA events around each forward pass; the median over the timed iterations",
    "data": "synthetic torch.randn input resident on the GPU",
}


def inference_pass(model, resolution, batch, precision):
    """One timed forward pass as a function of the two CUDA events it records."""
    dtype = set_precision(precision)
    half = precision == "fp16"
    x = torch.randn(batch, 3, resolution, resolution, device="cuda", dtype=torch.float16 if half else torch.float32)

    def run(ev):
        with torch.inference_mode(), torch.autocast("cuda", dtype=dtype or torch.float32, enabled=dtype is not None):
            ev[0].record()
            model(x)
            ev[1].record()

    return run


def measure(model, resolution, batch, precision):
    times = timed_iterations(inference_pass(model, resolution, batch, precision), 2)
    ms = sorted(a.elapsed_time(b) for a, b in times)
    return {"inference_ms": statistics.median(ms), "inference_ms_min": ms[0], "inference_ms_max": ms[-1],
            "peak_allocated_gib": torch.cuda.max_memory_allocated() / 2**30}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--plan", default="fp32,amp,fp16", help="precisions, in order: fp32, tf32, amp, amp-bf16, fp16")
    ap.add_argument("--networks", default=",".join(NETWORKS))
    ap.add_argument("--batches", type=lambda v: [int(b) for b in v.split(",")], default=list(BATCHES))
    ap.add_argument("--budget-s", type=float, default=300, help="start no configuration after this")
    args = ap.parse_args()
    start = time.monotonic()
    os.makedirs(args.out, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    with open(os.path.join(args.out, "inference-environment.json"), "w") as f:
        json.dump({**environment("momentum"), "settings": SETTINGS}, f, indent=2)
    fields = ["network", "precision", "batch", "resolution", "layout", "role", "inference_ms", "inference_ms_min",
              "inference_ms_max", "peak_allocated_gib", "images_per_s"]
    f, w = csv_appender(os.path.join(args.out, "inference.csv"), fields)
    with f:
        for name in args.networks.split(","):
            build, resolution = NETWORKS[name]
            for precision in args.plan.split(","):
                try:
                    model = build().cuda().eval()
                    if precision == "fp16":
                        model = model.half()
                except Exception as e:  # a missing package or constructor: say so and go on
                    print(f"{name}: cannot build: {e!r}", flush=True)
                    break

                def pass_row(batch):
                    r = measure(model, resolution, batch, precision)
                    return {"network": name, "precision": precision, "batch": batch, "resolution": resolution,
                            "layout": "nchw", "role": "calibrate" if name in CALIBRATION_NETWORKS else "check",
                            **{k: f"{v:.3f}" for k, v in r.items()},
                            "images_per_s": f"{batch / r['inference_ms'] * 1e3:.1f}"}

                if not measure_batches(f"{name} {precision}", args.batches, pass_row, f, w, start, args.budget_s):
                    return
                del model
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
