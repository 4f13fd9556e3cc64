"""A call that hands back wrapped copies of the objects it is given.

    model, optimizer, train_loader = privacy_engine.make_private(
        module=model, optimizer=optimizer, data_loader=train_loader, noise_multiplier=1.0)

Set-up calls of this kind (Opacus' PrivacyEngine, apex's amp.initialize,
Fabric's setup, Accelerate's prepare) rebind each name they are passed to
a wrapper of the same object. Read as an ordinary call of an object given a
module, the result hung from the module's run, and the data loader rebound
from it seemed to carry a graph made once before the loop (AD107). When every
name the statement binds is one the call is given, one of them an optimizer,
and no argument holds a graph, what comes back is those objects: no graph."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted

_LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def rewraps(scope, call: cst.Call, stmt) -> bool:
    """Is `call` such a set-up call, the whole value of a tuple assignment in `stmt`?"""
    body = getattr(stmt, "body", ())
    assign = next((small for small in body if type(small) is cst.Assign and small.value is call),
                  None) if isinstance(body, (list, tuple)) else None
    if assign is None or len(assign.targets) != 1 or type(assign.targets[0].target) not in (cst.Tuple, cst.List):
        return False
    func = call.func
    if dotted(func) in scope.names.functions or type(func) is cst.Attribute and (
            dotted(func.value) == "self" or scope.names.method(dotted(func.value), func.attr.value) is not None):
        # code of this file is walked: `model, opt, h = step(model, opt, h)` may hand state back with a graph
        return False
    given = set()
    for arg in call.args:
        if arg.star:
            return False
        value = arg.value
        if literal(value):
            continue
        if type(value) is cst.UnaryOperation:
            value = value.expression
        key = dotted(value)
        if key is None or scope.lookup_key(key).heads:
            return False  # an argument with a graph (or one not read by name) may come back with it
        given.add(key)
    targets = [dotted(elem.value) for elem in assign.targets[0].target.elements]
    if any(key is None or key != "_" and key not in given for key in targets):
        return False
    return any(key in scope.names.optimizers for key in targets)


def literal(value) -> bool:
    """A number, string, True/False/None (`-1` too): an argument that brings no graph."""
    if type(value) is cst.UnaryOperation:
        value = value.expression
    return type(value) in _LITERALS or type(value) is cst.Name and value.value in ("True", "False", "None")
