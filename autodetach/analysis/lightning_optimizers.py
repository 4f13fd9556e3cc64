"""Which network each of Lightning's `self.optimizers()` steps, by position.

`opt_g, opt_d = self.optimizers()` unpacks the optimizers in the order
`configure_optimizers` returns them: `return [Adam(self.G.parameters()), ...]`,
`return opt_g, opt_d` (names bound there), `return [opt_g, opt_d], [sched]`,
`return ({"optimizer": opt_g, ...}, {"optimizer": opt_d, ...})`, or attributes
set anywhere in the class (`return [self.opt_g, self.opt_d]`). That order is
Lightning's contract, so the owners read this way are a fact, not a pairing
by name."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes


def configured_owners(cls: cst.ClassDef, table) -> Optional[list]:
    """For each optimizer `configure_optimizers` returns, in order, the module
    names whose parameters it covers (None where that cannot be read); None
    when the class has no such method or its returns disagree or are not
    literal sequences."""
    fn = next((m for m in cls.body.body if isinstance(m, cst.FunctionDef)
               and m.name.value == "configure_optimizers"), None)
    if fn is None:
        return None
    returns = [n for n in nodes(fn) if isinstance(n, cst.Return)]
    found = None
    for ret in returns:
        elems = _elements(ret.value)
        if elems is None:
            return None
        owners = [_owners(e, fn, cls, table) for e in elems]
        if found is not None and found != owners:
            return None
        found = owners
    return found


def configured_elements(cls: cst.ClassDef) -> list:
    """The optimizer expressions of `configure_optimizers`'s first return, in
    order (where a finding shows which optimizer a phase steps); [] when unread."""
    fn = next((m for m in cls.body.body if isinstance(m, cst.FunctionDef)
               and m.name.value == "configure_optimizers"), None)
    ret = next((n for n in nodes(fn) if isinstance(n, cst.Return)), None) if fn is not None else None
    return (_elements(ret.value) or []) if ret is not None else []


def _elements(value) -> Optional[list]:
    if not isinstance(value, (cst.List, cst.Tuple)) or not value.elements:
        return None
    elems = [e.value for e in value.elements]
    if any(isinstance(e, cst.StarredElement) for e in value.elements):
        return None
    # `return [opt_g, opt_d], [sched_g, sched_d]`: the optimizers come first
    if len(elems) == 2 and all(isinstance(e, (cst.List, cst.Tuple)) for e in elems):
        return _elements(elems[0])
    out = []
    for e in elems:
        if isinstance(e, cst.Dict):  # {"optimizer": opt_g, "lr_scheduler": ...}
            e = next((x.value for x in e.elements if isinstance(x, cst.DictElement)
                      and isinstance(x.key, cst.SimpleString) and x.key.evaluated_value == "optimizer"), None)
            if e is None:
                return None
        out.append(e)
    return out


def _owners(expr, fn, cls, table) -> Optional[frozenset]:
    from .names import _owned

    if isinstance(expr, (cst.Name, cst.Attribute)):
        expr = _bound(dotted(expr), fn if isinstance(expr, cst.Name) else cls)
    if not isinstance(expr, cst.Call) or not (dotted(expr.func) or "").split(".")[-1][:1].isupper():
        return None  # `torch.optim.Adam(...)`, `Adam(...)`: a class called on the parameters
    params = next((a.value for a in expr.args if a.keyword is not None and a.keyword.value == "params"), None)
    if params is None and expr.args and expr.args[0].keyword is None:
        params = expr.args[0].value
    owned = _owned(params, table, {}) if params is not None else None
    return frozenset(owned) if owned else None


def _bound(key, where):
    """The one value `key` is assigned in `where` (a function, or the class for
    `self.X`); None when it is assigned twice or never."""
    if key is None:
        return None
    values = [n.value for n in nodes(where) if isinstance(n, cst.Assign) and len(n.targets) == 1
              and dotted(n.targets[0].target) == key]
    return values[0] if len(values) == 1 else None
