"""Stores under tests that no iteration changes.

`if self.cfg.rec_weight > 0: self.loss_dict['rec'] = ...` in a training loop:
the walk joins "the arm ran" with "it did not", so in the second iteration
the entry may still be the first iteration's. But the test reads only
configuration that the loop never assigns: if the arm ran once, it runs
every time and replaces the entry, so no graph crosses iterations there.
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
    loop = _loop_between(scope, old.iteration, second.tag)
    if loop is None or not old.branch or not old.name:
        return False
    for if_id, _ in old.branch:
        stmt = scope.branch_nodes.get(if_id)
        fresh = set(scope.fresh.get(id(loop), ()))
        if not isinstance(stmt, cst.If) or not _inside(stmt, loop) or not _invariant(stmt, loop, fresh):
            return False
    # the same statement stores again in the later iteration, not from the old value (`h = h * 0.9 + x`)
    again = [n for n in scope.nodes if n.stmt is old.stmt and n.name == old.name and n is not old
             and not _earlier(n.iteration, second.tag)]
    return bool(again) and not any(old in closure(n.parents) for n in again)


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
    out = set()
    targets = [loop.target] if isinstance(loop, cst.For) else []
    for n in nodes(loop.body, skip=_SKIP):
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
