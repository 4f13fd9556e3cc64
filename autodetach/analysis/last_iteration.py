"""A retain the next iteration of its loop needs, kept on the last one too.

    for i in range(n_tasks):
        if i < n_tasks:                              # true on every iteration: the else arm is dead
            losses[i].backward(retain_graph=True)
        else:
            losses[i].backward()

Each task's backward walks the shared graph the next task's walks again, so
every iteration but the last needs its retain; when nothing after the loop
backwards the graph (retained.py decides that from the loop's last walk),
the last one keeps it alive for nothing. This module reads the loop's index
and its last value (`range(n)`, `range(a, n)`, `enumerate(xs)`), works out
the conditions that lead to the retain and its value at that index (`i < n`,
`i != n - 1`, `i == n - 1`, `not`, `and`, `or`), and says how to retain on
every iteration but the last."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes

_SKIP = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


@dataclass
class LastRetain:
    loop: cst.For
    index: Optional[str]  # the loop's index (None: `for loss in losses`, no fix)
    last: str  # the index's last value, in words (`n - 1`)
    not_last: Optional[str]  # a test true on every iteration but the last (`i < n - 1`)
    edit: Optional[tuple] = None  # (node, new code): the test or the retain value to rewrite
    why: str = ""  # how the retain is reached on the last iteration
    inferred: list = field(default_factory=list)


@dataclass(frozen=True)
class _Sym:
    """`base + off`: base is the code of an expression (None: the number `off`)."""
    base: Optional[str]
    off: int

    @property
    def key(self) -> Optional[str]:
        return None if self.base is None else _norm(self.base)

    def code(self) -> str:
        if self.base is None:
            return str(self.off)
        if self.off == 0:
            return self.base
        return f"{self.base} {'+' if self.off > 0 else '-'} {abs(self.off)}"


def last_retain(analysis, ev) -> Optional[LastRetain]:
    """How `ev`'s retain reaches the last iteration of its innermost loop,
    or None when it may not (a condition on the index that cannot be worked
    out, or one false there)."""
    ctx = analysis.ctx
    if not ev.loops or not isinstance(ev.loops[-1], cst.For) or not isinstance(ev.call, cst.Call):
        return None
    loop = ev.loops[-1]
    if ctx.parent(loop) is None:
        return None  # the loop a caller runs around a step method: its last call is not known
    if any(e.kind == "step" and any(x is loop for x in e.loops) for s in analysis.scopes for e in s.events):
        return None  # a training loop: the retain serves the graph its iterations share, a choice
    bound = _bound(ctx, loop)
    changed = _changed(loop)
    index, first, last, inferred = bound if bound else (None, None, None, [])
    if index is not None and (index in changed or _reads_any(ctx, last, changed)):
        return None  # the index or its bound is changed by the body
    state = changed | _target_names(loop.target)
    arms = _arms(ctx, ev.call, loop)
    if arms is None:
        return None
    why = []
    for test, want in arms:
        value = _truth(ctx, test, index, last) if index else None
        if value is None:
            if _reads(test) & state:
                return None  # depends on the iteration in a way not worked out
            continue
        if value != want:
            return None  # the last iteration does not take this arm
        why.append(f"`{_code(ctx, test)}` is {value}")
    retain_arg = ev.retain_arg
    if ev.retain is None:
        value = _truth(ctx, retain_arg.value, index, last) if index else None
        if value is not True:
            return None
        why.append(f"`{_code(ctx, retain_arg.value)}` is True")
    if index is None:
        return LastRetain(loop, None, "", None, None, "", inferred)
    not_last = f"{index} < {last.code()}"
    edit = _edit(ctx, ev, arms, index, first, last, not_last)
    return LastRetain(loop, index, last.code(), not_last, edit, ", ".join(why), inferred)


def _edit(ctx, ev, arms, index, first, last, not_last):
    """What to rewrite: the test of an `if` whose two arms differ only in the
    retain, when the test is true (or false) on every iteration; else the
    retain's value, when it is `True` or a test true on every iteration."""
    call, arg = ev.call, ev.retain_arg
    if arms:
        test, want = arms[-1]  # the innermost arm holding the backward
        stmt = ctx.parent(test)
        if isinstance(stmt, cst.If) and isinstance(stmt.orelse, cst.Else) and \
                _always(ctx, test, index, first, last) is want and _same_arms(ctx, stmt, call, arg, want):
            is_last = f"{index} == {last.code()}"
            return (test, not_last if want else is_last)
    if arg.keyword is None:
        return None
    if ev.retain is True or _always(ctx, arg.value, index, first, last) is True:
        return (arg.value, not_last)
    return None


