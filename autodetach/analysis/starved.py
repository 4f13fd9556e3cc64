"""Optimizer steps whose modules reach the loss only through a cut.

A step updates the modules its optimizer owns. When no backward since the
last `zero_grad()` reaches some of them directly, but a path cut by
`.detach()`, `.data` or `Variable(x.data)` (a ghost edge, graph.py) does,
those modules get no gradient from that loss and silently stop learning.
A partial cut too: one term of the loss runs a model the step does not
update on a value cut from the ones it does (`netD(fake.detach())` added to
an L1 term in the generator's step), so that term teaches them nothing."""
from __future__ import annotations

import builtins
from dataclasses import dataclass

import libcst as cst

from ..imports import dotted

from .decide import param_modules
from .graph import closure
from .walk import nodes


@dataclass
class StarvedStep:
    step: object  # the step event
    backward: object  # the backward it follows, whose path is cut
    cut: object  # the graph node that holds the cut
    modules: set  # the modules the step updates without a gradient from that loss
    partial: bool = False  # one term is cut off; other terms of the loss do reach `modules`
    shown: object = None  # where the step is shown when its call is not in the file (a Lightning phase's optimizer)
    note: str = ""  # what was inferred to find the step


def starved_steps(analysis) -> list:
    out = []
    done = set()
    for scope in analysis.scopes:
        for step in scope.events:
            if step.call in done:
                continue
            phase = _phase(scope, step)
            if phase is not None:
                owned, bws, direct = _phase_backwards(analysis, scope, step, phase)
            elif step.kind == "step":
                owned, bws, direct = _backwards(analysis, scope, step)
            else:
                continue
            if not bws:
                continue
            # Modules this step updates that no backward of the iteration
            # reaches directly, but that a cut path does reach.
            starved = owned - direct
            if starved and phase is None and (_unseen_store(scope, step, bws) or _reads_unbound(analysis, bws)):
                continue
            shown, note = (phase[1], scope.driver_note) if phase is not None else (None, "")
            if not starved:
                term = _dead_term(analysis, bws, owned)
                if term is not None:
                    done.add(step.call)
                    out.append(StarvedStep(step, term[0], term[1], term[2], partial=True, shown=shown, note=note))
                continue
            cut = _cut(analysis, bws, starved)
            if cut is None:
                copied = _copied(analysis, scope, step, bws, starved) if phase is None else None
                if copied is not None:
                    done.add(step.call)
                    out.append(copied)
                continue
            done.add(step.call)
            out.append(StarvedStep(step, cut[0], cut[1], starved, shown=shown, note=note))
    return out


def _backwards(analysis, scope, step):
    """(owned modules, backwards since the last zero_grad, modules any backward
    of the iteration reaches directly) for an optimizer's step."""
    opt = analysis.names.optimizers.get(step.opt)
    if opt is None or not opt.owns:
        return set(), [], set()
    owned = set(opt.owns)
    zeros = [z for z in scope.events if z.kind == "zero" and z.seq < step.seq and z.tag == step.tag
             and (z.opt == step.opt or (z.modules is not None and owned <= set(z.modules)))]
    if not zeros:
        return owned, [], set()
    start = zeros[-1].seq
    bws = [b for b in scope.events if b.kind == "backward" and start < b.seq < step.seq and b.tag == step.tag]
    direct = set()
    for backward in scope.events:
        if backward.kind == "backward" and backward.tag == step.tag:
            direct |= param_modules(analysis, backward.reach)
    return owned, bws, direct


def _unseen_store(scope, step, bws) -> bool:
    """A backward of the step's iteration hangs, uncut, from `self.X` that another method fills
    with a graph this walk does not see (`obs, log_prob = self.memory`, the list `act()` stores):
    what that graph reaches is not known, so the step's modules may get their gradient through it."""
    for backward in bws:
        if any(node.kind == "stored" and not node.modules for node in backward.reach):
            return True
    return False


def _reads_unbound(analysis, bws) -> bool:
    """A backward's function reads a name no scope of the file binds, nor a builtin, nor a star
    import (a notebook's loss on `u`, never assigned): the code stops there with a NameError or
    gets it from out of sight, so what its loss reaches is not known."""
    ctx = analysis.ctx
    memo = analysis.table("_starved_unbound")
    if "blocks" not in memo:
        blocks = set()
        bindings = ctx.bindings
        if not bindings.module.star_import:
            for name, scope in bindings.reads:
                if name.value in _BUILTINS or bindings.owner(name.value, scope) is not None:
                    continue
                blocks.add(id(bindings.code_block(scope).node))
        memo["blocks"] = blocks
    blocks = memo["blocks"]
    if not blocks:
        return False
    for backward in bws:
        try:
            block = ctx.bindings.code_block(ctx.bindings.scope_of(backward.call))
        except (KeyError, AttributeError):
            continue
        if id(block.node) in blocks:
            return True
    return False


_BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__builtins__", "__spec__", "__doc__",
                                        "get_ipython", "display", "In", "Out"}


def _phase(scope, step):
    """(modules, expression) of a Lightning phase's optimizer (optimizer_phases) that `step` steps."""
    if step.kind != "unknown_step" or not scope.phase_owners or not isinstance(step.call, cst.Call):
        return None
    return scope.phase_owners.get(dotted(step.call.func.value) if isinstance(step.call.func, cst.Attribute) else None)


def _phase_backwards(analysis, scope, step, phase):
    """A phase's step follows only its own call's backwards: Lightning zeroes
    that optimizer's gradients before the call."""
    start = max((e.seq for e in scope.events if e.kind in ("step", "unknown_step") and e.seq < step.seq), default=-1)
    bws = [b for b in scope.events if b.kind == "backward" and start < b.seq < step.seq]
    direct = set()
    for backward in bws:
        direct |= param_modules(analysis, backward.reach)
    return set(phase[0]), bws, direct


