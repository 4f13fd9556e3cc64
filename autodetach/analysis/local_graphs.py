"""Graphs that only a function's locals hold: they die when it returns.

    def update(self, s, a):
        out = self.net(s, a)
        logp = out["log_pi"].squeeze(-1)
        for i in range(n):
            logp[i].backward(retain_graph=True)   # the last iteration retains too
            grads[i].add(self.net)

The per-worker loop needs its retain on every iteration but the last, and
the last one keeps the graph only until `update` returns: `out` and `logp`
are locals, read after their store only through cuts (`out["v"].detach()`),
copies into other locals, or the backward itself. Such a retain costs
nothing worth a finding (AD104's last-iteration shape reports a graph kept
until the next step replaces it). Any other read (an argument of a call, a
return, a store on `self` or in a container, a closure) may keep the graph,
and so may a loop around this one in the same function (its next iteration
rebinds the locals only then)."""
from __future__ import annotations

import libcst as cst

from .walk import nodes

_DEFS = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def dies_on_return(ctx, ev, loop) -> bool:
    """Is every holder of the graph `ev` backwards in `loop` a local of the
    function around it, read after its store only in ways that keep nothing?"""
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None or _outer_loop(ctx, loop, fn) or _suspends(fn):
        return False
    own = [n for n in ev.reach if not n.leaf]
    if not own:
        return False
    params = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params, *fn.params.posonly_params)}
    declared = {x.value for d in nodes(fn.body) if isinstance(d, (cst.Global, cst.Nonlocal))
                for x in nodes(d) if isinstance(x, cst.Name)}
    holders: dict = {}  # name -> the earliest position from which its reads see the graph
    for n in own:
        if not n.name or not n.name.isidentifier() or n.stmt is None or n.name in params | declared \
                or ctx.enclosing(n.stmt, cst.FunctionDef) is not fn:
            return False
        since = (0, 0, 0, 0) if in_loop(ctx, n.stmt, fn) else ctx.position(n.stmt)
        holders[n.name] = min(holders.get(n.name, since), since)
    reads = [x for x in nodes(fn.body) if isinstance(x, cst.Name)]
    todo = list(holders)
    while todo:
        name = todo.pop()
        for read in reads:
            if read.value != name or ctx.position(read) < holders[name] or _not_a_read(ctx, read):
                continue
            if ctx.enclosing(read, _DEFS) is not fn:
                return False  # a closure may keep it
            kept = _keeps(ctx, read)
            if kept is True:
                return False
            for new in kept:
                if new in params | declared:
                    return False
                if new not in holders:
                    holders[new] = (0, 0, 0, 0) if in_loop(ctx, read, fn) else ctx.position(read)
                    todo.append(new)
    return True


def _outer_loop(ctx, loop, fn) -> bool:
    node = ctx.parent(loop)
    while node is not None and node is not fn:
        if isinstance(node, (cst.For, cst.While, *_DEFS)):
            return True
        node = ctx.parent(node)
    return node is None


def in_loop(ctx, node, fn) -> bool:
    """Inside a loop of the function `fn`?"""
    node = ctx.parent(node)
    while node is not None and node is not fn:
        if isinstance(node, (cst.For, cst.While)):
            return True
        node = ctx.parent(node)
    return False


def _suspends(fn) -> bool:
    """A generator's locals outlive each `yield`."""
    return any(isinstance(x, (cst.Yield, cst.Await)) for x in nodes(fn.body))


def _not_a_read(ctx, name) -> bool:
    """The name after a dot, a keyword's name, or a store target."""
    up = ctx.parent(name)
    if isinstance(up, cst.Attribute) and up.attr is name or isinstance(up, cst.Arg) and up.keyword is name:
        return True
    if isinstance(up, cst.AssignTarget) and up.target is name:
        return True
    return isinstance(up, (cst.Param, cst.ImportAlias, cst.AsName))


def _keeps(ctx, read):
    """What a read of a holder does with the graph: True when it may keep it
    past the return, else the local names it is copied into (maybe none)."""
    from .flow import CUT_ATTRS, CUT_METHODS

    node = read
    while True:
        up = ctx.parent(node)
        if isinstance(up, cst.Subscript) and up.value is node or isinstance(up, cst.Call) and up.func is node \
                or isinstance(up, (cst.BinaryOperation, cst.UnaryOperation)):
            node = up
            continue
        if isinstance(up, cst.Arg) and up.value is node and _torch_call(ctx.parent(up)):
            node = ctx.parent(up)
            continue
        if isinstance(up, cst.Attribute) and up.value is node:
            name = up.attr.value
            if name in CUT_METHODS or name in CUT_ATTRS:
                return []
            if name == "backward" and isinstance(ctx.parent(up), cst.Call):
                return []
            if name in _KEEPS:
                return True
            node = up
            continue
        break
    if isinstance(up, cst.Assign) and up.value is node:
        targets = [t.target for t in up.targets]
        if all(isinstance(t, cst.Name) for t in targets):
            return [t.value for t in targets]
        return True
    if isinstance(up, cst.Expr) and isinstance(node, cst.Call):
        return []  # a method whose result is dropped (an in-place op); `_KEEPS` were refused above
    if isinstance(up, cst.Del):
        return []
    return True


# methods that may hand the graph on (hooks, containers, copies into other tensors)
_KEEPS = {"register_hook", "retain_grad", "append", "extend", "insert", "add_", "copy_", "set_", "update",
          "setdefault", "put", "send"}


def _torch_call(call) -> bool:
    """`torch.cat(...)`, `F.relu(...)`: a function of torch, which keeps no argument."""
    from ..imports import dotted

    name = dotted(call.func) if isinstance(call, cst.Call) else None
    return bool(name) and name.split(".")[0] in ("torch", "F")
