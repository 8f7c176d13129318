"""Fails unless every measured step of a set fits in its GPU's memory as `steptime validate` predicts it (the runs
happened, so a row that does not fit is the memory model's error), and prints the range of the predicted memory's
share of the GPU's and of the largest batch that fits over the row's batch.
Usage: memory_fit.py STEPTIME DATA CASES"""
import json
import subprocess
import sys

cli, data, cases = sys.argv[1:4]
report = json.loads(subprocess.run([cli, "validate", "--data", data, "--cases", cases, "--format", "json"],
                                   check=True, capture_output=True, text=True).stdout)
shares, headroom = [], []
for row in report["rows"]:
    memory = row.get("memory")
    if memory is None or memory["capacity_bytes"] is None:  # a kernel or an all-reduce; a GPU of unknown memory
        continue
    if memory["largest_samples"] is not None:  # None: nothing grows with the batch
        headroom.append(memory["largest_samples"] / memory["samples"])
    if not memory["fits"]:
        sys.exit(f"{row['id']}: {memory['total_bytes'] / 2**30:.2f} GiB predicted on {row['device']}'s "
                 f"{memory['capacity_bytes'] / 2**30:g} GiB")
    shares.append(memory["total_bytes"] / memory["capacity_bytes"])
print(f"fit: {len(shares)} of {len(report['rows'])} rows (the others kernels, all-reduces or GPUs of unknown memory); memory {min(shares):.2f}-{max(shares):.2f} of the GPU's, "
      f"the largest batch {min(headroom):.2f}-{max(headroom):.2f}x the row's")
