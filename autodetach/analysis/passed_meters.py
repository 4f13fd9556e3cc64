"""Helpers given the caller's meter (`collect(model, x, y, stat_col)` doing
`stat_col["loss"] = loss`, `record(loss, meter)` doing `meter.update(loss)`).

A helper with no backward or step is read from its summary at the call, which
says nothing of what it stores into the objects it is given. When a parameter
is handed a meter object of the caller (a project class whose method, or
`__setitem__`, adds its argument into `self` state) and the helper calls that
method on it, flow walks the helper at the call instead (Scope.inline maps the
parameter to the caller's object), so the store is seen where the loop runs."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes


def meter_helper(scope, func: cst.FunctionDef, call: cst.Call, bound_self: bool) -> bool:
    """Does `func`, called as `call`, store into a meter the caller hands it?"""
    if scope.no_grad:
        return False
    used = _meter_uses(scope.analysis, func)
    if not used:
        return False
    given = handed_arguments(func, call, bound_self)
    for param, meths in used.items():
        value = given.get(param)
        key = dotted(value) if type(value) in (cst.Name, cst.Attribute) else None
        key = scope.passed.get(key, key)
        if key is None:
            continue
        for meth in meths:
            known = scope.analysis.object_method(key, meth)
            if known is not None and known[0].accum and not known[0].events:
                return True
    return False


def _meter_uses(analysis, func) -> dict:
    """parameter -> the methods `func` calls on it (`p.update(...)`, `p[k] = v` as `__setitem__`)."""
    memo = analysis.table("_meter_uses")
    if func not in memo:
        params = {param.name.value for param in func.params.params}
        out: dict = {}
        for node in nodes(func.body, skip=(cst.FunctionDef, cst.ClassDef)):
            if type(node) is cst.Call and type(node.func) is cst.Attribute and type(node.func.value) is cst.Name \
                    and node.func.value.value in params:
                out.setdefault(node.func.value.value, set()).add(node.func.attr.value)
            elif type(node) is cst.AssignTarget and type(node.target) is cst.Subscript and \
                    type(node.target.value) is cst.Name and node.target.value.value in params:
                out.setdefault(node.target.value.value, set()).add("__setitem__")
        out.pop("self", None)
        memo[func] = out
    return memo[func]


def handed_arguments(func: cst.FunctionDef, call: cst.Call, bound_self: bool) -> dict:
    """Parameter name -> the expression `call` hands it (positional, then by keyword;
    `self` skipped for a method called through its object; starred arguments not followed)."""
    params = [param.name.value for param in func.params.params][1 if bound_self else 0:]
    given = {params[index]: arg.value for index, arg in enumerate(a for a in call.args if a.keyword is None)
             if index < len(params) and not arg.star}
    given.update((arg.keyword.value, arg.value) for arg in call.args if arg.keyword is not None)
    return given
