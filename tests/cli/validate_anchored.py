"""Checks `steptime validate --anchor`: every anchored prediction is the anchor row's measured time times the
ratio of the two rows' direct predictions (Habitat's anchoring), and in every category it is closer to the
measurements than the anchor's time per sample taken unchanged (its time, where the batches agree). With
--any-batch, validate runs with --anchor-any-batch and some rows must be anchored at another batch.
Usage: validate_anchored.py STEPTIME DATA CASES ANCHOR [ANCHOR_DATA ANCHOR_CASES] [--any-batch]"""
import json
import math
import subprocess
import sys

from mape_compare import categories_not_better

args = [a for a in sys.argv[1:] if a != "--any-batch"]
any_batch = len(args) < len(sys.argv) - 1
cli, data, cases, anchor = args[:4]
anchor_files = args[4:6]


def validate(data, cases, *extra):
    out = subprocess.run([cli, "validate", "--data", data, "--cases", cases, "--format", "json", *extra],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["rows"]


direct = {r["id"]: r for r in validate(data, cases)}
extra = ["--anchor-any-batch"] if any_batch else []
if anchor_files:
    direct.update({r["id"]: r for r in validate(*anchor_files)})
    extra += ["--anchor-data", anchor_files[0], "--anchor-cases", anchor_files[1]]
anchored = [r for r in validate(data, cases, "--anchor", anchor, *extra) if "error" in r]
if not anchored:
    sys.exit("no row was anchored")
errors = {}
other_batch = 0
for r in anchored:
    a = direct[r["anchor_id"]]
    if a["device"] != anchor or a["model"] != r["model"] or a["id"] == r["id"]:
        sys.exit(f"{r['id']}: anchored on {a['id']} ({a['model']} on {a['device']})")
    if r["anchor_batch"] != a.get("batch") or (not any_batch and r["anchor_batch"] != r.get("batch")):
        sys.exit(f"{r['id']} (batch {r.get('batch')}): anchored at batch {r['anchor_batch']}, {a['id']}'s is {a.get('batch')}")
    expected = r["anchor_ms"] * direct[r["id"]]["predicted_ms"] / a["predicted_ms"]
    if not math.isclose(r["predicted_ms"], expected, rel_tol=1e-9):
        sys.exit(f"{r['id']}: anchored {r['predicted_ms']} ms, expected {expected} ms")
    per_sample = r.get("batch", 1) / r["anchor_batch"] if r["anchor_batch"] else 1
    other_batch += per_sample != 1
    errors.setdefault(r["category"], []).append(
        (abs(r["error"]), abs(r["anchor_ms"] * per_sample / r["measured_ms"] - 1)))
if any_batch and not other_batch:
    sys.exit("--anchor-any-batch anchored no row at another batch")
worse = categories_not_better(errors, "anchored", "the anchor's time per sample unchanged")
if worse:
    sys.exit(f"anchoring no better than the anchor's time per sample unchanged on {worse}")
at_other = f" ({other_batch} at another batch)" if any_batch else ""
print(f"{len(anchored)} rows in {len(errors)} categories{at_other}, anchored better on all")
