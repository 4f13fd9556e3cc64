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


def _relative_forward(analysis, key: Optional[str]):
    """The forward's summary of `key`'s class imported relatively (`from .architectures
    import EIIE`), which foreign_method does not read (reading every method of such
    classes loses the arguments' flow through methods that step: edge-connect's
    `process`), for the one question below."""
    from ..imports import dotted

    func = analysis.names.foreign_instances.get(key) if key else None
    if func is None or analysis.ctx.imports.qualify(func) is not None:
        return None
    hit = analysis.project.relative_method_at(dotted(func), "forward")
    return hit[0] if hit is not None and not hit[0].events else None


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
    summary = forward_summary(analysis, key) or _relative_forward(analysis, key) or _default_forward(analysis, key)
    return summary is not None and summary.no_graph and not summary.abstract


def _default_forward(analysis, key: Optional[str]):
    from ..imports import dotted

    default = analysis.names.default_instances.get(key) if key else None
    cls = dotted(default) if default is not None else None
    if cls is None:
        return None
    if cls in analysis.names.classes:
        found = analysis._own_summaries.get(f"{cls}.forward")
    else:
        qualified = analysis.ctx.imports.qualify(default)
        hit = analysis.project.method(qualified, "forward") if qualified else \
            analysis.project.relative_method_at(cls, "forward")
        found = hit[0] if hit is not None else None
    return found if found is not None and not found.events else None
