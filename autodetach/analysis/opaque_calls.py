"""Calls after a retaining backward that the walk cannot see into, given a
part of the retained graph:

    loss.backward(retain_graph=True)
    hooks[0](out)                           # a callable picked from a container
    functools.partial(aux_backward, out)()  # a callable built by another call
    opt.step(lambda: out.mean().backward()) # a function handed on, with the graph
    run(aux_backward, out)

Any of them may run a backward through `out`, which the retain is what lets
work. The walk does not follow such calls, so no later backward shows up and
dropping the retain looked safe; it is inference, and the fix is offered as
unsafe with the call named. `exec`/`eval` of a string may read any name."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .graph import closure
from .walk import nodes

_STRING_CODE = frozenset({"exec", "eval"})


def opaque_later(analysis, scope, ev, own) -> list:
    """Notes for a retain (`ev`) whose graph (`own`) such a call is given."""
    return opaque_after(analysis, scope, ev.call, ev.loops, own, "it may backward the retained graph again")


def opaque_after(analysis, scope, anchor, loops, targets, risk) -> list:
    """A note naming the first call after `anchor` (or anywhere in `loops`,
    which run again) that the walk cannot see into and that is given a value
    hanging from `targets` (graph nodes); `risk` says what it may do."""
    ctx = analysis.ctx
    start = _position(ctx, anchor)
    for stmt in scope.body:
        for node in nodes(stmt, skip=(cst.FunctionDef, cst.ClassDef)):
            if type(node) is not cst.Call or node is anchor:
                continue
            at = _position(ctx, node)
            if at is None:
                break  # a driver's body from another file: its calls have no place here
            if start is not None and at <= start and not any(ctx.encloses(loop, node) for loop in loops):
                continue
            why = _opaque(analysis, scope, node, targets)
            if why:
                text = ctx.snippet(node)
                return [f"`{text}` (line {ctx.line_of(node)}) {why}: {risk}"]
    return []


def _opaque(analysis, scope, call, targets) -> str:
    func = call.func
    names = analysis.names
    if isinstance(func, cst.Name) and func.value in _STRING_CODE and func.value not in names.functions:
        return "runs code from a string, which may read any name"
    if not _hangs(scope, call, targets):
        return ""
    if isinstance(func, (cst.Subscript, cst.Lambda)):
        return "calls a callable the analysis does not resolve with a part of the graph"
    if isinstance(func, cst.Call):
        return "calls what another call returns with a part of the graph"
    if any(_callable_arg(analysis, arg.value) for arg in call.args):
        return "hands a function and a part of the graph to code that may call the one on the other"
    return ""


def _hangs(scope, call, own) -> bool:
    """Does an argument (or a lambda argument's free names) hang from `own` (graph nodes)?"""
    each = scope.arg_vals.get(id(call), {})
    for val in each.values():
        if val.heads and closure(val.heads) & own:
            return True
    for arg in call.args:
        if isinstance(arg.value, cst.Lambda):
            for n in nodes(arg.value.body):
                if type(n) is cst.Name and n.value in scope.env and scope.env[n.value].heads and \
                        closure(scope.env[n.value].heads) & own:
                    return True
    return False


def _callable_arg(analysis, expr) -> bool:
    if isinstance(expr, cst.Lambda):
        return True
    return dotted(expr) in analysis.names.functions


def _position(ctx, node):
    try:
        return ctx.position(node)
    except Exception:  # a node outside this module (an inlined call of another file)
        return None

