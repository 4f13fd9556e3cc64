"""Optimizers a base class of another file builds on `self`, and what they own.

    # aae_training.py
    class AAETraining:
        def __init__(self, ...):
            self.saae = self._get_network()
            Q_params = list(filter(lambda p: p.requires_grad, self.saae.Q.parameters()))
            self.optimizer_E = optim.Adam(Q_params, lr=args.lr)

    # train_aae.py
    class AAEUnsupervisedTraining(AAETraining):
        def _run_batch(self, data):
            z = self.saae.Q(images)
            ...
            self.optimizer_E.step()

Nothing in the training file builds `self.optimizer_E`: the names table does
not know it is an optimizer, nor what it owns. The `__init__` of the class's
bases imported from project files (read with stdlib `ast`, through
analysis.cut_arguments' class chain) says both: an optimizer class of
`torch.optim` given `.parameters()` of `self.X` modules, directly or through
a list built from them (`list(a.parameters()) + list(b.parameters())`,
`filter(...)`, a comprehension, param groups `[{"params": ...}]`, a name or
`self.params` bound to such a list before). The owners are an inference
(another file's constructor, run before this code): findings that rest on
them say so, and their fixes are unsafe (`NameTable.inferred`)."""
from __future__ import annotations

import ast
import os
from typing import Optional

import libcst as cst

from .summaries import _dotted

OPTIMIZERS = {"SGD", "Adam", "AdamW", "Adamax", "Adagrad", "Adadelta", "RMSprop", "Rprop", "ASGD", "NAdam",
              "RAdam", "LBFGS", "SparseAdam"}


def add_base_optimizers(table, analysis) -> None:
    """`self.O` optimizers the foreign bases' `__init__` build, into the table."""
    from .cut_arguments import _Classes
    from .names import Optimizer

    ctx = analysis.ctx
    if not ctx.path or not os.path.isfile(ctx.path):
        return
    here = os.path.realpath(ctx.path)
    for stmt in ctx.module.body:
        if not isinstance(stmt, cst.ClassDef) or not stmt.bases:
            continue
        chain = _Classes(analysis, stmt).chain
        for cls, path in chain[1:]:
            if not path or os.path.realpath(path) == here:
                continue
            init = next((i for i in cls.body if isinstance(i, ast.FunctionDef) and i.name == "__init__"), None)
            if init is None:
                continue
            for key, mods in owned_in(init).items():
                if key in table.optimizers or key in table.modules or key in table.leaves:
                    continue
                table.optimizers[key] = Optimizer(key, frozenset(mods), None)
                for mod in mods:
                    table.modules.setdefault(mod, "param")  # its `.parameters()` are called there
                table.inferred[key] = (f"`{key}` is built by `{cls.name}.__init__` ({os.path.basename(path)}) "
                                       "over the parameters of " + ", ".join(f"`{m}`" for m in sorted(mods)))


def owned_in(init: ast.FunctionDef) -> dict:
    """`self.O` -> the `self.X` modules whose parameters the optimizer built
    there is given, for each optimizer `__init__` builds with known params."""
    env: dict = {}
    out: dict = {}
    for node in _statements(init.body):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        key = _dotted(node.targets[0])
        if not key:
            continue
        value = node.value
        if isinstance(value, ast.Call) and _dotted(value.func) and \
                _dotted(value.func).split(".")[-1] in OPTIMIZERS and value.args:
            mods = _owns(value.args[0], env)
            if mods and key.startswith("self.") and key.count(".") == 1:
                out[key] = mods
            continue
        mods = _owns(value, env)
        if mods:
            env[key] = mods
        else:
            env.pop(key, None)
    return out


def _statements(body):
    """The statements of a body in order, those of `if`/`with`/`try` blocks included."""
    for stmt in body:
        yield stmt
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and not isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.For,
                                                                  ast.While, ast.AsyncFunctionDef)):
                yield from _statements(inner)


def _owns(expr, env: dict) -> Optional[set]:
    """The `self.X` modules whose parameters `expr` gathers, or None."""
    if isinstance(expr, ast.Call):
        func = _dotted(expr.func) or ""
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in ("parameters", "named_parameters"):
            key = _dotted(expr.func.value)
            return {key} if key and key.startswith("self.") else None
        last = func.split(".")[-1]
        if last in ("list", "tuple", "chain") and expr.args:
            return _union([_owns(a.value if isinstance(a, ast.Starred) else a, env) for a in expr.args])
        if last == "filter" and len(expr.args) == 2:
            return _owns(expr.args[1], env)
        return None
    if isinstance(expr, (ast.ListComp, ast.GeneratorExp)) and len(expr.generators) == 1 and \
            isinstance(expr.elt, ast.Name) and isinstance(expr.generators[0].target, ast.Name) and \
            expr.elt.id == expr.generators[0].target.id:
        return _owns(expr.generators[0].iter, env)  # [p for p in params if p.requires_grad]
    if isinstance(expr, (ast.List, ast.Tuple)) and expr.elts:
        parts = []
        for elt in expr.elts:
            if isinstance(elt, ast.Dict):
                group = [v for k, v in zip(elt.keys, elt.values) if isinstance(k, ast.Constant) and k.value == "params"]
                parts.append(_owns(group[0], env) if group else None)
            else:
                parts.append(_owns(elt.value if isinstance(elt, ast.Starred) else elt, env))
        return _union(parts)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _union([_owns(expr.left, env), _owns(expr.right, env)])
    if isinstance(expr, (ast.Name, ast.Attribute)):
        found = env.get(_dotted(expr))
        return set(found) if found else None
    return None


def _union(parts) -> Optional[set]:
    if not parts or any(p is None for p in parts):
        return None
    return set().union(*parts)

