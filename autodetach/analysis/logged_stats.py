"""A statistic of the training step kept for the log:

    logits = policy(obs)
    logp = dist(logits).log_prob(act)
    loss = pg_loss(logp, adv) + vf_coef * v_loss
    loss.backward()
    opt.step()
    records["kl"].append((logp - logp_old).pow(2).mean() * 0.5)   # or: kl_total += ...

What is kept is one number per step (a whole reduction: `.mean()`, `.sum()`,
`torch.mean(x)`, no dim, perhaps scaled by a constant), computed from the
output of a module that the step's backward walks. A value of the graph the
step trains through carries that graph; reduced to one number it is kept for
its value, as a loss total is (AD102), not for later iterations (AD101). That
it keeps a graph at all is the walk's finding (the leak); this only says what
kind of value is kept. A value that a backward reaches is gradient
accumulation and never gets here.
"""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .graph import closure
from .walk import nodes

# whole reductions: one number per step when called without a dim
_REDUCTIONS = frozenset({"sum", "mean", "std", "var", "norm", "max", "min", "prod"})


def _number(expr) -> bool:
    return isinstance(expr, (cst.Integer, cst.Float)) or \
        isinstance(expr, cst.UnaryOperation) and isinstance(expr.expression, (cst.Integer, cst.Float))


def whole_reduction(expr) -> bool:
    """One number: `x.mean()`, `torch.sum(x)`, no dim, or arithmetic of such
    reductions and numbers (`-0.5 * x.mean()`, `a.mean() - b.mean()`)."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return whole_reduction(expr.expression)
    if isinstance(expr, cst.BinaryOperation) and \
            isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)):
        left, right = expr.left, expr.right
        if _number(left):
            return whole_reduction(right)
        if _number(right):
            return whole_reduction(left)
        return whole_reduction(left) and whole_reduction(right)
    if not isinstance(expr, cst.Call):
        return False
    func = expr.func
    name = dotted(func) or ""
    if name.startswith("torch.") and name[6:] in _REDUCTIONS:
        return len(expr.args) == 1 and not expr.args[0].keyword and not expr.args[0].star
    return isinstance(func, cst.Attribute) and func.attr.value in _REDUCTIONS and not expr.args


def _reduced(expr, loop) -> bool:
    """A whole reduction, or a name every binding of which in `loop` is one
    (`spread = logvar.exp().mean()`, then `hist.append(spread)`)."""
    if whole_reduction(expr):
        return True
    if not isinstance(expr, cst.Name) or loop is None:
        return False
    values = []
    for node in nodes(loop):
        if isinstance(node, cst.Assign):
            names = [t.target for t in node.targets]
            if any(isinstance(t, cst.Name) and t.value == expr.value for t in names):
                if len(names) != 1:
                    return False
                values.append(node.value)
            elif any(isinstance(n, cst.Name) and n.value == expr.value for t in names for n in nodes(t)):
                return False  # unpacked or stored into: not followed
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.WithItem, cst.NamedExpr)):
            target = getattr(node, "target", None) or getattr(getattr(node, "asname", None), "name", None)
            if target is not None and any(isinstance(n, cst.Name) and n.value == expr.value for n in nodes(target)):
                return False
    return bool(values) and all(whole_reduction(value) for value in values)


def _added(head, key: str) -> list:
    """The values a step adds to the accumulator `head` (a running total or a list)."""
    if head.kind == "accum":
        return [parent for parent in head.parents if parent.name != key]
    if head.kind == "container":
        return [value for parent in head.parents if parent.entry or parent.name != key
                for value in (parent.parents if parent.entry else [parent])]
    return []


def logged_statistic(head, key: str, loop, reach: frozenset, targets: set) -> bool:
    """Is what the step adds to `head` (`head.expr`: the value added or appended) one
    number reduced from something computed from the output of a module that a backward
    of the step (its `reach`) walks?"""
    if head.kind not in ("accum", "container") or head.expr is None or not reach or \
            not _reduced(head.expr, loop):
        return False
    added = _added(head, key)
    if not added or any(value in targets or value.holder for value in added):
        return False
    behind = closure(added) & reach
    return any(node.kind == "module" or node.modules for node in behind)
