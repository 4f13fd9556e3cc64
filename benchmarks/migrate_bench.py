"""`autodetach migrate` on generated trees of legacy files: wall time,
files/s, and peak RSS of the coordinator alone (its VmHWM) and of the whole
run (the largest sampled sum over the coordinator and its workers), at
each size. Flat coordinator memory means the same peak at 1k and 5k files.
Prints one JSON object.

    python benchmarks/migrate_bench.py [--sizes 1000,5000] [--jobs 2] [--template tiny|full] [--select AD201]
        [--executors local,dask] [--kill-at N]

`--template tiny`: an 8-line file with three findings (the default);
`full`: a 36-line module with a training loop and ten findings (slower:
every file has findings, like real legacy code). `--select` writes an
autodetach.toml into the tree (fewer rules: cheaper files, for memory runs
at larger sizes). The tree is generated in a temporary folder and removed.

`--executors local,dask`: the same tree migrated once per executor (a fresh
copy each), files/s and peak RSS of each (coordinator plus every process
under it: dask's nannies and workers too), and whether the trees and the
report totals came out byte-identical. `--kill-at N` (issue 11's
done-criterion): the first executor's run is SIGKILLed once the state holds
N files, then run again; the result says how many files the second run
found done, and `fixed_twice` counts fixes applied to an already fixed file
(any record whose input is some changed record's output). `--progress`
passes --progress (the bar is drawn only on a terminal). `--log FILE`
appends a JSON line every 30 s while a run goes (files done, RSS, load
average), so a long run that is stopped still leaves its figures.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

from _common import ROOT, emit, tempdir

sys.path.insert(0, ROOT)
from tests.legacy_tree import TEMPLATE, TINY, make_tree, snapshot  # noqa: E402


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


def _descendants(pid: int) -> list:
    out = []
    for c in _children(pid):
        out += [c] + _descendants(c)
    return out


def _records(out: str) -> list:
    try:
        with open(os.path.join(out, "state.jsonl"), "rb") as fh:
            lines = fh.read().splitlines()[1:]
    except OSError:
        return []
    recs = []
    for line in lines:
        try:
            recs.append(json.loads(line))
        except ValueError:
            pass  # a line cut by the kill
    return recs


def _log(log, **row) -> None:
    if log:
        with open(log, "a") as fh:
            fh.write(json.dumps(dict(row, time=time.strftime("%H:%M:%S"), load=os.getloadavg())) + "\n")


def _lines(path: str) -> int:
    try:
        with open(path, "rb") as fh:
            return max(0, sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b"")) - 1)
    except OSError:
        return 0


def _migrate(tree: str, out: str, jobs: int, executor: str, kill_at: int, progress: bool, log=None) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT)
    cmd = [sys.executable, "-m", "autodetach", "migrate", tree, "--report", out,
           "--progress" if progress else "--no-progress", "-q", "-j", str(jobs), "--executor", executor]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    coord_hwm = total_peak = 0
    killed = None
    seen = [0, 0]  # bytes and lines of the state read so far
    next_log = t0
    while proc.poll() is None:
        coord_hwm = max(coord_hwm, _kb(proc.pid, "VmHWM"))
        total = _kb(proc.pid, "VmRSS") + sum(_kb(c, "VmRSS") for c in _descendants(proc.pid))
        total_peak = max(total_peak, total)
        if log and time.perf_counter() >= next_log:
            next_log += 30
            _log(log, executor=executor, s=round(time.perf_counter() - t0),
                 records=_lines(os.path.join(out, "state.jsonl")),
                 coordinator_rss_mb=round(_kb(proc.pid, "VmRSS") / 1024, 1), total_rss_mb=round(total / 1024, 1))
        if kill_at and killed is None and os.path.exists(os.path.join(out, "state.jsonl")):
            with open(os.path.join(out, "state.jsonl"), "rb") as fh:  # read on from where we were
                fh.seek(seen[0])
                chunk = fh.read()
            seen[0] += len(chunk)
            seen[1] += chunk.count(b"\n")
            if seen[1] > kill_at:
                proc.kill()
                killed = round(time.perf_counter() - t0, 2)
        time.sleep(0.2)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode("utf-8", "replace")
    return {"seconds": round(wall, 2), "rc": proc.returncode, "killed_at_s": killed,
            "coordinator_peak_rss_mb": round(coord_hwm / 1024, 1), "total_peak_rss_mb": round(total_peak / 1024, 1),
            "stderr_tail": err[-300:] if proc.returncode not in (0, 1) and killed is None else ""}


def run_once(n: int, jobs: int, template: str, select, executors=("local",), kill_at: int = 0,
             progress: bool = False, log=None) -> list:
    base = tempdir("migrate")
    try:
        runs, trees = [], {}
        for k, ex in enumerate(executors):
            tree = os.path.join(base, ex, "legacy")
            make_tree(tree, n, repos=max(1, n // 100), template=template)
            if select:
                with open(os.path.join(tree, "autodetach.toml"), "w") as fh:
                    fh.write(f"select = {list(select)!r}\n".replace("'", '"'))
            out = os.path.join(base, ex, "out")
            kill = kill_at if k == 0 else 0
            r = _migrate(tree, out, jobs, ex, kill, progress, log)
            row = {"files": n, "executor": ex}
            if kill:
                done = len(_records(out))
                again = _migrate(tree, out, jobs, ex, 0, progress, log)
                recs = _records(out)
                outs = {x.get("out") for x in recs if x.get("status") == "changed"}
                row.update(killed_run=r, files_done_before_kill=done, resumed_run=again,
                           fixed_twice=sum(x.get("in") in outs for x in recs if x.get("status") == "changed"))
                r = {"seconds": round(r["seconds"] + again["seconds"], 2), "rc": again["rc"],
                     "coordinator_peak_rss_mb": max(r["coordinator_peak_rss_mb"], again["coordinator_peak_rss_mb"]),
                     "total_peak_rss_mb": max(r["total_peak_rss_mb"], again["total_peak_rss_mb"])}
            row.update(r, files_per_s=round(n / r["seconds"], 2) if r["seconds"] else None,
                       load_average_after=[round(x, 2) for x in os.getloadavg()])
            _log(log, done=row)
            with open(os.path.join(out, "report.json"), "rb") as fh:
                totals = json.load(fh).get("totals")
            trees[ex] = (snapshot(tree), totals)
            row["totals"] = totals
            runs.append(row)
            shutil.rmtree(tree, ignore_errors=True)
        if len(trees) > 1:
            first = trees[executors[0]]
            for row in runs[1:]:
                row["identical_to_" + executors[0]] = trees[row["executor"]] == first
        return runs
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,5000")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--template", choices=("tiny", "full"), default="tiny")
    ap.add_argument("--select", default="", help="comma-separated rule selectors written to autodetach.toml")
    ap.add_argument("--executors", default="local", help="comma-separated: local, dask")
    ap.add_argument("--kill-at", type=int, default=0, help="SIGKILL the first executor's run at N files, resume")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--log", default=None, help="append a JSON line every 30 s of each run")
    args = ap.parse_args(argv)
    template = TINY if args.template == "tiny" else TEMPLATE
    select = [s for s in args.select.split(",") if s]
    executors = tuple(e for e in args.executors.split(",") if e)
    runs = [r for n in args.sizes.split(",")
            for r in run_once(int(n), args.jobs, template, select, executors, args.kill_at, args.progress,
                             args.log)]
    out = {"benchmark": "migrate", "jobs": args.jobs, "template": args.template, "select": select or "ALL",
           "runs": runs}
    local = [r for r in runs if r["executor"] == executors[0]]
    if len(local) > 1 and local[0]["coordinator_peak_rss_mb"]:
        out["coordinator_rss_ratio_last_vs_first"] = round(
            local[-1]["coordinator_peak_rss_mb"] / local[0]["coordinator_peak_rss_mb"], 3)
    out["seconds_per_file"] = {r["executor"] + f"@{r['files']}": round(r["seconds"] / r["files"], 4) for r in runs}
    emit(out)
    return out


if __name__ == "__main__":
    main()
