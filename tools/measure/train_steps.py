#!/usr/bin/env python3
"""Measure real training steps of steptime's zoo networks with PyTorch on one GPU.

Each configuration (network, precision, batch) trains on synthetic data already on the GPU: the step
is forward (with the loss), backward and an update (SGD with momentum, or Adam), timed per iteration
with CUDA events between the three. The medians over the timed iterations, the spread of the step
time and the steady steps' peak GPU memory go to one CSV row. No data loader and no host-to-device copy are timed.

    python3 tools/measure/train_steps.py --out DIR [--plan fp32,amp] [--batches 64,128] [--channels-last]
                                         [--optimizer momentum|adam] [--profile] [--budget-s 480]

writes DIR/environment.json (GPU, driver, library versions, host CPU, settings), DIR/ceilings.csv (measured
copy bandwidth, matrix-product rates, launch latency) and DIR/train_steps.csv; with --profile,
DIR/kernels.csv instead: per step, how many GPU operations ran and their summed time, beside the
step time (a step much longer than its GPU work waits on the host). Rows are appended
and flushed as they are measured, so a run stopped at its time limit keeps what it measured.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torchvision.models as tvm
from torchvision.models.resnet import Bottleneck, ResNet

WARMUP = 5  # iterations before timing: cuDNN's autotuner runs on the first
TIMED = 15  # timed iterations; the medians are reported

# network -> (constructor, input resolution): the steptime zoo network of the same name, except that
# torchvision's AlexNet has 256 filters in conv4 where the zoo's (PALEO's alex_v2) has 384.
NETWORKS = {
    "alexnet": (lambda: tvm.alexnet(), 224),
    "vgg11": (lambda: tvm.vgg11(), 224),
    "vgg16": (lambda: tvm.vgg16(), 224),
    "vgg19": (lambda: tvm.vgg19(), 224),
    "inception-v3": (lambda: tvm.inception_v3(aux_logits=False, init_weights=False), 299),
    "resnet18": (lambda: tvm.resnet18(), 224),
    "resnet34": (lambda: tvm.resnet34(), 224),
    "resnet50": (lambda: tvm.resnet50(), 224),
    "resnet101": (lambda: tvm.resnet101(), 224),
    "resnet152": (lambda: tvm.resnet152(), 224),
    "resnext101-32x4d": (lambda: ResNet(Bottleneck, [3, 4, 23, 3], groups=32, width_per_group=4), 224),
    "se-resnext101-32x4d": (lambda: __import__("timm").create_model("seresnext101_32x4d"), 224),
    "densenet121": (lambda: tvm.densenet121(), 224),
}

# Chosen before any measurement: rows of these networks may be used to choose model constants; all
# other rows are kept for checking only.
CALIBRATION_NETWORKS = {"resnet50", "vgg16"}

BATCHES = {name: (32, 64, 128) for name in NETWORKS}
BATCHES["resnet50"] = (8, 16, 32, 64, 128, 256)  # the batch sweep
BATCHES["resnet18"] = (16, 32, 64, 128, 256)


PRECISIONS = ("fp32", "tf32", "amp", "amp-bf16", "fp16")
LAYOUTS = {"nchw": torch.contiguous_format, "nhwc": torch.channels_last}  # the layout column's values


def set_precision(precision):
    """Returns the autocast dtype (None for FP32/TF32) after setting the matmul/convolution modes."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}: expected one of {', '.join(PRECISIONS)}")
    tf32 = precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    return {"amp": torch.float16, "amp-bf16": torch.bfloat16}.get(precision)


OPTIMIZERS = {  # --optimizer: the update rule, each with PyTorch's default (foreach) implementation
    "momentum": lambda params: torch.optim.SGD(params, lr=1e-3, momentum=0.9),
    "adam": lambda params: torch.optim.Adam(params, lr=1e-3),
}


