"""A cache keyed by tensors, on an object that lives as long as the program.

    class Jacobians:
        def __init__(self):
            self.Js = {}

        def __call__(self, ys, xs, i=0):
            key = (ys, xs)                      # a tensor hashes by identity
            if key not in self.Js:
                self.Js[key] = Jacobian(ys, xs)  # computes torch.autograd.grad(..., create_graph=True)
            return self.Js[key](i)

    jacobian_fn = Jacobians()                   # one instance, made at import

A dict keyed by tensor objects memoizes by identity (a tensor's `__hash__`
is its `id`): a training step makes its network output and inputs anew, so
every step adds an entry, and the entry keeps the step's tensors (the key)
and what was computed from them. Where that computation is a gradient with
`create_graph=True`, the entries hold graphs by construction, and the key
tensors are outputs autograd differentiates (they carry graphs too). The
cache lives on an object made once at module level (or is a module-level
dict), and no code of the file clears it (`.clear()`, `.pop()`, `del`, or a
method that sets it anew): every training step's graph stays referenced
and memory grows step after step. That the callers hand it new tensors
each step (a training loop) is inferred, and the finding has no fix: the
cache must be cleared where a step ends, which only the caller knows.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..imports import dotted
from .walk import class_methods, nodes

CLEARS = {"clear", "pop", "popitem"}


@dataclass
class TensorKeyed:
    stmt: cst.CSTNode  # the store `self.Js[key] = ...`
    cache: str  # `self.Js` (or a module-level dict's name)
    where: str  # `Jacobians.__call__` or the function's name
    parts: tuple  # the parameters the key is made of (`ys`, `xs`)
    holder: str  # how it lives as long as the program: `jacobian._fn = Jacobians()`
    graph: str  # where the entries get their graph: `Jacobian` calls `torch.autograd.grad(..., create_graph=True)`


def tensor_keyed_caches(analysis) -> list:
    return analysis.memo("_tensor_keyed", lambda: _find(analysis.ctx))


def _find(ctx) -> list:
    classes = {c.name.value: c for c in ctx.module.body if type(c) is cst.ClassDef}
    functions = {f.name.value: f for f in ctx.module.body if type(f) is cst.FunctionDef}
    holders, dicts = {}, {}
    for stmt in ctx.module.body:
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if type(small) is not cst.Assign or len(small.targets) != 1:
                continue
            target = dotted(small.targets[0].target)
            value = small.value
            if target is None:
                continue
            if type(value) is cst.Call and dotted(value.func) in classes:
                holders.setdefault(dotted(value.func), f"{target} = {dotted(value.func)}()")
            elif type(small.targets[0].target) is cst.Name and _empty_dict(value):
                dicts[target] = f"{target} = {{}}"
    grads = _graph_makers(ctx, classes, functions)
    out = []
    for name, holder in holders.items():
        cls = classes[name]
        methods = class_methods(cls)
        init = methods.get("__init__")
        if init is None:
            continue
        caches = {k for n in nodes(init) if type(n) is cst.Assign and _empty_dict(n.value)
                  for t in n.targets for k in [dotted(t.target)] if k and k.startswith("self.") and k.count(".") == 1}
        for key in sorted(caches):
            if any(_clears(m, key) for n, m in methods.items() if n != "__init__"):
                continue
            for mname, m in methods.items():
                if mname != "__init__":
                    out += _stores(ctx, m, key, f"{name}.{mname}", holder, grads)
    for key, holder in dicts.items():
        if any(_clears(f, key) for f in ctx.module.body if type(f) is not cst.SimpleStatementLine) or \
                any(_clears(s, key, module_level=True) for s in ctx.module.body if type(s) is cst.SimpleStatementLine):
            continue
        for fname, f in functions.items():
            out += _stores(ctx, f, key, fname, holder, grads)
    return out


def _empty_dict(value) -> bool:
    return type(value) is cst.Dict and not value.elements or \
        type(value) is cst.Call and dotted(value.func) == "dict" and not value.args


def _clears(tree, key: str, module_level: bool = False) -> bool:
    """Does `tree` empty or replace the cache `key` (`key.clear()`, `del key[k]`, `key = {}` outside
    `__init__`, `key.pop(k)`)? A module-level statement binding it is its definition."""
    for n in nodes(tree):
        if type(n) is cst.Call and type(n.func) is cst.Attribute and n.func.attr.value in CLEARS and \
                dotted(n.func.value) == key:
            return True
        if type(n) is cst.Del and any(dotted(x.value if type(x) is cst.Subscript else x) == key
                                      for x in nodes(n.target) if type(x) in (cst.Subscript, cst.Name, cst.Attribute)):
            return True
        if type(n) is cst.AssignTarget and dotted(n.target) == key and not module_level:
            return True
        if type(n) is cst.Global and any(g.name.value == key for g in n.names):
            return True
    return False


def _graph_makers(ctx, classes, functions) -> dict:
    """Class or function name of the file -> the call in its code that makes a graph by construction
    (`torch.autograd.grad(..., create_graph=True)`)."""
    out = {}
    for name, tree in list(classes.items()) + list(functions.items()):
        for n in nodes(tree):
            if _graph_grad(ctx, n):
                out[name] = n
                break
    return out


def _graph_grad(ctx, n) -> bool:
    if type(n) is not cst.Call:
        return False
    q = ctx.imports.qualify(n.func) or dotted(n.func) or ""
    if not (q == "torch.autograd.grad" or q.endswith("autograd.grad")):
        return False
    return any(a.keyword is not None and a.keyword.value == "create_graph" and
               not (type(a.value) is cst.Name and a.value.value == "False") for a in n.args)


def _stores(ctx, fn, key, where, holder, grads) -> list:
    params = {p.name.value for p in fn.params.params} - {"self"}
    keys = {}  # local name -> parameters its bindings are made of
    for n in nodes(fn.body):
        if type(n) is cst.Assign and len(n.targets) == 1 and type(n.targets[0].target) is cst.Name:
            got = _parts(n.value, params)
            if got:
                keys[n.targets[0].target.value] = keys.get(n.targets[0].target.value, set()) | got
    out = []
    for stmt in nodes(fn.body):
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if type(small) is not cst.Assign or len(small.targets) != 1:
                continue
            target = small.targets[0].target
            if type(target) is not cst.Subscript or dotted(target.value) != key or len(target.slice) != 1:
                continue
            index = target.slice[0].slice
            if type(index) is not cst.Index:
                continue
            k = index.value
            parts = keys.get(k.value, set()) if type(k) is cst.Name else _parts(k, params)
            graph = _graph_of(ctx, small.value, parts, grads)
            if parts and graph:
                out.append(TensorKeyed(stmt, key, where, tuple(sorted(parts)), holder, graph))
    return out


def _parts(e, params) -> set:
    """The parameters a key is made of, bare (`(ys, xs)`, `ys`): not `id(ys)`, `ys.ref()`, `ys.shape`."""
    if type(e) is cst.Name:
        return {e.value} & params
    if type(e) is cst.Tuple:
        out = set()
        for el in e.elements:
            if type(el.value) is cst.Name and el.value.value in params:
                out.add(el.value.value)
        return out
    return set()


def _graph_of(ctx, value, parts, grads) -> str:
    """Why the stored value holds a graph, built from the key's tensors: a gradient with
    create_graph=True here, or a class or function of the file that computes one, handed them."""
    for n in nodes(value):
        if _graph_grad(ctx, n) and any(type(x) is cst.Name and x.value in parts for x in nodes(n)):
            return f"`{ctx.code(n.func).strip()}(..., create_graph=True)`"
        if type(n) is cst.Call and dotted(n.func) in grads and \
                any(type(a.value) is cst.Name and a.value.value in parts for a in n.args):
            return f"`{dotted(n.func)}`, which calls `{ctx.code(grads[dotted(n.func)].func).strip()}(..., " \
                   f"create_graph=True)`"
    return ""
