"""prefilter: what each rule's pre-filter tokens admit, and a check of the
pre-filter's contract (a file it rejects for a rule would have had no
finding from that rule).

    PYTHONPATH=$PWD python benchmarks/prefilter.py [TREE ...] [--files N]

TREEs default to a sample of the installed torch package's source (`--files`
files, evenly spaced) and the repository's `corpus/`. Per tree: files, files
the pre-filter passes, and per rule the files its tokens admit and the files
where it has a finding with the pre-filter off. Every file is reported twice
in one process, with the pre-filter (the engine's `process_bytes`) and
without it (every rule on every file); `lost` lists findings the pre-filter
dropped (must be empty). AD000 (cannot parse) is not compared: a file no
rule admits is never parsed, by design. Prints one JSON object.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import ROOT, default_corpus, emit, py_files, read, sample, selected_rules  # noqa: E402


def _key(f) -> tuple:
    return (f.code, f.line, f.column, f.end_line, f.end_column, f.message)


def findings_off(data: bytes, path: str, rules) -> list:
    """Every rule on the file, no pre-filter (report mode)."""
    import libcst as cst

    from autodetach import suppress
    from autodetach.engine import Options, check_source
    from autodetach.textio import decode

    try:
        text = decode(data).text
    except (UnicodeDecodeError, SyntaxError, LookupError):
        return []
    if suppress.skip_file(text):
        return []
    try:
        found, _, _ = check_source(text, path, rules, Options())
    except (cst.ParserSyntaxError, RecursionError):
        return []
    return found


def one_tree(paths: list, rules) -> dict:
    from autodetach.engine import Options, prefilter, process_bytes

    admitted = {r.code: 0 for r in rules}
    needed = {r.code: 0 for r in rules}
    passing = 0
    lost = []
    t_on = t_off = 0.0
    for p in paths:
        data = read(p)
        text = data.decode("utf-8", "replace")
        admit = prefilter(text, rules)
        passing += bool(admit)
        for r in admit:
            admitted[r.code] += 1
        t = time.process_time()
        off = [f for f in findings_off(data, p, rules) if f.code != "AD000"]
        t_off += time.process_time() - t
        t = time.process_time()
        on = {_key(f) for f in process_bytes(data, p, rules, Options()).findings if f.code != "AD000"}
        t_on += time.process_time() - t
        for code in {f.code for f in off}:
            needed[code] += 1
        for f in off:
            if _key(f) not in on:
                lost.append(f"{os.path.relpath(p, ROOT) if p.startswith(ROOT) else p}:{f.line}:{f.column} "
                            f"{f.code}")
    per_rule = {c: {"admitted": admitted[c], "with_findings": needed[c]} for c in sorted(admitted)}
    return {"files": len(paths), "prefilter_pass": passing, "per_rule": per_rule,
            "cpu_s_prefilter_on": round(t_on, 2), "cpu_s_prefilter_off": round(t_off, 2),
            "lost": lost}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="*")
    ap.add_argument("--files", type=int, default=300, help="files sampled from the torch tree (0: all)")
    a = ap.parse_args(argv)
    rules = selected_rules()
    trees = a.trees or [default_corpus(), os.path.join(ROOT, "corpus")]
    out = {"benchmark": "prefilter", "trees": {}}
    for tree in trees:
        files = py_files(tree)
        if a.trees == [] and tree != os.path.join(ROOT, "corpus"):
            files = sample(files, a.files)
        out["trees"][tree] = one_tree(files, rules)
    out["lost_total"] = sum(len(t["lost"]) for t in out["trees"].values())
    return out


if __name__ == "__main__":
    emit(main())
