"""What the callers of a trainer class give its optimizers, read in their files.

    class CGANTrainer:                       # trainer.py
        def __init__(self, G, D, opt_g, opt_d): ...   # opt_d paired with D by name

    emb = nn.Embedding(3, 4)                 # main.py
    G, D = CondG(emb), CondD(emb)
    opt_d = Adam([{"params": D.net.parameters()}, {"params": emb.parameters()}])
    trainer = CGANTrainer(G, D, opt_g, opt_d)

Pairing by name says `self.opt_d` steps `self.D` only; the caller shows that
it also steps `emb`, a part of `G`, so what a D backward puts into G's
embedding is used, and a detach there would change the updates. Read with
stdlib `ast`, only for optimizers paired by name. The answer
(`NameTable.shared`) only stops a detach (decide.discarded): which part of
`G` it is stays unknown, so nothing else (stale graphs) builds on it."""
from __future__ import annotations

import ast
import os

import libcst as cst

from ..imports import dotted
from .callers import arguments, calls_name, parsed, statements
from .project_index import files_mentioning
from .walk import nodes

PAIRED = "(paired by name)"


def widen(table, analysis) -> None:
    paired = [k for k, note in table.inferred.items() if PAIRED in note and k in table.optimizers
              and k.startswith("self.") and table.optimizers[k].owns is not None]
    if not paired:
        return
    ctx = analysis.ctx
    on_disk = bool(ctx.path) and os.path.isfile(ctx.path)
    for stmt in ctx.module.body:
        if not isinstance(stmt, cst.ClassDef):
            continue
        init = table.methods.get((stmt.name.value, "__init__"))
        if init is None:
            continue
        attr_of = _stored_params(init)
        opts = [k for k in paired if k in attr_of]
        mods = [k for k in attr_of if table.modules.get(k) == "param"]
        if not opts or not mods:
            continue
        params = [p.name.value for p in init.params.params][1:]
        sources = [(analysis.own_tree, os.path.basename(ctx.path or "") or "this file")]
        if on_disk:
            others = [path for path in files_mentioning(ctx.path, stmt.name.value.encode())
                      if os.path.realpath(path) != os.path.realpath(ctx.path)]
            sources += [(tree, os.path.basename(path)) for path, tree in parsed(others)]
        for tree, label in sources:
            for bound, assigned, where in _calls(tree, stmt.name.value, params, label):
                for opt in opts:
                    roots = _param_roots(assigned, bound.get(attr_of[opt]))
                    if not roots:
                        continue
                    for mod in mods:
                        name = bound.get(attr_of[mod])
                        if name is not None and (name in roots or roots & _built_from(assigned, name)):
                            _add(table, opt, mod, where)


def _add(table, opt: str, mod: str, where: str) -> None:
    if mod in table.optimizers[opt].owns or mod in table.shared.get(opt, ()):
        return
    table.shared.setdefault(opt, set()).add(mod)
    table.inferred[opt] += f"; {where} also gives it parameters of `{mod}`"


def _stored_params(init: cst.FunctionDef) -> dict:
    """`self.X = param` in __init__ (tuples too): self.X -> param name."""
    params = {p.name.value for p in init.params.params}
    out = {}
    for node in nodes(init):
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            target, value = node.targets[0].target, node.value
            pairs = [(target, value)]
            if isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple) and \
                    len(target.elements) == len(value.elements):
                pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)]
            for t, v in pairs:
                key = dotted(t)
                if key and key.startswith("self.") and isinstance(v, cst.Name) and v.value in params:
                    out[key] = v.value
    return out


def _calls(tree, cls: str, params: list, label: str):
    """(param -> argument name, name -> assigned values in the caller's
    scope, where) for each `cls(...)` call in `tree` whose arguments are names."""
    if tree is None:
        return
    scopes = [tree] + [n for n in statements(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for scope in scopes:
        body = _own_nodes(scope)
        for call in body:
            if not calls_name(call, cls):
                continue
            bound = {p: arg.id for p, arg in arguments(call, params).items() if isinstance(arg, ast.Name)}
            yield bound, _assignments(body), f"`{cls}(...)` at {label}:{call.lineno}"


def _own_nodes(scope):
    """The nodes of a scope, not those of the functions it defines."""
    out, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        out.append(n)
        todo.extend(ast.iter_child_nodes(n))
    return out


def _assignments(body) -> dict:
    out: dict = {}
    for n in body:
        if not isinstance(n, ast.Assign):
            continue
        for target in n.targets:
            if isinstance(target, ast.Name):
                out.setdefault(target.id, []).append(n.value)
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(n.value, (ast.Tuple, ast.List)) and \
                    len(target.elts) == len(n.value.elts):
                for t, v in zip(target.elts, n.value.elts):
                    if isinstance(t, ast.Name):
                        out.setdefault(t.id, []).append(v)
    return out


def _root(expr):
    while isinstance(expr, (ast.Attribute, ast.Subscript, ast.Call)):
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _param_roots(assigned: dict, name) -> set:
    """The names whose `.parameters()` the optimizer `name` was built over
    (`D` of `D.net.parameters()`); empty when that cannot be read."""
    out: set = set()
    for value in assigned.get(name, ()) if name else ():
        for n in ast.walk(value):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    n.func.attr in ("parameters", "named_parameters"):
                root = _root(n.func.value)
                if root is not None:
                    out.add(root)
    return out


def _built_from(assigned: dict, name: str) -> set:
    """The names the module `name` was built from (`emb` of `CondG(emb)`)."""
    out: set = set()
    for value in assigned.get(name, ()):
        if isinstance(value, ast.Call):
            for arg in list(value.args) + [kw.value for kw in value.keywords]:
                out |= {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
    return out
