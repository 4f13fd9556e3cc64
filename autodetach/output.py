"""Output formats: full, concise, json, sarif, github, gitlab."""
from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from urllib.parse import quote

from . import __version__
from .findings import NONE
from .registry import by_code

FORMATS = ("full", "concise", "json", "sarif", "github", "gitlab")
# The JSON report's layout. Fields are only ever added within a version;
# removing or changing one bumps it (docs/cli.md, "Editors").
JSON_VERSION = 1
HELP_URI = "https://github.com/autodetach/autodetach/blob/main/docs/rules/{code}.md"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _mark(f) -> str:
    return " [*]" if f.fix != NONE and not f.fixed else ""


def where(path: str, line: int, column: int, cell=None) -> str:
    """`path:line:col`, or `path:cell N:line:col` in a notebook."""
    return f"{path}:cell {cell}:{line}:{column}" if cell else f"{path}:{line}:{column}"


def _related(f) -> list:
    """(line, column, note, cell or None) for each related entry."""
    return [(r[0], r[1], r[2], r[3] if len(r) > 3 else None) for r in f.related]


def concise_line(f) -> str:
    return f"{where(f.path, f.line, f.column, f.cell)}: {f.code}{_mark(f)} {f.message}"


def render_full(findings, sources: dict) -> str:
    """Each finding with its source line, a caret underline, related notes
    and the fix hint; findings separated by blank lines."""
    blocks = []
    for f in findings:
        out = [concise_line(f)]
        lines = sources.get((f.path, f.cell) if f.cell else f.path)
        if lines and 1 <= f.line <= len(lines):
            # Tabs shown as one space each, so the carets stay aligned.
            src = lines[f.line - 1].rstrip("\r\n").replace("\t", " ")
            out.append(f"{f.line:>6} | {src}")
            start = max(1, f.column)
            if f.end_line == f.line and f.end_column > start:
                width = f.end_column - start
            else:
                width = max(1, len(src) - start + 1)
            out.append(f"{'':>6} | {' ' * (start - 1)}{'^' * width}")
        for line, col, note, cell in _related(f):
            out.append(f"{'':>6} = note: {where(f.path, line, col, cell)}: {note}")
        if f.fix != NONE and not f.fixed:
            label = "unsafe fix" if f.fix == "unsafe" else "fix"
            out.append(f"{'':>6} = help ({label}): {f.fix_title or 'autodetach --fix'}")
        blocks.append("\n".join(out))
    return "\n\n".join(blocks)


def summary(findings, files, fixed, errors, fixing: bool = False, unsafe: bool = False,
            diff: bool = False, fix_with: str = "`--fix`") -> str:
    """The closing lines. `findings` are the ones that remain; `fixed` how
    many were fixed (with --diff: would be). `fix_with`: the option that
    applies the fixes (`autodetach ci` has its own)."""
    n = len(findings)
    parts = []
    if (fixing or diff) and fixed:
        parts.append(f"{'Would fix' if diff else 'Fixed'} {_plural(fixed, 'finding')}.")
    if n:
        where = _plural(files, "file")
        if fixing or diff:
            parts.append(f"{_plural(n, 'finding')} {'remains' if n == 1 else 'remain'} in {where}.")
        else:
            parts.append(f"Found {_plural(n, 'finding')} in {where}.")
        safe = sum(1 for f in findings if f.fix == "safe" and not f.fixed)
        unsafe_n = sum(1 for f in findings if f.fix == "unsafe" and not f.fixed)
        hints = []
        if safe and not (fixing or diff):
            hints.append(f"{safe} fixable with {fix_with}")
        if unsafe_n and not unsafe:
            hints.append(f"{unsafe_n} {'more ' if hints else ''}fixable with `--unsafe-fixes`")
        elif unsafe_n and not (fixing or diff):
            hints.append(f"{unsafe_n} {'more ' if hints else ''}fixable with {fix_with} (unsafe fixes on)")
        if hints:
            parts.append("[*] " + "; ".join(hints) + ".")
    elif not fixed:
        parts.append("All checks passed!")
    if errors:
        parts.append(f"{_plural(errors, 'error')} (see above).")
    return "\n".join(parts)


def statistics(findings) -> str:
    counts = Counter((f.code, f.name, f.fix != NONE) for f in findings)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0]))
    return "\n".join(f"{n:>6}\t{code}\t{'[*]' if fx else '   '}\t{name}" for (code, name, fx), n in rows)


def render_json(findings, n_files, errors, fixed) -> str:
    doc = {
        "version": __version__,
        "schema_version": JSON_VERSION,
        "summary": {
            "files": n_files,
            "files_with_findings": len({f.path for f in findings}),
            "findings": len(findings),
            "fixed": fixed,
            "errors": len(errors),
        },
        "findings": [f.to_dict() for f in findings],
        "errors": [{"path": e["path"], "message": e["message"]} for e in errors],
    }
    return json.dumps(doc, indent=2)


def artifact_uri(path: str) -> dict:
    """A SARIF artifactLocation: repo-relative with forward slashes (under
    %SRCROOT%), or a file: URI for a path outside the working directory."""
    p = path.replace("\\", "/")
    if os.path.isabs(path):
        return {"uri": "file://" + quote(p if p.startswith("/") else "/" + p)}
    if p.startswith("./"):
        p = p[2:]
    return {"uri": quote(p), "uriBaseId": "%SRCROOT%"}


