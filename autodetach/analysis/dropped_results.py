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
a name never read again or read only through a cut such as `.item()` or `.data`), no
caller does. A caller that only logs it drops it too: the names it unpacks
(`c_loss, w_dist = model.train_critic(x)`) read only by `print`, string
formatting or a logger (`writer.add_scalar("c", c_loss, step)`), which turn
the tensor into text or a number. Code out of sight may still call it: an inference the message
states. Read with stdlib `ast` (callers.py)."""
from __future__ import annotations

import ast
import os
from typing import Optional

import libcst as cst

from ..imports import dotted
from .callers import mentioning_trees

_CUTS = ("item", "detach", "tolist")
_NUMBERS = ("float", "int", "bool", "str")
# calls that turn a tensor handed to them into text or a logged number (`writer.add_scalar(tag, loss, step)`)
_LOGGERS = ("print",)
_LOG_METHODS = ("format", "add_scalar", "add_scalars", "info", "debug", "warning", "log", "log_metric", "log_metrics",
                "set_postfix")
# methods frameworks call by name and whose result they may backward
_HOOKS = ("forward", "training_step", "validation_step", "test_step", "predict_step", "compute_loss",
          "training_step_end", "closure", "backward")


def dropped_by_callers(analysis, fn) -> Optional[list]:
    """Notes when every project call of the function `fn` drops its result;
    None when one may keep it, a reference hands the function on, no call
    is found, or code out of sight may call it by contract (a framework's
    hook: `training_step`, `compute_loss`, a method of a class built on a
    framework's class)."""
    ctx = analysis.ctx
    if not ctx.path or not os.path.isfile(ctx.path) or not _ours(ctx, fn):
        return None
    name = fn.name.value
    memo = analysis.table("_dropped_by_callers")
    if name not in memo:
        memo[name] = _judge(ctx.path, name)
    return memo[name]


def _ours(ctx, fn) -> bool:
    """Is `fn` called only by the project's code? A module-level function, or
    a method that is private (`_train_step`), or public in a class built on
    nothing but `nn.Module` and this file's classes, and not a hook a
    framework calls (`forward`, `training_step`, `compute_loss`)."""
    holder = ctx.enclosing(fn, (cst.FunctionDef, cst.ClassDef))
    if holder is None:
        return True
    if isinstance(holder, cst.FunctionDef):
        return False  # a nested function: handed on or called where it is defined
    name = fn.name.value
    if name.startswith("__") or name in _HOOKS:
        return False
    return name.startswith("_") or _plain_class(ctx, holder, 0)


def _plain_class(ctx, cls, depth, modules: bool = True) -> bool:
    """Built on `object` (or nothing), `nn.Module` when `modules`, and such classes of this file
    only: no framework class whose machinery may call a method and backward its result."""
    classes = {c.name.value: c for c in ctx.module.body if isinstance(c, cst.ClassDef)}
    for base in cls.bases:
        if base.keyword is not None:
            return False  # a metaclass
        key = dotted(base.value)
        if key == "object" or modules and ctx.imports.qualify(base.value) == "torch.nn.Module":
            continue
        if key in classes and depth < 5 and classes[key] is not cls and \
                _plain_class(ctx, classes[key], depth + 1, modules):
            continue
        return False
    return True


def _judge(path: str, name: str) -> Optional[list]:
    found = dropping_calls(path, name, _dropped)
    if not found or not found[0]:
        return None
    return [calls_drop(f"`{name}()`", *found)]


def dropping_calls(path: str, name: str, dropped, skip_stores: bool = False) -> Optional[tuple]:
    """(sites, logged) of the project's references to `name`, each a call whose result
    `dropped` says is dropped (or only printed or logged: `logged` fills); None when one
    is not (handed on as a value, or its result kept). `skip_stores`: bindings of the
    name (`name = ...`) are no references."""
    sites, logged = [], []
    for file, tree, parents in mentioning_trees(path, name):
        for node in ast.walk(tree):
            ref = isinstance(node, ast.Name) and node.id == name or \
                isinstance(node, ast.Attribute) and node.attr == name
            if not ref or skip_stores and isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                continue
            call = parents.get(id(node))
            if not isinstance(call, ast.Call) or call.func is not node:
                return None  # handed on as a value: its calls are out of sight
            if not dropped(call, parents, logged):
                return None
            sites.append(f"{os.path.basename(file)}:{call.lineno}")
    return sites, logged


def calls_drop(owner: str, sites: list, logged: list) -> str:
    """The note for a graph that leaves `owner` by its return to project calls that drop it."""
    listed = ", ".join(sites[:4]) + (", ..." if len(sites) > 4 else "")
    how = "drop the result or only print or log it" if logged else "drop the result"
    return (f"the graph leaves {owner} by its return, and its project calls ({listed}) {how}: "
            f"code out of sight may call it and backward the result again")


def _dropped(call, parents, logged: list) -> bool:
    up = parents.get(id(call))
    if isinstance(up, ast.Expr):
        return True
    if isinstance(up, ast.Attribute) and up.attr in _CUTS and isinstance(parents.get(id(up)), ast.Call):
        return True
    if _data_read(up, call):
        return True
    if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in _NUMBERS:
        return True
    names = _target_names(up.targets[0]) if isinstance(up, ast.Assign) and len(up.targets) == 1 else None
    if not names:
        return False
    fn = up
    while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        fn = parents.get(id(fn))
    return fn is not None and all(t == "_" or _reads_cut_only(fn, t, parents, logged) for t in names)


def _data_read(up, node) -> bool:
    """`Q.data.cpu().numpy()`: `.data` reads the values without their graph."""
    return isinstance(up, ast.Attribute) and up.value is node and up.attr == "data" and isinstance(up.ctx, ast.Load)


def _target_names(target):
    """The names an assignment binds: `loss`, or each of `c_loss, w_dist, gp`
    (None when the target stores anywhere else: an attribute, an item)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        out = []
        for elt in target.elts:
            elt = elt.value if isinstance(elt, ast.Starred) else elt
            if not isinstance(elt, ast.Name):
                return None
            out.append(elt.id)
        return out
    return None


def _reads_cut_only(fn, target: str, parents, logged: list) -> bool:
    """Is `target` read in `fn` only through a cut (`loss.item()`) or to be
    logged (noted in `logged`)? Reads in a function defined inside `fn` that
    binds the name itself are of its own local (a script's `loss` is not its
    functions' `loss`); a closure's or a global read still counts."""
    for node in _own_nodes(fn, target):
        if isinstance(node, ast.Name) and node.id == target and isinstance(node.ctx, ast.Load):
            up = parents.get(id(node))
            while isinstance(up, ast.Subscript) and up.value is node and isinstance(up.slice, ast.Constant):
                node, up = up, parents.get(id(up))  # `out["loss"]`: one entry of a returned dict
            if isinstance(up, ast.Attribute) and up.attr in _CUTS and isinstance(parents.get(id(up)), ast.Call):
                continue
            if _data_read(up, node):
                continue
            if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in _NUMBERS:
                continue
            if isinstance(up, ast.Compare):
                continue  # `if loss < 0.0005:`: a comparison's result carries no graph
            if _logged(node, up, parents):
                logged.append(target)
                continue
            return False
    return True


def _own_nodes(fn, name: str):
    """The nodes of `fn`, less the bodies of the functions it defines that bind `name` as a local."""
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        yield node
        if not (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _local(node, name)):
            todo.extend(ast.iter_child_nodes(node))


def _local(func, name: str) -> bool:
    """Does `func` bind `name` as its own local (a parameter or a store, not declared global)?"""
    args = func.args
    if name in {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} | \
            {a.arg for a in (args.vararg, args.kwarg) if a is not None}:
        return True
    stored = False
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))  # a nested function's stores are its own
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            stored = True
    return stored


def _logged(node, up, parents) -> bool:
    """Is `node` read only to be printed or logged: an argument of `print`,
    of `str.format` or of a logger's method, a value in an f-string or on the
    right of `"..." % x`?"""
    if isinstance(up, ast.keyword):
        up = parents.get(id(up))
    if isinstance(up, ast.Dict) and any(v is node for v in up.values):
        node, up = up, parents.get(id(up))  # `wandb.log({"loss": loss})`
    if isinstance(up, ast.Call) and node is not up.func:
        func = up.func
        return isinstance(func, ast.Name) and func.id in _LOGGERS or \
            isinstance(func, ast.Attribute) and func.attr in _LOG_METHODS
    if isinstance(up, ast.FormattedValue):
        return True
    if isinstance(up, ast.Tuple):
        up, node = parents.get(id(up)), up
    return isinstance(up, ast.BinOp) and isinstance(up.op, ast.Mod) and up.right is node and \
        isinstance(up.left, (ast.Constant, ast.JoinedStr)) and isinstance(getattr(up.left, "value", ""), str)
