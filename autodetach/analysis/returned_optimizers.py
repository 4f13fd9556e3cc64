"""Optimizers a method of the class builds and returns.

    def configure_optimizers(self, args):
        opt_vq = torch.optim.Adam(list(self.vqgan.encoder.parameters()) + ..., lr=lr)
        opt_disc = torch.optim.Adam(self.discriminator.parameters(), lr=lr)
        return opt_vq, opt_disc

    self.opt_vq, self.opt_disc = self.configure_optimizers(args)   # in __init__

The constructors are in this file, in the method, bound to its local names;
the names table knows what those locals own but not that `self.opt_vq` is
the first of them. Where the method's only `return` is a tuple (or one name)
of such locals, each `self` attribute it is unpacked into is that optimizer:
read from the code, not inferred (a role paired by name before is replaced,
with its note)."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes, of_types

_ASSIGN = frozenset({cst.Assign})


def add_returned_optimizers(table) -> None:
    from .names import Optimizer

    for (cls, meth), fn in list(table.methods.items()):
        for node in of_types(fn, _ASSIGN):
            if len(node.targets) != 1 or type(node.value) is not cst.Call:
                continue
            callee = dotted(node.value.func) or ""
            if not callee.startswith("self.") or callee.count(".") != 1:
                continue
            method = table.methods.get((cls, callee[5:]))
            returned = _returned(method) if method is not None else None
            if not returned:
                continue
            target = node.targets[0].target
            keys = [dotted(e.value) for e in target.elements] if type(target) in (cst.Tuple, cst.List) \
                else [dotted(target)]
            if len(keys) != len(returned):
                continue
            inside = {id(n) for n in nodes(method)}
            for key, local in zip(keys, returned):
                optimizer = table.optimizers.get(local)
                if not key or not key.startswith("self.") or optimizer is None or optimizer.owns is None \
                        or id(optimizer.node) not in inside:
                    continue
                known = table.optimizers.get(key)
                if known is not None and known.owns is not None and key not in table.inferred:
                    continue
                table.optimizers[key] = Optimizer(key, optimizer.owns, optimizer.node)
                table.inferred.pop(key, None)


def _returned(fn):
    """The local names of `fn`'s only return (`return a, b` or `return a`), or None."""
    returns = [n for n in nodes(fn) if type(n) is cst.Return]
    if len(returns) != 1 or returns[0].value is None:
        return None
    value = returns[0].value
    elems = [e.value for e in value.elements] if type(value) is cst.Tuple else [value]
    if not all(type(e) is cst.Name for e in elems):
        return None
    return [e.value for e in elems]
