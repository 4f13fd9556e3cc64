"""A helper of another file that steps several optimizers in turn, each after
the backward of its own loss, at its call.

    # instructor.py (a base class)
    @staticmethod
    def optimize_multi(opts, losses):
        for i, (opt, loss) in enumerate(zip(opts, losses)):
            opt.zero_grad()
            loss.backward(retain_graph=i < len(opts) - 1)
            opt.step()

    # leakgan_instructor.py
    mana_loss, work_loss = self.gen.pretrain_loss(target)   # one forward, one graph
    self.optimize_multi(self.gen_opt, [mana_loss, work_loss])

The call runs, in order: zero, backward of `mana_loss` (retained), step of the
first optimizer, then the backward of `work_loss` through the graph whose
weights that step just changed in place. The summary of the helper
(summaries.Summary.multi_steps) says how it pairs the two lists; the call
shows their elements (list literals, or a name bound once to one, such as
`self.gen_opt = [mana_opt, work_opt]` in `__init__`). The walk then records
the events one pair at a time, so that analysis.stale sees the step between
the two backwards."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes


def expand(scope, call, stmt, summary, bound: dict, name: str) -> bool:
    """Record the events of `call` pair by pair; False when the lists' elements
    cannot be told (the caller then treats the helper as unseen)."""
    plans = []
    for opts, losses, retain, zeroes in summary.multi_steps:
        if opts not in bound or losses not in bound:
            return False
        opt_elems = elements(scope, bound[opts])
        loss_elems = elements(scope, bound[losses])
        if not opt_elems or not loss_elems:
            return False
        # `self.opts = [SGD(...), SGD(...)]`: the elements are known by the list's key
        whole = dotted(bound[opts]) if isinstance(bound[opts], (cst.Name, cst.Attribute)) else None
        keys = [dotted(e) if isinstance(e, (cst.Name, cst.Attribute)) else _element_key(scope, whole, i)
                for i, e in enumerate(opt_elems)]
        plans.append((opt_elems, keys, loss_elems, retain, zeroes))
    used = {p for opts, losses, _, _ in summary.multi_steps for p in (opts, losses)}
    for param, value in bound.items():
        if param not in used:
            scope.expr(value)
    marked = scope.analysis.table("multi_step_events")
    for opt_elems, keys, loss_elems, retain, zeroes in plans:
        count = min(len(opt_elems), len(loss_elems))
        vals = [scope.expr(e) for e in loss_elems]
        for i in range(count):
            opt = scope.handed.get(keys[i], keys[i])
            known = opt in scope.names.optimizers
            if zeroes and known:
                ev = scope.event("zero", opt_elems[i], stmt, opt=opt, modules=scope.names.optimizers[opt].owns)
                marked[id(ev)] = name
            keep = (i < count - 1) if retain == "last" else retain
            before = len(scope.events)
            if vals[i].graph:
                scope.helper_backward(loss_elems[i], stmt, vals[i], keep, name)
            for ev in scope.events[before:]:
                marked[id(ev)] = name
            ev = scope.event("step" if known else "unknown_step", call, stmt, opt=opt if known else None,
                             helper=name)
            marked[id(ev)] = name
    scope.training_loops.update(id(loop) for loop, _ in scope.loop_stack)
    return True


def _element_key(scope, whole, index):
    """`self.opts[0]` when the names know it, else `self.opts[]` (any element)."""
    if whole is None:
        return None
    key = f"{whole}[{index}]"
    return key if key in scope.names.optimizers else whole + "[]"


def elements(scope, expr) -> Optional[list]:
    """The elements of a list or tuple literal, or of the one literal a name
    (`losses`, `self.gen_opt`) is bound to in this file; None otherwise."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        if any(isinstance(el, cst.StarredElement) for el in expr.elements):
            return None
        return [el.value for el in expr.elements]
    key = dotted(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
    if key is None:
        return None
    ctx = scope.analysis.ctx
    where = ctx.module if key.startswith("self.") else ctx.enclosing(expr, cst.FunctionDef)
    if where is None:
        return None
    stores = [n for n in nodes(where) if isinstance(n, cst.AssignTarget) and dotted(n.target) == key]
    if len(stores) != 1:
        return None
    assign = ctx.parent(stores[0])
    value = assign.value if isinstance(assign, cst.Assign) else None
    if not isinstance(value, (cst.List, cst.Tuple)) or any(isinstance(el, cst.StarredElement)
                                                            for el in value.elements):
        return None
    return [el.value for el in value.elements]
