#!/usr/bin/env python3
"""The default model's accuracy on every measured set the project ships, one line a set (README.md, "At a
glance"): `steptime validate --format json` on validation/measured/calibration.csv and on each folder's
calibration.csv and cases.csv (the H100's convolutions timed alone too), then per set its rows and each
category's MAPE and worst error. A set is published (its README's title says "held out", or it is the
calibration set) or measured with tools/measure (it holds that tool's environment.json); README.md says which
of the measured rows chose constants. A second table holds issue 5's goal, single-GPU CNN training steps
(`images_per_s` rows on one GPU) that chose no constant: those of every set but the calibration set, less the
rows that repeat a calibration row's measurement and a measured set's `_fit` rows (unless its README's title
says "held out"); per set and pooled, their MAPE, worst error and rows within 8%. Fails, naming the set, where
validate does, a set predicts no row or a folder is neither. With --check FILE it prints nothing but fails
unless FILE holds both tables as printed."""
import argparse
import csv
import json
import pathlib
import subprocess
import sys

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("steptime", help="the steptime executable")
parser.add_argument("measured", nargs="?", type=pathlib.Path,
                    default=pathlib.Path(__file__).resolve().parent.parent / "validation/measured",
                    help="the folder of measured sets (default: validation/measured)")
parser.add_argument("--check", type=pathlib.Path, metavar="FILE", help="fail unless FILE holds the table as printed")
args = parser.parse_args()
if not (args.measured / "calibration.csv").exists():
    sys.exit(f"accuracy.py: {args.measured}: no calibration.csv (expected validation/measured)")


def validate(data, cases):
    out = subprocess.run([args.steptime, "validate", "--data", str(data), "--cases", str(cases), "--format", "json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"accuracy.py: {data}: steptime validate failed: {out.stderr.strip()}")
    report = json.loads(out.stdout)
    if not report["categories"]:
        sys.exit(f"accuracy.py: {data}: no row predicted")
    return report


def measurements(data):
    with open(data, newline="") as f:
        return {row["id"]: row for row in csv.DictReader(line for line in f if not line.startswith("#"))}


def held_out_title(folder):
    readme = folder / "README.md"
    return readme.exists() and "held out" in readme.read_text().partition("\n")[0]


def source(folder):
    if (folder / "environment.json").exists():
        return "measured with tools/measure"
    if held_out_title(folder):
        return "published, held out"
    sys.exit(f"accuracy.py: {folder}: neither held out (its README's title) nor measured here (environment.json)")


# (name, source, data, cases, whether its `_fit` categories chose constants); the calibration set chose them all.
sets = [("calibration.csv", "published, calibration", args.measured / "calibration.csv", args.measured / "cases.csv", None)]
for folder in sorted(p for p in args.measured.iterdir() if (p / "cases.csv").exists()):
    kind = source(folder)
    fit_chose = kind.startswith("measured") and not held_out_title(folder)
    sets.append((folder.name, kind, folder / "calibration.csv", folder / "cases.csv", fit_chose))
    if (folder / "conv_cases.csv").exists():
        sets.append((f"{folder.name} (convolutions alone)", kind, folder / "conv_calibration.csv",
                     folder / "conv_cases.csv", fit_chose))


def measurement(row):
    return tuple(row[k] for k in ("gpu", "model", "batch_per_gpu", "metric", "value"))


calibrated = {measurement(row) for row in measurements(args.measured / "calibration.csv").values()}


def goal_errors(report, data, fit_chose):
    """The signed errors of the report's single-GPU training steps that chose no constant."""
    rows = measurements(data)
    return [r["error"] for r in report["rows"] if (m := rows[r["id"]])["num_gpus"] == "1"
            and m["metric"] == "images_per_s" and measurement(m) not in calibrated
            and not (fit_chose and r["category"].endswith("_fit"))]


def goal_cells(errors):
    mape = 100 * sum(abs(e) for e in errors) / len(errors)
    worst = 100 * max(errors, key=abs)
    return f"{len(errors)} | {mape:.1f}% ({worst:+.0f}%) | {sum(abs(e) < 0.08 for e in errors)}"


lines = ["| set | source | rows | MAPE (worst error) per category |", "| --- | --- | --- | --- |"]
goal = ["| set | training steps | MAPE (worst error) | within 8% |", "| --- | --- | --- | --- |"]
pooled = []
for name, kind, data, cases, fit_chose in sets:
    report = validate(data, cases)
    categories = report["categories"]
    rows = sum(c["rows"] for c in categories.values())
    cells = ", ".join(f"{k} {100 * c['mape']:.1f}% ({100 * c['max_error']:+.0f}%)" for k, c in sorted(categories.items()))
    lines.append(f"| `{name}` | {kind} | {rows} | {cells} |")
    if fit_chose is not None and (errors := goal_errors(report, data, fit_chose)):
        goal.append(f"| `{name}` | {goal_cells(errors)} |")
        pooled += errors
goal.append(f"| all | {goal_cells(pooled)} |")
tables = ["\n".join(t) + "\n" for t in (lines, goal)]
if args.check:
    text = args.check.read_text()
    for table in tables:
        if table not in text:
            sys.exit(f"accuracy.py: {args.check}'s tables are not these; run tools/accuracy.py and paste them there:\n"
                     + "\n".join(tables))
    print(f"{args.check.name}'s tables are current ({len(sets)} sets)")
else:
    print("\n".join(tables), end="")
