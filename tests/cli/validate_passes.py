"""Checks validate's metrics forward_backward_ms and inference_ms: each forward_backward_ms row of a validation set
is predicted as `predict`'s forward plus backward pass of the same case (no weight update), each forward_ms row as
the forward pass alone, and each inference_ms row as `predict --inference`'s forward pass. Every row of the set is checked; its cases name the model, device, precision and library.
Usage: validate_passes.py STEPTIME SET_DIR"""
import csv
import json
import math
import subprocess
import sys

cli, folder = sys.argv[1:3]


def run(*args):
    return subprocess.run([cli, *args], check=True, capture_output=True, text=True).stdout


rows = json.loads(run("validate", "--data", f"{folder}/calibration.csv", "--cases", f"{folder}/cases.csv",
                      "--format", "json"))["rows"]
with open(f"{folder}/calibration.csv") as f:
    metric = {r["id"]: r["metric"] for r in csv.DictReader(f)}
with open(f"{folder}/cases.csv") as f:
    cases = {r["id"]: r for r in csv.DictReader(line for line in f if not line.startswith("#"))}
checked = 0
for r in rows:
    c = cases[r["id"]]
    inference = metric[r["id"]] == "inference_ms"
    step = json.loads(run("predict", "-m", c["model"], "-d", c["device"], "-b", str(r["batch"]), "--precision",
                          c["precision"], "--library", c["library"], "--format", "json",
                          *(["--inference"] if inference else [])))
    if step["inference"] != inference or (inference and (step["backward_s"] != 0 or step["update_s"] != 0)):
        sys.exit(f"{r['id']}: predict --inference ran {step['inference']}, backward {step['backward_s']} s")
    passes = {"forward_ms": step["forward_s"], "inference_ms": step["forward_s"],
              "forward_backward_ms": step["forward_s"] + step["backward_s"]}
    expected = 1e3 * passes[metric[r["id"]]]
    if not math.isclose(r["predicted_ms"], expected, rel_tol=1e-9):
        sys.exit(f"{r['id']} ({metric[r['id']]}): validate {r['predicted_ms']!r} ms, predict {expected!r} ms")
    checked += 1
print(f"{checked} rows: validate's passes are predict's")
