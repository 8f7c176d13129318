#!/usr/bin/env python3
"""Turn train_steps.py's measurements into the calibration.csv format and a cases file for them.

    python3 tools/measure/to_calibration.py DIR DEVICE

reads DIR/environment.json and train_steps.py's DIR/train_steps*.csv (train_steps.csv,
train_steps-channels-last.csv, train_steps-adam.csv, each where there is one) and writes DIR/calibration.csv
(three rows per configuration: forward_ms, backward_ms and images_per_s for the whole step) and DIR/cases.csv
(the zoo network, the catalog DEVICE, the precision, the layout and the optimizer of each row), ready for
`steptime validate --data DIR/calibration.csv --cases DIR/cases.csv`. The category of a row is
<gpu>_<precision>[_nhwc][_adam]_<role>: role "fit" for the networks train_steps.py set aside for choosing
model constants, "check" for the rest. Each step with a peak allocated memory (those files' and
train_steps-peak-memory.csv's) makes a peak_memory_gib row too, <gpu>_memory_<precision>_<role>, and each
of largest_batch.py's DIR/largest_batch.csv one at its largest batch, <gpu>_memory_full_<precision>_<role>.

Where DIR/conv_layers.csv (conv_layers.py) is, it writes DIR/conv_calibration.csv and DIR/conv_cases.csv
too: one kernel_ms row per network, convolution shape, variant and pass, predicted as a conv2d spec with
that pass as its phase (pad_h and pad_w where they differ: Inception v3's 1x7 and 7x1); category
<gpu>_conv_<precision>_<layout>_<role>.

Where DIR/inference.csv (inference.py) is, it writes DIR/inference_calibration.csv and DIR/inference_cases.csv
from it and DIR/inference-environment.json: one inference_ms row per network, precision and batch, which
`steptime validate` predicts in inference mode; category <gpu>_inference_<precision>_<role>. A folder of
inference.py's alone makes those two files only.
"""
import csv
import json
import os
import sys

PRECISION_TEXT = {"fp32": "FP32 (TF32 off)", "tf32": "TF32 (cuDNN and cuBLAS)",
                  "amp": "AMP (FP16 mixed)", "amp-bf16": "AMP (BF16 mixed)", "fp16": "FP16"}
PASSES = (("forward", "forward_ms"), ("backward-data", "backward_data_ms"), ("backward-weights", "backward_weights_ms"))
# How conv_layers.py timed a row (its timing column; files from before it have none: launched from Python).
TIMING_TEXT = {"eager": "", "graph": " replayed as one CUDA graph"}


# The files of train_steps.py runs whose times become rows, in this order (so that ids stay as they were); the
# peak-memory run's times repeat train_steps.csv's configurations, and only its peaks become rows.
TIMED_FILES = ("train_steps.csv", "train_steps-channels-last.csv", "train_steps-adam.csv")
OPTIMIZER_TEXT = {"momentum": "SGD momentum", "adam": "Adam"}


def optimizer_of(r):
    return r.get("optimizer") or "momentum"  # runs before the optimizer column: train_steps.py's SGD with momentum


