"""verify: wall time of `autodetach verify CASE CASE.fixed` per corpus case,
started from the pre-imported fork server (the default) and from fresh
interpreters (AUTODETACH_NO_FORKSERVER=1), against the user code's own
compute (a plain `python CASE` minus a bare `import torch`).

    python benchmarks/verify_bench.py [--cases N]

Each mode runs in one process that verifies all cases in turn, as
`autodetach --verify` does for a tree; the first case pays the server's
start-up. Needs autodetach.verify (reported as null with a reason otherwise).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import ROOT, emit, median  # noqa: E402

CHILD = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
from autodetach.verify.command import verify_command
out = {}
for pair in sys.argv[2:]:
    a, b = pair.split("::")
    t = time.perf_counter()
    try:
        code = verify_command.main(args=[a, b, "--device", "cpu", "--output-format", "json"],
                                   standalone_mode=False)
    except SystemExit as exc:
        code = exc.code
    out[a] = {"seconds": time.perf_counter() - t, "rc": code}
print("\n" + json.dumps(out))
'''


def cases(n):
    found = []
    corpus = os.path.join(ROOT, "corpus")
    for code in sorted(os.listdir(corpus)) if os.path.isdir(corpus) else []:
        d = os.path.join(corpus, code)
        if not code.startswith("AD") or not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(".fixed.py"):
                found.append((os.path.join(d, name[:-9] + ".py"), os.path.join(d, name)))
                break  # one case per rule
    return found[:n] if n > 0 else found


def wall(cmd, env=None, cwd=None, timeout=300):
    t = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, timeout=timeout, check=False)
    return time.perf_counter() - t


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=4)
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args(argv)
    try:
        import autodetach.verify.command  # noqa: F401
    except ImportError as exc:
        return {"benchmark": "verify", "cases": None, "reason": f"autodetach.verify is not available: {exc}"}
    pairs = cases(a.cases)
    import_torch = median([wall([sys.executable, "-c", "import torch"]) for _ in range(2)])
    compute = {}
    for before, _ in pairs:
        compute[before] = max(0.0, wall([sys.executable, before], cwd=os.path.dirname(before)) - import_torch)
    modes = {}
    for mode, extra in (("forkserver", {}), ("fresh", {"AUTODETACH_NO_FORKSERVER": "1"})):
        env = dict(os.environ, **extra)
        try:
            out = subprocess.run([sys.executable, "-c", CHILD, ROOT] + [f"{b}::{f}" for b, f in pairs],
                                 capture_output=True, env=env, timeout=a.timeout, check=False)
            modes[mode] = json.loads(out.stdout.decode().strip().splitlines()[-1])
        except (subprocess.TimeoutExpired, ValueError, IndexError) as exc:
            modes[mode] = {"error": str(exc)[:200]}
    rows = []
    for before, fixed in pairs:
        fk = modes.get("forkserver", {}).get(before, {})
        fr = modes.get("fresh", {}).get(before, {})
        c = compute[before]
        rows.append({
            "case": os.path.relpath(before, ROOT),
            "user_compute_seconds": round(c, 3),
            "forkserver_seconds": round(fk["seconds"], 3) if "seconds" in fk else None,
            "fresh_seconds": round(fr["seconds"], 3) if "seconds" in fr else None,
            "forkserver_beyond_compute_seconds": round(fk["seconds"] - c, 3) if "seconds" in fk else None,
            "verdict_rc": fk.get("rc"),
        })
    fk_rest = [r["forkserver_seconds"] for r in rows[1:] if r["forkserver_seconds"] is not None]
    fr_rest = [r["fresh_seconds"] for r in rows[1:] if r["fresh_seconds"] is not None]
    return {
        "benchmark": "verify",
        "import_torch_seconds": round(import_torch, 3) if import_torch else None,
        "cases": rows,
        "median_forkserver_seconds_after_first": median(fk_rest),
        "median_fresh_seconds_after_first": median(fr_rest),
        "saving_per_case_seconds": (round(median(fr_rest) - median(fk_rest), 3)
                                    if fk_rest and fr_rest else None),
        **_overhead([b for b, _ in pairs]),
    }


def _overhead(befores) -> dict:
    """Time per optimizer step with the full instrumentation against a
    timing-only run of the same script (autodetach.verify.bench.overhead):
    on a mid-size MLP, and on the corpus cases (tiny steps: fixed costs
    dominate there)."""
    import tempfile

    from autodetach.verify.bench import MLP, overhead
    from autodetach.verify.forkserver import ServerPool

    with ServerPool(1, use_fork=True) as pool, tempfile.TemporaryDirectory(prefix="autodetach-bench-") as tmp:
        mlp = os.path.join(tmp, "mlp.py")
        with open(mlp, "w", encoding="utf-8") as fh:
            fh.write(MLP)
        on_mlp = overhead(pool, mlp)
        on_cases = [overhead(pool, b, repeats=1) for b in befores]
    ratios = [x["ratio"] for x in on_cases if x.get("ratio")]
    return {
        "instrumentation_overhead_per_step": on_mlp.get("ratio"),
        "instrumentation_overhead_mlp": on_mlp,
        "instrumentation_overhead_corpus_median": median(ratios) if ratios else None,
    }


if __name__ == "__main__":
    emit(main())
