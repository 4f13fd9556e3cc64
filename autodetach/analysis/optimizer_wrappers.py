"""Optimizer wrappers: objects that hold an optimizer and step it for the caller.

    class ScheduledOptim:                    # optim.py
        def __init__(self, optimizer, lr):
            self.optimizer = optimizer
        def step_and_update_lr(self):
            self._update_lr()
            self.optimizer.step()

    g_opt = Adam(G.parameters())             # train.py
    sched_g = ScheduledOptim(g_opt, 1e-4)
    sched_g.step_and_update_lr()             # steps g_opt

The wrapper's class is read (in this file or the project file it is imported
from, with stdlib `ast`): its `__init__` stores a parameter on `self`, and the
method called runs `.step()` (or `.zero_grad()`) on that attribute, itself or
through one `self.m()` of the class. The call that builds the wrapper hands
that parameter an optimizer this file knows, so the method is that
optimizer's step. A step under an `if` in the wrapper (gradient accumulation)
counts as a step: it happens on some calls, and a graph kept across it is at
risk then. Findings resting on it name the class read."""
from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from ..imports import dotted
from .imported_classes import class_of
from .walk import bound_argument, of_types

KINDS = ("step", "zero_grad")
_ASSIGN = frozenset({cst.Assign})


def wrapped(analysis, base: Optional[str], meth: str) -> Optional[tuple]:
    """(the wrapped optimizer's key, "step" | "zero_grad", note) for
    `base.meth()` where `base` wraps an optimizer of this file, else None."""
    names = analysis.names
    if not base or base in names.optimizers or names.is_module(base) or meth.startswith("__"):
        return None
    if base not in names.foreign_instances and base not in names.instances:
        return None
    memo = analysis.table("_optimizer_wrappers")
    key = (base, meth)
    if key not in memo:
        memo[key] = _wrapped(analysis, base, meth)
    return memo[key]


def _wrapped(analysis, base, meth):
    build = _only_build(analysis, base)
    if build is None:
        return None
    cls, where = class_of(analysis, build.func)
    if cls is None:
        return None
    methods = {f.name: f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    init, fn = methods.get("__init__"), methods.get(meth)
    if init is None or fn is None:
        return None
    params = [a.arg for a in init.args.args][1:]
    stored = _stored_params(cls, init, set(params))
    kind_attr = _runs(fn, methods, set(stored), 2)
    if kind_attr is None or _backwards(fn, methods, 2):
        return None  # a training step of its own (`trainer.train_step(x)`) is walked as one elsewhere
    kind, attr = kind_attr
    param = stored[attr]
    arg = bound_argument(build, params, param)
    inner = dotted(arg) if arg is not None else None
    if inner is None or inner not in analysis.names.optimizers:
        return None
    call = f"`{base}.{meth}()`"
    what = "steps" if kind == "step" else "clears"
    note = f"{call} {what} `{inner}`: `{cls.name}` ({where}) stores it as `self.{attr}` and its `{meth}` " \
        f"calls `self.{attr}.{kind}()`"
    return inner, kind, note


def _only_build(analysis, base) -> Optional[cst.Call]:
    """The one `base = Cls(...)` of this file (None if it is bound to a class more than once)."""
    builds = []
    for n in of_types(analysis.ctx.module, _ASSIGN):
        if len(n.targets) == 1 and dotted(n.targets[0].target) == base \
                and type(n.value) is cst.Call:
            builds.append(n.value)
    if len(builds) != 1 or any(arg.star for arg in builds[0].args):
        return None
    return builds[0]


def _stored_params(cls, init, params: set) -> dict:
    """`self.A = param` in `__init__`, A set nowhere else in the class: A -> param."""
    out, count = {}, {}
    for n in ast.walk(cls):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                for x in ast.walk(t):
                    if isinstance(x, ast.Attribute) and isinstance(x.value, ast.Name) and x.value.id == "self":
                        count[x.attr] = count.get(x.attr, 0) + 1
    for stmt in init.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Name) \
                and stmt.value.id in params:
            t = stmt.targets[0]
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                out[t.attr] = stmt.value.id
    return {attr: p for attr, p in out.items() if count.get(attr) == 1}


def _runs(fn, methods: dict, attrs: set, depth: int) -> Optional[tuple]:
    """("step" | "zero_grad", A) for the last `self.A.step()` (else `.zero_grad()`)
    `fn` runs, itself or through `self.m()` of the class."""
    found = {}
    for n in ast.walk(fn):
        if not isinstance(n, ast.Call) or not isinstance(n.func, ast.Attribute):
            continue
        f = n.func
        if f.attr in KINDS and isinstance(f.value, ast.Attribute) and isinstance(f.value.value, ast.Name) \
                and f.value.value.id == "self" and f.value.attr in attrs:
            found.setdefault(f.attr, set()).add(f.value.attr)
        elif depth > 1 and isinstance(f.value, ast.Name) and f.value.id == "self" and f.attr in methods \
                and methods[f.attr] is not fn:
            inner = _runs(methods[f.attr], methods, attrs, depth - 1)
            if inner is not None:
                found.setdefault(inner[0], set()).add(inner[1])
    for kind in KINDS:
        if len(found.get(kind, ())) == 1:
            return kind, next(iter(found[kind]))
    return None


def _backwards(fn, methods: dict, depth: int) -> bool:
    """Does `fn` run a backward, itself or through `self.m()` of the class?"""
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            if n.func.attr in ("backward", "grad", "manual_backward"):
                return True
            if depth > 1 and isinstance(n.func.value, ast.Name) and n.func.value.id == "self" \
                    and n.func.attr in methods and methods[n.func.attr] is not fn \
                    and _backwards(methods[n.func.attr], methods, depth - 1):
                return True
    return False
