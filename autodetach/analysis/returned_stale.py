"""A loss handed back to the caller through a graph an optimizer step in the
function made stale.

A function (a loss module's `forward`, a `train_discriminator` helper) that
trains one network inside (its backward, then `opt_d.step()`) and then
builds the other network's loss, which it returns, from an output of the
stepped network computed before the step (a relativistic GAN's `d_real`
kept from the discriminator update): whatever backwards the returned loss
walks weights that the step modified in place ("one of the variables needed
for gradient computation has been modified by an inplace operation").

What the function proves: the step's optimizer owns the module whose output
the returned value reaches (built before the step, a layer that saves its
weights), and the returned value is built after the step through a fresh
forward of a module (it is a loss built for the next update, not an output
handed back for logging). What it does not prove: that the caller backwards
it; the finding says so, and there is no fix (the forward must be recomputed
after the step, or the stale output detached, which changes the gradients).
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from .graph import closure
from .stale import _left_alone, _may_save, _other_arm, _steps
from .step_owners import stepped_by_idiom


class _NoCall:
    call = None  # stands for the caller's backward, which this file does not show


@dataclass
class StaleReturn:
    scope: object
    ret: object  # the Return statement
    step: object  # the step event
    stale: object  # the node built before the step that the returned value reaches
    read: object  # the statement after the step that reads a stale node (the return itself, or the first)
    fresh: object  # the statement after the step that runs a module (a new forward)
    applied: object = None  # inferred: the backward whose gradients the step applies (its parameters unknown)


def stale_returns(analysis) -> list:
    out = []
    for scope in analysis.scopes:
        sites = getattr(scope, "return_sites", ())
        if not sites or scope.name == "<module>":
            continue
        steps = [e for e in scope.events if e.kind == "step"]
        if not steps:
            continue
        done = set()
        # `return term, d_loss`, `return {"loss": g, "d": d}`: each element is its own value (the
        # caller may backward one and log the other), so one must both read the stale output and
        # run a new forward
        sites = [(ret, part, seq, tag, branch) for ret, val, seq, tag, branch in sites for part in _parts(val)]
        for ret, val, seq, tag, branch in sites:
            if id(ret) in done or not val.heads:
                continue
            reach = closure(val.heads)
            for step in steps:
                if step.seq > seq or step.exits or tag[:len(step.tag)] != step.tag and \
                        step.tag[:len(tag)] != tag:
                    continue  # the step runs before the return, in its pass or a loop before it
                if step.tag[:len(tag)] == tag and len(step.tag) == len(tag) and _other_arm(step.branch, branch):
                    continue
                stale = [n for n in reach if not n.leaf and n.seq and n.seq < step.seq and n.modules
                         and any((stepped := _steps(analysis, step, m))
                                 and _may_save(analysis, n, m, stepped, scope)
                                 and not _left_alone(analysis, scope, step, m) for m in n.modules)]
                idiom = None
                if not stale:
                    # the optimizer's parameters are unknown (`make_optimizer(args, self.dis)` of another
                    # file): it steps what the backward it applies ran through (analysis.step_owners)
                    for n in sorted(reach, key=lambda x: x.seq):
                        if not n.leaf and n.seq and n.seq < step.seq and n.modules and \
                                all(_may_save(analysis, n, m, True, scope) for m in n.modules):
                            idiom = stepped_by_idiom(analysis, scope, step, n, _NoCall)
                            if idiom is not None:
                                stale = [n]
                                break
                if not stale:
                    continue
                # built after the step in the return's own pass (after the loop that steps, when there is
                # one): not a later pass of a training loop, whose next forward and running sums
                # (`total += loss`) are no loss built for the caller
                # (and not in the other arm of an `if` around the step: `if training: step(); else: eval()`)
                after = [n for n in reach if not n.leaf and n.seq > step.seq and n.iteration == tag
                         and not _other_arm(step.branch, n.branch)]
                # the new forward runs the stepped network again (the critic judging the fakes after its
                # own update): not a metric or another model applied to the outputs
                stepped_modules = {m for n in stale for m in n.modules}
                fresh = [n for n in after if set(n.modules) & stepped_modules]
                read = sorted((n for n in after if set(n.parents) & set(stale)), key=lambda n: n.seq)
                # `return F.softplus(d_real - g_fake).mean()`: the return reads the stale output itself
                # (not `return out` of a dict whose entries were stored one by one: which entry is which?)
                direct = not val.bare and not isinstance(ret.value, (cst.Name, cst.Attribute, cst.Subscript))
                read_stmt = read[0].stmt if read else ret if direct and set(val.heads) & set(stale) else None
                # a new forward after the step: a node that ran a module, or a module the returned
                # expression calls itself (`return F.softplus(d_real - critic(fake)).mean()`)
                fresh_stmt = min(fresh, key=lambda n: n.seq).stmt if fresh else \
                    ret if set(val.modules) & stepped_modules else None
                if fresh_stmt is None or read_stmt is None or _backwarded_here(scope, step, stale):
                    continue
                done.add(id(ret))
                out.append(StaleReturn(scope, ret, step, min(stale, key=lambda n: n.seq), read_stmt,
                                       fresh_stmt, idiom))
                break
    return out


def _backwarded_here(scope, step, stale) -> bool:
    """A backward after the step in this function walks the stale graph: the
    main analysis (stale.stale_graphs) reports it there."""
    return any(e.kind in ("backward", "grad") and e.seq > step.seq and set(stale) & set(e.reach)
               for e in scope.events)


def _parts(val) -> list:
    """The values a return hands back one by one: a tuple's elements, a dict
    literal's entries (each in turn, when nested), or the value itself."""
    if val.elems is not None:
        return [p for e in val.elems for p in _parts(e)]
    if val.entries:
        return [p for e in val.entries.values() for p in _parts(e)]
    return [val]
