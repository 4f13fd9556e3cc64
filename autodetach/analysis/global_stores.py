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
        memo[key] = grown if grown and not _reset_unseen(scope.analysis, grown, func) else frozenset()
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


def _reset_unseen(analysis, keys, grower=None) -> bool:
    """Does a function of the file with no backward or step (so not walked where it is
    called) empty one of the containers (`self.data = []` in a `make_batch`, `saved.clear()`)?
    Then when the container is emptied is not seen, and a kept graph could not be told
    from one kept until the next batch: the helper is left unwalked, as before.
    A reset counts per class: `self.log_probs = []` in a method of another class of the
    file (not a base or subclass of the grower's), or `self.memory.log_probs.clear()` where
    `self.memory` only ever holds an instance of such a class, empties that object's own
    list, not this one; an object of unknown class may be this one, so its reset counts."""
    ctx = analysis.ctx
    attrs = {}
    for k in keys:
        if "." in k:
            base, _, attr = k.rpartition(".")
            attrs.setdefault(attr, set()).add(_owner_class(ctx, base, grower))
    names = {k for k in keys if "." not in k}
    for func in (sc.node for sc in ctx.bindings.scopes.values() if sc.kind == "function"):
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
            if type(target) is cst.Attribute and target.attr.value in attrs:
                dotted_base = dotted(target.value)
                mine = _owner_class(ctx, dotted_base, func) if dotted_base else None
                if any(not _unrelated(ctx, mine, theirs) for theirs in attrs[target.attr.value]):
                    return True
            elif type(target) is cst.Name and target.value in names and type(node) is not cst.AssignTarget:
                return True
    return False


def _method_class(ctx, func):
    """The class of the file whose body defines `func` directly, else None."""
    if func is None:
        return None
    parent = ctx.parent(func)
    while parent is not None and type(parent) is not cst.ClassDef and not isinstance(parent, cst.FunctionDef):
        if type(parent) is cst.Module:
            return None
        parent = ctx.parent(parent)
    return parent if type(parent) is cst.ClassDef else None


def _file_classes(ctx) -> dict:
    return {c.name.value: c for c in ctx.module.body if type(c) is cst.ClassDef}


def _owner_class(ctx, base: str, func):
    """The class of this file whose instance `base` is, when the code says so (`self` in
    one of its methods; `self.memory` that its class's methods only ever bind to
    `Memory(...)`; a module-level name only ever bound to `Agent(...)`), else None."""
    here = _file_classes(ctx)
    cls = _method_class(ctx, func)
    if base == "self":
        return cls
    parts = base.split(".")
    if len(parts) == 2 and parts[0] == "self" and cls is not None:
        made = _constructed(ctx, cls, lambda t: type(t) is cst.Attribute and dotted(t) == base, here)
    elif len(parts) == 1:
        if any(type(n) is cst.Global and any(g.name.value == base for g in n.names) for n in nodes(ctx.module)):
            return None  # a function rebinds it
        made = _constructed(ctx, ctx.module, lambda t: type(t) is cst.Name and t.value == base, here, top=True)
    else:
        return None
    return made


def _constructed(ctx, within, is_target, here, top=False):
    """The one file class that every binding of the target within `within` constructs."""
    found = set()
    body = within.body.body if type(within) is cst.ClassDef else within.body
    for stmt in body:
        if top and isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        for node in nodes(stmt, skip=(cst.ClassDef,) if not top else (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            if type(node) is cst.Assign and any(is_target(t.target) for t in node.targets):
                v = node.value
                if type(v) is cst.Call and type(v.func) is cst.Name and v.func.value in here:
                    found.add(v.func.value)
                else:
                    return None
            elif type(node) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.WithItem, cst.NamedExpr) and \
                    is_target(getattr(node, "target", None) or getattr(getattr(node, "asname", None), "name", None)):
                return None
    return here[found.pop()] if len(found) == 1 else None


def _lineage(ctx, cls) -> set:
    here = _file_classes(ctx)
    seen, todo = set(), [cls]
    while todo:
        c = todo.pop()
        if c.name.value in seen:
            continue
        seen.add(c.name.value)
        todo.extend(here[b.value.value] for b in c.bases
                    if type(b.value) is cst.Name and b.value.value in here)
    return seen


def _unrelated(ctx, a, b) -> bool:
    """Two known classes of the file neither of which derives from the other."""
    if a is None or b is None:
        return False
    return a.name.value not in _lineage(ctx, b) and b.name.value not in _lineage(ctx, a)
