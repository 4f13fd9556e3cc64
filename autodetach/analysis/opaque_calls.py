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
from ..positions import code_for
from .graph import closure
from .walk import nodes

_STRING_CODE = frozenset({"exec", "eval"})


def opaque_later(analysis, scope, ev, own) -> list:
    ctx = analysis.ctx
    start = _position(ctx, ev.call)
    for stmt in scope.body:
        for node in nodes(stmt, skip=(cst.FunctionDef, cst.ClassDef)):
            if type(node) is not cst.Call or node is ev.call:
                continue
            at = _position(ctx, node)
            if at is None:
                break  # a driver's body from another file: its calls have no place here
            if start is not None and at <= start and not _in_loops(ctx, ev, node):
                continue
            why = _opaque(analysis, scope, node, own)
            if why:
                text = " ".join(code_for(ctx.module, node).split())
                text = text if len(text) <= 50 else text[:47] + "..."
                return [f"`{text}` (line {ctx.line_of(node)}) {why}: it may backward the retained graph again"]
    return []


def _opaque(analysis, scope, call, own) -> str:
    func = call.func
    names = analysis.names
    if isinstance(func, cst.Name) and func.value in _STRING_CODE and func.value not in names.functions:
        return "runs code from a string, which may read any name"
    if not _hangs(scope, call, own):
        return ""
    if isinstance(func, (cst.Subscript, cst.Lambda)):
        return "calls, with a part of the retained graph, a callable the analysis does not resolve"
    if isinstance(func, cst.Call):
        return "calls what another call returns with a part of the retained graph"
    if any(_callable_arg(analysis, arg.value) for arg in call.args):
        return "hands a function and a part of the retained graph to code that may call the one on the other"
    return ""


def _hangs(scope, call, own) -> bool:
    """Does an argument (or a lambda argument's free names) hang from `own`?"""
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


def _in_loops(ctx, ev, node) -> bool:
    return any(ctx.encloses(loop, node) for loop in ev.loops)
