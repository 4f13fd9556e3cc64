"""Two backward passes share a subgraph, and the first one's
`retain_graph=True` is what lets the second walk it again: the GAN whose
discriminator step backwards `D(fake)` with `retain_graph=True` so that the
generator's loss can go through G's graph once more. When the gradients one
of the two passes puts into the shared modules are zeroed before any
optimizer steps them, that pass only wastes work there, and the retain
keeps the graph alive for it (scenario 4: detach `fake` on that pass). The
question is the one decide.diagnose answers for a freed graph, asked of the
pairs a retain silenced."""
from __future__ import annotations


def silenced_discarded(analysis) -> list:
    """Diagnoses (Problem.SHARED_DISCARDED) of pairs of passes in one
    iteration that a `retain_graph=True` lets share a graph."""
    return analysis.memo("silenced_discarded", lambda: _find(analysis))


def _find(analysis) -> list:
    from .decide import Problem, diagnose, param_modules, zeroed
    from .graph import closure

    seen, out = set(), []
    for scope in analysis.scopes:
        if getattr(scope, "silenced", None) and _reads_gradients(scope.body):
            continue  # `shared._grad = local.grad`, `copy_gradients_from`: gradients used past what is seen
        for conflict in getattr(scope, "silenced", ()):
            first, second = conflict.first, conflict.second
            key = (id(first.call), id(second.call), tuple(id(link.stmt) for link in conflict.links))
            if key in seen or first.tag != second.tag or any(n.iteration != second.tag for n in conflict.path):
                continue
            seen.add(key)
            if not analysis.real_conflict(scope, conflict):
                continue
            diagnosis = diagnose(analysis, scope, conflict)
            if diagnosis.kind is not Problem.SHARED_DISCARDED:
                continue
            shared = closure(conflict.links)
            if not zeroed(analysis, scope, diagnosis.detach_event, param_modules(analysis, shared)):
                # no crash to mend here: only gradients seen cleared before any use may be cut
                continue
            if not param_modules(analysis, [n for n in diagnosis.detach_event.reach if n not in shared]):
                # cut there, the pass would reach no parameters at all: it runs for what its
                # hooks record (opacus's per-sample norms), or would raise; not a wasted walk
                continue
            out.append(diagnosis)
    return out


_GRAD_CALLS_KNOWN = {"zero_grad", "no_grad", "enable_grad", "set_grad_enabled", "requires_grad_", "clip_grad_norm_",
                     "clip_grad_norm", "clip_grad_value_", "inference_mode"}


def _reads_gradients(body) -> bool:
    """`p.grad` read, or a call whose name speaks of gradients (`copy_gradients_from`,
    `sync_grads`), in the code walked: the gradients may be used by code out of sight.
    A function of the body's nodes alone: worked out once while they live."""
    from .walk import by_nodes

    return by_nodes("silenced.reads_gradients", body, _reads)


def _reads(body) -> bool:
    import libcst as cst

    from .walk import nodes

    for node in nodes(body) if not isinstance(body, (list, tuple)) else (n for b in body for n in nodes(b)):
        if type(node) is cst.Attribute and node.attr.value in ("grad", "_grad"):
            return True
        if type(node) is cst.Call:
            func = node.func
            name = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name \
                else ""
            if "grad" in name.lower() and name not in _GRAD_CALLS_KNOWN:
                return True
    return False
