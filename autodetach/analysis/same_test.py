"""Two `if`s on one fixed test take the same arm: values follow their arm.

    if self.model.recurrent:
        memory = exps.memory[inds]            # set again each batch
    for i in range(n):
        if self.model.recurrent:
            dist, value, memory = self.model(obs, memory)   # read here
        else:
            dist, value = self.model(obs)

The flow walk joins the arms of the first `if`, so in the second `memory`
seemed to be either the fresh value or the one the previous batch left (a
graph kept across iterations). When both tests are the same text and read
only names the walked function never rebinds (`self.model.recurrent`, an
argument, a name bound once at the function's top level), the arm taken is
the same: at the start of an arm of the second `if`, a name that still holds
the value the first `if`'s join made gets back the value the same arm gave
it. Tests with calls, subscripts or loop variables are not matched (flow.py
calls `chain`, `restore` and `record` from `branch_run`).
"""
from __future__ import annotations

import dataclasses
from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes


def _targets(node) -> list:
    """Dotted names an assignment-like node binds (tuple targets unpacked)."""
    if type(node) in (cst.Tuple, cst.List):
        return [name for elem in node.elements for name in _targets(elem.value)]
    if type(node) is cst.StarredElement:
        return _targets(node.value)
    key = dotted(node)
    return [key] if key else []


# what each binding node binds, by exact type (libcst's concrete node classes have no
# subclasses; `isinstance` against them goes through ABCMeta, the bulk of this walk's cost)
_BINDS = {
    cst.AssignTarget: lambda node: _targets(node.target),
    cst.AugAssign: lambda node: _targets(node.target),
    cst.AnnAssign: lambda node: _targets(node.target),
    cst.For: lambda node: _targets(node.target),
    cst.CompFor: lambda node: _targets(node.target),
    cst.AsName: lambda node: _targets(node.name),
    cst.NamedExpr: lambda node: _targets(node.target),
    cst.FunctionDef: lambda node: [node.name.value],
    cst.ClassDef: lambda node: [node.name.value],
    cst.Global: lambda node: [item.name.value for item in node.names],
    cst.Nonlocal: lambda node: [item.name.value for item in node.names],
}


def _assigned(body) -> tuple:
    """(every dotted name the statements bind, with a count; the names bound
    once by a plain `x = ...` directly in the body)."""
    counts: dict = {}
    top: set = set()
    binds = _BINDS.get
    for stmt in body:
        for node in nodes(stmt):
            get = binds(type(node))
            if get is None:
                continue
            for key in get(node):
                counts[key] = counts.get(key, 0) + 1
        if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and \
                type(stmt.body[0]) is cst.Assign:
            for target in stmt.body[0].targets:
                if type(target.target) is cst.Name:
                    top.add(target.target.value)
    return counts, top


_OPAQUE = (cst.Call, cst.Subscript, cst.Lambda, cst.NamedExpr, cst.Await, cst.BaseComp)
# type -> isinstance(node, _OPAQUE): libcst's node classes are ABCs, whose isinstance
# runs Python code for every node not of the exact class
_OPAQUE_TYPES: dict = {}


def _stable(test, counts: dict, top: set) -> bool:
    """Does `test` read only names the body does not rebind between two runs of it?"""
    for node in nodes(test):
        t = type(node)
        opaque = _OPAQUE_TYPES.get(t)
        if opaque is None:
            opaque = _OPAQUE_TYPES[t] = isinstance(node, _OPAQUE)
        if opaque:
            return False
    reads = [node for node in nodes(test) if type(node) in (cst.Name, cst.Attribute)]
    for node in reads:
        key = dotted(node)
        if key is None:
            return False
        parts = key.split(".")
        for end in range(1, len(parts) + 1):
            prefix = ".".join(parts[:end])
            n = counts.get(prefix, 0)
            if n == 0 or prefix in ("True", "False", "None"):
                continue
            if not (end == 1 and n == 1 and prefix in top):
                return False
    return True


