#!/usr/bin/env python3
"""The default model's accuracy on every measured set the project ships, one line a set (README.md, "At a
glance"): `steptime validate --format json` on validation/measured/calibration.csv and on each folder's
calibration.csv and cases.csv (the H100's convolutions timed alone too), then per set its rows and each
category's MAPE and worst error. A set is published (its README's title says "held out", or it is the
calibration set) or measured with tools/measure (it holds that tool's environment.json); README.md says which
of the measured rows chose constants. A second table holds issue 5's goal, single-GPU CNN training steps
(`images_per_s` rows on one GPU) that chose no constant: those of every set but the calibration set, less the
rows that repeat a calibration row's measurement and a measured set's `_fit` rows (unless its README's title
says "held out"); per set and pooled, their MAPE, worst error and rows within 8%; then the same steps by GPU
architecture (from the catalog's compute capability, `steptime devices --format json`) and by network. Fails,
naming the set, where validate does, a set predicts no row or a folder is neither. With --check FILE it
prints nothing but fails unless FILE holds every table as printed."""
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
parser.add_argument("--check", type=pathlib.Path, metavar="FILE", help="fail unless FILE holds the tables as printed")
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


def goal_rows(report, data, fit_chose):
    """The report's single-GPU training steps that chose no constant."""
    rows = measurements(data)
    return [r for r in report["rows"] if (m := rows[r["id"]])["num_gpus"] == "1"
            and m["metric"] == "images_per_s" and measurement(m) not in calibrated
            and not (fit_chose and r["category"].endswith("_fit"))]


def mape(rows):
    return 100 * sum(abs(r["error"]) for r in rows) / len(rows)


def goal_cells(rows):
    worst = 100 * max((r["error"] for r in rows), key=abs)
    return f"{len(rows)} | {mape(rows):.1f}% ({worst:+.0f}%) | {sum(abs(r['error']) < 0.08 for r in rows)}"


def catalog_architectures():
    """Each catalog GPU's architecture, by its CUDA compute capability."""
    out = subprocess.run([args.steptime, "devices", "--format", "json"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"accuracy.py: steptime devices --format json failed (exit {out.returncode}): {out.stderr.strip()}")
    named = {(7, 0): "Volta", (7, 2): "Volta", (7, 5): "Turing", (8, 9): "Ada"}
    by_major = {3: "Kepler", 5: "Maxwell", 6: "Pascal", 8: "Ampere", 9: "Hopper", 10: "Blackwell", 12: "Blackwell"}
    architectures = {}
    for d in json.loads(out.stdout):
        if d["compute_capability"]:
            cc = tuple(int(x) for x in d["compute_capability"].split("."))
            if not (name := named.get(cc) or by_major.get(cc[0])):
                sys.exit(f"accuracy.py: {d['name']}: compute capability {d['compute_capability']} "
                         "is of no architecture named here")
            architectures[d["name"]] = (cc, name)
    return architectures


def architecture(row):
    device = row["device"].partition("@")[0]  # a device at another clock is its catalog entry's architecture
    if device not in architectures:
        sys.exit(f"accuracy.py: {row['id']}: device {row['device']} has no compute capability in the catalog")
    return architectures[device]


def network(row):
    """A zoo network without its options, or a network file's name."""
    return pathlib.Path(row["model"].partition(":")[0]).stem


def grouped(rows, key):
    groups = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    return sorted(groups.items())


architectures = catalog_architectures()
lines = ["| set | source | rows | MAPE (worst error) per category |", "| --- | --- | --- | --- |"]
goal = ["| set | training steps | MAPE (worst error) | within 8% |", "| --- | --- | --- | --- |"]
pooled = []
for name, kind, data, cases, fit_chose in sets:
    report = validate(data, cases)
    categories = report["categories"]
    rows = sum(c["rows"] for c in categories.values())
    cells = ", ".join(f"{k} {100 * c['mape']:.1f}% ({100 * c['max_error']:+.0f}%)" for k, c in sorted(categories.items()))
    lines.append(f"| `{name}` | {kind} | {rows} | {cells} |")
    if fit_chose is not None and (steps := goal_rows(report, data, fit_chose)):
        goal.append(f"| `{name}` | {goal_cells(steps)} |")
        pooled += steps
goal.append(f"| all | {goal_cells(pooled)} |")
by_architecture = ["| architecture (compute capability) | training steps | MAPE (worst error) | within 8% "
                   "| GPUs: MAPE (steps) |", "| --- | --- | --- | --- | --- |"]
for (cc, arch), steps in grouped(pooled, architecture):
    gpus = ", ".join(f"`{d}` {mape(s):.1f}% ({len(s)})" for d, s in grouped(steps, lambda r: r["device"]))
    by_architecture.append(f"| {arch} ({'.'.join(map(str, cc))}) | {goal_cells(steps)} | {gpus} |")
by_network = ["| network | training steps | MAPE (worst error) | within 8% | GPUs |", "| --- | --- | --- | --- | --- |"]
for net, steps in grouped(pooled, network):
    by_network.append(f"| `{net}` | {goal_cells(steps)} | {len({r['device'] for r in steps})} |")
tables = ["\n".join(t) + "\n" for t in (lines, goal, by_architecture, by_network)]
if args.check:
    text = args.check.read_text()
    for table in tables:
        if table not in text:
            sys.exit(f"accuracy.py: {args.check}'s tables are not these; run tools/accuracy.py and paste them there:\n"
                     + "\n".join(tables))
    print(f"{args.check.name}'s tables are current ({len(sets)} sets)")
else:
    print("\n".join(tables), end="")
