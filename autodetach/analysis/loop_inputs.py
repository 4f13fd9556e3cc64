"""Graphs built before a loop and walked again by every iteration's backward.

`adj_norm = normalize(modified_adj)` before `for j in range(n):`, then in the
loop `loss = f(adj_norm @ x @ w)` and `loss.backward(retain_graph=True)`: if
`modified_adj` carries a graph (it is a tensor handed in by the caller), the
next iteration's backward walks that part again, and the retain is what lets
it run. A retain is only called unneeded when every value the loss reads from
outside its loop is proven to carry no graph: a cut (`.detach()`, `.size()`),
a number, a module or optimizer, or a same-file function that returns none.
"""
from __future__ import annotations


import libcst as cst

from ..imports import dotted
from .bindings import target_names
from .new_tensors import makes_new_tensor
from .walk import nodes

_SKIP = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_NUMBER_TYPES = ("int", "float", "str", "bool")


def walked_again(analysis, ev, own) -> bool:
    """Is the retain of `ev`, in a loop, what lets the next iteration run?
    When the gradient is asked for tensors (`autograd.grad(loss, w)`,
    `backward(inputs=...)`) that nothing the loop builds reaches, the path
    to them runs through values from before the loop; when such a value
    comes from a tensor argument, it may carry a graph that the next
    iteration walks again."""
    inputs = _inputs(ev)
    if inputs is None:
        outer = outer_graph_inputs(analysis, ev, own)
        return bool(outer) and _callers_pass_graphs(analysis, ev, outer)
    keys = {dotted(n) for n in nodes(inputs) if isinstance(n, (cst.Name, cst.Attribute))} - {None}
    keys = {k for k in keys if not any(other.startswith(k + ".") for other in keys)}
    seen = {n.name for n in ev.reach if n.name} | {m for n in ev.reach for m in n.modules}
    if not keys or keys & seen:
        return False
    return bool(outer_graph_inputs(analysis, ev, own))


def _callers_pass_graphs(analysis, ev, params) -> bool:
    """Do the project's calls of the module-level function holding `ev` pass,
    for one of `params`, a value a network call of theirs built
    (`self.decoder(z)`, or a name bound from one)? Read with `ast`."""
    import ast

    from .callers import arguments, callers

    ctx = analysis.ctx
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None or ctx.parent(fn) is not ctx.module or not ctx.path:
        return False
    order = [p.name.value for p in fn.params.params]
    for caller, calls in callers(ctx.path, fn.name.value):
        bound: dict = {}
        for node in ast.walk(caller):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        bound.setdefault(target.id, []).append(node.value)
        for call in calls:
            args = arguments(call, order)
            if any(param in args and _net_built(args[param], bound, 0) for param in params):
                return True
    return False


def _net_built(expr, bound: dict, depth: int) -> bool:
    """Does `expr` hold what a call of a network on `self` returns?"""
    import ast

    from .flow import CUT_METHODS

    if depth > 3 or isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
            expr.func.attr in CUT_METHODS:
        return False  # `fake.detach()`
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.value.id == "self":
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("data", "shape"):
            return False
        if isinstance(node, ast.Name) and any(_net_built(v, bound, depth + 1) for v in bound.get(node.id, ())):
            return True
    return False


def _inputs(ev):
    call = ev.call
    if not isinstance(call, cst.Call):
        return None
    pos = [arg for arg in call.args if arg.keyword is None and not arg.star]
    kwargs = {arg.keyword.value: arg for arg in call.args if arg.keyword is not None}
    if "inputs" in kwargs:
        return kwargs["inputs"].value
    if ev.kind == "grad" and len(pos) > 1:
        return pos[1].value
    return None


def outer_graph_inputs(analysis, ev, own) -> list:
    """Names the loss of `ev` (in a loop) reads from outside its innermost
    loop, through the loop's own assignments, that may carry a graph from a
    tensor argument of the function; [] when none (or no loop)."""
    if not ev.loops:
        return []
    ctx = analysis.ctx
    loop = ev.loops[-1]
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None or ctx.enclosing(loop, cst.FunctionDef) is not fn:
        return []  # the caller's loop: each call gets its arguments anew
    inside = _assignments(loop.body)
    before = _assignments(fn.body)
    params = _params(fn)
    called = {dotted(n.func) for n in nodes(fn.body, skip=_SKIP) if isinstance(n, cst.Call)}
    names = analysis.names
    trained = _optimized(fn, names)
    seen: set = set()
    stack = [name for n in own if n.stmt is not None for name in _value_reads(n.stmt)]
    if isinstance(loop, cst.For):
        seen |= _target_names(loop.target)  # what the loop hands out is judged where it is built
    out = []
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in called or names.is_module(name) or name in names.optimizers or name in trained:
            continue
        if name in inside:
            stack.extend(r for value in inside[name] if not _cut(analysis, value) for r in _value_reads(value))
        elif name in before:
            stack.extend(r for value in before[name] if not _cut(analysis, value) for r in _value_reads(value))
        elif name in params and _tensor_param(params[name]):
            out.append(name)
    return sorted(out)


