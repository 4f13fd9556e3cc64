"""Conflicts the walk joins from paths that cannot run together.

Arms whose tests contradict on values the function never rebinds:

    if not c.separate_stopnet and c.stopnet:
        loss += stop_loss
    loss.backward()
    ...
    if c.separate_stopnet:
        stop_loss.backward()      # only when loss did not take stop_loss in

A name that no code before the loop binds, read after `if`s whose tests the loop
never changes:

    for x in loader:
        if cfg.loss == "hinge":
            d_loss = f(x)
        elif cfg.loss == "standard":
            pass                  # d_loss unbound: the first iteration raises
        d_loss = d_loss / k       # so no iteration reads the previous one's
        d_loss.backward()

Every iteration takes the same arms, and the first one binds the name before the
read on that path (or raises), so the read never sees an earlier iteration's value.
"""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .bindings import target_names
from .invariant import _SKIP, _earlier, _invariant, _keys, _loop_between
from .walk import nodes


def infeasible(analysis, scope, conflict) -> bool:
    return _contradicting_arms(analysis, scope, conflict) or _unbound_before_loop(analysis, scope, conflict) or \
        _slot_per_iteration(conflict)


# ------------------------------------------------------------ one slot per iteration
def _slot_per_iteration(conflict) -> bool:
    """`losses[i - 1].backward(); losses[i] = step(...); i += 1`: each iteration
    fills a new slot of the list and backwards the one the previous iteration
    filled, which no backward has walked yet. The walk keeps the list as one
    value, so the slot read looks like every earlier slot (a leak, not a conflict)."""
    receiver = conflict.second.call.func.value if isinstance(conflict.second.call, cst.Call) and \
        isinstance(conflict.second.call.func, cst.Attribute) else None
    read = _counter_slot(receiver)
    if read is None or not conflict.links or not conflict.second.loops:
        return False
    key, counter, back = read
    if back < 1:
        return False
    # the backward enters the older graphs only through the list itself, stored slot by slot
    through = [n for n in conflict.path if n not in conflict.links]
    if not through or any(n.name != key or n.kind != "container" or not any(
            isinstance(t, cst.Subscript) and dotted(t.value) == key and _counter_slot(t) in ((key, counter, 0), None)
            for t in _item_targets(n.stmt)) for n in through):
        return False
    return _counted_once(conflict.second.loops[-1], counter)


def slot_read(event, key: str) -> bool:
    """The backward reads one earlier slot of `key` (`losses[i - 1].backward()`), filled
    by an earlier iteration of its loop, which adds 1 to `i` once: it consumes that
    slot only, and the list keeps every other one."""
    call = event.call
    receiver = call.func.value if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) else None
    read = _counter_slot(receiver)
    return read is not None and read[0] == key and read[2] >= 1 and bool(event.loops) and \
        _counted_once(event.loops[-1], read[1])


def _counter_slot(expr):
    """(`losses`, `i`, k) for `losses[i - k]` (k = 0 for `losses[i]`), else None."""
    if not isinstance(expr, cst.Subscript) or len(expr.slice) != 1 or \
            not isinstance(expr.slice[0].slice, cst.Index):
        return None
    key, index = dotted(expr.value), expr.slice[0].slice.value
    if key is None:
        return None
    if isinstance(index, cst.Name):
        return key, index.value, 0
    if isinstance(index, cst.BinaryOperation) and isinstance(index.operator, cst.Subtract) and \
            isinstance(index.left, cst.Name) and isinstance(index.right, cst.Integer):
        return key, index.left.value, int(index.right.value)
    return None


def _item_targets(stmt) -> list:
    out = []
    for n in nodes(stmt) if stmt is not None else ():
        if isinstance(n, cst.AssignTarget):
            t = n.target
            out += [e.value for e in t.elements] if isinstance(t, (cst.Tuple, cst.List)) else [t]
    return out


def _counted_once(loop, counter: str) -> bool:
    """The loop's body adds 1 to `counter` once, at its top level, and binds it nowhere else."""
    body = list(loop.body.body) if isinstance(loop.body, cst.IndentedBlock) else []
    steps = [small for stmt in body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body
             if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and
             small.target.value == counter and isinstance(small.operator, cst.AddAssign) and
             isinstance(small.value, cst.Integer) and small.value.value == "1"]
    binds = [n for n in nodes(loop.body) if isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.For)) and
             counter in target_names(n.target)]
    return len(steps) == 1 and len(binds) == 1


