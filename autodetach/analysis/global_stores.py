"""A helper of the file that grows a container bound outside it
(`saved_log_probs.append(m.log_prob(a))`, `policy.rewards.append(r)` of a
module-level `policy`): it has no backward or step of its own, so the flow
analysis would read only its result, and the stored graph would be lost to
the loop that calls it. Such a helper is walked at its call instead."""
from __future__ import annotations

import libcst as cst

from .walk import nodes

GROW = {"append", "extend", "insert", "add", "appendleft"}


def grows_outer(scope, func: cst.FunctionDef) -> bool:
    if scope.no_grad:
        return False
    memo = scope.analysis.table("_grows_outer")
    if func not in memo:
        memo[func] = _grows(func)
    return memo[func]


def _root(expr):
    while type(expr) is cst.Attribute:
        expr = expr.value
    return expr.value if type(expr) is cst.Name else None


def _grows(func: cst.FunctionDef) -> bool:
    local = {param.name.value for param in func.params.params}
    local.update(p.name.value for p in (func.params.posonly_params or ()))
    grown = set()
    for node in nodes(func.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        kind = type(node)
        if kind in (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor):
            local.update(_names(node.target))
        elif kind is cst.AsName:
            local.update(_names(node.name))
        elif kind is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in GROW:
            root = _root(node.func.value)
            if root is not None and root != "self":
                grown.add(root)
        elif kind is cst.Global:
            return False  # rebinding a global: left to the caller's own analysis
    return bool(grown - local)


def _names(target) -> set:
    if type(target) is cst.Name:
        return {target.value}
    if type(target) in (cst.Tuple, cst.List):
        return set().union(*(_names(e.value) for e in target.elements)) if target.elements else set()
    if type(target) is cst.StarredElement:
        return _names(target.value)
    return set()
