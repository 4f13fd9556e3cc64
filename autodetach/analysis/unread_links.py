"""Two backwards that meet only in what a call of code not read returns:

    self.adv_loss = getattr(gan_losses, kind)()          # which class: decided at run time
    d_loss, g_loss = self.adv_loss(self.netD, fake, real)
    (l1 + g_loss).backward()
    d_loss.backward()                                     # reaches `fake` only through the call

    (q1, q2), q_target = self.algo.critic_loss(critics=(qf1, qf2), ...)   # class out of sight
    F.mse_loss(q1, q_target).backward()
    F.mse_loss(q2, q_target).backward()

Whether the two graphs share anything is decided inside the callee: a loss object
that builds the discriminator's loss on `fake.detach()`, or a target computed under
`torch.no_grad()`, hands back values that share no graph, and the program runs. The
walk takes each element of the result to hang from the graph of every input (and
of every module passed in): for a call whose code is read (a torch function, a
module, a function or class of the project) that is what its code says, for one
whose code is not read it is an assumption. When one of the two passes enters the
part both walk only through that call's result, the conflict rests on it: a
finding that says so, with its fix unsafe. Neither a name (`loss` in the callee's)
nor the call's arguments prove it."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted

_READ_ROOTS = ("torch", "math", "numpy", "builtins", "torchvision", "functools", "operator")
_BUILTIN_CALLS = frozenset({"max", "min", "sum", "abs", "pow", "list", "tuple", "dict", "set", "sorted",
                            "reversed", "map", "filter", "getattr", "iter", "next", "any", "all", "float",
                            "int", "len", "zip", "enumerate", "round"})


def unread_link_note(analysis, first, second) -> Optional[str]:
    """The inference note when one backward reaches the part of the graph both walk
    only through the result of one call whose code is not read."""
    shared = {n for n in first.reach if n in second.reach and not n.leaf}
    if not shared:
        return None
    for ev in (second, first):
        heads = ev.target.heads if ev.target is not None else frozenset()
        if heads & shared:
            continue  # it backwards a shared value itself (`loss.backward()` twice): no assumption
        calls = set()
        for reader in ev.reach - shared:
            for parent in reader.parents:
                if parent in shared:
                    calls.add(parent.expr if isinstance(parent.expr, cst.Call) else None)
        if len(calls) != 1:
            continue
        call = calls.pop()
        if call is None or not _unread(analysis, call, shared):
            continue
        ctx = analysis.ctx
        what = f"`{ctx.snippet(ev.target_expr, 60)}`" if ev.target_expr is not None else "one loss"
        return (f"inferred: the backward of {what} reaches "
                f"the graph both passes walk only through what `{dotted(call.func)}(...)` (line "
                f"{ctx.line_of(call)}) returns, whose code is not read: that its result hangs from the graph "
                "of what it is given (not cut, nor built under no_grad, inside) is assumed")
    return None


def _unread(analysis, call: cst.Call, shared) -> bool:
    """Is `call` one whose code the analysis did not read: not a torch function, a builtin, a
    module, a function of this file or of the project, a method of a known class, nor a
    method of a tensor?"""
    func = call.func
    names = analysis.names
    key = dotted(func)
    if key is None:
        return False  # `fns[i](x)`, `make()(x)`: other notes name these (opaque_calls)
    qualified = analysis.ctx.imports.qualify(func)
    if qualified and qualified.split(".")[0] in _READ_ROOTS:
        return False
    if type(func) is cst.Name and func.value in _BUILTIN_CALLS:
        return False
    if names.is_module(key) or key in names.functions or key in names.classes:
        return False
    if analysis.project_summary(qualified, key) is not None:
        return False
    if type(func) is cst.Attribute:
        base = dotted(func.value)
        if any(_inside(read, func.value) for node in shared if node.expr is call
               for reads in node.uses.values() for read in reads):
            return False  # `out.view(...)`: a method of a tensor
        if analysis.foreign_method(base, func.attr.value) is not None or \
                analysis.object_method(base, func.attr.value) is not None or names.is_module(base or ""):
            return False
    elif analysis.forward_elems(key) is not None or analysis.object_method(key, "__call__") is not None:
        return False
    return True


def _inside(node, tree) -> bool:
    if node is tree:
        return True
    found = []

    def visit(n):
        if n is node:
            found.append(n)
        for child in n.children:
            if not found:
                visit(child)

    visit(tree)
    return bool(found)
