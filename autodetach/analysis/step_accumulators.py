"""A step function that adds its backwarded loss, in place, into a tensor
that outlives the call.

    def take_training_step(model, batch, stats, scaler):
        loss = criterion(model(batch))
        stats.device_stat("average_loss").add_(loss)
        scaler.scale(loss).backward()

No loop is in sight: the function runs once per step, called from elsewhere.
The accumulator is reached through an argument (or `self`), so it lives
across the calls, and an in-place `add_` gives it the loss's graph each
step: every step's graph stays referenced until the accumulator is reset.
The backward in the function proves the loss carries a graph; that the
accumulator outlives the call is inferred from where it comes from, and the
finding says so.

A list handed in as an argument is the same store (`train_losses.append(loss)`
after the batch loop, one append per call, the caller handing the same list to
every epoch's call): outside any loop of the function, so the flow's loops do
not see it. Not when a backward of the function keeps the graph
(`retain_graph=True`: the caller may backward what it keeps), nor for a tuple,
list or dict appended whole, nor when every call of the file hands the
function a new list (`kept = []` in the call's block, or `step(x, [])`).
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..imports import dotted
from .flow import grad_mode
from .local_graphs import in_loop
from .walk import nodes

ADDS = {"add_", "sub_"}
NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
CUTS = {"detach", "item", "tolist", "numpy", "data", "detach_"}


@dataclass
class StepAccumulator:
    stmt: cst.CSTNode
    target: cst.BaseExpression  # what is added into (`stats.device_stat("average_loss")`)
    value: cst.BaseExpression  # what is added (`loss`)
    root: str  # the argument (or `self`) the target is reached through
    loss: str  # the backwarded name it carries
    appended: bool = False  # `losses.append(loss)`: a list handed in, not a tensor added into


def step_accumulators(analysis) -> list:
    return analysis.memo("_step_accumulators", lambda: _find(analysis.ctx))


def _find(ctx) -> list:
    out = []
    for fn in nodes(ctx.module):
        if type(fn) is cst.FunctionDef:
            out += _in_function(ctx, fn)
    return out


def _in_function(ctx, fn) -> list:
    body = [n for n in nodes(fn, skip=NESTED) if n is not fn]
    backwarded = set()
    retained = False
    for n in body:
        if type(n) is cst.Call and type(n.func) is cst.Attribute and n.func.attr.value == "backward":
            base = n.func.value
            if isinstance(base, cst.Call) and len(base.args) == 1:  # scaler.scale(loss).backward()
                base = base.args[0].value
            if isinstance(base, cst.Name):
                backwarded.add(base.value)
            retained |= any(a.keyword is not None and a.keyword.value == "retain_graph" for a in n.args)
    if not backwarded:
        return []
    params = {p.name.value for p in fn.params.params + fn.params.kwonly_params}
    rebound = {t.value for n in body if type(n) is cst.AssignTarget for t in nodes(n.target)
               if isinstance(t, cst.Name)}
    roots = (params - rebound - backwarded) | ({"self"} if "self" in params else set())
    # names that carry a backwarded loss's graph: the losses and what is computed from them
    graph = set(backwarded)
    for n in body:
        if type(n) is cst.Assign and _carries(n.value, graph):
            graph |= {t.value for tgt in n.targets for t in nodes(tgt.target) if type(t) is cst.Name}
    out = []
    for n in body:
        if type(n) is not cst.SimpleStatementLine:
            continue
        for small in n.body:
            found = _accumulation(small)
            appended = False
            if found is None:
                found = _appended(small)
                if found is None or retained or in_loop(ctx, n, fn) or found[0] is None:
                    continue
                appended = True
            target, value = found
            root = _root(target)
            if appended and (root == "self" or _fresh_at_calls(ctx, fn, root)):
                continue  # a step method's own list (the flow's business), or a new list at every call
            loss = _carries(value, graph)
            cut = any(isinstance(x, cst.Attribute) and x.attr.value in CUTS for x in nodes(target))
            if root in roots and loss and not cut and not _quiet(ctx, n) and not _carries(target, backwarded):
                out.append(StepAccumulator(n, target, value, root, loss, appended))
    return out


LITERALS = (cst.Tuple, cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp, cst.GeneratorExp)


def _appended(small):
    """(target, value) of `target.append(value)` as a statement: a list handed in."""
    if type(small) is cst.Expr and type(small.value) is cst.Call:
        call = small.value
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "append" and len(call.args) == 1 and \
                call.args[0].keyword is None and call.args[0].star == "":
            value = call.args[0].value
            return (None if isinstance(value, LITERALS) else call.func.value), value
    return None


def _fresh_at_calls(ctx, fn, param: str) -> bool:
    """Every call of `fn` in this file (one at least) hands `param` a new list:
    `step(x, [])`, or a name bound to `[]` / `list()` in the statement list of
    the call, before it and after nothing else rebinds it."""
    params = [p.name.value for p in fn.params.params]
    method = bool(params) and params[0] in ("self", "cls")
    pos = params.index(param) - method if param in params else None
    seen = False
    for call in nodes(ctx.module):
        if type(call) is not cst.Call:
            continue
        if dotted(call.func) != (f"{params[0]}.{fn.name.value}" if method else fn.name.value):
            continue  # `self.step(...)` for a method, `step(...)` for a function (not `opt.step()`)
        arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == param), None)
        if arg is None and pos is not None and pos >= 0:
            plain = [a for a in call.args if a.keyword is None]
            if any(a.star for a in plain):
                return False
            arg = plain[pos].value if pos < len(plain) else None
        if arg is None or not _new_list(ctx, call, arg):
            return False
        seen = True
    return seen


def _new_list(ctx, call, arg) -> bool:
    if _empty_list(arg):
        return True
    if not isinstance(arg, cst.Name):
        return False
    stmt = ctx.parent(call)
    while stmt is not None and not isinstance(stmt, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        stmt = ctx.parent(stmt)
    block = ctx.parent(stmt) if stmt is not None else None
    body = getattr(block, "body", None)
    if not isinstance(body, (list, tuple)) or stmt not in body:
        return False
    fresh = False
    for prev in body[:body.index(stmt)]:
        binds = [n for n in nodes(prev) if type(n) in (cst.AssignTarget, cst.AugAssign, cst.For, cst.WithItem)
                 and any(type(t) is cst.Name and t.value == arg.value
                         for t in nodes(getattr(n, "target", None) or getattr(n, "asname", None) or cst.Name("_")))]
        if binds:
            fresh = type(prev) is cst.SimpleStatementLine and len(prev.body) == 1 and \
                type(prev.body[0]) is cst.Assign and _empty_list(prev.body[0].value)
    return fresh


def _empty_list(e) -> bool:
    return (type(e) is cst.List and not e.elements) or \
        (type(e) is cst.Call and dotted(e.func) == "list" and not e.args)


def _accumulation(small):
    """(target, value) of `target.add_(value)` as a statement, or `t[k] += value` /
    `t.attr += value` (an element or attribute of a longer-lived object)."""
    if type(small) is cst.Expr and type(small.value) is cst.Call:
        call = small.value
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in ADDS and call.args and \
                call.args[0].keyword is None:
            return call.func.value, call.args[0].value
    if type(small) is cst.AugAssign and type(small.operator) in (cst.AddAssign, cst.SubtractAssign) and \
            isinstance(small.target, (cst.Subscript, cst.Attribute)) and not _self_attr(small.target):
        return small.target, small.value
    return None


def _self_attr(target) -> bool:
    """`self.total += loss`: the flow's own business (a step method's state)."""
    return isinstance(target, cst.Attribute) and dotted(target.value) == "self"


def _root(e):
    while True:
        if isinstance(e, cst.Call):
            e = e.func
        elif isinstance(e, (cst.Attribute, cst.Subscript)):
            e = e.value
        else:
            break
    return e.value if isinstance(e, cst.Name) else None


def _carries(e, names: set):
    """The first of `names` that `e` reads without a cut, else None."""
    cut = set()
    for n in nodes(e):
        if type(n) is cst.Attribute and n.attr.value in CUTS:
            cut |= {id(x) for x in nodes(n.value)}
        if type(n) is cst.Call and dotted(n.func) in ("float", "int", "len", "bool"):
            cut |= {id(x) for x in nodes(n)}
    for n in nodes(e):
        if type(n) is cst.Name and n.value in names and id(n) not in cut:
            return n.value
    return None


def _quiet(ctx, stmt) -> bool:
    cur = ctx.parent(stmt)
    while cur is not None and not isinstance(cur, cst.FunctionDef):
        if isinstance(cur, cst.With) and any(grad_mode(item.item, ctx.imports) == 1 for item in cur.items):
            return True
        cur = ctx.parent(cur)
    return False
