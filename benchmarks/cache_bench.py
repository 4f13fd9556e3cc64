"""cache: a cold run, a warm re-run on the unchanged tree, and a re-run
after one file changed (report mode, the CLI, -j2).

    python benchmarks/cache_bench.py [CORPUS] [--files N] [--jobs 2]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (autodetach_cmd, copy_tree, default_corpus, emit, passes_prefilter, py_files,  # noqa: E402
                     sample, selected_rules, tempdir, timed_cmd)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?")
    ap.add_argument("--files", type=int, default=150)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    corpus = os.path.abspath(a.corpus or default_corpus())
    work = tempdir("cache")
    try:
        tree = os.path.join(work, "tree")
        files = copy_tree(sample(py_files(corpus), a.files), corpus, tree)
        with open(os.path.join(work, "pyproject.toml"), "w") as fh:
            fh.write("[tool.autodetach]\n")
        env = dict(os.environ)
        env.pop("XDG_CACHE_HOME", None)
        cmd = autodetach_cmd("-j", str(a.jobs), "tree")
        cold = timed_cmd(cmd, cwd=work, env=env)["seconds"]
        warm = timed_cmd(cmd, cwd=work, env=env)["seconds"]
        passing = passes_prefilter(files, selected_rules()) or files
        target = passing[len(passing) // 2]
        with open(target, "a") as fh:
            fh.write("\n# changed\n")
        one = timed_cmd(cmd, cwd=work, env=env)["seconds"]
        return {"benchmark": "cache", "corpus": corpus, "files": len(files), "jobs": a.jobs,
                "cold_seconds": cold, "warm_seconds": warm, "one_changed_seconds": one,
                "warm_speedup": round(cold / warm, 1) if cold and warm else None,
                "one_changed_speedup": round(cold / one, 1) if cold and one else None}
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    emit(main())