def training_step(model, resolution, batch, precision, memory_format=torch.contiguous_format, optimizer="momentum"):
    """One training step on synthetic data as a function of the CUDA events it records (None: none). Converts
    the model in place to the step's storage: half for fp16 (every layer and the update in FP16, no master
    copy, as `model.half()` trains), float otherwise."""
    dtype = set_precision(precision)
    half = precision == "fp16"
    if half:
        model.half()
    else:
        model.float()
    x = torch.randn(batch, 3, resolution, resolution, device="cuda", dtype=torch.float16 if half else torch.float32)
    x = x.to(memory_format=memory_format)
    y = torch.randint(0, 1000, (batch,), device="cuda")
    loss_fn = nn.CrossEntropyLoss()
    opt = OPTIMIZERS[optimizer](model.parameters())
    scaler = torch.amp.GradScaler("cuda", enabled=dtype == torch.float16)

    def step(ev):
        mark = (lambda i: ev[i].record()) if ev else (lambda i: None)
        opt.zero_grad(set_to_none=True)
        mark(0)
        with torch.autocast("cuda", dtype=dtype or torch.float32, enabled=dtype is not None):
            loss = loss_fn(model(x), y)
        mark(1)
        scaler.scale(loss).backward()
        mark(2)
        scaler.step(opt)
        scaler.update()
        mark(3)

    return step


def timed_iterations(run, events):
    """`run(ev)` WARMUP + TIMED times, each with `events` new CUDA events; the timed iterations' events, completed.
    The peak memory counters start after warm-up: the steady iterations' tensors, and what the caching allocator
    holds for them."""
    times = []
    for it in range(WARMUP + TIMED):
        if it == WARMUP:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(events)]
        run(ev)
        if it >= WARMUP:
            times.append(ev)
    torch.cuda.synchronize()
    return times


def measure(model, resolution, batch, precision, memory_format=torch.contiguous_format, optimizer="momentum"):
    times = timed_iterations(training_step(model, resolution, batch, precision, memory_format, optimizer), 4)
    fwd = [e[0].elapsed_time(e[1]) for e in times]
    bwd = [e[1].elapsed_time(e[2]) for e in times]
    upd = [e[2].elapsed_time(e[3]) for e in times]
    step_ms = sorted(e[0].elapsed_time(e[3]) for e in times)
    return {
        "forward_ms": statistics.median(fwd),
        "backward_ms": statistics.median(bwd),
        "optimizer_ms": statistics.median(upd),
        "step_ms": statistics.median(step_ms),
        "step_ms_min": step_ms[0],
        "step_ms_max": step_ms[-1],
        "peak_allocated_gib": torch.cuda.max_memory_allocated() / 2**30,
        "peak_reserved_gib": torch.cuda.max_memory_reserved() / 2**30,
    }


def gpu_events(model, resolution, batch, precision, memory_format=torch.contiguous_format):
    """The GPU work (kernels, copies, sets) of one profiled step after warm-up, as profiler events."""
    from torch.profiler import ProfilerActivity, profile

    step = training_step(model, resolution, batch, precision, memory_format)
    for _ in range(WARMUP):
        step(None)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step(None)
        torch.cuda.synchronize()
    return [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]


def kernel_profile(model, resolution, batch, precision, memory_format=torch.contiguous_format):
    """How many GPU operations one step runs, and their summed time (ms)."""
    gpu = gpu_events(model, resolution, batch, precision, memory_format)
    return len(gpu), sum(e.time_range.elapsed_us() for e in gpu) / 1e3


def timed(fn, reps=20):
    """Seconds per call of `fn`, back to back after 3 warm-up calls."""
    for _ in range(3):
        fn()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        fn()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) / reps / 1e3


def copy_bandwidth():
    """Bytes read and written per second by a 1 GiB device-to-device copy."""
    src = torch.randn(1 << 28, device="cuda")
    dst = torch.empty_like(src)
    return 2 * src.numel() * 4 / timed(lambda: dst.copy_(src))


