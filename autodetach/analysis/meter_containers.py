"""Dicts and lists of meters: `stats[key] = AverageMeter()`, `{k:
AverageMeter() for k in keys}`, `[AverageMeter() for _ in heads]`,
`defaultdict(AverageMeter)`, `{"loss": Averager(), "acc": Averager()}`.

`stats[key].update(value)` then adds `value` into one of the container's
meters, when the meter class's `update` adds its argument into `self` state
(summaries' `accum`): the container keeps what it is given, as a meter kept
in a name does (flow.Scope._meter_add). Which element is not tracked."""
from __future__ import annotations

import os
from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes


def held_classes(analysis) -> dict:
    """container key -> the class expression of the meters it holds."""
    return analysis.memo("_meter_containers", lambda: _find(analysis))


def _find(analysis) -> dict:
    out: dict = {}
    for node in nodes(analysis.ctx.module):
        if type(node) is not cst.Assign or len(node.targets) != 1:
            continue
        target, value = node.targets[0].target, node.value
        if type(target) is cst.Subscript:
            key, cls = dotted(target.value), _built(analysis, value)
        else:
            key, cls = dotted(target), _held(analysis, value)
        if key is not None and cls is not None:
            out.setdefault(key, cls)
    return out


def _held(analysis, value) -> Optional[cst.BaseExpression]:
    """The class of the elements a container expression is built with."""
    if type(value) is cst.DictComp:
        return _built(analysis, value.value)
    if type(value) in (cst.ListComp, cst.GeneratorExp):
        return _built(analysis, value.elt)
    if type(value) in (cst.Dict, cst.List, cst.Tuple) and value.elements:
        # `{"loss": Averager(), "acc": Averager()}`: every entry a meter of one class
        built = [_built(analysis, getattr(el, "value", None)) for el in value.elements]
        names = {dotted(cls) for cls in built if cls is not None}
        return built[0] if len(names) == 1 and all(cls is not None for cls in built) else None
    if type(value) is cst.Call and (dotted(value.func) or "").rpartition(".")[2] == "defaultdict" and \
            value.args and _is_class(analysis, value.args[0].value):
        return value.args[0].value
    return None


def _built(analysis, value) -> Optional[cst.BaseExpression]:
    if isinstance(value, cst.Call) and _is_class(analysis, value.func):
        return value.func
    return None


def _is_class(analysis, func) -> bool:
    name = dotted(func)
    if name is None:
        return False
    if name in analysis.names.classes:
        return True
    last = name.rpartition(".")[2]
    qualified = analysis.ctx.imports.qualify(func)
    return last[:1].isupper() and qualified is not None and not qualified.startswith(("torch.", "builtins."))


def meter_method(analysis, container: str, meth: str):
    """(summary, file name, class name) of `meth` of the meters `container`
    holds, or None."""
    cls = held_classes(analysis).get(container)
    if cls is None:
        return None
    name = dotted(cls)
    if name in analysis.names.classes:
        table = analysis._own_summaries
        where = os.path.basename(analysis.ctx.path) if analysis.ctx.path else "this file"
    else:
        hit = analysis.project.method(analysis.ctx.imports.qualify(cls), meth)
        if hit is None:
            return None
        from .project import summaries_of

        table, where = summaries_of(hit[1]), os.path.basename(hit[1])
    last = name.rpartition(".")[2]
    found = table.get(f"{last}.{meth}")
    if found is None or not found.accum or found.events:
        return None
    if any(k.startswith(last + ".") and v.events for k, v in table.items()):
        return None  # a policy that stores its log-probs and trains on them in another method
    return found, where, last
