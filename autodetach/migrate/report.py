"""The migration report, built from the state at the end of a run: totals
per repository and per rule in one streaming pass (memory: one row per
repository and per rule), then report.md, report.json and report.html,
whose long lists are streamed from the state in a second pass."""
from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field

from .. import __version__
from ..registry import by_code
from ..runner import display_path
from ..textio import write_atomic

# Rule pages: the docs in the project repository, at this version. A link
# works from wherever the report is moved to; offline, each rule's name
# and summary are printed beside it.
RULES_URL = f"https://github.com/autodetach/autodetach/blob/v{__version__}/docs/rules/{{code}}.md"
MAX_ROWS = 500  # rows per list in report.md and report.html; report.json has all
COUNTS = ("files", "changed", "unchanged", "failed", "findings", "fixed", "left", "unsafe", "unparseable")
PY2_ADVICE = "Python 2 code: convert it first with `2to3` (then `pyupgrade`), then run autodetach migrate again"


def rule_url(code: str) -> str:
    return RULES_URL.format(code=code)


@dataclass
class Totals:
    counts: Counter = field(default_factory=Counter)
    rules: dict = field(default_factory=dict)  # code -> Counter(findings, fixed, left, unsafe)

    def add(self, rec: dict) -> None:
        c = self.counts
        c["files"] += 1
        c["notebooks"] += rec["path"].endswith(".ipynb")
        c[rec["status"]] += 1
        if rec.get("parse_error"):
            c["unparseable"] += 1
        for code, n in rec.get("fixed", {}).items():
            self._rule(code).update(findings=n, fixed=n)
        for code, *_ in rec.get("left", ()):
            self._rule(code).update(findings=1, left=1)
        for code, *_ in rec.get("unsafe", ()):
            self._rule(code).update(unsafe=1)
        c["fixed"] += sum(rec.get("fixed", {}).values())
        c["left"] += len(rec.get("left", ()))
        c["unsafe"] += len(rec.get("unsafe", ()))
        c["findings"] = c["fixed"] + c["left"]
        for row in rec.get("verify", ()):
            c["verdict:" + row[2]] += 1

    def _rule(self, code: str) -> Counter:
        return self.rules.setdefault(code, Counter())

    def verdicts(self) -> dict:
        return {k.split(":", 1)[1]: v for k, v in sorted(self.counts.items()) if k.startswith("verdict:")}


@dataclass
class Summary:
    total: Totals
    repos: dict  # repository (display path) -> Totals
    options: dict
    chart_note: str = ""
    notes: list = field(default_factory=list)


def summarize(records, options: dict) -> Summary:
    total, repos = Totals(), {}
    for rec in records:
        total.add(rec)
        repos.setdefault(display_path(rec["repo"]), Totals()).add(rec)
    return Summary(total, dict(sorted(repos.items())), options)


def headline(s: Summary) -> list:
    """The summary a manager reads first: a few plain sentences."""
    c = s.total.counts
    repos = _n(len(s.repos), "repository", "repositories")
    files = _n(c["files"], "Python file")
    if c["notebooks"]:  # notebooks are not Python files
        files = f"{_n(c['files'], 'file')} ({_n(c['notebooks'], 'notebook')})"
    out = [f"{files} in {repos}: {c['changed']} changed, "
           f"{c['unchanged']} unchanged, {c['failed']} failed."]
    out.append(f"{_n(c['findings'], 'finding')}: {c['fixed']} fixed automatically, {c['left']} left for a human"
               + (f"; {c['unsafe']} of the fixes are unsafe and need a review." if c["unsafe"] else "."))
    if c["unparseable"]:
        out.append(f"{_n(c['unparseable'], 'file')} could not be parsed (see below; Python 2 code needs `2to3` first).")
    if s.options.get("verify"):
        v = s.total.verdicts()
        out.append("Verification: " + (", ".join(f"{n} {k}" for k, n in v.items()) or "no fixed file could be run")
                   + ".")
    if not s.options.get("unsafe_fixes"):
        out.append("Unsafe fixes were not applied (use --unsafe-fixes); their findings are listed for a human.")
    return out


