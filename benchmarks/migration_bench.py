"""Migration benchmark: real 2017-2019 PyTorch code through `--fix --unsafe-fixes`.

For each Python file (and each notebook's code cells) of a repository at an
old commit: the legacy idioms the AD2xx rules find before; whether the fixed
text parses; the AD2xx findings left after fixing (what the rules could not
rewrite); and, as a check that does not trust the rules, a list of legacy
patterns searched as plain text before and after. Prints one JSON object.

The repositories are bare git mirrors (the search tool's `fetch`, under
/work/.mirror by default); files are read with `git show` and never written
anywhere. Usage:

    python benchmarks/migration_bench.py [--mirrors DIR] [--repo owner+name@REV ...] [--run]

With `--run` (or `--run-only`), a few scripts that can run on synthetic data
(`_migration_run.py`) are also run before and after migrating, each in a
fresh temporary directory under a timeout: does the original run on the
installed torch, and does the migrated one.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

# (mirror name, revision: a commit or "before:DATE") -- code of the 0.3-1.0 era.
DEFAULT_REPOS = (
    "pytorch+examples@before:2018-04-01",
    "eriklindernoren+PyTorch-GAN@before:2019-01-01",
    "spro+practical-pytorch@before:2019-01-01",
    "higgsfield+RL-Adventure@before:2019-01-01",
    "jcjohnson+pytorch-examples@before:2018-01-01",
)

# Plain-text signs of legacy code (independent of the rules' analysis).
LEGACY_PATTERNS = {
    "Variable(": r"\bVariable\(",
    "volatile=": r"\bvolatile\s*=",
    ".data[0]": r"\.data\[0\]",
    "async=": r"\basync\s*=",
    "size_average=/reduce=": r"\b(size_average|reduce)\s*=",
    "retain_variables=": r"\bretain_variables\s*=",
    "nn.init.x(": r"\binit\.(uniform|normal|constant|xavier_uniform|xavier_normal|kaiming_uniform|"
                  r"kaiming_normal|orthogonal|eye|dirac|sparse)\(",
    "clip_grad_norm(": r"\bclip_grad_norm\(",
    "F.upsample": r"\bF\.upsample(_bilinear|_nearest)?\(",
    "F.sigmoid/F.tanh": r"\bF\.(sigmoid|tanh)\(",
    "removed linalg": r"\btorch\.(symeig|eig|solve|lstsq|gels|gesv|potrf|potrs|potri|matrix_rank|trtrs)\(",
    # A Function subclass whose first method after the class line is a
    # non-static forward (docstrings in between allowed).
    "legacy Function forward": r"\((torch\.)?(autograd\.)?Function\):"
                               r"(\s*(\"\"\"[\s\S]*?\"\"\"|#.*))*\s*def forward\(self",
    # Per line: a call spread over lines counts as missing weights_only.
    "torch.load without weights_only": r"(?m)^(?!.*weights_only).*\btorch\.load\(",
}


def git(mirror: str, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={mirror}", *args], capture_output=True, text=True,
                          check=True).stdout


def resolve(mirror: str, rev: str) -> str:
    if rev.startswith("before:"):
        return git(mirror, "log", "-1", "--format=%H", f"--before={rev[7:]}").strip()
    return git(mirror, "rev-parse", rev).strip()


def sources(mirror: str, commit: str):
    """(path, text) for every .py file and every notebook (code cells joined)."""
    for path in git(mirror, "ls-tree", "-r", "--name-only", commit).splitlines():
        if not path.endswith((".py", ".ipynb")) or ".ipynb_checkpoints/" in path:
            continue
        raw = subprocess.run(["git", f"--git-dir={mirror}", "show", f"{commit}:{path}"],
                             capture_output=True, check=True).stdout.decode("utf-8", "replace")
        if path.endswith(".ipynb"):
            try:
                cells = json.loads(raw).get("cells", [])
            except ValueError:
                continue
            code = []
            for c in cells:
                if c.get("cell_type") != "code":
                    continue
                src = "".join(c.get("source", []))
                # IPython magics and shell lines are not Python.
                code.append("\n".join(ln for ln in src.splitlines() if not ln.lstrip().startswith(("%", "!"))))
            raw = "\n\n".join(code) + "\n"
        yield path, raw


def patterns(text: str) -> Counter:
    return Counter({k: len(re.findall(p, text)) for k, p in LEGACY_PATTERNS.items()
                    if re.search(p, text)})


def parses(text: str) -> bool:
    try:
        ast.parse(text)
        return True
    except SyntaxError:
        return False


def bench(repos, mirrors: str) -> dict:
    from autodetach.engine import Options, check_source
    from autodetach.registry import select_rules

    legacy = select_rules(select=["AD2"])
    everything = select_rules(select=["ALL"])
    out = {"repos": [], "files": []}
    tot = Counter()
    t0 = time.perf_counter()
    for spec in repos:
        name, _, rev = spec.partition("@")
        mirror = os.path.join(mirrors, name, "repo")
        commit = resolve(mirror, rev or "HEAD")
        date = git(mirror, "show", "-s", "--format=%ad", "--date=short", commit).strip()
        out["repos"].append({"repo": name.replace("+", "/"), "commit": commit, "date": date})
        for path, text in sources(mirror, commit):
            row = {"repo": name.replace("+", "/"), "path": path}
            if not parses(text):
                row["status"] = "unparseable-before"  # Python 2 code: out of scope
                tot["unparseable_before"] += 1
                out["files"].append(row)
                continue
            try:
                before, _, _ = check_source(text, path, legacy, Options())
                _, new, n_fixed = check_source(text, path, everything, Options(fix=True, unsafe=True))
            except Exception as exc:  # a crash is a result here, not a stop
                row["status"] = f"error: {type(exc).__name__}: {exc}"[:200]
                tot["errors"] += 1
                out["files"].append(row)
                continue
            fixed = new if new is not None else text
            after, _, _ = check_source(fixed, path, legacy, Options())
            pb, pa = patterns(text), patterns(fixed)
            row.update(
                status="ok", parses_after=parses(fixed), fixes_applied=n_fixed,
                legacy_before=dict(Counter(f.code for f in before)),
                legacy_after=dict(Counter(f.code for f in after)),
                patterns_before=dict(pb), patterns_after=dict(pa),
            )
            out["files"].append(row)
            tot["files"] += 1
            tot["with_legacy_before"] += bool(before or pb)
            tot["with_legacy_after"] += bool(after or pa)
            tot["rule_findings_before"] += len(before)
            tot["rule_findings_after"] += len(after)
            tot["pattern_hits_before"] += sum(pb.values())
            tot["pattern_hits_after"] += sum(pa.values())
            tot["not_parsing_after"] += not row["parses_after"]
            tot["fixes_applied"] += n_fixed
            per = out.setdefault("per_repo", {}).setdefault(row["repo"], Counter())
            per["files"] += 1
            per["with_legacy_before"] += bool(before or pb)
            per["with_legacy_after"] += bool(after or pa)
    out["summary"] = dict(tot, seconds=round(time.perf_counter() - t0, 2))
    left = Counter()
    for row in out["files"]:
        for k, v in row.get("patterns_after", {}).items():
            left[k] += v
    out["summary"]["patterns_left"] = dict(left)
    for key, field in (("rule_findings_by_code", "legacy_before"), ("rule_findings_left", "legacy_after")):
        codes = Counter()
        for row in out["files"]:
            for k, v in row.get(field, {}).items():
                codes[k] += v
        out["summary"][key] = dict(sorted(codes.items()))
    return out


def runnable(repos, mirrors: str, timeout: int, only=None) -> dict:
    """Run the scripts of `_migration_run.RUNNABLE` before and after migrating."""
    from autodetach.engine import Options, check_source
    from autodetach.registry import select_rules

    from _migration_run import run_checks

    everything = select_rules(select=["ALL"])
    commits = {}
    for spec in repos:
        name, _, rev = spec.partition("@")
        mirror = os.path.join(mirrors, name, "repo")
        commits[name] = (mirror, resolve(mirror, rev or "HEAD"))

    def read_dir(name, directory):
        mirror, commit = commits[name]
        out = {}
        tree = f"{commit}:{directory}" if directory else commit
        for path in git(mirror, "ls-tree", "--name-only", tree).splitlines():
            rel = f"{directory}/{path}" if directory else path
            if rel.endswith(".py"):
                out[rel] = git(mirror, "show", f"{commit}:{rel}")
        return out

    def migrate(text, path):
        _, new, _ = check_source(text, path, everything, Options(fix=True, unsafe=True))
        return new if new is not None else text

    rows = run_checks(set(commits), read_dir, migrate, timeout, only)
    done = [r for r in rows if "before" in r]
    summary = {
        "scripts": len(done),
        "before_runs": sum(r["before"]["runs"] for r in done),
        "after_runs": sum(r["after"]["runs"] for r in done),
        "fixed_by_migrate": sum(r["after"]["runs"] and not r["before"]["runs"] for r in done),
        "broken_by_migrate": sum(r["before"]["runs"] and not r["after"]["runs"] for r in done),
    }
    return {"runs": rows, "run_summary": summary}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--repo", action="append", help="owner+name@REV (REV: commit or before:YYYY-MM-DD)")
    ap.add_argument("--summary", action="store_true", help="print the summary only")
    ap.add_argument("--run", action="store_true",
                    help="also run a few scripts on synthetic data before and after (see _migration_run.py)")
    ap.add_argument("--run-only", action="store_true", help="only the runnable part")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per script run (default 120)")
    ap.add_argument("--scripts", action="append", help="run only scripts whose path contains this (repeatable)")
    args = ap.parse_args(argv)
    repos = args.repo or DEFAULT_REPOS
    res = {} if args.run_only else bench(repos, args.mirrors)
    if args.run or args.run_only:
        res.update(runnable(repos, args.mirrors, args.timeout, args.scripts))
    keep = ("repos", "per_repo", "summary", "run_summary", "runs")
    print(json.dumps({k: res[k] for k in keep if k in res} if args.summary else res, indent=1))


if __name__ == "__main__":
    main()
