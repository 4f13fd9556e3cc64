"""Output formats: full, concise, json, sarif, github."""
from __future__ import annotations

import json
from collections import Counter

from . import __version__
from .findings import NONE
from .registry import by_code

FORMATS = ("full", "concise", "json", "sarif", "github")


def _mark(f) -> str:
    return " [*]" if f.fix != NONE and not f.fixed else ""


def concise_line(f) -> str:
    return f"{f.path}:{f.line}:{f.column}: {f.code}{_mark(f)} {f.message}"


def render_full(findings, sources: dict) -> str:
    out = []
    for f in findings:
        out.append(concise_line(f))
        lines = sources.get(f.path)
        if lines and 1 <= f.line <= len(lines):
            src = lines[f.line - 1].rstrip("\r\n")
            out.append(f"   {f.line:>4} | {src}")
            width = max(1, (f.end_column - f.column) if f.end_line == f.line else len(src) - f.column + 1)
            out.append(f"        | {' ' * (f.column - 1)}{'^' * width}")
        for line, col, note in f.related:
            out.append(f"        = note: {f.path}:{line}:{col}: {note}")
        if f.fix != NONE and not f.fixed:
            label = "unsafe fix" if f.fix == "unsafe" else "fix"
            out.append(f"        = help ({label}): {f.fix_title or 'autodetach --fix'}")
        out.append("")
    return "\n".join(out)


def summary(findings, files, fixed, errors, fixing: bool, unsafe: bool) -> str:
    n = len(findings)
    fixable_safe = sum(1 for f in findings if f.fix == "safe" and not f.fixed)
    fixable_unsafe = sum(1 for f in findings if f.fix == "unsafe" and not f.fixed)
    parts = []
    if fixed:
        parts.append(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.")
    if n:
        parts.append(f"Found {n} finding{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}.")
        hints = []
        if fixable_safe:
            hints.append(f"{fixable_safe} fixable with `--fix`")
        if fixable_unsafe and not unsafe:
            hints.append(f"{fixable_unsafe} more with `--unsafe-fixes`")
        if hints:
            parts.append("[*] " + "; ".join(hints) + ".")
    elif not fixed:
        parts.append("All checks passed!")
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''} (see above).")
    return "\n".join(parts)


def statistics(findings) -> str:
    counts = Counter((f.code, f.name, f.fix != NONE) for f in findings)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0]))
    return "\n".join(f"{n:>6}\t{code}\t{'[*] ' if fx else '    '}{name}" for (code, name, fx), n in rows)


def render_json(findings, n_files, errors, fixed) -> str:
    doc = {
        "version": __version__,
        "summary": {
            "files": n_files,
            "files_with_findings": len({f.path for f in findings}),
            "findings": len(findings),
            "fixed": fixed,
            "errors": len(errors),
        },
        "findings": [f.to_dict() for f in findings],
        "errors": errors,
    }
    return json.dumps(doc, indent=2)


def render_sarif(findings, errors) -> str:
    rules = by_code()
    used = sorted({f.code for f in findings if f.code in rules})
    index = {c: i for i, c in enumerate(used)}
    driver_rules = []
    for c in used:
        r = rules[c]
        driver_rules.append({
            "id": c,
            "name": r.name,
            "shortDescription": {"text": r.summary or r.name},
            "fullDescription": {"text": r.summary or r.name},
            "help": {"text": r.doc(), "markdown": r.doc()},
            "helpUri": f"https://github.com/autodetach/autodetach/blob/main/docs/rules/{c}.md",
            "properties": {"fix": r.fix_safety},
        })
    results = []
    for f in findings:
        res = {
            "ruleId": f.code,
            "level": "error" if f.code == "AD000" else "warning",
            "message": {"text": f.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": f.path.replace("\\", "/"), "uriBaseId": "%SRCROOT%"},
                    "region": {
                        "startLine": f.line, "startColumn": f.column,
                        "endLine": f.end_line, "endColumn": max(f.end_column, 1),
                    },
                }
            }],
        }
        if f.code in index:
            res["ruleIndex"] = index[f.code]
        if f.related:
            res["relatedLocations"] = [
                {"id": i, "message": {"text": note}, "physicalLocation": {
                    "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": line, "startColumn": col}}}
                for i, (line, col, note) in enumerate(f.related)
            ]
        results.append(res)
    notifications = [{"level": "error", "message": {"text": f"{e['path']}: {e['message']}"}} for e in errors]
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "autodetach", "version": __version__,
                "informationUri": "https://github.com/autodetach/autodetach",
                "rules": driver_rules,
            }},
            "results": results,
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
        out.append(
            f"::{level} file={_gh_prop(f.path)},line={f.line},col={f.column},"
            f"endLine={f.end_line},endColumn={f.end_column},title={_gh_prop(f.code)}::"
            f"{_gh_data(f.code + ' ' + f.message)}"
        )
    for e in errors:
        out.append(f"::error file={_gh_prop(e['path'])},title=autodetach::{_gh_data(e['message'])}")
    return "\n".join(out)
