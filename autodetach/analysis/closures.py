"""Optimizer closures that return their loss: judged where the optimizer runs them.

    def _setup_closure(self, optimizer, x):
        def closure():
            optimizer.zero_grad()
            loss = self.distance(self.net(x))
            loss.backward(retain_graph=True)
            return loss                          # the graph escapes...
        return closure

    def attack(self):
        for i in range(n):
            closure = self._setup_closure(optimizer, x)
            loss = optimizer.step(closure)       # ...to here: the flow walks the closure
            best = min(best, loss)               # at this call, and nothing backwards it

Walked alone, the closure returns its graph, so its retain looks needed. The
only way out of a nested function is its enclosing function (`return
closure`) or an `optimizer.step(closure)` there; when every such use of the
closure, and every call in this file of an enclosing function that returns
it, sits in a scope that walked the closure inlined, those walks see what
the returned loss meets, and the lone walk's "returned" does not count.
When the enclosing function returns the closure, code in other files could
call it too: that is an inference, said in the message."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes


def judged_at_calls(analysis, ev, walked: set) -> Optional[list]:
    """For a retain in a nested function whose graph escapes only by its return:
    [] (nothing inferred) or [a note] when the scopes in `walked` (names of the
    scopes that walked `ev` inlined) cover every way out; None otherwise."""
    ctx = analysis.ctx
    inner = ctx.enclosing(ev.call, cst.FunctionDef)
    outer = ctx.enclosing(inner, cst.FunctionDef) if inner is not None else None
    if inner is None or outer is None or not walked:
        return None
    name = inner.name.value
    returned = False
    for node in nodes(outer.body):
        if not isinstance(node, cst.Name) or node.value != name or node is inner.name:
            continue
        up = ctx.parent(node)
        if isinstance(up, cst.Return):
            returned = True
            continue
        arg = up if isinstance(up, cst.Arg) else None
        call = ctx.parent(arg) if arg is not None else None
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "step"
                and outer.name.value in walked):
            return None  # handed to something else: its uses are not seen
    notes = _outer_reads(analysis, inner, outer)
    if not returned:
        return notes
    # `closure = self._setup_closure(...)` then `optimizer.step(closure)`: every call of the
    # enclosing function in this file sits in a scope that walked it
    callers = [n for n in nodes(ctx.module) if isinstance(n, cst.Call) and
               (dotted(n.func) or "").split(".")[-1] == outer.name.value]
    if not callers:
        return None
    for call in callers:
        fn = ctx.enclosing(call, cst.FunctionDef)
        if fn is None or fn.name.value not in walked:
            return None
    where = ", ".join(f"`{w}()`" for w in sorted(walked))
    return [f"`{name}` returns its loss to `{outer.name.value}()`'s callers here ({where}), which backward "
            "nothing of it; calls from other files are not seen"] + notes


def step_closure(ctx, call, outer) -> Optional[cst.FunctionDef]:
    """The function defined directly in `outer`'s body that holds `call` and
    that `outer` hands to an optimizer's `.step(...)`: the optimizer runs it,
    once per step or, like LBFGS, several times; None otherwise."""
    inner = ctx.enclosing(call, cst.FunctionDef)
    if inner is None or outer is None or ctx.enclosing(inner, cst.FunctionDef) is not outer:
        return None
    stepped = False
    for node in nodes(outer.body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "step" \
                and any(isinstance(a.value, cst.Name) and a.value.value == inner.name.value for a in node.args):
            stepped = True
    return inner if stepped else None


def reads_outside(ctx, ev) -> bool:
    """Does the backward of `ev` (walked inlined) reach a graph node built
    outside the function that holds it? `optimizer.step(closure)` may call the
    closure again (LBFGS), and that part would then be walked twice."""
    inner = ctx.enclosing(ev.call, cst.FunctionDef)
    if inner is None:
        return True
    inside = {id(n) for n in nodes(inner)}
    return any(not n.leaf and n.stmt is not None and id(n.stmt) not in inside and
               id(getattr(n.stmt, "suite", n.stmt)) not in inside for n in ev.reach)


def _outer_reads(analysis, inner, outer) -> list:
    """A note naming the enclosing function's values the closure reads that may
    carry a graph: `optimizer.step` may call the closure more than once per step
    (LBFGS), and each call would walk that graph again."""
    names = analysis.names
    local = {p.name.value for p in inner.params.params} | _assigned(inner)
    outer_vars = ({p.name.value for p in outer.params.params + outer.params.kwonly_params} | _assigned(outer)) \
        - {"self", "cls", inner.name.value}
    read = sorted({n.value for n in nodes(inner.body) if isinstance(n, cst.Name) and n.value in outer_vars
                   and n.value not in local and not names.is_module(n.value) and n.value not in names.optimizers})
    if not read:
        return []
    listed = ", ".join(f"`{r}`" for r in read)
    return [f"the closure reads {listed} from `{outer.name.value}()`: that no graph comes in there is not proven, "
            "and `optimizer.step` may call the closure more than once"]


def _assigned(fn) -> set:
    out = set()
    for node in nodes(fn.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if isinstance(node, cst.AssignTarget) or isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            target = node.target
            for x in nodes(target):
                if isinstance(x, cst.Name):
                    out.add(x.value)
        elif isinstance(node, cst.For):
            for x in nodes(node.target):
                if isinstance(x, cst.Name):
                    out.add(x.value)
    return out
