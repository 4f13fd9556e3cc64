"""Notebooks and the flake8 plugin on real code; prints one JSON object.

    python benchmarks/notebook_bench.py [--mirrors /work/.mirror] [--notebooks 60] [--stdlib-files 300]

- `notebooks`: `.ipynb` files from the bare mirrors under --mirrors (read
  at run time with `git show`, copied to a temporary directory, never into
  the repository; --notebooks N evenly spaced, 0 for all). Per notebook, in-process: read by nbformat or AD000, the
  findings, and after `--fix --unsafe-fixes` on a copy: the file still a
  valid notebook, nothing but code cells' `source` changed, every IPython
  line (magic, shell escape) still there, a second fix changing nothing.
- `speed`: the CLI (-j1, --no-cache, report mode) over those notebooks,
  and over the same code as `.py` files (each notebook's code cells joined
  as autodetach sees them); the notebook overhead is the ratio.
- `flake8`: `flake8 --select F` over a sample of the standard library
  (site-packages left out: no torch, the pre-filter's case) with and without the AD plugin
  registered, and `flake8 --select AD` over the notebooks' code as `.py`.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time

from _common import ROOT, emit, median, py_files, sample, tempdir, timed_cmd  # noqa: F401


def _mirror_notebooks(mirrors: str, dest: str) -> list:
    out = []
    for name in sorted(os.listdir(mirrors)):
        git_dir = os.path.join(mirrors, name, "repo")
        if not os.path.isdir(git_dir):
            continue
        try:
            listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", "HEAD"],
                                     capture_output=True, text=True, check=True).stdout.splitlines()
        except subprocess.CalledProcessError:
            continue
        for path in listing:
            if not path.endswith(".ipynb") or ".ipynb_checkpoints" in path:
                continue
            data = subprocess.run(["git", "--git-dir", git_dir, "show", f"HEAD:{path}"],
                                  capture_output=True).stdout
            target = os.path.join(dest, name, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as fh:
                fh.write(data)
            out.append(target)
    return out


def _ipython_lines(path: str) -> list:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    return [ln for c in nb.cells if c.cell_type == "code" for ln in c.source.splitlines()
            if ln.lstrip().startswith(("%", "!"))]


def _without_sources(path: str) -> dict:
    with open(path, encoding="utf-8-sig") as fh:
        doc = json.load(fh)
    for c in doc.get("cells", []):
        if c.get("cell_type") == "code":
            c.pop("source", None)
    return doc


def check_notebooks(paths: list, work: str) -> dict:
    import nbformat

    from autodetach import notebook
    from autodetach.engine import Options
    from autodetach.registry import all_rules

    rules = list(all_rules())
    rows = []
    for p in paths:
        with open(p, "rb") as fh:
            data = fh.read()
        rep = notebook.process(data, p, rules, Options())
        row = {"notebook": os.path.relpath(p, work), "findings": len(rep.findings),
               "ad000": sum(f.code == "AD000" for f in rep.findings), "errors": len(rep.errors),
               "skipped": rep.skipped}
        fixed = notebook.process(data, p, rules, Options(fix=True, unsafe=True))
        row["fixed"] = fixed.fixed
        if fixed.new_source is not None:
            copy = p + ".fixed.ipynb"
            with open(copy, "wb") as fh:
                fh.write(fixed.new_source)
            try:
                nbformat.validate(nbformat.read(copy, as_version=4))
                row["valid_after"] = True
            except Exception as exc:  # noqa: BLE001 - recorded, not raised
                row["valid_after"] = f"{type(exc).__name__}: {exc}"[:200]
            row["only_sources_changed"] = _without_sources(copy) == _without_sources(p)
            row["ipython_lines_kept"] = _ipython_lines(copy) == _ipython_lines(p)
            again = notebook.process(fixed.new_source, copy, rules, Options(fix=True, unsafe=True))
            row["idempotent"] = again.new_source is None
            row["changed_lines"] = sum(1 for a, b in zip(data.split(b"\n"), fixed.new_source.split(b"\n")) if a != b)
            os.remove(copy)
        rows.append(row)
    fixed_rows = [r for r in rows if "valid_after" in r]
    return {
        "notebooks": len(rows),
        "read_ok": sum(1 for r in rows if not r["ad000"] and not r["errors"]),
        "ad000": [r["notebook"] for r in rows if r["ad000"]],
        "errors": [r["notebook"] for r in rows if r["errors"]],
        "with_findings": sum(1 for r in rows if r["findings"]),
        "findings": sum(r["findings"] for r in rows),
        "fixed_notebooks": len(fixed_rows),
        "fixes": sum(r["fixed"] for r in rows),
        "fixed_all_valid": all(r["valid_after"] is True for r in fixed_rows),
        "fixed_only_sources_changed": all(r["only_sources_changed"] for r in fixed_rows),
        "fixed_ipython_lines_kept": all(r["ipython_lines_kept"] for r in fixed_rows),
        "fixed_idempotent": all(r["idempotent"] for r in fixed_rows),
        "problems": [r for r in fixed_rows if not (r["valid_after"] is True and r["only_sources_changed"]
                                                   and r["ipython_lines_kept"] and r["idempotent"])],
    }


def _as_py(paths: list, dest: str) -> list:
    from autodetach import notebook

    out = []
    for i, p in enumerate(paths):
        try:
            with open(p, "rb") as fh:
                text = notebook.read(fh.read()).virtual()
        except Exception:  # noqa: BLE001 - a notebook nbformat cannot read has no code to compare
            continue
        target = os.path.join(dest, f"nb{i:04d}.py")
        with open(target, "w", encoding="utf-8") as fh:
            fh.write(text)
        out.append(target)
    return out


def _flake8_env(with_plugin: bool, site: str) -> dict:
    env = dict(os.environ)
    paths = [ROOT] + ([site] if with_plugin else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def _plugin_site(base: str) -> str:
    """A stand-in distribution declaring this checkout's flake8 entry point
    (the installed autodetach may be another checkout)."""
    info = os.path.join(base, "site", "autodetach_bench-0.dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w") as fh:
        fh.write("Metadata-Version: 2.1\nName: autodetach-bench\nVersion: 0\n")
    with open(os.path.join(info, "entry_points.txt"), "w") as fh:
        fh.write("[flake8.extension]\nAD = autodetach.flake8_plugin:Plugin\n")
    return os.path.join(base, "site")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--notebooks", type=int, default=60)
    ap.add_argument("--stdlib-files", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", default="notebooks,speed,flake8", help="comma-separated parts")
    a = ap.parse_args()
    parts = set(a.only.split(","))
    rep = range(max(1, a.repeat))
    work = tempdir("notebooks")
    try:
        every = _mirror_notebooks(a.mirrors, os.path.join(work, "nb"))
        nbs = sample(every, a.notebooks)
        for p in set(every) - set(nbs):
            os.remove(p)
        out = {}
        if "notebooks" in parts:
            out["notebooks"] = check_notebooks(nbs, os.path.join(work, "nb"))
        os.makedirs(os.path.join(work, "py"))
        pys = _as_py(nbs, os.path.join(work, "py"))
        cli = [sys.executable, "-m", "autodetach", "--no-progress", "-q", "--exit-zero", "--no-cache", "-j", "1"]
        env = dict(os.environ, PYTHONPATH=ROOT)
        nb_t = [timed_cmd(cli + [os.path.join(work, "nb")], env=env)["seconds"] for _ in rep] \
            if "speed" in parts else [None]
        py_t = [timed_cmd(cli + [os.path.join(work, "py")], env=env)["seconds"] for _ in rep] \
            if "speed" in parts else [None]
        out["speed"] = {"notebooks": len(nbs), "as_py_files": len(pys), "notebooks_s": median(nb_t),
                        "py_s": median(py_t),
                        "notebook_over_py": round(median(nb_t) / median(py_t), 2) if median(py_t) else None}
        if "flake8" not in parts:
            emit(out)
            return
        site = _plugin_site(work)
        std = sysconfig.get_paths()["stdlib"]
        stdlib = sample([p for p in py_files(std) if "site-packages" not in os.path.relpath(p, std)],
                        a.stdlib_files)
        lib = os.path.join(work, "stdlib")
        os.makedirs(lib)
        for i, p in enumerate(stdlib):
            shutil.copy(p, os.path.join(lib, f"s{i:04d}.py"))
        f8 = [sys.executable, "-m", "flake8", "--isolated", "-j", "1", "--exit-zero"]
        without = [timed_cmd(f8 + ["--select", "F", lib], env=_flake8_env(False, site))["seconds"] for _ in rep]
        with_ = [timed_cmd(f8 + ["--select", "F", lib], env=_flake8_env(True, site))["seconds"] for _ in rep]
        t0 = time.perf_counter()
        ad = subprocess.run(f8 + ["--select", "AD", os.path.join(work, "py")], env=_flake8_env(True, site),
                            capture_output=True, text=True)
        ad_t = [round(time.perf_counter() - t0, 3)]
        out["flake8"] = {"stdlib_files": len(stdlib), "without_plugin_s": median(without),
                         "with_plugin_s": median(with_),
                         "plugin_overhead": round(median(with_) / median(without), 3) if median(without) else None,
                         "notebook_code_files": len(pys), "select_AD_s": median(ad_t),
                         "select_AD_findings": len(ad.stdout.splitlines())}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    emit(out)


if __name__ == "__main__":
    main()
