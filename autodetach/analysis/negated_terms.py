"""A multiplier's loss that negates a term another loss adds.

A learned Lagrange multiplier or temperature (`log_alpha`) is trained by
ascent on a constraint term: `(-penalty.mean()).backward(retain_graph=True)`,
then its optimizer steps. When `penalty` is not detached, that backward also
writes -d(penalty) into every module the term was computed from (the critic,
the policy); the loss that adds `+ penalty` for those modules backwards into
the same .grad before their optimizer steps, so the two cancel (d3rlpy's CQL
and BEAR before f3c55406). Read from the code's shape: the negated term is a
name, the pass retains its graph and steps an optimizer, and the same name is
added to a loss that is backwarded later or returned, with no zero_grad
between. Report only: the fix rebuilds the multiplier's loss on a detached
term."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from .walk import nodes, of_types

_FUNCS = frozenset({cst.FunctionDef})
_REDUCE = ("mean", "sum")


@dataclass
class NegatedTerm:
    backward: cst.Call  # the multiplier's backward(retain_graph=True)
    term: str  # the name negated there
    added: cst.CSTNode  # where the same tensor is added to another loss
    step: Optional[cst.Call] = None  # the multiplier's optimizer step after it
    via: Optional[cst.Call] = None  # the call handing the term to the helper that backwards it
    notes: list = field(default_factory=list)  # what was inferred


def negated_terms(analysis) -> list:
    """One NegatedTerm per multiplier's pass and caller that adds its term (worked out once a file)."""
    if hasattr(analysis, "memo"):
        return analysis.memo("negated_terms", lambda: _find(analysis))
    return _find(analysis)


def ascent_passes(analysis) -> set:
    """ids of the backward calls that are a multiplier's ascent pass on a term another loss adds."""
    return {id(r.backward) for r in negated_terms(analysis)}


def _find(analysis) -> list:
    ctx = analysis.ctx
    funcs = of_types(ctx.module, _FUNCS)
    out = []
    for body in [ctx.module] + list(funcs):
        own = _own(body)
        for i, call in enumerate(own):
            if not (_is_call(call, "backward") and _retains(call)):
                continue
            term = _negated(own[:i], call.func.value)
            step = next((n for n in own[i:] if _is_call(n, "step")), None)
            if term is None or step is None:
                continue
            if _bound(own[:i], term):
                found = _added_after(own, i, term)
                if found is not None:
                    out.append(NegatedTerm(call, term, found[0], step, notes=_notes(body, found[1])))
            elif type(body) is cst.FunctionDef:
                out.extend(_through_callers(body, funcs, call, step, term))
    return out


def _through_callers(helper, funcs, backward, step, term) -> list:
    """The helper backwards the negation of its parameter `term`: the callers
    that hand it a name and add that name to the loss they build after."""
    params = [p.name.value for p in helper.params.params]
    if term not in params:
        return []
    name = helper.name.value
    pos = params.index(term) - (1 if params and params[0] == "self" else 0)
    out = []
    for fn in funcs:
        own = _own(fn)
        for i, call in enumerate(own):
            if type(call) is not cst.Call or not _calls(call.func, name):
                continue
            arg = _argument(call, pos, term)
            if type(arg) is not cst.Name:
                continue  # `conservative_loss.detach()` (the fix) or an expression
            found = _added_after(own, i, arg.value)
            if found is not None:
                out.append(NegatedTerm(backward, arg.value, found[0], step, via=call, notes=_notes(fn, found[1])))
    return out


def _notes(fn, how) -> list:
    if how != "return":
        return []
    return [f"`{fn.name.value}` is taken to return the sum as the loss its caller backwards, after no "
            "zero_grad(), and steps the modules the term was computed from"]


def _own(body) -> list:
    """The nodes of a function (or of the module) in source order, not those
    of the functions and classes defined in it."""
    if type(body) is cst.Module:
        return [n for stmt in body.body if type(stmt) not in (cst.FunctionDef, cst.ClassDef)
                for n in nodes(stmt, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda))]
    return nodes(body.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda))


def _is_call(node, attr) -> bool:
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == attr


def _calls(func, name) -> bool:
    if type(func) is cst.Name:
        return func.value == name
    return type(func) is cst.Attribute and func.attr.value == name and type(func.value) is cst.Name \
        and func.value.value == "self"


def _retains(call) -> bool:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "retain_graph":
            return type(arg.value) is cst.Name and arg.value.value == "True"
    return False


