"""throughput: autodetach (report mode and --diff) against TorchFix on the
same tree, at -j1 and -j2, plus the floor (a bare libcst.parse_module loop
over the files that pass the pre-filter, one core).

    python benchmarks/throughput.py [CORPUS] [--files N] [--repeat R]

CORPUS defaults to the installed torch package's source. --files N takes N
files evenly spaced through the sorted tree (0: all). The floor and the
engine are CPU seconds of this process; each CLI run gives wall seconds and
CPU seconds (the command and its workers). Prints one JSON object.
"""
from __future__ import annotations

import argparse
import ast
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (autodetach_cmd, copy_tree, count_lines, default_corpus, emit, median,  # noqa: E402
                     passes_prefilter, py_files, read, sample, selected_rules, tempdir, timed_cmd)


def torchfix_available() -> bool:
    return shutil.which("torchfix") is not None


def floor_seconds(paths) -> float:
    import libcst

    t = time.process_time()  # CPU seconds: the machine is shared
    for p in paths:
        try:
            libcst.parse_module(read(p))
        except Exception:
            pass
    return time.process_time() - t


def cli_env() -> dict:
    """The CLI runs from bytecode, as an installed package does (TorchFix's
    is compiled when pip installs it): a PYTHONDONTWRITEBYTECODE environment
    would charge each autodetach run with compiling the package (about half
    its start-up), so the package this process imports is compiled first."""
    import compileall

    import autodetach

    compileall.compile_dir(os.path.dirname(autodetach.__file__), quiet=1)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def inprocess_seconds(paths, rules) -> float:
    """autodetach's engine on these files, one core, no process start-up."""
    from autodetach.engine import Options, process_bytes

    t = time.process_time()
    for p in paths:
        process_bytes(read(p), p, rules, Options())
    return time.process_time() - t


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?")
    ap.add_argument("--files", type=int, default=150)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--jobs", default="1,2", help="CLI runs at these -j; 0: no CLI runs (in-process figures only)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per tool run")
    a = ap.parse_args(argv)
    corpus = os.path.abspath(a.corpus or default_corpus())
    all_files = py_files(corpus)
    chosen = sample(all_files, a.files)
    work = tempdir("throughput")
    try:
        files = copy_tree(chosen, corpus, os.path.join(work, "tree"))
        tree = os.path.join(work, "tree")
        rules = selected_rules()
        t = time.perf_counter()
        passing = passes_prefilter(files, rules)
        prefilter_s = time.perf_counter() - t
        t = time.perf_counter()
        for p in files:
            try:
                ast.parse(read(p))
            except (SyntaxError, ValueError):
                pass
        ast_s = time.perf_counter() - t
        floor = median([floor_seconds(passing) for _ in range(a.repeat)])
        engine = median([inprocess_seconds(files, rules) for _ in range(a.repeat)])
        engine_pass = median([inprocess_seconds(passing, rules) for _ in range(a.repeat)])
        n = len(files)
        runs = {}
        jobs = [int(j) for j in a.jobs.split(",") if int(j) > 0]
        env = cli_env() if jobs else None
        for j in jobs:
            tools = {
                "autodetach_report": autodetach_cmd("--no-cache", "-j", str(j), tree),
                "autodetach_diff": autodetach_cmd("--no-cache", "--diff", "-j", str(j), tree),
            }
            if torchfix_available():
                tools["torchfix"] = ["torchfix", "-j", str(j), tree]
            for name, cmd in tools.items():
                got = [timed_cmd(cmd, env=env, timeout=a.timeout) for _ in range(a.repeat)]
                s = median([g.get("seconds") for g in got])
                cpu = median([g.get("cpu_seconds") for g in got])
                runs[f"{name}_j{j}"] = {"seconds": s, "files_per_s": round(n / s, 2) if s else None,
                                        "cpu_seconds": cpu, "files_per_cpu_s": round(n / cpu, 2) if cpu else None}
        ratios = {}
        for j in jobs:
            tf = runs.get(f"torchfix_j{j}", {}).get("seconds")
            for mode in ("report", "diff"):
                ad = runs[f"autodetach_{mode}_j{j}"]["seconds"]
                ratios[f"{mode}_vs_torchfix_j{j}"] = round(tf / ad, 2) if tf and ad else None
        out = {
            "benchmark": "throughput",
            "corpus": corpus,
            "corpus_files": len(all_files),
            "files": n,
            "lines": count_lines(files),
            "prefilter_pass": len(passing),
            "prefilter_code_pass": len(passes_prefilter(files, rules, code_only=True)),
            "prefilter_seconds": round(prefilter_s, 4),
            "ast_parse_seconds": round(ast_s, 3),
            "floor_libcst_parse_seconds": floor,
            "engine_inprocess_seconds_all_files_j1": engine,
            "engine_inprocess_seconds_prefiltered_j1": engine_pass,
            "engine_multiple_of_floor": round(engine_pass / floor, 2) if floor else None,
            "cli_report_j1_multiple_of_floor": (round(runs["autodetach_report_j1"]["cpu_seconds"] / floor, 2)
                                                if floor and "autodetach_report_j1" in runs
                                                and runs["autodetach_report_j1"]["cpu_seconds"] else None),
            "runs": runs,
            "speedup_vs_torchfix": ratios,
            "torchfix": "torchfix 0.7.0" if torchfix_available() else None,
            "repeat": a.repeat,
        }
        if not torchfix_available():
            out["torchfix_missing"] = "pip install --no-deps torchfix==0.7.0 flake8 pyyaml"
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    emit(main())
