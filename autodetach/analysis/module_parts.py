"""Optimizers that step modules they do not name.

    nets = nn.ModuleList([G, D])            # or nn.Sequential(G, D), GAN(G, D)
    opt = Adam(nets.parameters())           # steps G and D
    opt_g = Adam(G.parameters())
    opt_g.add_param_group({"params": D.parameters()})   # steps D too

The code then calls `G(z)` and `D(fake)` by their own names, so an owner
set of {`nets`} or {`G`} would say that nothing steps the gradients a
backward puts into the other net, and AD103 would detach a graph whose
gradients the optimizer uses. A module built from modules is taken to hold
their parameters (an over-estimate costs a `retain_graph`, never numbers);
a parameter group that cannot be read leaves the owner unknown."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted


def module_parts(assigns: list, table) -> dict:
    """container key -> module keys its constructor was given."""
    out: dict = {}
    for node in assigns:
        if len(node.targets) != 1:
            continue
        target, value = node.targets[0].target, node.value
        pairs = [(target, value)]
        if type(target) is cst.Tuple and type(value) is cst.Tuple and \
                len(target.elements) == len(value.elements):
            pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)]  # G, D = Gen(t), Dis(t)
        for target, value in pairs:
            key = dotted(target)
            if key is None or key not in table.modules or not isinstance(value, cst.Call):
                continue
            given = set()
            for arg in value.args:
                given |= _modules_in(arg.value, table)
            given.discard(key)
            if given:
                out.setdefault(key, set()).update(given)
    return out


def parts_of(table, module: str) -> set:
    """`module` and the modules it was built from, transitively (`G` built
    as `Generator(trunk)`: {G, trunk})."""
    out, todo = {module}, [module]
    while todo:
        for p in table.parts.get(todo.pop(), ()):
            if p not in out:
                out.add(p)
                todo.append(p)
    return out


def _modules_in(expr, table) -> set:
    key = dotted(expr)
    if key is not None:
        return {key} if key in table.modules else set()
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        return set().union(*(_modules_in(e.value, table) for e in expr.elements))
    if isinstance(expr, cst.Dict):
        return set().union(*(_modules_in(e.value, table) for e in expr.elements
                             if isinstance(e, cst.DictElement)))
    if isinstance(expr, cst.Call) and dotted(expr.func) in ("OrderedDict", "collections.OrderedDict", "dict"):
        return set().union(*(_modules_in(arg.value, table) for arg in expr.args))
    return set()


def extend_owners(table, parts: dict, groups: list, env: dict, imports) -> None:
    """Add to each optimizer's owners the parts of the modules it owns, and
    what `opt.add_param_group({...})` gives it (groups: the calls)."""
    from .names import Optimizer, _owned

    for call in groups:
        key = dotted(call.func.value)
        o = table.optimizers.get(key)
        if o is None or o.owns is None or not call.args:
            continue
        added = _owned(call.args[0].value, table, env, imports)
        if isinstance(call.args[0].value, cst.Dict):
            added = _group_params(call.args[0].value, table, env, imports)
        owns = None if added is None else o.owns | frozenset(added)
        table.optimizers[key] = Optimizer(key, owns, o.node)
    if not parts:
        return
    for key, o in list(table.optimizers.items()):
        if not o.owns:
            continue
        owns, todo = set(o.owns), list(o.owns)
        while todo:
            for p in parts.get(todo.pop(), ()):
                if p not in owns:
                    owns.add(p)
                    todo.append(p)
        if owns != set(o.owns):
            table.optimizers[key] = Optimizer(key, frozenset(owns), o.node)


def _group_params(groups: cst.Dict, table, env, imports):
    from .names import _owned

    for e in groups.elements:
        if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString) and \
                e.key.evaluated_value == "params":
            return _owned(e.value, table, env, imports)
    return None
