"""Which fixes the bot offers for one changed file.

Findings count only on the changed lines (`lines`; None: the whole file).
The file is fixed as a whole, then only the rewrites (diff hunks) that touch
changed lines are kept: a pull request is never asked to rewrite code it
did not touch. A partial fix is kept only when fixing it once more gives the
whole fix, i.e. it is one of the states the fixer itself passes through;
otherwise the file's fixes are left for a human."""
from __future__ import annotations

import difflib
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
    from ..engine import Options, check_text, fix_reported

    if not codes:
        return None
    try:
        dec = decode(old)
        rules = _rules(codes)
        if report is None:
            report = check_text(dec.text, path, rules, Options())[0]
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


def touches(i1: int, i2: int, lines) -> bool:
    """Whether original lines i1..i2 (0-based slice) meet the changed lines;
    an insertion touches the lines on both sides of it."""
    span = range(i1 + 1, i2 + 1) if i2 > i1 else (i1, i1 + 1)
    return any(n in lines for n in span)


def keep_hunks(old: bytes, new: bytes, lines) -> bytes:
    a, b = _lines(old), _lines(new)
    out, pos = [], 0
    for i1, i2, j1, j2 in hunks(old, new):
        out += a[pos:i1]
        out += b[j1:j2] if touches(i1, i2, lines) else a[i1:i2]
        pos = i2
    return b"".join(out + a[pos:])


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

    from ..engine import Options, check_text, crash_message, decode_error_finding, prefilter, syntax_error_finding
    from .. import suppress

    try:
        text = decode(old).text
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        return FileFix(path, real, old, [decode_error_finding(path, old, exc)], codes=tuple(codes)), []
    rules = prefilter(text, _rules(codes)) if not suppress.skip_file(text) else []
    if not rules:
        return None, []
    try:
        report = check_text(text, path, rules, Options())[0]
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
        apply(ff, [r.code for r in rules], lines, unsafe, report)
    explain(ff, unsafe)
    return ff, []


def explain(ff: FileFix, unsafe: bool) -> None:
    for f in ff.findings:
        if not f.fixed and key(f) not in ff.left and f.code != "AD000":
            ff.left[key(f)] = _reason(f, unsafe)


def key(f) -> tuple:
    return (f.code, f.line, f.column, f.end_line, f.end_column)


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
    # Rules with no finding on the changed lines keep their (unshown) fixes only
    # if they stay outside the changed lines, which apply() checks.
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


def apply(ff: FileFix, codes, lines, unsafe: bool, report=None) -> None:
    """Fix ff's file with these rule codes and keep the rewrites on the
    changed lines: sets ff.new, ff.findings (with .fixed) and ff.left."""
    got = fix_file(ff.old, ff.path, codes, unsafe, report)
    ff.new = None
    if got is None:
        for f in ff.findings:
            f.fixed = False
        return
    report, whole = got
    report = [f for f in report if on_lines(f, lines)]
    if whole is None:
        ff.findings = report
        return
    new = whole
    if lines is not None:
        new = keep_hunks(ff.old, whole, lines)
        if new != whole:
            again = fix_file(new, ff.path, codes, unsafe)
            if again is None or (again[1] or new) != whole:
                for f in report:
                    if f.fixed:
                        f.fixed = False
                        ff.left[key(f)] = ENTANGLED.format(path=ff.path)
                ff.findings = report
                return
            # A finding whose rewrite fell outside the kept hunks is still there.
            back = _to_old(ff.old, new)
            still = {(g.code, n) for g in again[0]
                     for n in back(g.line, max(g.end_line, g.line))}
            for f in report:
                if f.fixed and any((f.code, n) in still for n in range(f.line, max(f.end_line, f.line) + 1)):
                    f.fixed = False
                    ff.left[key(f)] = ENTANGLED.format(path=ff.path)
    ff.findings = report
    ff.new = new if new != ff.old else None
    if ff.new is None:
        for f in report:
            f.fixed = False


def _to_old(old: bytes, new: bytes):
    """Maps lines first..last of `new` to the original lines they came from."""
    blocks = difflib.SequenceMatcher(a=_lines(old), b=_lines(new), autojunk=False).get_opcodes()

    def back(first: int, last: int) -> set:
        out = set()
        for tag, i1, i2, j1, j2 in blocks:
            if j2 < first or j1 + 1 > last and not (j1 == j2 and j1 + 1 == first):
                continue
            if tag == "equal":
                out.update(i1 + (n - 1 - j1) + 1 for n in range(max(first, j1 + 1), min(last, j2) + 1))
            else:
                out.update(range(i1 + 1, max(i2, i1 + 1) + 1))
        return out
    return back
