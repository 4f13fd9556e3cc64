"""Which arm of a test on a loop's index each walk of the loop takes.

`for i, t in enumerate(tasks): if i > 0: loss = loss + w * l_t  else: loss = w * l_t`
starts the sum again on the loop's first iteration (MGDA's scaled step). flow.Scope
walks a loop body twice: the first walk is the loop's first iteration, where the
index holds its first value (0 for `enumerate(x)` and `range(n)`), and the second
walk a later one (index 1 or more). A test such as `i > 0`, `i == 0`, `not i` or
`i` has one answer for each (so has `i > 0 and cond` on the first walk), so each walk
takes that arm only, and the sum of the last outer iteration is not taken to reach
this one. Any other test, an index the
body rebinds, or a loop of another shape (`range(1, n)`, `enumerate(x, 1)`) is left
to both arms."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from .bindings import target_names
from .walk import nodes

_OPS = {
    cst.GreaterThan: lambda a, b: a > b, cst.GreaterThanEqual: lambda a, b: a >= b,
    cst.LessThan: lambda a, b: a < b, cst.LessThanEqual: lambda a, b: a <= b,
    cst.Equal: lambda a, b: a == b, cst.NotEqual: lambda a, b: a != b,
}
_FLIP = {cst.GreaterThan: cst.LessThan, cst.LessThan: cst.GreaterThan, cst.GreaterThanEqual: cst.LessThanEqual,
         cst.LessThanEqual: cst.GreaterThanEqual, cst.Equal: cst.Equal, cst.NotEqual: cst.NotEqual}
_LATER = (1, 2, 1000)  # index values of later iterations: a test that agrees on all has one answer


def arm(scope, test) -> Optional[bool]:
    """True: this walk takes the `if` body; False: its `else`; None: not decided.
    `i > 0 and torch.sum(mask) > 0` is false wherever `i > 0` is (`or`: true wherever
    one side is); the other side needs no answer then."""
    if type(test) is cst.BooleanOperation:
        left, right = arm(scope, test.left), arm(scope, test.right)
        stop = type(test.operator) is cst.Or  # the answer one side alone decides
        if left is stop or right is stop:
            return stop
        return (not stop) if left is not None and right is not None else None
    parsed = _parse(test)
    if parsed is None:
        return None
    name, check = parsed
    walk = _index_walk(scope, name)
    if walk is None:
        return None
    if walk == 1:
        return check(0)
    # the constants the test compares with, and their neighbours: `i == 5` is true on one later
    # iteration and false on the others, so no walk of a later iteration takes one arm only
    near = {int(n.value) + d for n in nodes(test) if type(n) is cst.Integer and n.value.isdigit() for d in (-1, 0, 1)}
    answers = {check(v) for v in set(_LATER) | {v for v in near if v >= 1}}
    return answers.pop() if len(answers) == 1 else None


def _parse(test):
    """(index name, value -> truth of the test) for `i > 0`, `0 < i`, `i == 0`, `i`, `not i`."""
    if type(test) is cst.Name:
        return test.value, bool
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = _parse(test.expression)
        return None if inner is None else (inner[0], lambda v, f=inner[1]: not f(v))
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        comp = test.comparisons[0]
        op = type(comp.operator)
        if op not in _OPS:
            return None
        left, right = test.left, comp.comparator
        if isinstance(left, cst.Integer) and isinstance(right, cst.Name):
            left, right, op = right, left, _FLIP[op]
        if isinstance(left, cst.Name) and isinstance(right, cst.Integer):
            bound = int(right.value, 0)
            return left.value, lambda v, f=_OPS[op]: f(v, bound)
    return None


def _index_walk(scope, name: str) -> Optional[int]:
    """1 or 2: which walk of the innermost loop binding `name` this is, when
    `name` is that loop's index counted from 0 and its body never rebinds it."""
    for loop, walk in reversed(scope.loop_stack):
        if not isinstance(loop, cst.For):
            continue
        bound = _names(loop.target)
        if name not in bound:
            continue
        return walk if _counts_from_zero(loop, name) and not _rebinds(loop.body, name) else None
    return None


def _counts_from_zero(loop: cst.For, name: str) -> bool:
    it, target = loop.iter, loop.target
    if not isinstance(it, cst.Call) or not isinstance(it.func, cst.Name) or \
            any(arg.star or arg.keyword is not None for arg in it.args):
        return False
    if it.func.value == "enumerate":
        return len(it.args) == 1 and isinstance(target, cst.Tuple) and len(target.elements) == 2 and \
            isinstance(target.elements[0].value, cst.Name) and target.elements[0].value.value == name
    if it.func.value == "range" and isinstance(target, cst.Name):
        if len(it.args) == 1:
            return True
        first = it.args[0].value
        return len(it.args) == 2 and isinstance(first, cst.Integer) and int(first.value, 0) == 0
    return False


def _names(target) -> set:
    return set(target_names(target))


def _rebinds(body, name: str) -> bool:
    for node in nodes(body):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)) and name in _names(node.target):
            return True
        if isinstance(node, (cst.For, cst.CompFor)) and name in _names(node.target):
            return True
        if isinstance(node, cst.NamedExpr) and name in _names(node.target):
            return True
    return False
