"""Stores under tests that no iteration changes.

`if self.cfg.rec_weight > 0: self.loss_dict['rec'] = ...` in a training loop:
the walk joins "the arm ran" with "it did not", so in the second iteration
the entry may still be the first iteration's. But the test reads only
configuration that the loop never assigns: if the arm ran once, it runs
every time and replaces the entry, so no graph crosses iterations there.

The same holds for a store made after the backward that reads it
(`if self.autotune: self.alpha = self.log_alpha.exp()` at the end of a step)
when the iteration in between stores again before the read, and for a test in
a method the loop calls: it stays fixed when neither the loop nor a function
it calls assigns what the test reads.
"""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .graph import closure
from .walk import nodes

_SKIP = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def replaced_each_iteration(scope, conflict) -> bool:
    """Does the conflict cross iterations only through a store that every
    iteration makes again, under `if` tests that are the same in each?"""
    second = conflict.second
    olds = [n for n in conflict.path if n.stmt is not None and _earlier(n.iteration, second.tag)]
    if not olds:
        return False
    old = olds[0]
    if not old.branch or not old.name:
        return False
    # the same statement stores again in the later iteration, not from the old value (`h = h * 0.9 + x`)
    again = [n for n in scope.nodes if n.stmt is old.stmt and n.name == old.name and n is not old
             and not _earlier(n.iteration, second.tag)]
    if again and not any(old in closure(n.parents) for n in again):
        loop = _loop_between(scope, old.iteration, second.tag)
        if loop is not None and _arms_fixed(scope, old, loop):
            return True
    # or in an iteration between the store and the one that reads it
    reader = _reader(conflict.path, old)
    if reader is None:
        return False
    for n in scope.nodes:
        if n.stmt is old.stmt and n.name == old.name and n is not old and _earlier(old.iteration, n.iteration) \
                and _earlier(n.iteration, reader.iteration) and old not in closure(n.parents):
            loop = _loop_between(scope, old.iteration, n.iteration)
            if loop is not None and _arms_fixed(scope, old, loop):
                return True
    return False


def _reader(path: list, old):
    """The node of the path that reads the old store (the one right above it)."""
    for above, node in zip(path, path[1:]):
        if node is old:
            return above
    return None


def _arms_fixed(scope, old, loop) -> bool:
    """Every `if` the store sits under takes the same arm in each iteration of
    `loop`: inside it, or in a function it calls (outside any loop of that
    function), testing what neither assigns, with no `continue`/`break` that
    could skip the store in one iteration."""
    if any(isinstance(n, (cst.Continue, cst.Break)) for n in nodes(loop.body, skip=_SKIP + (cst.For, cst.While))):
        return False
    fresh = set(scope.fresh.get(id(loop), ()))
    called = None
    for if_id, _ in old.branch:
        stmt = scope.branch_nodes.get(if_id)
        if not isinstance(stmt, cst.If):
            return False
        if _encloses(scope.analysis.ctx, stmt, loop):
            continue  # an `if` around the loop: one test for the whole run the two stores are in
        if _inside(stmt, loop):
            extra = set()
        else:
            func = scope.analysis.ctx.enclosing(stmt, (cst.FunctionDef,))
            if func is None or _returns_before(func, stmt) or not _reads_self_only(stmt) \
                    or scope.analysis.ctx.enclosing(stmt, (cst.For, cst.While), stop=(cst.FunctionDef,)) is not None:
                return False
            if called is None:
                called = _called_functions(scope.analysis.ctx.module, loop)
            if not any(f is func for f in called):
                return False
            extra = set().union(*(_assigned_in(f.body) for f in called))
        if not _invariant(stmt, loop, fresh | extra):
            return False
    return True


def _encloses(ctx, stmt: cst.If, loop) -> bool:
    """Does the loop run inside an arm of `stmt`: written there, or in the
    function a call there makes (`if self.global_step > start: self.update()`)?"""
    inner = list(nodes(stmt))
    if any(n is loop for n in inner):
        return True
    func = ctx.enclosing(loop, (cst.FunctionDef,))
    if func is None or ctx.enclosing(stmt, (cst.FunctionDef,)) is func:
        return False
    name = func.name.value
    return any(isinstance(n, cst.Call) and (isinstance(n.func, cst.Name) and n.func.value == name or
                                            isinstance(n.func, cst.Attribute) and n.func.attr.value == name)
               for n in inner)


