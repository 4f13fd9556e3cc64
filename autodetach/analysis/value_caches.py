"""State on `self` computed from an argument and reused while a later argument has the same values.

    def _get_kvectors(self, ns, cell):
        same_cell = torch.allclose(cell, self._cell_cache)
        if same_cell:
            kvectors = self._kvectors_cache          # an earlier call's tensor
        else:
            kvectors = self._generate_kvectors(ns, cell)
            self._cell_cache = cell
            self._kvectors_cache = kvectors          # computed from this call's `cell`
        return kvectors

The cache is keyed by the argument's values (`torch.allclose`, `torch.equal`),
not by the tensor: for a `cell` that requires grad (a stress, a cell being
optimised) a later call with equal values reuses the graph of an earlier
`cell`, freed by that call's backward, and gives no gradient to its own.
Whether the argument requires grad is not seen here: the finding says so and
offers no fix (detaching the cache would silently drop those gradients).
A test that also reads `cell.requires_grad` keeps the cache for values
without a graph. Kept: stores from the argument (directly, through names bound from it in the
branch, or by handing it to a method of an object on `self`) in the branch
that runs when the values differ, of state that code outside that branch reads."""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..imports import dotted
from .flow import grad_mode
from .walk import class_methods, nodes

COMPARES = {"torch.allclose", "torch.equal"}
_CUTS = {"detach", "item", "tolist", "numpy", "cpu_numpy", "size", "shape", "dim", "numel", "data"}


@dataclass
class ValueCache:
    cls: cst.ClassDef
    method: str
    stmt: cst.CSTNode  # the store (or the call that hands the argument to an object on self)
    key: str  # `self._kvectors_cache`
    arg: str  # `cell`
    compare: cst.Call  # `torch.allclose(cell, self._cell_cache)`


def value_caches(analysis) -> list:
    return analysis.memo("_value_caches", lambda: _find(analysis.ctx))


def _find(ctx) -> list:
    out = []
    for cls in (c for c in ctx.module.body if type(c) is cst.ClassDef):
        methods = class_methods(cls)
        for name, fn in methods.items():
            if name == "__init__" or any(grad_mode(d.decorator, ctx.imports) == 1 for d in fn.decorators):
                continue
            params = {p.name.value for p in fn.params.params[1:]}
            bound = {}  # local name -> the compare call it holds (`same_cell = torch.allclose(...)`)
            for n in nodes(fn.body):
                if type(n) is cst.Assign and len(n.targets) == 1 and type(n.targets[0].target) is cst.Name:
                    found = _compare(ctx, n.value, params)
                    if found is not None:
                        bound[n.targets[0].target.value] = found
            for n in nodes(fn.body):
                if type(n) is cst.If:
                    out += _branch(ctx, cls, methods, name, n, params, bound)
    return out


def _compare(ctx, e, params):
    """(call, argument, key) for `torch.allclose(arg, self.K)` (either order) at the top of `e`."""
    if type(e) is not cst.Call or (ctx.imports.qualify(e.func) or "") not in COMPARES or len(e.args) < 2:
        return None
    a, b = dotted(e.args[0].value), dotted(e.args[1].value)
    for arg, key in ((a, b), (b, a)):
        if arg in params and key and key.startswith("self.") and key.count(".") == 1:
            return e, arg, key
    return None


def _branch(ctx, cls, methods, name, node, params, bound) -> list:
    """The stores of the branch of `if node` that runs when the values differ."""
    if any(type(n) is cst.Attribute and n.attr.value == "requires_grad" for n in nodes(node.test)):
        return []  # `if not cell.requires_grad and torch.allclose(...)`: the cache steps aside for a graph
    test, negated = node.test, False
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        test, negated = test.expression, True
    parts = [test]
    while parts and type(parts[0]) is cst.BooleanOperation and not negated:
        if type(parts[0].operator) is not cst.And:
            return []  # `a or same`: a hit does not follow from the values alone
        parts = [parts[0].left, parts[0].right] + parts[1:]
    found = None
    for p in parts:
        found = _compare(ctx, p, params) or (bound.get(p.value) if type(p) is cst.Name else None)
        if found is not None:
            break
    if found is None or negated and len(parts) != 1:
        return []
    miss = node.body if negated else node.orelse
    if miss is None or type(miss) is cst.If:
        return []
    call, arg, key = found
    body = miss.body if type(miss) is cst.Else else miss
    out, tainted = [], {arg}
    for stmt in body.body:
        if type(stmt) is cst.With and any(grad_mode(i.item, ctx.imports) == 1 for i in stmt.items):
            continue
        for n in nodes(stmt):
            if type(n) is cst.Assign and len(n.targets) == 1:
                target = dotted(n.targets[0].target)
                if not _reads(n.value, tainted) or target is None:
                    continue
                if target.startswith("self.") and target.count(".") == 1:
                    if target != key and _read_elsewhere(methods, target, body):
                        out.append(ValueCache(cls, name, n, target, arg, call))
                elif "." not in target:
                    tainted.add(target)
            elif type(n) is cst.Call and type(n.func) is cst.Attribute and \
                    (dotted(n.func.value) or "").startswith("self.") and dotted(n.func.value).count(".") == 1 and \
                    dotted(n.func.value) != "self" and any(_reads(a.value, {arg}) for a in n.args) and \
                    _read_elsewhere(methods, dotted(n.func.value), body):
                out.append(ValueCache(cls, name, n, dotted(n.func.value), arg, call))  # `self._KF.update_mesh(cell)`
    return out


def _reads(e, names) -> bool:
    """Does `e` read one of `names` other than through a cut (`cell.detach()`, `cell.shape`)?"""
    cut = set()
    for n in nodes(e):
        if type(n) is cst.Attribute and n.attr.value in _CUTS:
            cut |= {id(x) for x in nodes(n.value)}
    return any(type(n) is cst.Name and n.value in names and id(n) not in cut for n in nodes(e))


def _read_elsewhere(methods, key, branch) -> bool:
    """Is `self.K` (or a method or attribute of it) read outside the miss branch?"""
    inside = {id(n) for n in nodes(branch)}
    for fn in methods.values():
        stored = {id(t.target) for t in nodes(fn.body) if type(t) is cst.AssignTarget}
        for n in nodes(fn.body):
            if id(n) in stored:
                continue
            if type(n) is cst.Attribute and dotted(n) == key and id(n) not in inside:
                return True
    return False
