"""A critic's pass that leaks into the model it judges.

Two backward passes in one iteration share a graph that a
`retain_graph=True` keeps alive: the autoencoder's (generator's) loss,
which scores its output with the critic (`-disc(recon).mean()`), and the
critic's loss on that same score (`relu(1 + disc_fake)`). What each pass
is for shows in which optimizer clears gradients right before it and which
gradients survive to a step:

- the first pass's gradients into the critic are zeroed (the critic's
  `zero_grad()` between the passes) before the critic's optimizer steps:
  the author keeps the generator's loss from training the critic;
- the second pass's gradients into the critic reach its step: it is the
  critic's loss;
- the second pass also walks, through the shared score, into the
  generator, and no `zero_grad()` clears that before the generator's
  optimizer steps: the step applies the critic's objective (push the
  score of the fakes down) to the generator, against its own loss's.

The roles rest on the zero_grad placement, not on names. The fix cuts the
critic's loss from the generator (run the critic again on the detached
output), which changes what the generator learns: it is reported without a
fix, and says so (VQGAN's and MaskGIT's `training_vqgan.py`). A pass whose
gradients into the generator are zeroed before the generator's step is the
discarded pass of decide.diagnose (a safe detach), not this."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass
class LeakedPass:
    scope: object
    conflict: object
    leaking: object  # the critic's pass (Event) whose gradients reach the generator's step
    other: object  # the generator's pass (Event), whose gradients into the critic are zeroed
    trained: list  # modules (the generator) the leaking pass's gradients reach a step of
    judge: list  # modules (the critic) both passes reach; the other pass's gradients there zeroed
    steps: list  # (module, step Event) that applies the leaked gradients
    zero: object  # the zero event that clears the other pass's gradients into the critic
    link: object = None  # the shared tensor (GNode) through which the leaking pass reaches the generator
    notes: list = field(default_factory=list)  # what was inferred


def leaked_passes(analysis) -> list:
    """LeakedPass records of one file (worked out once)."""
    return analysis.memo("leaked_passes", lambda: _find(analysis))


def _find(analysis) -> list:
    from .decide import param_modules
    from .graph import closure
    from .module_parts import parts_of
    from .silenced import _reads_gradients

    seen, out = set(), []
    for scope in analysis.scopes:
        silenced = getattr(scope, "silenced", ())
        if not silenced or _reads_gradients(scope.body):
            continue  # gradients read past what is seen (copied, norms): their use is not known
        for conflict in silenced:
            first, second = conflict.first, conflict.second
            key = (id(first.call), id(second.call))
            if key in seen or first.tag != second.tag or any(n.iteration != second.tag for n in conflict.path):
                continue
            if first.kind != "backward" or second.kind != "backward" or first.helper or second.helper:
                continue
            if not analysis.real_conflict(scope, conflict):
                continue
            upstream = sorted({p for m in param_modules(analysis, closure(conflict.links))
                               for p in parts_of(analysis.names, m)})
            for other, leaking in ((first, second), (second, first)):
                record = _leak(analysis, scope, conflict, other, leaking, upstream)
                if record is not None:
                    seen.add(key)
                    out.append(record)
                    break
    return out


def _leak(analysis, scope, conflict, other, leaking, upstream) -> Optional[LeakedPass]:
    from .decide import _fate

    events = scope.events
    judge, zero = [], None
    for module in upstream:
        after_other = events[events.index(other) + 1:]
        if _fate(analysis, after_other, other, module) != "zeroed":
            continue
        clearing = _first_zero(after_other, module)
        if clearing is None or not (other.seq < clearing.seq < leaking.seq):
            continue  # cleared after both passes: the leaking pass's gradients go with the other's
        fate, _, _ = _step_fate(analysis, events, leaking, module)
        if fate == "stepped":
            judge.append(module)
            zero = zero or clearing
    if not judge:
        return None
    from .decide import covers, param_modules
    from .graph import closure
    from .module_parts import parts_of

    # what the critic's calls are run on: the model the critic judges lies behind them (`disc(recon)`),
    # not between them and the loss (a classifier on top of the features the second loss trains)
    shared = closure(conflict.links)
    calls = [n for n in shared if any(covers(judge, m) for m in param_modules(analysis, [n]))]
    behind = param_modules(analysis, closure([p for n in calls for p in n.parents]))
    judged_parts = {p for j in judge for p in parts_of(analysis.names, j)}
    trained, steps, notes = [], [], []
    for module in upstream:
        if any(module == j or module.startswith(j + ".") or j.startswith(module + ".") for j in judge) or \
                module in judged_parts:
            continue
        if not any(module == b or module.startswith(b + ".") or b.startswith(module + ".") for b in behind):
            continue
        fate, step, note = _step_fate(analysis, events, leaking, module)
        if fate != "stepped":
            continue
        # the other pass trains it too: its gradients there reach the same step, uncleared
        if _step_fate(analysis, events, other, module)[0] != "stepped":
            continue
        trained.append(module)
        steps.append((module, step))
        if note:
            notes.append(note)
    if not trained:
        return None

    # the shared tensor the generator's graph hangs from through the critic (`disc_fake`), not a scalar beside it
    def holds(node, modules) -> bool:
        mods = param_modules(analysis, closure([node]))
        return all(covers(mods, m) or any(p.startswith(m + ".") for p in mods) for m in modules)

    links = sorted(conflict.links, key=lambda n: -n.seq)
    link = next((n for n in links if holds(n, trained[:1] + judge[:1])), None) or \
        next((n for n in links if holds(n, trained[:1])), conflict.links[0])
    return LeakedPass(scope, conflict, leaking, other, trained, judge, steps, zero, link=link, notes=notes)


def _first_zero(events, module):
    from .decide import covers

    return next((e for e in events if e.kind == "zero" and e.modules is not None and covers(e.modules, module)),
                None)


def _step_fate(analysis, events, ev, module) -> tuple:
    """("stepped", the step, note) when the gradients `ev` puts into `module`
    reach an optimizer that steps it (or a part of it: the note says so)
    before anything could clear or read them; (None, None, "") otherwise.
    Only events on every path from `ev` count (a step in a branch `ev` is not in
    may not run; a zero in any branch may clear them)."""
    from .decide import _prefix, covers

    for later in events[events.index(ev) + 1:]:
        if later.tag != ev.tag:
            return None, None, ""  # left for the next iteration (or a later call): not judged
        if later.kind == "zero":
            if later.modules is None or covers(later.modules, module):
                return None, None, ""
            continue
        if later.kind in ("grad_read", "unknown_step") or (later.kind == "backward" and later.helper):
            return None, None, ""
        if later.kind != "step" or not _prefix(later.branch, ev.branch) or later.exits:
            continue
        owns = analysis.owner_uses(later.opt, module)
        if owns is True:
            return "stepped", later, ""
        parts = _parts(analysis, later.opt, module)
        if parts:
            names = ", ".join(f"`{p}`" for p in parts[:3]) + (", ..." if len(parts) > 3 else "")
            return "stepped", later, (f"`{later.opt}` steps parts of `{module}` ({names}), taken to be run by "
                                      f"`{module}`'s forward")
    return None, None, ""


def _parts(analysis, opt, module: str) -> list:
    optimizer = analysis.names.optimizers.get(opt)
    return sorted(m for m in (optimizer.owns or ()) if m.startswith(module + ".")) if optimizer else []
