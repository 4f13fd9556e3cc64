"""Which project callers of a method can run on an instance of its class.

    class WeightMethod:
        def backward(self, losses):
            loss = self.get_weighted_loss(losses)    # a caller by name only
            loss.backward()

    class CAGrad(WeightMethod):
        def get_weighted_loss(self, losses): ...     # the method asked about
        def backward(self, losses): ...              # overrides the caller

`WeightMethod.backward` calls `self.get_weighted_loss`, but on a `CAGrad`
(or a subclass of it) `backward` is `CAGrad.backward`: the base's body never
runs with that `self` unless something calls it through `super()`. Read
with stdlib `ast`, in each file that holds a caller, from the classes of
that file by their names (a copy of the module elsewhere in the project
holds the same classes)."""
from __future__ import annotations

import ast
import os

import libcst as cst

from .callers import parsed
from .project_index import files_mentioning

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def unreachable_callers(ctx, fn: cst.FunctionDef):
    """A test `skip(caller, calls)` for callers (ast functions, from
    `callers.callers`) that cannot run with `self` an instance of `fn`'s
    class; None when `fn` is not a method of a class."""
    cls = ctx.enclosing(fn, cst.ClassDef)
    if cls is None or not ctx.path:
        return None
    name = fn.name.value
    paths = list(files_mentioning(ctx.path, f"{name}(".encode()))
    if os.path.realpath(ctx.path) not in {os.path.realpath(p) for p in paths}:
        paths.append(ctx.path)
    unreachable: set = set()
    for _, tree in parsed(paths, must=f"{name}("):
        unreachable |= _unreachable(tree, cls.name.value)
    return lambda caller, calls: id(caller) in unreachable and all(_on_self(c) for c in calls)


def _unreachable(tree, mine: str) -> set:
    """ids of the methods of this file's classes whose `self` cannot be an
    instance of class `mine`: those of its ancestors that `mine` overrides
    (and nothing calls through `super()`), and every method of a class
    unrelated to it (built on nothing, or only on such classes of this file,
    and with no subclass here that could mix the two)."""
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    out = set()
    cls = classes.get(mine)
    if cls is not None:
        own = {item.name for item in cls.body if isinstance(item, _DEFS)}
        supers = _super_calls(tree)
        for base in _ancestors(cls, classes):
            for item in classes[base].body:
                if isinstance(item, _DEFS) and item.name in own and item.name not in supers:
                    out.add(id(item))
    derived = {b.id for node in classes.values() for b in node.bases if isinstance(b, ast.Name)}
    for name, node in classes.items():
        if name != mine and name not in derived and _unrelated(node, classes, mine, 0):
            out |= {id(item) for item in node.body if isinstance(item, _DEFS)}
    return out


def _unrelated(cls, classes, mine: str, depth: int) -> bool:
    """Is `cls` built on nothing but `object` and classes of this file that
    are not `mine` (so no instance of it is one of `mine`)?"""
    for base in cls.bases:
        name = base.id if isinstance(base, ast.Name) else None
        if name == "object":
            continue
        if name is None or name == mine or name not in classes or depth > 5:
            return False
        if not _unrelated(classes[name], classes, mine, depth + 1):
            return False
    return not cls.keywords


def _on_self(call) -> bool:
    return isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and \
        call.func.value.id == "self"


def _ancestors(cls, classes) -> set:
    """Names of the classes of this file that `cls` inherits from."""
    out: set = set()
    stack = [cls]
    while stack:
        node = stack.pop()
        for base in node.bases:
            name = base.id if isinstance(base, ast.Name) else None
            if name in classes and name not in out:
                out.add(name)
                stack.append(classes[name])
    return out


def _super_calls(tree) -> set:
    """Method names called through `super()` anywhere in the file."""
    return {node.func.attr for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Call) and isinstance(node.func.value.func, ast.Name)
            and node.func.value.func.id == "super"}
