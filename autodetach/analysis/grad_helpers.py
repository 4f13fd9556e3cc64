"""Module-level functions that hand back `torch.no_grad()`:

    def _get_no_grad_ctx_mgr():
        if float(torch.__version__[0:3]) >= 0.4:
            return torch.no_grad()
        return contextlib.suppress()       # old torch: no no_grad to give

    with _get_no_grad_ctx_mgr():           # as `with torch.no_grad():`

Only a function without parameters counts (its answer cannot depend on the
caller), whose every return gives a grad-off context, or a no-op context
chosen by the torch version: on the torch that runs today it is no_grad."""
from __future__ import annotations

import libcst as cst

from .walk import of_types

_NOOP = {"contextlib.suppress", "contextlib.nullcontext", "contextlib.ExitStack"}
_READ = frozenset({cst.Return, cst.Name})


def no_grad_helpers(module: cst.Module, imports, grad_off) -> frozenset:
    """Names of the module's functions that return a grad-off context; `grad_off(call)` says whether a
    call turns gradients off (flow.grad_mode)."""
    found = set()
    for stmt in module.body:
        if type(stmt) is not cst.FunctionDef or stmt.decorators or _has_params(stmt.params):
            continue
        nodes = of_types(stmt.body, _READ)
        returns = [n for n in nodes if type(n) is cst.Return]
        off = [r for r in returns if isinstance(r.value, cst.Call) and grad_off(r.value)]
        rest = [r for r in returns if r not in off]
        if not off or not all(_noop(r.value, imports) for r in rest):
            continue
        if rest and not any(n.value == "__version__" for n in nodes if type(n) is cst.Name):
            continue  # a no-op return not chosen by the torch version: which one runs is unknown
        found.add(stmt.name.value)
    return frozenset(found)


def _has_params(params: cst.Parameters) -> bool:
    return bool(params.params or params.posonly_params or params.kwonly_params or
                isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None)


def _noop(value, imports) -> bool:
    return isinstance(value, cst.Call) and not value.args and imports.qualify(value.func) in _NOOP
