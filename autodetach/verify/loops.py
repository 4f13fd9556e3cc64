"""Make the step budget end loops instead of the process.

The scratch copy of every Python file is rewritten so that each loop asks the
child whether to go on:

    for x in ITER:      ->  for x in __autodetach_loop__(ITER, 3):
    while COND:         ->  while __autodetach_while__(7, (3,), (COND)):

Only text inside the loop header changes, so every line keeps its number
(tracebacks, the line tracer and the verdicts stay in the user's lines).
The two names are builtins installed by verify/child.py; a file run without it
is never rewritten. Pure ast and text: no torch here."""
from __future__ import annotations

import ast
import hashlib
import os
from typing import Optional

from ..textio import write_atomic

LOOP = "__autodetach_loop__"
WHILE = "__autodetach_while__"
MAX_FILE = 1 << 20  # bytes; bigger files keep their loops (the backstop still holds)
MAX_FILES = 2000
CACHE_SIZE = 1024  # rewrites kept by content: every scratch copy of a tree holds the same files
_CACHE: dict = {}


def _offsets(lines: list) -> list:
    """Byte offset of the start of each line (1-based index: offsets[lineno-1])."""
    out, pos = [], 0
    for ln in lines:
        out.append(pos)
        pos += len(ln)
    return out


def rewrite(source: bytes) -> Optional[bytes]:
    """The source with every for/while loop wrapped, or None when it does
    not parse or has no loop. Line numbers are unchanged."""
    if b"for" not in source and b"while" not in source:
        return None
    try:
        source.decode("utf-8")  # ast offsets are UTF-8 bytes: other encodings keep their loops
        tree = ast.parse(source)
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return None
    edits = []  # (byte offset, text to insert)
    lines = source.splitlines(keepends=True)
    starts = _offsets(lines)

    bom = 3 if source.startswith(b"\xef\xbb\xbf") else 0

    def at(lineno: int, col: int) -> int:
        return starts[lineno - 1] + col + (bom if lineno == 1 else 0)

    ids: dict = {}

    def visit(node, enclosing: tuple) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                visit(child, ())  # loops of another scope are not "enclosing"
                continue
            inner = enclosing
            if isinstance(child, ast.For):
                n = ids[id(child)] = len(ids) + 1
                it = child.iter
                edits.append((at(it.lineno, it.col_offset), f"{LOOP}(("))
                edits.append((at(it.end_lineno, it.end_col_offset), f"), {n})"))
                inner = enclosing + (n,)
            elif isinstance(child, ast.While):
                n = ids[id(child)] = len(ids) + 1
                t = child.test
                edits.append((at(t.lineno, t.col_offset), f"{WHILE}({n}, {enclosing!r}, ("))
                edits.append((at(t.end_lineno, t.end_col_offset), "))"))
                inner = enclosing + (n,)
            visit(child, inner)

    visit(tree, ())
    if not edits:
        return None
    out = bytearray(source)
    for pos, text in sorted(edits, key=lambda e: e[0], reverse=True):
        out[pos:pos] = text.encode("ascii")
    data = bytes(out)
    try:
        ast.parse(data)
    except (SyntaxError, ValueError):
        return None  # never run a file we broke: keep the original loops
    return data


def rewrite_file(path: str) -> bool:
    try:
        if os.path.getsize(path) > MAX_FILE:
            return False
        with open(path, "rb") as fh:
            src = fh.read()
    except OSError:
        return False
    key = hashlib.sha1(src).digest()
    if key in _CACHE:
        new = _CACHE[key]
    else:
        new = rewrite(src)
        if len(_CACHE) >= CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = new
    if new is None:
        return False
    write_atomic(path, new, sync=False)  # a scratch copy: no fsync
    return True


def rewrite_tree(root: str) -> int:
    """Rewrite the loops of every .py file under root (a scratch copy)."""
    n = seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if not name.endswith(".py"):
                continue
            seen += 1
            if seen > MAX_FILES:
                return n
            n += rewrite_file(os.path.join(dirpath, name))
    return n
