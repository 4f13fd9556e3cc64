"""rdjson (reviewdog's diagnostic format, with suggestions) and the Markdown
job summary. Both read the FileFix list from ci.fixes."""
from __future__ import annotations

import json
from collections import Counter

from .. import __version__
from ..output import HELP_URI
from ..textio import decode
from .fixes import _lines, hunks, key

URL = "https://github.com/autodetach/autodetach"


def _text_lines(data: bytes) -> list:
    try:
        return decode(data).text.split("\n")
    except (UnicodeDecodeError, SyntaxError, LookupError):
        return []


def _byte_col(lines: list, line: int, col: int) -> int:
    """reviewdog counts columns in UTF-8 bytes; findings count characters."""
    if 1 <= line <= len(lines):
        return len(lines[line - 1][:max(col, 1) - 1].encode("utf-8", "surrogateescape")) + 1
    return max(col, 1)


def _owner(diags: list, first: int, last: int):
    """The diagnostic a rewrite belongs to: overlapping, else the nearest."""
    def distance(item):
        f = item[0]
        lo, hi = f.line, max(f.end_line, f.line)
        return 0 if lo <= last and first <= hi else min(abs(lo - last), abs(first - hi))
    return min(diags, key=distance)


def _suggest(ff, fixed: list) -> None:
    """Attach the offered fix to the diagnostics as suggestions, whole lines
    (a range of lines only, the end line included). reviewdog wants one
    line range per comment, so all rewrites that belong to one diagnostic
    (the line it is on, and an import its fix needs) become one suggestion:
    a suggestion is never only part of a fix."""
    a, b = _lines(ff.old), _lines(ff.new)
    groups: dict = {}
    for i1, i2, j1, j2 in hunks(ff.old, ff.new):
        first, last = (i1 + 1, i2) if i2 > i1 else (i1, i1 + 1)
        owner = _owner(fixed, first, last)
        g = groups.setdefault(id(owner), [owner, i1, i2, j1, j2])
        g[1:] = [min(g[1], i1), max(g[2], i2), min(g[3], j1), max(g[4], j2)]

    def text(chunk) -> str:
        s = b"".join(chunk).decode("utf-8", "surrogateescape")
        return s[:-1] if s.endswith("\n") else s

    for (f, d), i1, i2, j1, j2 in groups.values():
        if i2 > i1:
            first, last, new = i1 + 1, i2, b[j1:j2]
        elif i1 > 0:  # a pure insertion after line i1: replace that line with itself and the new lines
            first, last, new = i1, i1, a[i1 - 1:i1] + b[j1:j2]
        elif a:  # before the first line
            first, last, new = 1, 1, b[j1:j2] + a[:1]
        else:
            continue
        d["suggestions"] = [{"range": {"start": {"line": first}, "end": {"line": last}}, "text": text(new)}]


def render_rdjson(fixes, only_remaining: bool = False) -> str:
    diagnostics = []
    for ff in fixes:
        lines = _text_lines(ff.old)
        mine = []
        for f in ff.findings:
            if only_remaining and f.fixed:
                continue
            if f.cell:
                # The file's lines are JSON: name the cell, give no range
                # and no suggestion (the patch and --commit carry the fix).
                diagnostics.append({"message": f"cell {f.cell}, line {f.line}: {f.message}",
                                    "location": {"path": ff.path},
                                    "severity": "ERROR" if f.code == "AD000" else "WARNING",
                                    "code": {"value": f.code, "url": HELP_URI.format(code=f.code)}})
                continue
            d = {
                "message": f.message,
                "location": {"path": ff.path, "range": {
                    "start": {"line": max(1, f.line), "column": _byte_col(lines, f.line, f.column)},
                    "end": {"line": max(1, f.end_line, f.line), "column": _byte_col(lines, f.end_line, f.end_column)},
                }},
                "severity": "ERROR" if f.code == "AD000" else "WARNING",
                "code": {"value": f.code, "url": HELP_URI.format(code=f.code)},
            }
            if f.code == "AD000":
                del d["code"]["url"]
            diagnostics.append(d)
            mine.append((f, d))
        fixed = [(f, d) for f, d in mine if f.fixed]
        if fixed and ff.new is not None:
            _suggest(ff, fixed)
    doc = {"source": {"name": "autodetach", "url": URL}, "severity": "WARNING", "diagnostics": diagnostics}
    return json.dumps(doc, indent=2)


def where(ff, f) -> str:
    return f"{ff.path}:cell {f.cell}:{f.line}" if f.cell else f"{ff.path}:{f.line}"


def _md(s: str) -> str:
    return " ".join(str(s).split()).replace("|", "\\|")


def verdict_of(f) -> str:
    v = f.verification or {}
    return v.get("verdict", "not verified")


def render_summary(fixes, mode: str, base, committed: bool, errors: list) -> str:
    """The Markdown page for the job: findings, fixes, verdicts, and what is
    left for a human and why."""
    shown = [(ff, f) for ff in fixes for f in ff.findings]
    fixed = [(ff, f) for ff, f in shown if f.fixed]
    left = [(ff, f) for ff, f in shown if not f.fixed]
    scope = f"lines changed since `{base}`" if base else "the whole files"
    out = [f"## autodetach {__version__}", "",
           f"{len(shown)} finding{'s' * (len(shown) != 1)} on {scope} in "
           f"{len({ff.path for ff, _ in shown})} file(s); "
           f"{len(fixed)} {'fixed in a commit' if committed else 'with a fix offered'}; "
           f"{len(left)} left for a human."]
    if fixed:
        out += ["", "### Fixes", "", "| Where | Rule | Fix | Verdict |", "| --- | --- | --- | --- |"]
        for ff, f in fixed:
            out.append(f"| `{where(ff, f)}` | {f.code} {f.name} | {_md(f.fix_title or f.fix)} | "
                       f"{_md(verdict_of(f))} |")
        counts = Counter(verdict_of(f) for _, f in fixed)
        out += ["", "Verdicts: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) + "."]
    if left:
        out += ["", "### Left for a human", "", "| Where | Rule | Finding | Why |", "| --- | --- | --- | --- |"]
        for ff, f in left:
            why = ff.left.get(key(f), "")
            out.append(f"| `{where(ff, f)}` | {f.code} {f.name} | {_md(f.message)} | {_md(why)} |")
    if errors:
        out += ["", "### Errors", ""] + [f"- `{e['path']}`: {_md(e['message'])}" for e in errors]
    if not shown and not errors:
        out += ["", "All checks passed!"]
    return "\n".join(out) + "\n"
