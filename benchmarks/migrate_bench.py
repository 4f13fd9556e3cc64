"""`autodetach migrate` on generated trees of legacy files: wall time,
files/s, and peak RSS of the coordinator alone (its VmHWM) and of the whole
run (the largest sampled sum over the coordinator and its workers), at
each size. Flat coordinator memory means the same peak at 1k and 5k files.
Prints one JSON object.

    python benchmarks/migrate_bench.py [--sizes 1000,5000] [--jobs 2] [--template tiny|full] [--select AD201]

`--template tiny`: an 8-line file with three findings (the default);
`full`: a 36-line module with a training loop and ten findings (slower:
every file has findings, like real legacy code). `--select` writes an
autodetach.toml into the tree (fewer rules: cheaper files, for memory runs
at larger sizes). The tree is generated in a temporary folder and removed.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

from _common import ROOT, emit, tempdir

sys.path.insert(0, ROOT)
from tests.legacy_tree import TEMPLATE, TINY, make_tree  # noqa: E402


def _kb(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list:
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out += [int(x) for x in fh.read().split()]
    except OSError:
        pass
    return out


def run_once(n: int, jobs: int, template: str, select) -> dict:
    base = tempdir("migrate")
    try:
        tree = os.path.join(base, "legacy")
        make_tree(tree, n, repos=max(1, n // 100), template=template)
        if select:
            with open(os.path.join(tree, "autodetach.toml"), "w") as fh:
                fh.write(f"select = {list(select)!r}\n".replace("'", '"'))
        env = dict(os.environ, PYTHONPATH=ROOT)
        cmd = [sys.executable, "-m", "autodetach", "migrate", tree, "--report", os.path.join(base, "out"),
               "--no-progress", "-q", "-j", str(jobs)]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        coord_hwm = total_peak = 0
        while proc.poll() is None:
            coord_hwm = max(coord_hwm, _kb(proc.pid, "VmHWM"))
            total = _kb(proc.pid, "VmRSS") + sum(_kb(c, "VmRSS") for c in _children(proc.pid))
            total_peak = max(total_peak, total)
            time.sleep(0.05)
        wall = time.perf_counter() - t0
        err = proc.stderr.read().decode("utf-8", "replace")
        return {"files": n, "seconds": round(wall, 2), "files_per_s": round(n / wall, 2), "rc": proc.returncode,
                "coordinator_peak_rss_mb": round(coord_hwm / 1024, 1),
                "total_peak_rss_mb": round(total_peak / 1024, 1),
                "stderr_tail": err[-300:] if proc.returncode > 1 else ""}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,5000")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--template", choices=("tiny", "full"), default="tiny")
    ap.add_argument("--select", default="", help="comma-separated rule selectors written to autodetach.toml")
    args = ap.parse_args(argv)
    template = TINY if args.template == "tiny" else TEMPLATE
    select = [s for s in args.select.split(",") if s]
    runs = [run_once(int(n), args.jobs, template, select) for n in args.sizes.split(",")]
    out = {"benchmark": "migrate", "jobs": args.jobs, "template": args.template, "select": select or "ALL",
           "runs": runs}
    if len(runs) > 1 and runs[0]["coordinator_peak_rss_mb"]:
        out["coordinator_rss_ratio_last_vs_first"] = round(
            runs[-1]["coordinator_peak_rss_mb"] / runs[0]["coordinator_peak_rss_mb"], 3)
        out["seconds_per_file"] = [round(r["seconds"] / r["files"], 4) for r in runs]
    emit(out)
    return out


if __name__ == "__main__":
    main()
