"""Recall and false positives on autograd bugs from public PyTorch code.

Reads the manifest (benchmarks/realworld/manifest.json), exports each pinned
commit from a local mirror of its repository into a temporary directory
(`git archive`, Python files only: nothing fetched is ever written into this
project), runs the real tool on the manifest's files there, and matches the
findings to the manifest: a positive is found when a finding with its code
lies within `--tolerance` lines of its line; a negative has a false positive
when any AD1 finding lies in its line span.

Mirrors are git directories as the search tool's `fetch` leaves them:
MIRROR_ROOT/<owner>+<name>/repo (bare) or .../repo/.git. A repository or
commit that is missing is reported under "unavailable" with the `fetch`
source to ask for; its cases are not scored.

The default run scores the development cases; `--held-out` scores only the
held-out ones without a batch (marked in the manifest; do not tune on them);
`--batch NAME` scores only the cases of that batch (a later held-out set).
`--check-only` runs no tool: it checks that each case's file exists at its
commit and that its lines lie inside the file. `--fetch-plan N` runs no tool:
it lists the `fetch` sources of repositories not yet mirrored, most needed
first, at most N (one session may fetch 500 repositories; the manifest names
more). Prints JSON.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MANIFEST = os.path.join(HERE, "realworld", "manifest.json")
DEFAULT_MIRRORS = os.environ.get("AUTODETACH_MIRRORS", "/work/.mirror")
FAMILIES = ["AD1%02d" % i for i in range(1, 11)]


def held_out_for(case_id: str, seed: str) -> bool:
    """About 20% of cases, chosen by a seeded hash of the id: stable when cases are added."""
    h = hashlib.sha256(f"{seed}:{case_id}".encode()).hexdigest()
    return int(h[:8], 16) / 2**32 < 0.2


def load_manifest(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    for case in data["cases"]:
        kind = case.get("kind")
        if kind not in ("positive", "negative"):
            raise SystemExit(f"realworld: case {case.get('id')}: kind must be positive or negative")
        if kind == "positive" and not (case.get("code") and case.get("line")):
            raise SystemExit(f"realworld: positive {case['id']} needs code and line")
        if kind == "negative" and len(case.get("span") or []) != 2:
            raise SystemExit(f"realworld: negative {case['id']} needs span [first, last]")
        if "batch" in case and case.get("held_out") is not True:
            raise SystemExit(f"realworld: case {case['id']} of batch {case['batch']} must be held out")
    return data


def git_dir(root: str, repo: str):
    base = os.path.join(root, repo.replace("/", "+"))
    for cand in (os.path.join(base, "repo", ".git"), os.path.join(base, "repo"), base):
        if os.path.isfile(os.path.join(cand, "HEAD")):
            return cand
    return None


def has_commit(gdir: str, commit: str) -> bool:
    r = subprocess.run(["git", "--git-dir", gdir, "cat-file", "-e", commit + "^{commit}"],
                       capture_output=True)
    return r.returncode == 0


def export(gdir: str, commit: str, dest: str, notebooks=()) -> None:
    """The commit's Python files (the package context of the cases), and the
    notebooks that are cases themselves."""
    names = subprocess.run(["git", "--git-dir", gdir, "ls-tree", "-r", "--name-only", commit],
                           capture_output=True, text=True).stdout.splitlines()
    # a pathspec that matches nothing fails the whole archive
    specs = [":(glob)**/*.py"] if any(n.endswith(".py") for n in names) else []
    arch = subprocess.run(["git", "--git-dir", gdir, "archive", "--format=tar", commit,
                           "--", *specs, *notebooks], capture_output=True)
    if arch.returncode != 0:
        raise RuntimeError(arch.stderr.decode(errors="replace").strip().splitlines()[-1:])
    subprocess.run(["tar", "-x", "-C", dest], input=arch.stdout, check=True)


def run_tool(python: str, cwd: str, files: list, timeout: float) -> dict:
    cmd = [python, "-m", "autodetach", "--output-format", "json", "--unsafe-fixes", "-q",
           "--exit-zero", "--no-cache", "-j", "1", *files]
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        # its cases count as not found; the timeout is listed under "errors"
        return {"findings": [], "errors": [{"message": f"timed out after {timeout:g} s"}]}
    if r.returncode not in (0, 1) and not r.stdout.strip():
        return {"findings": [], "errors": [{"message": r.stderr.strip()[-500:]}]}
    report = json.loads(r.stdout)
    if r.stderr.strip():
        report.setdefault("errors", []).append({"message": r.stderr.strip()[-500:]})
    return report


def tool_info(python: str) -> dict:
    code = "import autodetach, os; print(getattr(autodetach, '__version__', '?')); " \
           "print(os.path.dirname(os.path.dirname(os.path.abspath(autodetach.__file__))))"
    # outside any checkout, so that PYTHONPATH (not the current directory) decides
    r = subprocess.run([python, "-c", code], capture_output=True, text=True, cwd=tempfile.gettempdir())
    lines = r.stdout.split()
    info = {"version": lines[0] if lines else None, "path": lines[1] if len(lines) > 1 else None}
    if info["path"]:
        g = subprocess.run(["git", "-C", info["path"], "rev-parse", "--short", "HEAD"],
                           capture_output=True, text=True)
        info["commit"] = g.stdout.strip() or None
        d = subprocess.run(["git", "-C", info["path"], "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True)
        info["uncommitted_changes"] = bool(d.stdout.strip())
    return info


def in_run(case: dict, held_out: bool, batch) -> bool:
    """Which cases a run scores: a named batch, else the held-out cases without a
    batch (--held-out), else the development cases."""
    if batch is not None:
        return case.get("batch") == batch
    return bool(case.get("held_out")) == held_out and "batch" not in case


def case_lines(case: dict) -> list:
    if case["kind"] == "positive":
        return [case["line"], *case.get("also_lines", [])]
    return list(case["span"])


def notebook_cell_lines(raw: bytes, cell: int):
    """The lines of a notebook's cell `cell` (1-based among all its cells, as the
    tool reports it), or None when there is no such code cell."""
    try:
        cells = json.loads(raw.decode("utf-8")).get("cells", [])
    except (ValueError, UnicodeDecodeError, AttributeError):
        return None
    if not 1 <= cell <= len(cells) or cells[cell - 1].get("cell_type") != "code":
        return None
    src = cells[cell - 1].get("source", "")
    return ("".join(src) if isinstance(src, list) else src).splitlines()


def check_case(gdir: str, case: dict) -> dict:
    """Is the case's file at its commit, and do its lines lie inside it? Runs no tool.
    A notebook case names its code cell (`cell`); its lines count within that cell."""
    r = subprocess.run(["git", "--git-dir", gdir, "show", f"{case['commit']}:{case['path']}"],
                       capture_output=True)
    if r.returncode != 0:
        return {"id": case["id"], "ok": False, "problem": "path not in commit"}
    if case["path"].endswith(".ipynb"):
        lines = notebook_cell_lines(r.stdout, case.get("cell", 0))
        if lines is None:
            return {"id": case["id"], "ok": False, "problem": f"no code cell {case.get('cell')} in the notebook"}
    else:
        lines = r.stdout.decode("utf-8", errors="replace").splitlines()
    outside = [n for n in case_lines(case) if not 1 <= n <= len(lines)]
    out = {"id": case["id"], "ok": not outside, "file_lines": len(lines)}
    if outside:
        out["problem"] = f"lines outside the file: {outside}"
    elif case["kind"] == "positive":
        out["line_text"] = lines[case["line"] - 1].strip()[:160]
    return out


def select(cases: list, codes, ids, negatives: bool) -> list:
    """A subset for iterating on some rules; the published figures use every case."""
    if not codes and not ids:
        return cases
    want = set(codes.split(",")) if codes else set()
    parts = [p for p in ids.split(",") if p] if ids else []
    keep = []
    for c in cases:
        if any(p in c["id"] for p in parts):
            keep.append(c)
        elif c["kind"] == "negative":
            if negatives:
                keep.append(c)
        elif want & {c["code"], *c.get("also_codes", [])}:
            keep.append(c)
    return keep


def internal_errors(errors: list) -> int:
    """Files whose analysis failed inside the tool: each silently loses its findings,
    so a recall change may be a crash, not a miss."""
    return len({(e.get("repo"), e.get("commit"), e["path"]) for e in errors
                if "path" in e and "internal error" in e.get("message", "")})


def score(cases: list, findings: dict, tol: int) -> dict:
    """findings: {(repo, commit, path): [finding, ...]} for the exported groups."""
    fams = {f: {"positives": 0, "found": 0, "recall": None, "missed": []} for f in FAMILIES}
    negatives, fps = 0, []
    for case in cases:
        key = (case["repo"], case["commit"], case["path"])
        if key not in findings:
            continue
        # in a notebook, lines count within the case's cell
        got = [f for f in findings[key] if f["code"].startswith("AD1") and f.get("cell") == case.get("cell")]
        if case["kind"] == "positive":
            fam = fams.setdefault(case["code"], {"positives": 0, "found": 0, "recall": None, "missed": []})
            fam["positives"] += 1
            lines = [case["line"], *case.get("also_lines", [])]
            codes = {case["code"], *case.get("also_codes", [])}
            if any(f["code"] in codes and min(abs(f["line"] - ln) for ln in lines) <= tol
                   for f in got):
                fam["found"] += 1
            else:
                near = sorted({f"{f['code']}@{f['line']}" for f in got
                               if min(abs(f["line"] - ln) for ln in lines) <= tol})
                fam["missed"].append({"id": case["id"], "line": case["line"],
                                      **({"near": near} if near else {})})
        else:
            negatives += 1
            first, last = case["span"]
            for f in got:
                if first <= f["line"] <= last:
                    fps.append({"id": case["id"], "path": case["path"], "line": f["line"],
                                **({"cell": f["cell"]} if "cell" in f else {}),
                                "code": f["code"], "fix": f.get("fix"), "message": f["message"][:200]})
    for fam in fams.values():
        if fam["positives"]:
            fam["recall"] = round(fam["found"] / fam["positives"], 3)
    pos = sum(f["positives"] for f in fams.values())
    found = sum(f["found"] for f in fams.values())
    fp_cases = sorted({fp["id"] for fp in fps})
    return {
        "families": {k: v for k, v in sorted(fams.items()) if v["positives"]},
        "overall": {"positives": pos, "found": found,
                    "recall": round(found / pos, 3) if pos else None,
                    "negatives": negatives, "negatives_with_false_positive": len(fp_cases),
                    "false_positives": len(fps),
                    # a fix that --fix (safe) or --unsafe-fixes would apply changes behaviour
                    "false_positives_with_fix": sum(1 for fp in fps if fp["fix"] in ("safe", "unsafe")),
                    "false_positives_with_safe_fix": sum(1 for fp in fps if fp["fix"] == "safe")},
        "false_positives": fps,
    }


def check_only(cases: list, root: str) -> dict:
    checked, unavailable = [], []
    for c in cases:
        gdir = git_dir(root, c["repo"])
        if gdir is None or not has_commit(gdir, c["commit"]):
            unavailable.append({"id": c["id"], "repo": c["repo"], "commit": c["commit"],
                                "fetch": f"github:{c['repo']}",
                                "reason": "repository not mirrored" if gdir is None else "commit not in the mirror"})
            continue
        checked.append(check_case(gdir, c))
    return {"benchmark": "realworld", "check_only": True, "cases": len(cases),
            "repositories": len({c["repo"] for c in cases}),
            "ok": sum(1 for c in checked if c["ok"]),
            "problems": [c for c in checked if not c["ok"]],
            "checked": checked, "unavailable": unavailable}


def fetch_plan(cases: list, mirror_root: str, limit: int) -> dict:
    """Repositories to fetch, most needed first: those of the newest batch (held
    out, so the unseen figure needs them), then of older batches and dev by how
    many positives they hold, then the rest. Mirrored ones are skipped."""
    newest = max((c["batch"] for c in cases if "batch" in c), default=None)
    in_newest, positives = set(), {}
    for c in cases:
        positives[c["repo"]] = positives.get(c["repo"], 0) + (c["kind"] == "positive")
        if newest is not None and c.get("batch") == newest:
            in_newest.add(c["repo"])
    repos = sorted(positives, key=lambda r: (r not in in_newest, -positives[r], r))
    missing = [r for r in repos if git_dir(mirror_root, r) is None]
    return {"repositories": len(repos), "mirrored": len(repos) - len(missing), "missing": len(missing),
            "plan": [f"github:{r}" for r in missing[:limit]], "left_out": max(0, len(missing) - limit)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", default=DEFAULT_MANIFEST)
    ap.add_argument("--mirror-root", default=DEFAULT_MIRRORS,
                    help="where fetched repositories live (<owner>+<name>/repo)")
    ap.add_argument("--held-out", action="store_true",
                    help="score only the held-out cases that belong to no batch")
    ap.add_argument("--batch", default=None,
                    help="score only the cases of this batch (e.g. fresh-2026-11-23)")
    ap.add_argument("--check-only", action="store_true",
                    help="run no tool: check that each case's file is at its commit in the mirror "
                         "and its lines lie inside the file")
    ap.add_argument("--fetch-plan", type=int, default=None, metavar="N",
                    help="run no tool: list up to N repositories to fetch, most needed first "
                         "(the newest batch, then by positives), skipping mirrored ones")
    ap.add_argument("--tolerance", type=int, default=None,
                    help="lines either side of a positive's line (default: the manifest's)")
    ap.add_argument("--python", default=sys.executable, help="interpreter that runs the tool")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds the tool may take on one repository's files")
    ap.add_argument("--codes", default=None,
                    help="comma-separated rule codes: score only positives of these codes "
                         "(with --negatives, also the negatives); for faster iteration")
    ap.add_argument("--negatives", action="store_true",
                    help="with --codes or --ids, keep every negative too")
    ap.add_argument("--ids", default=None,
                    help="comma-separated substrings: score only cases whose id contains one")
    args = ap.parse_args(argv)

    start = time.time()
    manifest = load_manifest(args.manifest)
    if args.fetch_plan is not None:
        json.dump(fetch_plan(manifest["cases"], args.mirror_root, args.fetch_plan), sys.stdout, indent=2)
        print()
        return 0
    tol = args.tolerance if args.tolerance is not None else manifest.get("tolerance", 3)
    cases = [c for c in manifest["cases"] if in_run(c, args.held_out, args.batch)]
    cases = select(cases, args.codes, args.ids, args.negatives)
    if args.check_only:
        json.dump(check_only(cases, args.mirror_root), sys.stdout, indent=2)
        print()
        return 0

    groups: dict = {}
    for c in cases:
        groups.setdefault((c["repo"], c["commit"]), []).append(c)

    findings, unavailable, errors = {}, [], []
    for (repo, commit), group in sorted(groups.items()):
        gdir = git_dir(args.mirror_root, repo)
        reason = None
        if gdir is None:
            reason = "repository not mirrored"
        elif not has_commit(gdir, commit):
            reason = "commit not in the mirror"
        if reason:
            unavailable.append({"repo": repo, "commit": commit, "fetch": f"github:{repo}",
                                "reason": reason, "cases": [c["id"] for c in group]})
            continue
        paths = sorted({c["path"] for c in group})
        with tempfile.TemporaryDirectory(prefix="realworld-") as tmp:
            try:
                export(gdir, commit, tmp, [p for p in paths if p.endswith(".ipynb")])
            except (RuntimeError, subprocess.CalledProcessError) as e:
                unavailable.append({"repo": repo, "commit": commit, "fetch": f"github:{repo}",
                                    "reason": f"export failed: {e}", "cases": [c["id"] for c in group]})
                continue
            present = [p for p in paths if os.path.isfile(os.path.join(tmp, p))]
            for p in sorted(set(paths) - set(present)):
                errors.append({"repo": repo, "commit": commit, "path": p, "message": "path not in commit"})
            if not present:
                continue
            report = run_tool(args.python, tmp, present, args.timeout)
            for e in report.get("errors", []):
                errors.append({"repo": repo, "commit": commit, **e})
            by_path = {p: [] for p in present}
            for f in report.get("findings", []):
                rel = os.path.relpath(os.path.join(tmp, f["path"]), tmp).replace(os.sep, "/")
                by_path.setdefault(rel, []).append(f)
            for p, fs in by_path.items():
                findings[(repo, commit, p)] = fs

    scored = score(cases, findings, tol)
    scored["overall"]["internal_errors"] = internal_errors(errors)
    if scored["overall"]["internal_errors"]:
        print(f"realworld: {scored['overall']['internal_errors']} file(s) with an internal error: their "
              "findings are missing from the figures (see errors)", file=sys.stderr)
    out = {
        "benchmark": "realworld",
        "held_out": args.held_out,
        "batch": args.batch,
        "tool": tool_info(args.python),
        "tolerance_lines": tol,
        "cases": len(cases),
        "repositories": len({c["repo"] for c in cases}),
        **scored,
        "unavailable": unavailable,
        "errors": errors,
        "seconds": round(time.time() - start, 2),
        "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    json.dump(out, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