def _dead_term(analysis, bws, owned):
    """(backward, node, modules) for a term of the loss that runs another
    model on a value cut from the stepped ones: `d(fake.detach())` in the
    generator's loss, next to an L1 term that does reach the generator. The
    term sends the stepped modules nothing, so their adversarial signal is
    lost (a partial cut). None when there is none. Only a call of a model the
    step does not update counts: a TD target `r + q(s2).detach()` or a value
    fed back into a stepped model is a cut on purpose."""
    for backward in bws:
        graph = closure(backward.target.heads)
        if not param_modules(analysis, graph) & owned:
            continue  # not a loss of this step's models (a discriminator's own loss): no term to lose
        for node in sorted(graph, key=lambda n: n.seq):
            if not node.ghosts or node.leaf:
                continue
            own = param_modules(analysis, [node])
            if not own or own & owned:
                continue
            lost = owned & param_modules(analysis, closure(node.ghosts, through_ghosts=True))
            if not lost or lost & param_modules(analysis, closure(node.parents)):
                continue
            if _unpacked_elsewhere(node, own):
                continue
            # the same model also run on the live value (a relativistic loss's detached
            # reference next to `netD(fake)`): the cut one is a reference, not the lost term
            if any(other is not node and param_modules(analysis, [other]) & own and
                   param_modules(analysis, closure(other.parents)) & lost for other in graph):
                continue
            return backward, node, lost
    return None


def _unpacked_elsewhere(node, own) -> bool:
    """`tau, expected = project(dist, next_state, reward)`: one node stands for all the results of a
    call whose code builds them apart (`tau` from `dist.data`, `expected` from `target_model(...)`),
    and the statement runs none of `own` itself: that the model ran on the cut value is not shown."""
    stmt = node.stmt
    body = getattr(stmt, "body", None)
    if not isinstance(body, (list, tuple)) or len(body) != 1 or type(body[0]) is not cst.Assign:
        return False
    assign = body[0]
    if not any(isinstance(t.target, (cst.Tuple, cst.List)) for t in assign.targets):
        return False
    return not any(isinstance(x, cst.Call) and dotted(x.func) in own for x in nodes(assign.value))


@dataclass
class CopiedStep:
    """A step whose modules the loss reaches only through a copy of them (analysis.copied_modules)."""
    step: object
    backward: object
    copy: object  # copied_modules.Copy
    reached: str  # the copy's name among the modules the loss reaches
    modules: set


def _copied(analysis, scope, step, bws, starved):
    """The loss reaches a copy of a starved module (`fast = copy.deepcopy(model)`): its
    parameters are new leaves, with no edge back. Not where gradients are read or written
    by hand (`p.grad = fp.grad`, first-order MAML and Reptile hand them over)."""
    from .copied_modules import copies, hands_gradients

    found = copies(analysis)
    if not found or hands_gradients(scope.body):
        return None
    owner = analysis.names.optimizers.get(step.opt)
    for backward in bws:
        for reached in sorted(param_modules(analysis, backward.reach)):
            if owner is not None and reached in (owner.owns or ()):
                continue  # the optimizer steps the copy itself (module_parts counts its source as a part of it)
            for copy in found.get(reached, ()):
                lost = {m for m in starved if m == copy.source or m.startswith(copy.source + ".")}
                if lost and not _original_runs(analysis, copy, backward):
                    return CopiedStep(step, backward, copy, reached, lost)
    return None


# What a copy's original may do without running a forward of its own.
_NO_FORWARD = {"state_dict", "load_state_dict", "parameters", "named_parameters", "train", "eval", "to", "cuda",
               "cpu", "zero_grad", "clone", "requires_grad_", "modules", "children", "buffers"}


def _original_runs(analysis, copy, backward) -> bool:
    """Is the original run, or handed to anything, in the function that copies it or the one
    that backwards (`self.policy(obs)`, `self.policy.get_log_probs(...)`, `learner =
    wrap(self.model)`)? Then a loss may reach it by a path the walk did not follow (a helper
    method, a wrapper): the old policy of PPO, a KD teacher and a target network are copies
    beside an original that trains."""
    src = copy.source
    ctx = analysis.ctx
    scopes = {ctx.enclosing(copy.stmt, (cst.FunctionDef,)), ctx.enclosing(backward.call, (cst.FunctionDef,))}
    scopes = [s for s in scopes if s is not None] or [ctx.module]
    making = set()  # `adapted = self.inner(self.body, x)`: the call that hands back the copy
    for node in (n for scope in scopes for n in nodes(scope)):
        if type(node) is cst.Assign and any(dotted(t.target) == copy.name for t in node.targets):
            making.add(id(node.value))
        if type(node) is not cst.Call or id(node) in making:
            continue
        func = node.func
        if dotted(func) == src:
            return True
        if type(func) is cst.Attribute and dotted(func.value) == src and func.attr.value not in _NO_FORWARD:
            return True
        if node is not getattr(copy.stmt, "value", None) and \
                any(dotted(arg.value) == src for arg in node.args) and \
                not (type(func) is cst.Attribute and func.attr.value in ("deepcopy", "load_state_dict")) and \
                dotted(func) not in ("copy.deepcopy", "deepcopy"):
            return True
    return False


def _cut(analysis, bws, starved):
    """(backward, node) of the first backward whose graph reaches a starved
    module through a ghost edge, or None."""
    for backward in bws:
        for node in closure(backward.target.heads | backward.target.ghosts):
            for ghost in node.ghosts:
                if starved & param_modules(analysis, closure([ghost], through_ghosts=True)):
                    return backward, node
    return None
