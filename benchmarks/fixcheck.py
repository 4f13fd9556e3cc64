"""Independent check of autodetach's fixes against the retain_graph reference.

Each case is a small project under benchmarks/fixcheck_cases/<case>/ whose
entry is `main.py` (several files: a trainer, `losses.py`, `utils.py`...).
For each case, without any of autodetach's verification code:

- reference: the original, every backward (`Tensor.backward`,
  `torch.autograd.backward`, `torch.autograd.grad`) given retain_graph=True;
- before: the original as written;
- after: a copy fixed by `autodetach --fix --unsafe-fixes`, run as written.

Each run is `python main.py` in its own temporary copy, with a
sitecustomize (on PYTHONPATH) that seeds torch and records, at exit, every
optimizer's parameters after its last step. The JSON printed per case says
which findings were fixed and how, how each run ended, the largest
difference between the after run's and the reference's final parameters,
and a `result`: `match` (the fixed program gives the reference's
parameters), `mismatch` (it does not, and a safe fix was applied),
`unsafe` (it does not, and every fix applied was unsafe), `no fix`
(nothing changed) or `no reference` (the reference itself fails).
`--verify` also runs `autodetach --verify --unsafe-fixes` on the original
and adds its verdicts, so the two judgements can be compared.

    python benchmarks/fixcheck.py [--verify] [CASE...]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CASES = os.path.join(HERE, "fixcheck_cases")

SITE = r'''
import atexit, json, os
import torch

torch.manual_seed(0)
_opts = []
_last = {}

def _hook(opt, args, kwargs):
    if opt not in _opts:
        _opts.append(opt)
    _last[id(opt)] = [p.detach().flatten().tolist() for g in opt.param_groups for p in g["params"]]

from torch.optim.optimizer import register_optimizer_step_post_hook
register_optimizer_step_post_hook(_hook)

if os.environ.get("FIXCHECK_RETAIN"):
    _bw = torch.Tensor.backward
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        return _bw(self, gradient, True, create_graph, inputs)
    torch.Tensor.backward = backward
    _abw = torch.autograd.backward
    def abackward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, **kw):
        return _abw(tensors, grad_tensors, True, create_graph, **kw)
    torch.autograd.backward = abackward
    _grad = torch.autograd.grad
    def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, **kw):
        return _grad(outputs, inputs, grad_outputs, True, create_graph, **kw)
    torch.autograd.grad = grad

@atexit.register
def _dump():
    with open(os.environ["FIXCHECK_OUT"], "w") as fh:
        json.dump([_last[id(o)] for o in _opts], fh)
'''


def run(tree: str, retain: bool, timeout: float) -> dict:
    site = tree + ".site"  # outside the tree: not scanned, not copied
    os.makedirs(site, exist_ok=True)
    with open(os.path.join(site, "sitecustomize.py"), "w") as fh:
        fh.write(SITE)
    out = os.path.join(site, "params.json")
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    env.update(PYTHONPATH=site, FIXCHECK_OUT=out, PYTHONHASHSEED="0", OMP_NUM_THREADS="1")
    if retain:
        env["FIXCHECK_RETAIN"] = "1"
    try:
        p = subprocess.run([sys.executable, "main.py"], cwd=tree, env=env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout"}
    res = {"status": "ok" if p.returncode == 0 else "error"}
    if p.returncode:
        res["error"] = (p.stderr.strip().splitlines() or ["?"])[-1][:200]
    if os.path.exists(out):
        with open(out) as fh:
            res["params"] = json.load(fh)
    return res


def max_diff(a, b):
    if a is None or b is None:
        return None
    if len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b)):
        return float("inf")
    m = 0.0
    for oa, ob in zip(a, b):
        for pa, pb in zip(oa, ob):
            if len(pa) != len(pb):
                return float("inf")
            for u, v in zip(pa, pb):
                m = max(m, abs(u - v))
    return m


def result(out: dict, runs: dict, found: list) -> str:
    if not out["diff"]:
        return "no fix"
    if runs["reference"]["status"] != "ok":
        return "no reference"
    d = out["after_vs_reference"]
    if runs["after"]["status"] == "ok" and d is not None and d <= 1e-6:
        return "match"
    # --unsafe-fixes applies every fixable finding: were any of them safe?
    return "mismatch" if any(f["fix"] == "safe" for f in found) else "unsafe"


def autodetach(args: list, cwd: str) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, "-m", "autodetach", "--no-cache", "--output-format", "json", *args],
                       cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    try:
        out = json.loads(p.stdout)
        if p.stderr.strip():
            out["stderr"] = p.stderr.strip().splitlines()[-50:]
        return out
    except json.JSONDecodeError:
        return {"error": p.stderr.strip()[-300:]}


def check(case: str, verify: bool, timeout: float, src: str = None, lean: bool = False) -> dict:
    """`src`: the project's folder (default: the case's). `lean`: skip the before run, and every run when
    nothing was changed (the result needs neither)."""
    src = src or os.path.join(CASES, case)
    out = {"case": case}
    with tempfile.TemporaryDirectory(prefix="fixcheck-") as tmp:
        trees = {}
        for name in ("before", "reference", "after"):
            trees[name] = os.path.join(tmp, name)
            shutil.copytree(src, trees[name])
        first = autodetach(["."], trees["before"])
        found = first.get("findings", [])
        if first.get("error") or first.get("summary", {}).get("errors"):
            out["tool_errors"] = first.get("error") or first["summary"]["errors"]
        out["found"] = [f"{f['path']}:{f['line']} {f['code']} {f['fix']}" for f in found]
        report = autodetach(["--fix", "--unsafe-fixes", "."], trees["after"])
        out["findings"] = [f"{f['path']}:{f['line']} {f['code']} {f['fix']}" for f in report.get("findings", [])]
        out["fixed"] = report.get("summary", {}).get("fixed")
        diff = subprocess.run(["diff", "-ru", "-x", "__pycache__", "-x", ".autodetach_cache", src, trees["after"]],
                              capture_output=True, text=True).stdout
        out["diff"] = [ln for ln in diff.splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
        names = [] if lean and not out["diff"] else ["reference", "after"] if lean else list(trees)
        runs = {name: run(trees[name], name == "reference", timeout) for name in names}
        if not runs:
            out["result"] = "no fix"
            return out
        for name, r in runs.items():
            out[name] = r["status"] + (f": {r['error']}" if "error" in r else "")
        out["after_vs_reference"] = max_diff(runs["after"].get("params"), runs["reference"].get("params"))
        out["result"] = result(out, runs, found)
        if verify:
            rep = autodetach(["--verify", "--unsafe-fixes", "."], trees["before"])
            out["verdicts"] = [f"{f['line']} {f['code']} {(f.get('verification') or {}).get('verdict')}"
                               for f in rep.get("findings", [])]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*")
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("--timeout", type=float, default=180)
    a = ap.parse_args(argv)
    cases = a.cases or sorted(d for d in os.listdir(CASES) if os.path.isdir(os.path.join(CASES, d)))
    counts: dict = {}
    for c in cases:
        res = check(c, a.verify, a.timeout)
        counts[res["result"]] = counts.get(res["result"], 0) + 1
        print(json.dumps(res), flush=True)
    print(json.dumps({"summary": counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
