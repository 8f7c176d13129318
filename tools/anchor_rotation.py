#!/usr/bin/env python3
"""Anchored accuracy with every GPU of a category as the anchor in turn (docs/accuracy.md, "Anchored on a
measurement from another GPU"): for each category of a validation set and each GPU in it, `steptime validate --anchor GPU
--anchor-any-batch` predicts the category's other rows from that GPU's; rows anchored on another category's
row (another library or precision) are left out. Prints, per category, the model alone, the mean over the
anchors of their MAPEs with the best and worst anchor, and the anchor's time per sample taken unchanged.
Usage: anchor_rotation.py STEPTIME SET_DIR (a folder with calibration.csv and cases.csv)"""
import json
import statistics
import subprocess
import sys

cli, folder = sys.argv[1:3]


def validate(*extra):
    out = subprocess.run([cli, "validate", "--data", f"{folder}/calibration.csv", "--cases", f"{folder}/cases.csv",
                          "--format", "json", *extra], capture_output=True, text=True)
    if out.returncode != 0:  # e.g. two rows of one quantity at one batch on the anchor: say why on stderr
        print(out.stderr.strip(), file=sys.stderr)
        return None
    return json.loads(out.stdout)["rows"]


def mape(errors):
    return 100 * sum(map(abs, errors)) / len(errors)


direct = [r for r in validate() if "error" in r]
category = {r["id"]: r["category"] for r in direct}
for name in sorted({r["category"] for r in direct}):
    alone = [r["error"] for r in direct if r["category"] == name]
    by_anchor, per_sample, refused = {}, [], []
    for gpu in sorted({r["device"] for r in direct if r["category"] == name}):
        rows = validate("--anchor", gpu, "--anchor-any-batch")
        if rows is None:  # validate refused this anchor (its reason is on stderr)
            refused.append(gpu)
            continue
        rows = [r for r in rows if r["category"] == name and "error" in r and category[r["anchor_id"]] == name]
        if rows:
            by_anchor[gpu] = mape([r["error"] for r in rows])
            per_sample += [r["anchor_ms"] * r["batch"] / r["anchor_batch"] / r["measured_ms"] - 1 for r in rows]
    if not by_anchor:
        continue
    best, worst = min(by_anchor, key=by_anchor.get), max(by_anchor, key=by_anchor.get)
    print(f"{name}: alone {mape(alone):.1f}% ({len(alone)} rows); anchored {statistics.mean(by_anchor.values()):.1f}% "
          f"over {len(by_anchor)} anchors (best {by_anchor[best]:.1f}% on {best}, worst {by_anchor[worst]:.1f}% on "
          f"{worst}); per sample unchanged {mape(per_sample):.1f}%"
          + (f"; not anchors (validate refused them): {', '.join(refused)}" if refused else ""))
