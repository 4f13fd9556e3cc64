"""Which fixes the bot offers for one changed file.

Findings count only on the changed lines (`lines`; None: the whole file;
for a notebook, lines of its virtual program: see notebooks and nblines).
The file is fixed as a whole. When that fixes findings off the changed lines
too, the file is fixed again with those findings suppressed (a tagged
`# noqa: CODE` at the end of each one's statement, taken out afterwards), so
a pull request is never asked to fix code it did not touch, and what it gets
is the fixer's own output, with the imports its fixes need. A finding that
cannot be separated that way is left for a human."""
from __future__ import annotations

import difflib
import io
import tokenize
from dataclasses import dataclass, field
from typing import Optional

from ..findings import NONE, UNSAFE
from ..textio import decode, encode

ENTANGLED = ("its fix also rewrites lines outside this change; "
             "run `autodetach --fix {path}` to fix the whole file")


@dataclass
class FileFix:
    path: str  # as shown (relative to the repository root)
    real: str  # on disk
    old: bytes
    findings: list  # the reported findings (original positions); .fixed: covered by `new`
    new: Optional[bytes] = None  # the fix offered for this file
    left: dict = field(default_factory=dict)  # id(finding) -> why it was left for a human
    codes: tuple = ()  # the rules in force for this file


def on_lines(f, lines) -> bool:
    if lines is None or f.code == "AD000":  # a file that cannot be parsed: always reported
        return True
    return any(n in lines for n in range(f.line, max(f.end_line, f.line) + 1))


def _rules(codes) -> list:
    from ..registry import by_code

    table = by_code()
    return [table[c] for c in codes if c in table]


def fix_file(old: bytes, path: str, codes, unsafe: bool, report=None):
    """(every finding of the original with its fixed flag, fixed bytes or None);
    None when the file cannot be fixed (undecodable, unparseable, a rule
    crashed). `report`: the original's findings, when already known."""
    from ..engine import Options, check_source, fix_reported

    if not codes:
        return None
    try:
        dec = decode(old)
        rules = _rules(codes)
        if report is None:
            report = check_source(dec.text, path, rules, Options())[0]
        new_text, report = fix_reported(dec.text, path, rules, unsafe, report)
        return report, (encode(new_text, dec) if new_text != dec.text else None)
    except Exception:
        return None


def _lines(data: bytes) -> list:
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    return out + ([parts[-1]] if parts[-1] else [])


