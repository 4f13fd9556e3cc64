"""Modules built by calling a class handed in as a parameter: `self.policy =
policy(**kw).to(device)` in `def _setup(self, policy, ...)`. When the
parameter has a default class (`def __init__(self, policy=EIIE)`), directly
or through the call that hands it on (`self._setup(policy, ...)`,
`self._setup(self.policy, ...)` after `self.policy = policy`), that class is
the only one the code shows: forward_extras.returns_no_graph judges by it
(a policy whose forward returns numpy). Nothing else reads it."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import bound_argument, nodes

_CHAIN = ("to", "cuda", "cpu", "train", "eval", "float", "double")


def find_handed_classes(table) -> None:
    for fn in table.functions_all:
        params = _params(fn)
        if not params:
            continue
        for stmt in _own(fn):
            call = stmt.value
            while type(call) is cst.Call and type(call.func) is cst.Attribute and call.func.attr.value in _CHAIN:
                call = call.func.value
            if type(call) is not cst.Call or type(call.func) is not cst.Name or call.func.value not in params:
                continue
            name = call.func.value
            default = params[name] if params[name] is not None else _handed_default(table, fn, name)
            if default is None:
                continue
            for target in stmt.targets:
                key = dotted(target.target)
                if key is not None:
                    table.default_instances[key] = default


def _params(fn: cst.FunctionDef) -> dict:
    """Parameter -> its default when that is a name (`policy=EIIE`), else None; `self` left out."""
    ps = fn.params
    return {p.name.value: p.default if p.default is not None and dotted(p.default) else None
            for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params) if p.name.value not in ("self", "cls")}


def _own(fn) -> list:
    """The assignments of `fn`'s body, not those of functions, classes or lambdas defined in it."""
    return [n for n in nodes(fn.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)) if type(n) is cst.Assign]


def _handed_default(table, fn: cst.FunctionDef, name: str) -> Optional[cst.BaseExpression]:
    """`self._setup(policy, ...)` in a function whose `policy=EIIE`: the class it hands on."""
    positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    if positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    for caller in table.functions_all:
        if caller is fn:
            continue
        defaults = None
        for call in nodes(caller):
            if type(call) is not cst.Call or (dotted(call.func) or "").split(".")[-1] != fn.name.value:
                continue
            arg = bound_argument(call, positional, name)
            if arg is None:
                continue
            if defaults is None:
                defaults = _params(caller)
            key = dotted(arg)
            if key in defaults and defaults[key] is not None:
                return defaults[key]
            if key is not None and key[:1].isupper():
                return arg  # `self._setup(EIIE, ...)`
            if key is not None and key.startswith("self."):
                found = _attr_default(table, key)  # `self._setup(self.policy, ...)`, `self.policy = policy`
                if found is not None:
                    return found
    return None


def _attr_default(table, key: str):
    for fn in table.functions_all:
        defaults = None
        for stmt in _own(fn):
            if type(stmt.value) is cst.Name and \
                    any(dotted(t.target) == key for t in stmt.targets):
                if defaults is None:
                    defaults = _params(fn)
                if defaults.get(stmt.value.value) is not None:
                    return defaults[stmt.value.value]
    return None
