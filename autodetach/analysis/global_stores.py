"""A helper of the file that grows a container bound outside it
(`saved_log_probs.append(m.log_prob(a))`, `policy.rewards.append(r)` of a
module-level `policy`): it has no backward or step of its own, so the flow
analysis would read only its result, and the stored graph would be lost to
the loop that calls it. Such a helper is walked at its call instead. The
same for a method of the file's classes that grows a list on its object
(`self.log_probs.append(...)` in `act`, called as `agent.act(obs)`)."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes

GROW = {"append", "extend", "insert", "add", "appendleft"}


def grows_outer(scope, func: cst.FunctionDef, bound_self: bool = False, base=None) -> bool:
    """`base`: the object a method is called on (`agent` of `agent.act(obs)`). The walk
    keeps the method's state as `self.X`, so where the caller's code reads or resets
    `agent.X` itself, that would go unseen: not walked then."""
    if scope.no_grad:
        return False
    memo = scope.analysis.table("_grows_outer")
    key = (func, bound_self)
    if key not in memo:
        grown = _grows(scope.analysis.ctx, func, bound_self)
        memo[key] = grown if grown and not _reset_unseen(scope.analysis, grown) else frozenset()
    if not memo[key] or base in (None, "self"):
        return bool(memo[key])
    names = {f"{base}.{k[5:]}" for k in memo[key] if k.startswith("self.")}
    return not any(type(n) is cst.Attribute and dotted(n) in names for n in nodes_of(scope))


def nodes_of(scope) -> list:
    if not scope.body:
        return []
    memo = scope.analysis.table("_scope_nodes")
    key = (id(scope.body[0]), len(scope.body))  # the statements live as long as the module's tree
    if key not in memo:
        memo[key] = [n for stmt in scope.body for n in nodes(stmt)]
    return memo[key]


def _root(expr):
    while type(expr) is cst.Attribute:
        expr = expr.value
    return expr if type(expr) is cst.Name else None


def _grows(ctx, func: cst.FunctionDef, bound_self: bool) -> frozenset:
    """The containers bound outside `func` that it grows, by their dotted names."""
    grown = set()
    for node in nodes(func.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if type(node) is cst.Global:
            return frozenset()  # rebinding a global: left to the caller's own analysis
        if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in GROW:
            base = node.func.value
            root = _root(base)
            if root is None or dotted(base) is None:
                continue
            if root.value == "self":
                outer = bound_self and type(base) is cst.Attribute  # `self.log_probs.append(x)`, not `self.append(x)`
            else:
                outer = not _local(ctx, root, func)
            if outer:
                grown.add(dotted(base))
    return frozenset(grown)


def _local(ctx, name: cst.Name, func: cst.FunctionDef) -> bool:
    """Is `name` bound in `func` (or a comprehension of it), by the file's binding model?"""
    try:
        owner, _ = ctx.bindings.lookup(name)
    except (KeyError, AttributeError):
        return True  # not known: taken as local, so the helper is not walked for it
    while owner is not None:
        if owner.node is func:
            return True
        owner = owner.parent
    return False


def _reset_unseen(analysis, keys) -> bool:
    """Does a function of the file with no backward or step (so not walked where it is
    called) empty one of the containers (`self.data = []` in a `make_batch`, `saved.clear()`)?
    Then when the container is emptied is not seen, and a kept graph could not be told
    from one kept until the next batch: the helper is left unwalked, as before."""
    attrs = {k.rpartition(".")[2] for k in keys if "." in k}
    names = {k for k in keys if "." not in k}
    for func in (sc.node for sc in analysis.ctx.bindings.scopes.values() if sc.kind == "function"):
        if func.name.value == "__init__" or analysis.function_summary(func).has_events:
            continue
        for node in nodes(func.body, skip=(cst.FunctionDef, cst.ClassDef)):
            target = None
            if type(node) is cst.AssignTarget:
                target = node.target
            elif type(node) is cst.Del:
                target = node.target.value if type(node.target) is cst.Subscript else node.target
            elif type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "clear":
                target = node.func.value
            if type(target) is cst.Subscript:
                target = target.value  # `saved[:] = []`
            if type(target) is cst.Attribute and target.attr.value in attrs or \
                    type(target) is cst.Name and target.value in names and type(node) is not cst.AssignTarget:
                return True
    return False
