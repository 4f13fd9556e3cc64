"""Helpers that write into tensors the caller hands them (`_update(dist, cur, best)`
doing `best[mask] = dist[mask]`).

A helper with no backward or step is read from its summary at the call, which
says nothing of what it writes into its arguments. A write by index changes
the caller's tensor in place: when the value written carries a graph, the
caller's tensor now hangs from it, and a buffer the caller keeps across
iterations (a best-so-far distance in an attack, a running statistic) chains
one step's graph onto the next. When a parameter written this way is handed a
name of the caller and some argument carries a graph, flow walks the helper at
the call (Scope.inline), and the write lands on the caller's name."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .passed_meters import handed_arguments
from .walk import nodes


def buffer_helper(scope, func: cst.FunctionDef, call: cst.Call, bound_self: bool) -> bool:
    """Does `func`, called as `call`, write a value with a graph into a tensor of the caller?"""
    if scope.no_grad or scope.analysis.function_summary(func).has_events:
        return False
    written = _written(scope.analysis, func)
    if not written:
        return False
    given = handed_arguments(func, call, bound_self)
    if not any(type(given.get(param)) in (cst.Name, cst.Attribute) for param in written):
        return False
    # a value with a graph among the names given (read, not walked: no node is made here)
    return any(type(value) in (cst.Name, cst.Attribute) and dotted(value) in scope.env and
               scope.env[dotted(value)].graph for param, value in given.items() if param not in written)


def _written(analysis, func) -> frozenset:
    """The parameters `func` writes into by index (`p[i] = v`), never rebound."""
    memo = analysis.table("_buffer_writes")
    if func not in memo:
        params = {param.name.value for param in func.params.params} - {"self"}
        out, bound = set(), set()
        for node in nodes(func.body, skip=(cst.FunctionDef, cst.ClassDef)):
            if type(node) is cst.AssignTarget and type(node.target) is cst.Subscript and \
                    type(node.target.value) is cst.Name and node.target.value.value in params:
                out.add(node.target.value.value)
            elif type(node) is cst.AssignTarget:
                target = node.target
                parts = [e.value for e in target.elements] if type(target) in (cst.Tuple, cst.List) else [target]
                bound.update(part.value for part in parts if type(part) is cst.Name)
        memo[func] = frozenset(out - bound)
    return memo[func]
