"""Offsets in a file's text, and where they move when fixes rewrite it.

A finding's identity is its rule code and its anchor's span in the original
text; after each pass the spans are carried into the new text, so a finding
keeps its identity when another fix shifts lines (line numbers are never
part of it)."""
from __future__ import annotations

import bisect
import difflib
import re

_NEWLINE = re.compile(r"\r\n|\r|\n")  # the line ends libcst counts


def line_starts(text: str) -> list:
    return [0] + [m.end() for m in _NEWLINE.finditer(text)]


def offset(starts: list, line: int, column: int) -> int:
    """1-based line and column to a character offset."""
    line = min(max(line, 1), len(starts))
    return starts[line - 1] + max(column, 1) - 1


class OffsetMap:
    """Maps offsets in `old` to offsets in `new`. Unchanged text maps
    exactly; an offset inside rewritten text maps to the start of its
    rewrite (an end offset to its end)."""

    def __init__(self, old: str, new: str) -> None:
        # Common prefix and suffix first: most passes change a small part.
        n = min(len(old), len(new))
        p = 0
        while p < n and old[p] == new[p]:
            p += 1
        s = 0
        while s < n - p and old[len(old) - 1 - s] == new[len(new) - 1 - s]:
            s += 1
        self._old_len, self._new_len = len(old), len(new)
        self._p, self._s = p, s
        # Blocks inside the changed middle: (old_start, old_end, new_start, new_end, equal)
        self._blocks = []
        self._keys = []
        mid_old, mid_new = old[p:len(old) - s], new[p:len(new) - s]
        if mid_old or mid_new:
            self._blocks = _blocks(mid_old, mid_new, p)
            self._keys = [b[0] for b in self._blocks]

    def __call__(self, pos: int, end: bool = False) -> int:
        if pos <= self._p if end else pos < self._p:
            return pos
        if pos >= self._old_len - self._s:
            return pos - self._old_len + self._new_len
        i = bisect.bisect_right(self._keys, pos) - 1
        if i < 0:
            return pos
        o0, o1, n0, n1, equal = self._blocks[i]
        if equal:
            return n0 + (pos - o0)
        return n1 if end else n0

    def span(self, start: int, stop: int) -> tuple:
        return self(start), self(stop, end=True)


def _blocks(old: str, new: str, base: int) -> list:
    """Line-level diff of the changed middle, refined to characters inside
    each rewritten hunk."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    out = []
    oa = [0]
    for ln in a:
        oa.append(oa[-1] + len(ln))
    ob = [0]
    for ln in b:
        ob.append(ob[-1] + len(ln))
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        o0, o1, n0, n1 = oa[i1], oa[i2], ob[j1], ob[j2]
        if tag == "equal":
            out.append((base + o0, base + o1, base + n0, base + n1, True))
            continue
        chunk_old, chunk_new = old[o0:o1], new[n0:n1]
        if chunk_old and chunk_new and len(chunk_old) + len(chunk_new) < 20000:
            cm = difflib.SequenceMatcher(None, chunk_old, chunk_new, autojunk=False)
            for t, x1, x2, y1, y2 in cm.get_opcodes():
                if x1 == x2 and t != "equal":
                    continue  # pure insertion: nothing in old maps into it
                out.append((base + o0 + x1, base + o0 + x2, base + n0 + y1, base + n0 + y2, t == "equal"))
        elif chunk_old:
            out.append((base + o0, base + o1, base + n0, base + n1, False))
    return out
