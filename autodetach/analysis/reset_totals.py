"""A running total backwarded every few steps and then started again:

    total = total + net(x).pow(2).mean()
    if count % 4 == 0:
        total.backward(retain_graph=True)
        opt.step()
        total = 0

The walk joins the arm that backwards and resets `total` with the arm that
skips it, so the next total seems to hang from the graph this backward walked.
It cannot: on the path where the backward ran, `total` was reset right after
it, and a total only ever grows from itself (`total = total + loss`, `total +=
loss`, `total = total / n`) or starts from a number. What the next backward
reaches of this graph through a read of `total` was added on the path that
skipped this backward, which never walked it. Any other way into the graph
(another name, a value built before the backward) keeps the retain."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from .walk import nodes

_STOPS = (cst.Return, cst.Break, cst.Continue, cst.Raise)


def reset_total(ctx, ev) -> Optional[str]:
    """The name `ev` backwards when the statements after it in its own block
    rebind it, unconditionally, to a number or None, and every binding of it in
    its function is such a number or a sum of itself; None otherwise."""
    func = ev.call.func
    if ev.kind != "backward" or type(func) is not cst.Attribute or type(func.value) is not cst.Name:
        return None
    name = func.value.value
    stmt = ctx.enclosing(ev.call, (cst.SimpleStatementLine,))
    block = ctx.parent(stmt) if stmt is not None else None
    body = getattr(block, "body", None)
    if not isinstance(body, (list, tuple)) or stmt not in body:
        return None
    if len(stmt.body) != 1 or type(stmt.body[0]) is not cst.Expr:
        return None
    reset = False
    for after in body[body.index(stmt) + 1:]:
        if _resets(after, name):
            reset = True
            break
        if any(isinstance(n, _STOPS) for n in nodes(after)) or _binds(after, name):
            return None
    if not reset:
        return None
    scope = ctx.enclosing(ev.call, (cst.FunctionDef,)) or ctx.module
    for node in nodes(scope):
        if isinstance(node, cst.FunctionDef) and node is not scope and \
                any(type(n) is cst.Name and n.value == name for n in nodes(node.body)):
            return None  # a nested function that reads or binds it: not followed
        if not _plain_binding(node, name):
            return None
    return name


def entered_through(ctx, ev, later, own, name: str) -> bool:
    """Does `later` reach `own` only through reads of `name` by values made after `ev` (or
    of a running total local to a helper that `ev`'s function calls, `_fresh_local`)?"""
    if later.target is None or set(later.target.heads) & own:
        return False
    reach = later.reach - later.captured
    entered = False
    for node in reach:
        if node in own:
            continue
        inside = [p for p in node.parents if p in own]
        if not inside:
            continue
        if node.seq <= ev.seq:
            return False  # built on this graph before the backward: walked again after it
        for parent in inside:
            reads = node.uses.get(parent) or []
            if not reads or any(type(r) is not cst.Name or r.value != name and not _fresh_local(ctx, ev, r)
                                for r in reads):
                return False
        entered = True
    return entered


def _fresh_local(ctx, ev, read: cst.Name) -> bool:
    """A read of a running total local to a helper that `ev`'s function calls and that never
    calls it back (`loss = 0`, then `loss = loss + term` in `get_task_prediction`): a call made
    after the backward starts with the name unbound, so it holds nothing made before it. The
    walk inlines each call with the caller's names, which joins the last call's total in."""
    func = ctx.enclosing(read, (cst.FunctionDef,))
    holder = ctx.enclosing(ev.call, (cst.FunctionDef,))
    if func is None or func is holder or ctx.encloses(func, ev.call) or ctx.enclosing(func, (cst.FunctionDef,)):
        return False
    name = read.value
    if name in {p.name.value for p in func.params.params + func.params.kwonly_params + func.params.posonly_params}:
        return False
    bound = False
    for node in nodes(func.body):
        if type(node) in (cst.Global, cst.Nonlocal) and any(n.name.value == name for n in node.names):
            return False
        if isinstance(node, cst.FunctionDef):
            return False  # a nested function may bind or read it
        if type(node) is cst.Call and type(node.func) is cst.Name and holder is not None and \
                node.func.value == holder.name.value:
            return False  # the helper calls the backward's function back
        if not _plain_binding(node, name):
            return False
        if type(node) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == name
                                            for t in node.targets):
            bound = True
    callers = nodes(holder.body) if holder is not None else nodes(ctx.module)
    return bound and any(type(c) is cst.Call and type(c.func) is cst.Name and c.func.value == func.name.value
                         for c in callers)


def _resets(stmt, name: str) -> bool:
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if type(small) is cst.Del:
        return type(small.target) is cst.Name and small.target.value == name
    return type(small) is cst.Assign and len(small.targets) == 1 and \
        type(small.targets[0].target) is cst.Name and small.targets[0].target.value == name and _number(small.value)


def _binds(stmt, name: str) -> bool:
    return any(type(n) in (cst.AssignTarget, cst.AugAssign, cst.AnnAssign) and
               any(type(t) is cst.Name and t.value == name for t in nodes(n.target))
               for n in nodes(stmt))


def _number(value) -> bool:
    if type(value) is cst.UnaryOperation:
        value = value.expression
    return type(value) in (cst.Integer, cst.Float) or type(value) is cst.Name and value.value == "None"


def _plain_binding(node, name: str) -> bool:
    """Is `node`, when it binds `name`, a number or a sum of `name` itself?"""
    if type(node) is cst.AugAssign:
        return type(node.target) is not cst.Name or node.target.value != name or \
            type(node.operator) in (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign)
    if type(node) is cst.Assign:
        hit = [t for t in node.targets if any(type(n) is cst.Name and n.value == name for n in nodes(t.target))]
        if not hit:
            return True
        if len(node.targets) != 1 or type(node.targets[0].target) is not cst.Name:
            return False
        value = node.value
        return _number(value) or type(value) is cst.BinaryOperation and type(value.left) is cst.Name and \
            value.left.value == name and not any(type(n) is cst.Name and n.value == name
                                                 for n in nodes(value.right))
    if type(node) in (cst.For, cst.With, cst.AnnAssign, cst.NamedExpr, cst.CompFor):
        target = getattr(node, "target", None)
        if type(node) is cst.With:
            return not any(item.asname is not None and any(type(n) is cst.Name and n.value == name
                                                           for n in nodes(item.asname)) for item in node.items)
        return target is None or not any(type(n) is cst.Name and n.value == name for n in nodes(target))
    if type(node) in (cst.FunctionDef, cst.ClassDef, cst.ImportAlias):
        return True
    return True
