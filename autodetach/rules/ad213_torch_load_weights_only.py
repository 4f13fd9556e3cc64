"""AD213: `torch.load` without `weights_only` (its default flipped in 2.6)."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..analysis.walk import visit
from ..findings import SAFE, UNSAFE
from ..rule import Invalid, Rule, Valid
from ._helpers import in_version_fallback, append_kwarg, kwarg

# What is done to a loaded object that only a pickled module (or optimizer)
# supports: a dict of tensors has none of these (nor has a tensor: no
# `.cuda()`, `.half()` here).
MODULE_USES = ("eval", "train", "parameters", "named_parameters", "modules", "children",
               "named_modules", "forward", "zero_grad", "state_dict", "apply",
               "register_forward_hook", "named_children", "param_groups")


class TorchLoadWeightsOnly(Rule):
    """
    `torch.load` without `weights_only`: since PyTorch 2.6 it defaults to `True`.

    ## What it does
    Reports every `torch.load(...)` call that does not pass `weights_only`.
    Where the loaded object is used as a module (`model = torch.load(path)`
    then `model(x)`, `model.eval()`, `model.parameters()`, ...; or
    `torch.load(path).eval()`), it offers `weights_only=False`.

    ## Why it matters
    Since PyTorch 2.6 `torch.load` unpickles only tensors, containers and a
    few allow-listed types by default. Old checkpoints that pickled a whole
    model (`torch.save(model, path)`, the style of many 2017-2019 repositories)
    now fail with "Weights only load failed". `weights_only=False` loads them,
    but unpickling runs arbitrary code from the file.

    ## Example
    ```python
    model = torch.load("model.pt")
    model.eval()
    state = torch.load("weights.pt")
    ```

    ## Fix
    ```python
    model = torch.load("model.pt", weights_only=False)  # only for a file you trust
    model.eval()
    state = torch.load("weights.pt", weights_only=True)
    ```
    The safe path for a whole-model pickle you trust: load it once with
    `weights_only=False`, save `model.state_dict()` with `torch.save`, and
    from then on build the model in code and load the state dict with
    `model.load_state_dict(torch.load(path, weights_only=True))`.

    ## Fix safety
    `weights_only=True` is safe: it is the default on the PyTorch this rule
    targets (2.6 and later), so the call behaves as it does today; it only
    makes the choice visible. `weights_only=False` is unsafe: it makes the old
    checkpoint load again, but it trusts the file with code execution, which
    only the user can decide.
    """

    code = "AD213"
    name = "torch-load-weights-only"
    summary = "`torch.load` without `weights_only` (default `True` since 2.6; whole-model pickles fail)"
    fix_safety = SAFE
    # A call `load(`; `torch.load(` / `th.load(`, or `load` imported from torch
    # (`import *` too).
    tokens = ("load(",)
    also_tokens = (("torch",), (".load(", "from torch import"))

    VALID = [
        Valid("""
            import torch
            try:
                sd = torch.load(path, weights_only=True)
            except TypeError:
                sd = torch.load(path)
        """, note="the fallback for a torch without weights_only"),
        Valid("""
            import torch
            x = torch.load(path, weights_only=True)
            x = x.cuda()
        """, note="a tensor has .cuda() too"),
        Valid("""
            import torch
            sd = torch.load(path, weights_only=True)
            m = torch.load(path, map_location="cpu", weights_only=False)
        """),
        Valid("""
            import pickle
            obj = pickle.load(fh)
        """),
        Valid("""
            import torch
            import yaml
            cfg = yaml.load(fh)
            net.load_state_dict(sd)
        """),
    ]
    INVALID = [
        Invalid("""
            import torch
            with torch.serialization.safe_globals([Net]):
                model = torch.load(f)
            model.eval()
        """, """
            import torch
            with torch.serialization.safe_globals([Net]):
                model = torch.load(f, weights_only=True)
            model.eval()
        """, note="allow-listed classes: the default load is meant to work"),
        Invalid("""
            import torch
            model.load_state_dict(torch.load(path))
        """, """
            import torch
            model.load_state_dict(torch.load(path, weights_only=True))
        """),
        Invalid("""
            import torch
            model = torch.load("model.pt", map_location="cpu")
            model.eval()
        """, """
            import torch
            model = torch.load("model.pt", map_location="cpu", weights_only=False)
            model.eval()
        """, unsafe=True),
        Invalid("""
            import torch
            def predict(x):
                net = torch.load("net.pth")
                return net(x)
        """, """
            import torch
            def predict(x):
                net = torch.load("net.pth", weights_only=False)
                return net(x)
        """, unsafe=True),
        Invalid("""
            from torch import load
            net = load(path).eval()
        """, """
            from torch import load
            net = load(path, weights_only=False).eval()
        """, unsafe=True),
        Invalid("""
            import torch
            ckpt = torch.load(path, **kw)
        """, None, note="**kwargs may hold weights_only: reported only"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.imports.qualify(node.func) != "torch.load" or kwarg(node, "weights_only") is not None:
            return
        if in_version_fallback(self.ctx, node):  # after the cheap test: it walks the parents
            return  # the old spelling for an old torch
        old = self.ctx.code(node.func)
        if any(a.star for a in node.args):
            self.report(node, f"`{old}` without `weights_only`: since PyTorch 2.6 it defaults to True "
                              f"(unless the `**` arguments set it)")
            return
        use = self._module_use(node)
        if use and self._allow_listed(node):
            use = None  # weights_only=True with allow-listed classes: the modern way
        if use:
            self.report(
                node,
                f"`{old}` loads an object used as a module ({use}): since PyTorch 2.6 "
                f"`weights_only=True` is the default and a pickled whole model fails to load. "
                f"`weights_only=False` loads it but runs code from the file: only for a file you "
                f"trust; better, re-save it once as a `state_dict` (see AD213's page)",
                replacement=append_kwarg(node, "weights_only", cst.Name("False")), fix=UNSAFE,
                fix_title="Pass `weights_only=False` (trusts the file)")
            return
        self.report(node, f"`{old}` without `weights_only`: since PyTorch 2.6 it defaults to True, "
                          f"which loads tensors and plain containers only; say so explicitly",
                    replacement=append_kwarg(node, "weights_only", cst.Name("True")),
                    fix_title="Pass `weights_only=True` (the current default)")

    def _allow_listed(self, call: cst.Call) -> bool:
        """Inside `with torch.serialization.safe_globals(...)`, or in a file
        that calls `add_safe_globals`: the default load is meant to work."""
        p = self.ctx.parent(call)
        while p is not None:
            if isinstance(p, cst.With) and any(
                    isinstance(i.item, cst.Call) and self.ctx.imports.qualify(i.item.func)
                    == "torch.serialization.safe_globals" for i in p.items):
                return True
            p = self.ctx.parent(p)
        return "add_safe_globals" in self.ctx.text

    def _module_use(self, call: cst.Call) -> Optional[str]:
        parent = self.ctx.parent(call)
        if isinstance(parent, cst.Attribute) and parent.attr.value in MODULE_USES:
            return f"`.{parent.attr.value}`"
        if isinstance(parent, cst.Call) and parent.func is call:
            return "it is called"
        if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1
                and isinstance(parent.targets[0].target, cst.Name)):
            return None
        name = parent.targets[0].target.value
        scope = self._scope(parent)
        found: list = []

        class Uses(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                if isinstance(node.func, cst.Name) and node.func.value == name:
                    found.append(f"`{name}(...)`")

            def visit_Attribute(self, node: cst.Attribute) -> None:
                if isinstance(node.value, cst.Name) and node.value.value == name \
                        and node.attr.value in MODULE_USES:
                    found.append(f"`{name}.{node.attr.value}`")

        visit(scope, Uses())
        return found[0] if found else None

    def _scope(self, node) -> cst.CSTNode:
        p = self.ctx.parent(node)
        while p is not None and not isinstance(p, (cst.FunctionDef, cst.Module)):
            p = self.ctx.parent(p)
        return p if p is not None else self.ctx.module
