"""Does `out.attr` hold a Python number wherever the project stores it? An object
a project class hands back (`r = Output(...)` in a model's forward) holds what
the class stores there: when every store of `.attr` in the project's files is a
number, the read carries no graph, whatever graph the object's other fields hold.

    class Output:
        def __init__(self, loss=0, loss_value: float = 0):
            self.loss = loss
            self.loss_value = loss_value          # a parameter: read at every `Output(...)`

    r = Output(states)                             # loss_value not passed: its default, 0
    r.loss += nll                                  # a tensor with a graph
    r.loss_value += nll.item()                     # a float

A store counts as a number when its value is a number literal, `x.item()`,
`float(...)`, `int(...)`, `len(...)`, `round(...)`, arithmetic of numbers, or
an augmented assignment (`+=`) of one; or a parameter of the class's
`__init__` whose default is a number literal, and every call of the class in the
project's files (`Output(...)`, the files that name it) leaves it to the
default or passes a number. A store of any other value, by name (`setattr`, a
property of that name), or through a tuple target makes the answer no. Only
attributes some file stores at all count (at least one store)."""
from __future__ import annotations

import ast
import os

from .callers import tree_of
from .plain_attributes import _BY_NAME, _stores
from .project_index import files_mentioning
from .summaries import parse_text

NUMBER_CALLS = ("float", "int", "len", "round", "abs")


def number_attribute(analysis, attr: str) -> bool:
    """Is every store of `<x>.<attr>` in the project a number (see the module's doc)?"""
    memo = analysis.table("number_attributes")
    if attr not in memo:
        memo[attr] = _numbers(analysis.ctx, attr)
    return memo[attr]


def _sources(ctx, needle: str) -> list:
    own = ctx.text.decode("utf-8", errors="replace") if isinstance(ctx.text, bytes) else ctx.text
    out = [(own, None)]
    path = getattr(ctx, "path", None)
    if path and path != "<string>":
        here = os.path.abspath(path)
        out += [tree_of(f) for f in files_mentioning(path, needle.encode()) if os.path.abspath(f) != here]
    return out


def _tree(text, tree):
    if tree is not None:
        return tree
    try:
        return parse_text(text)
    except RecursionError:
        return None


def _numbers(ctx, attr: str) -> bool:
    stores = 0
    quoted = (f'"{attr}"', f"'{attr}'")
    for text, tree in _sources(ctx, f".{attr}"):
        if text is None:
            continue
        if any(q in text for q in quoted) and any(b in text for b in _BY_NAME) or f"def {attr}(" in text:
            return False
        if f".{attr}" not in text:
            continue
        tree = _tree(text, tree)
        if tree is None:
            return False
        parents = None
        for node in ast.walk(tree):
            for target, value in _stores(node):
                if isinstance(target, ast.Attribute) and target.attr == attr:
                    if value is None or isinstance(node, ast.AugAssign) and not isinstance(node.op, (
                            ast.Add, ast.Sub, ast.Mult, ast.Div)):
                        return False
                    parents = parents or {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
                    if not _number(value, _scope(parents, node)):
                        if not _number_param(ctx, tree, parents, node, value):
                            return False
                    stores += 1
                elif target is not None and isinstance(target, (ast.Tuple, ast.List)) and any(
                        isinstance(e, ast.Attribute) and e.attr == attr for e in ast.walk(target)):
                    return False
    return stores > 0


def _number(value, scope=None, seen=frozenset()) -> bool:
    """A number: a literal, `x.item()`, `float(...)`, a size (`t.size(0)`, `t.shape[0]`, `t.numel()`),
    arithmetic of numbers, or a name every assignment of which in `scope` (the function) is one."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        return _number(value.operand, scope, seen)
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (int, float)) and not isinstance(value.value, bool) or value.value is None
    if isinstance(value, ast.BinOp):
        return _number(value.left, scope, seen) and _number(value.right, scope, seen)
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Attribute) and value.value.attr == "shape":
        return True
    if isinstance(value, ast.Call):
        if isinstance(value.func, ast.Attribute) and value.func.attr in ("item", "numel", "dim") and not value.args:
            return True
        if isinstance(value.func, ast.Attribute) and value.func.attr == "size" and len(value.args) == 1:
            return True
        return isinstance(value.func, ast.Name) and value.func.id in NUMBER_CALLS
    if isinstance(value, ast.Name) and scope is not None and value.id not in seen:
        binds = []
        for n in ast.walk(scope):
            if isinstance(n, ast.Name) and n.id == value.id and isinstance(n.ctx, ast.Store):
                binds.append(n)
        assigns = [n for n in ast.walk(scope) if isinstance(n, ast.Assign) and len(n.targets) == 1 and
                   isinstance(n.targets[0], ast.Name) and n.targets[0].id == value.id]
        params = {a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg)} \
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else set()
        return bool(assigns) and len(assigns) == len(binds) and value.id not in params and \
            all(_number(a.value, scope, seen | {value.id}) for a in assigns)
    return False


def _scope(parents, node):
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        node = parents.get(id(node))
    return node


def _number_param(ctx, tree, parents, store, value) -> bool:
    """`self.a = a` in `C.__init__`, `a`'s default a number literal, and every call `C(...)` the
    project's files show leaves `a` to its default or passes a number."""
    if not isinstance(value, ast.Name) or not isinstance(store, (ast.Assign, ast.AnnAssign)):
        return False
    fn = parents.get(id(store))
    if not isinstance(fn, ast.FunctionDef) or fn.name != "__init__":
        return False  # `self.a = a` at the top of `__init__`'s body only: nothing rebinds it before
    cls = parents.get(id(fn))
    if not isinstance(cls, ast.ClassDef):
        return False
    args = fn.args
    if any(isinstance(n, ast.Name) and n.id == value.id and isinstance(n.ctx, ast.Store) for n in ast.walk(fn)):
        return False
    pos = [a.arg for a in args.posonlyargs + args.args]
    defaults = dict(zip(pos[len(pos) - len(args.defaults):], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    if value.id not in defaults or not _number(defaults[value.id]):
        return False
    index = pos.index(value.id) - 1 if value.id in pos else None  # without `self`
    calls = 0
    for text, other in _sources(ctx, f"{cls.name}("):
        if text is None or f"{cls.name}(" not in text:
            continue
        other = _tree(text, other)
        if other is None:
            return False
        for node in ast.walk(other):
            if not isinstance(node, ast.Call) or not (isinstance(node.func, ast.Name) and node.func.id == cls.name or
                                                      isinstance(node.func, ast.Attribute) and
                                                      node.func.attr == cls.name):
                continue
            calls += 1
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                return False
            passed = [k.value for k in node.keywords if k.arg == value.id]
            if index is not None and index < len(node.args):
                passed.append(node.args[index])
            if not all(_number(p) for p in passed):
                return False
    return calls > 0
