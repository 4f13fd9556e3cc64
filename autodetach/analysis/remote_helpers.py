"""A helper that stores what it returns into a meter its callers, in other files, hand it.

    # worker.py
    def predict_evaluate_collect(self, model, problem, data, stat_col):
        loss = problem.evaluate_loss(data, model(data))
        stat_col["loss"] = loss
        return logits, loss

    # trainer.py, in the training loop
    logits, loss = self.predict_evaluate_collect(..., self.training_stat_col)
    loss.backward()

Nothing in the helper's file says that the value carries a graph or that the
object keeps it: the helper runs no backward and its meter is a parameter
(passed_meters walks such a helper only at a call in its own file). The
callers say both: they backward the value it returns, in a loop, and hand it
an object made from a project class whose `__setitem__` (or the method the
helper calls) adds its argument into `self` state. The store is reported in
the helper, where one `.detach()` serves every caller; what the callers pass
and backward is read from their code (stdlib `ast`), an inference the finding
names."""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from .callers import tree_of
from .project import find
from .project_index import classes_with_method, files_mentioning, project_root
from .walk import nodes


@dataclass
class HelperStore:
    value: cst.Name  # the stored value, a name the helper returns
    func: str
    meth: str  # `__setitem__` for `param[key] = value`, else the method called on the parameter
    caller: tuple  # (file, line, argument code)
    cls: str
    cls_file: str
    callers: int  # how many calls feed it


def helper_stores(analysis) -> list:
    path = analysis.ctx.path
    if not path or path == "<string>" or not os.path.isfile(path):
        return []
    out = []
    for func, method in _functions(analysis.ctx.module):
        for param, meth, pos, value in _stores(func, method):
            index = _returned_at(func, value.value)
            if index is False:
                continue
            found = _feeding_calls(path, func, method, param, index)
            if not found:
                continue
            classes = {}
            for caller_file, line, arg, cls_names in found:
                for cls, cls_file in _keeping_classes(path, cls_names, meth, pos):
                    classes.setdefault((cls, cls_file), []).append((caller_file, line, arg))
            if classes:
                (cls, cls_file), calls = sorted(classes.items())[0]
                out.append(HelperStore(value, func.name.value, meth, calls[0], cls, cls_file, len(calls)))
    return out


def _functions(module: cst.Module):
    """(function, is a method) for the module's functions and its classes' methods."""
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            yield stmt, False
        elif isinstance(stmt, cst.ClassDef):
            for m in stmt.body.body:
                if isinstance(m, cst.FunctionDef):
                    yield m, True


def _stores(func: cst.FunctionDef, method: bool):
    """(parameter, method, position, value) for `p[key] = name` and `p.m(..., name, ...)`
    in a function that runs no backward or step itself (a step function is walked as one)."""
    params = [p.name.value for p in func.params.params][1 if method else 0:]
    body = list(nodes(func.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)))
    if any(type(n) is cst.Call and type(n.func) is cst.Attribute and n.func.attr.value in ("backward", "step")
           for n in body):
        return
    for n in body:
        if type(n) is cst.Assign and len(n.targets) == 1 and type(n.value) is cst.Name:
            target = n.targets[0].target
            if type(target) is cst.Subscript and type(target.value) is cst.Name and target.value.value in params:
                yield target.value.value, "__setitem__", 1, n.value
        elif type(n) is cst.Expr and type(n.value) is cst.Call and type(n.value.func) is cst.Attribute \
                and type(n.value.func.value) is cst.Name and n.value.func.value.value in params:
            args = n.value.args
            for pos, arg in enumerate(args):
                if arg.keyword is None and not arg.star and type(arg.value) is cst.Name:
                    yield n.value.func.value.value, n.value.func.attr.value, pos, arg.value


