"""Checks `steptime validate --host-overhead`: the host's time per training step, charged with the weight update,
lengthens every step row (a training throughput, images/s or TFLOP/s per GPU) by exactly that time and leaves
the rows that time passes, kernels, an all-reduce or an inference pass as they were (the option's definition);
peak-memory rows are not times.
Usage: validate_host_overhead.py STEPTIME DATA CASES [DATA CASES ...]"""
import csv
import json
import math
import subprocess
import sys

cli, files = sys.argv[1], sys.argv[2:]
overhead_ms = 5.0
step_metrics = {"images_per_s", "tflops_per_gpu"}


def predicted(data, cases, *extra):
    out = subprocess.run([cli, "validate", "--data", data, "--cases", cases, "--format", "json", *extra],
                         check=True, capture_output=True, text=True).stdout
    return {r["id"]: r["predicted_ms"] for r in json.loads(out)["rows"] if "predicted_ms" in r}


counts = {"step": 0, "other": 0}
for data, cases in zip(files[::2], files[1::2]):
    metric = {r["id"]: r["metric"] for r in csv.DictReader(open(data))}
    before, after = predicted(data, cases), predicted(data, cases, "--host-overhead", f"{overhead_ms}ms")
    for row, ms in before.items():
        kind = "step" if metric[row] in step_metrics else "other"
        expected = ms + (overhead_ms if kind == "step" else 0)
        if not math.isclose(after[row], expected, rel_tol=1e-12):
            sys.exit(f"{row} ({metric[row]}): {after[row]!r} ms with --host-overhead, expected {expected!r}")
        counts[kind] += 1
if not counts["step"] or not counts["other"]:
    sys.exit(f"expected rows of both kinds: {counts}")
print(f"{counts['step']} step rows {overhead_ms} ms longer, {counts['other']} other rows unchanged")
