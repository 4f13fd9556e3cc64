"""Does a caller backward again the graph it hands a one-backward helper?

    def backward_on_target(self, output, target):     # grad_cam.py
        self.model.zero_grad()
        output.backward(gradient=one_hot(output, target), retain_graph=True)

    output = cam.forward(image)                       # predict.py, the only call
    cam.backward_on_target(output, target)
    grads = cam.feature_grad.data.numpy()             # read as numbers from here on

The backwarded value is a parameter: its graph is the caller's, which the
walk of the helper cannot see, so the retain looks needed (the caller may
backward it again). A careful reader looks at the callers. The helper
backwards once, returns and stores nothing of the argument; each project
call (found by name through the project index: `name(...)`, `x.name(...)`)
hands in a value whose graph nothing after the call walks again: the
caller's function runs no backward, no grad and no second call of the
helper after it (in a loop, anywhere in the loop), and reads what the
argument was built from, and what it builds from it, only as numbers
(`.item()`, `.data`, `.detach()`, a comparison, a log) or not at all. The
verdict rests on the calls the project has (code out of sight may call the
helper and backward its argument again) and on the caller's other calls not
backwarding the value inside: an inference, so the fix is unsafe. No call
found, a reference handed on as a value, or a helper named as a framework's
hook (`forward`, `training_step`, ...): not judged (None). Read with
stdlib `ast` (callers.py) at the call sites."""
from __future__ import annotations

import ast
import os
from typing import Optional

import libcst as cst

from .callers import mentioning_trees
from .flow import nodes
from .unclaimed_returns import _backwards, _read_as_number

_HOOKS = ("forward", "__call__", "training_step", "validation_step", "compute_loss", "backward", "step",
          "closure", "loss", "update", "train", "run")
_BACKWARDS = ("backward", "grad")


def handed_target(analysis, ev) -> Optional[list]:
    """Notes (inferences) when `ev` backwards a parameter of its function and no project
    caller walks that graph again after the call; None otherwise."""
    ctx = analysis.ctx
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None or not ctx.path or not ctx.path.endswith(".py") or not os.path.isfile(ctx.path):
        return None
    if ev.loops and any(ctx.encloses(fn, lp) for lp in ev.loops):
        return None  # a loop of the helper may backward the graph again (per-class targets)
    pos = _target_param(fn, ev)
    if pos is None or fn.name.value in _HOOKS or fn.name.value.startswith("__"):
        return None
    if _backwards(fn) != 1 or _keeps(fn, pos[0]):
        return None
    memo = analysis.table("_handed_target")
    key = id(fn)
    if key not in memo:
        memo[key] = _judge(ctx.path, fn, pos)
    return memo[key]


def _target_param(fn, ev):
    """(name, index among the call's positional arguments) of the parameter the backward
    runs on (`output.backward(...)`, `torch.autograd.grad(out, ...)`), else None."""
    func = ev.call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "backward":
        target = func.value
    elif ev.call.args:
        target = ev.call.args[0].value
    else:
        return None
    while isinstance(target, cst.Subscript):
        target = target.value  # `score[0, idx].backward()`: an element of the parameter
    if not isinstance(target, cst.Name):
        return None
    params = list(fn.params.params)
    names = [p.name.value for p in params]
    if target.value not in names or target.value in ("self", "cls"):
        return None
    index = names.index(target.value)
    method = ctx_is_method(fn)
    return target.value, index - (1 if method and names and names[0] in ("self", "cls") else 0)


def ctx_is_method(fn) -> bool:
    params = fn.params.params
    return bool(params) and params[0].name.value in ("self", "cls")


def _keeps(fn, name: str) -> bool:
    """Does `fn` return, yield or store (on an attribute or an item) anything that names `name`?"""
    for x in nodes(fn.body):
        if isinstance(x, (cst.Return, cst.Yield)) and x.value is not None and _names(x.value, name):
            return True
        if isinstance(x, cst.Assign) and _names(x.value, name) and \
                any(not isinstance(t.target, cst.Name) for t in x.targets):
            return True
        if type(x) is cst.Call and isinstance(x.func, cst.Attribute) and x.func.attr.value in ("append", "extend") \
                and any(_names(a.value, name) for a in x.args):
            return True
    return False


def _names(expr, name: str) -> bool:
    return any(isinstance(x, cst.Name) and x.value == name for x in nodes(expr))


def _judge(path: str, fn, pos) -> Optional[list]:
    name = fn.name.value
    param, index = pos
    sites = []
    for file, tree, parents in mentioning_trees(path, name):
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
                    isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                continue
            if not (isinstance(node, ast.Name) and node.id == name or
                    isinstance(node, ast.Attribute) and node.attr == name):
                continue
            call = parents.get(id(node))
            if not isinstance(call, ast.Call) or call.func is not node:
                if isinstance(parents.get(id(node)), (ast.alias, ast.ImportFrom)):
                    continue
                return None  # handed on as a value: its calls are out of sight
            arg = _argument(call, param, index)
            if arg is None or not _walked_nowhere_after(call, arg, name, parents):
                return None
            sites.append(f"{os.path.basename(file)}:{call.lineno}")
    if not sites:
        return None
    listed = ", ".join(sites[:4]) + (", ..." if len(sites) > 4 else "")
    return [f"`{name}()` backwards its argument `{param}`, a graph its caller built; after each project call "
            f"({listed}) the caller backwards nothing and reads that graph only as numbers: code out of sight "
            f"may call it and backward the argument again"]


