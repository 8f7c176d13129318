"""Checks `steptime predict --anchor DEVICE=TIME`. Its anchored time must be
- the measured time x the ratio of the two devices' direct predictions (habitat-and-empirical-models.md 6.3),
  in the step's JSON, its CSV and with --phase;
- with --anchor-batch N, the measured time x this prediction over the other device's at batch N;
- within 0.1% of the number `validate --anchor` gives the same measurement (which prices it as a training
  step's forward pass, the host's dispatch included): JCJ-027f, ResNet-50's forward pass at batch 16 on the
  Maxwell Titan X (55.75 ms, cnn-benchmarks/calibration.csv), anchoring JCJ-024f, the same pass on the
  GTX 1080 Ti (cuDNN 5.1 on both: library cudnn7).
Usage: predict_anchored.py STEPTIME CNN_BENCHMARKS_DIR"""
import csv
import io
import json
import math
import subprocess
import sys

cli, held_out = sys.argv[1:3]
case = ["-m", "resnet50", "-d", "gtx-1080-ti", "-b", "16", "--library", "cudnn7"]  # cuDNN 5.1, as the cases say


def run(*args):
    return subprocess.run([cli, *args], check=True, capture_output=True, text=True).stdout


def close(what, got, expected):
    if not math.isclose(got, expected, rel_tol=1e-12):
        sys.exit(f"{what}: {got!r}, expected {expected!r}")


# The step: 160 ms measured on the Maxwell Titan X, any time will do.
here = json.loads(run("predict", *case, "--format", "json"))["step_s"]
there = json.loads(run("predict", *case[:2], "-d", "titan-x-maxwell", *case[4:], "--format", "json"))["step_s"]
if math.isclose(here, there, rel_tol=1e-3):
    sys.exit("the two devices' steps are equal: the check could not tell the ratio from its inverse")
anchored = json.loads(run("predict", *case, "--anchor", "titan-x-maxwell=160ms", "--format", "json"))["anchored"]
close("anchored step", anchored["time_s"], 0.160 * here / there)
close("model_here_s", anchored["model_here_s"], here)
close("model_there_s", anchored["model_there_s"], there)
rows = list(csv.DictReader(io.StringIO(run("predict", *case, "--anchor", "titan-x-maxwell=160ms", "--format", "csv"))))
close("CSV (anchored) row", float(rows[-1]["step_s"]), anchored["time_s"])
if rows[-1]["layer"] != "(anchored)":
    sys.exit(f"CSV's last row is {rows[-1]['layer']!r}, expected (anchored)")

# Measured at batch 64 on the Maxwell Titan X: the ratio takes the model's time there at batch 64.
there_64 = json.loads(run("predict", *case[:2], "-d", "titan-x-maxwell", "-b", "64", *case[6:],
                          "--format", "json"))["step_s"]
at_64 = json.loads(run("predict", *case, "--anchor", "titan-x-maxwell=600ms", "--anchor-batch", "64",
                       "--format", "json"))["anchored"]
close("anchored step from batch 64", at_64["time_s"], 0.600 * here / there_64)
if at_64["batch"] != 64 or "batch" in anchored:
    sys.exit(f"anchored batch {at_64.get('batch')!r} with --anchor-batch 64, {anchored.get('batch')!r} without")
same = json.loads(run("predict", *case, "--anchor", "titan-x-maxwell=160ms", "--anchor-batch", "16",
                      "--format", "json"))["anchored"]
close("--anchor-batch equal to --batch", same["time_s"], anchored["time_s"])

# A forward pass, against validate --anchor on the same measurement.
phase = json.loads(run("predict", *case, "--phase", "forward", "--anchor", "titan-x-maxwell=55.75ms",
                       "--format", "json"))["anchored"]
rows = json.loads(run("validate", "--data", f"{held_out}/calibration.csv", "--cases", f"{held_out}/cases.csv",
                      "--anchor", "titan-x-maxwell", "--format", "json"))["rows"]
row = next(r for r in rows if r["id"] == "JCJ-024f")
if row["anchor_id"] != "JCJ-027f" or row["anchor_ms"] != 55.75:
    sys.exit(f"JCJ-024f anchored on {row['anchor_id']} ({row['anchor_ms']} ms), expected JCJ-027f (55.75 ms)")
close("anchored forward pass", phase["time_s"], 0.05575 * phase["model_here_s"] / phase["model_there_s"])
# validate prices Torch's forward pass as a training step's, whose first kernel waits for the host to issue it
# (30 us on either GPU); --phase times the kernels alone, as kernel benchmarks do.
forward = {d: json.loads(run("predict", *case[:2], "-d", d, *case[4:], "--format", "json"))["forward_s"]
           for d in ("gtx-1080-ti", "titan-x-maxwell")}
close("validate's anchored forward pass", row["predicted_ms"], 55.75 * forward["gtx-1080-ti"] / forward["titan-x-maxwell"])
if not math.isclose(phase["time_s"] * 1e3, row["predicted_ms"], rel_tol=1e-3):
    sys.exit(f"--phase forward anchored at {phase['time_s'] * 1e3} ms, validate's forward pass at {row['predicted_ms']} ms")
print(f"anchored step {anchored['time_s'] * 1e3:.3f} ms, forward pass {phase['time_s'] * 1e3:.3f} ms "
      f"(validate's {row['predicted_ms']:.3f})")
