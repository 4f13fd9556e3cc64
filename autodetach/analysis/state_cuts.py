"""A module whose state is cut only outside the loop that backwards and steps.

    for i, data in enumerate(loader):
        for image, label in zip(images, labels):     # the frames of one sequence
            optimizer.zero_grad()
            loss = criterion(net(image), label)
            loss.backward(retain_graph=True)
            optimizer.step()
        net.detach_hidden()                           # the state is cut once per sequence

A call on the module of a method whose name says it cuts or resets state it
keeps (`detach_hidden`, `repackage_hidden`, `reset_states`, `init_hidden`)
says that its forwards store state the next forward reads. Where no such call
runs in each iteration of the loop around a backward, the next iteration's
forward hangs from this one's graph: the next backward walks it (so its
retain is needed, AD104), and where the loop steps the optimizer in between,
that walk meets weights the step changed in place (AD106). That the state
carries a graph is inferred from the method's name."""
from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from ..imports import dotted
from .walk import by_nodes, nodes

_ANY_CUT = re.compile(r"detach|reset|repackage|init|clear|truncate", re.I)
_CUT = re.compile(r"^_?(detach|repackage|reset|init|clear|zero)_?\w*?(hidden|state|memory|mem)s?(_\w+)?$", re.I)


@dataclass
class OuterCut:
    module: str  # `net`
    call: cst.Call  # `net.detach_hidden()`, outside the loop
    loop: cst.CSTNode  # the innermost loop around the backward, which does not run the cut
    chained: tuple  # the loops around the backward whose iterations the state crosses (the cut is outside them)


def outer_cut(analysis, ev):
    """The state cut of a module the backward `ev` reaches, called in the
    function around it but not in each iteration of its innermost loop."""
    ctx = analysis.ctx
    if not ev.loops:
        return None
    mods = {m for n in ev.reach for m in n.modules}
    if not mods:
        return None
    loop = ev.loops[-1]
    where = ctx.enclosing(ev.call, cst.FunctionDef)
    body = where.body if where is not None else ctx.module
    if not ctx.encloses(body, loop):
        return None  # a caller's loop around an inlined call: not this function's cuts to judge
    # cut every iteration: any call on the module in the loop named like a cut (`memory.detach()`)
    inner = by_nodes("state_cuts.inner", loop, _inner_cuts)
    for call in _cuts(analysis, body):
        module = dotted(call.func.value)
        if module in mods and module not in inner and _drops_or_keeps(ctx, call, module) \
                and not _forward_cuts(analysis, module):
            return OuterCut(module, call, loop, tuple(x for x in ev.loops if not ctx.encloses(x, call)))
    return None


def _inner_cuts(loop) -> set:
    """The objects of the calls in `loop` named like a cut: a function of the
    loop's nodes alone, asked again for every backward in it (a shared set:
    do not change it)."""
    return {dotted(n.func.value) for n in nodes(loop) if type(n) is cst.Call and type(n.func) is cst.Attribute
            and _ANY_CUT.search(n.func.attr.value) and n.func.attr.value != "zero_grad"}


def _drops_or_keeps(ctx, call, module) -> bool:
    """`net.detach_hidden()` as a statement, or `net.hidden = net.init_hidden()`: state
    on the module. `hidden = rnn.initHidden()` hands a fresh state to the caller, who
    passes it in: nothing kept on the module."""
    up = ctx.parent(call)
    if isinstance(up, cst.Expr):
        return True
    if isinstance(up, cst.Assign):
        return all((dotted(t.target) or "").startswith(module + ".") for t in up.targets)
    return False


def cut_after(ctx, cut: OuterCut) -> bool:
    """Does the cut run right after its loop ends (a statement of the block
    holding the loop, after it)? Then the loop's last graph is not read by
    the next forward; otherwise (cut once per epoch, or under a test) it may be."""
    stmt = ctx.parent(ctx.parent(cut.call))  # Call -> Expr -> SimpleStatementLine
    block = ctx.parent(cut.loop)
    if not isinstance(stmt, cst.SimpleStatementLine) or ctx.parent(stmt) is not block:
        return False
    body = list(getattr(block, "body", ()))
    return any(s is cut.loop for s in body) and body.index(stmt) > next(i for i, s in enumerate(body) if s is cut.loop)


def _forward_cuts(analysis, module) -> bool:
    """Is the module's class in this file, with a forward that detaches what it
    keeps (`self.hidden = h.detach()`)? Then no graph crosses the forwards."""
    cls = analysis.names.instances.get(module)
    fwd = analysis.names.class_method(cls, "forward") if cls else None
    return fwd is not None and any(type(n) is cst.Attribute and n.attr.value in ("detach", "detach_", "data")
                                   for n in nodes(fwd))


def _cuts(analysis, body) -> list:
    memo = analysis.table("_state_cuts")
    if id(body) not in memo:
        memo[id(body)] = [n for n in nodes(body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda))
                          if type(n) is cst.Call and type(n.func) is cst.Attribute and not n.args
                          and _CUT.match(n.func.attr.value) and dotted(n.func.value) is not None]
    return memo[id(body)]