def _same_arms(ctx, stmt, call, arg, want) -> bool:
    """Do the `if`'s arms read alike once the retain is dropped from the one
    holding it? Then the other arm is this one without the retain."""
    mine = stmt.body if want else stmt.orelse.body
    other = stmt.orelse.body if want else stmt.body
    args = [a for a in call.args if a is not arg]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    try:
        stripped = mine.deep_replace(call, call.with_changes(args=args))
    except Exception:  # noqa: BLE001 - a node the tree does not hold as expected
        return False
    return _norm(cst.Module([]).code_for_node(stripped)) == _norm(cst.Module([]).code_for_node(other))


def _norm(text: str) -> str:
    return "".join(text.split())


def _bound(ctx, loop):
    """(index, first, last, inferred) of `for i in range(...)` or
    `for i, x in enumerate(xs)`; None for other loops."""
    it, target = loop.iter, loop.target
    if not isinstance(it, cst.Call) or not isinstance(it.func, cst.Name) or ctx.imports.qualify(it.func):
        return None
    args = [a for a in it.args]
    if any(a.star or a.keyword for a in args):
        return None
    if it.func.value == "range" and isinstance(target, cst.Name) and len(args) in (1, 2):
        stop = _sym(ctx, args[-1].value)
        first = _sym(ctx, args[0].value) if len(args) == 2 else _Sym(None, 0)
        return target.value, first, _Sym(stop.base, stop.off - 1), []
    if it.func.value == "enumerate" and len(args) == 1 and isinstance(target, (cst.Tuple, cst.List)) and \
            len(target.elements) == 2 and isinstance(target.elements[0].value, cst.Name):
        seq = args[0].value
        if isinstance(seq, cst.Call) and isinstance(seq.func, cst.Attribute) and not seq.args and \
                seq.func.attr.value in ("values", "keys", "items"):
            seq = seq.func.value  # `enumerate(losses.values())`: as many as the dict has entries
        if not isinstance(seq, (cst.Name, cst.Attribute)):
            return None
        text = _code(ctx, seq)
        return (target.elements[0].value.value, _Sym(None, 0), _Sym(f"len({text})", -1),
                [f"`{text}` has a len() (the fix reads `len({text})`)"])
    return None


