"""Attributes a base class of another file sets on `self`, and their roles.

    # base/base_trainer.py
    class BaseTrainer:
        def __init__(self, generator, discriminator, optimizer):
            self.discriminator = discriminator.to(self.device)
            self.discriminator_optimizer = optimizer["discriminator"]

    # trainer/trainer.py
    class Trainer(BaseTrainer):
        def _train_epoch(self, epoch):
            d_out = self.discriminator(fake)
            self.discriminator_optimizer.zero_grad()
            ...
            self.discriminator_optimizer.step()

The training class sets neither attribute, so roles.infer_attr_roles (which
reads only attributes the class sets, not its methods such as `self.log`)
leaves them alone. A base class's `__init__` that assigns `self.X` says that
`X` is data, not a method: the class's own use then tells the role as for an
attribute it set (stepped and zeroed and never called: an optimizer; called
on tensors: a module; an optimizer paired by name with a module of the same
side). Every role found here is an inference and is recorded as one, with
the base class that sets the attribute; an optimizer whose parameters the
base's `__init__` shows is analysis.base_optimizers' and is not touched."""
from __future__ import annotations

import ast
import os

import libcst as cst

from .summaries import _dotted


def add_base_attr_roles(table, analysis) -> None:
    from .cut_arguments import _Classes
    from .roles import infer_attr_roles

    ctx = analysis.ctx
    if not ctx.path or not os.path.isfile(ctx.path):
        return
    here = os.path.realpath(ctx.path)
    base_set: dict = {}
    setters: dict = {}
    for stmt in ctx.module.body:
        if not isinstance(stmt, cst.ClassDef) or not stmt.bases:
            continue
        for cls, path in _Classes(analysis, stmt).chain[1:]:
            if not path or os.path.realpath(path) == here:
                continue
            init = next((i for i in cls.body if isinstance(i, ast.FunctionDef) and i.name == "__init__"), None)
            for key in set_in(init) if init is not None else ():
                if key in table.optimizers or key in table.modules or key in table.leaves:
                    continue
                base_set.setdefault(stmt.name.value, set()).add(key)
                setters.setdefault(key, f"`{cls.name}.__init__` ({os.path.basename(path)})")
    if not base_set:
        return
    before = dict(table.inferred)
    infer_attr_roles(ctx.module, table, base_set)
    for key, who in setters.items():
        if key in table.inferred and table.inferred[key] != before.get(key):
            table.inferred[key] += f"; `{key}` is set by {who}"


def set_in(init: ast.FunctionDef) -> set:
    """The `self.X` attributes (one dot) an `__init__` assigns, anywhere in its body."""
    out = set()
    for node in ast.walk(init):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            for t in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                key = _dotted(t)
                if key and key.startswith("self.") and key.count(".") == 1:
                    out.add(key)
    return out
