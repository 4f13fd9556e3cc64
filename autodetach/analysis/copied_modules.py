"""Modules that are copies of another: new parameters, no path back.

    fast = copy.deepcopy(model)                 # or model.clone(), a method of its class that
    ...                                         #   builds a new instance and loads the state dict
    meta_loss = loss_fn(fast(x_query), y_query)
    meta_opt.zero_grad(); meta_loss.backward(); meta_opt.step()   # meta_opt steps `model`

A copy's parameters are new leaves: autograd has no edge from them to the
original's, so a loss computed from the copy sends the original nothing,
and an optimizer over the original steps with no gradient from it (MAML
written with a deep copy instead of a functional call of the original's
parameters). Copies are read from assignments: `copy.deepcopy(M)`; a method
of a class of this file named at `M.meth()` (one class defines it) whose
return is `copy.deepcopy(self)` or a new object of a module class
(`type(self)(...)`, `Cls(...)`); and a function or method of this file
called with `M` whose return is a copy of that parameter (one level). A
copy found through a method by its name alone is an inference, said."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes

_DEEPCOPY = ("copy.deepcopy",)


@dataclass
class Copy:
    name: str  # the name the copy is bound to (`fast`, `adapted_model`)
    source: str  # the module copied (`model`, `self.model`)
    stmt: cst.CSTNode  # the innermost assignment that makes the copy (what the finding points at)
    how: str  # `copy.deepcopy(model)`, or the method that builds it
    note: str = ""  # what was inferred


def copies(analysis) -> dict:
    """name -> [Copy] for every assignment of a copy of a module in the file (names.copies)."""
    return analysis.names.copies


def mark_copies(table, analysis) -> None:
    """Called while the names table is built: each copy's name is a module (with parameters of
    its own), so that a call of it (`tuned(xq)`, `tuned = adapt(self.net, ...)`) is seen to run one."""
    ctx = analysis.ctx
    if ctx.text and "deepcopy" not in ctx.text and "load_state_dict" not in ctx.text:
        return
    table.copies = _find(_Reader(ctx, table))
    for key in table.copies:
        table.modules.setdefault(key, "param")


class _Reader:
    """What _find reads of the analysis, before its names table is done."""

    def __init__(self, ctx, table) -> None:
        self.ctx = ctx
        self.names = table
        self._classes = {id(n): cls for (cls, _), fn in table.methods.items() for n in nodes(fn)}

    def class_of_stmt(self, stmt):
        return self._classes.get(id(stmt))


def _find(analysis) -> dict:
    ctx = analysis.ctx
    table = analysis.names
    out: dict = {}
    funcs = [ctx.module] + list(table.functions_all)
    for body in funcs:
        for node in nodes(body):
            if type(node) is not cst.Assign or len(node.targets) != 1 or type(node.value) is not cst.Call:
                continue
            key = dotted(node.targets[0].target)
            if not key:
                continue
            found = _copy_of(analysis, node.value, node, depth=1)
            if found is not None:
                source, stmt, how, note = found
                out.setdefault(key, []).append(Copy(key, source, stmt, how, note))
    return out


def _copy_of(analysis, call: cst.Call, stmt, depth: int) -> Optional[tuple]:
    """(source module, innermost statement, how, note) when `call` returns a copy of a module."""
    ctx = analysis.ctx
    table = analysis.names
    func = call.func
    if ctx.imports.qualify(func) in _DEEPCOPY and call.args:
        src = dotted(call.args[0].value)
        if src and table.is_module(src):
            return src, stmt, f"`{ctx.code(call).strip()}`", ""
        return None
    if type(func) is not cst.Attribute:
        fn = table.functions.get(func.value) if type(func) is cst.Name else None
        return _through(analysis, fn, call, depth, bound=False) if fn is not None else None
    base = dotted(func.value)
    if base is None:
        return None
    meth = func.attr.value
    if base == "self":
        fn = _own_method(analysis, stmt, meth)
        return _through(analysis, fn, call, depth, bound=True) if fn is not None else None
    if call.args:
        return None
    # `model.clone()`: a method of a class of this file that builds a fresh module
    owners = [fn for (cls, name), fn in table.methods.items() if name == meth and cls in table.module_classes]
    if len(owners) != 1 or not _returns_fresh(analysis, owners[0]):
        return None
    cls = next(c for (c, name), fn in table.methods.items() if fn is owners[0])
    note = "" if table.instances.get(base) == cls else \
        f"`{base}.{meth}()` taken to be `{cls}.{meth}`, the only class of this file that defines it"
    return base, stmt, f"`{cls}.{meth}`, which builds a new `{cls}` and loads the state into it", note


def _own_method(analysis, stmt, meth):
    cls = analysis.class_of_stmt(stmt)
    return analysis.names.class_method(cls, meth) if cls else None


def _through(analysis, fn, call, depth: int, bound: bool) -> Optional[tuple]:
    """A function of this file whose return is a copy of one of its parameters: the copy of what the call hands it."""
    if depth <= 0:
        return None
    ret = _only_return(fn)
    if ret is None:
        return None
    params = [p.name.value for p in fn.params.params]
    if bound and params and params[0] == "self":
        params = params[1:]
    inner = None
    if type(ret) is cst.Name:
        binding = [n for n in nodes(fn) if type(n) is cst.Assign and len(n.targets) == 1
                   and type(n.targets[0].target) is cst.Name and n.targets[0].target.value == ret.value]
        if len(binding) != 1 or type(binding[0].value) is not cst.Call:
            return None
        inner = _copy_of(analysis, binding[0].value, binding[0], depth - 1)
    elif type(ret) is cst.Call:
        inner = _copy_of(analysis, ret, ret, depth - 1)
    if inner is None or inner[0] not in params:
        return None
    if any(_rebinds(n, inner[0]) for n in nodes(fn)):
        return None
    index = params.index(inner[0])
    arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == inner[0]), None)
    if arg is None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if index >= len(positional):
            return None
        arg = positional[index]
    src = dotted(arg.value)
    if not src or not analysis.names.is_module(src):
        return None
    return src, inner[1], inner[2], inner[3]


def _rebinds(node, name: str) -> bool:
    return type(node) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == name
                                            for t in node.targets)


def _only_return(fn):
    returns = [n for n in nodes(fn) if type(n) is cst.Return]
    if len(returns) != 1 or returns[0].value is None:
        return None
    return returns[0].value


def _returns_fresh(analysis, fn) -> bool:
    """`return copy.deepcopy(self)`, or a name bound once to a new object of a module class
    (`Cls(...)`, `type(self)(...)`, `self.__class__(...)`) that loads `self.state_dict()`."""
    ctx = analysis.ctx
    ret = _only_return(fn)
    if ret is None:
        return False
    if type(ret) is cst.Call and ctx.imports.qualify(ret.func) in _DEEPCOPY and ret.args \
            and dotted(ret.args[0].value) == "self":
        return True
    if type(ret) is not cst.Name:
        return False
    binding = [n for n in nodes(fn) if _rebinds(n, ret.value)]
    if len(binding) != 1 or type(binding[0].value) is not cst.Call:
        return False
    made = binding[0].value
    ctor = dotted(made.func) or ""
    if type(made.func) is cst.Call:
        ctor = ctx.code(made.func).strip()
    fresh = ctor in analysis.names.module_classes or ctor in ("type(self)", "self.__class__")
    if ctx.imports.qualify(made.func) in _DEEPCOPY:
        fresh = bool(made.args) and dotted(made.args[0].value) == "self"
        return fresh
    loads = any(type(n) is cst.Call and type(n.func) is cst.Attribute and n.func.attr.value == "load_state_dict"
                and dotted(n.func.value) == ret.value for n in nodes(fn))
    return fresh and loads


def hands_gradients(body) -> bool:
    """`p.grad = fp.grad`, `.grad` read or written, or a call whose name speaks of gradients
    (`copy_grads(model, fast)`) other than torch's own (`torch.autograd.grad` on the copy's
    parameters, `clip_grad_norm_`): gradients may be handed to the original by hand."""
    from .silenced import _GRAD_CALLS_KNOWN

    for node in nodes(body) if not isinstance(body, (list, tuple)) else (n for b in body for n in nodes(b)):
        if type(node) is cst.Attribute and node.attr.value in ("grad", "_grad") and \
                not (dotted(node) or "").endswith("autograd.grad"):
            return True
        if type(node) is cst.Call:
            name = dotted(node.func) or ""
            last = name.rsplit(".", 1)[-1]
            if "grad" in last.lower() and last not in _GRAD_CALLS_KNOWN and not name.endswith("autograd.grad") \
                    and name != "grad":
                return True
    return False
