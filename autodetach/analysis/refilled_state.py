"""A helper that backwards state which its callers rebuild before each call.

    def _backward(self, who):
        self._losses[who].backward(retain_graph=True)

    def fit(self, batches):
        for x in batches:
            for name in self.nets:
                self._losses = self.calculate_losses(x, who=name)   # out of sight (a subclass)
                self._backward(who=name)
                self._step(who=name)

The loss comes from `self._losses`, filled by code the walk cannot see, so
the walk finds no graph and keeps the retain. When every project call of the
helper follows, in its own block, a store of a new value in `self._losses`
(an empty container, or what a method of `self` returns) built from values of
that iteration only, and no backward of this file but the helper's reads that
state, each backward reads a new graph and nothing backwards the retained one
again: the retain keeps it in memory until the next store. That the new value
shares no graph with the old one (the filling code is out of sight) is
inferred, and the message says so. Call sites in other files are read with
stdlib `ast` (callers.py)."""
from __future__ import annotations

import ast
import os
from typing import Optional

import libcst as cst

from ..imports import dotted
from .callers import mentioning_trees
from .summaries import ast_dotted
from .walk import nodes, of_types

_BACKWARDS = ("backward", "manual_backward", "grad")
_EMPTY_CALLS = ("dict", "list", "OrderedDict", "defaultdict")
_CALLS = frozenset({cst.Call})
# methods of optimizers, modules and their dicts (`self.optimizers.items()`), taken to read no graph
_STATE_METHODS = ("zero_grad", "step", "parameters", "named_parameters", "train", "eval", "state_dict", "to",
                  "items", "keys", "values")
_LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def refilled(analysis, ev) -> Optional[list]:
    """Notes when `ev`'s loss is `self.X` (or an entry of it) and every project
    call of the method holding it rebuilds `self.X` first; None otherwise."""
    memo = analysis.table("_refilled")
    if ev.call not in memo:
        memo[ev.call] = _judge(analysis, ev)
    return memo[ev.call]


def _judge(analysis, ev) -> Optional[list]:
    ctx = analysis.ctx
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None or not ctx.path or not os.path.isfile(ctx.path) or ctx.enclosing(ev.call, _LOOPS, (cst.FunctionDef,)):
        return None  # a backward in a loop of its own may walk one graph many times
    if not isinstance(ctx.enclosing(fn, (cst.FunctionDef, cst.ClassDef)), cst.ClassDef):
        return None
    params = [p.name.value for p in fn.params.params]
    if not params or params[0] != "self":
        return None
    key = _state_key(ev.target_expr, set(params[1:]))
    if key is None or not _only_backwards_in(ctx, fn, ev):
        return None
    if any(e.call is ev.call and e.target.heads and not e.target.unknown for s in analysis.scopes for e in s.events):
        return None  # a walk sees the graph: its verdict stands
    name = fn.name.value
    sites, builders = [], set()
    for path, tree, parents in mentioning_trees(ctx.path, name):
        top = _module_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id == name:
                return None  # handed on or called unbound: calls out of sight
            if not (isinstance(node, ast.Attribute) and node.attr == name):
                continue
            found = _rebuilt_before(node, key, name, parents, top)
            if found is None:
                return None
            sites.append(f"{os.path.basename(path)}:{found[0].lineno}")
            builders |= found[1]
    if not sites or _builders_read_kept(ctx, builders, key):
        return None
    listed = ", ".join(sites[:4]) + (", ..." if len(sites) > 4 else "")
    return [f"the loss is read from `{key}`, which every project call of `{name}()` stores anew first "
            f"({listed}), from values of that iteration, with no backward of this file but this one reading it: "
            f"that what code out of sight fills it with shares no graph with earlier calls is inferred"]


def _state_key(target, params: set) -> Optional[str]:
    """"self.X" when the loss is `self.X` or `self.X[k]` with `k` a constant or a
    parameter of the method."""
    if isinstance(target, cst.Subscript):
        if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
            return None
        index = target.slice[0].slice.value
        if not (isinstance(index, (cst.SimpleString, cst.Integer)) or
                isinstance(index, cst.Name) and index.value in params):
            return None
        target = target.value
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
        return dotted(target)
    return None


def _only_backwards_in(ctx, fn, ev) -> bool:
    """Is every backward of this file inside `fn`, and every other one there
    in another arm of an `if` than `ev`'s (a call runs one of them)?"""
    for node in of_types(ctx.module, _CALLS):
        if not (isinstance(node.func, cst.Attribute)
                and node.func.attr.value in _BACKWARDS) or node is ev.call:
            continue
        if ctx.enclosing(node, cst.FunctionDef) is not fn or not _other_arm(ctx, node, ev.call):
            return False
    return True


def _other_arm(ctx, a, b) -> bool:
    arms = {}
    node = a
    while node is not None:
        up = ctx.parent(node)
        if isinstance(up, cst.If):
            arms[id(up)] = node is up.body
        node = up
    node = b
    while node is not None:
        up = ctx.parent(node)
        if isinstance(up, cst.If) and id(up) in arms and arms[id(up)] != (node is up.body):
            return True
        node = up
    return False


