"""Questions the state analyses (acting_state.py, threaded_state.py) ask of a
loop and of the values read in it: does a read reach only a number, does the
code run with gradients off, does it backward or step."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .buffer_updates import CUT_METHODS
from .flow import decorated_grad, grad_mode
from .walk import nodes

STEPS = {"backward", "manual_backward", "grad"}
# `q.max(1)[1]`: the indices of these carry no graph
WITH_INDICES = {"max", "min", "topk", "sort"}
NUMBER_FUNCTIONS = {"torch.argmax", "torch.argmin", "numpy.argmax", "numpy.argmin", "int", "float"}


def bound_here(ctx, name) -> bool:
    """Is this name read a target that an assignment binds (`h = ...`, `a, h = ...`)?"""
    parent = ctx.parent(name)
    if type(parent) is cst.AssignTarget:
        return True
    if isinstance(parent, cst.Element):
        up = ctx.parent(parent)
        return isinstance(up, (cst.Tuple, cst.List)) and isinstance(ctx.parent(up), cst.AssignTarget)
    return False


def reaches_cut(ctx, names, node) -> bool:
    """`node` reaches only a value without a graph: a chain of calls that ends
    in a cut (`.item()`, `.argmax()`, `.max(1)[1]`), or a number function."""
    cur = node
    while True:
        parent = ctx.parent(cur)
        if isinstance(parent, cst.Attribute) and parent.value is cur:
            attr = parent.attr.value
            if attr in CUT_METHODS or attr == "data":
                return True
            call = ctx.parent(parent)
            if not (isinstance(call, cst.Call) and call.func is parent):
                return False
            sub = ctx.parent(call)
            if attr in WITH_INDICES and isinstance(sub, cst.Subscript) and sub.value is call and \
                    _index(sub) == 1:
                return True
            cur = call
            continue
        if isinstance(parent, cst.Arg):
            outer = ctx.parent(parent)
            if not isinstance(outer, cst.Call) or outer.func is cur:
                return False
            if outer.args and outer.args[0] is parent and ctx.imports.qualify(outer.func) in NUMBER_FUNCTIONS:
                return True
            if names.is_module(dotted(outer.func)) or (ctx.imports.qualify(outer.func) or "").startswith("torch."):
                cur = outer  # `self.q(out)`, `torch.softmax(q, 1)`: a tensor again, followed to its cut
                continue
        return False


def _index(sub) -> Optional[int]:
    if len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index) and \
            isinstance(sub.slice[0].slice.value, cst.Integer):
        return int(sub.slice[0].slice.value.value)
    return None


def under_no_grad(ctx, node, fn) -> bool:
    """Under `torch.no_grad()`: a `with` around it, or a decorator of its function."""
    if fn is not None and decorated_grad(fn, ctx.imports) == 1:
        return True
    cur = ctx.parent(node)
    while cur is not None and cur is not fn:
        if isinstance(cur, cst.With) and any(grad_mode(item.item, ctx.imports) == 1 for item in cur.items):
            return True
        cur = ctx.parent(cur)
    return False


def trains(analysis, node) -> bool:
    """A backward, or an optimizer's step (not `env.step(action)`)."""
    for n in nodes(node):
        if type(n) is cst.Call and type(n.func) is cst.Attribute:
            attr = n.func.attr.value
            if attr in STEPS:
                return True
            base = dotted(n.func.value) or ""
            if attr == "step" and (base in analysis.names.optimizers or "optim" in base.lower()):
                return True
    return False


def calls_any(node, names: set) -> bool:
    return any(type(n) is cst.Call and (type(n.func) is cst.Attribute and n.func.attr.value in names or
                                        type(n.func) is cst.Name and n.func.value in names) for n in nodes(node))


def trainers(analysis) -> set:
    """Names of the functions of this file that backward or step (through a call
    of one of them, the loop trains)."""
    return {fn.name.value for fn in analysis.names.functions_all if trains(analysis, fn)}