def _n(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def rule_rows(s: Summary) -> list:
    table = by_code()
    rows = []
    for code in sorted(s.total.rules):
        r, c = table.get(code), s.total.rules[code]
        rows.append({"code": code, "name": r.name if r else "", "summary": r.summary if r else "",
                     "url": rule_url(code), "findings": c["findings"], "fixed": c["fixed"], "left": c["left"],
                     "unsafe_applied": c["unsafe"]})
    return rows


def repo_rows(s: Summary) -> list:
    return [dict({k: t.counts[k] for k in COUNTS}, repository=name) for name, t in s.repos.items()]


def detail_rows(records):
    """(kind, row) for each item a human should look at, streamed:
    kinds 'unsafe', 'left', 'unparseable', 'error', 'verify'."""
    for rec in records:
        path = display_path(rec["path"])
        for code, line, col, _fix, why in rec.get("unsafe", ()):
            yield "unsafe", {"path": path, "line": line, "column": col, "code": code, "why": why}
        for code, line, col, fix, why in rec.get("left", ()):
            if fix == "unsafe":
                why = f"{why} (an unsafe fix exists: --unsafe-fixes)"
            elif fix == "safe":
                why = f"{why} (its safe fix did not apply here)"
            yield "left", {"path": path, "line": line, "column": col, "code": code, "why": why}
        if rec.get("parse_error"):
            line, cause = rec["parse_error"]
            if rec.get("python2"):
                cause = f"{cause.rstrip('.?!')}. {PY2_ADVICE}"
            yield "unparseable", {"path": path, "line": line, "cause": cause, "python2": bool(rec.get("python2"))}
        elif rec.get("error"):
            yield "error", {"path": path, "message": rec["error"]}
        for line, code, verdict, details in rec.get("verify", ()):
            yield "verify", {"path": path, "line": line, "code": code, "verdict": verdict, "details": details}


SECTIONS = (
    ("unsafe", "Unsafe fixes applied: review these", ("location", "code", "why")),
    ("left", "Findings left for a human", ("location", "code", "why")),
    ("unparseable", "Files that could not be parsed", ("location", "cause")),
    ("error", "Files that could not be processed or written", ("path", "message")),
    ("verify", "Verification verdicts", ("location", "code", "verdict", "details")),
)


def location(row: dict) -> str:
    return f"{row['path']}:{row['line']}" + (f":{row['column']}" if "column" in row else "")


def cell(row: dict, col: str):
    return location(row) if col == "location" else row.get(col, "")


def write_all(directory: str, state, paths, options: dict) -> Summary:
    from . import html, markdown

    s = summarize(state.records(paths), options)
    from .chart import render_svg

    svg, s.chart_note = render_svg(s)
    if svg is not None:
        _write(os.path.join(directory, "chart.svg"), svg)
    _write_json(os.path.join(directory, "report.json"), s, state, paths)
    _write(os.path.join(directory, "report.md"), markdown.render(s, detail_rows(state.records(paths)), svg is not None))
    _write(os.path.join(directory, "report.html"), html.render(s, detail_rows(state.records(paths)), svg))
    return s


def _write(path: str, chunks) -> None:
    """Write text (a string or an iterable of strings, streamed) in one
    rename, through textio's writer: two runs into one DIR never collide."""
    if isinstance(chunks, str):
        chunks = (chunks,)
    write_atomic(path, (chunk.encode("utf-8") for chunk in chunks), private=False)


def _write_json(path: str, s: Summary, state, paths) -> None:
    def chunks():
        head = {"version": __version__, "options": s.options, "summary": headline(s),
                "totals": {k: s.total.counts[k] for k in COUNTS}, "verification": s.total.verdicts(),
                "chart": s.chart_note or "chart.svg", "repositories": repo_rows(s), "rules": rule_rows(s)}
        yield json.dumps(head, indent=1)[:-2] + ',\n "files": ['
        first = True
        for rec in state.records(paths):
            keys = ("code", "line", "column", "fix", "why")
            out = {"path": display_path(rec["path"]), "repository": display_path(rec["repo"]),
                   "status": rec["status"], "fixed": rec.get("fixed", {}),
                   "unsafe_applied": [dict(zip(keys, x)) for x in rec.get("unsafe", ())],
                   "left": [dict(zip(keys, x)) for x in rec.get("left", ())]}
            for k in ("parse_error", "python2", "error"):
                if rec.get(k):
                    out[k] = rec[k]
            if rec.get("verify"):
                out["verification"] = [dict(zip(("line", "code", "verdict", "details"), x)) for x in rec["verify"]]
            yield ("\n  " if first else ",\n  ") + json.dumps(out)
            first = False
        yield "\n ]\n}\n"
    _write(path, chunks())


def capped_sections(details):
    """(kind, title, columns, up to MAX_ROWS rows, how many more) per
    section of SECTIONS that has rows; `details` arrive interleaved."""
    kept = {kind: [] for kind, _, _ in SECTIONS}
    more = dict.fromkeys(kept, 0)
    for kind, row in details:
        if len(kept[kind]) < MAX_ROWS:
            kept[kind].append(row)
        else:
            more[kind] += 1
    for kind, title, cols in SECTIONS:
        if kept[kind]:
            yield kind, title, cols, kept[kind], more[kind]
