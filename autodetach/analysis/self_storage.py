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
            adds = adds or on_self(node.func.value, views)
        elif isinstance(node, cst.AugAssign):
            adds = adds or on_self(node.target, views)
    return frozenset(reads), adds


def on_self(expr, views=frozenset()) -> bool:
    """Is `expr` (`self.a.b[k]`) rooted at `self`, or at a name in `views`?"""
    while isinstance(expr, (cst.Subscript, cst.Attribute)):
        expr = expr.value
    return isinstance(expr, cst.Name) and (expr.value == "self" or expr.value in views)


def stores_on_self(target) -> bool:
    """Does an assignment target (`self.k`, `self.a[i]`, or a tuple holding one) store on `self`?"""
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(stores_on_self(e.value) for e in target.elements)
    return on_self(target)


def arg_log_helper(scope, own, call: cst.Call) -> bool:
    """`self._update_loss_log(name, loss)`: a method of this class with no backward
    (Scope.plain_self_method), handed a name now holding a graph, that adds that parameter
    into `self` state (`self.log[k] = self.log.get(k, 0.0) + loss`, `self.total += loss`,
    `self.history.append(loss)`). Walked at the call, like log_helper, so that what it keeps
    is seen where the loop runs; a plain store of the latest value (`self.last = loss`) is not
    an add and leaves the method to its summary."""
    if not (scope.loop_stack or scope.caller_loop):
        return False  # what it adds is kept across the iterations of a loop, or of the caller's
    params = [p.name.value for p in own.params.params][1:]
    held = set()
    for index, arg in enumerate(call.args):
        if arg.star:
            return False
        name = arg.keyword.value if arg.keyword is not None else (params[index] if index < len(params) else None)
        key = dotted(arg.value) if type(arg.value) in (cst.Name, cst.Attribute) else None
        if name in params and key in scope.env and scope.env[key].heads:
            held.add(name)
    if held & _adds_of(scope, own):
        return True
    return _reaches_adder(scope, own, 3)


def _adds_of(scope, own) -> frozenset:
    memo = scope.analysis.table("_arg_log_helpers")
    if own not in memo:
        memo[own] = _param_adds(own, [p.name.value for p in own.params.params][1:])
    return memo[own]


def _reaches_adder(scope, own, depth) -> bool:
    """Does `own` hand one of its names to a method of this class that adds that parameter into
    `self` state (`self._update_loss_log("pde", loss)` in `_pde_term`), directly or through such
    methods? Then `own` is walked too, so that the inner call is met with what it is handed."""
    memo = scope.analysis.table("_reaches_adders")
    if (own, depth) in memo:
        return memo[(own, depth)]
    memo[(own, depth)] = False  # a recursion ends here
    hit = False
    for node in nodes(own.body):
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and
                isinstance(node.func.value, cst.Name) and node.func.value.value == "self"):
            continue
        inner = scope.plain_self_method(node.func, "self")
        if inner is None or inner is own:
            continue
        params = [p.name.value for p in inner.params.params][1:]
        named = {arg.keyword.value if arg.keyword is not None else (params[i] if i < len(params) else None)
                 for i, arg in enumerate(node.args) if type(arg.value) is cst.Name and not arg.star}
        if named & _adds_of(scope, inner) or depth > 1 and _reaches_adder(scope, inner, depth - 1):
            hit = True
            break
    memo[(own, depth)] = hit
    return hit


def _param_adds(fn, params) -> frozenset:
    """The parameters the method adds into `self` state: an augmented store, an `append`-like
    call, or a store whose value reads the state it replaces beside the parameter."""
    views = self_views.names_in(fn.body)
    out = set()
    for node in nodes(fn.body):
        if isinstance(node, cst.AugAssign) and on_self(node.target, views):
            out |= _names(node.value, params)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                node.func.attr.value in ADDS and on_self(node.func.value, views):
            out |= _names(cst.Tuple([cst.Element(a.value) for a in node.args]), params) if node.args else set()
        elif isinstance(node, cst.Assign) and len(node.targets) == 1 and on_self(node.targets[0].target, views):
            root = _root(node.targets[0].target)
            if root is not None and any(_root(n) == root for n in nodes(node.value)
                                        if isinstance(n, (cst.Attribute, cst.Subscript))):
                out |= _names(node.value, params)
    return frozenset(out)


def _names(expr, params) -> set:
    return {n.value for n in nodes(expr) if isinstance(n, cst.Name) and n.value in params}


def _root(expr):
    """`self.log` of `self.log[k]`, `self.log.get`, `self.total`: the state an expression reaches."""
    while isinstance(expr, (cst.Subscript, cst.Attribute)) and not (
            isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self"):
        expr = expr.value
    return dotted(expr) if isinstance(expr, cst.Attribute) else None


def shared_note(scope, own):
    """A method walked by arg_log_helper that other calls of the file share: a fix inside it serves
    them all, and what they hand it (a tensor, or perhaps a number) is not read at each one."""
    name = own.name.value
    memo = scope.analysis.table("_self_call_counts")
    if not memo:
        memo[None] = 0
        for node in nodes(scope.analysis.ctx.module):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                    isinstance(node.func.value, cst.Name) and node.func.value.value == "self":
                memo[node.func.attr.value] = memo.get(node.func.attr.value, 0) + 1
    calls = memo.get(name, 0)
    if calls < 2:
        return None
    return (f"`self.{name}(...)` is called at {calls} places, each taken to hand it a tensor (a fix in the "
            f"method serves them all)")
