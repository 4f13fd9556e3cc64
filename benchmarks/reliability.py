"""Reliability over real code: `--fix --unsafe-fixes` twice on copies.

Sources (each exported or generated into a temporary directory at run time;
nothing fetched is ever written into this project):
  repos      every git mirror under --mirrors (<owner>+<name>/repo or repo/.git,
             as the search tool's `fetch` leaves them): the Python files of
             HEAD, through `git archive`
  torch      the installed torch package
  stdlib     the standard library (its tests hold bad-syntax and odd-encoding files)
  generated  hypothesmith programs, alone and after a corpus case (needs the
             optional `hypothesmith`; skipped without it)
  mutated    corpus cases with CRLF, a BOM, tabs, a latin-1 cookie, comments
             inside brackets, calls split over lines, wrapped in a function
             or an `if`, no final newline, doubled

Each repository is its own chunk (a row of --rows, so a long run can stop
and --resume); the other sources are one chunk each. For each chunk the
real CLI runs `--fix --unsafe-fixes -j N` on a copy,
then once more; the original copies of the changed files are then reported
(`--unsafe-fixes`, JSON) in the untouched tree, with their neighbours there
for the cross-file summaries. Counted (goal 0 for each):
  internal_errors          errors saying "internal error" (a rule raised)
  other_errors             any other error line (read/write failures, nesting)
  broke_parse              changed files whose output no longer parses while the input did
  changed_without_finding  changed files with no fixable finding reported in the input
  second_pass_changed      files the second pass changed again
  compile_rejects          changed files that compile() rejects (compile() accepted the input)
  ast_outside_findings     changed files whose AST differs outside the reported
                           findings' lines and related lines (statements
                           compared one by one; see ast_outside)
  newline_or_bom_changed   changed files whose BOM or line-ending style changed
  comments_lost            changed files missing a comment the input had
                           (other than on an import line or in a statement
                           a fix deleted: their comments go with them)
Unparseable inputs (AD000) are counted, not failures. Prints JSON; with
--examples N, up to N paths per failing count.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks._common import default_corpus, emit, py_files  # noqa: E402

DEFAULT_MIRRORS = os.environ.get("AUTODETACH_MIRRORS", "/work/.mirror")
COUNTS = ["internal_errors", "other_errors", "broke_parse", "changed_without_finding",
          "second_pass_changed", "compile_rejects", "ast_outside_findings", "newline_or_bom_changed",
          "comments_lost"]


# ---- sources -------------------------------------------------------------

def mirrors(root: str) -> list:
    out = []
    for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        for cand in (os.path.join(root, name, "repo", ".git"), os.path.join(root, name, "repo")):
            if os.path.isfile(os.path.join(cand, "HEAD")):
                out.append((name, cand))
                break
    return out


def export_repos(root: str, dest: str, only: str = "") -> dict:
    keep = {x for x in only.split(",") if x}
    info = {}
    for name, gdir in mirrors(root):
        if keep and name not in keep:
            continue
        arch = subprocess.run(["git", "--git-dir", gdir, "archive", "--format=tar", "HEAD",
                               "--", ":(glob)**/*.py"], capture_output=True)
        if arch.returncode != 0 or not arch.stdout:
            continue
        into = os.path.join(dest, name)
        os.makedirs(into)
        subprocess.run(["tar", "-x", "-C", into], input=arch.stdout, check=True)
        date = subprocess.run(["git", "--git-dir", gdir, "log", "-1", "--format=%cs", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        info[name] = {"date": date}
    return info


def copy_py(src: str, dest: str, skip=()) -> None:
    for d, dirs, files in os.walk(src):
        dirs[:] = sorted(x for x in dirs if x not in skip and x != "__pycache__")
        for f in files:
            if f.endswith(".py"):
                p = os.path.join(d, f)
                q = os.path.join(dest, os.path.relpath(p, src))
                os.makedirs(os.path.dirname(q), exist_ok=True)
                shutil.copyfile(p, q)


def corpus_cases() -> list:
    base = os.path.join(ROOT, "corpus")
    return [p for p in py_files(base) if not p.endswith(".fixed.py")]


def _indent(text: str, head: str) -> str:
    body = "".join(("    " + ln) if ln.strip() else ln for ln in text.splitlines(True))
    return head + "\n" + (body if body.strip() else "    pass\n")


def _token_edits(text: str, kind: str) -> str:
    """Insert newlines after '(' or comments before NL tokens, using the tokenizer."""
    import io
    import tokenize

    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return text
    lines = text.splitlines(True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))
    inserts = []
    for tok in toks:
        if kind == "split" and tok.type == tokenize.OP and tok.string == "(":
            off = starts[tok.end[0] - 1] + tok.end[1]
            if off < len(text) and text[off] not in ")\n\r":
                inserts.append((off, "\n        "))
        elif kind == "comments" and tok.type in (tokenize.NL, tokenize.NEWLINE) and tok.string:
            off = starts[tok.start[0] - 1] + tok.start[1]
            inserts.append((off, "  # c"))
    for off, s in sorted(inserts, reverse=True):
        text = text[:off] + s + text[off:]
    return text


def _tabs(text: str) -> str:
    out = []
    for ln in text.splitlines(True):
        n = len(ln) - len(ln.lstrip(" "))
        out.append("\t" * (n // 4) + " " * (n % 4) + ln[n:])
    return "".join(out)


MUTATIONS = {
    "split_calls": lambda t: _token_edits(t, "split"),
    "comments": lambda t: _token_edits(t, "comments"),
    "tabs": _tabs,
    "in_function": lambda t: _indent(t, "def _wrapped():"),
    "in_if": lambda t: _indent(t, "if True:"),
    "doubled": lambda t: t + "\n" + t,
    "no_final_newline": lambda t: t.rstrip("\n"),
}
# Applied last, on the text's bytes.
BYTE_MUTATIONS = {
    "crlf": lambda b: b.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"),
    "bom": lambda b: b"\xef\xbb\xbf" + b,
    "latin1": lambda b: b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + b,
}


def make_mutated(dest: str, n: int, seed: int) -> None:
    rng = random.Random(seed)
    cases = corpus_cases()
    names = sorted(MUTATIONS)
    for i in range(n):
        case = cases[i % len(cases)]
        with open(case, encoding="utf-8") as fh:
            text = fh.read()
        picked = rng.sample(names, rng.randint(1, 3))
        for m in picked:
            text = MUTATIONS[m](text)
        data = text.encode("utf-8")
        extra = rng.choice([None, None] + sorted(BYTE_MUTATIONS))
        if extra == "latin1" and not data.isascii():
            extra = None
        if extra:
            data = BYTE_MUTATIONS[extra](data)
        rel = os.path.relpath(case, os.path.join(ROOT, "corpus")).replace(os.sep, "_")[:-3]
        tag = "-".join(picked + ([extra] if extra else []))
        with open(os.path.join(dest, f"m{i:05d}_{rel}__{tag}.py"), "wb") as fh:
            fh.write(data)


def make_generated(dest: str, n: int, seed: int) -> int:
    """hypothesmith programs (grammar- and CST-based), alone and after a
    corpus case so that the rules run on them. Returns how many were made."""
    try:
        import hypothesmith
        from hypothesis import HealthCheck, given, seed as hseed, settings
    except ImportError:
        return 0
    progs = []
    for strat, count in ((hypothesmith.from_grammar(), n * 3 // 4), (hypothesmith.from_node(), n - n * 3 // 4)):
        if count <= 0:
            continue

        @hseed(seed)
        @settings(max_examples=count, database=None, deadline=None,
                  suppress_health_check=list(HealthCheck))
        @given(strat)
        def collect(src):
            progs.append(src)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            collect()
    rng = random.Random(seed)
    cases = corpus_cases()
    for i, prog in enumerate(progs):
        if i % 2:
            with open(rng.choice(cases), encoding="utf-8") as fh:
                prog = fh.read() + "\n" + prog
        with open(os.path.join(dest, f"g{i:05d}.py"), "w", encoding="utf-8", newline="") as fh:
            fh.write(prog)
    return len(progs)


# ---- checks --------------------------------------------------------------

def _parse(data: bytes):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _compiles(data: bytes) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(data, "<file>", "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def statements(tree) -> list:
    """Every statement as (first line, last line, dump, top-level function
    or class it lies in): compound statements contribute their header
    (bodies emptied), then their bodies in order."""
    out = []

    def visit(nodes, top):
        for node in nodes:
            here = top if top is not None or not isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else node.name
            kids = [(f, getattr(node, f)) for f in _BODIES if isinstance(getattr(node, f, None), list)]
            if not kids:
                out.append((node.lineno, node.end_lineno, ast.dump(node), here))
                continue
            saved = dict(kids)
            for f, _ in kids:
                setattr(node, f, [])
            first_child = min((v[0].lineno for _, v in kids if v and hasattr(v[0], "lineno")),
                              default=node.end_lineno + 1)
            line = node.pattern.lineno if isinstance(node, ast.match_case) else node.lineno
            out.append((line, max(line, first_child - 1), ast.dump(node), here))
            for f, v in saved.items():
                setattr(node, f, v)
            for _, v in kids:
                visit(v, here)

    visit(tree.body, None)
    return out


def _defined(tree) -> set:
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _is_import(dump: str) -> bool:
    return dump.startswith(("Import(", "ImportFrom("))


def ast_outside(old_tree, new_tree, ranges) -> list:
    """Old-file lines where the statements differ outside every reported
    range (a finding's lines and its related lines): a deleted or replaced
    statement must overlap one (or be an import a fix made unused); an
    inserted one must sit next to one, be an import, or be part of a new
    module-level helper function. A statement moved past one that overlaps
    a range (a fix that moves code into or out of a loop) is allowed."""
    old, new = statements(old_tree), statements(new_tree)
    helpers = _defined(new_tree) - _defined(old_tree)

    def touched(lo, hi):
        return any(lo <= b and a <= hi for a, b in ranges)

    ops = [o for o in difflib.SequenceMatcher(None, [s[2] for s in old], [s[2] for s in new],
                                              autojunk=False).get_opcodes() if o[0] != "equal"]
    gone = {}  # dump -> old indices deleted
    came = {}  # dump -> old index where inserted
    for op, i1, i2, j1, j2 in ops:
        for k in range(i1, i2):
            gone.setdefault(old[k][2], []).append(k)
        for s in new[j1:j2]:
            came.setdefault(s[2], []).append(i1)

    def moved_past_finding(k, others):
        return any(any(touched(a, b) for a, b, _, _ in old[min(k, m):max(k, m) + 1]) for m in others)

    def became_its_neighbour(n, i1, j1, j2):
        """`A; B` -> `B; B`: a reported statement rewritten into a copy of the
        statements after it, which the matcher pairs the other way round (the
        old ones kept, the copy inserted after them)."""
        if n == 0 or ops[n - 1][0] != "delete":
            return False
        _, d1, d2, _, _ = ops[n - 1]
        return ([s[2] for s in old[d2:i1]] == [s[2] for s in new[j1:j2]]
                and all(touched(a, b) for a, b, _, _ in old[d1:d2]))

    bad = []
    for n, (op, i1, i2, j1, j2) in enumerate(ops):
        for k in range(i1, i2):
            s = old[k]
            if not touched(s[0], s[1]) and not _is_import(s[2]) and not moved_past_finding(k, came.get(s[2], [])):
                bad.append(s[0])
        if j2 > j1:
            near = old[max(0, i1 - 1):i2 + 1]
            if any(touched(a, b) for a, b, _, _ in near) or became_its_neighbour(n, i1, j1, j2):
                continue
            for s in new[j1:j2]:
                if s[3] not in helpers and not _is_import(s[2]) and not moved_past_finding(i1, gone.get(s[2], [])):
                    bad.append(near[0][0] if near else 1)
                    break
    return bad


def whole_compounds(tree, ranges) -> list:
    """A range on the first line of a def or class covers all of it (a
    finding on `class F(Function):` whose fix rewrites its methods)."""
    firsts = {a for a, _ in ranges}
    extra = [(n.lineno, n.end_lineno) for n in ast.walk(tree)
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
             and (n.lineno in firsts or any(d.lineno in firsts for d in n.decorator_list))]
    return list(ranges) + extra


def deleted_lines(old_tree, new_tree) -> set:
    """Lines of the statements a fix deleted outright (their comments go with them)."""
    old, new = statements(old_tree), statements(new_tree)
    sm = difflib.SequenceMatcher(None, [s[2] for s in old], [s[2] for s in new], autojunk=False)
    return {ln for op, i1, i2, _, _ in sm.get_opcodes() if op == "delete"
            for s in old[i1:i2] for ln in range(s[0], s[1] + 1)}


def import_lines(tree) -> set:
    return {ln for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
            for ln in range(n.lineno, n.end_lineno + 1)}


def _comments(data: bytes) -> list:
    import io
    import tokenize

    try:
        return [(t.start[0], t.string) for t in tokenize.tokenize(io.BytesIO(data).readline)
                if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return []


def _lost(old: list, new: list, allowed=frozenset()) -> list:
    """Comments of `old` (line, text) missing from `new`, except on `allowed` lines."""
    left = {}
    for _, c in new:
        left[c] = left.get(c, 0) + 1
    out = []
    for line, c in old:
        if line in allowed:
            continue
        if left.get(c):
            left[c] -= 1
        else:
            out.append(c)
    return out


def _newline_style(data: bytes) -> tuple:
    crlf = data.count(b"\r\n")
    return data.startswith(b"\xef\xbb\xbf"), crlf > 0, data.count(b"\n") - crlf > 0


# ---- the run -------------------------------------------------------------

def cli(args, cwd, env, timeout=None) -> tuple:
    # -P: the tree under test (torch, the standard library) must not shadow the modules Python imports
    cmd = [sys.executable, "-P", "-m", "autodetach", "--no-progress", "-q", "--exit-zero",
           "--output-format", "json", *args]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout)
    secs = time.perf_counter() - t0
    try:
        report = json.loads(proc.stdout.decode("utf-8", "replace") or "{}")
    except json.JSONDecodeError:
        report = {}
    return report, proc.returncode, proc.stderr.decode("utf-8", "replace"), secs


def snapshot(root: str) -> dict:
    out = {}
    for p in py_files(root):
        with open(p, "rb") as fh:
            out[os.path.relpath(p, root)] = fh.read()
    return out


def check_source(name: str, tree: str, work: str, jobs: int, env: dict, group=None) -> dict:
    """Run the two fixing passes on `work` (a copy of `tree`) and count."""
    before = snapshot(tree)
    rep1, rc1, err1, t1 = cli(["--fix", "--unsafe-fixes", "-j", str(jobs), "."], work, env)
    after1 = snapshot(work)
    changed = sorted(p for p in before if after1.get(p) != before[p])
    if changed:
        rep2, rc2, err2, t2 = cli(["--fix", "--unsafe-fixes", "-j", str(jobs), "."], work, env)
        after2 = snapshot(work)
    else:  # the same input again: the same (empty) output, nothing to learn
        rep2, rc2, err2, t2, after2 = {"errors": []}, rc1, "", 0.0, after1
    # The findings in the original files (their neighbours beside them).
    found = {}
    t3 = 0.0
    for i in range(0, len(changed), 200):
        rep, _, _, t = cli(["--unsafe-fixes", "-j", str(jobs), *changed[i:i + 200]], tree, env)
        t3 += t
        for f in rep.get("findings", []):
            found.setdefault(f["path"], []).append(f)
    res = {c: [] for c in COUNTS}
    errors = rep1.get("errors", []) + rep2.get("errors", [])
    for e in errors:
        key = "internal_errors" if "internal error" in e.get("message", "") else "other_errors"
        res[key].append(f"{e.get('path')}: {e.get('message')}")
    if not rep1 or not rep2:
        res["internal_errors"].append(f"the CLI gave no JSON (rc {rc1}/{rc2}): {(err1 + err2)[-300:]}")
    ad000 = sum(1 for f in rep1.get("findings", []) if f["code"] == "AD000")
    res["second_pass_changed"] = [p for p in after1 if after2.get(p) != after1[p]]
    n_findings = 0
    for p in changed:
        old, new = before[p], after1[p]
        fs = [f for f in found.get(p.replace(os.sep, "/"), []) if f["code"] != "AD000"]
        n_findings += len(fs)
        if not any(f["fix"] != "none" for f in fs):
            res["changed_without_finding"].append(p)
        old_tree, new_tree = _parse(old), _parse(new)
        if old_tree is not None and new_tree is None:
            res["broke_parse"].append(p)
        if _compiles(old) and not _compiles(new):
            res["compile_rejects"].append(p)
        gone = import_lines(old_tree) | (deleted_lines(old_tree, new_tree) if new_tree is not None else set()) \
            if old_tree is not None else set()
        if old_tree is not None and _lost(_comments(old), _comments(new), gone):
            res["comments_lost"].append(p)
        if _newline_style(old) != _newline_style(new):
            res["newline_or_bom_changed"].append(p)
        if old_tree is not None and new_tree is not None:
            ranges = [(f["line"], f["end_line"]) for f in fs]
            ranges += [(r[0], r[0]) for f in fs for r in f.get("related") or []]
            ranges = whole_compounds(old_tree, ranges)
            bad = ast_outside(old_tree, new_tree, ranges)
            if bad:
                res["ast_outside_findings"].append(f"{p}:{bad[0]}")
    out = {"files": rep1.get("summary", {}).get("files", 0), "py_files": len(before),
           "changed": len(changed), "fixed": rep1.get("summary", {}).get("fixed", 0),
           "findings_in_changed": n_findings, "unparseable_inputs_ad000": ad000,
           "seconds": {"fix_pass1": round(t1, 1), "fix_pass2": round(t2, 1), "report": round(t3, 1)}}
    if group:
        out["per_group_files"] = group(before)
    out["counts"] = {c: len(v) for c, v in res.items()}
    out["_failures"] = res
    return out


def _prepare(name: str, tree: str, args) -> list:
    """Fill `tree` with the source's files; return its chunks as (label,
    subdirectory): one per repository for repos, else the whole source."""
    if name == "repos":
        info = export_repos(args.mirrors, tree, args.repos)
        order = sorted(info)
        if args.largest_first:  # the most files per CLI start first
            order.sort(key=lambda r: -len(py_files(os.path.join(tree, r))))
        return [(f"{r} ({info[r]['date']})", r) for r in order]
    if name == "torch":
        copy_py(default_corpus(), tree)
    elif name == "stdlib":
        copy_py(sysconfig.get_paths()["stdlib"], tree, skip=("site-packages", "dist-packages"))
    elif name == "generated":
        make_generated(tree, args.generated, args.seed)
    elif name == "mutated":
        make_mutated(tree, args.mutated, args.seed)
    else:
        raise SystemExit(f"reliability: unknown source {name!r}")
    return [(name, "")]


def summarize(rows: list) -> dict:
    """Totals per source and overall from the chunk rows."""
    per = {}
    for row in rows:
        s = per.setdefault(row["source"], {"chunks": 0, "files": 0, "changed": 0, "fixed": 0,
                                           "unparseable_inputs_ad000": 0, "seconds": 0.0,
                                           "counts": {c: 0 for c in COUNTS}, "examples": {}})
        s["chunks"] += 1
        for k in ("files", "changed", "fixed", "unparseable_inputs_ad000"):
            s[k] += row[k]
        s["seconds"] = round(s["seconds"] + sum(row["seconds"].values()), 1)
        for c in COUNTS:
            s["counts"][c] += row["counts"][c]
        for c, ex in row["examples"].items():
            s["examples"].setdefault(c, []).extend(f"{row['chunk']}: {e}" for e in ex)
    total = {"files": sum(s["files"] for s in per.values()),
             "changed": sum(s["changed"] for s in per.values()),
             "fixed": sum(s["fixed"] for s in per.values()),
             "counts": {c: sum(s["counts"][c] for s in per.values()) for c in COUNTS}}
    return {"sources": per, "total": total}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", default=DEFAULT_MIRRORS)
    ap.add_argument("--sources", default="mutated,generated,repos,torch,stdlib")
    ap.add_argument("--repos", default="", help="only these mirrors (owner+name, comma-separated)")
    ap.add_argument("--generated", type=int, default=400, help="hypothesmith programs")
    ap.add_argument("--mutated", type=int, default=1500, help="mutated corpus cases")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--examples", type=int, default=5, help="failing paths shown per count")
    ap.add_argument("--rows", help="append one JSON line per finished chunk here; with --resume, "
                                   "chunks already there are skipped and counted")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--largest-first", action="store_true",
                    help="repositories with the most Python files first (for a run that may be cut short)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary trees (path on stderr)")
    args = ap.parse_args(argv)
    wanted = [s for s in args.sources.split(",") if s]
    rows = []
    if args.resume and args.rows and os.path.exists(args.rows):
        with open(args.rows, encoding="utf-8") as fh:
            rows = [json.loads(ln) for ln in fh if ln.strip()]
    done = {(r["source"], r["chunk"]) for r in rows}
    tmp = tempfile.mkdtemp(prefix="autodetach-reliability-")
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    t_start = time.perf_counter()
    try:
        for name in wanted:
            tree = os.path.join(tmp, "orig", name)
            os.makedirs(tree)
            t0 = time.perf_counter()
            chunks = _prepare(name, tree, args)
            prep = time.perf_counter() - t0
            for label, sub in chunks:
                if (name, label) in done:
                    continue
                work = os.path.join(tmp, "work", name, sub)
                shutil.copytree(os.path.join(tree, sub), work)
                out = check_source(name, os.path.join(tree, sub), work, args.jobs, env, None)
                out["seconds"]["prepare"] = round(prep, 1)
                prep = 0.0
                fails = out.pop("_failures")
                row = {"source": name, "chunk": label, **out,
                       "examples": {k: v[:args.examples] for k, v in fails.items() if v}}
                rows.append(row)
                if args.rows:
                    with open(args.rows, "a", encoding="utf-8") as fh:
                        fh.write(json.dumps(row) + "\n")
                bad = {k: v for k, v in out["counts"].items() if v}
                print(f"reliability: {name}: {label}: {out['files']} files, {out['changed']} changed"
                      f"{', ' + str(bad) if bad else ''}", file=sys.stderr, flush=True)
                if not args.keep:
                    shutil.rmtree(work, ignore_errors=True)
    finally:
        if args.keep:
            print(f"reliability: trees kept in {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    result = {"benchmark": "reliability", "jobs": args.jobs, "seed": args.seed, **summarize(rows),
              "seconds": round(time.perf_counter() - t_start, 1)}
    emit(result)


if __name__ == "__main__":
    main()
