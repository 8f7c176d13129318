"""Checks `steptime validate --anchor`: every anchored prediction is the anchor row's measured time times the
ratio of the two rows' direct predictions (Habitat's anchoring), and in every category it is closer to the
measurements than the anchor's time taken unchanged. Usage: validate_anchored.py STEPTIME DATA CASES ANCHOR
[ANCHOR_DATA ANCHOR_CASES]"""
import json
import math
import subprocess
import sys

from mape_compare import categories_not_better

cli, data, cases, anchor = sys.argv[1:5]
anchor_files = sys.argv[5:7]


def validate(data, cases, *extra):
    out = subprocess.run([cli, "validate", "--data", data, "--cases", cases, "--format", "json", *extra],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["rows"]


direct = {r["id"]: r for r in validate(data, cases)}
if anchor_files:
    direct.update({r["id"]: r for r in validate(*anchor_files)})
    extra = ["--anchor-data", anchor_files[0], "--anchor-cases", anchor_files[1]]
else:
    extra = []
anchored = [r for r in validate(data, cases, "--anchor", anchor, *extra) if "error" in r]
if not anchored:
    sys.exit("no row was anchored")
errors = {}
for r in anchored:
    a = direct[r["anchor_id"]]
    if a["device"] != anchor or a["model"] != r["model"] or a["id"] == r["id"]:
        sys.exit(f"{r['id']}: anchored on {a['id']} ({a['model']} on {a['device']})")
    expected = r["anchor_ms"] * direct[r["id"]]["predicted_ms"] / a["predicted_ms"]
    if not math.isclose(r["predicted_ms"], expected, rel_tol=1e-9):
        sys.exit(f"{r['id']}: anchored {r['predicted_ms']} ms, expected {expected} ms")
    errors.setdefault(r["category"], []).append((abs(r["error"]), abs(r["anchor_ms"] / r["measured_ms"] - 1)))
worse = categories_not_better(errors, "anchored", "the anchor's time unchanged")
if worse:
    sys.exit(f"anchoring no better than the anchor's time unchanged on {worse}")
print(f"{len(anchored)} rows in {len(errors)} categories, anchored better on all")
