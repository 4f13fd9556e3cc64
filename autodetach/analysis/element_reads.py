"""Two losses that meet only in the tuple a module call returns, each reading
its own elements of it:

    outputs = model(inputs)                 # the class of `model` is not read here
    b_loss = l1(outputs[0], boxes)          # one head
    c_loss = ce(outputs[1], labels)         # another head
    b_loss.backward()
    c_loss.backward()

Whether `outputs[0]` and `outputs[1]` share a graph is decided inside the
module's forward: a shared trunk makes the second backward fail without
retain_graph=True, while two heads on the same input (precomputed features)
share nothing and the program runs. Nothing upstream of the call links them
(its inputs hold no graph shared by both). A finding that rests on this is
inferred, and says so; so is the fix."""
from __future__ import annotations

from typing import Optional

import libcst as cst


def split_note(analysis, first, second, links) -> Optional[str]:
    """The inference note when every link is a module call's result, fed nothing both
    graphs share, that the two backwards read through different constant indices."""
    if not links:
        return None
    shared = {n for n in first.reach if n in second.reach and not n.leaf}
    parts = []
    for link in links:
        if not link.modules or link.expr is None or not isinstance(link.expr, cst.Call):
            return None
        if any(p in shared for p in link.parents):
            return None  # `heads(trunk(x))`: the trunk's graph links them whatever the heads do
        one, other = _indices(analysis, first, link, shared), _indices(analysis, second, link, shared)
        if not one or not other or one & other:
            return None
        parts.append((link, one, other))
    ctx = analysis.ctx
    link, one, other = parts[0]
    what = link.name or ctx.code(link.expr).strip()
    return (f"inferred: `{what}[{min(one)}]` and `{what}[{min(other)}]` of `{ctx.code(link.expr).strip()}` are "
            "taken to share a graph inside the module's forward (not followed element by element: two heads "
            "on one input share none)")


def _indices(analysis, ev, link, shared) -> Optional[set]:
    """The constant indices through which the nodes of `ev`'s graph outside the shared part
    read `link`; None when one read is not `link[k]`."""
    out = set()
    ctx = analysis.ctx
    for reader in ev.reach:
        if link not in reader.parents:
            continue
        if reader in shared:
            return None
        names = reader.uses.get(link)
        if not names:
            return None
        for name in names:
            up = ctx.parent(name)
            if not isinstance(up, cst.Subscript) or up.value is not name or len(up.slice) != 1:
                return None
            index = up.slice[0].slice
            if not isinstance(index, cst.Index) or not isinstance(index.value, cst.Integer):
                return None
            out.add(int(index.value.value))
    return out or None