def _optimized(fn, names) -> set:
    """Names handed to an optimizer's constructor (`opt = Adam(tensors)`):
    the leaves it trains, which carry no graph."""
    out = set()
    for n in nodes(fn.body, skip=_SKIP):
        if isinstance(n, cst.Assign) and isinstance(n.value, cst.Call) and n.value.args and \
                any(dotted(t.target) in names.optimizers for t in n.targets):
            out |= {x.value for x in nodes(n.value.args[0].value) if isinstance(x, cst.Name)}
    return out


def _params(fn) -> dict:
    ps = fn.params
    return {p.name.value: p for p in list(ps.params) + list(ps.kwonly_params) + list(ps.posonly_params)
            if p.name.value not in ("self", "cls")}


def _tensor_param(param) -> bool:
    """May the argument be a tensor? Not with a number, string or bool default
    or annotation."""
    if isinstance(param.default, (cst.Integer, cst.Float, cst.SimpleString, cst.UnaryOperation)):
        return False
    if isinstance(param.default, cst.Name) and param.default.value in ("True", "False"):
        return False
    ann = param.annotation
    return not (ann is not None and isinstance(ann.annotation, cst.Name) and ann.annotation.value in _NUMBER_TYPES)


def _assignments(body) -> dict:
    """name -> [value] for `name = value`, `name += value` and `for name in value`
    in `body` (nested functions and classes left out)."""
    out: dict = {}
    for n in nodes(body, skip=_SKIP):
        if isinstance(n, cst.Assign):
            for target in n.targets:
                for name in _target_names(target.target):
                    out.setdefault(name, []).append(n.value)
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign)) and n.value is not None:
            for name in _target_names(n.target):
                out.setdefault(name, []).append(n.value)
        elif isinstance(n, cst.For):
            for name in _target_names(n.target):
                out.setdefault(name, []).append(n.iter)
    return out


def _target_names(target) -> set:
    return set(target_names(target))


def _value_reads(value) -> list:
    calls = {id(n.func) for n in nodes(value, skip=_SKIP) if isinstance(n, cst.Call)}
    attrs = {id(n.attr) for n in nodes(value, skip=_SKIP) if isinstance(n, cst.Attribute)}
    attrs |= {id(n.keyword) for n in nodes(value, skip=_SKIP) if isinstance(n, cst.Arg) and n.keyword is not None}
    return [n.value for n in nodes(value, skip=_SKIP) if isinstance(n, cst.Name)
            and id(n) not in calls and id(n) not in attrs]


def _cut(analysis, value, depth=0) -> bool:
    """Does `value` carry no graph whatever it reads? `x.detach()`, `x.size(1)`,
    `x.shape[0]`, a number, a same-file function whose results carry none."""
    from .flow import CUT_ATTRS, CUT_FUNCTIONS, CUT_METHODS

    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
            value.func.attr.value in ("to", "cuda", "cpu", "float", "double", "view", "reshape"):
        if value.func.attr.value in ("to", "cuda", "cpu") or not isinstance(value.func.value, cst.Call):
            value = value.func.value
        else:
            break
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(value, cst.Subscript):
        value = value.value
    if isinstance(value, cst.Attribute) and value.attr.value in CUT_ATTRS:
        return True
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    if isinstance(func, cst.Attribute) and func.attr.value in CUT_METHODS:
        return True
    if (analysis.ctx.imports.qualify(func) or "") in CUT_FUNCTIONS or _factory(analysis, value):
        return True
    if isinstance(func, cst.Name) and depth == 0:
        return _fresh(analysis, func.value)
    return False


def _factory(analysis, value) -> bool:
    qualified = analysis.ctx.imports.qualify(value.func) or ""
    return makes_new_tensor(qualified) and \
        "requires_grad" not in {a.keyword.value for a in value.args if a.keyword is not None}


def _fresh(analysis, name: str) -> bool:
    """A function of this module whose results read none of its parameters
    except as sizes (`torch.randn((n, dim))`): it hands back new tensors."""
    fn = next((stmt for stmt in analysis.ctx.module.body
               if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name), None)
    if fn is None:
        return False
    assigned = _assignments(fn.body)
    params = _params(fn)
    stack = [r for n in nodes(fn.body, skip=_SKIP) if isinstance(n, cst.Return) and n.value is not None
             for r in _value_reads(n.value)]
    if not stack:
        return False
    seen: set = set()
    while stack:
        key = stack.pop()
        if key in seen:
            continue
        seen.add(key)
        if key in params:
            return False
        stack.extend(r for value in assigned.get(key, ()) if not _cut(analysis, value, 1) for r in _value_reads(value))
    return True
