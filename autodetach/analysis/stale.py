"""Graphs backwarded after an optimizer step changed the parameters they saved.

`step()` updates parameters in place; a graph built before it saved the old
values, so a backward through it after the step fails on torch >= 1.5
("modified by an inplace operation"). Found per scope from the events: a
step between the building of a graph and its backward, in the same pass of
the loops, or a step in one pass and a backward in the next through a graph
built before the loop."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .arms import reaches
from .graph import closure


@dataclass
class StaleGraph:
    scope: object
    backward: object  # the backward event
    step: object  # the step event before it
    stale: list  # graph nodes built before the step, from parameters it updates
    part: Optional[str]  # inferred: the part of the called model the step updates (`net.encoder`)
    note: Optional[str] = None  # inferred: the order of two phase methods (analysis.phases)

    @property
    def built(self):
        """The first stale node: where the graph at risk was built."""
        return min(self.stale, key=lambda n: n.seq)


def stale_graphs(analysis) -> list:
    """One StaleGraph per backward call, the first step that makes it stale."""
    from .phases import phase_pairs

    out = []
    done = set()
    for sc in analysis.scopes + phase_pairs(analysis):
        steps = [e for e in sc.events if e.kind == "step"]
        for b in sc.events:
            if b.kind not in ("backward", "grad") or b.call in done:
                continue
            for s in steps:
                if s.seq > b.seq or (s.exits and s.branch != b.branch[:len(s.branch)]):
                    continue
                if s.tag == b.tag and _other_arm(s.branch, b.branch):
                    continue  # `if ...: step` and `else: backward` never run in one pass
                fits = _this_pass(b.tag) if s.tag == b.tag else _after_inner_loop(s, b) or _before_loop(sc, s, b)
                if fits is None:
                    continue
                stale = [n for n in b.reach if not n.leaf and n.seq < s.seq and fits(n)
                         and any(_steps(analysis, s.opt, m) and _may_save(analysis, n, m, _steps(analysis, s.opt, m))
                                 for m in n.modules) and reaches(analysis.ctx, b, n)]
                if not stale:
                    continue
                done.add(b.call)
                n = min(stale, key=lambda x: x.seq)
                part = next((p for m in sorted(n.modules) for p in [_steps(analysis, s.opt, m)]
                             if isinstance(p, str)), None)
                out.append(StaleGraph(sc, b, s, stale, part, getattr(sc, "phase_note", None)))
                break
    return out


def _this_pass(tag):
    """Nodes built in the backward's pass of its loops, inner loops included
    (`for chunk in chunks: feats.append(net(chunk))` before the step)."""
    return lambda n: n.iteration[:len(tag)] == tag


def _after_inner_loop(s, b):
    """A step in a loop the backward comes after (`for _ in range(n_critic):
    train_d()`, then `loss_g.backward()`): every graph of the backward's pass
    built before the step's last run is at risk. Returns a test, or None."""
    if len(s.tag) <= len(b.tag) or s.tag[:len(b.tag)] != b.tag:
        return None
    return lambda n: n.iteration[:len(b.tag)] == b.tag or b.tag[:len(n.iteration)] == n.iteration


def _before_loop(sc, s, b):
    """A step in one pass of a loop and a backward in the next: the graph at
    risk is the one built before the loop (the later pass did not rebuild
    it). Returns a test for such nodes, or None. None too when an earlier
    pass's backward freed that graph: that is a graph built before the loop
    (Problem.BUILT_BEFORE_LOOP), not this problem."""
    for i, (st, bt) in enumerate(zip(s.tag, b.tag)):
        if st == bt:
            continue
        if st[0] != bt[0] or (st[1], bt[1]) != (1, 2):
            return None
        outside, loop = b.tag[:i], st[0]

        def fits(n):
            return n.iteration[:i] == outside and (len(n.iteration) <= i or n.iteration[i][0] != loop)

        freed = {n for e in sc.events if e.kind in ("backward", "grad") and e.retain is False
                 and len(e.tag) > i and e.tag[i] == st
                 and not (e.tag == s.tag and _other_arm(e.branch, s.branch)) for n in e.reach if not n.leaf}
        if any(fits(n) for n in freed):
            return None
        # A value the stepping pass built and the next pass reads (a retained graph):
        # not state or a sum carried on purpose (AD106, AD101 say what is wrong there).
        carried = {n for n in b.reach if n.iteration[:i + 1] == s.tag[:i + 1] and n not in freed}
        if any(n.kind in ("state", "accum", "container") for n in carried) or _accumulates(b, carried):
            return fits
        return lambda n: fits(n) or n in carried
    return None


def _accumulates(b, carried) -> bool:
    """`total = total + loss`: a name of this pass hangs from its value of the
    last pass (a sum kept across iterations, AD101/AD102's finding)."""
    names = {n.name for n in carried if n.name}
    for x in b.reach:
        if x.iteration == b.tag and x.name in names and \
                any(p in carried and p.name == x.name for p in closure(x.parents)):
            return True
    return False


def _other_arm(x: tuple, y: tuple) -> bool:
    """Are two branch paths in different arms of one `if`?"""
    return any(a[0] == b[0] and a[1] != b[1] for a, b in zip(x, y))


def _may_save(a, n, module, part) -> bool:
    """Can node `n` hold the weights of `module` (or of its stepped `part`)?
    Not when the layer provably saves none: `nn.Linear` on raw data saves
    only its input, so a step changes nothing the backward reads."""
    from .saved import part_saves, saves_weights

    if isinstance(part, str):
        return part_saves(a, n, module, part) is not False
    return saves_weights(a, n, module) is not False


def _steps(a, opt, module):
    """Does `opt` step parameters that `module` uses? True, or the part of
    `module` it steps (`net.encoder` of `net`: calling a model is assumed to
    run its parts), or None."""
    if a.owner_uses(opt, module) is True:
        return True
    o = a.names.optimizers.get(opt)
    parts = sorted(m for m in (o.owns or ()) if m.startswith(module + ".")) if o else []
    return parts[0] if parts else None
