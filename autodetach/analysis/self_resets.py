"""`self.init_hidden(n)`: a method of the walked class that sets state anew.

    def learn(self, batch):
        self.init_hidden(batch_size)          # self.eval_hidden = torch.zeros(...)
        q = self.get_q_values(batch)          # threads self.eval_hidden through an RNN

A method with no backward or step of its own is not walked at its call, so
`self.eval_hidden` seemed to still hold the state the previous call left,
with its graph. Here a method of the file's class whose every store to a
`self.X` is an unconditional statement of its body binding a new tensor
(`torch.zeros(...)`, `x.new_zeros(...)`, `torch.*_like`, with `.to()`/
`.cuda()` after it), None, a constant or an empty container, or that empties
the container (`self.cache.clear()`), resets those keys at the call. So does
such a method of another object's class (`cache.clear()` of a `SlopeCache`
whose methods were walked at their calls): see `object_resets`."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes

FACTORIES = {f"torch.{name}" for name in ("zeros", "ones", "full", "empty", "rand", "randn", "randint", "arange",
                                         "tensor", "as_tensor", "from_numpy", "eye", "linspace")} | \
    {f"torch.{name}_like" for name in ("zeros", "ones", "full", "empty", "rand", "randn", "randint")}
NEW_METHODS = {"new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"}
MOVES = {"to", "cuda", "cpu", "float", "double", "half", "long", "int", "bool", "detach", "contiguous"}


def _fresh(value, imports) -> bool:
    """A value that holds no graph whatever the state: a new tensor, None, a constant."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in MOVES:
        if value.func.attr.value == "detach":
            return True
        value = value.func.value
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("None", "True", "False")
    if isinstance(value, (cst.List, cst.Tuple, cst.Dict)):
        return not value.elements
    if isinstance(value, cst.Call):
        if isinstance(value.func, cst.Name) and value.func.value in ("dict", "list", "set") and not value.args:
            return True  # an empty container
        if isinstance(value.func, cst.Attribute) and value.func.attr.value in NEW_METHODS:
            return True
        return imports.qualify(value.func) in FACTORIES
    return False


def reset_keys(analysis, method) -> tuple:
    """The `self.X` keys `method` sets anew at every call (see the module doc), or ()."""
    memo = analysis.table("_self_resets")
    got = memo.get(id(method))
    if got is not None and got[0] is method:
        return got[1]
    body = method.body.body if isinstance(method.body, cst.IndentedBlock) else ()
    top = {id(small) for stmt in body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body}
    fresh, spoilt = [], set()
    for stmt in body:
        # `self.cache.clear()`, a statement of the body: the container is emptied at every call
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            call = small.value if isinstance(small, cst.Expr) else None
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and \
                    call.func.attr.value == "clear" and not call.args:
                key = dotted(call.func.value)
                if key and key.startswith("self.") and key.count(".") == 1:
                    fresh.append(key)
    for node in nodes(method):
        targets = []
        if isinstance(node, cst.Assign):
            targets = [target.target for target in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, (cst.For, cst.CompFor)) or isinstance(node, cst.AsName):
            targets = [getattr(node, "target", None) or getattr(node, "name", None)]
        for target in targets:
            for sub in nodes(target):
                key = dotted(sub) if isinstance(sub, cst.Attribute) else None
                if not key or not key.startswith("self.") or key.count(".") != 1:
                    continue
                if isinstance(node, cst.Assign) and id(node) in top and target is sub and \
                        node.value is not None and _fresh(node.value, analysis.ctx.imports):
                    fresh.append(key)
                else:
                    spoilt.add(key)
    out = tuple(dict.fromkeys(key for key in fresh if key not in spoilt))
    memo[id(method)] = (method, out)
    return out


def object_resets(analysis, base: str, method, env) -> tuple:
    """The keys `base.meth()` sets anew, `method` being the method of `base`'s
    local class: `base.X`, and `self.X` where the object's methods walked at
    their calls kept their stores (flow.inline with bound_self), when every
    value there was stored by a method of that class (not another object's
    `self.X` of the same name)."""
    names = analysis.names
    mro, todo = set(), [names.instances.get(base)]
    while todo:
        cur = todo.pop()
        if cur is not None and cur not in mro:
            mro.add(cur)
            todo.extend(names.bases.get(cur, ()))
    out = []
    for key in reset_keys(analysis, method):
        out.append(f"{base}.{key.split('.', 1)[1]}")
        heads = env[key].heads if key in env else ()
        if heads and all(node.stmt is not None and analysis.class_of_stmt(node.stmt) in mro for node in heads):
            out.append(key)
    return tuple(out)
