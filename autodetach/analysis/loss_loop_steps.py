"""A loop over the losses of one forward pass that steps inside the loop.

    for opt, loss in zip(optimizers, losses):      # or enumerate(losses)
        opt.zero_grad()
        loss.backward(retain_graph=True)
        opt.step()                                  # or optimizer[idx].step()

`.backward()` on the loop variable says the loop's elements are losses built
before the loop; `retain_graph` says they share a graph that the next pass
walks again. The step inside the loop changes parameters in place between
two backwards through that shared graph, so the next backward finds saved
weights modified ("modified by an inplace operation" on torch >= 1.5). The
fix backwards every loss first and steps after the loop. That the shared part
saved weights the step updates is inferred (the optimizers could own only
each loss's own head), so the finding carries no fix."""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..imports import dotted
from .walk import nodes

_SKIP = (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)
_NOT_OPT = ("sched", "lr", "warmup", "ema", "swa", "scaler", "env")


@dataclass
class LoopStep:
    backward: cst.Call  # the retained backward of a loop element
    step: cst.Call  # the step after it in the loop body
    loop: cst.For


def steps_between_loss_backwards(root, names) -> list:
    """Every such loop under `root` (a module or a function)."""
    out = []
    for loop in nodes(root):
        if type(loop) is not cst.For or not isinstance(loop.body, cst.IndentedBlock):
            continue
        targets = {n.value for n in nodes(loop.target) if type(n) is cst.Name}
        body = loop.body.body
        for i, stmt in enumerate(body):
            backward = next((c for c in _calls(stmt) if _retained_backward(c, targets)), None)
            if backward is None:
                continue
            step = next((c for later in body[i + 1:] if isinstance(later, cst.SimpleStatementLine)
                         for c in _calls(later) if _optimizer_step(c, targets, names)), None)
            if step is not None:
                out.append(LoopStep(backward, step, loop))
            break
    return out


def _calls(stmt) -> list:
    return [n for n in nodes(stmt, skip=_SKIP) if type(n) is cst.Call and type(n.func) is cst.Attribute]


def _retained_backward(call, targets) -> bool:
    """`loss.backward(retain_graph=...)` on a loop variable, the retain not a literal False."""
    if call.func.attr.value != "backward" or type(call.func.value) is not cst.Name \
            or call.func.value.value not in targets:
        return False
    retain = next((a.value for a in call.args if a.keyword is not None and
                   a.keyword.value in ("retain_graph", "retain_variables")), None)
    return retain is not None and not (type(retain) is cst.Name and retain.value in ("False", "None"))


def _optimizer_step(call, targets, names) -> bool:
    """`opt.step()` of an optimizer: a loop variable (zipped with the
    losses), one indexed by a loop variable (`optimizer[idx]`), or a name the
    analysis knows as an optimizer. Never a scheduler's."""
    if call.func.attr.value != "step" or call.args:
        return False
    base = call.func.value
    key = dotted(base)
    if key is not None and any(w in key.rsplit(".", 1)[-1].lower() for w in _NOT_OPT):
        return False
    if type(base) is cst.Name and base.value in targets:
        return not names.is_module(base.value)
    if type(base) is cst.Subscript and len(base.slice) == 1 and isinstance(base.slice[0].slice, cst.Index):
        index = base.slice[0].slice.value
        owner = dotted(base.value) or ""
        return type(index) is cst.Name and index.value in targets and \
            not any(w in owner.rsplit(".", 1)[-1].lower() for w in _NOT_OPT)
    return key is not None and key in names.optimizers
