"""Losses that arrive as arguments: `def backward(self, gen_loss, dis_loss)`.

Trainer classes often compute every loss in one method and backward them in
another. An argument's graph was built by the caller, before any statement
of the callee ran, so an optimizer step inside the callee comes after it.
Whether that graph uses what the step updates is not visible here; for a
GAN it follows from the names: the generator's loss goes through the
discriminator. Sites found here rest on that inference."""
from __future__ import annotations

import re

import libcst as cst

from ..imports import dotted
from .roles import side
from .walk import nodes

_LOSS_SIDE = re.compile(r"^(?:loss_?)?(g|gen|generator|netg|d|dis|disc|discriminator)(?:_?(?:loss|adv|gan|err))*$"
                        r"|^err_?(g|d)$", re.I)


def loss_side(name: str) -> str:
    """`gen_loss` -> g, `loss_D` -> d, `errG` -> g; '' when the name says nothing."""
    m = _LOSS_SIDE.match(name)
    if not m:
        return ""
    word = (m.group(1) or m.group(2)).lower()
    return "g" if word.startswith(("g", "netg")) else "d"


def generator_after_critic_step(fn: cst.FunctionDef, optimizers: dict) -> list:
    """(backward call, step call, argument) where an argument named as a
    generator loss is backwarded after the step of an optimizer named for
    the discriminator, in `fn`'s own statements."""
    params = {p.name.value for p in list(fn.params.params) + list(fn.params.kwonly_params)}
    # No generator-loss argument, or no discriminator optimizer: nothing to find (no walk).
    if not any(loss_side(p) == "g" for p in params) or not any(side(o) == "d" for o in optimizers):
        return []
    rebound = {dotted(t.target) for t in nodes(fn, skip=(cst.FunctionDef, cst.ClassDef))
               if isinstance(t, cst.AssignTarget)}
    out, stepped = [], None
    for n in nodes(fn.body, skip=(cst.FunctionDef, cst.ClassDef)):
        if not isinstance(n, cst.Call) or not isinstance(n.func, cst.Attribute):
            continue
        base, meth = dotted(n.func.value), n.func.attr.value
        if meth == "step" and base in optimizers and side(base) == "d":
            stepped = stepped or n
        elif meth == "backward" and stepped is not None and base in params and base not in rebound \
                and loss_side(base) == "g":
            out.append((n, stepped, base))
    return out
