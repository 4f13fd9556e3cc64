"""Where a plain name is a leaf.

The name table is the file's: `w = Variable(x, requires_grad=True)` in an
attack function puts `w` among its leaves. A function elsewhere in the file
that binds its own local `w` (DeepFool's `w = grad_input - grad_input[t]`)
binds another variable, computed there: that `w` is a leaf only where a
binding in its own function makes it one.
"""
from __future__ import annotations

import libcst as cst

from .walk import nodes


def local_leaf(analysis, key: str, stmt, expr=None) -> bool:
    """May the plain name `key`, bound to `expr` by `stmt`, be the leaf the name
    table knows? Not when `expr` is arithmetic (whose result is never a leaf)
    and no binding in the function holding `stmt` (or at module level, for a
    statement there) makes `key` one: then it is another function's variable
    of the same name. A value read from state or returned by a call may be
    the leaf itself (`task_weights, opt = self._new_weights()`)."""
    if not isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation)):
        return True
    homes = analysis.memo("_leaf_homes", lambda: _homes(analysis))
    return _home(analysis, stmt) in homes.get(key, {None})


def _homes(analysis) -> dict:
    out: dict = {}
    for key, values in analysis.names.leaf_values.items():
        if "." not in key:
            out[key] = {_home(analysis, value) for value in values}
    return out


def _home(analysis, node):
    """The innermost function holding `node` (None: module level)."""
    node = getattr(node, "suite", node)  # flow's _SuiteLine
    table = analysis.memo("_node_functions", lambda: _functions(analysis))
    fn = table.get(id(node))
    return id(fn) if fn is not None else None


def _functions(analysis) -> dict:
    table: dict = {}
    for fn in analysis.names.functions_all:  # outer functions come first: inner ones overwrite
        for n in nodes(fn.body):
            table[id(n)] = fn
    return table