# ------------------------------------------------------------ contradicting arms
def _read(test):
    """(facts the test's truth implies, whether those facts are all it says),
    or None. Only a test read whole may be negated: the else of
    `i > 0 and train` says nothing about `train`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _read(test.expression)
        if inner is None or not inner[1] or len(inner[0]) != 1:
            return None
        return {k: not v for k, v in inner[0].items()}, True
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        left, right = _read(test.left), _read(test.right)
        if left is None and right is None:
            return None
        whole = left is not None and right is not None and left[1] and right[1]
        return {**(left[0] if left else {}), **(right[0] if right else {})}, whole
    key = dotted(test) if isinstance(test, (cst.Name, cst.Attribute)) else None
    return ({key: True}, True) if key else None


def _arm_facts(stmt, arm: int) -> dict:
    """What taking arm `arm` of the `if`/`elif` chain implies about its atoms."""
    tests, cur = [], stmt
    while isinstance(cur, cst.If):
        tests.append(cur.test)
        cur = cur.orelse
    out: dict = {}
    for i, test in enumerate(tests[:arm + 1]):
        found = _read(test)
        if found is None:
            continue
        lits, whole = found
        if i == arm:
            out.update(lits)
        elif whole and len(lits) == 1:
            (key, value), = lits.items()
            out[key] = not value
    return out


def _facts(scope, branch, fixed) -> dict:
    out: dict = {}
    for if_id, arm in branch:
        stmt = scope.branch_nodes.get(if_id)
        if isinstance(stmt, cst.If):
            out.update({k: v for k, v in _arm_facts(stmt, arm).items() if fixed(k)})
    return out


def _clash(a: dict, b: dict) -> bool:
    return any(k in b and b[k] != v for k, v in a.items())


def _fixed_in(fn):
    """A test on `key` that `fn` never rebinds (nor a prefix of it) reads the same value each time."""
    bound = set()
    for n in nodes(fn.body if fn is not None else fn, skip=_SKIP):
        if isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            bound |= _keys(n.target)
        elif isinstance(n, (cst.For, cst.CompFor)):
            bound |= _keys(n.target)
        elif isinstance(n, cst.WithItem) and n.asname is not None:
            bound |= _keys(n.asname.name)
        elif isinstance(n, (cst.Global, cst.Nonlocal)):
            bound |= {a.name.value for a in n.names}

    def fixed(key: str) -> bool:
        return not any(key == b or key.startswith(b + ".") or b.startswith(key + ".") for b in bound)
    return fixed


def _contradicting_arms(analysis, scope, conflict) -> bool:
    """Every path from the first backward's loss to the freed nodes runs through an arm
    whose test contradicts the one the second backward sits in."""
    first, second = conflict.first, conflict.second
    if first.target is None or not second.branch:
        return False
    fn = analysis.ctx.enclosing(second.call, cst.FunctionDef)
    if fn is None or analysis.ctx.enclosing(first.call, cst.FunctionDef) is not fn:
        return False
    fixed = _fixed_in(fn)
    want = _facts(scope, second.branch, fixed)
    if not want:
        return False
    if _clash(_facts(scope, first.branch, fixed), want):
        return True
    links = set(conflict.links)
    stack = [h for h in first.target.heads if h in first.reach]
    seen = set(stack)
    while stack:
        node = stack.pop()
        if _clash(_facts(scope, node.branch, fixed), want):
            continue
        if node in links:
            return False
        for parent in node.parents:
            if parent not in seen and parent in first.reach:
                seen.add(parent)
                stack.append(parent)
    return True


# ------------------------------------------------------------ unbound before the loop
def _unbound_before_loop(analysis, scope, conflict) -> bool:
    second = conflict.second
    olds = [n for n in conflict.path if n.stmt is not None and _earlier(n.iteration, second.tag)]
    if not olds:
        return False
    old = olds[0]
    readers = [n for n in conflict.path if old in n.parents and not _earlier(n.iteration, second.tag)]
    loop = _loop_between(scope, old.iteration, second.tag)
    if not readers or loop is None or not isinstance(old.name, str) or "." in old.name:
        return False
    name, stmt = old.name, readers[0].stmt
    reads = readers[0].uses.get(old, [])
    if not reads or any(getattr(r, "value", None) != name for r in reads):
        return False
    fn = analysis.ctx.enclosing(loop, cst.FunctionDef)
    if fn is None or name in {p.name.value for p in nodes(fn.params) if isinstance(p, cst.Param)}:
        return False
    # every binding of the name lies inside the loop
    inside = {id(n) for n in nodes(loop.body, skip=_SKIP)}
    for n in nodes(fn.body, skip=_SKIP):
        if name in _binds(n) and id(n) not in inside:
            return False
    fresh = set(scope.fresh.get(id(loop), ()))
    outer = loop  # tests must hold across the outer loops' iterations too
    cur = analysis.ctx.enclosing(loop, (cst.For, cst.While), stop=(cst.FunctionDef,))
    while cur is not None:
        outer = cur
        cur = analysis.ctx.enclosing(cur, (cst.For, cst.While), stop=(cst.FunctionDef,))
    path = _path_to(loop.body, stmt)
    if path is None:
        return False
    # walk each block on the way down to the read: its state must never be "unknown"
    for block, upto in path:
        state = _run(block[:upto], name, outer, fresh)
        if state is None:
            return False
    return True


def _binds(n) -> set:
    if isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
        return _keys(n.target)
    if isinstance(n, (cst.For, cst.CompFor)):
        return _keys(n.target)
    if isinstance(n, cst.WithItem) and n.asname is not None:
        return _keys(n.asname.name)
    if isinstance(n, cst.Del):
        return _keys(n.target)
    if isinstance(n, (cst.Global, cst.Nonlocal)):
        return {a.name.value for a in n.names}
    return set()


def _path_to(block, stmt):
    """[(statements, index of the one holding `stmt`)] from the loop's body down through
    `if` arms and `with` bodies; None when `stmt` sits in a nested loop or a `try`."""
    stmts = list(getattr(block, "body", ()))
    for i, s in enumerate(stmts):
        if s is stmt:
            return [(stmts, i)]
        if not any(n is stmt for n in nodes(s, skip=_SKIP)):
            continue
        if isinstance(s, cst.With):
            rest = _path_to(s.body, stmt)
        elif isinstance(s, cst.If):
            rest = None
            cur = s
            while rest is None and cur is not None:
                body = cur.body
                rest = _path_to(body, stmt)
                cur = cur.orelse.body if isinstance(cur.orelse, cst.Else) else cur.orelse
                if isinstance(cur, cst.BaseSuite):
                    rest = rest or _path_to(cur, stmt)
                    cur = None
        else:
            return None
        return None if rest is None else [(stmts, i)] + rest
    return None


_UNTOUCHED, _BOUND, _MIXED = "untouched", "bound", "mixed"


def _touches(stmt, name) -> bool:
    return any(name in _binds(n) for n in nodes(stmt, skip=_SKIP))


def _exits(block) -> str:
    """'raise' (the loop ends), 'continue', or '' for a block that falls through."""
    stmts = list(getattr(block, "body", ()))
    last = stmts[-1] if stmts else None
    smalls = last.body if isinstance(last, cst.SimpleStatementLine) else []
    if any(isinstance(s, (cst.Raise, cst.Return, cst.Break)) for s in smalls):
        return "raise"
    if any(isinstance(s, cst.Continue) for s in smalls):
        return "continue"
    return ""


def _run(stmts, name, loop, fresh, state=_UNTOUCHED):
    """The name's state after `stmts` (bound this iteration, untouched, or which of the two
    decided by tests the loop never changes); None when an iteration may differ."""
    for s in stmts:
        if not _touches(s, name):
            continue
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                if isinstance(small, cst.Del):
                    state = _UNTOUCHED if name in _keys(small.target) else state
                elif any(name in _binds(n) for n in nodes(small, skip=_SKIP)):
                    if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                        state = _BOUND if state == _BOUND or not isinstance(small, cst.AugAssign) else state
                    else:
                        return None
        elif isinstance(s, cst.If):
            outs, cur = [], s
            while cur is not None:
                body = cur.body if isinstance(cur, cst.If) else cur.body
                how = _exits(body)
                if how == "continue":
                    return None
                if not how:
                    got = _run(body.body, name, loop, fresh, state)
                    if got is None:
                        return None
                    outs.append(got)
                if isinstance(cur, cst.If):
                    cur = cur.orelse
                    if cur is None:
                        outs.append(state)
                else:
                    cur = None
            if len(set(outs)) > 1:
                if not _invariant(s, loop, fresh):
                    return None
                state = _BOUND if set(outs) == {_BOUND} else _MIXED
            elif outs:
                state = outs[0]
        elif isinstance(s, cst.With):
            state = _run(s.body.body, name, loop, fresh, state)
            if state is None:
                return None
        elif isinstance(s, (cst.For, cst.While)) and not s.orelse and \
                _run(s.body.body, name, loop, fresh, state) == state:
            continue  # `for ...: d_loss += part` after `d_loss = 0`
        else:
            return None  # a loop or a try that binds it: it may or may not run
    return state
