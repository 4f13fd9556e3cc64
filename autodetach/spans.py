"""Offsets in a file's text, and where they move when fixes rewrite it.

A finding's identity is its rule code and its anchor's span in the original
text; after each pass the spans are carried into the new text, so a finding
keeps its identity when another fix shifts lines (line numbers are never
part of it)."""
from __future__ import annotations

import bisect
import difflib
import re
from collections import Counter

_NEWLINE = re.compile(r"\r\n|\r|\n")  # the line ends libcst counts


def line_starts(text: str) -> list:
    return [0] + [m.end() for m in _NEWLINE.finditer(text)]


def offset(starts: list, line: int, column: int) -> int:
    """1-based line and column to a character offset."""
    line = min(max(line, 1), len(starts))
    return starts[line - 1] + max(column, 1) - 1


def common_prefix(a: str, b: str) -> int:
    """Length of the common prefix: a binary search over slice comparisons
    (done in C; a loop over characters costs a parse's tenth on a 4k file)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a: str, b: str, limit: int = 0) -> int:
    """Length of the common suffix, at most min(len) - limit characters."""
    la, lb = len(a), len(b)
    lo, hi = 0, min(la, lb) - limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid:la - lo] == b[lb - mid:lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class OffsetMap:
    """Maps offsets in `old` to offsets in `new`. Unchanged text maps
    exactly; an offset inside rewritten text maps to the start of its
    rewrite (an end offset to its end)."""

    def __init__(self, old: str, new: str) -> None:
        # Common prefix and suffix first: most passes change a small part.
        p = common_prefix(old, new)
        s = common_suffix(old, new, p)
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


def _line_offsets(lines: list) -> list:
    out = [0]
    for ln in lines:
        out.append(out[-1] + len(ln))
    return out


def _blocks(old: str, new: str, base: int) -> list:
    """Patience alignment of the changed middle: lines unique on both sides
    anchor it (linear, whatever the file's size); the stretches between
    anchors are small and diffed by lines, then by characters."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    oa, ob = _line_offsets(a), _line_offsets(b)
    out: list = []
    i0 = j0 = 0
    for i, j in _anchors(a, b) + [(len(a), len(b))]:
        _stretch(a, b, i0, i, j0, j, oa, ob, old, new, base, out)
        if i < len(a):
            out.append((base + oa[i], base + oa[i + 1], base + ob[j], base + ob[j + 1], True))
        i0, j0 = i + 1, j + 1
    return out


def _anchors(a: list, b: list) -> list:
    """(i, j) of lines that occur once in `a` and once in `b`, the longest
    increasing run of them."""
    count_a = Counter(a)
    count_b = Counter(b)
    where = {ln: j for j, ln in enumerate(b) if count_b[ln] == 1}
    pairs = [(i, where[ln]) for i, ln in enumerate(a) if count_a[ln] == 1 and ln in where]
    # Longest increasing subsequence on j (patience sorting).
    tails: list = []
    tail_idx: list = []
    prev = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        pos = bisect.bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_idx.append(k)
        else:
            tails[pos] = j
            tail_idx[pos] = k
        prev[k] = tail_idx[pos - 1] if pos else -1
    out = []
    k = tail_idx[-1] if tail_idx else -1
    while k >= 0:
        out.append(pairs[k])
        k = prev[k]
    return out[::-1]


def _stretch(a, b, i0, i1, j0, j1, oa, ob, old, new, base, out) -> None:
    """Lines a[i0:i1] against b[j0:j1]: equal ends first, then a line diff
    when small, else one rewritten block."""
    while i0 < i1 and j0 < j1 and a[i0] == b[j0]:
        out.append((base + oa[i0], base + oa[i0 + 1], base + ob[j0], base + ob[j0 + 1], True))
        i0, j0 = i0 + 1, j0 + 1
    tail = []
    while i0 < i1 and j0 < j1 and a[i1 - 1] == b[j1 - 1]:
        i1, j1 = i1 - 1, j1 - 1
        tail.append((base + oa[i1], base + oa[i1 + 1], base + ob[j1], base + ob[j1 + 1], True))
    if i0 < i1:
        if i1 - i0 <= 200 and j1 - j0 <= 200:
            sm = difflib.SequenceMatcher(None, a[i0:i1], b[j0:j1], autojunk=False)
            for tag, x1, x2, y1, y2 in sm.get_opcodes():
                o0, o1 = oa[i0 + x1], oa[i0 + x2]
                n0, n1 = ob[j0 + y1], ob[j0 + y2]
                if tag == "equal":
                    out.append((base + o0, base + o1, base + n0, base + n1, True))
                elif o0 < o1:
                    _diff_chars(old[o0:o1], new[n0:n1], base + o0, base + n0, out)
        else:
            _diff_chars(old[oa[i0]:oa[i1]], new[ob[j0]:ob[j1]], base + oa[i0], base + ob[j0], out)
    out.extend(reversed(tail))


def _diff_chars(old: str, new: str, bo: int, bn: int, out: list) -> None:
    if old and new and len(old) + len(new) <= 600 and (old.count("\n") > 1 or new.count("\n") > 1):
        for t, x1, x2, y1, y2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if x1 == x2 and t != "equal":
                continue  # pure insertion: nothing in old maps into it
            out.append((bo + x1, bo + x2, bn + y1, bn + y2, t == "equal"))
        return
    # Long: common prefix and suffix map exactly, the rest to its rewrite.
    n = min(len(old), len(new))
    p = 0
    while p < n and old[p] == new[p]:
        p += 1
    q = 0
    while q < n - p and old[-1 - q] == new[-1 - q]:
        q += 1
    if p:
        out.append((bo, bo + p, bn, bn + p, True))
    if len(old) - q > p:
        out.append((bo + p, bo + len(old) - q, bn + p, bn + len(new) - q, False))
    if q:
        out.append((bo + len(old) - q, bo + len(old), bn + len(new) - q, bn + len(new), True))
