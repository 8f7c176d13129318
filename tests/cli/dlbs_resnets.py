"""Fails unless validation/measured/tf-dlbs-rtx2080/nets/ holds what its make_resnets.py writes, and unless that
script, told to write the zoo's layout (--torchvision), gives the zoo's resnet18, 34, 50 and 101: their parameter
counts exactly and their predicted steps within 0.1% (the JSON head pools and scores as any layer, the zoo's as a
global pool and a loss), so that DLBS's networks differ from the zoo's only where DLBS's code does.
Usage: dlbs_resnets.py STEPTIME NETS_DIR"""
import filecmp
import json
import os
import subprocess
import sys
import tempfile

cli, nets = sys.argv[1:3]
script = os.path.abspath(os.path.join(nets, "make_resnets.py"))


def step(model):
    out = subprocess.run([cli, "predict", "-m", model, "-d", "rtx-2080", "-b", "32", "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    report = json.loads(out)
    return report["step_s"], report["parameters"]


with tempfile.TemporaryDirectory() as work:
    subprocess.run([sys.executable, script], cwd=work, check=True)
    zoo_names = ("resnet18", "resnet34", "resnet50", "resnet101")
    for name in (f"dlbs-{zoo}.json" for zoo in zoo_names):
        if not filecmp.cmp(os.path.join(work, name), os.path.join(nets, name), shallow=False):
            sys.exit(f"{name} differs from what make_resnets.py writes: run it in {nets}")
    subprocess.run([sys.executable, script, "--torchvision"], cwd=work, check=True)
    for zoo in zoo_names:
        (zoo_s, zoo_p), (json_s, json_p) = step(zoo), step(os.path.join(work, f"{zoo}-torchvision.json"))
        if json_p != zoo_p or abs(json_s / zoo_s - 1) > 1e-3:
            sys.exit(f"{zoo}: the script's zoo layout has {json_p} parameters and a {json_s * 1e3:.3f} ms step, "
                     f"the zoo {zoo_p} and {zoo_s * 1e3:.3f} ms")
        print(f"{zoo}: {zoo_p} parameters, {json_s * 1e3:.3f} ms against the zoo's {zoo_s * 1e3:.3f} ms")
