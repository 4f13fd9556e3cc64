"""scale_bench: the executors at organisation scale, on this machine.

(1) Trees of N legacy files (hard links to the corpus's Python files: 0.3
idioms, AD1 cases, fixed versions, a realistic mix), `autodetach --diff`
(the whole fix computation, nothing written) with the local process pool
and with a local dask cluster of the same number of workers: wall seconds,
files/s, seconds per file, peak RSS (largest process, workers included), and
the cluster's overhead per file against the pool.
(2) Engine overhead per task, no analysis: a no-op task carrying one file's
bytes, one file per task and batches of 8, for dask and (when installed) ray,
plus their start-up time. This is what docs/scale.md chose dask by.
(3) The projected time for 1M files on N workers from the measured cost
per file.

    PYTHONPATH=$PWD python benchmarks/scale_bench.py [--sizes 200,1000] [--jobs 2] [--no-engines]

The full run: --sizes 1000,10000,50000 (about an hour on 2 cores).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import ROOT, autodetach_cmd, emit, link_or_copy, peak_rss_cmd, py_files, tempdir  # noqa: E402

# Runs in a fresh interpreter: one engine's start-up and per-task overhead.
ENGINE = r'''
import json, sys, time
engine, n, workers, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
payload = open(sys.argv[5], "rb").read()

def noop(items):
    return [(i, len(data)) for i, data in items]

items = [(i, payload) for i in range(n)]
batches = [items[k:k + batch] for k in range(0, n, batch)]
t0 = time.perf_counter()
if engine == "dask":
    import logging
    from distributed import Client, LocalCluster, as_completed
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    client.submit(noop, [], pure=False).result()
    t1 = time.perf_counter()
    window = workers * 4
    it = iter(batches); running = as_completed(); done = 0
    for _ in range(window):
        b = next(it, None)
        if b is not None: running.add(client.submit(noop, b, pure=False))
    for fut in running:
        done += len(fut.result()); fut.release()
        b = next(it, None)
        if b is not None: running.add(client.submit(noop, b, pure=False))
    t2 = time.perf_counter()
    client.close(); cluster.close()
else:
    import ray
    ray.init(num_cpus=workers, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    rnoop = ray.remote(noop)
    ray.get(rnoop.remote([]))
    t1 = time.perf_counter()
    window = workers * 4
    it = iter(batches); running = []; done = 0
    for _ in range(window):
        b = next(it, None)
        if b is not None: running.append(rnoop.remote(b))
    while running:
        ready, running = ray.wait(running, num_returns=1)
        done += len(ray.get(ready[0]))
        b = next(it, None)
        if b is not None: running.append(rnoop.remote(b))
    t2 = time.perf_counter()
    ray.shutdown()
assert done == n
print(json.dumps({"startup_s": t1 - t0, "per_file_ms": (t2 - t1) / n * 1000}))
'''


def engine_overhead(engine: str, n: int, workers: int, batch: int, payload: str, timeout: int) -> dict:
    try:
        out = subprocess.run([sys.executable, "-c", ENGINE, engine, str(n), str(workers), str(batch), payload],
                             capture_output=True, timeout=timeout, check=False)
        d = json.loads(out.stdout.decode().strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        return {"engine": engine, "batch": batch, "timeout": timeout}
    except (ValueError, IndexError):
        return {"engine": engine, "batch": batch, "error": out.stderr.decode()[-300:]}
    return {"engine": engine, "batch": batch, "tasks_files": n,
            "startup_s": round(d["startup_s"], 2), "per_file_ms": round(d["per_file_ms"], 3)}


def installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def make_tree(dest: str, pool: list, size: int) -> None:
    for i in range(size):
        link_or_copy(pool[i % len(pool)], os.path.join(dest, f"repo{i // 1000}", f"pkg{(i // 100) % 10}", f"f{i}.py"))


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="200,1000")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--executors", default="local,dask")
    ap.add_argument("--engine-files", type=int, default=2000)
    ap.add_argument("--no-engines", action="store_true", help="skip the per-task overhead of dask/ray")
    ap.add_argument("--timeout", type=int, default=7200)
    a = ap.parse_args(argv)
    pool = py_files(os.path.join(ROOT, "corpus"))
    work = tempdir("scale")
    env = dict(os.environ, PYTHONPATH=ROOT)
    runs = []
    try:
        for size in [int(s) for s in a.sizes.split(",") if s]:
            tree = os.path.join(work, f"tree{size}")
            make_tree(tree, pool, size)
            for ex in a.executors.split(","):
                if ex == "dask" and not installed("distributed"):
                    runs.append({"executor": ex, "files": size, "skipped": "distributed not installed"})
                    continue
                cmd = autodetach_cmd("--no-cache", "-j", str(a.jobs), "--diff", "--executor", ex, tree)
                r = peak_rss_cmd(cmd, cwd=work, env=env, timeout=a.timeout)
                r.update(executor=ex, files=size)
                if r.get("seconds"):
                    r["files_per_s"] = round(size / r["seconds"], 2)
                    r["ms_per_file"] = round(r["seconds"] / size * 1000, 2)
                runs.append(r)
            shutil.rmtree(tree, ignore_errors=True)
        out = {"benchmark": "scale_bench", "jobs": a.jobs, "pool_files": len(pool), "mode": "--diff",
               "runs": runs}
        # Cluster overhead per file: the difference of the per-file costs at each size.
        over = []
        for size in sorted({r["files"] for r in runs}):
            by = {r["executor"]: r for r in runs if r["files"] == size and r.get("seconds")}
            if "local" in by and "dask" in by:
                over.append({"files": size, "dask_minus_local_ms_per_file":
                             round(by["dask"]["ms_per_file"] - by["local"]["ms_per_file"], 2)})
        out["dask_overhead"] = over
        if not a.no_engines:
            payload = os.path.join(ROOT, "corpus", "migration", "train_mnist_03.py")
            eng = []
            for engine, module in (("dask", "distributed"), ("ray", "ray")):
                if not installed(module):
                    eng.append({"engine": engine, "skipped": f"{module} not installed"})
                    continue
                for batch in (1, 8, 32):
                    eng.append(engine_overhead(engine, a.engine_files, a.jobs, batch, payload, 900))
            out["engine_overhead"] = eng
        # 1M files on N workers from the largest local run's cost per file and core.
        largest = max((r for r in runs if r.get("seconds") and r["executor"] == "local"),
                      key=lambda r: r["files"], default=None)
        if largest:
            core_s = largest["seconds"] * a.jobs / largest["files"]
            out["projection_1M"] = {"core_seconds_per_file": round(core_s, 4), "hours_on_workers": {
                str(n): round(1_000_000 * core_s / n / 3600, 2) for n in (2, 16, 64, 256)}}
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    emit(main())
