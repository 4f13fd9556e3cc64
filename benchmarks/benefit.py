"""benefit: what the fixes are for. For each AD101, AD102 and AD104 positive
case in corpus/ (a <case>.py with a <case>.fixed.py), the live autograd graph
memory after 10, 50 and 200 iterations, before and after the fix.

    python benchmarks/benefit.py [--iters 10,50,200] [--codes AD101,AD102,AD104]

Live graph memory = the peak, over the run, of the bytes of saved tensors
still held by live graphs. Every tensor autograd saves goes through
torch.autograd.graph.saved_tensors_hooks; the pack hook wraps it in a holder
tracked by weakref.finalize, so a holder counts exactly as long as the graph
node that saved it lives (a training loop inside main() frees everything when
main returns, so the peak, not the end state, is the figure; the bytes still
live at the end are reported too). Iteration counts reach the scripts
through the environment variable AUTODETACH_ITERS, which corpus scripts
read (`ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))`); a case that
does not read it is reported with "iters_honoured": false.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import ROOT, emit  # noqa: E402

CHILD = r'''
import contextlib, gc, io, json, os, runpy, sys, weakref
import torch

class Holder:
    __slots__ = ("t", "__weakref__")
    def __init__(self, t):
        self.t = t

def measure(path, iters):
    state = {"live": 0, "peak": 0}
    def gone(n):
        state["live"] -= n
    def pack(t):
        # Hold a detached alias: holding a saved *output* itself would tie it
        # to its own grad_fn in a cycle through C++ that no GC can free.
        h = Holder(t.detach())
        n = t.numel() * t.element_size()
        state["live"] += n
        if state["live"] > state["peak"]:
            state["peak"] = state["live"]
        weakref.finalize(h, gone, n)
        return h
    def unpack(h):
        return h.t
    # Sample after each optimizer step, after a full collection: the holder
    # and a saved *output* (tanh, normalize) form a cycle that only the
    # cyclic GC frees, so a raw running peak counts garbage as live graph.
    samples = []
    every = max(1, iters // 5)  # a full collection costs ~0.1 s: five samples a run
    count = [0]
    def after_step(opt, args, kwargs):
        count[0] += 1
        if count[0] % every == 0:
            gc.collect()
            samples.append(state["live"])
    from torch.optim.optimizer import register_optimizer_step_post_hook
    hook = register_optimizer_step_post_hook(after_step)
    os.environ["AUTODETACH_ITERS"] = str(iters)
    out = io.StringIO()
    err = None
    g = None
    old = os.getcwd()
    os.chdir(os.path.dirname(path))
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack), contextlib.redirect_stdout(out):
            g = runpy.run_path(path, run_name="__main__")
    except BaseException as exc:
        err = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:160]
    finally:
        os.chdir(old)
        hook.remove()
    gc.collect()
    at_end = state["live"]
    del g
    gc.collect()
    return (max(samples) if samples else state["peak"]), err, at_end

res = {}
iters = [int(x) for x in sys.argv[1].split(",")]
for path in sys.argv[2:]:
    res[path] = [list(measure(path, n)) for n in iters]
print(json.dumps(res))
'''


def cases(codes):
    out = []
    for code in codes:
        d = os.path.join(ROOT, "corpus", code)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(".fixed.py"):
                before = os.path.join(d, name[:-len(".fixed.py")] + ".py")
                if os.path.exists(before):
                    out.append((code, before, os.path.join(d, name)))
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", default="10,50,200")
    ap.add_argument("--codes", default="AD101,AD102,AD104")
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args(argv)
    iters = [int(x) for x in a.iters.split(",")]
    found = cases(a.codes.split(","))
    if not found:
        return {"benchmark": "benefit", "cases": [], "note": "no AD101/AD102/AD104 positive cases in corpus/"}
    paths = [p for _, b, f in found for p in (b, f)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    try:
        out = subprocess.run([sys.executable, "-c", CHILD, a.iters] + paths, capture_output=True,
                             timeout=a.timeout, env=env, check=False)
        data = json.loads(out.stdout.decode().strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError) as exc:
        return {"benchmark": "benefit", "cases": None, "error": str(exc)[:300]}
    rows = []
    for code, before, fixed in found:
        b, f = data[before], data[fixed]
        with open(before, encoding="utf-8") as fh:
            src = fh.read()
        row = {
            "code": code, "case": os.path.relpath(before, ROOT),
            "iters": iters,
            "before_bytes": [x[0] for x in b], "after_bytes": [x[0] for x in f],
            "before_errors": [x[1] for x in b], "after_errors": [x[1] for x in f],
            "before_bytes_at_end": [x[2] for x in b], "after_bytes_at_end": [x[2] for x in f],
            "iters_honoured": "AUTODETACH_ITERS" in src,
        }
        lo, hi = row["after_bytes"][0], row["after_bytes"][-1]
        row["after_flat"] = (abs(hi - lo) <= 0.05 * max(lo, 1)) if lo or hi else True
        bh, ah = row["before_bytes"][-1], row["after_bytes"][-1]
        row["before_growth"] = round(bh / row["before_bytes"][0], 2) if row["before_bytes"][0] else None
        row["ratio_before_over_after_at_max_iters"] = round(bh / ah, 2) if ah else None
        rows.append(row)
    return {"benchmark": "benefit", "measure": "largest live saved-tensor bytes at an optimizer step (after gc)",
            "cases": rows, "after_flat_all": all(r["after_flat"] for r in rows)}


if __name__ == "__main__":
    emit(main())
