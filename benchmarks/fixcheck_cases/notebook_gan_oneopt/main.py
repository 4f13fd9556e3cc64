"""Runs the notebook's code cells in order, as a kernel would."""
import json

with open("train.ipynb", encoding="utf-8") as fh:
    nb = json.load(fh)
env = {"__name__": "__main__"}
for cell in nb["cells"]:
    if cell["cell_type"] == "code":
        exec(compile("".join(cell["source"]), "train.ipynb", "exec"), env)
