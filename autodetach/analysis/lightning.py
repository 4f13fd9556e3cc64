"""PyTorch Lightning's automatic optimisation: the loop the framework runs.

    class Model(pl.LightningModule):
        def training_step(self, batch, batch_idx):
            loss = F.mse_loss(self.net(batch[0]), batch[1])
            self.epoch_loss += loss          # every step's graph stays alive
            return loss                      # Lightning calls backward on it

`Trainer.fit` calls `training_step` once per batch, backwards what it returns
(the value itself, or the `"loss"` entry of a dict) and steps the optimizers.
The method is walked as the body of that loop, with the return as its
backward; state kept on `self` links one step to the next. A class that sets
`self.automatic_optimization = False` backwards by itself (`manual_backward`).
`validation_step`, `test_step` and `predict_step` run without gradients."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes

FRAMEWORK = "Lightning"


def lightning_class(analysis, cls: str, depth: int = 0) -> bool:
    """Does local class `cls` derive from `LightningModule` (through local
    bases too), however it is imported (`L.LightningModule`,
    `pytorch_lightning.LightningModule`, `from lightning.pytorch import ...`)?"""
    if depth > 5:
        return False
    for base in analysis.names.bases.get(cls, ()):
        if base in analysis.names.classes:
            if lightning_class(analysis, base, depth + 1):
                return True
            continue
        qualified = analysis.ctx.imports.qualify(cst.parse_expression(base)) or ""
        if qualified.endswith(".LightningModule") and qualified.startswith(("lightning", "pytorch_lightning")):
            return True
    return False


def automatic(analysis, cls: str) -> bool:
    """Does Lightning backward and step for `cls`: no `automatic_optimization`
    set or overridden, no `manual_backward`, in the class or its local bases?"""
    for (owner, _), m in analysis.names.methods.items():
        if owner != cls and owner not in analysis.names.bases.get(cls, ()):
            continue
        for n in nodes(m):
            if isinstance(n, cst.Attribute) and n.attr.value in ("manual_backward", "automatic_optimization"):
                return False
            if isinstance(n, cst.FunctionDef) and n.name.value == "automatic_optimization":
                return False
    return True


def lightning_steps(analysis) -> dict:
    """`training_step` FunctionDef -> class, for the file's LightningModules
    (the framework runs it once per batch, in either mode)."""
    return analysis.memo("_lightning_steps", lambda: {
        m: cls for (cls, name), m in analysis.names.methods.items()
        if name == "training_step" and lightning_class(analysis, cls)})


def framework_steps(analysis) -> dict:
    """The same, for the classes that optimise automatically: Lightning
    backwards what the method returns."""
    return analysis.memo("_framework_steps", lambda: {
        m: cls for m, cls in lightning_steps(analysis).items() if automatic(analysis, cls)})


def other_backward(analysis, cls) -> bool:
    """Does a method of `cls` (or of its local bases) other than
    `training_step` call a backward?"""
    for (owner, name), m in analysis.names.methods.items():
        if name == "training_step" or (owner != cls and owner not in analysis.names.bases.get(cls, ())):
            continue
        for n in nodes(m):
            if not isinstance(n, cst.Call):
                continue
            if isinstance(n.func, cst.Attribute) and n.func.attr.value in ("backward", "manual_backward") or \
                    dotted(n.func) in ("torch.autograd.grad", "autograd.grad"):
                return True
    return False


def returned_loss(value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """What Lightning backwards of `return value`: the value, or its `"loss"`
    entry when it is a dict literal (None when it has none)."""
    if isinstance(value, cst.Dict):
        for el in value.elements:
            if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString) and \
                    el.key.evaluated_value == "loss":
                return el.value
        return None
    if isinstance(value, cst.Call) and dotted(value.func) == "dict":
        return next((arg.value for arg in value.args if arg.keyword is not None and arg.keyword.value == "loss"),
                    None)
    if isinstance(value, cst.Name) and value.value == "None":
        return None
    return value
