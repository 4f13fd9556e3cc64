"""Kept graphs that a later step makes stale.

A list (or sum) of losses kept across the iterations of a loop is
returned to the caller, which the walk does not follow: the caller might
backward it (an unrolled loop), so it is not reported on that ground
alone. But when an optimizer step in the same loop updates, in place, the
parameters of a module the first iteration's kept graph went through, a
backward through that graph after the loop either raises ("modified by an
inplace operation", when the graph saved the weights) or sends old graphs'
gradients to updated parameters: the caller is taken to keep the values
for the log only. That stays an inference (the fix is unsafe).
"""
from __future__ import annotations

from typing import Optional

from .graph import closure
from .saved import saves_weights


def stale_step(scope, loop, older) -> Optional[tuple]:
    """(optimizer, module) of a step inside `loop` that updates in place the
    parameters of `module`, which a node of the first iteration's kept values
    (`older`) was computed through before the step, and whose weights that node
    may save (a model handed in as a parameter: unknown, taken as saved); None
    when there is none."""
    first = (id(loop), 1)
    kept = [n for n in closure(older) if first in n.iteration and not n.leaf]
    steps = [e for e in scope.events if e.kind == "step" and loop in e.loops and e.opt and not e.exits]
    if not steps:
        return None
    analysis = scope.analysis
    for node in sorted(kept, key=lambda n: n.seq):
        for module in sorted(node.modules):
            if not analysis.names.has_params(module):
                continue
            for step in steps:
                if step.seq <= node.seq or analysis.owner_uses(step.opt, module) is not True:
                    continue
                if saves_weights(analysis, node, module) is not False:
                    return step.opt, module
    return None
