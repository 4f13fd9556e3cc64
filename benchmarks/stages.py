"""stages: where autodetach's time goes, per stage, in --fix mode (fixed
files are written to a scratch copy, never to the corpus).

    python benchmarks/stages.py [CORPUS] [--files N]

Stages: read, pre-filter (decode + token check), parse (libcst.parse_module,
including the re-parse that checks each fixed output), metadata (libcst
metadata resolution: positions, parents), analysis (the shared AD1xx
analysis; its own metadata use counts as metadata), rules (the batched walk
and the rules' own work: the rest of the engine), codegen (applying edits and
printing the tree), write (atomic write of fixed files). Timings are taken by
wrapping those functions (exclusive time: nested stages are subtracted).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import default_corpus, emit, py_files, sample, selected_rules, tempdir  # noqa: E402

STAGES = ("read", "pre-filter", "parse", "metadata", "analysis", "rules", "codegen", "write")


class Clock:
    def __init__(self):
        self.total = {s: 0.0 for s in STAGES}
        self.stack = []  # [stage, start, nested]

    def wrap(self, stage, fn):
        clock = self

        def timed(*args, **kwargs):
            clock.stack.append([stage, time.perf_counter(), 0.0])
            try:
                return fn(*args, **kwargs)
            finally:
                st, t0, nested = clock.stack.pop()
                took = time.perf_counter() - t0
                clock.total[st] += took - nested
                if clock.stack:
                    clock.stack[-1][2] += took
        return timed


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?")
    ap.add_argument("--files", type=int, default=60)
    a = ap.parse_args(argv)
    corpus = os.path.abspath(a.corpus or default_corpus())
    files = sample(py_files(corpus), a.files)

    import libcst
    import libcst.metadata as md
    import autodetach.analysis as analysis
    import autodetach.engine as engine
    from autodetach import textio

    clock = Clock()
    libcst.parse_module = clock.wrap("parse", libcst.parse_module)
    md.MetadataWrapper.resolve = clock.wrap("metadata", md.MetadataWrapper.resolve)
    analysis.build = clock.wrap("analysis", analysis.build)
    try:  # the analysis is lazy: time its cached properties and methods
        from functools import cached_property

        from autodetach.analysis import model
        for name, attr in list(vars(model.Analysis).items()):
            if isinstance(attr, cached_property):
                attr.func = clock.wrap("analysis", attr.func)
            elif callable(attr) and not name.startswith("__"):
                setattr(model.Analysis, name, clock.wrap("analysis", attr))
        for name in ("build_names",):
            if hasattr(model, name):
                setattr(model, name, clock.wrap("analysis", getattr(model, name)))
    except ImportError:
        pass
    engine.prefilter = clock.wrap("pre-filter", engine.prefilter)
    engine.decode = clock.wrap("pre-filter", engine.decode)
    engine.suppress.skip_file = clock.wrap("pre-filter", engine.suppress.skip_file)
    libcst.Module.code = property(clock.wrap("codegen", libcst.Module.code.fget))
    real_visit = libcst.CSTNode.visit
    timed_visit = clock.wrap("codegen", real_visit)

    def visit(self, visitor):
        if isinstance(visitor, engine._Apply) and not clock.stack or (
                isinstance(visitor, engine._Apply) and clock.stack[-1][0] != "codegen"):
            return timed_visit(self, visitor)
        return real_visit(self, visitor)

    libcst.Module.visit = visit
    process = clock.wrap("rules", engine.process_bytes)
    write = clock.wrap("write", textio.write_atomic)

    out_dir = tempdir("stages")
    rules = selected_rules()
    opts = engine.Options(fix=True)
    fixed_files = 0
    t_all = time.perf_counter()
    try:
        for i, p in enumerate(files):
            t0 = time.perf_counter()
            with open(p, "rb") as fh:
                data = fh.read()
            clock.total["read"] += time.perf_counter() - t0
            res = process(data, p, rules, opts)
            if res.new_source is not None:
                fixed_files += 1
                write(os.path.join(out_dir, f"{i}.py"), res.new_source)
        wall = time.perf_counter() - t_all
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    total = sum(clock.total.values())
    return {
        "benchmark": "stages",
        "corpus": corpus,
        "files": len(files),
        "files_fixed": fixed_files,
        "wall_seconds": round(wall, 3),
        "seconds": {s: round(v, 4) for s, v in clock.total.items()},
        "percent": {s: round(100 * v / total, 1) if total else 0.0 for s, v in clock.total.items()},
    }


if __name__ == "__main__":
    emit(main())
