"""Checks validate's --group-by: each group it reports in JSON holds exactly the rows that share its values of the
grouping columns, with their count, mean absolute error and signed error of largest magnitude, recomputed here
from the rows; and its categories are the same rows grouped by category alone.
Usage: validate_groups.py STEPTIME DATA CASES COLUMN[,COLUMN...]"""
import json
import subprocess
import sys

cli, data, cases, columns = sys.argv[1:5]
out = json.loads(subprocess.run([cli, "validate", "--data", data, "--cases", cases, "--format", "json", "--group-by",
                                 columns], check=True, capture_output=True, text=True).stdout)
columns = columns.split(",")


def grouped(keys):
    groups = {}
    for r in out["rows"]:
        if "error" in r:
            groups.setdefault(tuple(str(r.get(k, "-")) for k in keys), []).append(r["error"])
    return groups


def check(reported, keys):
    expected = grouped(keys)
    if sorted(reported) != sorted(expected):
        sys.exit(f"groups by {keys}: {sorted(reported)}, but the rows hold {sorted(expected)}")
    for key, g in reported.items():
        errors = expected[key]
        mape, worst = sum(map(abs, errors)) / len(errors), max(errors, key=abs)
        if g["rows"] != len(errors) or abs(g["mape"] - mape) > 1e-12 or g["max_error"] != worst:
            sys.exit(f"group {key}: {g}, but its {len(errors)} rows give MAPE {mape} and worst {worst}")


check({tuple(str(g[k]) for k in columns): g for g in out["groups"]}, columns)
check({(name,): g for name, g in out["categories"].items()}, ["category"])
print(f"{len(out['groups'])} groups of {len(out['rows'])} rows by {','.join(columns)}: each its rows' MAPE and worst")
