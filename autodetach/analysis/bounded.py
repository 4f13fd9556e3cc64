"""Sums that live for one optimizer step only.

`for sub_i in range(iter_size): ...; loss.backward(); loss_value += loss`
inside a step loop that resets `loss_value = 0` and steps after the
sub-iterations: each summed loss is backwarded (its saved tensors are
freed), and the sum is dropped at the next step, so nothing grows across
iterations. Only what one step computed is held, until the reset.
"""
from __future__ import annotations

from .graph import closure


def within_step(scope, key: str, head, loop, older, outer: tuple) -> bool:
    """Is the sum `key`, kept across the iterations of `loop`, reset by every
    iteration of an enclosing loop that steps an optimizer after `loop` (no
    step inside it), with every addend's graph walked by a backward in `loop`?"""
    if not outer:
        return False
    events = scope.events
    if any(ev.kind == "step" and loop in ev.loops for ev in events):
        return False  # steps inside: the sum spans many steps (an epoch's running total)
    steps = [ev for ev in events if ev.kind == "step" and ev.loops and ev.loops[-1] in outer]
    enclosing = [o for o in outer if any(o in ev.loops for ev in steps)]
    # reset each iteration: the enclosing loop itself sees no sum across its iterations
    if not enclosing or any(key in scope._leak_keys.get(id(o), ()) for o in enclosing):
        return False
    # a retained graph is also dropped with the sum, at the next step
    backwards = [ev for ev in events if ev.kind in ("backward", "grad") and loop in ev.loops]
    reach = set()
    for ev in backwards:
        reach |= ev.reach
    if not reach:
        return False
    kept = set(closure(older)) | set(older)
    addends = [parent for parent in head.parents if parent not in kept and parent.name != key]
    return bool(addends) and all(_freed(node, reach, 0) for node in addends)


def _freed(node, reach: set, depth: int) -> bool:
    """A backward reached the node, or it is a cheap op on values that one
    reached (`loss / iter_size`, `a + b`)."""
    if node in reach:
        return True
    if depth > 6 or node.leaf or not node.parents:
        return False
    return all(_freed(parent, reach, depth + 1) for parent in node.parents)