def _returned_at(func: cst.FunctionDef, name: str):
    """None when `return name`, the index when `return ..., name, ...`; False when the
    name is not what every return hands back in one place, or is bound more than once
    (what is stored may then differ from what the callers backward)."""
    body = list(nodes(func.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)))
    binds = sum(1 for n in body if type(n) in (cst.AssignTarget, cst.AugAssign) and
                any(type(t) is cst.Name and t.value == name for t in nodes(n.target)))
    if binds > 1:
        return False
    places = set()
    for n in body:
        if type(n) is not cst.Return or n.value is None:
            continue
        value = n.value
        if type(value) is cst.Name and value.value == name:
            places.add(None)
        elif type(value) is cst.Tuple:
            hits = [i for i, e in enumerate(value.elements) if type(e.value) is cst.Name and e.value.value == name]
            places.add(hits[0] if len(hits) == 1 and not any(type(e) is cst.StarredElement
                                                              for e in value.elements) else False)
        else:
            places.add(False)
    if len(places) != 1:
        return False
    return places.pop()


def _feeding_calls(path: str, func: cst.FunctionDef, method: bool, param: str, index) -> list:
    """(file, line, argument code, classes) for each call of the helper in another project
    file, in a loop (or a step function) and outside `no_grad`, that reaches this file's helper (its receiver's
    class, or the imported name, resolves here), whose caller backwards the value it
    returns at `index` and hands `param` an object made from a class it can name."""
    name = func.name.value
    params = [p.name.value for p in func.params.params]
    me = os.path.realpath(path)
    out = []
    for f in files_mentioning(path, f"{name}(".encode()):
        if os.path.realpath(f) == me:
            continue  # a caller in this file: passed_meters walks the helper at the call
        text, tree = tree_of(f)
        if tree is None or "backward" not in text:
            continue
        for cls, fn in _functions_of(tree):
            for call, target in _calls_in_loops(fn, name):
                got = _bound_at(target, index)
                if got is None or got not in _backwarded(fn) or not _reaches(f, tree, cls, fn, call, name, me):
                    continue
                arg = _argument(call, params, method, param)
                made = _classes_of(f, tree, fn, arg) if arg is not None else set()
                if made:
                    out.append((f, call.lineno, ast.unparse(arg), made))
    return out


def _functions_of(tree):
    """(enclosing class name or None, function) for the module's functions and methods."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield None, node
        elif isinstance(node, ast.ClassDef):
            for m in node.body:
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield node.name, m


def _reaches(path: str, tree, cls, fn, call: ast.Call, name: str, me: str) -> bool:
    """Does the call run this file's helper? `self.name(...)` in a class that is or inherits
    it, `obj.name(...)` on an object made from such a class, `name(...)` imported from here
    (a sibling module may define a method of the same name)."""
    func = call.func
    if isinstance(func, ast.Name):
        return _defined_in(path, name, me)
    receiver = func.value
    if isinstance(receiver, ast.Name) and receiver.id == "self":
        return cls is not None and _defined_in(path, f"{cls}.{name}", me)
    return any(_defined_in(f, f"{made}.{name}", me) for f, made in _classes_of(path, tree, fn, receiver))


def _defined_in(path: str, name: str, me: str) -> bool:
    _, where = find(path, name)
    return where is not None and os.path.realpath(where) == me


def _calls_in_loops(fn, name: str) -> list:
    """(call, assignment target) for `target = ...name(...)` in a loop of `fn`, outside `no_grad`;
    anywhere in a step function (`opt.step()` in it: run once per batch by its caller's loop)."""
    steps = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "step"
                for n in ast.walk(fn))
    return loop_assigns(fn, lambda node: isinstance(node.value, ast.Call) and _named(node.value.func, name), steps)


def loop_assigns(fn, wanted, in_loop=False) -> list:
    """(value, target) of the one-target assignments `wanted` accepts, in a loop of `fn`
    (anywhere when `in_loop`), outside `no_grad` / `inference_mode`."""
    out = []

    def visit(stmts, loop):
        for node in stmts:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(node, ast.With) and any(
                    "no_grad" in ast.unparse(item.context_expr) or "inference_mode" in ast.unparse(item.context_expr)
                    for item in node.items):
                continue
            if loop and isinstance(node, ast.Assign) and len(node.targets) == 1 and wanted(node):
                out.append((node.value, node.targets[0]))
            inner = loop or isinstance(node, (ast.For, ast.AsyncFor, ast.While))
            for field in ("body", "orelse", "finalbody", "handlers"):
                visit(getattr(node, field, None) or [], inner)

    visit(fn.body, in_loop)
    return out


