"""Modules a loss helper runs with gradients off only.

A DQN loss helper `dqn_loss(batch, net, target_net)` calls `target_net`
inside `with torch.no_grad():`: what it returns holds no graph through the
target network's parameters, so a `target_net.load_state_dict(...)` (or a
step of its optimizer) between the call and the backward changes nothing the
backward reads. A module handed to such a helper, or named by it, is left out
of the modules its result is taken to run.

For a function of this file the body says it: every mention of the name lies
in a `with` block that turns gradients off. For a function of another file its
summary says it: the result does not hang from that parameter (`arg_flow`
"cut" or "const")."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes


def quiet_names(analysis, fn) -> frozenset:
    """Names that `fn` mentions only inside `with torch.no_grad():` blocks."""
    cache = analysis.table("_quiet_names")
    if fn in cache:
        return cache[fn]
    from .flow import grad_mode

    imports = analysis.ctx.imports
    inside: set = set()
    for n in nodes(fn.body):
        if type(n) is cst.With and any(grad_mode(item.item, imports) == 1 for item in n.items):
            inside.update(id(m) for m in nodes(n.body) if type(m) is cst.Name)
    seen: dict = {}
    for n in nodes(fn.body):
        if type(n) is cst.Name:
            seen[n.value] = seen.get(n.value, True) and id(n) in inside
    cache[fn] = out = frozenset(name for name, quiet in seen.items() if quiet)
    return out


def cut_module_args(call: cst.Call, summary, module_args: set) -> set:
    """The module arguments of `call` whose parameter, by the summary of the
    function of another file, the result does not hang from."""
    from .flow import _bind

    params, flow = summary.params, summary.arg_flow
    if summary.events or not params or flow is None or len(flow) != len(params):
        return set()
    bound = _bind(call, params)
    if not bound:
        return set()
    cut, kept = set(), set()
    for name, index in bound.items():
        if name not in params:
            return set()  # a keyword the summary does not know: cannot tell
        key = dotted(call.args[index].value)
        if key in module_args:
            (cut if flow[params.index(name)] in ("cut", "const") else kept).add(key)
    return cut - kept
