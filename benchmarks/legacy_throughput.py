"""legacy_throughput: analysis cost on legacy (PyTorch 0.3) files, where
every file has findings, as a multiple of the libcst parse of the file.

Per file, in one process (best of --repeat, CPU seconds): the parse; the
report (`check_code`); the fix the CLI runs (`--fix --unsafe-fixes`: the
engine's passes); the `fix_code` API (which also reports what it fixed);
the fix passes. Optionally (`--cli-copies N`) the CLI on N copies of the
first file at -j2, report and `--fix --unsafe-fixes`, wall seconds and
files/s (the issue's measurement: 60 copies of train_mnist_03.py).

    PYTHONPATH=$PWD python benchmarks/legacy_throughput.py [FILE ...] [--repeat 5] [--cli-copies 60]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import ROOT, autodetach_cmd, emit, tempdir  # noqa: E402

DEFAULT = [os.path.join(ROOT, "corpus", "migration", "train_mnist_03.py"),
           os.path.join(ROOT, "corpus", "migration", "word_lm_03", "main.py"),
           os.path.join(ROOT, "corpus", "migration", "word_lm_03", "model.py")]


def best(fn, repeat: int) -> float:
    fn()  # warm: imports, rule plans
    out = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        out = min(out, time.process_time() - t)
    return out


def one(path: str, repeat: int) -> dict:
    import libcst as cst

    from autodetach import check_code, fix_code
    from autodetach import engine
    from autodetach.engine import Options, process_bytes
    from autodetach.registry import select_rules

    with open(path, "rb") as fh:
        data = fh.read()
    text = data.decode("utf-8")
    rules = select_rules()
    passes = []
    orig = engine.run_rules

    def counting(*a, **k):
        passes.append(1)
        return orig(*a, **k)

    engine.run_rules = counting
    try:
        process_bytes(data, path, rules, Options(fix=True, unsafe=True))
    finally:
        engine.run_rules = orig
    parse = best(lambda: cst.parse_module(text), repeat)
    check = best(lambda: check_code(text), repeat)
    fix_cli = best(lambda: process_bytes(data, path, rules, Options(fix=True, unsafe=True)), repeat)
    fix_api = best(lambda: fix_code(text, unsafe=True), repeat)
    findings = len(check_code(text))
    return {
        "file": os.path.relpath(path, ROOT) if path.startswith(ROOT) else path,
        "lines": text.count("\n"), "findings": findings, "fix_passes": len(passes),
        "parse_s": round(parse, 4), "check_s": round(check, 4),
        "fix_s": round(fix_cli, 4), "fix_code_s": round(fix_api, 4),
        "check_over_parse": round(check / parse, 2), "fix_over_parse": round(fix_cli / parse, 2),
        "fix_code_over_parse": round(fix_api / parse, 2),
    }


def cli(path: str, copies: int, jobs: int) -> dict:
    base = tempdir("legacy")
    try:
        src = os.path.join(base, "src")
        os.makedirs(src)
        for i in range(copies):
            shutil.copyfile(path, os.path.join(src, f"f{i:04d}.py"))
        env = dict(os.environ, PYTHONPATH=ROOT)
        report = cpu_cmd(autodetach_cmd("--no-cache", f"-j{jobs}", src), env)
        fix = cpu_cmd(autodetach_cmd("--no-cache", f"-j{jobs}", "--fix", "--unsafe-fixes", src), env)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    out = {"copies": copies, "jobs": jobs}
    for k, r in (("report", report), ("fix", fix)):
        out[f"{k}_s"] = round(r["seconds"], 2)
        out[f"{k}_files_per_s"] = round(copies / r["seconds"], 2)
        # CPU of the run and its workers: what a shared machine's load does not inflate much.
        out[f"{k}_cpu_s"] = round(r["cpu"], 2)
        out[f"{k}_cpu_s_per_file"] = round(r["cpu"] / copies, 3)
    return out


WRAP = ("import json,resource,subprocess,sys,time\n"
        "t=time.perf_counter()\n"
        "subprocess.call(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)\n"
        "w=time.perf_counter()-t\n"
        "ru=resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(json.dumps({'seconds':w,'cpu':ru.ru_utime+ru.ru_stime}))\n")


def cpu_cmd(cmd, env) -> dict:
    """Wall seconds and CPU seconds (user + system, workers included)."""
    import json
    import subprocess

    out = subprocess.run([sys.executable, "-c", WRAP, *cmd], env=env, capture_output=True, check=True)
    return json.loads(out.stdout.decode().strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cli-copies", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    files = args.files or DEFAULT
    rows = [one(p, args.repeat) for p in files]
    out = {"benchmark": "legacy_throughput", "clock": "process CPU seconds, best of repeat",
           "repeat": args.repeat, "files": rows,
           "max_check_over_parse": max(r["check_over_parse"] for r in rows),
           "max_fix_over_parse": max(r["fix_over_parse"] for r in rows)}
    if args.cli_copies:
        out["cli"] = cli(files[0], args.cli_copies, args.jobs)
    emit(out)


if __name__ == "__main__":
    main()
