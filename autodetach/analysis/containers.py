"""Lists that collect values one per iteration, and their last element.

    losses.append(loss_function(*tensors))
    losses[-1].backward(retain_graph=True)

The list hangs from every value ever appended (it accumulates), but
`losses[-1]` is only the value appended last: a backward on it walks this
iteration's graph, not the ones kept in the list. The flow walk asks
`append_elem` for the appended value at each append and `last_elem` for a
`[-1]` read; both are called from one-line hooks in flow.py.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst


def append_elem(scope, base, meth, val, proven: bool, stmt, expr):
    """What the list hangs from after `base.append(expr)`, as a Val: for an
    append, one entry node (so that `base[-1]` reads it alone); when only the
    backward on the list's last element proves that the value carries a graph
    (its code is out of sight), the entry hangs from a node that says so."""
    from .flow import Val

    if not val.heads and proven:
        node = scope.new_node(None, stmt, expr, Val(nontrivial=True), kind="op", trivial=False)
        node.proven = True
        node.unseen = "the appended value carries a graph only by the backward on the list's last element"
        val = Val(heads=frozenset({node}), ghosts=val.ghosts, loss=True)
    if meth != "append":
        return val
    # the modules the value was computed by: `qs.append(q_nets[i](x))` of raw data
    # holds the graph of `q_nets[]` though no earlier node does. Such an entry is one
    # graph of many that a read of the list cannot tell apart (`outputs[i]` per model):
    # uncertain, so that no freed-graph conflict rests on it
    entry = scope.new_node(base, stmt, expr, Val(heads=val.heads, ghosts=val.ghosts, uses=val.uses,
                                                 modules=val.modules, nontrivial=val.nontrivial,
                                                 uncertain=val.uncertain or (bool(val.modules) and not val.heads)),
                           kind="container")
    # only a loss (`criterion(net(x), y)`): `layers.append(block(n))` builds modules, no graph
    entry.unsplit = bool(val.loss and val.modules) and not val.heads and not val.uncertain
    entry.loss = val.loss or proven
    entry.entry = True  # one value, not the list that accumulates (flow.find_leaks)
    return Val(heads=frozenset({entry}), loss=entry.loss)


def last_elem(v, e: cst.Subscript):
    """`key[-1]` of a list whose value is one append: the appended value."""
    if len(v.heads) != 1 or len(e.slice) != 1 or not isinstance(e.slice[0].slice, cst.Index):
        return None
    idx = e.slice[0].slice.value
    if not (isinstance(idx, cst.UnaryOperation) and isinstance(idx.operator, cst.Minus)
            and isinstance(idx.expression, cst.Integer) and idx.expression.value == "1"):
        return None
    head = next(iter(v.heads))
    return head.last


def last_consumed(head, events) -> Optional[bool]:
    """For a list whose last element a backward walks: True when that backward
    frees it (the list keeps graphs already freed), False when it retains it,
    None when no backward walks the last element alone."""
    last = head.last
    if last is None or not last.heads:
        return None
    hits = [ev for ev in events if ev.kind in ("backward", "grad") and ev.seq > head.seq
            and last.heads & ev.reach and head not in ev.reach]
    if not hits:
        return None
    return all(ev.retain is False for ev in hits)