def _argument(call, param, index):
    for kw in call.keywords:
        if kw.arg == param:
            return kw.value
    if any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        return None
    return call.args[index] if 0 <= index < len(call.args) else None


def _walked_nowhere_after(call, arg, name, parents) -> bool:
    """In the function (or module) holding `call`: nothing after it (in a loop around it,
    nothing in the loop) backwards, grads or calls the helper again, and the names the
    argument hangs from, and those built from them, are read afterwards only as numbers."""
    stmt, scope, loop = call, None, None
    while stmt is not None and not isinstance(parents.get(id(stmt)), (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                      ast.Module)) \
            and not isinstance(stmt, ast.stmt):
        stmt = parents.get(id(stmt))
    cur = stmt
    while cur is not None and not isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(cur, (ast.For, ast.While, ast.AsyncFor)) and loop is None:
            loop = cur
        cur = parents.get(id(cur))
    scope = cur
    if scope is None or stmt is None:
        return False
    start = (loop or stmt).lineno
    inside = {id(n) for n in ast.walk(call)}
    after = [n for n in ast.walk(loop) if id(n) not in inside] if loop is not None else []
    after += [n for n in ast.walk(scope) if getattr(n, "lineno", 0) > getattr(stmt, "end_lineno", stmt.lineno)]
    for n in after:
        if isinstance(n, ast.Call):
            f = n.func
            attr = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            if attr in _BACKWARDS or attr == name:
                return False
    tainted = {x.id for x in ast.walk(arg) if isinstance(x, ast.Name)} - {"self"}
    if not tainted:
        return False
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        own = scope.args
        if tainted & {a.arg for a in own.posonlyargs + own.args + own.kwonlyargs}:
            return False  # handed on from the caller's caller, which may backward it again
    assigns = [n for n in ast.walk(scope) if isinstance(n, ast.Assign)]
    # what the argument was bound from (one step back: `out = model(x)` adds `x`, not `model`)
    for n in assigns:
        if getattr(n, "lineno", 0) <= start and _bound(n) & tainted and n.value is not call:
            tainted |= {x.id for x in ast.walk(n.value) if isinstance(x, ast.Name)} - {"self"} - _receivers(n.value)
    # and what is built from those names, unless as a number (`idx = idx.item()`); the helper's own
    # result is judged by the helper (it returns nothing of the argument)
    for _ in range(4):
        for n in assigns:
            if n.value is not call and not _is_number(n.value, parents) and \
                    {x.id for x in ast.walk(n.value) if isinstance(x, ast.Name)} & tainted:
                tainted |= _bound(n)
    for n in after:
        if isinstance(n, ast.Name) and n.id in tainted and isinstance(n.ctx, ast.Load) \
                and not _read_as_number(n, parents, []) and not _rebound_clean(assigns, n, call, parents):
            return False
    return not _kept_anywhere(scope, tainted, parents)


def _kept_anywhere(scope, tainted, parents) -> bool:
    """Before the call too: is one of the names stored on an attribute or an item
    (`self.logits = logits`), or added to a container (`seen.append(out)`), where a
    backward elsewhere may find it?"""
    for n in ast.walk(scope):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value is not None:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(x, (ast.Attribute, ast.Subscript)) for t in targets for x in ast.walk(t)) and any(
                    isinstance(x, ast.Name) and x.id in tainted and not _read_as_number(x, parents, [])
                    for x in ast.walk(n.value)):
                return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _KEEPS and any(
                isinstance(x, ast.Name) and x.id in tainted and not _read_as_number(x, parents, [])
                for a in n.args for x in ast.walk(a)):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr":
            return True
    return False


_KEEPS = ("append", "extend", "add", "insert", "put", "push", "update", "setdefault", "appendleft")


def _bound(assign) -> set:
    return {t.id for tg in assign.targets for t in ast.walk(tg) if isinstance(t, ast.Name)}


def _is_number(value, parents) -> bool:
    """`x.item()`, `float(x)`, `x.detach()`, `x.data`: a value without a graph."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("float", "int", "bool",
                                                                                              "str", "len"):
        return True
    if isinstance(value, ast.Call):
        value = value.func
    return isinstance(value, ast.Attribute) and value.attr in ("item", "detach", "tolist", "data", "numpy")


def _rebound_clean(assigns, read, call, parents) -> bool:
    """Is the last binding of the name before this read (`idx = idx.item()`) a number, or the
    helper's own result?"""
    line = getattr(read, "lineno", 0)
    last = None
    for n in assigns:
        if read.id in _bound(n) and getattr(n, "lineno", 0) < line and (last is None or n.lineno >= last.lineno):
            last = n
    return last is not None and (last.value is call or _is_number(last.value, parents))


def _receivers(expr) -> set:
    """Names called, or whose method is called, in `expr` (`model` of `model(x)`, `cam` of
    `cam.forward(x)`): the network or the helper object, not a value of the graph."""
    out = set()
    for c in ast.walk(expr):
        if isinstance(c, ast.Call):
            f = c.func
            while isinstance(f, ast.Attribute):
                f = f.value
            if isinstance(f, ast.Name):
                out.add(f.id)
    return out
