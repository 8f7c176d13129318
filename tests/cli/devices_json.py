"""Checks `steptime devices --format json`: one object per catalog entry of the table, each a --device file
that predicts what the catalog key predicts, to the last field of predict's JSON (an H100 with every field
set, a K80 without tensor cores).
Usage: devices_json.py STEPTIME"""
import json
import pathlib
import subprocess
import sys
import tempfile

cli = sys.argv[1]


def run(*args):
    return subprocess.run([cli, *args], check=True, capture_output=True, text=True).stdout


listed = json.loads(run("devices", "--format", "json"))
table = [line.split()[0] for line in run("devices").splitlines()[1:]]
names = [d["name"] for d in listed]
if names != table:
    sys.exit(f"devices --format json names {len(names)} devices, the table {len(table)}: {set(names) ^ set(table)}")
with tempfile.TemporaryDirectory() as tmp:
    for name in ("h100-sxm5-80gb", "k80"):
        file = pathlib.Path(tmp) / f"{name}.json"
        file.write_text(json.dumps(next(d for d in listed if d["name"] == name)))
        step = ["predict", "-m", "resnet50", "-b", "32", "--precision", "amp", "--format", "json"]
        from_file, from_catalog = (json.loads(run(*step, "-d", d)) for d in (str(file), name))
        keys = from_file.keys() | from_catalog.keys()
        if differ := sorted(k for k in keys if from_file.get(k) != from_catalog.get(k)):
            sys.exit(f"{name}: its JSON as a --device file and the catalog key predict different {', '.join(differ)} "
                     f"(step {from_file.get('step_s')} s against {from_catalog.get('step_s')} s)")
print(f"{len(listed)} devices, each a device file; h100-sxm5-80gb and k80 predict as their keys do")
