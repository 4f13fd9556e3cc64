"""A module whose methods hand an object it keeps to code that may store a graph in it.

    class Circuit(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.dev = tq.QuantumDevice(n)       # an object, kept across calls
            self.theta = nn.Parameter(torch.rand(n))

        def forward(self):
            apply_rx(self.dev, self.theta)       # sets dev's state from this call's graph
            return expval(self.dev)              # built on the state the last call left

What the call does with the object is not read: it may keep state built
from this call's graph for the next call, which then backwards through it
(a quantum device whose state is not reset, a simulator). A verdict that no
later backward needs a graph of this module (AD104) rests on that not
happening: an inference the finding names. The object is one `__init__`
builds from a class that is not torch's and not an `nn.Module` of this file
(such a module's forward is read elsewhere)."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import class_methods, nodes


def handed_state(analysis, call) -> Optional[str]:
    """A note when `call` (`model()`) runs a module of a class of this file one of
    whose methods hands such an object to a call that is not one of the class's
    own methods; else None."""
    if type(call) is not cst.Call:
        return None
    key = dotted(call.func) or ""
    if key.endswith(".forward"):
        key = key[: -len(".forward")]
    cls_name = analysis.names.instances.get(key)
    if not cls_name:
        return None
    table = analysis.memo("_handed_state", lambda: {})
    if cls_name not in table:
        table[cls_name] = _find(analysis, cls_name)
    return table[cls_name]


def _find(analysis, cls_name) -> Optional[str]:
    ctx, names = analysis.ctx, analysis.names
    cls = next(iter(ctx.class_defs(cls_name)), None)
    if cls is None:
        return None
    methods = class_methods(cls)
    init = methods.get("__init__")
    kept = {}
    for n in nodes(init) if init is not None else ():
        if type(n) is cst.Assign and len(n.targets) == 1 and type(n.value) is cst.Call:
            key = dotted(n.targets[0].target) or ""
            q = ctx.imports.qualify(n.value.func) or ""
            func = dotted(n.value.func) or ""
            last = func.rsplit(".", 1)[-1]
            if key.startswith("self.") and key.count(".") == 1 and last[:1].isupper() and \
                    not q.startswith("torch.") and func not in names.module_classes:
                kept[key] = func
    if not kept:
        return None
    for name, fn in methods.items():
        if name == "__init__":
            continue
        for n in nodes(fn.body):
            if type(n) is not cst.Call:
                continue
            callee = dotted(n.func) or ""
            if callee.startswith("self.") and callee.count(".") == 1 and callee[5:] in methods:
                continue  # one of the class's own methods: read where it runs
            if (ctx.imports.qualify(n.func) or "").startswith("torch."):
                continue
            for a in n.args:
                key = dotted(a.value)
                if key in kept:
                    return (f"`{cls_name}.{name}` hands `{key}` (a `{kept[key]}` it keeps across calls) to "
                            f"`{callee or ctx.code(n.func).strip()}`, which is not read: state it leaves there "
                            f"may carry this call's graph into the next one")
    return None
