"""Turning a conflict between two backward passes into a diagnosis.

The question that separates a correct fix from a dangerous one: are the
gradients that a backward puts into the upstream modules used (stepped by an
optimizer) or discarded (zeroed first)? Detach is right only on a path whose
gradients into the shared part are discarded; otherwise retain_graph is what
the author meant."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Optional

from .graph import GNode, closure
from .module_parts import parts_of


class Problem(Enum):
    """A kind of problem the analysis finds (`Analysis.diagnoses_for`); each
    AD1 rule maps one kind to its code (the analysis names no rule). The
    first five are conflicts between two backward passes (`diagnose`)."""
    CROSS_ITERATION = "a graph links one iteration to the next"
    RECURRENT_STATE = "recurrent state links one batch to the next"
    BUILT_BEFORE_LOOP = "a graph built once, before the loop, is backwarded in it"
    SHARED_DISCARDED = "a shared graph, one pass's gradients into it discarded"
    SHARED_FREED = "a shared graph freed by the first backward, both passes' gradients used"
    # Not conflicts between two backwards: each found by its own module (FINDERS).
    LOSS_KEPT = "a loss kept across iterations with its graph, never backwarded again"
    RETAIN_UNNEEDED = "a graph retained that no later backward uses"
    STALE_AFTER_STEP = "a graph backwarded after a step changed the parameters it saved"
    CUT_BLOCKS_LEARNING = "a stepped module reaches the loss only through a cut"


@dataclass
class Diagnosis:
    kind: Problem
    scope: object
    conflict: object
    link: GNode  # the tensor that links the two passes
    # SHARED_DISCARDED: Name nodes to wrap in .detach(); SHARED_FREED: the event to retain
    detach_at: list = field(default_factory=list)
    detach_event: object = None
    retain_event: object = None
    reason: str = ""
    blocked: str = ""  # why no fix is offered
    unsafe: str = ""  # why the fix is offered as unsafe


def find(analysis, kind: Problem) -> list:
    """The problems of one kind in the analysed file: a Diagnosis for each
    conflict between two backwards, or the records of the kind's finder."""
    finder = FINDERS.get(kind)
    if finder is None:
        return [diagnosis for diagnosis in analysis.diagnoses if diagnosis.kind is kind]
    return finder(analysis)


def kept_losses(analysis) -> list:
    """(scope, Leak) for losses kept across iterations with their graph,
    which no later backward reaches (that would be gradient accumulation)."""
    return [(scope, leak) for scope, leak in analysis.leaks
            if leak.node.loss and leak.node.stmt is not None and not leak.reached]


def _retained(analysis) -> list:
    from .retained import unneeded_retains

    return unneeded_retains(analysis)


def _stale(analysis) -> list:
    from .stale import stale_graphs

    return stale_graphs(analysis)


def _starved(analysis) -> list:
    from .cut_arguments import cut_arguments
    from .dead_terms import dead_terms
    from .starved import starved_steps

    found = starved_steps(analysis)
    cuts = {id(f.cut.stmt) for f in found if hasattr(f, "cut") and f.cut.stmt is not None}
    # a whole term of a loss cut from the graph (a constant): one finding per cut, where
    # starved.py has not already named its statement
    found += [d for d in dead_terms(analysis) if id(d.stmt) not in cuts]
    # a cut argument of a method that steps the modules only that argument reaches; a method
    # of this file is walked at the call already (starved.py names its step)
    stepped = {f.step.opt for f in found if hasattr(f, "step")}
    # a layer its class's forward cuts from every output, though the class hands it to an optimizer
    from .cut_submodules import cut_submodules

    found += cut_submodules(analysis)
    return found + [c for c in cut_arguments(analysis) if c.opt not in stepped]


FINDERS = {
    Problem.LOSS_KEPT: kept_losses,
    Problem.RETAIN_UNNEEDED: _retained,
    Problem.STALE_AFTER_STEP: _stale,
    Problem.CUT_BLOCKS_LEARNING: _starved,
}


def param_modules(analysis, nodes) -> set:
    out = set()
    for node in nodes:
        for module in node.modules:
            if node.leaf or analysis.names.has_params(module):
                out.add(module)
    return out


