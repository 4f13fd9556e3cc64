"""A loop variable rebound to a new value that nothing reads.

`for grad in grads: grad = grad.detach()` binds the detached tensor to the
loop variable only: the next iteration rebinds it, `grads` still holds the
originals, and the detach does nothing (MLNT's meta step). The question is
answered conservatively: every read of the name in its code block must be
one that cannot see the new value.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

# Setting these on the new tensor changes nothing in the container's tensors.
_FLAG_ATTRS = frozenset({"requires_grad"})
_FLAG_METHODS = frozenset({"requires_grad_"})


def dead_loop_rebind(ctx, stmt: cst.Assign, name: str) -> Optional[cst.For]:
    """The `for` loop whose variable `name` the statement `name = ...` rebinds
    when no later code reads the new value (setting its requires_grad flag
    aside); None otherwise."""
    model = ctx.bindings
    scope = model.scope_of(stmt)
    if scope.kind not in ("function", "module") or model.declared(scope, name):
        return None
    loop = ctx.enclosing(stmt, (cst.For, cst.While), stop=(cst.FunctionDef, cst.ClassDef, cst.Lambda))
    if not isinstance(loop, cst.For) or loop.asynchronous is not None or \
            not any(b.kind == "for" and b.node is loop for b in model.local(scope, name)):
        return None
    nested = ctx.enclosing(loop, (cst.For, cst.While), stop=(cst.FunctionDef, cst.ClassDef, cst.Lambda))
    positions = ctx.positions
    here = positions[stmt]
    start = positions[loop].start
    for read in model.reads_of(scope, name):
        if model.scope_of(read) is not scope:
            return None  # a closure may run after the rebinding
        at = positions[read].start
        if ctx.encloses(loop, read):
            if ctx.encloses(loop.body, read) and (at.line, at.column) < (here.end.line, here.end.column):
                continue  # reads the item this iteration bound (stmt's own value included)
            if _flag_only(ctx, read):
                continue
            return None
        if nested is None and (at.line, at.column) < (start.line, start.column):
            continue  # before the loop, which runs once
        return None
    return loop


def _flag_only(ctx, read: cst.Name) -> bool:
    """`name.requires_grad = False` or `name.requires_grad_(False)` as a statement."""
    attr = ctx.parent(read)
    if not isinstance(attr, cst.Attribute) or attr.value is not read:
        return False
    up = ctx.parent(attr)
    if attr.attr.value in _FLAG_ATTRS and isinstance(up, cst.AssignTarget):
        return True
    if attr.attr.value in _FLAG_METHODS and isinstance(up, cst.Call) and up.func is attr:
        return isinstance(ctx.parent(up), cst.Expr)
    return False
