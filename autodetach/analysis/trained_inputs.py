"""Tensors a function makes trainable and hands to its own optimizer.

    w = images.clone().detach()
    w.requires_grad = True                  # or w.requires_grad_(), w = x.requires_grad_()
    optimizer = torch.optim.Adam([w], lr=lr)
    for step in range(steps):
        adv = torch.tanh(w)                 # carries this step's graph
        cost = loss(model(adv), y)
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
        best[mask] = adv[mask]              # keeps every step's graph

An optimised input (adversarial attacks, style transfer, latent search) is a
leaf that requires grad: what is computed from it carries that step's graph.
Both facts must be seen in the same function, so that a name reused elsewhere
in the file (`x.requires_grad_()` for a gradient penalty) is not made a leaf."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes

_SKIP = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def trained_inputs(scope) -> frozenset:
    """Names in `scope`'s body (a flow.Scope) that it both marks as requiring grad
    and passes, by name, in the list or tuple that builds a torch optimizer."""
    found = getattr(scope, "_trained_inputs", None)
    if found is None:
        found = scope._trained_inputs = _find(scope.body, scope.imports)
    return found


def _find(body, imports) -> frozenset:
    marked, handed = set(), set()
    for stmt in body:
        for n in nodes(stmt, skip=_SKIP):
            if type(n) is cst.Assign:
                for t in n.targets:
                    name = marks(t.target, n.value)
                    if name and "." not in name:
                        marked.add(name)  # `w.requires_grad = True`
                    elif type(t.target) is cst.Name and makes_leaf(n.value):
                        marked.add(t.target.value)  # `w = x.detach().requires_grad_()`
            elif type(n) is cst.Expr and makes_leaf(n.value) and type(n.value.func.value) is cst.Name:
                marked.add(n.value.func.value.value)  # `w.requires_grad_()`
            elif type(n) is cst.Call and (imports.qualify(n.func) or "").startswith("torch.optim.") and n.args and \
                    type(n.args[0].value) in (cst.List, cst.Tuple):
                handed |= {e.value.value for e in n.args[0].value.elements if type(e.value) is cst.Name}
    return frozenset(marked & handed)


def makes_leaf(expr) -> bool:
    """`x.requires_grad_()` or `x.requires_grad_(True)`."""
    return type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value == "requires_grad_" \
        and all(_true(a.value) for a in expr.args)


def _true(e) -> bool:
    return type(e) is cst.Name and e.value == "True"


def marks(target, expr) -> str:
    """The name a statement `w.requires_grad = True` makes require grad, else ""."""
    if type(target) is cst.Attribute and target.attr.value == "requires_grad" and _true(expr):
        return dotted(target.value) or ""
    return ""
