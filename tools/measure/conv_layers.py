#!/usr/bin/env python3
"""Time every distinct convolution of steptime's zoo networks alone, pass by pass, with PyTorch on one GPU.

The convolutions of each network (torchvision's, as in train_steps.py) are found by running it once on a
meta device; each distinct shape is then timed at the batch given: forward (F.conv2d), the data gradient
and the weight gradient (aten.convolution_backward with one output each), as CUDA-event means over
repeated launches after warm-up, cudnn.benchmark on. No bias, as in the zoo's convolutions that batch norm
follows; a network's biased convolutions are timed without theirs (the framework adds it in kernels of its
own, which steptime models apart).

--timing graph (the default) captures the repeated launches in one CUDA graph and times its replay: the
GPU's time alone. --timing eager launches them from Python, as the 2026-11-23 H100 run did: a kernel
shorter than the host's time per call (15.5 us forward, 21-27 us for the gradients there) then times the
host instead.

    python3 tools/measure/conv_layers.py --out DIR [--networks resnet50,vgg16] [--batch 64]
                                         [--variants fp32-nchw,tf32-nchw,fp16-nchw,fp16-nhwc] [--budget-s 300]
                                         [--timing graph|eager]

writes DIR/conv_layers.csv: one row per network, shape and variant, with how many times the network holds
that shape, its forward FLOPs (2 x multiply-adds), the three times in ms and how they were timed. Rows are
flushed as they are measured, so a run stopped at its time limit keeps what it measured.
"""
import argparse
import csv
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_steps import NETWORKS  # noqa: E402  the same constructors and resolutions

WARMUP, REPS = 3, 10


def conv_shapes(name):
    """(in shape, conv module attributes) of each convolution of a network, counted."""
    make, resolution = NETWORKS[name]
    with torch.device("meta"):
        model = make()
    found = {}

    def hook(module, inputs, _):
        _, c, h, w = inputs[0].shape
        key = (c, h, w, module.out_channels, *module.kernel_size, *module.stride, *module.padding, module.groups)
        found[key] = found.get(key, 0) + 1

    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            m.register_forward_hook(hook)
    model.eval()(torch.empty(1, 3, resolution, resolution, device="meta"))
    return found


def timed_ms(fn, timing):
    """fn's mean time over REPS launches after WARMUP, launched from Python or replayed as one CUDA graph."""
    side = torch.cuda.Stream()  # warm up where the capture runs: cudnn.benchmark chooses outside the graph
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(WARMUP):
            fn()
    torch.cuda.current_stream().wait_stream(side)

    def run():
        for _ in range(REPS):
            fn()

    if timing == "graph":
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            run()
        graph.replay()  # its first replay uploads it
        run = graph.replay
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    run()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / REPS


def time_conv(batch, shape, variant, timing):
    c, h, w, k, r, s, sh, sw, ph, pw, groups = shape
    precision, layout = variant.split("-")
    torch.backends.cudnn.allow_tf32 = precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    dtype = torch.float16 if precision == "fp16" else torch.float32
    fmt = torch.channels_last if layout == "nhwc" else torch.contiguous_format
    x = torch.randn(batch, c, h, w, device="cuda", dtype=dtype).to(memory_format=fmt)
    wt = torch.randn(k, c // groups, r, s, device="cuda", dtype=dtype).to(memory_format=fmt)
    conv = lambda: F.conv2d(x, wt, None, (sh, sw), (ph, pw), 1, groups)  # noqa: E731
    y = conv()
    dy = torch.randn_like(y)

    def backward(mask):
        return lambda: torch.ops.aten.convolution_backward(dy, x, wt, None, (sh, sw), (ph, pw), (1, 1), False,
                                                           (0, 0), groups, mask)

    return tuple(timed_ms(fn, timing) for fn in (conv, backward([True, False, False]), backward([False, True, False])))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--networks", default="resnet50,vgg16,resnet18,alexnet,inception-v3")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--variants", default="fp32-nchw,tf32-nchw,fp16-nchw,fp16-nhwc")
    ap.add_argument("--budget-s", type=float, default=300, help="start no shape after this")
    ap.add_argument("--timing", choices=["graph", "eager"], default="graph",
                    help="replay the launches as one CUDA graph (the GPU's time) or launch them from Python")
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    os.makedirs(args.out, exist_ok=True)
    fields = ["network", "count", "n", "c", "h", "w", "k", "r", "s", "stride_h", "stride_w", "pad_h", "pad_w",
              "groups", "variant", "forward_flops", "forward_ms", "backward_data_ms", "backward_weights_ms", "timing"]
    start = time.monotonic()
    with open(os.path.join(args.out, "conv_layers.csv"), "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=fields)
        out.writeheader()
        for name in args.networks.split(","):
            for shape, count in conv_shapes(name).items():
                if time.monotonic() - start > args.budget_s:
                    print(f"budget spent: stopped in {name}", flush=True)
                    return
                c, h, w, k, r, s, sh, sw, ph, pw, groups = shape
                ho, wo = (h + 2 * ph - r) // sh + 1, (w + 2 * pw - s) // sw + 1
                flops = 2 * args.batch * ho * wo * k * (c // groups) * r * s
                for variant in args.variants.split(","):
                    fwd, dgrad, wgrad = time_conv(args.batch, shape, variant, args.timing)
                    out.writerow(dict(zip(fields, [name, count, args.batch, *shape, variant, flops,
                                                   f"{fwd:.4f}", f"{dgrad:.4f}", f"{wgrad:.4f}", args.timing])))
                    f.flush()
                    print(f"{time.monotonic() - start:6.0f}s {name} {shape} x{count} {variant} "
                          f"{fwd:.3f} {dgrad:.3f} {wgrad:.3f} ms", flush=True)


if __name__ == "__main__":
    main()
