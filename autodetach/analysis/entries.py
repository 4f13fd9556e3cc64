"""`total[name] += loss`: an entry of a dict (or list) that sums losses.

The container then holds what is added, entry by entry; which entry is not
tracked, so the whole container hangs from each added value and from its own
earlier contents (a running total across iterations, as `total += loss`)."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from . import keyed


def add_entry(scope, s: cst.AugAssign, stmt) -> None:
    from .flow import Val

    target = s.target
    while True:
        for sl in target.slice:
            if isinstance(sl.slice, cst.Index):
                scope.expr(sl.slice.value)
        if type(target.value) is not cst.Subscript:
            break
        target = target.value  # `stats["train"]["loss"] += [loss]`: an entry of `stats["train"]`
    rhs = scope.expr(s.value)
    key = dotted(target.value)
    if key in scope.views:
        key = scope.views[key]  # `stat = self.stats[split]`, then `stat["loss"] += [loss]` (self_views.py)
        target = None
    if target is not None and type(target.value) is cst.Attribute and target.value.attr.value == "data":
        return  # `p.data[i] += g`: the graph lands on the `.data` alias, dropped at once; `p` keeps none
    if key is None or scope.no_grad or not rhs.graph or \
            not isinstance(s.operator, (cst.AddAssign, cst.SubtractAssign)):
        return
    old = scope.lookup_key(key)
    # `losses["g_loss"] += ae_loss` where every entry was stored under a constant key: that entry
    # only grows, the others stay beside it (keyed.py)
    mine = keyed.entry(old, target) if target is not None else None
    if mine is None and target is not None and keyed.key_of(target) is not None and keyed.all_keyed(old.heads):
        # every entry with a graph was stored under another constant key: this key's value held
        # none (`out["total"] = 0`, then `out["total"] += recon`), so the entry starts here
        mine = Val()
    node = scope.new_node(key, stmt, s.value, Val(heads=(old if mine is None else mine).heads | rhs.heads,
                                                  ghosts=rhs.ghosts, modules=rhs.modules, uses=rhs.uses), kind="accum")
    node.loss = True  # a running sum per name: the values summed are losses or metrics
    if mine is not None:
        node.item = keyed.key_of(target)
        scope.env[key] = Val(heads=frozenset({node}) | keyed.others(old.heads, node.item), loss=True)
    else:
        scope.env[key] = Val(heads=frozenset({node}), loss=True)
    scope.bound.add(key)
