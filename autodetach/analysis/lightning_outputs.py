"""What PyTorch Lightning (before 2.0) keeps of each `training_step` output.

    class Model(pl.LightningModule):
        def training_step(self, batch, batch_idx):
            out = self.net(batch[0])
            loss = F.mse_loss(out, batch[1])
            return {"loss": loss, "mae": (out - batch[1]).abs().mean()}   # "mae" keeps the graph

        def training_epoch_end(self, outputs):   # so Lightning keeps every step's output
            self.log("mae", torch.stack([o["mae"] for o in outputs]).mean())

When a LightningModule overrides `training_epoch_end(self, outputs)`,
Lightning 1.x collects what `training_step` returns at every batch and hands
the list to it when the epoch ends. It detaches the `"loss"` entry (the one it
backwards) and keeps the other entries as they are: a tensor computed from the
step's forward keeps that step's graph (up to the prediction, and the
activations it saved) alive until the epoch ends, and memory grows with every
batch. Lightning 2.0 removed the hook (a module that still defines it fails at
`fit`), so code that defines it is 1.x code. `training_step_end` changes what is
kept (its return, not training_step's): not modelled, left alone.
`self.log(name, tensor)` is not such a store: Lightning detaches what it logs."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes

HOOKS = ("training_epoch_end", "on_train_epoch_end")
# entries Lightning detaches or handles itself (`log`, `progress_bar`: 0.x/1.0 logging dicts)
DETACHED = ("loss", "hiddens", "log", "progress_bar")


@dataclass
class KeptOutput:
    cls: str
    hook: str  # the epoch-end method that takes the outputs
    stmt: cst.CSTNode  # the return statement
    key: str  # the entry's key
    expr: cst.BaseExpression  # the entry's value
    uncertain: bool  # its graph went through code the analysis cannot see
    heads: frozenset = frozenset()  # the graph nodes it hangs from


def entries(scope, value) -> list:
    """(key, value expression) per entry of the dict a step method returns: a
    dict literal, `dict(k=v)`, or a name bound once in the method to a dict
    literal (its entries as the walk saw them built). [] for anything else."""
    if isinstance(value, cst.Dict):
        return _literal(value)
    if isinstance(value, cst.Call) and dotted(value.func) == "dict" and value.args and \
            all(a.keyword is not None for a in value.args):
        return [(a.keyword.value, a.value) for a in value.args]
    if isinstance(value, cst.Name):
        ctx = scope.analysis.ctx
        fn = ctx.enclosing(value, cst.FunctionDef)
        if fn is None:
            return []
        stores = [n for n in nodes(fn) if isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Name)
                  and n.target.value == value.value]
        if len(stores) != 1:
            return []
        assign = ctx.parent(stores[0])
        if not (isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Dict)):
            return []
        found = _literal(assign.value)
        if any(isinstance(n, cst.Subscript) and isinstance(n.value, cst.Name) and n.value.value == value.value
               and isinstance(ctx.parent(n), cst.AssignTarget) for n in nodes(fn)):
            return []  # `out["x"] = ...` adds (or replaces) entries the literal does not show
        if any(id(expr) not in scope.dict_vals for _, expr in found):
            return []  # the walk did not see the literal built (another branch, gradients off)
        return found
    return []


def _literal(d: cst.Dict) -> list:
    out = []
    for el in d.elements:
        if not isinstance(el, cst.DictElement):
            return []  # `**rest`: entries not seen
        key = el.key.evaluated_value if isinstance(el.key, cst.SimpleString) else None
        if not isinstance(key, str):
            return []
        out.append((key, el.value))
    return out


def keeps_outputs(analysis, cls: str) -> Optional[str]:
    """The epoch-end hook of `cls` (or of a base in this file) that takes the
    step outputs, when Lightning keeps them for it; None otherwise."""
    from .lightning import lightning_class

    if not lightning_class(analysis, cls):
        return None
    owners = {cls} | set(analysis.names.bases.get(cls, ()))
    hook = None
    for (owner, name), m in analysis.names.methods.items():
        if owner not in owners:
            continue
        if name == "training_step_end":
            return None
        params = [p.name.value for p in m.params.params]
        if name in HOOKS and len(params) >= 2:
            hook = name
    return hook


def kept_outputs(analysis) -> list:
    """The entries Lightning keeps for the epoch with their step's graph, one per
    entry expression, in file order."""
    return analysis.memo("_kept_outputs", lambda: _find(analysis))


def _find(analysis) -> list:
    out, done = [], set()
    for scope in analysis.scopes:
        if not scope.loop_owner or not getattr(scope, "step_outputs", None):
            continue
        cls = scope.self_class
        hook = keeps_outputs(analysis, cls) if cls else None
        if hook is None:
            continue
        for stmt, key, expr, val, quiet in scope.step_outputs:
            if key in DETACHED or quiet or not val.graph or id(expr) in done or \
                    isinstance(expr, (cst.Dict, cst.List, cst.Tuple, cst.Set)):  # a container: no `.detach()`
                continue
            done.add(id(expr))
            out.append(KeptOutput(cls, hook, stmt, key, expr, val.uncertain, val.heads))
    return out
