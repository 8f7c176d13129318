#!/usr/bin/env python3
"""Turn train_steps.py's measurements into the calibration.csv format and a cases file for them.

    python3 tools/measure/to_calibration.py DIR DEVICE

reads DIR/environment.json and DIR/train_steps*.csv (train_steps.csv, then train_steps-channels-last.csv
where there is one) and writes DIR/calibration.csv (three rows per configuration: forward_ms,
backward_ms and images_per_s for the whole step) and DIR/cases.csv (the zoo network, the catalog DEVICE,
the precision, the layout and the optimizer of each row), ready for
`steptime validate --data DIR/calibration.csv --cases DIR/cases.csv`. The category of a row is
<gpu>_<precision>[_nhwc]_<role>: role "fit" for the networks train_steps.py set aside for choosing model
constants, "check" for the rest.
"""
import csv
import json
import os
import sys

PRECISION_TEXT = {"fp32": "FP32 (TF32 off)", "tf32": "TF32 (cuDNN and cuBLAS)",
                  "amp": "AMP (FP16 mixed)", "amp-bf16": "AMP (BF16 mixed)"}


def main(folder, device):
    env = json.load(open(os.path.join(folder, "environment.json")))
    framework = f"PyTorch {env['torch']} (CUDA {env['cuda']}, cuDNN {env['cudnn']})"
    source = f"steptime tools/measure/train_steps.py on {env['gpu']}, driver {env['driver']}"
    gpu_tag = device.split("-")[0]
    data, cases = [], []
    steps = []
    for name in ("train_steps.csv", "train_steps-channels-last.csv"):
        if os.path.exists(os.path.join(folder, name)):
            with open(os.path.join(folder, name)) as f:
                steps += list(csv.DictReader(f))
    for n, r in enumerate(steps, 1):
        role = "fit" if r["role"] == "calibrate" else "check"
        layout = "_nhwc" if r["layout"] == "nhwc" else ""
        for k, metric in enumerate(("forward_ms", "backward_ms", "images_per_s")):
            rid = f"{gpu_tag.upper()}-{n:03d}{'fbs'[k]}"
            data.append({
                "id": rid, "category": f"{gpu_tag}_{r['precision'].replace('-', '_')}{layout}_{role}",
                "model": r["network"], "framework": framework, "gpu": env["gpu"], "num_gpus": 1,
                "precision": PRECISION_TEXT[r["precision"]], "batch_per_gpu": r["batch"], "metric": metric,
                "value": r[metric], "unit": "images/s" if metric == "images_per_s" else "ms",
                "parallelism": "none", "interconnect": "n/a", "source": source,
                "notes": f"{r['resolution']}x{r['resolution']} {r['layout'].upper()}; median of {env['settings']['timed_iterations']} "
                         f"steps; synthetic data on the GPU; SGD momentum; cudnn.benchmark"})
            cases.append({"id": rid, "model": r["network"], "device": device, "precision": r["precision"],
                          "layout": r["layout"], "optimizer": "momentum"})  # train_steps.py's SGD with momentum
    for name, rows in (("calibration.csv", data), ("cases.csv", cases)):
        with open(os.path.join(folder, name), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    print(f"{len(data)} rows")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