def covers(zero_mods, module: str) -> bool:
    """Is `module` one of `zero_mods` or a part of one?"""
    return any(module == z or module.startswith(z + ".") for z in zero_mods)


def _prefix(head: tuple, path: tuple) -> bool:
    return path[:len(head)] == head


def discarded(analysis, scope, ev, modules) -> Optional[bool]:
    """True: every module's gradients from `ev` are zeroed before any step
    reads them. False: some optimizer steps with them. None: cannot tell."""
    if ev.kind == "grad":
        return False  # returned to the caller, who uses them
    for module, fate in _fates(analysis, scope, ev, modules):
        if fate == "unknown":
            return None
        if fate == "stepped":
            return False
        if fate is None and _escapes(scope, module):
            return None  # the caller may step them (`opt_g.step()` after this function returns)
        # Nothing decisive: no optimizer steps with them.
    return True


def zeroed(analysis, scope, ev, modules) -> bool:
    """Stricter than `discarded`: each module's gradients from `ev` are seen
    zeroed before anything steps or reads them; "nothing steps them" is not
    enough (`local.copy_gradients_from`, A3C's `shared._grad = local.grad`)."""
    return all(fate == "zeroed" for _, fate in _fates(analysis, scope, ev, modules))


def _fates(analysis, scope, ev, modules):
    """(module, what happens first to the gradients `ev` put into it), for
    each module and each module built from it."""
    # A module built from another (`Generator(trunk)`) shares its parameters:
    # an optimizer that steps the part (`trunk`, also in D's) uses them too.
    events = scope.events
    start = events.index(ev) if modules else 0
    for module in sorted({p for m in modules for p in parts_of(analysis.names, m)}):
        fate = _fate(analysis, events[start + 1:], ev, module)
        if fate is None and scope.repeats and not ev.loops:
            # A step method runs again for the next batch: what it does before
            # `ev` comes next (a step every second call, before its zero_grad).
            fate = _fate(analysis, events[:start], ev, module)
        yield module, fate


def _escapes(scope, module: str) -> bool:
    """Whether gradients left in `module` by a function outlive it: the
    module comes from a parameter, `self` or a global, not a local."""
    if scope.name == "<module>":
        return False
    root = module.split(".")[0]
    return root == "self" or root in scope.params or root not in scope.bound


def _fate(analysis, later_events, ev, module: str) -> Optional[str]:
    """What happens first, in `later_events`, to the gradients `ev` put into
    `module`: "zeroed", "stepped", "unknown", or None (nothing decisive)."""
    zeroed_on: list = []  # branch paths where the module was zeroed since ev
    for later in later_events:
        if later.kind == "zero":
            if later.modules is None or not covers(later.modules, module):
                continue
            if _prefix(later.branch, ev.branch):
                return "zeroed"
            zeroed_on.append(later.branch)
        elif later.kind == "grad_read":
            # a norm over these gradients scales the others' (clip_grad_norm_): they are read
            if (later.modules is None or any(module == m or module.startswith((m + ".", m + "["))
                                             for m in later.modules)) and \
                    not any(_prefix(z, later.branch) for z in zeroed_on):
                return "unknown"
        elif later.kind == "unknown_step":
            if not any(_prefix(z, later.branch) for z in zeroed_on):
                return "unknown"  # an object we cannot identify steps: maybe with these gradients
        elif later.kind == "backward" and later.helper:
            return "unknown"  # another file's function: its own step (of `opt_G`, passed in) is unseen
        elif later.kind == "step":
            owns = analysis.owner_uses(later.opt, module)
            if owns is False and module in analysis.names.shared.get(later.opt, ()):
                owns = True  # a caller gives it part of the module (caller_owners)
            if owns is False:
                owns = _handed_owner(analysis, later.opt, module)
            if owns is False:
                continue
            if any(_prefix(z, later.branch) for z in zeroed_on):
                continue  # zeroed on every path to this step
            return "stepped" if owns is True else "unknown"
    return None


def _handed_owner(analysis, opt: str, module: str):
    """`train(m, data, o)` walked inline: the callee's `model` is the caller's
    `m`, and its `opt.step()` is the caller's `o.step()`, which owns `m`
    though it never names `model`. True when `o` steps every module the
    callee's parameter was given, None when some, False when none."""
    root, dot, rest = module.partition(".")
    given = analysis.table("handed_modules").get(root)
    if not given:
        return False
    owned = [analysis.owner_uses(opt, key + dot + rest) for key in sorted(given)]
    if all(o is True for o in owned):
        return True
    return None if any(o is not False for o in owned) else False


