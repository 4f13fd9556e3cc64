"""Optimizers built on `self` by an optimizer factory method of the class.

    # agent.py (a base class, here or in another file)
    def _get_optimizer(self, optimizer, model, lr):
        get_optim = partial(get_clipped_optimizer, optimizer_type=Adam)
        return get_optim(filter(lambda p: p.requires_grad, model.parameters()), lr=lr)

    # sac.py
    self.policy_opt = self._get_optimizer(self._hp.optimizer, self.policy, lr)
    self.critic_opts = [self._get_optimizer(self._hp.optimizer, critic, lr) for critic in self.critics]

The optimizer class is chosen at run time, so the names table does not know
`self.policy_opt` is an optimizer. A method whose name says it makes an
optimizer (`optim` in it) and whose every return builds something from
`P.parameters()` of one of its parameters `P` is taken to return an
optimizer over the module handed for `P`. That is an inference, said in
the message (`NameTable.inferred`); a comprehension over a container of
models gives a list whose entries step its entries (which entry steps
which is not followed, as in analysis.model_containers)."""
from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from ..imports import dotted
from .model_containers import ANY, _entry_loop, _zipped
from .walk import of_types

_ASSIGN = frozenset({cst.Assign})
_LOOPS = frozenset({cst.For, cst.CompFor})


def add_factory_optimizers(table, analysis) -> None:
    """`self.O = self.make_optim(..., self.X, ...)` (or a comprehension of such
    calls over `self.Xs`) in this file's classes, into the table."""
    from .cut_arguments import _Classes
    from .names import Optimizer

    text = analysis.ctx.text
    if text and "optim" not in text:
        return
    for stmt in analysis.ctx.module.body:
        if type(stmt) is not cst.ClassDef:
            continue
        classes, factories = None, {}
        for node in of_types(stmt, _ASSIGN):
            if len(node.targets) != 1:
                continue
            key = dotted(node.targets[0].target)
            if not key or not key.startswith("self.") or key in table.optimizers or key + ANY in table.optimizers \
                    or key in table.modules:
                continue
            value, comp = node.value, None
            if isinstance(value, cst.ListComp) and value.for_in.inner_for_in is None and not value.for_in.ifs:
                value, comp = value.elt, value.for_in
            meth = _self_method(value)
            if meth is None or "optim" not in meth.lower():
                continue
            if meth not in factories:
                classes = classes or _Classes(analysis, stmt)
                found = classes.method(meth)
                factories[meth] = _factory_param(found[0]) if found is not None else None
            where = factories[meth]
            arg = _bound(value, where) if where is not None else None
            if arg is None:
                continue
            if comp is None:
                owned = dotted(arg)
                if not owned or not table.is_module(owned) or not table.has_params(owned):
                    continue
                table.optimizers[key] = Optimizer(key, frozenset({owned}), node.value)
                table.inferred.setdefault(key, f"`{key}` is built by `self.{meth}` (taken to be an optimizer "
                                               f"factory: it builds its result from `{where[1]}.parameters()`) "
                                               f"over `{owned}`")
                continue
            base = dotted(comp.iter)
            if not (isinstance(comp.target, cst.Name) and isinstance(arg, cst.Name) and
                    arg.value == comp.target.value and base):
                continue
            owned = base + ANY if table.modules.get(base + ANY) == "param" else base
            if table.modules.get(owned) != "param":
                continue
            table.optimizers[key + ANY] = Optimizer(key + ANY, frozenset({owned}), None)
            table.inferred.setdefault(key + ANY, f"the entries of `{key}` step `{owned}` (built by `self.{meth}`, "
                                                 f"taken to be an optimizer factory, in a comprehension over "
                                                 f"`{base}`; which entry steps which is not followed)")
            _entries(table, analysis.ctx.module, key)


def _entries(table, module, key) -> None:
    """`for loss, opt in zip(losses, self.opts)` (a loop or a comprehension):
    `opt` steps what the entries of `self.opts` step."""
    from .names import Optimizer

    whole = table.optimizers[key + ANY]
    for node in of_types(module, _LOOPS):
        pairs = list(_zipped(node))
        if type(node) is cst.For:
            entry = _entry_loop(node)
            pairs += [entry[:2]] if entry is not None and not entry[2] else []
        elif isinstance(node.target, cst.Name) and dotted(node.iter):
            pairs.append((dotted(node.iter), node.target.value))
        for base, var in pairs:
            if base == key and var not in table.optimizers and var not in table.modules:
                table.optimizers[var] = Optimizer(var, whole.owns, None)
                table.inferred.setdefault(var, table.inferred[key + ANY])


def _self_method(value) -> Optional[str]:
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and dotted(value.func.value) == "self":
        return value.func.attr.value
    return None


def _bound(call: cst.Call, where):
    """The argument `call` binds to the factory's module parameter (index, name)."""
    index, name = where
    for i, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is not None:
            if arg.keyword.value == name:
                return arg.value
        elif i == index:
            return arg.value
    return None


def _factory_param(fn: ast.FunctionDef):
    """(index after `self`, name) of the parameter `P` whose `.parameters()`
    every return of `fn` is built from (its first argument), else None."""
    params = [a.arg for a in fn.args.args]
    if params[:1] == ["self"]:
        params = params[1:]
    found = set()
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
    if not returns:
        return None
    for ret in returns:
        value = ret.value
        if not (isinstance(value, ast.Call) and value.args):
            return None
        name = _gathered(value.args[0])
        if name is None or name not in params:
            return None
        found.add(name)
    if len(found) != 1:
        return None
    name = found.pop()
    return params.index(name), name


def _gathered(expr) -> Optional[str]:
    """`P` for `P.parameters()`, `filter(f, P.parameters())`, `list(...)`, `[p for p in ...]`."""
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in ("parameters", "named_parameters") and \
                isinstance(expr.func.value, ast.Name):
            return expr.func.value.id
        func = expr.func.id if isinstance(expr.func, ast.Name) else None
        if func == "filter" and len(expr.args) == 2:
            return _gathered(expr.args[1])
        if func in ("list", "tuple") and len(expr.args) == 1:
            return _gathered(expr.args[0])
        return None
    if isinstance(expr, (ast.ListComp, ast.GeneratorExp)) and len(expr.generators) == 1:
        return _gathered(expr.generators[0].iter)
    return None
