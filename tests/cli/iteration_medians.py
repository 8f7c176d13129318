"""Checks that each row of a validation set names a file of iterations in its notes (iterations/NAME.csv) and a
column in its source (`column NAME`), and holds the median of that column, to the row's three decimals.
Usage: iteration_medians.py SET_DIR"""
import csv
import re
import statistics
import sys

folder = sys.argv[1]
with open(f"{folder}/calibration.csv") as f:
    rows = list(csv.DictReader(f))
checked = 0
for r in rows:
    name, column = re.search(r"iterations/([\w.-]+\.csv)", r["notes"]), re.search(r"column (\w+)$", r["source"])
    if not (name and column):
        sys.exit(f"{r['id']}: its notes name no iterations/FILE.csv or its source no column")
    name, column = name.group(1), column.group(1)
    with open(f"{folder}/iterations/{name}") as f:
        median = statistics.median(float(i[column]) for i in csv.DictReader(f))
    if f"{median:.3f}" != r["value"]:
        sys.exit(f"{r['id']}: {r['value']} ms, but the median of {name}'s {column} is {median:.3f}")
    checked += 1
print(f"{checked} rows: each the median of its iterations")