def _reduced(expr):
    """What `x.mean(...)`, `x.sum(...)`, `torch.mean(x, ...)` or `torch.sum(x, ...)` reduces (else `expr`):
    a reduction keeps the sign of each element's gradient."""
    if type(expr) is not cst.Call or type(expr.func) is not cst.Attribute or expr.func.attr.value not in _REDUCE:
        return expr
    if type(expr.func.value) is cst.Name and expr.func.value.value == "torch":
        first = expr.args[0] if expr.args else None
        return first.value if first is not None and first.keyword is None and not first.star else expr
    return expr.func.value


def _ref(expr, term) -> bool:
    """`term`, or a reduction of it (`term.sum()`, `torch.mean(term)`)."""
    expr = _reduced(expr)
    return type(expr) is cst.Name and expr.value == term


def _negated(before, loss) -> Optional[str]:
    """The name whose negation `loss` is: `-t`, `-t.mean()`, `(-t).mean()`, or a name bound to one."""
    if type(loss) is cst.Name:
        bound = [n for n in before if type(n) is cst.Assign and len(n.targets) == 1
                 and type(n.targets[0].target) is cst.Name and n.targets[0].target.value == loss.value]
        if not bound:
            return None
        loss = bound[-1].value
    loss = _reduced(loss)
    if type(loss) is not cst.UnaryOperation or type(loss.operator) is not cst.Minus:
        return None
    expr = _reduced(loss.expression)
    return expr.value if type(expr) is cst.Name else None


def _bound(before, name) -> bool:
    return any(type(n) is cst.AssignTarget and type(n.target) is cst.Name and n.target.value == name
               for n in before)


def _argument(call, pos, keyword):
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[pos].value if 0 <= pos < len(positional) else None


def _added_after(own, start, term):
    """(node, how) for the first `x + term` (or `term.sum()`, `+= term`) after
    `own[start]` that makes a loss backwarded later in `own` ("backward") or
    returned ("return"); None when the term is rebound or a zero_grad() comes first."""
    for i in range(start + 1, len(own)):
        n = own[i]
        if _is_call(n, "zero_grad") or type(n) is cst.AssignTarget and type(n.target) is cst.Name \
                and n.target.value == term:
            return None
        if type(n) is cst.BinaryOperation and type(n.operator) is cst.Add \
                and (_ref(n.left, term) or _ref(n.right, term)):
            how = _feeds_loss(own, i, n)
            if how:
                return n, how
        if type(n) is cst.AugAssign and type(n.operator) is cst.AddAssign and _ref(n.value, term) \
                and type(n.target) is cst.Name and _backwarded(own, i, n.target.value):
            return n, "backward"
    return None


def _feeds_loss(own, i, add) -> Optional[str]:
    """"return" when the sum is returned, "backward" when it is backwarded
    (or bound to a name backwarded later), else None."""
    stmt = _statement(own, i)
    if type(stmt) is cst.Return:
        return "return"
    if type(stmt) is cst.Assign and len(stmt.targets) == 1 and type(stmt.targets[0].target) is cst.Name:
        return "backward" if _backwarded(own, i, stmt.targets[0].target.value) else None
    if type(stmt) is cst.Expr and _is_call(stmt.value, "backward"):
        return "backward" if any(x is add for x in nodes(stmt.value.func.value)) else None
    return None


def _statement(own, i):
    """The small statement of this body that holds `own[i]`."""
    for j in range(i, -1, -1):
        n = own[j]
        if type(n) in (cst.Return, cst.Assign, cst.Expr, cst.AugAssign):
            return n if any(x is own[i] for x in nodes(n)) else None
    return None


def _backwarded(own, i, name) -> bool:
    for n in own[i + 1:]:
        if _is_call(n, "zero_grad"):
            return False
        if _is_call(n, "backward") and type(n.func.value) is cst.Name and n.func.value.value == name:
            return True
    return False


def term_modules(analysis, record):
    """The modules besides the multiplier's that the analysis saw the negated
    term computed from: empty when its code is not read here (a method of
    another file), None when it saw only the multiplier's (nothing leaks)."""
    from ..imports import dotted
    from .graph import closure

    seen = set()
    for scope in analysis.scopes:
        for e in scope.events:
            if e.call is record.backward and e.kind == "backward":
                heads = [n for n in e.reach if n.name == record.term]
                seen.update(m for n in closure(heads) for m in n.modules)
    opt = dotted(record.step.func.value)
    out = {m for m in seen if not (opt and analysis.owner_uses(opt, m) is True)}
    return None if seen and not out else out
