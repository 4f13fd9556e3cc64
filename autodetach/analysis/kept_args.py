"""Objects of the file's own plain classes that keep what they are given:

    class Wrap:
        def __init__(self, t):
            self.t = t

    out = model(x)
    loss.backward(retain_graph=True)
    Wrap(out).t.mean().backward()     # walks the graph the first backward kept

An object of a local helper class used to be taken to hold no graph at all,
so whatever was read back from it carried none: AD104 then offered a safe
drop of a retain the next backward needs. A class keeps its arguments when
its `__init__` stores something built from a parameter on `self`, when it is
a dataclass or a NamedTuple, or when it has no `__init__` of its own and a
base class (whose `__init__` is not read here). A record type the module
binds by a call (`SavedAction = namedtuple("SavedAction", [...])`) keeps
them too (record_types)."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .self_storage import stores_on_self
from .walk import nodes


def keeps_arguments(ctx, name: str) -> bool:
    classes = ctx.class_defs(name)
    if len(classes) != 1:
        return bool(classes)  # redefined: either may run
    cls = classes[0]
    if any((dotted(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or "")
           .rpartition(".")[2] == "dataclass" for d in cls.decorators):
        return True
    init = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    if init is None:
        return any(dotted(b.value) not in (None, "object") for b in cls.bases if b.keyword is None) or \
            any(dotted(b.value) is None for b in cls.bases if b.keyword is None)
    params = {p.name.value for p in (*init.params.params, *init.params.kwonly_params)} - {"self"}
    for extra in (init.params.star_arg, init.params.star_kwarg):
        if isinstance(extra, cst.Param):
            params.add(extra.name.value)
    for node in nodes(init.body):
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and node.value is not None:
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if any(stores_on_self(t) for t in targets) and _reads(node.value, params):
                return True
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                node.func.attr.value in ("__init__", "append", "extend", "update", "setattr") or \
                isinstance(node, cst.Call) and dotted(node.func) == "setattr":
            if any(_reads(arg.value, params) for arg in node.args):
                return True  # `super().__init__(t)`, `self.items.append(t)`, `setattr(self, k, v)`
    return False


def _reads(expr, params) -> bool:
    return any(isinstance(n, cst.Name) and n.value in params for n in nodes(expr))


RECORD_FACTORIES = {"namedtuple", "NamedTuple", "make_dataclass"}


def record_types(analysis) -> frozenset:
    """Module-level names bound to a record type built by a call:
    `SavedAction = namedtuple("SavedAction", ["log_prob", "value"])`."""
    memo = analysis.table("_record_types")
    if "names" not in memo:
        out = set()
        for stmt in analysis.ctx.module.body:
            if type(stmt) is not cst.SimpleStatementLine:
                continue
            for small in stmt.body:
                if type(small) is cst.Assign and len(small.targets) == 1 and \
                        type(small.targets[0].target) is cst.Name and type(small.value) is cst.Call and \
                        (dotted(small.value.func) or "").rpartition(".")[2] in RECORD_FACTORIES:
                    out.add(small.targets[0].target.value)
        memo["names"] = frozenset(out)
    return memo["names"]
