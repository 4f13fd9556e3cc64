"""Summary.returns_loss: what a function hands back is the loss its own body backwards.

A careful reader of `def train_step(...): loss = ...; loss.backward(); opt.step(); return loss, acc`
needs nothing else to know that the caller receives a tensor with its graph: the backward proves it
(a float has no `.backward()`), and the graph's nodes stay referenced by the returned tensor. A
caller that keeps the result across iterations (`history.append(model.train_step(x)[0])`, in
another file) keeps every step's graph, whatever the step is named. Only a local returned as it is
counts, and only when the body does not bind it again after its last backward
(`loss = loss.item()` hands back a number)."""
from __future__ import annotations

import ast


def returned_losses(fn, backwarded: set) -> tuple:
    """-1 when every `return` hands back a backwarded local; else the positions of the
    returned tuples (of one length) that hold one in every `return`; () otherwise."""
    if not backwarded:
        return ()
    from .summaries import _own_nodes

    own = _own_nodes(fn)
    returns = [node.value for node in own if isinstance(node, ast.Return)]
    if not returns or any(value is None for value in returns):
        return ()
    last = {}
    for node in own:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("backward", "manual_backward"):
            for name in backwarded:
                if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node)):
                    last[name] = max(last.get(name, 0), node.lineno)
    kept = {name for name in backwarded if name in last and not _bound_after(own, name, last[name])}
    if not kept:
        return ()
    if all(isinstance(value, ast.Name) and value.id in kept for value in returns):
        return (-1,)
    if not all(isinstance(value, ast.Tuple) for value in returns) or len({len(v.elts) for v in returns}) != 1:
        return ()
    return tuple(index for index in range(len(returns[0].elts))
                 if all(isinstance(v.elts[index], ast.Name) and v.elts[index].id in kept for v in returns))


def _bound_after(own, name: str, line: int) -> bool:
    for node in own:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, (ast.For, ast.With)):
            targets = [node.target] if isinstance(node, ast.For) else \
                [item.optional_vars for item in node.items if item.optional_vars is not None]
        else:
            continue
        if getattr(node, "lineno", 0) > line and any(isinstance(n, ast.Name) and n.id == name
                                                     for t in targets for n in ast.walk(t)):
            return True
    return False
