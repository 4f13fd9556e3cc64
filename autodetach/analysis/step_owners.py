"""Which modules an optimizer of unknown parameters steps, from the training
idiom around its step.

An optimizer handed in by the caller (`def train(models, optimizers)`,
`[opt, opt_conf] = optimizers`) or built in another file shows no
parameters here. The idiom `opt.zero_grad(); loss.backward(); opt.step()`
(or `model.zero_grad()`, clearing the modules the graph runs, in place of
the optimizer's clear) still says something: the step applies the gradients of that backward, so
it updates some of the modules that backward ran through. When a later
backward of the same pass walks a graph node built before the step from
such a module, and that node is one the cleared-and-stepped backward ran
through too (the shared trunk of two losses), the step most likely changed
the weights that node saved. It is an inference, never a proof: the
optimizer could own only the other head. Findings resting on it say so and
carry no fix."""
from __future__ import annotations

from typing import Optional

from .arms import reaches
from .stale import _other_arm as other_arm


def stepped_by_idiom(analysis, scope, step, node, later) -> Optional[object]:
    """The backward event whose gradients `step` applies, when the step's
    optimizer has no known parameters, it was cleared before that backward
    in the same pass, and that backward ran through `node`; else None.
    `later` is the backward after the step: it must be another call (not one
    helper's backward run twice) and the step not one a helper runs."""
    optimizer = analysis.names.optimizers.get(step.opt) if step.opt else None
    # a helper that steps optimizers in turn was expanded pair by pair (analysis.multi_steps):
    # its events say which backward each step follows, as for code in sight
    multi = analysis.table("multi_step_events")
    if optimizer is None or optimizer.owns is not None or step.kind != "step" or \
            (step.helper and id(step) not in multi):
        return None
    from .decide import covers

    # the clear of the idiom: `opt.zero_grad()`, or `model.zero_grad()` over the modules the node
    # runs (the gradients the step then applies are those of the backwards since that clear)
    zeros = [e for e in scope.events if e.kind == "zero" and e.tag == step.tag and e.seq < step.seq
             and not other_arm(e.branch, step.branch)
             and (e.opt == step.opt or e.opt is None and e.modules and node.modules
                  and all(covers(e.modules, m) for m in node.modules))]
    if not zeros:
        return None
    cleared = max(zeros, key=lambda e: e.seq)
    from .negated_terms import ascent_passes

    # a multiplier's ascent pass reaches the other modules only through the term it negates
    # (analysis.negated_terms): the optimizer it precedes steps the multiplier, not them
    ascents = ascent_passes(analysis)
    for ev in scope.events:
        if id(ev.call) in ascents:
            continue
        if ev.kind == "backward" and cleared.seq < ev.seq < step.seq and ev.tag == step.tag \
                and ev.call is not later.call and (not ev.helper or id(ev) in multi) \
                and not other_arm(ev.branch, step.branch) and node in ev.reach and reaches(analysis, ev, node):
            return ev
    return None
