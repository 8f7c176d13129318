"""Fails unless steptime's default model has a lower MAPE than paleo-compat at PALEO's TensorFlow preset
(ppp_comp 0.62, ppp_comm 0.72; paleo-model.md section 9) in every category, over the rows both predict
(paleo-compat has no fp16). Usage: validate_beats_baseline.py STEPTIME DATA CASES"""
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
categories = {r["category"] for r in ours.values()}
if worse or set(errors) != categories:
    sys.exit(f"kernel not better on {worse}, or categories without common rows: {categories - set(errors)}")
print(f"{len(errors)} categories, kernel better on all")