def _sym(ctx, expr) -> _Sym:
    if isinstance(expr, cst.Integer):
        return _Sym(None, int(expr.evaluated_value))
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.right, cst.Integer) and \
            isinstance(expr.operator, (cst.Add, cst.Subtract)):
        left = _sym(ctx, expr.left)
        k = int(expr.right.evaluated_value)
        return _Sym(left.base, left.off + (k if isinstance(expr.operator, cst.Add) else -k))
    bare = expr.with_changes(lpar=[], rpar=[])
    text = _code(ctx, bare)
    if not isinstance(bare, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        text = f"({text})"
    return _Sym(text, 0)


def _index_off(expr, index) -> Optional[int]:
    """`i` -> 0, `i + 1` -> 1, `i - 1` -> -1; None when `expr` is not the index moved."""
    if isinstance(expr, cst.Name) and expr.value == index:
        return 0
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
        if isinstance(expr.right, cst.Integer) and isinstance(expr.left, cst.Name) and expr.left.value == index:
            k = int(expr.right.evaluated_value)
            return k if isinstance(expr.operator, cst.Add) else -k
        if isinstance(expr.left, cst.Integer) and isinstance(expr.right, cst.Name) and \
                expr.right.value == index and isinstance(expr.operator, cst.Add):
            return int(expr.left.evaluated_value)
    return None


_FLIP = {cst.LessThan: cst.GreaterThan, cst.GreaterThan: cst.LessThan, cst.LessThanEqual: cst.GreaterThanEqual,
         cst.GreaterThanEqual: cst.LessThanEqual, cst.Equal: cst.Equal, cst.NotEqual: cst.NotEqual}


def _truth(ctx, expr, index, at) -> Optional[bool]:
    """The value of a test when `index` is `at`; None when not known."""
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return expr.value == "True"
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        value = _truth(ctx, expr.expression, index, at)
        return None if value is None else not value
    if isinstance(expr, cst.BooleanOperation):
        left, right = _truth(ctx, expr.left, index, at), _truth(ctx, expr.right, index, at)
        if isinstance(expr.operator, cst.And):
            return False if False in (left, right) else (True if left and right else None)
        return True if True in (left, right) else (False if left is False and right is False else None)
    if isinstance(expr, cst.IfExp):
        test = _truth(ctx, expr.test, index, at)
        if test is None:
            return None
        return _truth(ctx, expr.body if test else expr.orelse, index, at)
    found = _compare(ctx, expr, index, at)
    return None if found is None else _APPLY[found[0]](found[1])


_APPLY = {cst.LessThan: lambda d: d < 0, cst.LessThanEqual: lambda d: d <= 0, cst.GreaterThan: lambda d: d > 0,
          cst.GreaterThanEqual: lambda d: d >= 0, cst.Equal: lambda d: d == 0, cst.NotEqual: lambda d: d != 0}


def _compare(ctx, expr, index, at) -> Optional[tuple]:
    """(operator, index - other) of a single comparison of the index with a
    value, written with the index on the left, when `index` is `at`."""
    if not isinstance(expr, cst.Comparison) or len(expr.comparisons) != 1:
        return None
    op = type(expr.comparisons[0].operator)
    left, right = expr.left, expr.comparisons[0].comparator
    off = _index_off(left, index)
    if off is None:
        off, op, right = _index_off(right, index), _FLIP.get(op), left
    if off is None or op is None or index in _reads(right):
        return None
    other = _sym(ctx, right)
    if other.key != at.key:
        return None
    return op, at.off + off - other.off


def _always(ctx, test, index, first, last) -> Optional[bool]:
    """True (False) when `test` holds (fails) on every iteration, from `first`
    to `last`: a single comparison of the index, judged at the end where it
    changes (`i < n` holds throughout when it holds at the last), or `==` /
    `!=` against a value beyond either end."""
    if isinstance(test, cst.Name) and test.value in ("True", "False"):
        return test.value == "True"
    if first is None or index is None:
        return None
    at_first, at_last = _compare(ctx, test, index, first), _compare(ctx, test, index, last)
    if at_first is None and at_last is None:
        return None
    op = (at_first or at_last)[0]
    if op in (cst.LessThan, cst.LessThanEqual):
        if at_last is not None and _APPLY[op](at_last[1]):
            return True
        return False if at_first is not None and not _APPLY[op](at_first[1]) else None
    if op in (cst.GreaterThan, cst.GreaterThanEqual):
        if at_first is not None and _APPLY[op](at_first[1]):
            return True
        return False if at_last is not None and not _APPLY[op](at_last[1]) else None
    # `==` / `!=`: the other value lies past the last (index - other < 0 there) or before the first
    if at_last is not None and at_last[1] < 0 or at_first is not None and at_first[1] > 0:
        return op is cst.NotEqual
    return None


def _arms(ctx, call, loop) -> Optional[list]:
    """The (test, taken) pairs of the `if`s between the loop and the call,
    outermost first; None when something else stands between them (a
    comprehension, a nested function)."""
    out = []
    node = call
    while node is not None and node is not loop:
        parent = ctx.parent(node)
        if isinstance(parent, cst.If):
            if node is parent.body:
                out.append((parent.test, True))
            elif node is parent.orelse:
                out.append((parent.test, False))
        elif isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return None
        node = parent
    if node is None:
        return None
    return out[::-1]


def _changed(loop) -> set:
    """Names (and dotted attributes) the loop's body assigns."""
    out: set = set()
    for n in nodes(loop.body, skip=_SKIP):
        targets = []
        if isinstance(n, cst.Assign):
            targets = [t.target for t in n.targets]
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign)):
            targets = [n.target]
        elif isinstance(n, (cst.For, cst.CompFor)):
            targets = [n.target]
        elif isinstance(n, cst.NamedExpr):
            targets = [n.target]
        for t in targets:
            out |= _assigned(t)
    return out


def _assigned(target) -> set:
    """What a target binds: a name, a dotted attribute, the container of an entry
    (`gp.norms[idx] = v` changes `gp.norms`, not the index it reads), each element
    of an unpacking."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return {k for el in target.elements for k in _assigned(el.value)}
    if isinstance(target, cst.StarredElement):
        return _assigned(target.value)
    if isinstance(target, cst.Subscript):
        return _assigned(target.value)
    key = dotted(target) if isinstance(target, (cst.Name, cst.Attribute)) else None
    if key:
        return {key}
    return {dotted(x) for x in nodes(target) if isinstance(x, (cst.Name, cst.Attribute)) and dotted(x)}


def _target_names(target) -> set:
    return {x.value for x in nodes(target) if isinstance(x, cst.Name)} if not isinstance(target, cst.Name) \
        else {target.value}


def _reads(expr) -> set:
    out = {x.value for x in nodes(expr) if isinstance(x, cst.Name)}
    out |= {dotted(x) for x in nodes(expr) if isinstance(x, cst.Attribute) and dotted(x)}
    return out


def _reads_any(ctx, sym, names) -> bool:
    if sym is None or sym.base is None:
        return False
    try:
        expr = cst.parse_expression(sym.base)
    except Exception:  # noqa: BLE001 - the normalised code no longer parses
        return True
    return bool(_reads(expr) & names)


def _code(ctx, node) -> str:
    return cst.Module([]).code_for_node(node).strip()
