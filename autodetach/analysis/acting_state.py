"""Recurrent state kept on `self`, grown by an acting loop that never backwards.

    class DRQN(nn.Module):
        def reset_lstm(self, n):
            self.hc = (torch.zeros(1, n, 8), torch.zeros(1, n, 8))
        def forward(self, x):
            x, self.hc = self.lstm(x, self.hc)     # hangs from the last call's graph
            return self.head(x)

    class Agent:
        def act(self, s):
            q = self.drqn(s)                        # gradients on
            return q.argmax().item()                # only numbers leave

    net.reset_lstm(1)
    for t in count():                               # no backward in this loop
        a = agent.act(s)

Each acting step's state hangs from the previous step's graph and nothing
backwards it: every step's graph stays alive until the next reset, and memory
grows with the episode. A module class with a reset method is otherwise left
alone (`model.stateful_attrs`): its caller manages the state, as truncated
BPTT does. Here the caller shows that nothing is trained through the state:
the call's outputs leave only as numbers, and the loop that runs it neither
backwards nor resets. The same holds for state an agent keeps itself
(`q, self.h = self.net(s, self.h)` in `act`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from ..imports import dotted
from .state_questions import bound_here, calls_any, reaches_cut, trainers, trains, under_no_grad
from .walk import class_methods, nodes


@dataclass
class ActingState:
    call: cst.Call  # the acting call: `self.drqn(state)` or `self.net(s, self.h)`
    stmt: cst.CSTNode  # its statement
    keeper: str  # `DRQN.forward`, or `Agent.act` for state the agent keeps
    key: str  # `self.hc`
    store: cst.CSTNode  # where the state is stored
    resets: tuple  # methods that bind it anew
    loop: cst.CSTNode  # the loop that runs the acting call step after step
    via: str  # the function that makes the call, when the loop calls it ("" when the loop makes it)


def acting_states(analysis) -> list:
    return analysis.memo("_acting_states", lambda: _find(analysis))


def _find(analysis) -> list:
    sites = analysis.sites
    if not sites.backward_in and not sites.module_level_backward:
        return []  # nothing is trained here: no evidence that the module's outputs carry a graph
    ctx, names = analysis.ctx, analysis.names
    kept = _module_state(analysis)
    out, seen = [], set()
    for call in (n for n in nodes(ctx.module) if type(n) is cst.Call):
        key = dotted(call.func)
        found = None
        if key is not None and names.instances.get(key) in kept:
            for state, store, resets in kept[names.instances[key]]:
                found = (f"{names.instances[key]}.forward", state, store, resets)
                break
        else:
            found = _own_state(analysis, call, key)
        if found is None or id(call) in seen:
            continue
        stepper = _acting(analysis, call, found)
        if stepper is not None:
            seen.add(id(call))
            out.append(stepper)
    return out


def _module_state(analysis) -> dict:
    """Module class -> [(key, store statement, reset methods)]: forward reads
    `self.X` and stores a graph in it, and another method binds it anew."""
    out = {}
    for cls, methods, scope in analysis.forward_walks:
        for key in scope.free_reads:
            val = scope.env.get(key)
            if val is None or not val.heads or key in analysis.names.modules:
                continue
            store = next((n.stmt for n in val.heads if n.stmt is not None), None)
            if store is None:
                continue
            resets = tuple(sorted(n for n, m in methods.items() if n not in ("forward", "__init__") and _binds(m, key)))
            if resets:  # without one, `stateful_attrs` reports the module itself
                out.setdefault(cls.name.value, []).append((key, store, resets))
    return out


def _own_state(analysis, call, key) -> Optional[tuple]:
    """`q, self.h = self.net(s, self.h)` in a method that is not a forward: the
    object keeps the state a module with parameters returns."""
    if key is None or not analysis.names.is_module(key) or not analysis.names.has_params(key):
        return None
    ctx = analysis.ctx
    stmt = ctx.parent(call)
    if not isinstance(stmt, cst.Assign) or stmt.value is not call or len(stmt.targets) != 1:
        return None
    target = stmt.targets[0].target
    stored = [dotted(e.value) for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else []
    args = {dotted(a.value) for a in call.args}
    state = next((s for s in stored if s and s.startswith("self.") and s in args), None)
    fn = ctx.enclosing(call, cst.FunctionDef)
    if state is None or fn is None or fn.name.value in ("forward", "__init__"):
        return None
    cls = ctx.enclosing(fn, cst.ClassDef)
    if cls is None:
        return None
    resets = tuple(sorted(n for n, m in class_methods(cls).items() if m is not fn and n != "__init__" and
                          _binds(m, state)))
    return f"{cls.name.value}.{fn.name.value}", state, stmt, resets


def _acting(analysis, call, found) -> Optional[ActingState]:
    """The acting call when its outputs leave only as numbers, nothing around
    it backwards, and a loop runs it step after step without a reset."""
    ctx = analysis.ctx
    keeper, key, store, resets = found
    stmt = ctx.statement_of(call)
    fn = ctx.enclosing(call, cst.FunctionDef)
    if stmt is None or under_no_grad(ctx, call, fn) or not _numbers_only(ctx, analysis.names, call, stmt, fn):
        return None
    loop = ctx.enclosing(call, (cst.For, cst.While), stop=(cst.FunctionDef,))
    via = ""
    loops = [loop]
    if loop is None:
        if fn is None or trains(analysis, fn):
            return None
        loops = _caller_loops(analysis, fn)
        via = fn.name.value
    if any(loop is not None and (trains(analysis, loop.body) or calls_any(loop.body, trainers(analysis)))
           for loop in loops):
        return None  # a loop that trains may train through the state (the fix would cut it)
    for loop in loops:
        if loop is None or calls_any(loop.body, set(resets)) or \
                under_no_grad(ctx, loop, ctx.enclosing(loop, cst.FunctionDef)):
            continue
        return ActingState(call, stmt, keeper, key, store, resets, loop, via)
    return None


def _numbers_only(ctx, names, call, stmt, fn) -> bool:
    """Every output of the call is used only through a cut: `q.argmax().item()`,
    `q.max(2)[1]`, `torch.argmax(q)`."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign) \
            and stmt.body[0].value is call:
        target = stmt.body[0].targets[0].target
        elems = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
        outs = [dotted(e) for e in elems if not (dotted(e) or "").startswith("self.")]
        if any(o is None or "." in o for o in outs):
            return False
        scope = fn if fn is not None else ctx.module
        for name in outs:
            uses = [n for n in nodes(scope) if type(n) is cst.Name and n.value == name and
                    not bound_here(ctx, n)]
            if not all(reaches_cut(ctx, names, n) for n in uses):
                return False
        return bool(outs)
    return reaches_cut(ctx, names, call)


def _caller_loops(analysis, fn) -> list:
    """The loops of this file that call `fn` (`agent.select_action(s)`, `self.act(s)`)."""
    ctx, names = analysis.ctx, analysis.names
    cls = ctx.enclosing(fn, cst.ClassDef)
    name = fn.name.value
    loops = []
    for n in nodes(ctx.module):
        if type(n) is not cst.Call:
            continue
        if cls is not None and type(n.func) is cst.Attribute and n.func.attr.value == name:
            base = dotted(n.func.value)
            if base != "self" and names.instances.get(base) != cls.name.value:
                continue
        elif not (cls is None and type(n.func) is cst.Name and n.func.value == name):
            continue
        loop = ctx.enclosing(n, (cst.For, cst.While), stop=(cst.FunctionDef,))
        if loop is not None:
            loops.append(loop)
    return loops


def _binds(fn, key) -> bool:
    for n in nodes(fn):
        if isinstance(n, cst.AssignTarget):
            targets = [e.value for e in n.target.elements] if isinstance(n.target, (cst.Tuple, cst.List)) \
                else [n.target]
            if any(dotted(t) == key for t in targets):
                return True
    return False