def _named(func, name: str) -> bool:
    return isinstance(func, ast.Name) and func.id == name or isinstance(func, ast.Attribute) and func.attr == name


def _bound_at(target, index) -> Optional[str]:
    if index is None:
        return target.id if isinstance(target, ast.Name) else None
    if isinstance(target, (ast.Tuple, ast.List)) and index < len(target.elts) and \
            not any(isinstance(e, ast.Starred) for e in target.elts):
        e = target.elts[index]
        return e.id if isinstance(e, ast.Name) else None
    return None


def _backwarded(fn) -> set:
    """Names under the receiver of a `.backward()` in `fn` (`loss.backward()`, `scaler.scale(loss).backward()`),
    and the names a backwarded name is computed from (`total = loss + reg`, then `total.backward()`)."""
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "backward":
            out |= {n.id for n in ast.walk(node.func.value) if isinstance(n, ast.Name)}
    sources = {}
    for node in ast.walk(fn):
        if isinstance(node, (ast.Assign, ast.AugAssign)) and node.value is not None:
            reads = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    sources.setdefault(target.id, set()).update(reads)
    todo = list(out)
    while todo:
        for name in sources.get(todo.pop(), ()):
            if name not in out:
                out.add(name)
                todo.append(name)
    return out


def _argument(call: ast.Call, params: list, method: bool, param: str):
    """The argument the call hands `param` (a method called as `obj.name(...)` skips `self`)."""
    for kw in call.keywords:
        if kw.arg == param:
            return kw.value
    offset = 1 if method and isinstance(call.func, ast.Attribute) else 0
    index = params.index(param) - offset
    if index < 0 or any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        return None
    return call.args[index] if index < len(call.args) else None


def _classes_of(path: str, tree, fn, arg) -> set:
    """(file, class name) for the classes `arg` is made from: `name = C(...)` in the calling
    function, or `self.X = C(...)`: in the caller's file when it binds `self.X` there, else in
    the project's files (a base class's `__init__`). Empty when one of those bindings is not a
    class called (`self.X = {}`, a parameter): the object may then be a plain dict."""
    if isinstance(arg, ast.Name):
        return _made(path, [n.value for n in ast.walk(fn) if isinstance(n, ast.Assign) and len(n.targets) == 1
                            and isinstance(n.targets[0], ast.Name) and n.targets[0].id == arg.id])
    if not (isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == "self"):
        return set()
    own = _self_bindings(tree, arg.attr)
    if own:
        return _made(path, own)
    needle = f"self.{arg.attr} = "
    out = set()
    for f in files_mentioning(os.path.join(project_root(path), "_"), needle.encode(), up=False):
        other = tree_of(f)[1]
        values = _self_bindings(other, arg.attr) if other is not None else []
        made = _made(f, values)
        if values and not made:
            return set()
        out |= made
    return out


def _self_bindings(tree, attr: str) -> list:
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Attribute) and n.targets[0].attr == attr
            and isinstance(n.targets[0].value, ast.Name) and n.targets[0].value.id == "self"]


def _made(path: str, values: list) -> set:
    """(path, class name) for each value, when every one is a class called; else empty."""
    names = [_class_name(v) for v in values]
    return set() if None in names else {(path, name) for name in names}


def _class_name(value) -> Optional[str]:
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Name):
            return func.id
        if isinstance(func, ast.Attribute):
            return func.attr
    return None


def _keeping_classes(path: str, made: set, meth: str, pos: int) -> list:
    """(class, file) of the project classes `made` names ((file, name): the class as that
    file imports or defines it, else any project class of that name) whose `meth` adds its
    argument at `pos` into `self` state, running no backward or step."""
    out = []
    for f, cls in sorted(made):
        summary, cls_file = find(f, f"{cls}.{meth}")
        found = [(summary, cls_file)] if summary is not None else \
            [(s, g) for name, s, g in classes_with_method(path, meth, whole=True) if name == cls]
        for summary, cls_file in found:
            if not summary.events and any(p == pos and whole for p, _, whole in summary.accum):
                out.append((cls, cls_file))
    return out
