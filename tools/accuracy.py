#!/usr/bin/env python3
"""The default model's accuracy on every measured set the project ships, one line a set (README.md, "At a
glance"): `steptime validate --format json` on validation/measured/calibration.csv and on each folder's
calibration.csv and cases.csv (the H100's convolutions timed alone too), then per set its rows and each
category's MAPE and worst error. A set is published (its README's title says "held out", or it is the
calibration set) or measured with tools/measure (it holds that tool's environment.json); README.md says which
of the measured rows chose constants. Fails, naming the set, where validate does, a set predicts no row or a
folder is neither. With --check FILE it prints nothing but fails unless FILE holds the table as printed."""
import argparse
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
    categories = json.loads(out.stdout)["categories"]
    if not categories:
        sys.exit(f"accuracy.py: {data}: no row predicted")
    return categories


def source(folder):
    if (folder / "environment.json").exists():
        return "measured with tools/measure"
    readme = folder / "README.md"
    if readme.exists() and "(held out)" in readme.read_text().partition("\n")[0]:
        return "published, held out"
    sys.exit(f"accuracy.py: {folder}: neither held out (its README's title) nor measured here (environment.json)")


sets = [("calibration.csv", "published, calibration", args.measured / "calibration.csv", args.measured / "cases.csv")]
for folder in sorted(p for p in args.measured.iterdir() if (p / "cases.csv").exists()):
    kind = source(folder)
    sets.append((folder.name, kind, folder / "calibration.csv", folder / "cases.csv"))
    if (folder / "conv_cases.csv").exists():
        sets.append((f"{folder.name} (convolutions alone)", kind, folder / "conv_calibration.csv", folder / "conv_cases.csv"))

lines = ["| set | source | rows | MAPE (worst error) per category |", "| --- | --- | --- | --- |"]
for name, kind, data, cases in sets:
    categories = validate(data, cases)
    rows = sum(c["rows"] for c in categories.values())
    cells = ", ".join(f"{k} {100 * c['mape']:.1f}% ({100 * c['max_error']:+.0f}%)" for k, c in sorted(categories.items()))
    lines.append(f"| `{name}` | {kind} | {rows} | {cells} |")
table = "\n".join(lines) + "\n"
if args.check:
    if table not in args.check.read_text():
        sys.exit(f"accuracy.py: {args.check}'s table is not this one; run tools/accuracy.py and paste it there:\n{table}")
    print(f"{args.check.name}'s table is current ({len(sets)} sets)")
else:
    print(table, end="")
