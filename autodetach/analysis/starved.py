"""Optimizer steps whose modules reach the loss only through a cut.

A step updates the modules its optimizer owns. When no backward since the
last `zero_grad()` reaches some of them directly, but a path cut by
`.detach()`, `.data` or `Variable(x.data)` (a ghost edge, graph.py) does,
those modules get no gradient from that loss and silently stop learning."""
from __future__ import annotations

from dataclasses import dataclass

from .decide import param_modules
from .graph import closure


@dataclass
class StarvedStep:
    step: object  # the step event
    backward: object  # the backward it follows, whose path is cut
    cut: object  # the graph node that holds the cut
    modules: set  # the modules the step updates without a gradient from that loss


def starved_steps(analysis) -> list:
    out = []
    done = set()
    for sc in analysis.scopes:
        for s in sc.events:
            if s.kind != "step" or s.call in done:
                continue
            opt = analysis.names.optimizers.get(s.opt)
            if opt is None or not opt.owns:
                continue
            owned = set(opt.owns)
            zeros = [z for z in sc.events if z.kind == "zero" and z.seq < s.seq and z.tag == s.tag
                     and (z.opt == s.opt or (z.modules is not None and owned <= set(z.modules)))]
            if not zeros:
                continue
            start = zeros[-1].seq
            bws = [b for b in sc.events if b.kind == "backward" and start < b.seq < s.seq and b.tag == s.tag]
            if not bws:
                continue
            # Modules this step updates that no backward of the iteration
            # reaches directly, but that a cut path does reach.
            direct = set()
            for b in sc.events:
                if b.kind == "backward" and b.tag == s.tag:
                    direct |= param_modules(analysis, b.reach)
            starved = owned - direct
            if not starved:
                continue
            cut = _cut(analysis, bws, starved)
            if cut is None:
                continue
            done.add(s.call)
            out.append(StarvedStep(s, cut[0], cut[1], starved))
    return out


def _cut(analysis, bws, starved):
    """(backward, node) of the first backward whose graph reaches a starved
    module through a ghost edge, or None."""
    for b in bws:
        for n in closure(b.target.heads | b.target.ghosts):
            for g in n.ghosts:
                if starved & param_modules(analysis, closure([g], through_ghosts=True)):
                    return b, n
    return None
