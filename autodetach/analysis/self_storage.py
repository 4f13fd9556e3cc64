"""State on `self` that only grows: bound in `__init__`, added to elsewhere, never emptied.

    class Learner:
        def __init__(self, f):
            self.losses = []

        def __call__(self, x):
            for i in range(self.steps):
                loss = self.f(x)
                loss.backward(retain_graph=self.retain)
                self.losses.append(loss)
            return self.losses

A list a function returns is the caller's business (it may backward it), but this one outlives
the call: no method but `__init__` binds or empties `self.losses`, so each call adds its graphs
to those of every earlier call, whatever the caller does with what it gets. A subclass or
another file could still empty it: the finding says the caller is not followed."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from . import self_views
from .walk import nodes

EMPTIES = {"clear", "pop", "popleft", "remove"}


def grows_on_self(analysis, cls, key: str) -> bool:
    """Is `key` (`self.X`) bound by the class's `__init__` and neither rebound nor emptied by
    any other method of the class?"""
    if not cls or not key.startswith("self.") or key.count(".") != 1:
        return False
    memo = analysis.table("_grows_on_self")
    if (cls, key) not in memo:
        memo[(cls, key)] = _grows(analysis, cls, key)
    return memo[(cls, key)]


def _grows(analysis, cls, key) -> bool:
    methods = {name: fn for (owner, name), fn in analysis.names.methods.items() if owner == cls}
    init = methods.get("__init__")
    if init is None or not any(key in _bound(n) for n in nodes(init)):
        return False
    for name, fn in methods.items():
        if name == "__init__":
            continue
        for node in nodes(fn):
            if key in _bound(node) or _empties(node, key):
                return False
    return True


def _bound(node) -> set:
    """Keys a statement binds as a whole (`self.X = ...`, `self.X[:] = ...`)."""
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, cst.AnnAssign):
        targets = [node.target]
    else:
        return set()
    out = set()
    for target in targets:
        for part in (target.elements if isinstance(target, (cst.Tuple, cst.List)) else [target]):
            value = part.value if isinstance(part, (cst.Element, cst.StarredElement)) else part
            if isinstance(value, cst.Subscript):
                value = value.value  # `self.X[:] = []` empties it in place
            key = dotted(value)
            if key:
                out.add(key)
    return out


def _empties(node, key) -> bool:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        held = node.func.value
        if isinstance(held, cst.Subscript):
            held = held.value  # `self.X["loss"].clear()` empties a list `self.X` holds
        return node.func.attr.value in EMPTIES and dotted(held) == key
    if isinstance(node, cst.Del):
        return any(dotted(n.value if isinstance(n, cst.Subscript) else n) == key for n in nodes(node.target))
    return False


ADDS = {"append", "extend", "insert", "appendleft", "add_"}


def log_helper(scope, own) -> bool:
    """`self.end_of_batch_log()` after `self.batch_loss = loss`: a method of this class with no
    backward (Scope.plain_self_method) that reads a `self.X` now holding a graph and adds what it
    reads into `self` state (`self.history.append(self.batch_loss)`, `self.stats[k] += [...]`).
    Walked at the call, so that what it keeps is seen where the step runs."""
    memo = scope.analysis.table("_log_helpers")
    if own not in memo:
        memo[own] = _log_parts(own)
    reads, adds = memo[own]
    return bool(adds) and any(key in scope.env and scope.env[key].heads for key in reads)


def _log_parts(fn) -> tuple:
    """(`self.X` the method reads, whether it adds into `self` state)."""
    reads, adds = set(), False
    views = self_views.names_in(fn.body)  # `stat = self.stats[split]`: adds into `stat` go to `self`
    for node in nodes(fn.body):
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
            reads.add(f"self.{node.attr.value}")
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in ADDS:
            adds = adds or _on_self(node.func.value, views)
        elif isinstance(node, cst.AugAssign):
            adds = adds or _on_self(node.target, views)
    return frozenset(reads), adds


def _on_self(expr, views=frozenset()) -> bool:
    while isinstance(expr, (cst.Subscript, cst.Attribute)):
        expr = expr.value
    return isinstance(expr, cst.Name) and (expr.value == "self" or expr.value in views)
