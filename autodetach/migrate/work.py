"""The per-file work of a migration: (path, bytes, settings) -> (record,
fixed bytes or None). Pure: it reads and writes nothing."""
from __future__ import annotations

import re
from collections import Counter

import libcst as cst

from .. import notebook
from ..engine import (Options, crash_message, decode_error_finding, fix_code, prefilter, syntax_error_finding,
                      unparsed_finding)
from ..registry import by_code
from ..suppress import skip_file
from ..textio import decode, encode

# Python's own words for Python 2 code, and Python 2 statements at the
# start of a line (the compiler may stop at an earlier, vaguer error).
_PY2_MESSAGES = ("Missing parentheses in call to", "multiple exception types must be parenthesized",
                 "leading zeros in decimal integer literals")
_PY2_LINES = re.compile(r"^[ \t]*(print[ \t]+[\"'\w>]|exec[ \t]+[\"'\w]|except[ \t]+[\w.]+[ \t]*,[ \t]*\w+[ \t]*:"
                        r"|raise[ \t]+[\w.]+[ \t]*,)", re.M)


def python2_hint(text: str, message: str) -> bool:
    return any(m in message for m in _PY2_MESSAGES) or bool(_PY2_LINES.search(text))


def _finding(f) -> list:
    # a notebook's line is its cell's, as the CLI shows it (`nb.ipynb:cell 7:3:5`)
    line = f"cell {f.cell}:{f.line}" if getattr(f, "cell", None) is not None else f.line
    return [f.code, line, f.column, f.fix, f.message]


def _migrate_notebook(path: str, data: bytes, settings, rec: dict) -> tuple:
    """A notebook as `--fix` does it: its code cells as one program, IPython
    lines kept, only changed cells rewritten."""
    table = by_code()
    rules = [table[c] for c in settings.codes if c in table]
    opts = Options(fix=True, unsafe=settings.unsafe, ignore=settings.ignored_for(path))
    res = notebook.process(data, path, rules, opts)
    if res.errors:
        rec.update(status="failed", error=res.errors[0]["message"])
        return rec, None
    if any(f.code == "AD000" for f in res.findings):
        f = next(f for f in res.findings if f.code == "AD000")
        rec.update(status="failed", parse_error=[_finding(f)[1], f.message], python2=False)
        return rec, None
    left = [f for f in res.findings if not f.fixed]
    done = [f for f in res.findings if f.fixed]
    if res.fixed > len(done):
        # Fixes kept rule by rule (one crossed cells): only the count of each
        # rule's findings before and after is known.
        before = notebook.process(data, path, rules, Options(ignore=opts.ignore)).findings
        gone = Counter(f.code for f in before) - Counter(f.code for f in left)
        rec["fixed"] = dict(gone)
        rec["unsafe"] = [_finding(f) for f in before if f.fix == "unsafe" and settings.unsafe and gone[f.code]]
    else:
        for f in done:
            rec["fixed"][f.code] = rec["fixed"].get(f.code, 0) + 1
        rec["unsafe"] = [_finding(f) for f in done if f.fix == "unsafe"]
    rec["left"] = [_finding(f) for f in left]
    if res.new_source is None or res.new_source == data:
        return rec, None
    rec["status"] = "changed"
    return rec, res.new_source


def migrate_file(path: str, data: bytes, settings) -> tuple:
    """(record, new bytes or None). The record holds what the report needs:
    status, fixes per rule, findings left (code, line, column, fix, why),
    unsafe fixes applied, and a parse error with its cause."""
    rec = {"path": path, "status": "unchanged", "fixed": {}, "left": [], "unsafe": []}
    if notebook.is_notebook(path):
        return _migrate_notebook(path, data, settings, rec)
    try:
        dec = decode(data)
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        f = decode_error_finding(path, data, exc)
        rec.update(status="failed", parse_error=[f.line, f.message], python2=False)
        return rec, None
    text = dec.text
    if skip_file(text):
        return rec, None
    ignored = settings.ignored_for(path)
    table = by_code()
    # The whole selection: fix_code applies the pre-filter to each pass's text.
    rules = [table[c] for c in settings.codes if c not in ignored]
    if not prefilter(text, rules):
        bad = unparsed_finding(path, text)
        if bad is not None:
            rec.update(status="failed", parse_error=[bad.line, bad.message], python2=python2_hint(text, bad.message))
        return rec, None
    try:
        new_text, report = fix_code(text, select=[r.code for r in rules], unsafe=settings.unsafe)
    except cst.ParserSyntaxError as exc:  # fix_code reports these itself; kept for safety
        report, new_text = [syntax_error_finding(path, exc)], text
    except RecursionError:
        rec.update(status="failed", error="file too deeply nested to analyse")
        return rec, None
    except Exception as exc:  # a rule crashed: report it, keep going
        rec.update(status="failed", error=crash_message(exc))
        return rec, None
    if len(report) == 1 and report[0].code == "AD000":
        f = report[0]
        rec.update(status="failed", parse_error=[f.line, f.message], python2=python2_hint(text, f.message))
        return rec, None
    for f in report:
        if f.fixed:
            rec["fixed"][f.code] = rec["fixed"].get(f.code, 0) + 1
            if f.fix == "unsafe":
                rec["unsafe"].append(_finding(f))
        else:
            rec["left"].append(_finding(f))
    if new_text == text:
        return rec, None
    try:
        new = encode(new_text, dec)
    except UnicodeEncodeError as exc:
        rec.update(status="failed", error=f"internal error: the fix cannot be encoded as {dec.encoding}: "
                                          f"{exc.reason}", fixed={}, unsafe=[])
        return rec, None
    rec["status"] = "changed"
    return rec, new