def _sarif_rule(code: str, rule) -> dict:
    if rule is None:  # AD000
        text = "The file could not be decoded or parsed; autodetach left it untouched."
        return {"id": code, "name": "syntax-error", "shortDescription": {"text": "File cannot be parsed"},
                "fullDescription": {"text": text}, "help": {"text": text, "markdown": text},
                "defaultConfiguration": {"level": "error"}}
    doc = rule.doc()
    return {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary or rule.name},
        "fullDescription": {"text": (doc.split("\n\n")[0] if doc else "") or rule.summary or rule.name},
        "help": {"text": doc or rule.summary, "markdown": doc or rule.summary},
        "helpUri": HELP_URI.format(code=code),
        "defaultConfiguration": {"level": "warning"},
        "properties": {"fix": rule.fix_safety, "tags": ["autograd"]},
    }


def _cell_location(cell: int) -> dict:
    return {"name": f"cell {cell}", "kind": "notebookCell"}


def render_sarif(findings, errors) -> str:
    rules = by_code()
    used = sorted({f.code for f in findings if f.code in rules or f.code == "AD000"})
    index = {c: i for i, c in enumerate(used)}
    driver_rules = [_sarif_rule(c, rules.get(c)) for c in used]
    results = []
    for f in findings:
        region = {"startLine": max(1, f.line), "startColumn": max(1, f.column)}
        if f.end_line >= f.line:
            region["endLine"] = f.end_line
            if f.end_column >= 1 and (f.end_line > f.line or f.end_column >= region["startColumn"]):
                region["endColumn"] = f.end_column
        res = {
            "ruleId": f.code,
            "level": "error" if f.code == "AD000" else "warning",
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {"artifactLocation": artifact_uri(f.path), "region": region}}],
        }
        if f.code in index:
            res["ruleIndex"] = index[f.code]
        if f.cell:  # a notebook: the region is within this cell
            res["locations"][0]["logicalLocations"] = [_cell_location(f.cell)]
            res["properties"] = {"cell": f.cell}
        if f.related:
            res["relatedLocations"] = []
            for i, (line, col, note, cell) in enumerate(_related(f)):
                loc = {"id": i, "message": {"text": note}, "physicalLocation": {
                    "artifactLocation": artifact_uri(f.path),
                    "region": {"startLine": max(1, line), "startColumn": max(1, col)}}}
                if cell:
                    loc["logicalLocations"] = [_cell_location(cell)]
                    loc["properties"] = {"cell": cell}
                res["relatedLocations"].append(loc)
        results.append(res)
    notifications = [{"level": "error", "message": {"text": f"{e['path']}: {e['message']}"}} for e in errors]
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "autodetach", "version": __version__, "semanticVersion": __version__,
                "informationUri": "https://github.com/autodetach/autodetach",
                "rules": driver_rules,
            }},
            "results": results,
            "columnKind": "unicodeCodePoints",
            "invocations": [{"executionSuccessful": not errors, "toolExecutionNotifications": notifications}],
        }],
    }
    return json.dumps(doc, indent=2)


def _gh_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(s: str) -> str:
    return _gh_data(s).replace(":", "%3A").replace(",", "%2C")


def render_github(findings, errors) -> str:
    out = []
    for f in findings:
        level = "error" if f.code == "AD000" else "warning"
        if f.cell:  # the file's lines are JSON: annotate the file, name the cell
            out.append(f"::{level} file={_gh_prop(f.path)},title={_gh_prop(f.code + ' ' + f.name)}::"
                       f"{_gh_data(f'{f.code} cell {f.cell}, line {f.line}: {f.message}')}")
            continue
        out.append(
            f"::{level} file={_gh_prop(f.path)},line={f.line},col={f.column},"
            f"endLine={f.end_line},endColumn={f.end_column},title={_gh_prop(f.code + ' ' + f.name)}::"
            f"{_gh_data(f.code + ' ' + f.message)}"
        )
    for e in errors:
        out.append(f"::error file={_gh_prop(e['path'])},title=autodetach::{_gh_data(e['message'])}")
    return "\n".join(out)


def render_gitlab(findings, sources: dict) -> str:
    """GitLab Code Quality JSON. The fingerprint hashes the path, the code and
    the text of the line (not its number), so a finding keeps its identity
    when lines above it move; repeats on identical lines are numbered."""
    out, seen = [], Counter()
    for f in findings:
        lines = sources.get((f.path, f.cell) if f.cell else f.path) or []  # a notebook's by cell
        text = lines[f.line - 1].strip() if 1 <= f.line <= len(lines) else ""
        key = f"{f.path}\0{f.code}\0{text}"
        seen[key] += 1
        digest = hashlib.sha256(f"{key}\0{seen[key]}".encode("utf-8", "surrogateescape")).hexdigest()
        where = f"cell {f.cell}, line {f.line}: " if f.cell else ""  # as render_github says it
        out.append({
            "description": f"{f.code} {where}{f.message}",
            "check_name": f"{f.code} {f.name}",
            "fingerprint": digest,
            "severity": "critical" if f.code == "AD000" else "major",
            "location": {"path": f.path, "lines": {"begin": max(1, f.line), "end": max(f.line, f.end_line, 1)}},
        })
    return json.dumps(out, indent=2)


CODE_HOST_FORMATS = ("sarif", "github", "gitlab")


def render_for_host(fmt: str, findings, errors) -> str:
    """The report in one of CODE_HOST_FORMATS."""
    if fmt == "sarif":
        return render_sarif(findings, errors)
    if fmt == "github":
        return render_github(findings, errors)
    return render_gitlab(findings, source_lines(findings))


def source_lines(findings) -> dict:
    """{path: its lines} for the files the findings are in (a notebook's by cell)."""
    from .textio import decode

    out = {}
    for path in {f.path for f in findings}:
        if any(f.cell for f in findings if f.path == path):
            from .notebook import cell_lines

            out.update(cell_lines(path))
            continue
        try:
            with open(path, "rb") as fh:
                out[path] = decode(fh.read()).text.split("\n")
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
            pass
    return out
