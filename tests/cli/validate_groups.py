"""Checks validate's --group-by: each group it reports in JSON holds exactly the rows that share its values of the
grouping columns, with the count of those predicted and of those skipped, their mean absolute error and their
signed error of largest magnitude, recomputed here from the rows; and its categories are the same rows grouped by
category alone.
Usage: validate_groups.py STEPTIME DATA CASES COLUMN[,COLUMN...] [VALIDATE OPTION...]"""
import json
import subprocess
import sys

cli, data, cases, columns, *options = sys.argv[1:]
out = json.loads(subprocess.run([cli, "validate", "--data", data, "--cases", cases, "--format", "json", "--group-by",
                                 columns, *options], check=True, capture_output=True, text=True).stdout)
columns = columns.split(",")


def grouped(keys):
    groups = {}
    for r in out["rows"]:
        groups.setdefault(tuple(r.get(k) for k in keys), []).append(r)
    return groups


def check(reported, keys):
    expected = grouped(keys)
    if sorted(reported, key=str) != sorted(expected, key=str):
        sys.exit(f"groups by {keys}: {sorted(reported, key=str)}, but the rows hold {sorted(expected, key=str)}")
    for key, g in reported.items():
        errors = [r["error"] for r in expected[key] if "error" in r]
        skipped = len(expected[key]) - len(errors)
        if g["rows"] != len(errors) or g["skipped"] != skipped:
            sys.exit(f"group {key}: {g}, but it holds {len(errors)} predicted rows and {skipped} skipped")
        if errors and (abs(g["mape"] - sum(map(abs, errors)) / len(errors)) > 1e-12 or g["max_error"] != max(errors, key=abs)):
            sys.exit(f"group {key}: {g}, but its rows' errors are {errors}")
        if not errors and "mape" in g:
            sys.exit(f"group {key}: {g} gives a MAPE of no predicted row")


check({tuple(g[k] for k in columns): g for g in out["groups"]}, columns)
check({(name,): g for name, g in out["categories"].items()}, ["category"])
print(f"{len(out['groups'])} groups of {len(out['rows'])} rows by {','.join(columns)}: "
      f"each its rows' MAPE and worst, {sum(g['skipped'] for g in out['groups'])} skipped")
