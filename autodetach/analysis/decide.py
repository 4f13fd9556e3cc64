"""Turning a conflict between two backward passes into a diagnosis.

The question that separates a correct fix from a dangerous one: are the
gradients that a backward puts into the upstream modules used (stepped by an
optimizer) or discarded (zeroed first)? Detach is right only on a path whose
gradients into the shared part are discarded; otherwise retain_graph is what
the author meant."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .graph import GNode, closure


@dataclass
class Diagnosis:
    code: str  # AD101 | AD103 | AD105 | AD106 | AD107
    scope: object
    conflict: object
    link: GNode  # the tensor that links the two passes
    # AD103: Name nodes to wrap in .detach(); AD105: the event to retain
    detach_at: list = field(default_factory=list)
    detach_event: object = None
    retain_event: object = None
    reason: str = ""
    blocked: str = ""  # why no fix is offered


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


def _steps_between(analysis, scope, a, b, modules) -> list:
    out = []
    for e in scope.events:
        if a.seq < e.seq < b.seq and e.kind == "step":
            if any(analysis.owner_uses(e.opt, m) is not False for m in modules):
                out.append(e)
    return out


def diagnose(analysis, scope, c) -> Diagnosis:
    b1, b2 = c.first, c.second
    crossing = next((n for n in c.path if n.iteration != b2.tag), None)
    if b1.tag != b2.tag or crossing is not None:
        link = crossing or c.links[0]
        if link.iteration == () or (len(link.iteration) < len(b2.tag) and b2.tag[:len(link.iteration)]
                                    == link.iteration):
            return Diagnosis("AD107", scope, c, link)
        if link.kind == "state":
            return Diagnosis("AD106", scope, c, link)
        return Diagnosis("AD101", scope, c, link)
    links = c.links
    upstream = param_modules(analysis, closure(links))
    d1 = discarded(analysis, scope, b1, upstream)
    d2 = discarded(analysis, scope, b2, upstream)
    diag = Diagnosis("AD105", scope, c, links[0])
    if d1 is True:
        at = _consumers(b1, b2, links)
        if at:
            return Diagnosis("AD103", scope, c, links[0], detach_at=at, detach_event=b1)
    if d2 is True:
        at = _consumers(b2, b1, links)
        if at:
            return Diagnosis("AD103", scope, c, links[0], detach_at=at, detach_event=b2)
    diag.retain_event = b1
    if d1 is None or d2 is None:
        diag.reason = "which optimizer steps the shared modules is unknown"
    stale = _steps_between(analysis, scope, b1, b2, upstream)
    if stale:
        diag.retain_event = None
        diag.blocked = (f"`{analysis.ctx.code(stale[0].call)}` updates the shared parameters in place "
                        "between the two backward calls, so retain_graph=True would fail too")
    return diag

