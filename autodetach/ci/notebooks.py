"""Changed notebooks under `autodetach ci`. The changed lines are lines of
the virtual program (the code cells read in order as one, nblines says
which), so findings are filtered and fixes held back there exactly as for a
.py file (fixes.apply): the tagged `# noqa` goes into the virtual program
and is gone before the fixed program is cut back into cells, which are
written into the JSON with every other byte kept. A fix that crosses a cell
boundary or touches IPython syntax is left for a human."""
from __future__ import annotations

from .. import notebook
from .fixes import HOLD_MARK, FileFix, _reason, _rules, _wanted, apply, key, on_lines

CROSSES = "its fix crosses a cell boundary or touches IPython syntax; run `autodetach --fix {path}`"


def check(path: str, real: str, old: bytes, lines, codes, unsafe: bool):
    """(FileFix or None when nothing is found on the changed lines, error
    dicts) for one changed notebook. `lines`: virtual lines, None for all."""
    from ..engine import Options, crash_message, report_and_fix

    rules = _rules(codes)
    # The same reading, errors and pre-filter as `autodetach` on a notebook.
    first = notebook.process(old, path, rules, Options(unsafe=unsafe))
    if first.errors:
        return None, first.errors
    if not first.findings:
        return None, []
    try:
        book = notebook.read(old)
        virtual = book.virtual()
        report, new_virtual, fixed = report_and_fix(virtual, path, rules, unsafe)
    except Exception as exc:  # an AD000 or a crash: what the first reading said stands
        if any(f.code == "AD000" for f in first.findings):
            return FileFix(path, real, old, first.findings, codes=tuple(codes)), []
        return None, [{"path": path, "message": crash_message(exc)}]
    shown = [f for f in report if on_lines(f, lines)]
    if not shown:
        return None, []
    # The virtual program as the file: fixed, with the findings off the
    # changed lines held back, as a .py file is.
    vf = FileFix(path=path, real=real, old=virtual.encode("utf-8"), findings=shown, codes=tuple(codes))
    if any(_wanted(f, unsafe) for f in shown):
        whole = None
        if fixed is not None:
            whole = (fixed, new_virtual.encode("utf-8") if new_virtual is not None else None)
        apply(vf, [r.code for r in rules], lines, unsafe, report, whole)
    kept = notebook._cells(book, vf.new) if vf.new is not None else None
    if kept is not None and any(HOLD_MARK in text for text in kept.values()):
        kept = None  # never: hold_back takes every tag out; but no tag may reach a cell
    why = {id(f): vf.left[key(f)] for f in vf.findings if key(f) in vf.left}
    findings = [notebook._map(book, f) for f in vf.findings]  # cell positions from here on
    ff = FileFix(path=path, real=real, old=old, codes=tuple(codes),
                 findings=sorted(findings, key=lambda f: (f.cell, f.line, f.column, f.code)))
    if kept:
        ff.new = notebook.with_sources(book, kept)
    for f in ff.findings:
        if id(f) in why:
            ff.left[key(f)] = why[id(f)]
        elif f.fixed and not kept:
            f.fixed = False
            ff.left[key(f)] = CROSSES.format(path=path)
        elif not f.fixed and f.code != "AD000":
            ff.left[key(f)] = _reason(f, unsafe) if fixed is not None else "the fixer failed on this file"
    return ff, []


def parses(data: bytes) -> bool:
    """Every code cell of a fixed notebook parses (IPython lines masked)."""
    import libcst as cst

    try:
        cst.parse_module(notebook.read(data).virtual())
    except Exception:
        return False
    return True
