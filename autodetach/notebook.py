"""Jupyter notebooks: the code cells, in order, checked and fixed as one
program (a model built in cell 3 and trained in cell 7).

The code cells are joined into one virtual module with a line map; IPython
syntax is masked (nbmask). Findings come back as cell and line: `cell` is
the cell's 1-based position among all the notebook's cells (markdown ones
included, so cell N is `cells[N-1]` in the file), `line` and `column` are
1-based within that cell. Fixes are mapped back cell by cell and written
into the changed cells' `source` only, spliced into the file's text so the
rest of it keeps every byte (nbjson)."""
from __future__ import annotations

import ast
import copy
import difflib
import json
import re
import warnings
from dataclasses import dataclass, field
from typing import Optional

from . import nbjson, nbmask
from .engine import Options, prefilter, process_bytes
from .findings import FileResult, Finding

SUFFIX = ".ipynb"


def is_notebook(path: str) -> bool:
    return path.lower().endswith(SUFFIX)


def available() -> bool:
    from importlib.util import find_spec

    return find_spec("nbformat") is not None


class NotebookError(ValueError):
    """The file is not a notebook we can read (bad JSON, bad schema)."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.line, self.column = line, column


@dataclass
class Cell:
    index: int  # position in nb["cells"], 0-based
    source: str  # as in the notebook
    masked: nbmask.Masked
    first: int = 0  # its first line in the virtual module, 0-based
    count: int = 0  # its lines there


@dataclass
class Notebook:
    raw: dict  # the parsed JSON, written back with the changed sources
    text: str  # the file as read
    cells: list = field(default_factory=list)  # code cells only
    bom: bool = False

    def virtual(self) -> str:
        return "".join(_with_newline(c.masked.text) for c in self.cells)

    def where(self, line: int) -> tuple:
        """A virtual line (1-based) -> (cell number, line in the cell)."""
        for c in self.cells:
            if c.first < line <= c.first + c.count:
                return c.index + 1, line - c.first
        last = self.cells[-1] if self.cells else None
        return (last.index + 1, max(1, line - last.first)) if last else (1, line)


def _with_newline(s: str) -> str:
    return s if not s or s.endswith("\n") else s + "\n"


def _source(value) -> str:
    return "".join(value) if isinstance(value, list) else (value or "")


def read(data: bytes) -> Notebook:
    import nbformat

    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotebookError(f"not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    if not isinstance(raw, dict) or "nbformat" not in raw:
        raise NotebookError("not a Jupyter notebook (no nbformat version)")
    if raw["nbformat"] != 4:
        raise NotebookError(f"nbformat {raw['nbformat']} notebooks are not supported (only 4); "
                            f"upgrade with `jupyter nbconvert --to notebook`")
    try:
        with warnings.catch_warnings():  # nbformat warns about what it would repair (ids): not the user's errors
            warnings.simplefilter("ignore")
            # From the parsed JSON (not nbformat.reads: it parses and validates again).
            nb = nbformat.from_dict(raw)
            nbformat.validate(nb)
    except NotebookError:
        raise
    except Exception as exc:  # nbformat's reader and validator raise many kinds
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise NotebookError(f"invalid notebook: {msg}") from None
    book = Notebook(raw=raw, text=text, bom=bom)
    counter = [0]
    line = 0
    for i, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        src = _source(cell.get("source"))
        c = Cell(index=i, source=src, masked=nbmask.mask_cell(src, counter))
        c.first = line
        c.count = len(_with_newline(c.masked.text).splitlines())
        line += c.count
        book.cells.append(c)
    return book


def split(book: Notebook, new_virtual: str) -> Optional[dict]:
    """The fixed virtual module cut back into cells: {cell index: new source}
    for the cells that changed, None when a fix crosses a cell boundary."""
    old = book.virtual().splitlines(keepends=True)
    new = new_virtual.splitlines(keepends=True)
    owner = []  # the cell (position in book.cells) of each old line
    for k, c in enumerate(book.cells):
        owner.extend([k] * c.count)
    parts = [[] for _ in book.cells]
    crossed = set()
    sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2)):
                parts[owner[i]].append(new[j])
            continue
        cells = {owner[i] for i in range(i1, i2)}
        if len(cells) > 1:
            # An import dropped at the end of one cell next to an edit at the
            # top of the next: one block for the line diff, two edits here.
            placed = _across(old[i1:i2], new[j1:j2], owner[i1:i2])
            if placed is None:
                return None
            for k, line in placed:
                parts[k].append(line)
            crossed.update(cells)
            continue
        k = cells.pop() if cells else (owner[i1] if i1 < len(owner) else len(book.cells) - 1)
        parts[k].extend(new[j1:j2])
    out = {}
    for k, c in enumerate(book.cells):
        text = "".join(parts[k])
        if text == _with_newline(c.masked.text):
            continue
        if k in crossed and _parses(c.masked.text) and not _parses(text):
            return None  # the lines fell apart differently (a `with` around both cells' code)
        if not c.source.endswith("\n") and text.endswith("\n"):
            text = text[:-1]  # Jupyter keeps no newline after a cell's last line
        out[c.index] = text
    return out


def _across(old: list, new: list, owner: list):
    """[(cell, new line)] for a block of changed lines whose old lines lie in
    several cells: each new line goes to the cell of the old line it edits
    (alike by difflib's ratio), a new line between two old lines of one cell
    to that cell. None when a new line could belong to two cells, or when
    the block is too large to pair line by line."""
    m, n = len(old), len(new)
    if m * n > 2500:
        return None
    ratio = [[difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() for b in new] for a in old]
    alike = [[r if r >= 0.6 else 0.0 for r in row] for row in ratio]
    # the most alike chain of pairs in order (old and new lines both ascending)
    best = [[0.0] * (n + 1) for _ in range(m + 1)]
    for i in range(m - 1, -1, -1):
        for j in range(n - 1, -1, -1):
            best[i][j] = max(best[i + 1][j], best[i][j + 1], best[i + 1][j + 1] + alike[i][j] if alike[i][j] else 0)
    pairs, i, j = {}, 0, 0
    while i < m and j < n:
        if alike[i][j] and best[i][j] == best[i + 1][j + 1] + alike[i][j]:
            pairs[j] = i
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    out = []
    prev = -1  # the last old line passed
    for j, line in enumerate(new):
        if j in pairs:
            prev = pairs[j]
            out.append((owner[prev], line))
            continue
        nxt = min((i for i in pairs.values() if i > prev), default=None)
        before = owner[prev] if prev >= 0 else None
        after = owner[nxt] if nxt is not None else None
        if before is None or after is None or before != after:
            return None  # at the edge of the block, or between two cells
        out.append((before, line))
    return out


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def _styles(text: str):
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(newline)
    indent = None
    if len(lines) > 1:
        second = lines[1]
        indent = len(second) - len(second.lstrip(" ")) or None
        if indent is None and second.startswith("\t"):
            indent = "\t"
    seps = [(",", ": ")] if indent is not None else [(", ", ": "), (",", ":")]
    for sort_keys in (True, False):
        for ascii_ in (False, True):
            for sep in seps:
                yield dict(indent=indent, sort_keys=sort_keys, ensure_ascii=ascii_, separators=sep), newline


def dumps(raw: dict, original: str) -> str:
    """`raw` as JSON in the style of `original` (indent, key order, escapes,
    newlines, final newline) when one reproduces it exactly; else as
    nbformat writes (indent 1, sorted keys)."""
    before = json.loads(original)
    tail = original[len(original.rstrip("\r\n")):]
    for style, newline in _styles(original):
        if json.dumps(before, **style).replace("\n", newline) + tail == original:
            return json.dumps(raw, **style).replace("\n", newline) + tail
    return json.dumps(raw, indent=1, sort_keys=True, ensure_ascii=False, separators=(",", ": ")) + "\n"


def with_sources(book: Notebook, changed: dict) -> bytes:
    """The notebook's bytes with the changed cells' sources: replaced in
    the text itself, so every other byte stays; when the text's layout
    cannot be followed, the whole JSON re-serialised (`dumps`)."""
    raw = copy.deepcopy(book.raw)
    values = {}
    for index, text in changed.items():
        cell = raw["cells"][index]
        if isinstance(cell.get("source"), list):
            cell["source"] = text.splitlines(keepends=True)
        else:
            cell["source"] = text
        values[index] = cell["source"]
    try:
        out = nbjson.replace_sources(book.text, values)
        if json.loads(out) != raw:  # never trust the splice blindly
            raise ValueError("spliced text does not read back")
    except (ValueError, IndexError):
        out = dumps(raw, book.text)
    data = out.encode("utf-8")
    return (b"\xef\xbb\xbf" + data) if book.bom else data


def cell_diff(path: str, book: Notebook, changed: dict) -> str:
    """A unified diff per changed cell, headed `a/PATH:cell N`. For reading:
    `git apply` cannot apply it to the notebook's JSON."""
    from .runner import patch_path

    shown = patch_path(path)
    out = []
    for c in book.cells:
        if c.index not in changed:
            continue
        old = _with_newline(c.source).splitlines(keepends=True)
        new = _with_newline(changed[c.index]).splitlines(keepends=True)
        name = f"{shown}:cell {c.index + 1}"
        out.extend(difflib.unified_diff(old, new, f"a/{name}", f"b/{name}"))
    return "".join(out)


def patch(path: str, book: Notebook, changed: dict, old: bytes, new: bytes) -> str:
    """What `--diff` prints for a notebook: each changed cell's diff as `# `
    lines (for reading; `git apply` and `patch` skip them), then the patch
    of the file's JSON, so a tree's whole output applies."""
    from .runner import unified_diff

    shown = "".join(f"# {line}\n" for line in cell_diff(path, book, changed).splitlines())
    return shown + unified_diff(path, old, new)


_LINE_REF = re.compile(r"\bline (\d+)\b")


def _lines_in_text(book: Notebook, text: str, cell: int) -> str:
    """Rule messages name other lines ("line 13"): in cell terms here."""
    def sub(m):
        c, n = book.where(int(m.group(1)))
        return f"line {n}" if c == cell else f"cell {c}, line {n}"

    return _LINE_REF.sub(sub, text)


def _map(book: Notebook, f: Finding) -> Finding:
    f.cell, f.line = book.where(f.line)
    f.message = _lines_in_text(book, f.message, f.cell)
    cell_end, f.end_line = book.where(max(f.end_line, 1))
    if cell_end != f.cell:  # a span across cells: end it with its first cell's line
        f.end_line, f.end_column = f.line, f.column
    related = []
    for line, col, note, *_ in f.related:
        cell, line = book.where(line)
        related.append((line, col, _lines_in_text(book, note, cell), cell))
    f.related = related
    return f


def _layout(book: Notebook, sources: dict) -> Notebook:
    """The notebook's code cells with some sources replaced, for the line map."""
    out = Notebook(raw=book.raw, text=book.text, bom=book.bom)
    line = 0
    for c in book.cells:
        src = sources.get(c.index, c.source)
        nc = Cell(index=c.index, source=src, masked=nbmask.mask_cell(src, [0]) if c.index in sources else c.masked)
        nc.first, nc.count = line, len(_with_newline(nc.masked.text).splitlines())
        line += nc.count
        out.cells.append(nc)
    return out


def _error(path: str, exc: NotebookError) -> FileResult:
    res = FileResult(path=path)
    res.findings.append(Finding(path=path, line=exc.line, column=exc.column, end_line=exc.line,
                                end_column=exc.column, code="AD000", name="syntax-error",
                                message=f"cannot read notebook: {exc}"))
    return res


def _raw_prefilter(text: str, rules) -> bool:
    """Whether any selected rule's token is in the notebook's JSON text,
    as written or JSON-escaped (so `.data\\n` is found): a cheap test before
    parsing the JSON."""
    for rule in rules:
        if not rule.tokens:
            return True
        for tok in rule.tokens:
            if tok in text or json.dumps(tok)[1:-1] in text:
                return True
    return False


def process(data: bytes, path: str, rules, opts: Options, diff: bool = False) -> FileResult:
    """Everything for one notebook. Never raises."""
    try:
        return _process(data, path, rules, opts, diff)
    except Exception as exc:  # our bug: one line, and the batch goes on
        from .engine import crash_message

        result = FileResult(path=path, old_source=data, crashed=True)
        result.errors.append({"path": path, "message": crash_message(exc)})
        return result


def _process(data: bytes, path: str, rules, opts: Options, diff: bool) -> FileResult:
    result = FileResult(path=path, old_source=data)
    try:
        head = data.decode("utf-8-sig", "replace")
    except LookupError:  # pragma: no cover
        head = ""
    rules = [r for r in rules if r.code not in opts.ignore]
    if not rules or not _raw_prefilter(head, rules):
        result.skipped = True
        return result
    try:
        import nbformat  # noqa: F401
    except ImportError:
        result.errors.append({"path": path, "message": "notebooks need nbformat: "
                                                       "pip install 'autodetach[notebook]'"})
        return result
    try:
        book = read(data)
    except NotebookError as exc:
        return _error(path, exc)
    if not book.cells:
        result.skipped = True
        return result
    virtual = book.virtual()
    if not prefilter(virtual, rules):
        result.skipped = True
        return result
    left_out = _leave_out_broken(book) if not _parses(virtual) else []
    if left_out:
        virtual = book.virtual()
        # what the rules conclude may rest on code of the cells left out: no fix is applied unless
        # unsafe ones are, and each is reported as unsafe
        opts = Options(fix=opts.fix and opts.unsafe, unsafe=opts.unsafe, ignore=opts.ignore)
    inner = process_bytes(virtual.encode("utf-8"), path, rules, opts)
    result.errors, result.crashed, result.skipped = inner.errors, inner.crashed, inner.skipped
    findings, fixed, layout = inner.findings, inner.fixed, book
    if inner.new_source is not None:
        kept = _cells(book, inner.new_source)
        if kept is None:
            # A fix crosses cells or touches IPython syntax: keep the rules
            # whose fixes stay inside cells, one rule at a time.
            kept = _rule_by_rule(book, path, rules, opts)
            report = Options(fix=False, ignore=opts.ignore)
            before = process_bytes(virtual.encode("utf-8"), path, rules, report).findings
            layout = _layout(book, kept)
            findings = process_bytes(layout.virtual().encode("utf-8"), path, rules, report).findings
            fixed = max(0, len(before) - len(findings))
        else:
            layout = _layout(book, kept)
        if kept:
            result.new_source = with_sources(book, kept)
            result.fixed = fixed
            if diff:
                result.diff = patch(path, book, kept, data, result.new_source)
    if left_out:
        findings = [_left_out_note(f, left_out) for f in findings] + [
            Finding(path=path, line=book.cells[k].first + line, column=col, end_line=book.cells[k].first + line,
                    end_column=col, code="AD000", name="syntax-error",
                    message=f"cannot parse: {msg}; this cell was left out and the others were checked")
            for k, line, col, msg in left_out]
    result.findings = sorted((_map(layout, f) for f in findings), key=lambda f: (f.cell, f.line, f.column, f.code))
    return result


def _leave_out_broken(book: Notebook) -> list:
    """A notebook whose code does not parse as a whole (a course template's `<YOUR CODE>`
    placeholders): each code cell that does not parse on its own is masked line by line
    (comment placeholders `restore` checks, so no fix can touch it), when what is left parses.
    [(position in book.cells, line, column, message)] for the cells left out; [] (and the
    notebook unchanged) when none is, or the rest still does not parse."""
    out, old = [], [c.masked for c in book.cells]
    counter = [sum(len(c.masked.originals) for c in book.cells) + 10 ** 6]
    for k, c in enumerate(book.cells):
        try:
            ast.parse(c.masked.text)
            continue
        except SyntaxError as exc:
            line, col, msg = exc.lineno or 1, exc.offset or 1, exc.msg
        except (ValueError, RecursionError) as exc:
            line, col, msg = 1, 1, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        lines = c.masked.text.splitlines(keepends=True)
        originals, text = {}, []
        for ln in lines:
            counter[0] += 1
            mark = f"# {nbmask.MARK}-{counter[0]}"
            originals[mark] = ln.rstrip("\r\n")
            text.append(mark + ln[len(ln.rstrip("\r\n")):])
        # the cell's own IPython placeholders map back to the source's lines
        originals = {m: c.masked.originals.get(o, o) for m, o in originals.items()}
        c.masked = nbmask.Masked("".join(text), originals)
        out.append((k, min(line, max(c.count, 1)), col, msg))
    if out and not _parses(book.virtual()):
        for c, m in zip(book.cells, old):
            c.masked = m
        return []
    return out


def _left_out_note(f: Finding, left_out: list) -> Finding:
    """A finding of a notebook some cells of which were left out: its fix is unsafe."""
    if f.fix != "safe":
        return f
    from .rules._ad1_shared import UNSAFE_NOTE

    f.fix = "unsafe"
    if f.message.endswith(UNSAFE_NOTE):
        f.message = f.message[:-len(UNSAFE_NOTE)]
    f.message += (f"; inferred: {len(left_out)} code cell(s) that do not parse were left out, and what they "
                  f"do with these values is not seen{UNSAFE_NOTE}")
    return f


def _cells(book: Notebook, new_source: bytes) -> Optional[dict]:
    """{cell index: fixed source} for the changed cells, IPython lines
    restored; None when a fix crosses cells or touches a masked line."""
    changed = split(book, new_source.decode("utf-8"))
    if changed is None:
        return None
    out = {}
    for c in book.cells:
        if c.index in changed:
            text = nbmask.restore(changed[c.index], c.masked)
            if text is None:
                return None
            out[c.index] = text
    return out


def _rule_by_rule(book: Notebook, path: str, rules, opts: Options) -> dict:
    sources: dict = {}
    current = book
    for rule in rules:
        res = process_bytes(current.virtual().encode("utf-8"), path, [rule], opts)
        if res.new_source is None:
            continue
        kept = _cells(current, res.new_source)
        if kept:
            sources.update(kept)
            current = _layout(book, sources)
    return {i: s for i, s in sources.items() if s != next(c.source for c in book.cells if c.index == i)}


def cell_lines(path: str) -> dict:
    """{(path, cell number): the cell's lines} for showing findings in
    context; empty when the notebook cannot be read."""
    try:
        with open(path, "rb") as fh:
            book = read(fh.read())
    except (OSError, NotebookError, ImportError):
        return {}
    return {(path, c.index + 1): c.source.split("\n") for c in book.cells}