def _consumers(ev, other, links) -> Optional[list]:
    """Name nodes through which `ev`'s graph reads the linking tensors, when
    cutting them there leaves `other`'s graph intact."""
    out = []
    for link in links:
        readers = [n for n in ev.reach if link in n.parents]
        if not readers:
            return None
        for reader in readers:
            if reader in other.reach or not reader.uses.get(link):
                return None
            out.extend(reader.uses[link])
    return out or None


def _frontier(ev, other) -> tuple:
    """Where `ev`'s graph enters the part it shares with `other`'s: the
    Name nodes through which nodes outside the shared part read nodes in
    it, and those shared nodes. Cutting there keeps `other` intact and takes
    from `ev` every gradient into the shared part (`recon` read by the D loss
    when the VAE loss reads `recon`, `mu` and `logvar`). ([], set()) when a
    read cannot be placed."""
    shared = {n for n in ev.reach if n in other.reach and not n.leaf}
    names, entered = [], set()
    for reader in sorted(ev.reach - shared, key=lambda n: n.seq):
        for parent in reader.parents:
            if parent not in shared:
                continue
            if not reader.uses.get(parent):
                return [], set()
            names.extend(n for n in reader.uses[parent] if n not in names)
            entered.add(parent)
    return names, entered


def stepped_saves(analysis, scope, backward) -> tuple:
    """Optimizer steps that update, in place, parameters whose values the
    graph of `backward` saved before the step. Returns (certain, possible): lists
    of (step, node, module). With a certain one, the reference run itself
    fails at `backward` ("modified by an inplace operation"), so retain_graph=True
    cannot help; with a possible one, whether it fails is not known."""
    from .saved import part_saves, saves_weights

    # an object not known as an optimizer (`trainer.opt.step()`, another file's helper that steps)
    # may step anything: at most a possible update
    steps = [e for e in scope.events if e.kind in ("step", "unknown_step") and not e.exits and e.seq < backward.seq]
    certain, possible = [], []
    if not steps:
        return certain, possible
    for node in sorted(backward.reach, key=lambda n: n.seq):
        for module in sorted(node.modules):
            if not node.leaf and not analysis.names.has_params(module):
                continue
            for step in steps:
                if step.seq <= node.seq:
                    continue
                if step.kind == "unknown_step":
                    if node.leaf or saves_weights(analysis, node, module) is not False:
                        possible.append((step, node, module))
                    continue
                owns = analysis.owner_uses(step.opt, module)
                if owns is False:
                    continue
                saves = None if node.leaf else saves_weights(analysis, node, module)
                part = None if owns is not None or node.leaf else \
                    next((p for p in _parts(analysis, step.opt, module) if part_saves(analysis, node, module, p)), None)
                if part is not None:
                    certain.append((step, node, part))  # the step updates a part of `m` whose weights the graph saved
                    continue
                if saves is False:
                    continue
                (certain if saves and owns else possible).append((step, node, module))
    return certain, possible


def _line(ctx, *candidates) -> Optional[int]:
    """The line of the first node the file has (a Lightning phase's step is made up: it has none)."""
    for node in candidates:
        try:
            return ctx.line_of(node)
        except KeyError:
            continue
    return None


def _parts(analysis, opt, module: str) -> list:
    """The parts of `module` (`module.generator`) that optimizer `opt` steps."""
    optimizer = analysis.names.optimizers.get(opt)
    return sorted(m for m in (optimizer.owns or ()) if m.startswith(module + ".")) if optimizer else []


def _ended(iteration: tuple, tag: tuple) -> bool:
    """Was a node of `iteration` built in this iteration of the loops around the
    pass (tag), or in a loop that ended before it (`for x in data: loss = loss + f(x)`)?"""
    around = {loop for loop, _ in tag}
    return tuple(t for t in iteration if t[0] in around) == tag


