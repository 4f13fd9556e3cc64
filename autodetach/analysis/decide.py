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
        return [d for d in analysis.diagnoses if d.kind is kind]
    return finder(analysis)


def kept_losses(analysis) -> list:
    """(scope, Leak) for losses kept across iterations with their graph,
    which no later backward reaches (that would be gradient accumulation)."""
    return [(sc, lk) for sc, lk in analysis.leaks
            if lk.node.loss and lk.node.stmt is not None and not lk.reached]


def _retained(analysis) -> list:
    from .retained import unneeded_retains

    return unneeded_retains(analysis)


def _stale(analysis) -> list:
    from .stale import stale_graphs

    return stale_graphs(analysis)


def _starved(analysis) -> list:
    from .starved import starved_steps

    return starved_steps(analysis)


FINDERS = {
    Problem.LOSS_KEPT: kept_losses,
    Problem.RETAIN_UNNEEDED: _retained,
    Problem.STALE_AFTER_STEP: _stale,
    Problem.CUT_BLOCKS_LEARNING: _starved,
}


def param_modules(analysis, nodes) -> set:
    out = set()
    for n in nodes:
        for m in n.modules:
            if n.leaf or analysis.names.has_params(m):
                out.add(m)
    return out


def _covers(zero_mods, module: str) -> bool:
    return any(module == z or module.startswith(z + ".") for z in zero_mods)


def _prefix(a: tuple, b: tuple) -> bool:
    return b[:len(a)] == a


def discarded(analysis, scope, ev, modules) -> Optional[bool]:
    """True: every module's gradients from `ev` are zeroed before any step
    reads them. False: some optimizer steps with them. None: cannot tell."""
    if ev.kind == "grad":
        return False  # returned to the caller, who uses them
    if not modules:
        return True
    events = scope.events
    start = events.index(ev)
    verdict = True
    for m in modules:
        decided = None
        zeroed_on: list = []  # branch paths where m was zeroed since ev
        for later in events[start + 1:]:
            if later.kind == "zero":
                if later.modules is None or not _covers(later.modules, m):
                    continue
                if _prefix(later.branch, ev.branch):
                    decided = True
                    break
                zeroed_on.append(later.branch)
            elif later.kind == "step":
                owns = analysis.owner_uses(later.opt, m)
                if owns is False:
                    continue
                if any(_prefix(z, later.branch) for z in zeroed_on):
                    continue  # zeroed on every path to this step
                if owns is True:
                    decided = False
                    break
                return None
        if decided is False:
            return False
        # Nothing decisive: no optimizer steps with them.
    return verdict


def _consumers(ev, other, links) -> Optional[list]:
    """Name nodes through which `ev`'s graph reads the linking tensors, when
    cutting them there leaves `other`'s graph intact."""
    out = []
    for s in links:
        readers = [n for n in ev.reach if s in n.parents]
        if not readers:
            return None
        for n in readers:
            if n in other.reach or not n.uses.get(s):
                return None
            out.extend(n.uses[s])
    return out or None


def stepped_saves(analysis, scope, b2) -> tuple:
    """Optimizer steps that update, in place, parameters whose values the
    graph of `b2` saved before the step. Returns (certain, possible): lists
    of (step, node, module). With a certain one, the reference run itself
    fails at `b2` ("modified by an inplace operation"), so retain_graph=True
    cannot help; with a possible one, whether it fails is not known."""
    from .saved import part_saves, saves_weights

    steps = [e for e in scope.events if e.kind == "step" and not e.exits and e.seq < b2.seq]
    certain, possible = [], []
    if not steps:
        return certain, possible
    for n in sorted(b2.reach, key=lambda n: n.seq):
        for m in sorted(n.modules):
            if not n.leaf and not analysis.names.has_params(m):
                continue
            for e in steps:
                if e.seq <= n.seq:
                    continue
                owns = analysis.owner_uses(e.opt, m)
                if owns is False:
                    continue
                saves = None if n.leaf else saves_weights(analysis, n, m)
                part = None if owns is not None or n.leaf else \
                    next((p for p in _parts(analysis, e.opt, m) if part_saves(analysis, n, m, p)), None)
                if part is not None:
                    certain.append((e, n, part))  # the step updates a part of `m` whose weights the graph saved
                    continue
                if saves is False:
                    continue
                (certain if saves and owns else possible).append((e, n, m))
    return certain, possible


def _parts(analysis, opt, module: str) -> list:
    """The parts of `module` (`module.generator`) that optimizer `opt` steps."""
    o = analysis.names.optimizers.get(opt)
    return sorted(m for m in (o.owns or ()) if m.startswith(module + ".")) if o else []


def diagnose(analysis, scope, c) -> Diagnosis:
    b1, b2 = c.first, c.second
    crossing = next((n for n in c.path if n.iteration != b2.tag), None)
    if b1.tag != b2.tag or crossing is not None:
        # State a module keeps on itself is the link, wherever the path crosses first.
        held = next((n for n in c.links if n.module_state
                     and n.iteration != b2.tag[:len(n.iteration)]), None)
        link = held or crossing or c.links[0]
        if link.iteration == () or (len(link.iteration) < len(b2.tag) and b2.tag[:len(link.iteration)]
                                    == link.iteration):
            return Diagnosis(Problem.BUILT_BEFORE_LOOP, scope, c, link)
        if link.kind == "state":
            return Diagnosis(Problem.RECURRENT_STATE, scope, c, link)
        return Diagnosis(Problem.CROSS_ITERATION, scope, c, link)
    links = c.links
    upstream = param_modules(analysis, closure(links))
    d1 = discarded(analysis, scope, b1, upstream)
    d2 = discarded(analysis, scope, b2, upstream)
    diag = Diagnosis(Problem.SHARED_FREED, scope, c, links[0])
    if d1 is True:
        at = _consumers(b1, b2, links)
        if at:
            return Diagnosis(Problem.SHARED_DISCARDED, scope, c, links[0], detach_at=at, detach_event=b1)
    if d2 is True:
        at = _consumers(b2, b1, links)
        if at:
            return Diagnosis(Problem.SHARED_DISCARDED, scope, c, links[0], detach_at=at, detach_event=b2)
    diag.retain_event = b1
    if d1 is None or d2 is None:
        diag.reason = "which optimizer steps the shared modules is unknown"
    certain, possible = stepped_saves(analysis, scope, b2)
    ctx = analysis.ctx
    if certain:
        step, node, m = certain[0]
        what = node.name or (ctx.code(node.expr).strip() if node.expr is not None else m)
        where = f" (line {ctx.line_of(node.stmt)})" if node.stmt is not None else ""
        diag.retain_event = None
        diag.blocked = (f"`{ctx.code(step.call)}` (line {ctx.line_of(step.stmt)}) updates `{m}` in place "
                        f"after `{what}`{where} saved its weights, and the second "
                        "backward needs them, so retain_graph=True would fail too (\"modified by an inplace "
                        "operation\"): build the second loss again, with a fresh forward pass, after the step")
    elif possible:
        step, node, m = possible[0]
        diag.unsafe = (f"`{ctx.code(step.call)}` (line {ctx.line_of(step.stmt)}) may update `{m}` in place "
                       "before the second backward, and whether that graph saved its weights is not known: "
                       "check with --verify")
    return diag
