"""Fails unless steptime's default model has a lower MAPE than paleo-compat at PALEO's TensorFlow preset
(ppp_comp 0.62, ppp_comm 0.72; paleo-model.md section 9) in every category, over the rows both predict
(paleo-compat has no fp16); a category it cannot predict at all (it has no recurrent layers) is listed.
Usage: validate_beats_baseline.py STEPTIME DATA CASES"""
import json
import subprocess
import sys

from mape_compare import categories_not_better

cli, data, cases = sys.argv[1:4]


def run(*model):
    out = subprocess.run([cli, "validate", "--data", data, "--cases", cases, "--format", "json", *model],
                         check=True, capture_output=True, text=True).stdout
    return {r["id"]: r for r in json.loads(out)["rows"]}


ours = run()
theirs = run("--cost-model", "paleo-compat", "--ppp-compute", "0.62", "--ppp-comm", "0.72", "--skip-unsupported")
errors = {}
for rid, t in theirs.items():
    if "error" in t and "error" in ours[rid]:
        errors.setdefault(t["category"], []).append((abs(ours[rid]["error"]), abs(t["error"])))
worse = categories_not_better(errors, "kernel", "paleo-compat", "common rows")
# A category without common rows is one that paleo-compat cannot predict at all (PALEO has no such layer).
uncovered = {r["category"] for r in ours.values()} - set(errors)
theirs_uncovered = {c for c in uncovered if all("error" not in t for t in theirs.values() if t["category"] == c)}
if worse or uncovered != theirs_uncovered:
    sys.exit(f"kernel not better on {worse}, or categories without common rows: {uncovered - theirs_uncovered}")
none = f"; paleo-compat predicts none of {', '.join(sorted(uncovered))}" if uncovered else ""
print(f"{len(errors)} categories, kernel better on all{none}")
