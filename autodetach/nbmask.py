"""IPython syntax in notebook cells (magics, shell escapes, help), masked so
libcst can parse the cell. A masked line becomes a placeholder statement
with the same indentation; `restore` puts the original lines back, and says
when a fix has touched a placeholder."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# Cell magics whose body is Python: only their first line is masked.
PYTHON_BODY_MAGICS = {"time", "timeit", "capture", "prun", "debug"}
MARK = "autodetach-masked"

_ASSIGN_SHELL = re.compile(r"^\s*[A-Za-z_][\w.]*(\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[!%]")


@dataclass
class Masked:
    text: str  # what libcst sees: same number of lines
    originals: dict = field(default_factory=dict)  # placeholder line -> original line


def _statement_starts(lines: list) -> list:
    """For each line: True when a new statement may start there (not inside
    a string, brackets or a backslash continuation). A rough scanner: it
    only has to keep IPython syntax detection away from Python's own text."""
    starts = []
    depth = 0
    quote = None  # the open string's delimiter
    cont = False
    for line in lines:
        starts.append(quote is None and depth == 0 and not cont)
        cont = False
        i, n = 0, len(line)
        while i < n:
            c = line[i]
            if quote is not None:
                if c == "\\":
                    i += 2
                    continue
                if line.startswith(quote, i):
                    i += len(quote)
                    quote = None
                    continue
                i += 1
                continue
            if c == "#":
                break
            if c in "\"'":
                quote = c * 3 if line.startswith(c * 3, i) else c
                i += len(quote)
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth = max(0, depth - 1)
            i += 1
        body = line.rstrip("\r\n")
        if quote is not None and len(quote) == 1:
            quote = None  # an unterminated one-line string: Python's error, not ours
        if quote is None and body.endswith("\\") and not body.lstrip().startswith("#"):
            cont = True
    return starts


def _is_ipython(line: str) -> bool:
    s = line.strip()
    if not s or s.startswith("#"):
        return False
    if s[0] in "%!?":
        return True
    if _ASSIGN_SHELL.match(line) and not re.match(r"^\s*[\w.,\s]+==", line):
        return True
    code = s.split("#", 1)[0].rstrip()
    return code.endswith("?") and not code.endswith(("'?'", '"?"'))


def mask_cell(source: str, counter: list) -> Masked:
    """Mask one cell's IPython lines. `counter` numbers placeholders across
    the notebook so each is unique."""
    lines = source.splitlines(keepends=True)
    out = list(lines)
    originals = {}

    def place(i: int, indent: str, comment_only: bool) -> None:
        counter[0] += 1
        body = f"# {MARK}-{counter[0]}" if comment_only else f"pass  # {MARK}-{counter[0]}"
        end = lines[i][len(lines[i].rstrip("\r\n")):]
        new = f"{indent}{body}"
        originals[new] = lines[i].rstrip("\r\n")
        out[i] = new + end

    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        name = lines[first].strip()[2:].split(None, 1)[0] if lines[first].strip()[2:] else ""
        if name not in PYTHON_BODY_MAGICS:
            for i, ln in enumerate(lines):  # %%bash, %%writefile...: nothing here is Python
                place(i, "", True)
            return Masked("".join(out), originals)
        place(first, "", True)
    starts = _statement_starts(lines)
    i = 0
    while i < len(lines):
        if out[i] != lines[i] or not starts[i] or not _is_ipython(lines[i]):
            i += 1
            continue
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        place(i, indent, False)
        # A shell command continued with a backslash: its next lines too.
        while lines[i].rstrip("\r\n").endswith("\\") and i + 1 < len(lines):
            i += 1
            place(i, indent, True)
        i += 1
    return Masked("".join(out), originals)


def restore(fixed: str, masked: Masked):
    """The fixed cell with the original IPython lines back, or None when a
    fix moved, re-indented or removed a placeholder."""
    if not masked.originals:
        return fixed
    lines = fixed.splitlines(keepends=True)
    seen = 0
    for i, ln in enumerate(lines):
        body = ln.rstrip("\r\n")
        if MARK in body:
            if body not in masked.originals:
                return None
            lines[i] = masked.originals[body] + ln[len(body):]
            seen += 1
    if seen != len(masked.originals):
        return None
    return "".join(lines)
