"""Shared helpers for the benchmarks: the corpus, samples, timing, RSS."""
from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def default_corpus() -> str:
    """The Python source of the installed torch package (found without
    importing torch)."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("torch is not installed: pass a corpus path")
    return list(spec.submodule_search_locations)[0]


def py_files(root: str) -> list:
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "__pycache__")
        out.extend(os.path.join(d, f) for f in sorted(files) if f.endswith(".py"))
    return out


def sample(files: list, n: int) -> list:
    """`n` files evenly spaced through the sorted list (all when n <= 0)."""
    if n <= 0 or n >= len(files):
        return list(files)
    step = len(files) / n
    return [files[int(i * step)] for i in range(n)]


def read(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def count_lines(paths) -> int:
    return sum(read(p).count(b"\n") for p in paths)


def selected_rules(select=None):
    from autodetach.registry import select_rules

    return select_rules(select=select or ["ALL"], ignore=[])


def passes_prefilter(paths, rules, code_only: bool = False) -> list:
    """The files the token scan admits (the floor's files in every figure so
    far); `code_only`: those the engine admits, tokens in comments and
    docstrings not counted (autodetach.code_tokens)."""
    from autodetach.engine import prefilter, text_prefilter

    scan = prefilter if code_only else text_prefilter
    out = []
    for p in paths:
        text = read(p).decode("utf-8", "replace")
        if scan(text, rules):
            out.append(p)
    return out


def copy_tree(paths, base: str, dest: str, link: bool = False) -> list:
    """Copy (or hard-link) `paths` (under `base`) into `dest`, keeping the layout."""
    out = []
    for p in paths:
        rel = os.path.relpath(p, base)
        q = os.path.join(dest, rel)
        if link:
            link_or_copy(p, q)
        else:
            os.makedirs(os.path.dirname(q), exist_ok=True)
            shutil.copyfile(p, q)
        out.append(q)
    return out


def link_or_copy(src: str, dst: str) -> None:
    """Hard-link `src` at `dst` (its folders made), or copy it where links
    cannot be made (another file system)."""
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def tempdir(prefix: str) -> str:
    return tempfile.mkdtemp(prefix=f"autodetach-bench-{prefix}-")


def timed_cmd(cmd, cwd=None, env=None, timeout=None) -> dict:
    """Run a command: wall seconds, and CPU seconds (user + system) of it and
    its children (what a shared machine's load inflates least)."""
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"seconds": None, "rc": None, "timeout": timeout}
    wall = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ru.ru_utime + ru.ru_stime - ru0.ru_utime - ru0.ru_stime
    return {"seconds": round(wall, 3), "cpu_seconds": round(cpu, 3), "rc": proc.returncode,
            "stderr_tail": err.decode("utf-8", "replace")[-300:] if proc.returncode not in (0, 1) else ""}


def peak_rss_cmd(cmd, cwd=None, env=None, timeout=None) -> dict:
    """Wall time and peak RSS, measured by a small wrapper process so that
    RUSAGE_CHILDREN covers only this command and its workers. `peak_rss_mb`
    is the largest single process; `sum_rss_mb` adds the largest worker to
    the parent (an upper bound on the whole run at any moment)."""
    wrapper = (
        "import resource,subprocess,sys,time,json\n"
        "t=time.perf_counter()\n"
        "rc=subprocess.call(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)\n"
        "w=time.perf_counter()-t\n"
        "ru=resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(json.dumps({'seconds':w,'rc':rc,'maxrss_kb':ru.ru_maxrss}))\n"
    )
    try:
        out = subprocess.run([sys.executable, "-c", wrapper] + list(cmd), cwd=cwd, env=env,
                             capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"seconds": None, "peak_rss_mb": None, "timeout": timeout}
    d = json.loads(out.stdout.decode().strip().splitlines()[-1])
    return {"seconds": round(d["seconds"], 3), "rc": d["rc"], "peak_rss_mb": round(d["maxrss_kb"] / 1024, 1)}


def autodetach_cmd(*args) -> list:
    return [sys.executable, "-m", "autodetach", "--no-progress", "-q", "--exit-zero", *args]


def median(xs):
    xs = [x for x in xs if x is not None]
    return round(statistics.median(xs), 4) if xs else None


def emit(obj: dict) -> None:
    print(json.dumps(obj, indent=None, sort_keys=False))


def self_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
