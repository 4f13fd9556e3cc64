"""Does every caller of a function drop what it returns?

    def _train_step(self, images, target):
        loss = self._loss(images, target)
        loss.backward(retain_graph=True)       # the last backward of the graph
        self._optimizer.step()
        return loss

    for images, target in loader:
        _ = self._train_step(images, target)   # the only call: the result is dropped

The graph leaves the function by its return, which would make the retain
look needed (the caller might backward the loss again); when every call of
the function in the project's files drops the result (a bare call, `_ =`,
a name never read again or read only through a cut such as `.item()`), no
caller does. Code out of sight may still call it: an inference the message
states. Read with stdlib `ast` (callers.py)."""
from __future__ import annotations

import ast
import os
from typing import Optional

from .callers import parsed
from .project_index import files_mentioning

_CUTS = ("item", "detach", "tolist")
_NUMBERS = ("float", "int", "bool", "str")


def dropped_by_callers(analysis, name: str) -> Optional[list]:
    """Notes when every project call of the function `name` drops its result;
    None when one may keep it, a reference hands the function on, or no call
    is found."""
    ctx = analysis.ctx
    if not ctx.path or not os.path.isfile(ctx.path):
        return None
    memo = analysis.table("_dropped_by_callers")
    if name not in memo:
        memo[name] = _judge(ctx.path, name)
    return memo[name]


def _judge(path: str, name: str) -> Optional[list]:
    paths = list(files_mentioning(path, name.encode()))
    if os.path.realpath(path) not in {os.path.realpath(p) for p in paths}:
        paths.append(path)
    sites = []
    for file, tree in parsed(paths, must=name):
        parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            ref = isinstance(node, ast.Name) and node.id == name or \
                isinstance(node, ast.Attribute) and node.attr == name
            if not ref:
                continue
            call = parents.get(id(node))
            if not isinstance(call, ast.Call) or call.func is not node:
                return None  # handed on as a value: its calls are out of sight
            if not _dropped(call, parents):
                return None
            sites.append(f"{os.path.basename(file)}:{call.lineno}")
    if not sites:
        return None
    listed = ", ".join(sites[:4]) + (", ..." if len(sites) > 4 else "")
    return [f"the graph leaves `{name}()` by its return, and its project calls ({listed}) drop the result: "
            f"code out of sight may call it and backward the result again"]


def _dropped(call, parents) -> bool:
    up = parents.get(id(call))
    if isinstance(up, ast.Expr):
        return True
    if isinstance(up, ast.Attribute) and up.attr in _CUTS and isinstance(parents.get(id(up)), ast.Call):
        return True
    if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in _NUMBERS:
        return True
    if isinstance(up, ast.Assign) and len(up.targets) == 1 and isinstance(up.targets[0], ast.Name):
        target = up.targets[0].id
        if target == "_":
            return True
        fn = up
        while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            fn = parents.get(id(fn))
        return fn is not None and _reads_cut_only(fn, target, parents)
    return False


def _reads_cut_only(fn, target: str, parents) -> bool:
    """Is `target` read in `fn` only through a cut (`loss.item()`)?"""
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id == target and isinstance(node.ctx, ast.Load):
            up = parents.get(id(node))
            if isinstance(up, ast.Attribute) and up.attr in _CUTS and isinstance(parents.get(id(up)), ast.Call):
                continue
            if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in _NUMBERS:
                continue
            return False
    return True
