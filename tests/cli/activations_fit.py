"""Fails unless, at the batch each row of a measured set ran (Lambda's: the largest its GPU held), the step's
activation_bytes fit in the GPU's memory, and prints the range of their share. The memory is the `gpu` column's
"NN GB" where it names one (the V100 of 32 GB that runs as the catalog's 16 GB PCIe board), else the catalog's.
Usage: activations_fit.py STEPTIME DATA CASES"""
import csv
import json
import re
import subprocess
import sys

cli, data, cases = sys.argv[1:4]
catalog = {}
for line in subprocess.run([cli, "devices"], check=True, capture_output=True, text=True).stdout.splitlines():
    fields = line.split()  # name, FP32 TFLOP/s, FP16 tensor TFLOP/s, GB/s, memory GiB ("-": unknown), description
    if len(fields) > 5 and fields[4].replace(".", "").isdigit():
        catalog[fields[0]] = float(fields[4])
rows = {r["id"]: r for r in csv.DictReader(open(data))}
shares = []
for case in csv.DictReader(line for line in open(cases) if not line.startswith("#")):
    row = rows[case["id"]]
    named = re.search(r"(\d+) ?GB", row["gpu"])
    memory = float(named.group(1)) if named else catalog[case["device"]]
    step = json.loads(subprocess.run(
        [cli, "predict", "--model", case["model"], "--device", case["device"], "--precision", case["precision"],
         "--batch", row["batch_per_gpu"], "--format", "json"], check=True, capture_output=True, text=True).stdout)
    share = step["activation_bytes"] / (memory * 2**30)
    shares.append(share)
    if share > 1:
        sys.exit(f"{case['id']}: activations {step['activation_bytes'] / 2**30:.1f} GiB at batch "
                 f"{row['batch_per_gpu']} on {memory:g} GiB")
print(f"{len(shares)} rows fit: activations {min(shares):.2f}-{max(shares):.2f} of the GPU's memory")
