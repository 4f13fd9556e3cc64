"""Optimizers bound to plain names by a call this file does not show.

`opt, opt_D = model.get_optimizer(lr)`, `optimizer = build_optimizer(cfg,
net)`: a factory of another file (or a model's method) builds them, so no
constructor here says they are optimizers or what they own. A name bound
from a call's result (alone, or unpacked from it) and then used only as an
optimizer is (`.zero_grad()` and `.step()`, never called, no module method)
is taken for one whose parameters are not known. What it steps is left to
the idiom around its step (analysis.step_owners), whose findings carry no
fix; the role itself is recorded as an inference."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .roles import BOTH, MODULE_METHODS
from .walk import of_types

_READ = frozenset({cst.Assign, cst.Call})


def infer_bound_optimizers(module: cst.Module, table) -> None:
    from .names import Optimizer

    built: dict = {}  # name -> the call whose result it is bound to
    use: dict = {}

    for n in of_types(module, _READ):
        t = type(n)
        if t is cst.Assign:
            if type(n.value) is cst.Call:
                for target in n.targets:
                    tgt = target.target
                    els = [e.value for e in tgt.elements] if type(tgt) in (cst.Tuple, cst.List) else [tgt]
                    for el in els:
                        if type(el) is cst.Name:
                            built.setdefault(el.value, n.value)
        else:
            f = n.func
            if type(f) is cst.Name:
                use.setdefault(f.value, set()).add("()")
            elif type(f) is cst.Attribute and type(f.value) is cst.Name:
                use.setdefault(f.value.value, set()).add(f.attr.value)
    for key, call in built.items():
        if key in table.optimizers or key in table.modules or key in table.leaves:
            continue
        u = use.get(key, set())
        if not {"step", "zero_grad"} <= u or "()" in u or u & (MODULE_METHODS - BOTH):
            continue
        table.optimizers[key] = Optimizer(key, None, None)
        where = dotted(call.func) or "a call"
        table.inferred[key] = (f"`{key}` is an optimizer (it calls .step() and .zero_grad()); `{where}()` builds "
                               "it out of sight, so what it steps is not known here")
