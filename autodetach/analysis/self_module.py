"""A module's names for itself: `d2l = sys.modules[__name__]` at the top of a
file, then `d2l.Accumulator(4)` and `d2l.evaluate_loss(net, it)` in it are the
file's own class and function (the d2l book's library files are written so).
The names table files such calls under the plain name, so the rest of the
analysis reads them as any call of this file's code."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted


def self_aliases(module: cst.Module, imports) -> frozenset:
    """Names bound at module level, and only there, to `sys.modules[__name__]`."""
    found, other = set(), set()
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if type(small) is not cst.Assign:
                continue
            for target in small.targets:
                if type(target.target) is not cst.Name:
                    continue
                (found if _is_self(small.value, imports) else other).add(target.target.value)
    return frozenset(found - other - set(imports.aliases))


def _is_self(value, imports) -> bool:
    if type(value) is not cst.Subscript or len(value.slice) != 1:
        return False
    index = value.slice[0].slice
    return imports.qualify(value.value) == "sys.modules" and isinstance(index, cst.Index) and \
        type(index.value) is cst.Name and index.value.value == "__name__"


def local_key(key: Optional[str], aliases: frozenset) -> Optional[str]:
    """`d2l.Accumulator` -> `Accumulator` where `d2l` is the module itself."""
    if key and aliases and key.count(".") == 1:
        head, _, rest = key.partition(".")
        if head in aliases:
            return rest
    return key


def local_func(func, aliases: frozenset) -> Optional[str]:
    return local_key(dotted(func), aliases)
