"""Loops over literal lists of names, walked once per element.

    for hist, value in zip([losses, accs], [loss, acc]):
        hist.append(value)

Walked as a loop, `hist` is no container the analysis knows and `value` is
every element at once, so the epoch loop around it never sees `losses`
keep `loss`. Unrolled, each position binds the loop variables to the
elements at that position: `hist.append(value)` is `losses.append(loss)`,
then `accs.append(acc)`. A fix lands on the element in the literal
(`[loss.detach(), acc]`), which only that position's store reads. Only a
loss (by name, or proven by a backward) is taken for kept through such a
loop (flow._container_add): `acc` may be a number that code read as a
graph (an evaluator's result) computed.

Forms: `zip(L1, L2, ...)` of list or tuple literals of one length, a
literal of tuple literals (`for h, v in ((losses, loss), (accs, acc))`), a
literal with one loop variable, and `for i in range(1)` (one iteration, `i` is 0: the
body is straight-line code, no later iteration reads what it binds). No `break`/`continue` in the body (the
unrolled walk has no way out of one position), at most MAX elements."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from .walk import nodes

MAX = 16
_SEQ = (cst.List, cst.Tuple)


def positions(loop: cst.For) -> Optional[list]:
    """Per element: {loop variable: the element's expression}; None when the
    loop is not of these forms."""
    target, it = loop.target, loop.iter
    names = [e.value for e in target.elements] if isinstance(target, cst.Tuple) else [target]
    if not names or not all(type(n) is cst.Name for n in names):
        return None
    columns = None
    if isinstance(it, cst.Call) and type(it.func) is cst.Name and it.func.value == "zip" and \
            len(it.args) == len(names) and len(names) > 1:
        if any(a.keyword or a.star or not isinstance(a.value, _SEQ) for a in it.args):
            return None
        columns = [_elements(a.value) for a in it.args]
    elif _one_iteration(it) and len(names) == 1:
        columns = [[cst.Integer("0")]]
    elif isinstance(it, _SEQ):
        rows = _elements(it)
        if rows is None:
            return None
        if len(names) == 1:
            columns = [rows]
        elif all(isinstance(r, _SEQ) and _elements(r) is not None and len(r.elements) == len(names) for r in rows):
            columns = [[_elements(r)[i] for r in rows] for i in range(len(names))]
    if not columns or any(c is None for c in columns) or len({len(c) for c in columns}) != 1 or \
            not 0 < len(columns[0]) <= MAX:
        return None
    if any(type(n) in (cst.Break, cst.Continue) for n in nodes(loop.body, skip=(cst.FunctionDef, cst.ClassDef))):
        return None
    return [{n.value: col[i] for n, col in zip(names, columns)} for i in range(len(columns[0]))]


def _one_iteration(it) -> bool:
    """`range(1)` or `range(0, 1)`: the loop runs its body once."""
    if not (isinstance(it, cst.Call) and type(it.func) is cst.Name and it.func.value == "range"):
        return False
    if any(a.keyword or a.star or type(a.value) is not cst.Integer for a in it.args):
        return False
    bounds = [a.value.evaluated_value for a in it.args]
    return bounds == [1] or bounds == [0, 1]


def _elements(seq) -> Optional[list]:
    if any(isinstance(e, cst.StarredElement) for e in seq.elements):
        return None
    return [e.value for e in seq.elements]