def _rebuilt_before(ref, key: str, name: str, parents, top: set):
    """The statement storing a new value in `key` before this call of the
    helper (`self.name(...)` as a statement), in the call's own block with no
    other call of the helper between; None when there is none."""
    call = parents.get(id(ref))
    if not isinstance(ref.value, ast.Name) or ref.value.id != "self" or not isinstance(call, ast.Call) \
            or call.func is not ref or not isinstance(parents.get(id(call)), ast.Expr):
        return None
    stmt = parents.get(id(call))
    holder = parents.get(id(stmt))
    body = next((b for b in (getattr(holder, f, None) for f in ("body", "orelse", "finalbody"))
                 if isinstance(b, list) and any(s is stmt for s in b)), None)
    if body is None:
        return None
    at = next(i for i, s in enumerate(body) if s is stmt)
    fresh = _loop_bound(stmt, parents) | top
    called: set = set()
    for earlier in reversed(body[:at + 1]):
        if earlier is not stmt and any(isinstance(x, ast.Attribute) and x.attr == name for x in ast.walk(earlier)):
            return None  # another call of the helper since the last store
        if not _reads_only(earlier, fresh, key):
            return None
        called |= {x.func.attr for x in ast.walk(earlier) if earlier is not stmt and isinstance(x, ast.Call)
                   and isinstance(x.func, ast.Attribute) and _on_self(x.func)}
        if _stores_new(earlier, key):
            return earlier, called
    return None


def _builders_read_kept(ctx, builders: set, key: str) -> bool:
    """Does a method of this file that fills the state (`calculate_losses`, and
    the methods of `self` it calls) read a `self.Y` that a method other than
    `__init__` stores (`self.feat = self.enc(x)` before the loop)? That value
    may carry a graph every call shares."""
    methods: dict = {}
    kept: set = set()
    for cls in (c for c in ctx.module.body if isinstance(c, cst.ClassDef)):
        for fn in (f for f in cls.body.body if isinstance(f, cst.FunctionDef)):
            methods.setdefault(fn.name.value, []).append(fn)
            if fn.name.value != "__init__":
                kept |= {dotted(t.target) for x in nodes(fn) if isinstance(x, cst.Assign) for t in x.targets
                         if isinstance(t.target, cst.Attribute)}
    kept.discard(key)
    todo, seen = list(builders), set()
    while todo and len(seen) < 20:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for fn in methods.get(name, ()):
            for x in nodes(fn):
                if isinstance(x, cst.Attribute) and isinstance(x.value, cst.Name) and x.value.value == "self":
                    if dotted(x) in kept and _data_read(ctx, x):
                        return True
                    todo.append(x.attr.value)
    return False


def _data_read(ctx, attr) -> bool:
    """Is `self.Y` read as a value (`self.feat * x`, `self.feat.mean()`), not
    called (`self.nets["g"](z)`) or stepped (`self.optimizers[who].zero_grad()`)?"""
    node, up = attr, ctx.parent(attr)
    while isinstance(up, cst.Subscript) and up.value is node:
        node, up = up, ctx.parent(up)
    if isinstance(up, cst.Call) and up.func is node:
        return False
    if isinstance(up, cst.Attribute) and up.value is node and up.attr.value in _STATE_METHODS:
        call = ctx.parent(up)
        return not (isinstance(call, cst.Call) and call.func is up)
    return True


def _stores_new(stmt, key: str) -> bool:
    """`self.X = {}`, `self.X = self.build(...)`."""
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or ast_dotted(stmt.targets[0]) != key:
        return False
    value = stmt.value
    if isinstance(value, ast.Dict) and not value.keys or isinstance(value, (ast.List, ast.Tuple)) and not value.elts:
        return True
    if isinstance(value, ast.Constant) and value.value is None:
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _EMPTY_CALLS:
        return not value.args
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
        isinstance(value.func.value, ast.Name) and value.func.value.id == "self"


def _reads_only(stmt, fresh: set, key: str) -> bool:
    """Does the statement read only names bound in the loops around the call
    (or at module level) and no `self` state but through method calls? A
    value kept from before the loop could carry a graph every iteration shares."""
    callee = {id(n.func) for n in ast.walk(stmt) if isinstance(n, ast.Call)}
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id != "self" \
                and id(node) not in callee and node.id not in fresh:
            return False
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
                and isinstance(node.ctx, ast.Load) and id(node) not in callee and ast_dotted(node) != key:
            return False
    return True


def _loop_bound(stmt, parents) -> set:
    """Names bound inside the loops of the function around `stmt` (their
    targets and what their bodies assign)."""
    out: set = set()
    node = parents.get(id(stmt))
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(node, (ast.For, ast.While)):
            for x in ast.walk(node):
                if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store):
                    out.add(x.id)
        node = parents.get(id(node))
    return out


def _module_names(tree) -> set:
    out: set = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
        elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            out.add(stmt.name)
    return out | {"print", "len", "range", "True", "False", "None"}


def _on_self(attr) -> bool:
    return isinstance(attr.value, ast.Name) and attr.value.id == "self"
