"""A local that names a part of `self` state, for adds into its entries.

    def end_of_batch_log(self, split):
        if self.ibatch == 0:
            stat = {"loss": []}
            self.statistics[split] = stat
        else:
            stat = self.statistics[split]
        stat["loss"] += [self.batch_loss]

`stat` is a view of `self.statistics`: the add goes into state that outlives the call, so
entries.add_entry records it under `self.statistics`, where the next call finds it. A view is
made by a read of an entry of `self` state (`stat = self.statistics[split]`) or by a store of
the name into one (`self.statistics[split] = stat`); binding the name to anything else ends it."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes


def holder_of(expr):
    """`self.stats` of `self.stats[a][b]` (a subscript chain on `self` state), else None."""
    if type(expr) is not cst.Subscript:
        return None
    while type(expr) is cst.Subscript:
        expr = expr.value
    key = dotted(expr)
    return key if key and key.startswith("self.") else None


def bind(scope, key: str, expr) -> None:
    """`key = expr`, `key` a plain name: a view when `expr` reads an entry of `self` state."""
    if "." in key:
        return
    held = holder_of(expr)
    if held is None:
        scope.views.pop(key, None)
    else:
        scope.views[key] = held


def store(scope, target: cst.Subscript, expr) -> None:
    """`self.stats[k] = stat`: the name `stat` now also names an entry of `self.stats`."""
    held = holder_of(target)
    if held is not None and type(expr) is cst.Name:
        scope.views[expr.value] = held


def names_in(body) -> frozenset:
    """The names a body makes views of `self` state, read from its code alone (self_storage.py)."""
    out = set()
    for node in nodes(body):
        if type(node) is not cst.Assign:
            continue
        for target in node.targets:
            if type(target.target) is cst.Name and holder_of(node.value):
                out.add(target.target.value)
            elif type(node.value) is cst.Name and holder_of(target.target):
                out.add(node.value.value)
    return frozenset(out)
