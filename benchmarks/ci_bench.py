"""ci: `autodetach ci --changed-since main` on a pull request that touches
10 files of a 10,000-file repository (hard links to a pool of corpus files),
with a cold cache and a warm one. Verification aside.

    python benchmarks/ci_bench.py [CORPUS] [--files 10000] [--changed 10] [--repeat 3] [--notebooks 0]

--notebooks N adds N notebooks (a corpus file's top-level blocks as cells)
to main, and the pull request inserts a cell with PR_CODE into each: the
bot then diffs their code cells too (ci/nblines).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import default_corpus, emit, link_or_copy, median, py_files, sample, tempdir, timed_cmd  # noqa: E402

# What each touched file gains in the pull request: a GAN step without detach
# and a legacy Variable(x.data), both with fixes.
PR_CODE = '''

def _pr_gan_step(G, D, bce, opt_g, opt_d, z, ones, zeros):
    from torch.autograd import Variable
    fake = G(z)
    opt_g.zero_grad()
    g_loss = bce(D(fake), ones)
    g_loss.backward()
    opt_g.step()
    opt_d.zero_grad()
    d_loss = bce(D(Variable(z.data)), ones) + bce(D(fake), zeros)
    d_loss.backward()
    opt_d.step()
'''


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _notebook(path: str, cells: list) -> None:
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    nbformat.write(new_notebook(cells=[new_code_cell(c) for c in cells]), path)


def _blocks(path: str) -> list:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return [b for b in fh.read().split("\n\n\n") if b.strip()] or ["pass"]


def build(work: str, pool: list, n: int, changed: int, notebooks: int = 0) -> list:
    """A repository of n files (hard links into the pool) and `notebooks`
    notebooks on main, and a branch `pr` that appends PR_CODE to `changed`
    of the files and inserts it as a cell into each notebook."""
    repo = os.path.join(work, "repo")
    books = [(os.path.join(repo, f"nb{i:02d}.ipynb"), _blocks(pool[i % len(pool)])) for i in range(notebooks)]
    for path, cells in books:
        os.makedirs(repo, exist_ok=True)
        _notebook(path, cells)
    paths = []
    for i in range(n):
        rel = os.path.join(f"pkg{i // 100:03d}", f"mod{i:05d}.py")
        dst = os.path.join(repo, rel)
        link_or_copy(pool[i % len(pool)], dst)
        paths.append(dst)
    with open(os.path.join(repo, "pyproject.toml"), "w") as fh:
        fh.write("[tool.autodetach]\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr")
    touched = sample(paths, changed)
    for p in touched:
        with open(p, "rb") as fh:
            data = fh.read()
        os.unlink(p)  # break the hard link: the pool stays as it was
        with open(p, "wb") as fh:
            fh.write(data + PR_CODE.encode())
    for path, cells in books:
        _notebook(path, cells[:len(cells) // 2] + [PR_CODE.strip("\n")] + cells[len(cells) // 2:])
        touched.append(path)
    git(repo, "add", ".")
    git(repo, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "pr")
    return [repo, touched]


def timed(cmd, cwd, env) -> tuple:
    """(wall seconds, CPU seconds of the command and its children): on a
    shared machine the CPU time is the steadier figure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = timed_cmd(cmd, cwd=cwd, env=env)["seconds"]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, round(cpu, 3)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?")
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--changed", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--notebooks", type=int, default=0)
    a = ap.parse_args(argv)
    corpus = os.path.abspath(a.corpus or default_corpus())
    work = tempdir("ci")
    try:
        repo, touched = build(work, py_files(corpus), a.files, a.changed, a.notebooks)
        out = os.path.join(work, "report.json")
        cmd = [sys.executable, "-m", "autodetach", "ci", "--changed-since", "main", "--exit-zero",
               "--output-format", "json", "-o", out, "--patch", os.path.join(work, "fix.patch")]
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "xdg"))
        # An installed package runs from bytecode; a PYTHONDONTWRITEBYTECODE
        # environment would charge every run with compiling autodetach.
        dropped = env.pop("PYTHONDONTWRITEBYTECODE", None) is not None
        bytecode = "PYTHONDONTWRITEBYTECODE dropped: the first run writes it" if dropped else \
            "as the environment has it"
        cold, warm = [], []
        for _ in range(a.repeat):
            shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)
            shutil.rmtree(os.path.join(repo, ".autodetach_cache"), ignore_errors=True)
            cold.append(timed(cmd, repo, env))
            warm.append(timed(cmd, repo, env))
        with open(out, encoding="utf-8") as fh:
            report = json.load(fh)
        with open(os.path.join(work, "fix.patch"), encoding="utf-8", errors="replace") as fh:
            patch = fh.read()
        return {"benchmark": "ci", "corpus": corpus, "repo_files": a.files, "changed_files": len(touched),
                "changed_notebooks": a.notebooks,
                "files_checked": report["summary"]["files"], "findings_on_changed_lines": len(report["findings"]),
                "files_in_patch": patch.count("\n+++ ") + patch.startswith("+++ "),
                "cold_seconds": median([w for w, _ in cold]), "warm_seconds": median([w for w, _ in warm]),
                "cold_cpu_seconds": median([c for _, c in cold]), "warm_cpu_seconds": median([c for _, c in warm]),
                "cold_runs": cold, "warm_runs": warm, "load_average": round(os.getloadavg()[0], 1),
                "bytecode": bytecode,
                "goal": {"warm_seconds": 2.0, "cold_seconds": 20.0}}
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    emit(main())