def write(folder, name, rows):
    with open(os.path.join(folder, name), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def source_of(env, script):
    return f"steptime tools/measure/{script} on {env['gpu']}, driver {env['driver']}"


def convolutions(folder, device, env, framework, gpu_tag, fit_networks):
    """conv_layers.csv's rows in the calibration format (see the top)."""
    data, cases = [], []
    with open(os.path.join(folder, "conv_layers.csv")) as f:
        rows = list(csv.DictReader(f))

    def pair(key, along_h, along_w):  # the conv2d spec's shared key, or one per dimension
        return f",{key}={along_h}" if along_h == along_w else f",{key}_h={along_h},{key}_w={along_w}"

    for n, r in enumerate(rows, 1):
        precision, layout = r["variant"].split("-")
        role = "fit" if r["network"] in fit_networks else "check"
        spec = (f"conv2d:n={r['n']},h={r['h']},w={r['w']},c={r['c']},k={r['k']},r={r['r']},s={r['s']}"
                + pair("stride", r["stride_h"], r["stride_w"]) + pair("pad", r["pad_h"], r["pad_w"])
                + (f",groups={r['groups']}" if r["groups"] != "1" else ""))
        for k, (phase, column) in enumerate(PASSES):
            rid = f"{gpu_tag.upper()}-C{n:04d}{'fdw'[k]}"
            data.append({
                "id": rid, "category": f"{gpu_tag}_conv_{precision}_{layout}_{role}", "model": r["network"],
                "framework": framework, "gpu": env["gpu"], "num_gpus": 1, "precision": PRECISION_TEXT[precision],
                "batch_per_gpu": r["n"], "metric": "kernel_ms", "value": r[column], "unit": "ms",
                "parallelism": "none", "interconnect": "n/a", "source": source_of(env, "conv_layers.py"),
                "notes": f"{spec} x{r['count']} in {r['network']}; {layout.upper()}; {phase}; mean of repeated launches{TIMING_TEXT[r.get('timing') or 'eager']}"})
            cases.append({"id": rid, "model": spec, "device": device, "precision": precision, "layout": layout,
                          "phase": phase})
    write(folder, "conv_calibration.csv", data)
    write(folder, "conv_cases.csv", cases)
    print(f"{len(data)} convolution rows")


def inference(folder, device, gpu_tag, passes):
    """inference.py's rows (`passes`) in the calibration format (see the top)."""
    fit_networks = {r["network"] for r in passes if r["role"] == "calibrate"}
    env = json.load(open(os.path.join(folder, "inference-environment.json")))
    data, cases = [], []
    for n, r in enumerate(passes, 1):
        rid = f"{gpu_tag.upper()}-I{n:03d}"
        role = "fit" if r["network"] in fit_networks else "check"
        data.append({
            "id": rid, "category": f"{gpu_tag}_inference_{r['precision'].replace('-', '_')}_{role}",
            "model": r["network"], "framework": framework_of(env), "gpu": env["gpu"], "num_gpus": 1,
            "precision": PRECISION_TEXT[r["precision"]], "batch_per_gpu": r["batch"], "metric": "inference_ms",
            "value": r["inference_ms"], "unit": "ms", "parallelism": "none", "interconnect": "n/a",
            "source": source_of(env, "inference.py"),
            "notes": f"{r['resolution']}x{r['resolution']} {r['layout'].upper()}; model.eval(), inference_mode; median "
                     f"of {env['settings']['timed_iterations']} passes; synthetic data on the GPU; cudnn.benchmark"})
        cases.append({"id": rid, "model": r["network"], "device": device, "precision": r["precision"],
                      "layout": r["layout"]})
    write(folder, "inference_calibration.csv", data)
    write(folder, "inference_cases.csv", cases)
    print(f"{len(data)} inference rows")


def framework_of(env):
    return f"PyTorch {env['torch']} (CUDA {env['cuda']}, cuDNN {env['cudnn']})"


def read_steps(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def main(folder, device):
    gpu_tag = device.split("-")[0]
    passes = read_steps(folder, "inference.csv")
    if passes:  # none where every configuration failed or the budget ran out first
        inference(folder, device, gpu_tag, passes)
    if not os.path.exists(os.path.join(folder, "environment.json")):
        return
    env = json.load(open(os.path.join(folder, "environment.json")))
    framework = framework_of(env)
    data, cases = [], []
    steps = [r for name in TIMED_FILES for r in read_steps(folder, name)]
    fit_networks = {r["network"] for r in steps if r["role"] == "calibrate"}

    def role(r):
        return "fit" if r["network"] in fit_networks else "check"

    def precision(r):
        return r["precision"].replace("-", "_")

    # torchvision's AlexNet holds 61.1M weights where the zoo's (alex_v2) holds 50.3M: its memory is another network's.
    peaks = [r for name in TIMED_FILES + ("train_steps-peak-memory.csv",) for r in read_steps(folder, name)
             if r.get("peak_allocated_gib") and r["network"] != "alexnet"]

    def row(rid, category, r, metric, value, unit, notes, script="train_steps.py", autotuner="cudnn.benchmark"):
        data.append({
            "id": rid, "category": category, "model": r["network"], "framework": framework, "gpu": env["gpu"],
            "num_gpus": 1, "precision": PRECISION_TEXT[r["precision"]], "batch_per_gpu": r["batch"], "metric": metric,
            "value": value, "unit": unit, "parallelism": "none", "interconnect": "n/a", "source": source_of(env, script),
            "notes": f"{r['resolution']}x{r['resolution']} {r['layout'].upper()}; {notes}; synthetic data on the GPU; "
                     f"{OPTIMIZER_TEXT[optimizer_of(r)]}; {autotuner}"})
        cases.append({"id": rid, "model": r["network"], "device": device, "precision": r["precision"],
                      "layout": r["layout"], "optimizer": optimizer_of(r)})

    for n, r in enumerate(steps, 1):
        layout = "_nhwc" if r["layout"] == "nhwc" else ""
        adam = "_adam" if optimizer_of(r) == "adam" else ""
        for k, metric in enumerate(("forward_ms", "backward_ms", "images_per_s")):
            row(f"{gpu_tag.upper()}-{n:03d}{'fbs'[k]}", f"{gpu_tag}_{precision(r)}{layout}{adam}_{role(r)}", r,
                metric, r[metric], "images/s" if metric == "images_per_s" else "ms", f"median of {env['settings']['timed_iterations']} steps")
    for n, r in enumerate(peaks, 1):
        row(f"{gpu_tag.upper()}-M{n:03d}", f"{gpu_tag}_memory_{precision(r)}_{role(r)}", r,
            "peak_memory_gib", r["peak_allocated_gib"], "GiB", "peak of the timed steps' tensors (max_memory_allocated)")
    for n, r in enumerate(read_steps(folder, "largest_batch.csv"), 1):  # largest_batch.py's, at the batch that ran
        row(f"{gpu_tag.upper()}-L{n:02d}", f"{gpu_tag}_memory_full_{precision(r)}_{role(r)}",
            {**r, "batch": r["largest_batch"]}, "peak_memory_gib", r["peak_allocated_gib"], "GiB",
            (f"the largest batch that ran (the next, {r['first_failing_batch']}, did not)" if r["first_failing_batch"]
             else "the largest batch tried, which ran") + ": its peak allocated memory",
            "largest_batch.py", "cudnn.benchmark off")
    write(folder, "calibration.csv", data)
    write(folder, "cases.csv", cases)
    print(f"{len(data)} rows")
    if os.path.exists(os.path.join(folder, "conv_layers.csv")):
        convolutions(folder, device, env, framework, gpu_tag, fit_networks)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
