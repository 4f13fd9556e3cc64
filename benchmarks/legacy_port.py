"""The PyTorch team's own 0.4 port of pytorch/examples as a yardstick.

Reads, at run time, the files changed by the 0.4 "codemod" commit of a
pytorch/examples mirror (a bare git dir: `fetch github:pytorch/examples`)
and its parent; runs `autodetach --fix --unsafe-fixes` (every rule) over the
parent's versions in a temporary directory; and counts, before the fix,
after it, and in the hand port, the idioms that fail on the installed torch
(and, apart, those that only warn). Prints JSON. Nothing fetched is kept.

    python benchmarks/legacy_port.py [--git-dir DIR] [--commit SHA]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time

from _common import ROOT  # noqa: F401  (puts the package on sys.path)

DEFAULT_GIT_DIR = "/work/.mirror/pytorch+examples/repo"
SUBJECT = "codemod for 0.4"

# Idioms that raise on torch 2.13 (each a regex over one line).
FAILING = {
    # a reduced loss/error read the 0.3 way: IndexError on a 0-dim tensor
    "loss.data[0]": re.compile(r"(loss|err\w*|\.sum\(\)|\.mean\(\))\w*(\.cpu\(\))?\.data(\.cpu\(\))?"
                               r"(\.numpy\(\))?\[0\]", re.I),
    "async=": re.compile(r"\basync\s*="),
    "retain_variables=": re.compile(r"\bretain_variables\s*="),
    "type(x) == Variable": re.compile(r"type\([^)]*\)\s*==\s*Variable"),
    # the scalar-first overload: deprecated, warns on every call, scheduled for removal
    "add_(scalar, tensor)": re.compile(r"\.(add|sub|addcmul|addcdiv)_?\(\s*(-\s*[\w\[\]'\".]+|\d[\d.]*|1\s*-)\s*,"),
}
# Idioms that only warn today.
WARNING = {
    "volatile=": re.compile(r"\bvolatile\s*="),
    "size_average=/reduce=": re.compile(r"\b(size_average|reduce)\s*="),
    "deprecated name": re.compile(r"\b(clip_grad_norm|xavier_uniform|xavier_normal|kaiming_uniform|"
                                  r"kaiming_normal|orthogonal|constant|uniform|normal)\(|F\.(sigmoid|tanh|upsample)\b"),
}


def _accumulator_reads(text: str) -> list:
    """Lines `total[0]` where `total += ... .data` accumulates a 0-dim tensor."""
    names = set(re.findall(r"^\s*(\w+)\s*\+=.*\.data\s*(?:#.*)?$", text, re.M))
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        for n in names:
            if re.search(rf"\b{n}\[0\]", line):
                out.append((i, "accumulator[0]", line.strip()))
    return out


def census(text: str) -> dict:
    fail, warn = [], []
    for i, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        for name, rx in FAILING.items():
            if rx.search(code):
                fail.append((i, name, line.strip()))
                break  # one per line: a line fails once
        for name, rx in WARNING.items():
            if rx.search(code):
                warn.append((i, name, line.strip()))
    fail += _accumulator_reads(text)
    return {"failing": fail, "warning": warn}


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, text=True,
                          check=True).stdout


def find_commit(git_dir: str) -> str:
    out = _git(git_dir, "log", "--all", "--format=%H %s", "--since=2018-03-01", "--until=2018-06-30")
    for line in out.splitlines():
        sha, _, subject = line.partition(" ")
        if subject.startswith(SUBJECT):
            return sha
    raise SystemExit(f"no commit '{SUBJECT}...' in {git_dir}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git-dir", default=DEFAULT_GIT_DIR)
    ap.add_argument("--commit", help="the hand-port commit (default: found by its subject)")
    a = ap.parse_args()
    if not os.path.isdir(a.git_dir):
        print(json.dumps({"benchmark": "legacy_port", "error": f"no mirror at {a.git_dir}"}))
        return
    port = a.commit or find_commit(a.git_dir)
    parent = _git(a.git_dir, "rev-parse", port + "^").strip()
    files = [f for f in _git(a.git_dir, "diff", "--name-only", parent, port).splitlines() if f.endswith(".py")]
    from autodetach.engine import fix_code

    rows, totals = [], {"before": 0, "after": 0, "port": 0, "warn_before": 0, "warn_after": 0, "warn_port": 0,
                        "after_safe_only": 0}
    remaining_codes: dict = {}
    seconds = 0.0
    for f in files:
        old = _git(a.git_dir, "show", f"{parent}:{f}")
        new_port = _git(a.git_dir, "show", f"{port}:{f}")
        t0 = time.perf_counter()
        fixed, _ = fix_code(old, select=["ALL"], unsafe=True)
        _, left = fix_code(fixed, select=["ALL"], unsafe=True)
        seconds += time.perf_counter() - t0
        safe_only, _ = fix_code(old, select=["ALL"], unsafe=False)
        totals["after_safe_only"] += len(census(safe_only)["failing"])
        for fd in left:
            remaining_codes[fd.code] = remaining_codes.get(fd.code, 0) + 1
        b, af, p = census(old), census(fixed), census(new_port)
        totals["before"] += len(b["failing"])
        totals["after"] += len(af["failing"])
        totals["port"] += len(p["failing"])
        totals["warn_before"] += len(b["warning"])
        totals["warn_after"] += len(af["warning"])
        totals["warn_port"] += len(p["warning"])
        rows.append({
            "file": f,
            "failing_before": len(b["failing"]),
            "failing_after": [f"{ln}: {kind}: {src}" for ln, kind, src in af["failing"]],
            "warning_after": [f"{ln}: {kind}: {src}" for ln, kind, src in af["warning"]],
            "remaining_findings": [f"{fd.line}: {fd.code}" for fd in left],
            "parses": _parses(fixed),
        })
    print(json.dumps({
        "benchmark": "legacy_port",
        "repository": "pytorch/examples",
        "hand_port_commit": port,
        "parent_commit": parent,
        "files": len(files),
        "failing_idioms": {"before_fix": totals["before"], "after_fix": totals["after"],
                           "after_safe_fixes_only": totals["after_safe_only"],
                           "in_hand_port": totals["port"]},
        "warning_idioms": {"before_fix": totals["warn_before"], "after_fix": totals["warn_after"],
                           "in_hand_port": totals["warn_port"]},
        "remaining_findings_by_code": remaining_codes,
        "all_fixed_files_parse": all(r["parses"] for r in rows),
        "fix_seconds": round(seconds, 3),  # --fix --unsafe-fixes and a second pass, all 20 files
        "per_file": rows,
    }, indent=1))


def _parses(text: str) -> bool:
    try:
        compile(text, "fixed.py", "exec")
    except SyntaxError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
