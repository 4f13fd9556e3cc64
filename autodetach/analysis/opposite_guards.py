"""Do two statements of a function never run in the same call?

    def update(batch, nets, debug, learn=False):
        ...
        if not learn:
            debug["action"] = action          # kept on the caller's dict ...
        if learn and step % 3 == 0:
            loss.backward(retain_graph=True)  # ... only on calls that run no backward

A careful reader sees that the store and the walk sit under tests that
contradict each other on a name the function never rebinds (an argument, a
global it only reads): `not learn` and `learn and ...`, or the two arms of
`if learn:`. On a call where the backward runs the store does not, so what
the store keeps says nothing about the graph that backward retains. Read from
the syntax: each statement's guards are the `if` tests around it in the
function (the test true in its body, false in its `else`); a test's facts are
a plain name's truth (`x`, `not x`, the terms of an `and` when true, of an
`or` when false). Any other test adds no fact, so the answer is no."""
from __future__ import annotations

import libcst as cst

from .walk import nodes


def never_together(ctx, fn, a, b) -> bool:
    """True when `a` and `b` (nodes of `fn`) lie under guards that give one plain
    name, never rebound in `fn`, opposite truth values."""
    fa, fb = _facts(ctx, fn, a), _facts(ctx, fn, b)
    clash = {n for n, v in fa.items() if n in fb and fb[n] is not v and v is not None and fb[n] is not None}
    if not clash:
        return False
    bound = _rebound(fn)
    return "*" not in bound and any(n not in bound for n in clash)


def _facts(ctx, fn, node) -> dict:
    out: dict = {}
    child = node
    parent = ctx.parent(child)
    while parent is not None and child is not fn:
        if isinstance(parent, cst.If):
            if child is parent.body:
                _truths(parent.test, True, out)
            elif child is parent.orelse:
                _truths(parent.test, False, out)
        child, parent = parent, ctx.parent(parent)
    return out


def _truths(test, value: bool, out: dict) -> None:
    if isinstance(test, cst.Name):
        out[test.value] = value if out.get(test.value, value) is value else None
    elif isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        _truths(test.expression, not value, out)
    elif isinstance(test, cst.BooleanOperation):
        if isinstance(test.operator, cst.And) and value or isinstance(test.operator, cst.Or) and not value:
            _truths(test.left, value, out)
            _truths(test.right, value, out)


def _rebound(fn) -> set:
    out = set()
    for x in nodes(fn.body):
        if isinstance(x, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.WithItem, cst.NamedExpr)):
            tgt = x.asname.name if isinstance(x, cst.WithItem) and x.asname else getattr(x, "target", None)
            if tgt is not None:
                out.update(n.value for n in nodes(tgt) if isinstance(n, cst.Name))
        elif isinstance(x, (cst.Global, cst.Nonlocal)):
            out.update(n.name.value for n in x.names)
        elif isinstance(x, (cst.FunctionDef, cst.ClassDef)):
            out.add(x.name.value)
        elif isinstance(x, (cst.Import, cst.ImportFrom)):
            return {"*"} | out  # an import inside the function: any name may be rebound (taken as all)
    return out