def ceilings():
    """The device's own ceilings, measured once: copy bandwidth, matrix-product rates, launch latency."""
    rows = [("copy_bandwidth", copy_bandwidth() / 1e9, "GB/s", "1 GiB device-to-device copy; bytes read + written")]
    n = 8192
    for name, dtype, tf32 in (("matmul_fp32", torch.float32, False), ("matmul_tf32", torch.float32, True),
                              ("matmul_fp16", torch.float16, False), ("matmul_bf16", torch.bfloat16, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a, b = torch.randn(n, n, device="cuda", dtype=dtype), torch.randn(n, n, device="cuda", dtype=dtype)
        t = timed(lambda: a @ b, reps=10)
        rows.append((name, 2 * n**3 / t / 1e12, "TFLOP/s", f"{n}x{n}x{n} product, random data"))
    torch.backends.cuda.matmul.allow_tf32 = False
    tiny = torch.randn(1, device="cuda")
    t = timed(lambda: tiny.add_(1.0), reps=2000)
    rows.append(("launch_interval", t * 1e6, "us", "back-to-back 1-element add_ launches from Python (eager)"))
    return rows


def csv_appender(path, fields):
    """A file open to append rows of `fields` to `path`, and its DictWriter; the header first in a new file."""
    new = not os.path.exists(path)
    f = open(path, "a", newline="")
    w = csv.DictWriter(f, fieldnames=fields)
    if new:
        w.writeheader()
    return f, w


def measure_batches(what, batches, measure_row, f, w, start, budget_s):
    """Writes `measure_row(batch)`, a CSV row, for each batch to `w` and flushes `f`, until `budget_s` seconds past
    `start`; False once they are spent. A batch that fails (out of memory, say) is reported and records nothing."""
    for batch in batches:
        if time.monotonic() - start > budget_s:
            print(f"budget spent: stopped before {what} {batch}", flush=True)
            return False
        try:
            row = measure_row(batch)
        except Exception as e:
            print(f"{what} {batch}: failed: {e!r}", flush=True)
            torch.cuda.empty_cache()
            continue
        w.writerow(row)
        f.flush()
        print(f"{time.monotonic() - start:6.0f}s", *row.values(), flush=True)
    return True


def host():
    """The CPU that issues the kernels: a host-bound step's time is its dispatch (steptime's --host-dispatch)."""
    def first(path, key=None):
        try:
            with open(path) as f:
                lines = [line for line in f if key is None or line.startswith(key)]
            return lines[0].split(":", 1)[-1].strip() if lines else "unknown"
        except OSError:
            return "unknown"

    max_khz = first("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
    return {"cpu": first("/proc/cpuinfo", "model name"), "logical_cpus": os.cpu_count(),
            "max_mhz": int(max_khz) // 1000 if max_khz.isdigit() else "unknown"}


def environment(optimizer, channels_last=False):
    def smi(query):
        try:
            return subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                                  capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError) as e:
            return f"unavailable: {e}"

    p = torch.cuda.get_device_properties(0)
    return {
        "gpu": torch.cuda.get_device_name(0),
        "sm_count": p.multi_processor_count,
        "memory_gib": round(p.total_memory / 2**30, 1),
        "driver": smi("driver_version"),
        "clocks_and_power": smi("clocks.sm,clocks.max.sm,clocks.mem,power.limit,pstate"),
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "torchvision": __import__("torchvision").__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "host": host(),
        "settings": {
            "cudnn.benchmark": True,
            "memory_format": "NHWC (torch.channels_last)" if channels_last else "NCHW (contiguous)",
            "optimizer": {"momentum": "torch.optim.SGD(lr=1e-3, momentum=0.9)",
                          "adam": "torch.optim.Adam(lr=1e-3)"}[optimizer] + ", default foreach implementation",
            "loss": "CrossEntropyLoss over 1000 classes, random labels; counted in the forward time",
            "fp32": "allow_tf32 off for cuDNN and cuBLAS",
            "tf32": "allow_tf32 on for cuDNN and cuBLAS",
            "amp": "torch.autocast(float16) and GradScaler (its unscale and step count as optimizer)",
            "amp-bf16": "torch.autocast(bfloat16), no scaler",
            "fp16": "model.half() and a half input: FP16 weights, activations and update, no scaler",
            "warmup_iterations": WARMUP,
            "timed_iterations": TIMED,
            "timing": "CUDA events before forward, after the loss, after backward, after the update; "
                      "per-iteration differences; medians over the timed iterations",
            "data": "synthetic torch.randn input and random labels resident on the GPU",
        },
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--plan", default="fp32,amp", help="precisions, in order: fp32, tf32, amp, amp-bf16, fp16")
    ap.add_argument("--networks", default=",".join(NETWORKS))
    ap.add_argument("--budget-s", type=float, default=480, help="start no configuration after this")
    ap.add_argument("--batches", type=lambda v: [int(b) for b in v.split(",")], help="instead of the plan's")
    ap.add_argument("--profile", action="store_true",
                    help="write kernels.csv: per step, GPU operations and their summed time beside the step time")
    ap.add_argument("--skip-ceilings", action="store_true")
    ap.add_argument("--optimizer", choices=OPTIMIZERS, default="momentum")
    ap.add_argument("--channels-last", action="store_true", help="NHWC activations and weights (layout column nhwc)")
    args = ap.parse_args()
    if unknown := [p for p in args.plan.split(",") if p not in PRECISIONS]:
        ap.error(f"--plan: {', '.join(unknown)}: expected precisions of {', '.join(PRECISIONS)}")
    start = time.monotonic()
    layout = LAYOUTS["nhwc" if args.channels_last else "nchw"]
    os.makedirs(args.out, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    with open(os.path.join(args.out, "environment.json"), "w") as f:
        json.dump(environment(args.optimizer, args.channels_last), f, indent=2)
    if not args.skip_ceilings:
        with open(os.path.join(args.out, "ceilings.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["quantity", "value", "unit", "how"])
            for r in ceilings():
                w.writerow([r[0], f"{r[1]:.4g}", r[2], r[3]])
                print(*r, flush=True)
    if args.profile:
        fields = ["network", "precision", "batch", "step_ms", "gpu_busy_ms", "gpu_ops"]
        path = os.path.join(args.out, "kernels.csv")
    else:
        fields = ["network", "precision", "batch", "resolution", "layout", "optimizer", "role", "forward_ms", "backward_ms",
                  "optimizer_ms", "step_ms", "step_ms_min", "step_ms_max", "peak_allocated_gib", "peak_reserved_gib",
                  "images_per_s"]
        path = os.path.join(args.out, "train_steps.csv")
    f, w = csv_appender(path, fields)
    with f:
        for name in args.networks.split(","):
            build, resolution = NETWORKS[name]
            try:
                model = build().cuda().train().to(memory_format=layout)
            except Exception as e:  # a missing package or constructor: say so and go on
                print(f"{name}: cannot build: {e!r}", flush=True)
                continue
            for precision in args.plan.split(","):
                def step_row(batch):
                    r = measure(model, resolution, batch, precision, layout, args.optimizer)
                    if args.profile:
                        ops, busy = kernel_profile(model, resolution, batch, precision, layout)
                        return {"network": name, "precision": precision, "batch": batch,
                                "step_ms": f"{r['step_ms']:.3f}", "gpu_busy_ms": f"{busy:.3f}", "gpu_ops": ops}
                    return {"network": name, "precision": precision, "batch": batch, "resolution": resolution,
                            "layout": "nhwc" if args.channels_last else "nchw", "optimizer": args.optimizer,
                            "role": "calibrate" if name in CALIBRATION_NETWORKS else "check",
                            **{k: f"{v:.3f}" for k, v in r.items()},
                            "images_per_s": f"{batch / r['step_ms'] * 1e3:.1f}"}

                if not measure_batches(f"{name} {precision}", args.batches or BATCHES[name], step_row, f, w, start,
                                       args.budget_s):
                    return
            del model
            torch.cuda.empty_cache()

if __name__ == "__main__":
    main()
