"""Checks `steptime validate` on peak-memory rows (metric peak_memory_gib): each row's predicted GiB is the
footprint `steptime predict` gives the same network, device, batch, precision, layout and optimizer, and its
error is that over the measured GiB. Usage: validate_memory.py STEPTIME DATA CASES"""
import csv
import json
import math
import subprocess
import sys

cli, data, cases = sys.argv[1:4]
out = subprocess.run([cli, "validate", "--data", data, "--cases", cases, "--format", "json"],
                     check=True, capture_output=True, text=True).stdout
rows = [r for r in json.loads(out)["rows"] if "measured_gib" in r]
batch = {r["id"]: r["batch_per_gpu"] for r in csv.DictReader(open(data))}
case = {c["id"]: c for c in csv.DictReader(open(cases))}
if not rows:
    sys.exit("no peak_memory_gib row")
for r in rows[:8]:  # a few are enough: each runs predict once
    c = case[r["id"]]
    p = json.loads(subprocess.run(
        [cli, "predict", "--model", c["model"], "--device", c["device"], "--batch", batch[r["id"]], "--precision",
         c["precision"], "--layout", c["layout"], "--optimizer", c["optimizer"], "--format", "json"],
        check=True, capture_output=True, text=True).stdout)
    gib = p["memory"]["total_bytes"] / 2**30
    if not math.isclose(r["predicted_gib"], gib, rel_tol=1e-9):
        sys.exit(f"{r['id']}: validate predicts {r['predicted_gib']} GiB, predict {gib}")
    if not math.isclose(r["error"], gib / r["measured_gib"] - 1, rel_tol=1e-9, abs_tol=1e-12):
        sys.exit(f"{r['id']}: error {r['error']}, expected {gib / r['measured_gib'] - 1}")
print(f"{min(len(rows), 8)} of {len(rows)} peak-memory rows as predict's footprint")
