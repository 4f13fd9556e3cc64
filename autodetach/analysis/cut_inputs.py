"""A term of a loss that runs another model on a value cut from the stepped ones, inline.

    g_loss = bce(netD(fake.detach()), ones) + l1(fake, real)
    optG.zero_grad(); g_loss.backward(); optG.step()

starved.py finds this shape when the model's output is bound to a name (a
node of the graph); written inline the call has no node of its own, so it
is read here from the values dead_terms.py's walk records per expression.
The term sends the stepped modules no gradient (the other terms still do).
Left alone: a term that reaches a stepped module itself (the discriminator's
own step, a classifier trained on detached features), the same model also
run on a live value (a relativistic reference), and a loss whose stepped
modules no other term trains (starved.py's whole cut)."""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..imports import dotted
from .graph import closure
from .walk import nodes


@dataclass
class CutInput:
    site: cst.CSTNode  # the backward call
    runs: cst.CSTNode  # the model call inside the term
    cut: cst.CSTNode  # the cut among its arguments
    lost: frozenset  # stepped modules the term sends nothing
    stmt: cst.CSTNode = None  # the statement that holds the cut


def cut_inputs(analysis, vals, scope, site, terms) -> list:
    from .dead_terms import _cuts, _within
    from .decide import param_modules

    def reach(val) -> set:
        return param_modules(analysis, closure(val.heads)) | {m for m in val.modules if analysis.names.has_params(m)}

    stepped = _next_steps(analysis, scope, site)
    if not stepped:
        return []
    live = []
    for term, _, _ in terms:
        val = vals.get(id(term))
        if val is None:
            return []  # a branch the walk did not take: cannot tell
        if val.heads or val.modules or val.unknown:
            live.append((term, reach(val), val.unknown))
    out = []
    for term, own, unknown in live:
        if unknown or any(_within(m, stepped) for m in own):
            continue  # the term reaches a stepped module itself
        trained = set()
        for other, theirs, _ in live:
            if other is not term:
                trained |= theirs
        for call in _model_calls(analysis, term):
            key = dotted(call.func)
            if _within(key, stepped):
                continue
            cut, lost = None, set()
            for arg in call.args:
                for node, value in _cuts(arg.value, analysis):
                    val = vals.get(id(value))
                    if val is not None and (val.heads or val.modules):
                        cut = cut or node
                        lost |= {m for m in reach(val) if _within(m, stepped)}
            lost -= own
            if cut is None or not lost or not all(_within(m, trained) for m in lost):
                continue
            if _also_live(analysis, terms, call, lambda arg: id(arg) in vals and reach(vals[id(arg)]) & lost):
                continue  # `D(fake) - D(fake.detach())`: the cut one is a reference
            out.append(CutInput(site, call, cut, frozenset(lost)))
            break
    return out


def _next_steps(analysis, scope, site) -> set:
    """Modules the steps right after the backward `site` update, before any
    other backward (a later step, the next iteration's included, follows another
    loss); empty when one of them is not known."""
    backs = [e for e in scope.events if e.kind == "backward" and e.call is site]
    if not backs:
        return set()
    out = set()
    for event in scope.events:  # (a loop is walked twice: its first pass decides)
        if event.seq <= backs[0].seq:
            continue
        if event.kind == "backward" or event.kind == "unknown_step":
            break
        if event.kind == "step":
            opt = analysis.names.optimizers.get(event.opt)
            if opt is None or not opt.owns:
                return set()
            out |= set(opt.owns)
    return out


def _model_calls(analysis, term) -> list:
    """Calls in `term` of a module with parameters (`netD(x)`, `self.d(x, f)`), outermost first."""
    return [n for n in nodes(term, skip=(cst.Lambda,)) if type(n) is cst.Call and
            isinstance(n.func, (cst.Name, cst.Attribute)) and dotted(n.func) in analysis.names.modules and
            analysis.names.has_params(dotted(n.func))]


def _also_live(analysis, terms, call, live) -> bool:
    """Another call of the same model in the loss on an argument that carries
    the lost modules' graph (`live`)."""
    for term, _, _ in terms:
        for other in _model_calls(analysis, term):
            if other is not call and dotted(other.func) == dotted(call.func) and any(live(a.value) for a in other.args):
                return True
    return False
