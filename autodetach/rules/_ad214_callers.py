"""AD214 in the files that import a legacy Function: `RoICrop()(a, b)`.

0.3-era packages keep their Functions in one file (`functions/roi_crop.py`)
and call them from another (`modules/roi_crop.py`: `RoICropFunction()(a, b)`).
Rewriting the class alone leaves that call raising: calling a Function object
fails on a static Function too. The class is read with `ast` from the project
file the import names (analysis.imported_classes); the call becomes
`RoICrop.apply(a, b)` when the class is one AD214 rewrites safely (only
`forward` and `backward`, no `__init__`), whether that file is fixed already
or not (`apply` runs a non-static `forward` with `ctx` for `self` too)."""
from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from ..analysis.imported_classes import class_in_tree
from ..analysis.summaries import ast_dotted
from ..analysis.walk import nodes
from ..rule import Edit

_METHODS = {"forward", "backward"}
_SPELLED = {"autograd.Function", "torch.autograd.Function", "torch.autograd.function.Function"}


def _is_function(cls: ast.ClassDef, tree) -> bool:
    """A subclass of torch.autograd.Function, as its file spells it (a bare
    `Function` only where the file imports it from torch.autograd)."""
    bare = any(isinstance(n, ast.ImportFrom) and (n.module or "").startswith("torch.autograd") and
               any(a.name == "Function" and a.asname is None for a in n.names) for n in tree.body)
    names = {ast_dotted(base) for base in cls.bases}
    return "Function" in names and bare or bool(names & _SPELLED)


def _why_not(cls: ast.ClassDef) -> Optional[str]:
    """Why `Cls()(...)` cannot become `Cls.apply(...)` as it is; None when it can."""
    methods = {s.name for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if "forward" not in methods:
        return "it defines no `forward`"
    if "__init__" in methods:
        return "its `__init__` holds state, which becomes trailing arguments of `apply` once the class is " \
               "rewritten (AD214 in its file says how)"
    extra = sorted(methods - _METHODS)
    if extra:
        return f"its other methods ({', '.join(extra)}) are not reachable from `ctx`"
    if any(not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and
           not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)) for s in cls.body):
        return "its class attributes are not reachable from `ctx`"
    return None


def caller_reports(rule, calls: list) -> None:
    """Report (and fix) `Name()(...)` calls of Functions imported from project files
    (`Name(args)(...)`: reported only)."""
    ctx = rule.ctx
    by_name: dict = {}
    for call in calls:
        by_name.setdefault(call.func.func.value, []).append(call)
    local = {n.name.value for n in nodes(ctx.module) if type(n) is cst.ClassDef}
    for name, sites in by_name.items():
        if name in local:
            continue  # the class's own file: visit_ClassDef decides
        cls, where, tree = class_in_tree(ctx.analysis, sites[0].func.func)
        if cls is None or where == "this file" or not _is_function(cls, tree):
            continue
        msg = (f"`{name}` is an autograd Function ({where}) called through an instance, which raises since "
               f"PyTorch 1.3 (legacy or static, a Function is no longer an object to call)")
        why = _why_not(cls)
        if why is None:
            other = _other_use(ctx, name, sites)
            if other is not None:
                why = f"`{name}` is used other than as `{name}()(...)` (line {ctx.line_of(other)})"
        for call in sites:
            if why is None and call.func.args:
                rule.report(call, f"{msg}; rewrite the call by hand: `{name}` takes no constructor arguments")
                continue
            if why is not None:
                rule.report(call, f"{msg}; rewrite the call by hand: {why}")
                continue
            new = call.with_changes(func=cst.Attribute(value=call.func.func, attr=cst.Name("apply")))
            rule.report(call, f"{msg}; call `{name}.apply(...)`, which computes the same (AD214 rewrites the "
                              f"class itself in {where})",
                        edits=[Edit(call, new)], fix_title=f"Call `{name}.apply(...)`")


def _other_use(ctx, name: str, sites: list):
    """A reference to `name` other than the calls and its import, or None."""
    inside = {id(call.func.func) for call in sites}
    for n in nodes(ctx.module):
        if type(n) is cst.Name and n.value == name and id(n) not in inside and \
                not isinstance(ctx.parent(n), (cst.ImportAlias, cst.AsName)):
            return n
    return None
