"""A data source made once, before the loop, by a call handed only settings and objects.

    loader = model.loader(batch_size=128, shuffle=True)    # torch_geometric's Node2Vec
    model, optimizer, dl = engine.make_private(module=model, optimizer=optimizer, data_loader=dl)
    for pos_rw, neg_rw in loader:
        loss = model.loss(pos_rw, neg_rw)
        loss.backward()

The call is given a module, so its result was taken to hang from the module's
run, and each batch the loop draws from it to carry that graph (AD107). When
the backward reaches the value only as what a `for` iterates, and the call that
made it is no module's forward, no torch function, and is handed nothing but
literals, modules, optimizers and keyword settings that bring no graph, what it
makes is an object to draw batches from, not a graph."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .rewrapped import literal

_TORCH = ("torch", "F", "nn", "np", "numpy")


def data_source(analysis, conflict) -> bool:
    """Does the conflict's second backward reach the graph made before the loop only
    through a `for` loop's iterable, made by such a call?"""
    path = conflict.path
    if len(conflict.links) != 1 or not path or path[-1] is not conflict.links[0]:
        return False
    link = conflict.links[0]
    loops = [i for i, n in enumerate(path) if isinstance(n.stmt, (cst.For, cst.CompFor))]
    if not loops or link.parents or link.leaf or not isinstance(link.expr, cst.Call):
        return False
    below = path[loops[-1] + 1:]
    if any(n.leaf or not n.parents <= set(below) for n in below[:-1]):
        return False
    return _settings_call(analysis, link.expr)


def _settings_call(analysis, call: cst.Call) -> bool:
    names = analysis.names
    func = dotted(call.func)
    if func is None:
        return False
    base, _, attr = func.rpartition(".")
    if func.split(".")[0] in _TORCH or names.is_module(func) or attr in ("forward", "__call__"):
        return False
    if not base and func in names.functions:
        return False  # a function of this file: its summary says what it returns
    for arg in call.args:
        if arg.star:
            return False
        value = arg.value
        if literal(value):
            continue
        if isinstance(value, cst.UnaryOperation):
            value = value.expression
        key = dotted(value)
        if key is not None and (names.is_module(key) or key in names.optimizers):
            continue
        if arg.keyword is None or key is None:
            return False
        # `batch_size=args.batch_size`, `data_loader=dl`: a setting or an object (the link has no
        # parents: no argument brought a graph)
    return True
