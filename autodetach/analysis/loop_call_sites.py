"""Which call in a loop runs a backward that sits in a shared helper.

The walk follows `self.enforce_encoding(...)` into `self.__train(loss)` and
finds the backward there; when that helper is called from several places,
its own line says nothing about which caller handed it the stale graph
(symbolic_simplifier: an encoding built before the loop, passed to every
call). This names the call in the loop body that leads to it.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import class_methods, nodes

_DEPTH = 3


def loop_call_site(ctx, loop, stmt) -> Optional[cst.Call]:
    """The call in `loop`'s body whose callee (a method of the loop's class
    or a function of this module, up to three calls deep) holds `stmt`, when
    `stmt` is outside the loop and its function is called from more than one
    place in this file; None otherwise."""
    if loop is None or ctx.encloses(loop, stmt):
        return None
    target = ctx.enclosing(stmt, (cst.FunctionDef,))
    outer = ctx.enclosing(loop, (cst.FunctionDef,))
    if target is None or outer is None or target is outer:
        return None
    table = _callables(ctx, outer)
    callers = {id(fn): fn for fn in table.values()}
    callers[id(outer)] = outer
    if sum(1 for fn in callers.values() for _ in _calls_to(fn, target, table)) < 2:
        return None  # a helper with one caller: its own line is the place
    for node in nodes(loop.body):
        if type(node) is cst.Call and _reaches(table.get(_callee(node)), target, table, _DEPTH):
            return node
    return None


def _callables(ctx, fn) -> dict:
    """`self.m` -> def for the methods of `fn`'s class; `f` -> def for module functions."""
    table = {}
    for item in ctx.module.body:
        if isinstance(item, cst.FunctionDef):
            table[item.name.value] = item
    cls = ctx.enclosing(fn, (cst.ClassDef,))
    if cls is not None:
        for name, method in class_methods(cls).items():
            table["self." + name] = method
    return table


def _callee(call) -> Optional[str]:
    key = dotted(call.func)
    return key if key is not None and (key.count(".") == 0 or (key.startswith("self.") and key.count(".") == 1)) \
        else None


def _calls_to(fn, target, table):
    for node in nodes(fn):
        if type(node) is cst.Call and table.get(_callee(node)) is target:
            yield node


def _reaches(fn, target, table, depth) -> bool:
    if fn is None:
        return False
    if fn is target:
        return True
    if depth <= 1:
        return False
    return any(_reaches(table.get(_callee(n)), target, table, depth - 1)
               for n in nodes(fn) if type(n) is cst.Call and table.get(_callee(n)) is not fn)
