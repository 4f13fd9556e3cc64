"""A plain name the file-wide name table calls a module, bound here to a tensor.

    def __setup_loss(self, kind):
        loss = losses.CondWGAN(self.dis)       # a project loss object: `loss` is an object here
        return loss

    def optimize_generator(self, noise):
        loss = -torch.mean(self.dis(self.gen(noise)))   # ... and a tensor here
        loss.backward(retain_graph=True)

The name table is one per file, so the first function made `loss` a module
everywhere and the second one's loss lost its graph. A local of a function
that only ever binds it to values carrying a graph (no constructor, no alias,
no `.to(device)` of a module) is a tensor in that function."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes

_MODULE_METHODS = {"to", "cuda", "cpu", "train", "eval", "half", "float", "double", "requires_grad_"}


def local_tensor(ctx, key: str, stmt, val) -> bool:
    """Is `key`, bound by `stmt` to `val`, a tensor local to the function around `stmt`?"""
    if "." in key or stmt is None or not val.graph or val.heads and all(h.leaf for h in val.heads):
        return False
    fn = ctx.enclosing(stmt, cst.FunctionDef)
    if fn is None:
        return False
    stars = [p for p in (fn.params.star_arg, fn.params.star_kwarg) if isinstance(p, cst.Param)]
    params = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params, *fn.params.posonly_params, *stars)}
    if key in params:
        return False
    for node in nodes(fn.body):
        if isinstance(node, (cst.Global, cst.Nonlocal)) and key in {item.name.value for item in node.names}:
            return False
        if isinstance(node, cst.Assign) and any(key in _bound(t.target) for t in node.targets) \
                and _object(node.value, key):
            return False
    return True


def _bound(target) -> set:
    return {n.value for n in nodes(target) if isinstance(n, cst.Name)} if isinstance(target, (cst.Tuple, cst.List)) \
        else {target.value} if isinstance(target, cst.Name) else set()


def _object(value, key: str) -> bool:
    """A value that may be an object: a call of a class or of a factory not known to
    return a tensor, an alias, or a module moved or switched (`net.to(device)`)."""
    if isinstance(value, (cst.Name, cst.Attribute)):
        return True
    if not isinstance(value, cst.Call):
        return False
    name = dotted(value.func) or ""
    last = name.rpartition(".")[2]
    if last[:1].isupper():
        return True
    return isinstance(value.func, cst.Attribute) and value.func.attr.value in _MODULE_METHODS
