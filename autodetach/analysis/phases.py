"""Phase methods of a trainer class: `self.forward()`, `self.compute_G()`.

Real GAN trainers split a step across methods: `optimize_parameters()`
calls `self.forward()` (stores `self.fake_B`), `self.backward_D()`,
`self.optimizer_D.step()`, `self.backward_G()`. A method with no backward
or step of its own is walked at its call site when it runs a model and
stores into `self`: the graph it leaves on `self` is then seen by the
phases that follow, in the order the driving method calls them."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes


def phase_helper(scope, func, base):
    """The FunctionDef of `self.m()` when it is such a phase, else None."""
    if base != "self" or scope.no_grad:
        return None
    own = scope._own_method(func)
    if own is None or own.name.value in scope.inlining or scope.a.function_summary(own).has_events:
        return None
    memo = scope.a.__dict__.setdefault("_phase_methods", {})
    hit = memo.get(own)
    if hit is None:
        hit = memo[own] = _stores_model_output(own, scope.names)
    return own if hit else None


def _stores_model_output(fn, table) -> bool:
    """Does `fn` call a module and assign to a `self.` attribute?"""
    calls = stores = False
    for n in nodes(fn):
        if isinstance(n, cst.Call) and table.is_module(dotted(n.func)):
            calls = True
        elif isinstance(n, cst.AssignTarget) and (dotted(n.target) or "").startswith("self."):
            stores = True
        elif isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Tuple) and any(
                (dotted(e.value) or "").startswith("self.") for e in n.target.elements):
            stores = True
        if calls and stores:
            return True
    return False
