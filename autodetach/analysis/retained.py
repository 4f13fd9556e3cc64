"""Backwards that keep their graph (`retain_graph=True`) for nothing.

A retain is needed when a later backward reaches part of the graph, or when
the graph escapes the scope (returned, kept on `self`, or read by a loss that
adds a graph another method keeps on `self`). A loss built from attributes of
`self` that other code fills and this scope empties after the only backward
in the file is taken to be unneeded too, as an inference."""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from .graph import closure
from .walk import nodes


@dataclass
class UnneededRetain:
    event: object  # the backward (or autograd.grad) event with retain_graph=True
    emptied: list = field(default_factory=list)  # inferred: the `self` attributes it came from, emptied after


def unneeded_retains(analysis) -> list:
    """The retains no later use needs, one per call, in file order."""
    from .self_graphs import self_graphs

    ctx = analysis.ctx
    verdict: dict = {}
    calls: dict = {}
    emptied: dict = {}  # call -> attributes the loss came from, emptied after it
    # a loss that adds a graph kept on `self` by another method: the retain is what lets it run
    on_self = {found[6].call for found in self_graphs(analysis)}
    for scope in analysis.scopes:
        returned = closure(h for r in scope.returns for h in r.heads)
        for ev in scope.events:
            if ev.kind not in ("backward", "grad") or ev.retain is not True or ev.create_graph:
                continue
            if ev.retain_arg is None or ev.retain_arg.keyword is None:
                continue
            calls[ev.call] = ev
            own = {n for n in ev.reach if not n.leaf}
            state = None if ev.target.heads else _state_emptied(ctx, scope)
            if state:
                emptied[ev.call] = state
                verdict.setdefault(ev.call, False)
                continue
            needed = (not ev.target.heads or ev.target.unknown or bool(own & returned) or ev.call in on_self
                      or any(_kept_on_self(scope, n) for n in own)
                      or any(o.kind in ("backward", "grad") and o.seq > ev.seq and own & o.reach
                             for o in scope.events))
            verdict[ev.call] = verdict.get(ev.call, False) or needed
    return [UnneededRetain(calls[call], emptied.get(call, []))
            for call, needed in verdict.items() if not needed]


def _kept_on_self(scope, node) -> bool:
    """Is a graph node stored on `self` still held there when the scope ends?
    `self.losses = []` after the backward drops it; a later call of another
    method could otherwise backward it again."""
    if not (node.name and node.name.startswith("self.")):
        return False
    held = scope.env.get(node.name)
    return held is None and node.name not in scope.bound or (
        held is not None and node in closure(held.heads))


def _state_emptied(ctx, scope):
    """`loss = torch.cat(self.losses).sum(); loss.backward(retain_graph=True);
    self.losses = []`: a loss built from attributes of `self` that other code
    filled, each rebound to a value without a graph by the end of the scope,
    and no other backward call in the file. Returns the attributes, or None."""
    reads = [k for k in scope.free_reads if k.startswith("self.")]
    if not reads:
        return None
    calls = [n for n in nodes(ctx.module) if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
             and n.func.attr.value in ("backward", "manual_backward")]
    if len(calls) != 1:
        return None
    if any(k not in scope.env or scope.env[k].heads or scope.env[k].unknown for k in reads):
        return None
    return sorted(reads)
