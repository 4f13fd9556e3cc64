"""The per-file overhead of `autodetach migrate` without the analysis: the
coordinator (read, hash, state record, fsync'd write, report), the process
pool's round trips, and the workers' setup, measured by running the real
migration over a generated tree with the per-file work replaced by a stub
that costs nothing (it drops `Variable(` calls' names). Beside it, the real
per-file work (`migrate.work.migrate_file`) on the same files, in one
process. Prints one JSON object.

    PYTHONPATH=$PWD python benchmarks/migrate_overhead.py [--files 1000] [--jobs 2] [--repeat 3] [--code DIR]
        [--executor local|dask]

`--executor dask`: the same on a local dask cluster of `--jobs` workers,
started once (its start-up is reported apart) and used for every repeat.

`--code DIR` measures the autodetach in DIR (another checkout) with this
script. Wall time is the best of `--repeat`; record the load average beside
the figures (it is in the output), this machine is shared.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import time


def stub(path: str, data: bytes, settings) -> tuple:
    """A migration that costs nothing: the coordinator's path still runs whole."""
    new = data.replace(b"Variable(", b"(")
    rec = {"path": path, "status": "unchanged", "fixed": {}, "left": [], "unsafe": []}
    if new == data:
        return rec, None
    rec.update(status="changed", fixed={"AD202": data.count(b"Variable(")})
    return rec, new


def _cpu(who) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--executor", choices=("local", "dask"), default="local")
    ap.add_argument("--code", default=None, help="the checkout whose autodetach is measured")
    args = ap.parse_args(argv)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.abspath(args.code or os.path.dirname(here)))
    sys.path.insert(1, here)
    sys.path.insert(2, os.path.dirname(here))
    from _common import emit, tempdir
    from tests.legacy_tree import TINY, make_tree

    import autodetach
    from autodetach import executors
    from autodetach.migrate import core
    from autodetach.migrate.work import migrate_file
    from autodetach.registry import by_code
    from autodetach.runner import Settings

    codes = tuple(by_code())
    settings = Settings(codes=codes, fix=True)
    base = tempdir("migrate-overhead")
    real = core.migrate_file
    t0 = time.perf_counter()
    engine = executors.make(args.executor, args.jobs)
    startup = time.perf_counter() - t0
    try:
        src = os.path.join(base, "src")
        paths = make_tree(src, args.files, repos=max(1, args.files // 100), template=TINY)
        walls, coord, workers = [], [], []
        core.migrate_file = stub  # looked up when migrate() runs; forked workers inherit it
        for k in range(args.repeat):
            tree, out = os.path.join(base, f"t{k}"), os.path.join(base, f"out{k}")
            shutil.copytree(src, tree)
            files = sorted(os.path.join(tree, os.path.relpath(p, src)) for p in paths)
            c0, w0, t0 = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN), time.perf_counter()
            core.migrate(core.Run(files=files, settings=settings, report_dir=out, roots=[tree], jobs=args.jobs,
                                 executor=engine))
            walls.append(time.perf_counter() - t0)
            coord.append(_cpu(resource.RUSAGE_SELF) - c0)
            workers.append(_cpu(resource.RUSAGE_CHILDREN) - w0)
            shutil.rmtree(tree)
        core.migrate_file = real
        n = args.files
        sample = paths[: min(n, 200)]
        datas = [(p, open(p, "rb").read()) for p in sample]
        migrate_file(*datas[0], settings)  # imports and first-use caches out of the figure
        c0 = time.process_time()
        for p, d in datas:
            migrate_file(p, d, settings)
        work_ms = (time.process_time() - c0) / len(datas) * 1000
    finally:
        core.migrate_file = real
        if engine is not None:
            engine.close()
        shutil.rmtree(base, ignore_errors=True)
    out = {"benchmark": "migrate_overhead", "code": os.path.dirname(os.path.dirname(autodetach.__file__)),
           "files": n, "jobs": args.jobs, "executor": args.executor, "startup_s": round(startup, 2),
           "load_average": os.getloadavg(),
           "overhead_wall_ms_per_file": round(min(walls) / n * 1000, 3),
           "overhead_wall_ms_per_file_all": [round(w / n * 1000, 3) for w in walls],
           "coordinator_cpu_ms_per_file": round(min(coord) / n * 1000, 3),
           # With dask the workers are not this process's children: not counted.
           "workers_cpu_ms_per_file": round(min(workers) / n * 1000, 3),
           "migrate_file_cpu_ms_per_file": round(work_ms, 3)}
    emit(out)
    return out


if __name__ == "__main__":
    main()
