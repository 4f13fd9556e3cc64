"""Per-sample steps over stored graphs: REINFORCE-style loops.

    for r, prob in self.data[::-1]:
        loss = -torch.log(prob) * r
        opt.zero_grad(); loss.backward(); opt.step()

The loss is computed only from the loop's elements, with no forward pass in
the loop, and its backward proves it carries a graph: that graph was built
before the loop, by the model the optimizer steps inside it. From the second
element on, the backward walks weights the previous step changed in place.
Which parameters the stored graphs use is not visible: an inference."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes

TENSOR_OPS = {"log", "exp", "sum", "mean", "pow", "neg", "abs", "squeeze", "unsqueeze", "view", "reshape",
              "gather", "log_prob", "clamp", "sqrt", "prod"}


def per_sample_steps(fn_or_module, names, imports) -> list:
    """(backward call, step call, loop, loss name) for such loops."""
    out = []
    for loop in nodes(fn_or_module):
        if type(loop) is not cst.For or not isinstance(loop.body, cst.IndentedBlock):
            continue
        targets = {n.value for n in nodes(loop.target) if isinstance(n, cst.Name)}
        found = _scan(loop.body.body, targets, names, imports)
        if found:
            out.append((*found, loop))
    return out


def _scan(body, targets, names, imports):
    losses: dict = {}  # name -> its assignment, for losses built from the elements only
    fresh: set = set()  # names computed in the loop otherwise: they may hold a new graph
    backward = None
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            if any(_forward(n, names, imports) for n in nodes(stmt)):
                return None
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                    isinstance(small.targets[0].target, cst.Name):
                name = small.targets[0].target.value
                if _from_elements(small.value, targets | set(losses), names, imports, fresh):
                    losses[name] = small
                    targets = targets | {name}
                    continue
                fresh.add(name)
                losses.pop(name, None)
                if any(_forward(n, names, imports) for n in nodes(small.value)):
                    return None
                continue
            call = small.value if isinstance(small, cst.Expr) else None
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute):
                base, meth = dotted(call.func.value), call.func.attr.value
                if meth == "backward" and base in losses and backward is None:
                    backward = (call, base)
                elif meth == "step" and base in names.optimizers and backward is not None:
                    return backward[0], call, backward[1]
                continue
            if any(_forward(n, names, imports) for n in nodes(small)):
                return None
    return None


def _from_elements(e, targets, names, imports, fresh) -> bool:
    used = False
    for n in nodes(e):
        if isinstance(n, cst.Name) and n.value in targets:
            used = True
        key = dotted(n) if isinstance(n, (cst.Name, cst.Attribute)) else None
        if key is not None and (names.is_module(key) or key in names.leaves or key in fresh):
            return False
        if isinstance(n, cst.Call):
            qualified = imports.qualify(n.func)
            if qualified is not None and qualified.startswith("torch.") and not names.is_module(dotted(n.func)):
                continue
            if isinstance(n.func, cst.Attribute) and n.func.attr.value in TENSOR_OPS:
                continue
            return False
    return used


def _forward(n, names, imports) -> bool:
    """A call that may run a model in the loop (then the graph is built here)."""
    if type(n) is not cst.Call:
        return False
    qualified = imports.qualify(n.func)
    if qualified is not None and qualified.startswith("torch.") and not qualified.startswith("torch.nn."):
        return False
    if isinstance(n.func, cst.Attribute) and n.func.attr.value in TENSOR_OPS | {"zero_grad", "step", "item",
                                                                               "append", "backward"}:
        return False
    return dotted(n.func) not in ("print", "len", "range", "float", "int", "enumerate", "zip")
