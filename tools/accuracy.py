#!/usr/bin/env python3
"""The default model's accuracy on every measured set the project ships, one line a set (README, "Accuracy at
a glance"): `steptime validate --format json` on validation/measured/calibration.csv and on each folder's
calibration.csv and cases.csv (the H100's convolutions timed alone too), then per set its rows and each
category's MAPE and worst error. A published set whose README title says "(held out)" chose no constant; the
others were measured with tools/measure (README.md says which of their rows chose constants).
Fails, naming the set, where validate does or a set predicts no row.
Usage: accuracy.py STEPTIME [MEASURED_DIR] (default: validation/measured beside this script)"""
import json
import pathlib
import subprocess
import sys

cli = sys.argv[1]
measured = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else pathlib.Path(__file__).parent.parent / "validation/measured")
if not (measured / "calibration.csv").exists():
    sys.exit(f"accuracy.py: {measured}: no calibration.csv (expected validation/measured)")


def validate(data, cases):
    out = subprocess.run([cli, "validate", "--data", str(data), "--cases", str(cases), "--format", "json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"accuracy.py: {data}: steptime validate failed: {out.stderr.strip()}")
    categories = json.loads(out.stdout)["categories"]
    if not categories:
        sys.exit(f"accuracy.py: {data}: no row predicted")
    return categories


def title(folder):
    readme = folder / "README.md"
    return readme.read_text().splitlines()[0].lstrip("# ") if readme.exists() else ""


sets = [("calibration.csv", "published, calibration", measured / "calibration.csv",
         measured / "cases.csv")]
for folder in sorted(p for p in measured.iterdir() if (p / "cases.csv").exists()):
    kind = "published, held out" if "(held out)" in title(folder) else "measured with tools/measure"
    sets.append((folder.name, kind, folder / "calibration.csv", folder / "cases.csv"))
    if (folder / "conv_cases.csv").exists():
        sets.append((f"{folder.name} (convolutions alone)", kind, folder / "conv_calibration.csv",
                     folder / "conv_cases.csv"))

print("| set | source | rows | MAPE (worst error) per category |")
print("| --- | --- | --- | --- |")
for name, kind, data, cases in sets:
    categories = validate(data, cases)
    rows = sum(c["rows"] for c in categories.values())
    cells = ", ".join(f"{k} {100 * c['mape']:.1f}% ({100 * c['max_error']:+.0f}%)" for k, c in sorted(categories.items()))
    print(f"| `{name}` | {kind} | {rows} | {cells} |")
