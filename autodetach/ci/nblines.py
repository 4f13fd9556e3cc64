"""The changed lines of a changed notebook, as lines of its virtual program
(the code cells joined in order, as notebook.Notebook.virtual() gives).

Git's diff of a notebook is a diff of JSON lines, so the code cells of the
base and head versions are compared instead. Cells whose code is the same
are matched in order; a cell whose code was not matched that way is matched
to a base cell with the same code (a cell moved as it was: unchanged), or
else to the base cell it replaced or the most similar one (an edited cell:
its new and modified lines changed, as `git diff` would say for a .py
file), or else it is new (every line changed). Outputs, markdown cells, metadata and line endings
are not code changes."""
from __future__ import annotations

import difflib
from typing import Optional

from .. import notebook

# Below this similarity (difflib's ratio over lines) a cell is new, not edited.
SIMILAR = 0.5


def changed(old: Optional[bytes], new: bytes) -> Optional[set]:
    """The changed virtual lines (1-based) of notebook `new` against `old`
    (None: a new notebook, every line changed). None when `new` cannot be
    read as a notebook: it is then checked whole and its error reported."""
    try:
        head = notebook.read(new)
    except (notebook.NotebookError, ImportError):
        return None
    if old is not None:
        try:
            base = notebook.read(old)
        except (notebook.NotebookError, ImportError):
            base = None  # not a notebook before (or unreadable): all of it is new
        if base is not None:
            return cell_changes([c.source for c in base.cells], head)
    return set(range(1, sum(c.count for c in head.cells) + 1))


def cell_changes(old_sources: list, head) -> set:
    """The virtual lines of `head` (a notebook.Notebook) that are new or
    modified against the code cells `old_sources`."""
    a = [tuple(s.splitlines()) for s in old_sources]
    b = [tuple(c.source.splitlines()) for c in head.cells]
    blocks = [op[1:] for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
              if op[0] != "equal"]
    same: dict = {}
    for i1, i2, _, _ in blocks:
        for i in range(i1, i2):
            same.setdefault(a[i], []).append(i)
    edited = []
    for _, _, j1, j2 in blocks:
        for j in range(j1, j2):
            if same.get(b[j]):  # moved as it was
                same[b[j]].pop(0)
            else:
                edited.append(j)
    free = {i for left in same.values() for i in left}
    pairs = {}
    for i1, i2, j1, j2 in blocks:  # edited in place: the common case, and cheap
        for i, j in zip(range(i1, i2), range(j1, j2)):
            if i in free and j in edited and _ratio(a[i], b[j]) >= SIMILAR:
                pairs[j] = i
                free.discard(i)
    pairs.update(_most_similar(sorted(free), [j for j in edited if j not in pairs], a, b))
    out = set()
    for j in edited:
        c = head.cells[j]
        if j in pairs:
            sm = difflib.SequenceMatcher(None, a[pairs[j]], b[j], autojunk=False)
            rows = [n for tag, _, _, j1, j2 in sm.get_opcodes() if tag != "equal" for n in range(j1, j2)]
        else:
            rows = range(len(b[j]))
        out.update(c.first + n + 1 for n in rows)
    return out


def _ratio(x: tuple, y: tuple) -> float:
    return difflib.SequenceMatcher(None, x, y, autojunk=False).ratio()


def _most_similar(olds: list, news: list, a: list, b: list) -> dict:
    """{new cell: base cell} pairing each new cell with the most similar
    unmatched base cell (ties: the nearer one), at least SIMILAR alike.
    Quadratic, but only over the cells not matched any other way."""
    scored = []
    for j in news:
        sm = difflib.SequenceMatcher(None, autojunk=False)
        sm.set_seq2(b[j])  # difflib caches what it learns about the second sequence
        for i in olds:
            sm.set_seq1(a[i])
            if sm.real_quick_ratio() >= SIMILAR and sm.quick_ratio() >= SIMILAR:
                r = sm.ratio()
                if r >= SIMILAR:
                    scored.append((-r, abs(i - j), i, j))
    pairs, used = {}, set()
    for _, _, i, j in sorted(scored):
        if i not in used and j not in pairs:
            pairs[j] = i
            used.add(i)
    return pairs