def chain(scope, stmt) -> Optional[tuple]:
    """The texts of an `if`/`elif` chain whose tests are all stable in the
    walked function, or None."""
    if not isinstance(stmt, cst.If):
        return None
    memo = scope.analysis.table("_same_test")
    key = (id(scope.body), id(stmt))
    if key not in memo:
        body_key = ("body", id(scope.body))
        if body_key not in memo:
            inside = {id(node) for stmt_ in scope.body for node in nodes(stmt_)}
            memo[body_key] = (scope.body, inside, _assigned(scope.body))
        _, inside, (counts, top) = memo[body_key]
        func = None if id(stmt) in inside else _enclosing(scope, stmt)
        if func is not None:
            # an `if` of a function walked inline (`self._train_gan(cls)` from `train()`):
            # stable in one run of that function, its parameters bound once by the call
            func_key = ("func", id(func))
            if func_key not in memo:
                memo[func_key] = (func, {id(node) for node in nodes(func.body)}, _assigned(func.body.body))
            _, inside, (counts, top) = memo[func_key]
        tests, cur = [], stmt
        while isinstance(cur, cst.If):
            tests.append(cur.test)
            cur = cur.orelse
        ok = id(stmt) in inside and all(_stable(test, counts, top) for test in tests)
        code = scope.analysis.ctx.code
        memo[key] = (stmt, tuple(code(test).strip() for test in tests) if ok else None)
    return memo[key][1]


def other_arms(scope, stmt, key: tuple, arm: int) -> None:
    """At the start of arm `arm` of `stmt` (a stable chain, `key`), inside a loop of the
    function the test is stable in: drop from each name the values made in another arm of
    this same `if` by an earlier iteration of that loop in this run of the function."""
    inside = _stable_in(scope, stmt)
    if inside is None:
        return
    # the outermost loop walked now that lies in that function: values made since it began
    # come from this run of the function (a function walked inline at two calls may see
    # other parameters at each)
    func = _enclosing(scope, stmt)
    loop = next((loop for loop, _ in scope.loop_stack if id(loop) in inside and
                 (func is None or _enclosing(scope, loop) is func)), None)
    # A loop of another function (a caller's, where the test's names are arguments that may change
    # per call) does not repeat one arm; nor does one whose iterations may skip the `if`.
    if loop is None or _skips(loop):
        return
    start = scope.loop_start.get(id(loop))
    if start is None:
        return
    ident = id(stmt)
    for name, val in list(scope.env.items()):
        heads = val.heads
        if not heads or val.elems is not None or val.entries is not None:
            continue
        keep = frozenset(h for h in heads if h.seq <= start or not any(b == ident and a != arm for b, a in h.branch))
        if len(keep) == len(heads):
            continue
        note = f"the `if` on `{' / '.join(key)}` takes the same arm in every iteration (its names are not " \
            f"rebound in `{scope.name}()`)"
        if note not in scope.arm_notes:
            scope.arm_notes.append(note)
        scope.env[name] = dataclasses.replace(val, heads=keep, uses={h: r for h, r in val.uses.items() if h in keep})


def _skips(loop) -> bool:
    """Can an iteration of `loop` end early (`continue`, `break`, `return`, `raise`)?"""
    return any(type(n) in (cst.Continue, cst.Break, cst.Return, cst.Raise)
               for n in nodes(loop.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)))


def _stable_in(scope, stmt) -> Optional[set]:
    """The ids of the nodes of the body `chain` found `stmt`'s tests stable in."""
    memo = scope.analysis.table("_same_test")
    body = memo.get(("body", id(scope.body)))
    if body is not None and id(stmt) in body[1]:
        return body[1]
    func = _enclosing(scope, stmt)
    found = memo.get(("func", id(func))) if func is not None else None
    return found[1] if found is not None else None


def _enclosing(scope, stmt) -> Optional[cst.FunctionDef]:
    """The innermost function of the file holding `stmt` (built once per file)."""
    memo = scope.analysis.table("_same_test_funcs")
    if not memo:
        memo[None] = None
        for func in nodes(scope.analysis.ctx.module):
            if isinstance(func, cst.FunctionDef):
                for node in nodes(func.body):
                    memo[id(node)] = func  # pre-order: an inner function's nodes are mapped last
    return memo.get(id(stmt))


def restore(scope, key: tuple, arm: int) -> None:
    """At the start of arm `arm`: names still holding an earlier same-test
    join get the value that arm gave them."""
    for name, (joined, vals) in scope.same_arms.get(key, {}).items():
        if arm in vals and scope.env.get(name) is joined:
            if joined.heads - vals[arm].heads:
                note = f"the `if`s on `{' / '.join(key)}` take the same arm (its names are not rebound in " \
                    f"`{scope.name}()`)"
                if note not in scope.arm_notes:
                    scope.arm_notes.append(note)
            scope.env[name] = vals[arm]


def record(scope, key: tuple, arms: list, envs: list, merged: dict) -> None:
    """After the join: per name the arms disagree on, the joined value and each arm's."""
    store = scope.same_arms.setdefault(key, {})
    for name, joined in merged.items():
        vals = {arm: env[name] for arm, env in zip(arms, envs) if name in env}
        if len(vals) == len(arms) and len({id(val) for val in vals.values()}) > 1:
            store[name] = (joined, vals)
