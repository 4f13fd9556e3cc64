"""scaling: (1) trees of growing size made by hard-linking corpus files:
time and peak RSS of the whole `autodetach` run, workers included;
(2) single files of growing length: autodetach's time against libcst's parse
time for the same file, to show the analysis stays linear.

    python benchmarks/scaling.py [CORPUS] [--sizes 100,400] [--lines 1000,5000,20000] [--jobs 2]

The issue's sizes are --sizes 1000,10000,50000 (slow: see README).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (ROOT, autodetach_cmd, default_corpus, emit, link_or_copy,  # noqa: E402
                     peak_rss_cmd, py_files, sample, tempdir)

# A training-script chunk: loops, backward, an optimizer, a logged loss.
CHUNK = '''

def train_{k}(model, data, opt, history):
    total = 0.0
    for step, (x, y) in enumerate(data):
        opt.zero_grad()
        out = model(x)
        loss = torch.nn.functional.mse_loss(out, y)
        loss.backward()
        opt.step()
        total += loss.item()
        history.append(loss.detach())
        if step % 10 == 0:
            print(step, total / (step + 1))
    return total
'''

SINGLE = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
import libcst
from autodetach.engine import Options, process_bytes
from autodetach.registry import select_rules
data = open(sys.argv[2], "rb").read()
t = time.perf_counter(); libcst.parse_module(data); parse = time.perf_counter() - t
rules = select_rules(select=["ALL"], ignore=[])
t = time.perf_counter(); res = process_bytes(data, sys.argv[2], rules, Options()); total = time.perf_counter() - t
print(json.dumps({"parse_seconds": parse, "autodetach_seconds": total, "findings": len(res.findings),
                  "errors": res.errors}))
'''


def make_file(path: str, lines: int) -> int:
    body = ["import torch\n"]
    n, k = 1, 0
    while n < lines:
        body.append(CHUNK.format(k=k))
        n += CHUNK.count("\n")
        k += 1
    text = "".join(body)
    with open(path, "w") as fh:
        fh.write(text)
    return text.count("\n")


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?")
    ap.add_argument("--sizes", default="100,400")
    ap.add_argument("--pool", type=int, default=400, help="distinct corpus files to replicate")
    ap.add_argument("--lines", default="1000,5000,20000")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args(argv)
    corpus = os.path.abspath(a.corpus or default_corpus())
    pool = sample(py_files(corpus), a.pool)
    work = tempdir("scaling")
    trees = []
    try:
        for size in [int(s) for s in a.sizes.split(",") if s]:
            tree = os.path.join(work, f"tree{size}")
            for i in range(size):
                link_or_copy(pool[i % len(pool)], os.path.join(tree, f"d{i // 500}", f"f{i}.py"))
            r = peak_rss_cmd(autodetach_cmd("--no-cache", "-j", str(a.jobs), tree), timeout=a.timeout)
            r["files"] = size
            trees.append(r)
            shutil.rmtree(tree, ignore_errors=True)
        base = trees[0] if trees and trees[0].get("seconds") else None
        for r in trees:
            if base and r.get("seconds"):
                r["time_multiple_of_smallest"] = round(r["seconds"] / base["seconds"], 2)
                r["size_multiple_of_smallest"] = round(r["files"] / base["files"], 2)
        singles = []
        for lines in [int(s) for s in a.lines.split(",") if s]:
            path = os.path.join(work, f"single{lines}.py")
            real = make_file(path, lines)
            try:
                out = subprocess.run([sys.executable, "-c", SINGLE, ROOT, path], capture_output=True,
                                     timeout=a.timeout, check=False)
                d = json.loads(out.stdout.decode().strip().splitlines()[-1])
                d = {"lines": real, "parse_seconds": round(d["parse_seconds"], 3),
                     "autodetach_seconds": round(d["autodetach_seconds"], 3),
                     "multiple_of_parse": round(d["autodetach_seconds"] / d["parse_seconds"], 2),
                     "findings": d["findings"], "errors": d["errors"]}
            except subprocess.TimeoutExpired:
                d = {"lines": real, "autodetach_seconds": None, "timeout": a.timeout}
            except (ValueError, IndexError):
                d = {"lines": real, "autodetach_seconds": None, "error": out.stderr.decode()[-300:]}
            singles.append(d)
        return {"benchmark": "scaling", "corpus": corpus, "jobs": a.jobs, "pool_files": len(pool),
                "trees": trees, "single_files": singles}
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    emit(main())
