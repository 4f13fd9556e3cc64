"""Reads of a kept value by code the walk does not follow at a backward.

A leak is "never backwarded" only as far as the walk sees. A `lambda` or a
nested function that reads the kept name, or another method of the class
that returns what `self.key` keeps, hands the value to code that may
backward it (`penalty = lambda: ema.mean(); penalty().backward()`,
`trainer.report().mean().backward()`): a `.detach()` where the value is
stored would then stop that gradient, so such a cut is not safe.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes


def unfollowed_read(ctx, node, key: str) -> Optional[str]:
    """What reads the kept `key` out of the walk's sight, as a note, else None."""
    if key.startswith("self.") and key.count(".") == 1:
        return _returned_by_method(ctx, node, key)
    if "." in key:
        return None
    return _closure_read(ctx, node, key)


def _reads_name(tree, key: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == key for n in nodes(tree))


def _binds(func: cst.FunctionDef, key: str) -> bool:
    """`key` is a parameter or a local of `func` (assigned without `global`/`nonlocal`)."""
    params = func.params
    if any(p.name.value == key for p in [*params.params, *params.posonly_params, *params.kwonly_params]):
        return True
    assigned = False
    for n in nodes(func.body):
        if isinstance(n, (cst.Global, cst.Nonlocal)) and any(a.name.value == key for a in n.names):
            return False  # wherever it stands: the name is the enclosing one
        targets = n.targets if isinstance(n, cst.Assign) else [n] if isinstance(n, (cst.AugAssign, cst.AnnAssign)) \
            else []
        assigned = assigned or any(isinstance(t.target, cst.Name) and t.target.value == key for t in targets)
    return assigned


def _closure_read(ctx, node, key: str) -> Optional[str]:
    stmt = node.stmt if node.stmt is not None else node.expr
    home = ctx.enclosing(stmt, (cst.FunctionDef, cst.Module)) or ctx.module
    for n in nodes(home):
        if n is home:
            continue
        if isinstance(n, cst.Lambda) and _reads_name(n.body, key):
            return f"`{key}` is read in a `lambda` the walk does not follow, and what it returns may be backwarded"
        if isinstance(n, cst.FunctionDef) and not _binds(n, key) and _reads_name(n.body, key):
            return (f"`{key}` is read in `{n.name.value}`, a function the walk does not follow here, and what "
                    f"it returns may be backwarded")
    return None


def _returned_by_method(ctx, node, key: str) -> Optional[str]:
    stmt = node.stmt if node.stmt is not None else node.expr
    cls = ctx.enclosing(stmt, (cst.ClassDef,))
    if cls is None:
        return None
    storing = ctx.enclosing(stmt, (cst.FunctionDef,))
    for func in cls.body.body:
        if not isinstance(func, cst.FunctionDef) or func is storing or func.name.value == "__init__":
            continue
        for n in nodes(func.body):
            if isinstance(n, cst.Return) and n.value is not None and \
                    any(isinstance(m, cst.Attribute) and dotted(m) == key for m in nodes(n.value)):
                return (f"`{cls.name.value}.{func.name.value}` returns what `{key}` keeps to a caller not followed, "
                        f"which may backward it")
    return None
