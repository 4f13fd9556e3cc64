"""Changed notebooks under `autodetach ci`. A notebook's diff is in JSON
lines, not code lines, so a changed notebook is checked as a whole: every
finding in it is reported, every wanted fix is offered, and nothing is held
back (no `# noqa` goes into a cell). Fixes are made on the cells read as
one program, as `autodetach --fix` does, and written back into the JSON
with every other byte kept."""
from __future__ import annotations

from .. import notebook
from .fixes import FileFix, _reason, _rules, key

CROSSES = "its fix crosses a cell boundary or touches IPython syntax; run `autodetach --fix {path}`"


def check(path: str, real: str, old: bytes, codes, unsafe: bool):
    """(FileFix or None when nothing is found, error dicts) for one changed notebook."""
    from ..engine import Options, crash_message, prefilter, report_and_fix

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
        rules = prefilter(virtual, rules)
        report, new_virtual, fixed = report_and_fix(virtual, path, rules, unsafe)
        report = fixed if fixed is not None else report  # with .fixed set, when fixing worked
    except Exception as exc:  # an AD000 or a crash: what the first reading said stands
        if any(f.code == "AD000" for f in first.findings):
            return FileFix(path, real, old, first.findings, codes=tuple(codes)), []
        return None, [{"path": path, "message": crash_message(exc)}]
    kept = None
    if new_virtual is not None and new_virtual != virtual:
        kept = notebook._cells(book, new_virtual.encode("utf-8"))
    findings = sorted((notebook._map(book, f) for f in report), key=lambda f: (f.cell, f.line, f.column, f.code))
    ff = FileFix(path=path, real=real, old=old, findings=findings, codes=tuple(codes))
    if kept:
        ff.new = notebook.with_sources(book, kept)
    for f in ff.findings:
        if kept is None and f.fixed:
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
