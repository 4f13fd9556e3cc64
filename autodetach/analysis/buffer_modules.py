"""Module classes of the file that hold buffers only, no parameters:

    class OrnsteinUhlenbeckSDE(torch.nn.Module):
        def __init__(self, mu, theta):
            super().__init__()
            self.register_buffer("mu", torch.as_tensor(mu))
            self.theta = theta

Running one (`torchsde.sdeint(sde, y0, ts)`) makes data, not a graph of
trainable weights: an object of such a class is a module without parameters,
as `nn.ReLU()` is. The class must derive from `nn.Module` alone, and every
value any of its methods stores on `self` must be a constant or a tensor a torch
function makes (no module, no `nn.Parameter`, nothing handed in)."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .self_storage import stores_on_self
from .walk import children

_MAKES_PARAMS = {"Parameter", "register_parameter", "add_module", "register_module", "setattr"}
_CONSTANTS = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def buffers_only(node: cst.ClassDef, imports) -> bool:
    if len(node.bases) != 1 or imports.qualify(node.bases[0].value) != "torch.nn.Module":
        return False
    top = {id(stmt.body[0]) for stmt in node.body.body if type(stmt) is cst.SimpleStatementLine}
    for n in _walk(node.body):
        if type(n) is cst.Call:
            name = (dotted(n.func) or "").split(".")[-1]
            qualified = imports.qualify(n.func) or ""
            if name in _MAKES_PARAMS or qualified.startswith("torch.nn.") and name[:1].isupper():
                return False  # `nn.Linear(...)` made anywhere in the class, even as a class attribute
        if type(n) in (cst.Assign, cst.AnnAssign, cst.AugAssign):
            targets = [t.target for t in n.targets] if type(n) is cst.Assign else [n.target]
            if (id(n) in top or any(stores_on_self(t) for t in targets)) and not _plain_value(n.value, imports):
                return False
    return True


def _plain_value(value, imports) -> bool:
    if value is None or isinstance(value, _CONSTANTS):
        return True
    if type(value) is cst.Name and value.value in ("True", "False", "None"):
        return True
    if type(value) is cst.UnaryOperation:
        return _plain_value(value.expression, imports)
    if type(value) is cst.Call:
        qualified = imports.qualify(value.func) or ""
        return qualified.startswith("torch.") and not qualified.startswith("torch.nn") and \
            not any(arg.keyword is not None and arg.keyword.value == "requires_grad" for arg in value.args)
    return False


def _walk(node):
    # The analysis's cached children (no trivia, which holds no call or
    # assignment), in source order: a module class's `nn.Linear(...)` in
    # `__init__` ends the walk before `forward`.
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(children(n)))