def diagnose(analysis, scope, conflict) -> Diagnosis:
    first, second = conflict.first, conflict.second
    crossing = next((n for n in conflict.path if n.iteration != second.tag), None)
    # Inner loops of this iteration (`loss.append(-lp * r)` over a kept list) are not where the
    # iterations meet: the container this iteration last stored into before another's node is.
    other = next((i for i, n in enumerate(conflict.path) if not _ended(n.iteration, second.tag)), 0)
    if other and conflict.path[other - 1].iteration != second.tag and conflict.path[other - 1].kind == "container":
        crossing = conflict.path[other - 1]
    if crossing is not None and first.tag == second.tag and all(_ended(n.iteration, second.tag) for n in conflict.path):
        crossing = None  # built by a loop that ended before both passes: one graph they share
    if first.tag != second.tag or crossing is not None:
        # State a module keeps on itself is the link, wherever the path crosses first.
        held = next((n for n in conflict.links if n.module_state
                     and n.iteration != second.tag[:len(n.iteration)]), None)
        link = held or crossing or conflict.links[0]
        if link.iteration == () or (len(link.iteration) < len(second.tag) and second.tag[:len(link.iteration)]
                                    == link.iteration):
            return Diagnosis(Problem.BUILT_BEFORE_LOOP, scope, conflict, link)
        if link.kind == "state":
            return Diagnosis(Problem.RECURRENT_STATE, scope, conflict, link)
        return Diagnosis(Problem.CROSS_ITERATION, scope, conflict, link)
    links = conflict.links
    upstream = param_modules(analysis, closure(links))
    first_discarded = discarded(analysis, scope, first, upstream)
    second_discarded = discarded(analysis, scope, second, upstream)
    diag = Diagnosis(Problem.SHARED_FREED, scope, conflict, links[0])
    if first_discarded is True:
        cut_at = _consumers(first, second, links)
        if cut_at:
            return Diagnosis(Problem.SHARED_DISCARDED, scope, conflict, links[0], detach_at=cut_at, detach_event=first)
    if second_discarded is True:
        cut_at = _consumers(second, first, links)
        if cut_at:
            return Diagnosis(Problem.SHARED_DISCARDED, scope, conflict, links[0], detach_at=cut_at, detach_event=second)
    for ev, other in ((first, second), (second, first)):
        # The linking tensors are also read on their own (`mu` in the second loss): cut
        # where the first enters the shared part, when all it puts there is discarded.
        cut_at, entered = _frontier(ev, other)
        if cut_at and discarded(analysis, scope, ev, param_modules(analysis, closure(entered))) is True:
            link = max(entered, key=lambda n: n.seq)  # the tensor the fix detaches (the latest, for the message)
            return Diagnosis(Problem.SHARED_DISCARDED, scope, conflict, link, detach_at=cut_at, detach_event=ev)
    diag.retain_event = first
    if first_discarded is None or second_discarded is None:
        diag.reason = "which optimizer steps the shared modules is unknown"
    certain, possible = stepped_saves(analysis, scope, second)
    ctx = analysis.ctx
    if certain:
        step, node, module = certain[0]
        what = node.name or (ctx.code(node.expr).strip() if node.expr is not None else module)
        where = f" (line {ctx.line_of(node.stmt)})" if node.stmt is not None else ""
        diag.retain_event = None
        diag.blocked = (f"`{ctx.code(step.call)}` (line {ctx.line_of(step.stmt)}) updates `{module}` in place "
                        f"after `{what}`{where} saved its weights, and the second "
                        "backward needs them, so retain_graph=True would fail too (\"modified by an inplace "
                        "operation\"): build the second loss again, with a fresh forward pass, after the step")
    elif possible:
        step, node, module = possible[0]
        where = _line(ctx, step.stmt, step.call)
        where = f" (line {where})" if where else ""
        diag.unsafe = (f"`{ctx.code(step.call)}`{where} may update `{module}` in place "
                       "before the second backward, and whether that graph saved its weights is not known: "
                       "check with --verify")
    if not diag.blocked and not diag.unsafe:
        from .element_reads import split_note
        from .frozen import frozen_note

        from .unread_links import unread_link_note

        diag.unsafe = split_note(analysis, first, second, links) or unread_link_note(analysis, first, second) or \
            frozen_note(analysis, first.stmt, upstream) or ""
    return diag
