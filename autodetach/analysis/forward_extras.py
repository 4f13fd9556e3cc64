"""What each element of a module's returned tuple is, for `self.net(x)`: the
forward (this file's class, or a project class read with `ast`) returns the
logits with a count, the indices of `topk` or a list of floats
(`return logits, idx, x.shape[0], [v.item() for v in x]`). The summary's
kind per element (summaries.Summary.elems) says which hold no graph, so a
trainer keeping them across steps keeps no graph (and a `.detach()` of the
int or the list would crash). Only elements read as cut or constant are
changed; the others keep the whole call's graph."""
from __future__ import annotations

from typing import Optional

from ..imports import dotted


def forward_summary(analysis, key: Optional[str]):
    """The summary of the forward of `key`'s class, when it has no events, else None."""
    if not key:
        return None
    names = analysis.names
    if key in names.instances:
        found = analysis._own_summaries.get(f"{names.instances[key]}.forward")
    elif key in names.foreign_instances:
        hit = analysis.foreign_method(key, "forward")
        found = hit[0] if hit is not None else None
    else:
        return None
    return found if found is not None and not found.events else None


def cut_positions(analysis, key: Optional[str]) -> Optional[tuple]:
    """Per element of the forward's returned tuple, True where it holds no
    graph; None when no element is known to."""
    summary = forward_summary(analysis, key)
    if summary is None or not summary.elems:
        return None
    cuts = tuple(kind in ("cut", "const") for kind in summary.elems)
    return cuts if any(cuts) else None


def returns_no_graph(analysis, key: Optional[str]) -> bool:
    """Does the forward of `key`'s class (this file's, or a project class read
    with `ast`) return nothing that carries a graph (`return
    mu.detach().cpu().numpy()`, a number, a value computed under no_grad)?
    Then `self.policy(obs)` hands back no graph, whatever its inputs. A class
    given as a parameter (`policy=EIIE`) is judged by its default: the code
    shows no other."""
    summary = forward_summary(analysis, key)
    if summary is None and key:
        built = analysis.names.foreign_instances.get(key)
        if built is not None and analysis.ctx.imports.qualify(built) is None:
            # `from .architectures import EIIE`: foreign_method reads absolute imports only (reading
            # every method of such classes loses the arguments' flow through methods that step)
            summary = _class_forward(analysis, built)
        if summary is None:
            summary = _class_forward(analysis, analysis.names.default_instances.get(key))
    return summary is not None and summary.no_graph and not summary.abstract


def class_unseen(analysis, key: Optional[str]) -> bool:
    """Is nothing known of the class of module `key` (or of a module holding it)?
    `self.test_policy = copy.deepcopy(policy)` of a `policy` the caller passes:
    that its forward returns a tensor with a graph is only assumed (a policy may
    return `.numpy()`)."""
    names = analysis.names
    if not key or key == "self":
        return False  # `self(x)`: the class being read
    parts = key.split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        if prefix in names.built or prefix in names.instances or prefix in names.foreign_instances or \
                prefix in names.default_instances or prefix in names.wrapped:
            return False
    return True


def _class_forward(analysis, cls_expr):
    """The forward's summary of the class `cls_expr` names (this file's, or a project
    class imported absolutely or relatively), when it runs no backward or step."""
    cls = dotted(cls_expr) if cls_expr is not None else None
    if cls is None:
        return None
    if cls in analysis.names.classes:
        found = analysis.own_summary(f"{cls}.forward")
    else:
        qualified = analysis.ctx.imports.qualify(cls_expr)
        hit = analysis.project.method(qualified, "forward") if qualified else \
            analysis.project.relative_method_at(cls, "forward")
        found = hit[0] if hit is not None else None
    return found if found is not None and not found.events else None
