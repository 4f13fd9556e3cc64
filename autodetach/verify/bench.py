"""Benchmark of verification start-up and instrumentation overhead; prints
one JSON object.

    python -m autodetach.verify.bench [--fresh-cases N] [--corpus DIR]

- `verify`: per corpus positive, the wall time of its three runs through the
  warm fork server, the user code's own time in them, and the difference
  (what verification adds); for the first N cases also the same three runs in
  fresh interpreters; and the server's one-off start-up.
- `overhead`: time per optimizer step with the full instrumentation against a
  baseline run that only times the steps, on each corpus case that steps an
  optimizer and on a mid-size MLP (where steps cost milliseconds, as in
  real training).
- `loop_wrapper`: what the budget's loop wrapper (budget.py) adds per round
  of a loop, measured in this process on an empty loop."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

from .compare import Run
from .forkserver import ServerPool
from .integrate import Verifier, find_tree_root
from .sandbox import Limits, RunRequest, child_env

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MLP = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for it in range(40):
    x = torch.randn(256, 512)
    y = torch.randint(0, 10, (256,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def positives(corpus: str) -> list:
    out = []
    for code in sorted(os.listdir(corpus)):
        d = os.path.join(corpus, code)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith(".fixed.py") or not f.endswith(".py"):
                continue
            fixed = os.path.join(d, f[:-3] + ".fixed.py")
            if os.path.exists(fixed):
                out.append((os.path.join(d, f), fixed))
    return out


def _three(v: Verifier, before: str, after: str) -> tuple:
    with open(before, "rb") as fh:
        old = fh.read()
    with open(after, "rb") as fh:
        new = fh.read()
    scratch, reqs = v.plan({before: (old, new, [])}, find_tree_root(before), before)
    t0 = time.perf_counter()
    runs = v.execute([reqs])[0]
    wall = time.perf_counter() - t0
    user = sum((r.record or {}).get("duration", 0.0) for r in runs.values())
    return wall, user


def _step_times(pool: ServerPool, script: str, timing_only: bool, steps: int) -> list:
    with tempfile.TemporaryDirectory(prefix="autodetach-bench-") as tmp:
        cfg = {"argv": [script], "cwd": tmp, "root": os.path.dirname(script), "steps": steps, "device": "cpu",
               "record": os.path.join(tmp, "rec.json"), "threads": 1, "timing_only": timing_only,
               "cpu_shim": False}
        env = child_env([], "cpu")
        env["AUTODETACH_ITERS"] = str(steps + 2)
        req = RunRequest(cfg, env, tmp, os.path.join(tmp, "out"), os.path.join(tmp, "err"), Limits(timeout=300))
        out = pool.run(req)
    run = Run("x", out.record, out.returncode, out.timed_out)
    return [e["time"] for e in run.events() if e["kind"] == "step"][1:]


def overhead(pool: ServerPool, script: str, steps: int = 12, repeats: int = 3) -> dict:
    base, full = [], []
    for _ in range(repeats):
        base += _step_times(pool, script, True, steps)
        full += _step_times(pool, script, False, steps)
    if not base or not full:
        return {"skipped": "no optimizer steps"}
    b, f = statistics.median(base), statistics.median(full)
    return {"baseline_step_ms": round(b * 1e3, 3), "instrumented_step_ms": round(f * 1e3, 3),
            "overhead_ms": round((f - b) * 1e3, 3), "ratio": round(f / b, 3) if b else None}


def loop_wrapper(n: int = 200_000) -> dict:
    from .budget import LoopBudget

    class Rec:  # what the wrapper reads from the recorder
        opt_steps = backward_calls = 0
        steps_budget = 5
        stopped_by = None

    b = LoopBudget(Rec())
    t0 = time.perf_counter()
    for _ in range(n):
        pass
    plain = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in b.loop(range(n), 1):
        pass
    wrapped = time.perf_counter() - t0
    return {"rounds": n, "added_ns_per_round": round((wrapped - plain) / n * 1e9, 1)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=os.path.join(ROOT, "corpus"))
    ap.add_argument("--fresh-cases", type=int, default=3, help="cases also run in fresh interpreters")
    ap.add_argument("--cases", type=int, default=0, help="limit the corpus cases (0: all)")
    args = ap.parse_args(argv)
    cases = positives(args.corpus)
    if args.cases:
        cases = cases[:args.cases]
    out: dict = {"benchmark": "verify", "cases": len(cases), "cpu_count": os.cpu_count()}
    out["loop_wrapper"] = loop_wrapper()

    t0 = time.perf_counter()
    pool = ServerPool(1, use_fork=True)
    with Verifier(pool=pool) as v:
        if cases:
            _three(v, *cases[0])
        warm = pool.servers[0] if pool.servers else None
        out["fork_server_start_s"] = round(time.perf_counter() - t0, 3)
        per_case = []
        for before, after in cases:
            wall, user = _three(v, before, after)
            per_case.append({"case": os.path.relpath(before, args.corpus), "wall_s": round(wall, 3),
                             "user_code_s": round(user, 3), "added_s": round(wall - user, 3)})
        out["fork_server"] = {
            "per_case": per_case,
            "median_wall_s": round(statistics.median(c["wall_s"] for c in per_case), 3) if per_case else None,
            "max_added_s": round(max(c["added_s"] for c in per_case), 3) if per_case else None,
            "server_import_s": round(warm.import_s, 3) if warm and warm.import_s else None,
        }
        ov = {}
        for before, _ in cases:
            ov[os.path.relpath(before, args.corpus)] = overhead(pool, before, repeats=1)
        with tempfile.TemporaryDirectory(prefix="autodetach-bench-") as tmp:
            mlp = os.path.join(tmp, "mlp.py")
            with open(mlp, "w", encoding="utf-8") as fh:
                fh.write(MLP)
            out["overhead_mlp"] = overhead(pool, mlp)
        ratios = [x["ratio"] for x in ov.values() if x.get("ratio")]
        out["overhead_corpus"] = {"per_case": ov, "median_ratio": round(statistics.median(ratios), 3)
                                  if ratios else None,
                                  "median_overhead_ms": round(statistics.median(
                                      x["overhead_ms"] for x in ov.values() if "overhead_ms" in x), 3)
                                  if ratios else None}
    pool.close()

    fresh = []
    with ServerPool(1, use_fork=False) as fpool, Verifier(pool=fpool) as v:
        for before, after in cases[:args.fresh_cases]:
            wall, user = _three(v, before, after)
            fresh.append({"case": os.path.relpath(before, args.corpus), "wall_s": round(wall, 3)})
    fork_by_case = {c["case"]: c["wall_s"] for c in out["fork_server"]["per_case"]}
    out["fresh_interpreter"] = {
        "per_case": fresh,
        "median_wall_s": round(statistics.median(c["wall_s"] for c in fresh), 3) if fresh else None,
    }
    if fresh:
        f = statistics.median(c["wall_s"] for c in fresh)
        k = statistics.median(fork_by_case[c["case"]] for c in fresh)
        out["saving"] = {"fresh_median_s": round(f, 3), "fork_median_s": round(k, 3),
                         "speedup": round(f / k, 1) if k else None,
                         "break_even_files": round(out["fork_server_start_s"] / max(f - k, 1e-9), 2)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
