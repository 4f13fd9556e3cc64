"""`avg.add(loss)` where `avg` is no container this file builds: bound by a call of
code that is not read (`avg = meters.averager()`, `hist = make_history()` imported
from a module out of sight), or bound nowhere in the file. A list or a set keeps
what it is given; an object of a class that is not read may keep numbers only
(`v.data.sum()`), so that it keeps the argument with its graph is an inference,
which the finding names (factories.library_keeper_note). A name bound to a
literal container, a call of the standard library, torch or numpy, or of a class
or function of this file somewhere in the file is left as it was."""
from __future__ import annotations

import builtins
import sys
from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes

_KNOWN_ROOTS = {"torch", "numpy", "np", "builtins"}
_LITERALS = (cst.List, cst.ListComp, cst.Set, cst.SetComp, cst.Dict, cst.DictComp, cst.Tuple)


def unread_keeper_note(analysis, key: str, meth: str) -> Optional[str]:
    if not key or not all(part.isidentifier() for part in key.split(".")) or key.split(".")[0] == "cls":
        return None
    values = _bindings(analysis, key)
    if values is None:
        return None
    if not values:
        if "." in key or key in dir(builtins):
            return None
        return (f"`{key}` is bound nowhere in this file (an object out of sight): that its `{meth}` keeps its "
                f"argument with its graph, as a list's would, is inferred")
    made = []
    for value in values:
        if isinstance(value, _LITERALS) or not isinstance(value, cst.Call):
            return None
        if _known_call(analysis, value.func):
            return None
        made.append(dotted(value.func) or analysis.ctx.code(value.func).strip())
    name = made[0]
    return (f"`{key}` is built by `{name}(...)`, whose code is not read: that its `{meth}` keeps its argument "
            f"with its graph, as a list's would, is inferred")


def _known_call(analysis, func) -> bool:
    """A call whose result this file knows: a builtin, the standard library, torch, numpy,
    a class or function of this file."""
    names = analysis.names
    key = dotted(func)
    if key is None:
        return True  # `factory()()`, `d[k]()`: not followed here; left as it was
    if key in names.classes or key in names.functions or key in names.instances or key in dir(builtins):
        return True
    qualified = analysis.ctx.imports.qualify(func) or key
    root = qualified.split(".")[0]
    if root in _KNOWN_ROOTS or root in sys.stdlib_module_names:
        return True
    if qualified == key and "." not in key:
        return False  # a name imported from nowhere the file shows (`from utils import *`)
    if root == "self":
        return False  # `self.make_meter()`: a method of a class not followed here
    return not analysis.ctx.imports.qualify(func)


def _bindings(analysis, key: str) -> Optional[list]:
    """The values bound to `key` in the file; None when some binding is not a plain
    assignment (a parameter, a loop target, an import, an unpacked call)."""
    memo = analysis.table("_unread_keepers")
    if key not in memo:
        memo[key] = _find(analysis, key)
    return memo[key]


def _find(analysis, key: str) -> Optional[list]:
    out: list = []
    simple = "." not in key
    for n in nodes(analysis.ctx.module):
        t = type(n)
        if t is cst.Assign:
            for target in n.targets:
                found = _match(target.target, n.value, key)
                if found is False:
                    return None
                if found is not None:
                    out.append(found)
        elif t is cst.AnnAssign and dotted(n.target) == key:
            if n.value is None:
                continue
            out.append(n.value)
        elif t in (cst.For, cst.CompFor) and _names_in(n.target, key):
            return None
        elif t is cst.WithItem and n.asname is not None and _names_in(n.asname.name, key):
            return None
        elif t in (cst.AugAssign,) and dotted(n.target) == key:
            continue
        elif simple and t is cst.Param and n.name.value == key:
            return None
        elif simple and t in (cst.ImportAlias,) and (n.evaluated_alias or n.evaluated_name).split(".")[0] == key:
            return None
        elif simple and t is cst.NamedExpr and dotted(n.target) == key:
            return None
        elif t in (cst.FunctionDef, cst.ClassDef) and simple and n.name.value == key:
            return None
    return out


def _match(target, value, key):
    """The value `key` gets from `target = value`; None: not bound here; False: bound
    in a way not followed (unpacked from a call)."""
    if dotted(target) == key:
        return value
    if isinstance(target, (cst.Tuple, cst.List)):
        if not _names_in(target, key):
            return None
        if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements):
            for t, v in zip(target.elements, value.elements):
                if isinstance(t, cst.StarredElement) or isinstance(v, cst.StarredElement):
                    return False
                found = _match(t.value, v.value, key)
                if found is not None:
                    return found
            return None
        return False
    return None


def _names_in(target, key: str) -> bool:
    return any(dotted(n) == key for n in nodes(target) if isinstance(n, (cst.Name, cst.Attribute)))
