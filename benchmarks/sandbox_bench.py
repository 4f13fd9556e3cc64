"""sandbox: what isolation costs per verified case. `autodetach verify CASE
CASE.fixed` on corpus cases (one per rule) with each sandbox that works here
(`none`, `bwrap`, `unshare`), from the fork server (started inside the
sandbox) and from fresh interpreters (AUTODETACH_NO_FORKSERVER=1: each run
its own sandbox).

    python benchmarks/sandbox_bench.py [--cases N]

Each (sandbox, mode) runs in one process that verifies all cases in turn;
the first case pays the server's start-up and is reported apart.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import ROOT, emit, median  # noqa: E402
from verify_bench import CHILD, cases  # noqa: E402


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=4)
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args(argv)
    from autodetach.verify.isolate import SandboxUnavailable, resolve

    pairs = cases(a.cases)
    out: dict = {"benchmark": "sandbox", "cases": [os.path.relpath(b, ROOT) for b, _ in pairs], "modes": {}}
    for kind in ("none", "bwrap", "unshare"):
        try:
            resolve(kind)
        except SandboxUnavailable as exc:
            out["modes"][kind] = {"unavailable": str(exc)}
            continue
        for mode, extra in (("forkserver", {}), ("fresh", {"AUTODETACH_NO_FORKSERVER": "1"})):
            env = dict(os.environ, AUTODETACH_SANDBOX=kind, **extra)
            child = CHILD.replace('"--output-format", "json"]', '"--output-format", "json", "--sandbox", '
                                  'os.environ["AUTODETACH_SANDBOX"]]').replace("import json, sys, time",
                                                                             "import json, os, sys, time")
            try:
                p = subprocess.run([sys.executable, "-c", child, ROOT] + [f"{b}::{f}" for b, f in pairs],
                                   capture_output=True, env=env, timeout=a.timeout, check=False)
                got = json.loads(p.stdout.decode().strip().splitlines()[-1])
            except (subprocess.TimeoutExpired, ValueError, IndexError) as exc:
                out["modes"][f"{kind}/{mode}"] = {"error": str(exc)[:200]}
                continue
            secs = [got[b]["seconds"] for b, _ in pairs if b in got]
            out["modes"][f"{kind}/{mode}"] = {
                "first_case_seconds": round(secs[0], 3) if secs else None,
                "median_seconds_after_first": median(secs[1:]) if len(secs) > 1 else None,
                "rcs": [got[b]["rc"] for b, _ in pairs if b in got],
            }
    base = out["modes"].get("none/forkserver", {}).get("median_seconds_after_first")
    for key, row in out["modes"].items():
        m = row.get("median_seconds_after_first")
        if base is not None and m is not None:
            row["added_per_case_seconds"] = round(m - base, 3)
    return out


if __name__ == "__main__":
    emit(main())