def _reads_self_only(stmt: cst.If) -> bool:
    """Tests that read only `self.X` (a callee's arguments may differ per call)."""
    cur, keys = stmt, set()
    while isinstance(cur, cst.If):
        found = list(nodes(cur.test, skip=_SKIP))
        attrs = {id(n.attr) for n in found if isinstance(n, cst.Attribute)}
        keys |= {dotted(n) for n in found if isinstance(n, (cst.Name, cst.Attribute)) and id(n) not in attrs}
        cur = cur.orelse
    keys.discard(None)
    return bool(keys) and all(k == "self" or k.startswith("self.") for k in keys)


def _returns_before(func, stmt) -> bool:
    """A `return` or `raise` the function may take before it reaches `stmt`."""
    for n in nodes(func.body, skip=_SKIP):
        if n is stmt:
            return False
        if isinstance(n, (cst.Return, cst.Raise)):
            return True
    return True


def _called_functions(module, loop) -> list:
    """The functions and methods of this file a loop calls by name
    (`helper(...)`, `self.method(...)`), and those they call in turn."""
    defs: dict = {}
    for n in nodes(module, skip=(cst.Lambda,)):
        if isinstance(n, cst.FunctionDef):
            defs.setdefault(n.name.value, []).append(n)
    out, todo, seen = [], [loop.body], set()
    while todo:
        body = todo.pop()
        for n in nodes(body, skip=(cst.ClassDef, cst.Lambda)):
            if not isinstance(n, cst.Call):
                continue
            func = n.func
            name = func.value if isinstance(func, cst.Name) else \
                func.attr.value if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) else None
            if name is None or name in seen:
                continue
            seen.add(name)
            for fn in defs.get(name, ()):
                out.append(fn)
                todo.append(fn.body)
    return out


def _earlier(tag: tuple, later: tuple) -> bool:
    """Is `tag` from an earlier iteration of a loop `later` runs in?"""
    for (loop, it), (loop2, it2) in zip(tag, later):
        if loop != loop2:
            return False
        if it < it2:
            return True
    return False


def _loop_between(scope, tag: tuple, later: tuple):
    for (loop, it), (_, it2) in zip(tag, later):
        if it < it2:
            return scope.loops.get(loop)
    return None


def _inside(stmt, loop) -> bool:
    return any(n is stmt for n in nodes(loop.body, skip=_SKIP))


def _invariant(stmt: cst.If, loop, fresh: set) -> bool:
    """Every test of the `if`/`elif` chain reads names and attributes (no
    calls, no subscripts) that the loop never assigns (`fresh`: what each
    iteration binds anew, a step method's arguments)."""
    assigned = _assigned(loop) | fresh
    test_nodes = []
    cur = stmt
    while isinstance(cur, cst.If):
        test_nodes.append(cur.test)
        cur = cur.orelse
    for test in test_nodes:
        if any(isinstance(n, (cst.Call, cst.Subscript, cst.NamedExpr, cst.Await)) for n in nodes(test, skip=_SKIP)):
            return False
        keys = {dotted(n) for n in nodes(test, skip=_SKIP) if isinstance(n, (cst.Name, cst.Attribute))} - {None}
        keys = {k for k in keys if not any(other.startswith(k + ".") for other in keys)}  # whole chains only
        if any(key == a or key.startswith(a + ".") or a.startswith(key + ".") for key in keys for a in assigned):
            return False
    return True


def _assigned(loop) -> set:
    """Dotted names the loop binds or stores into (its target included)."""
    return _assigned_in(loop.body, [loop.target] if isinstance(loop, cst.For) else [])


def _assigned_in(body, targets=None) -> set:
    out = set()
    targets = list(targets or [])
    for n in nodes(body, skip=_SKIP):
        if isinstance(n, cst.AssignTarget):
            targets.append(n.target)
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign)):
            targets.append(n.target)
        elif isinstance(n, (cst.For, cst.CompFor)):
            targets.append(n.target)
        elif isinstance(n, cst.WithItem) and n.asname is not None:
            targets.append(n.asname.name)
    for target in targets:
        out |= _keys(target)
    return out


def _keys(target) -> set:
    if isinstance(target, (cst.Tuple, cst.List)):
        return {k for e in target.elements for k in _keys(e.value)}
    if isinstance(target, cst.StarredElement):
        return _keys(target.value)
    if isinstance(target, cst.Subscript):
        target = target.value
    key = dotted(target) if isinstance(target, (cst.Name, cst.Attribute)) else None
    return {key} if key else set()