def hunks(old: bytes, new: bytes) -> list:
    """The rewrites as (i1, i2, j1, j2): 0-based, end-exclusive line slices."""
    sm = difflib.SequenceMatcher(a=_lines(old), b=_lines(new), autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"]


def _reason(f, unsafe: bool) -> str:
    if f.fix == NONE:
        return "no automatic fix for this finding"
    if f.fix == UNSAFE and not unsafe:
        return "its fix is unsafe (it rests on inference); apply it with --unsafe-fixes after review"
    return "the fixer could not apply this fix (it overlaps another one)"


def check(path: str, real: str, old: bytes, lines, codes, unsafe: bool):
    """One changed file: (FileFix or None when nothing is on its changed
    lines, error dicts). Parses the file only when the pre-filter lets a
    rule through; analyses it once more per fix pass when a fix is wanted."""
    import libcst as cst

    from ..engine import crash_message, decode_error_finding, prefilter, report_and_fix, syntax_error_finding
    from .. import suppress
    from ..notebook import is_notebook

    if is_notebook(path):
        from . import notebooks

        return notebooks.check(path, real, old, lines, codes, unsafe)
    try:
        text = decode(old).text
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        return FileFix(path, real, old, [decode_error_finding(path, old, exc)], codes=tuple(codes)), []
    # The whole selection: each fix pass applies the pre-filter to its own text.
    rules = _rules(codes) if not suppress.skip_file(text) else []
    if not prefilter(text, rules):
        return None, []
    whole = None
    try:
        # The report and the whole file's fix from the same passes.
        report, new_text, fixed_report = report_and_fix(text, path, rules, unsafe)
        if fixed_report is not None:
            whole = (fixed_report, encode(new_text, decode(old)) if new_text is not None else None)
    except cst.ParserSyntaxError as exc:
        report = [syntax_error_finding(path, exc)]
    except RecursionError:
        return None, [{"path": path, "message": "file too deeply nested to analyse"}]
    except Exception as exc:  # a rule crashed: report it, keep going
        return None, [{"path": path, "message": crash_message(exc)}]
    shown = [f for f in report if on_lines(f, lines)]
    if not shown:
        return None, []
    ff = FileFix(path=path, real=real, old=old, findings=shown, codes=tuple(codes))
    if any(f.fix != NONE and (unsafe or f.fix != UNSAFE) for f in shown if f.code != "AD000"):
        apply(ff, [r.code for r in rules], lines, unsafe, report, whole)
    explain(ff, unsafe)
    return ff, []


def explain(ff: FileFix, unsafe: bool) -> None:
    for f in ff.findings:
        if not f.fixed and key(f) not in ff.left and f.code != "AD000":
            ff.left[key(f)] = _reason(f, unsafe)


def key(f) -> tuple:
    return (f.code, f.line, f.column, f.end_line, f.end_column, f.cell)  # cell: notebooks repeat lines


def keep_verified(ff: FileFix, codes, lines, unsafe: bool, good) -> None:
    """After verification: keep only the rewrites of rules whose every fix
    here was verified good; the others are left for a human with their
    verdict. Re-fixing with fewer rules is not verified again (as with
    `autodetach --fix --verified-only`)."""
    bad = [f for f in ff.findings if f.fixed and (f.verification or {}).get("verdict") not in good]
    if not bad:
        return
    verdicts = {key(f): f.verification for f in ff.findings}
    bad_codes = {f.code for f in bad}
    keep = {f.code for f in ff.findings if f.fixed} - bad_codes
    # Rules with findings only off the changed lines stay selected: apply()
    # holds their fixes back, as before, and the text the others see is the same.
    others = set(codes) - {f.code for f in ff.findings}
    ff.left.clear()
    previous = ff.findings
    if keep:
        apply(ff, sorted(keep | others), lines, unsafe)
        rest = [f for f in previous if f.code not in keep | others]
        ff.findings = sorted(ff.findings + rest, key=lambda f: (f.line, f.column, f.code))
    else:
        ff.new = None
    for f in ff.findings:
        f.verification = verdicts.get(key(f))
        if f.code in bad_codes and f.code not in keep:
            f.fixed = False
            v = f.verification or {}
            detail = " ".join(str(v.get("details", "")).split())
            ff.left[key(f)] = f"verification: {v.get('verdict', 'not verified')}" + (f" ({detail})" if detail else "")
    explain(ff, unsafe)


def _wanted(f, unsafe: bool) -> bool:
    return f.code != "AD000" and f.fix != NONE and (unsafe or f.fix != UNSAFE)


def apply(ff: FileFix, codes, lines, unsafe: bool, report=None, whole=None) -> None:
    """Fix ff's file with these rule codes, holding back the fixes of
    findings off the changed lines: sets ff.new, ff.findings (with .fixed)
    and ff.left. `whole`: fix_file's answer for the whole file, when known."""
    from ..engine import Options, check_source

    ff.new = None
    if report is None:
        try:
            report = check_source(decode(ff.old).text, ff.path, _rules(codes), Options())[0]
        except Exception:
            report = None
    off = [f for f in report or () if not on_lines(f, lines) and _wanted(f, unsafe)]
    if report is None:
        got = None
    elif off:
        got = hold_back(ff.old, ff.path, codes, unsafe, off)
    else:
        got = whole or fix_file(ff.old, ff.path, codes, unsafe, report)
    if got is None:
        for f in ff.findings:
            f.fixed = False
            if _wanted(f, unsafe):
                ff.left[key(f)] = ENTANGLED.format(path=ff.path) if off else "the fixer failed on this file"
        return
    fixed_report, new = got
    fixed = {key(g) for g in fixed_report if g.fixed}
    ff.findings = [f for f in report if on_lines(f, lines)]
    for f in ff.findings:
        f.fixed = key(f) in fixed
        if off and _wanted(f, unsafe) and not f.fixed:
            ff.left[key(f)] = ENTANGLED.format(path=ff.path)
    ff.new = new if new != ff.old else None
    if ff.new is None:
        for f in ff.findings:
            f.fixed = False


HOLD_MARK = "autodetach-ci-hold"
HOLD = "  # noqa: {code} " + HOLD_MARK + "-{n}"


def _statement_ends(text: str) -> dict:
    """Physical line -> the last physical line of its logical line (where a
    comment can go without changing the code)."""
    ends, first = {}, None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
                continue
            if first is None:
                first = tok.start[0]
            if tok.type == tokenize.NEWLINE:
                for n in range(first, tok.start[0] + 1):
                    ends[n] = tok.start[0]
                first = None
    except (tokenize.TokenError, SyntaxError):
        return {}
    return ends


def hold_back(old: bytes, path: str, codes, unsafe: bool, off: list):
    """The fixer's own output with the findings in `off` suppressed: a
    `# noqa: CODE` (tagged) is put at the end of each one's statement, the
    file is fixed, and the tags are taken out again. None when a tag cannot
    be placed or does not come back exactly once."""
    try:
        dec = decode(old)
    except (UnicodeDecodeError, SyntaxError, LookupError):
        return None
    ends = _statement_ends(dec.text)
    rows = dec.text.split("\n")
    tags = []
    for n, f in enumerate(off):
        at = ends.get(f.line)
        if at is None or not 1 <= at <= len(rows):
            return None
        row = rows[at - 1]
        body = row[:-1] if row.endswith("\r") else row
        tag = HOLD.format(code=f.code, n=n)
        rows[at - 1] = body + tag + row[len(body):]
        tags.append(tag)
    got = fix_file(encode("\n".join(rows), dec), path, codes, unsafe)
    if got is None:
        return None
    report, new = got
    text = decode(new).text if new is not None else "\n".join(rows)
    for tag in tags:
        if text.count(tag) != 1:
            return None
        text = text.replace(tag, "")
    return report, encode(text, dec)
