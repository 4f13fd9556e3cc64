"""AD213: `torch.load` without `weights_only` (its default flipped in 2.6)."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..analysis.walk import nodes
from ..findings import SAFE, UNSAFE
from ..rule import Invalid, Rule, Valid
from ._helpers import in_version_fallback, append_kwarg, kwarg

# What is done to a loaded object that only a pickled module (or optimizer)
# supports: a dict of tensors has none of these (nor has a tensor: no
# `.cuda()`, `.half()` here).
MODULE_USES = ("eval", "train", "parameters", "named_parameters", "modules", "children",
               "named_modules", "forward", "zero_grad", "state_dict", "apply",
               "register_forward_hook", "named_children", "param_groups")
# Callables whose first argument is a module.
MODULE_TAKERS = ("torch.nn.DataParallel", "torch.nn.parallel.DataParallel",
                 "torch.nn.parallel.DistributedDataParallel", "torch.compile", "torch.jit.trace",
                 "torch.jit.script", "torch.onnx.export", "torch.nn.Sequential",
                 "torch.quantization.quantize_dynamic", "torch.ao.quantization.quantize_dynamic")
STATE = "state"  # the whole loaded object passed to `load_state_dict`
OTHER = "other"  # any use that says nothing


class TorchLoadWeightsOnly(Rule):
    """
    `torch.load` without `weights_only`: since PyTorch 2.6 it defaults to `True`.

    ## What it does
    Reports every `torch.load(...)` call that does not pass `weights_only`,
    and looks at how the loaded object is used, following it through a name,
    `self.x` and subscripts (`ckpt["model"]`):

    - used as a module (`model = torch.load(path)` then `model(x)`,
      `model.eval()`, `model.parameters()`, ...; `torch.load(path).eval()`;
      `ckpt["net"].eval()`; passed to `nn.DataParallel`, `torch.jit.trace`,
      ... or as `model=`): it offers `weights_only=False`, unsafe;
    - passed whole to `load_state_dict` (`net.load_state_dict(torch.load(p))`,
      or through a name used only that way): it offers `weights_only=True`;
    - anything else (a checkpoint dict read entry by entry, a value returned
      or passed on): reported only.

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
    net.load_state_dict(torch.load("weights.pt"))
    ckpt = torch.load("ckpt.pt")
    start = ckpt["epoch"]
    ```

    ## Fix
    ```python
    model = torch.load("model.pt", weights_only=False)  # only for a file you trust
    model.eval()
    net.load_state_dict(torch.load("weights.pt", weights_only=True))
    ckpt = torch.load("ckpt.pt")  # reported: True if it holds plain data, False if you trust it
    start = ckpt["epoch"]
    ```
    The safe path for a whole-model pickle you trust: load it once with
    `weights_only=False`, save `model.state_dict()` with `torch.save`, and
    from then on build the model in code and load the state dict with
    `model.load_state_dict(torch.load(path, weights_only=True))`.

    ## Fix safety
    `weights_only=True` for a state dict is safe: a state dict is tensors in
    a dict, which that mode loads, and `True` is the default on the PyTorch
    this rule targets (2.6 and later), so the call behaves as it does today.
    `weights_only=False` is unsafe: it makes the old checkpoint load again,
    but it trusts the file with code execution, which only the user can
    decide. Other loads get no fix: writing `True` would not change what the
    program does, but it would mark as reviewed a load that fails on a
    checkpoint holding pickled objects (an `argparse.Namespace` next to the
    state dicts is common in 2017-2019 code), and `False` would trust a file
    nobody looked at. Inside `torch.serialization.safe_globals(...)` (or in a
    file that calls `add_safe_globals`) the author has chosen the default, and
    `weights_only=True` is offered as safe.
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
        """, note="allow-listed classes: the default load is meant to work",
            line=3, column=13, message="without `weights_only`: the classes it needs are"),
        Invalid("""
            import torch
            model.load_state_dict(torch.load(path))
        """, """
            import torch
            model.load_state_dict(torch.load(path, weights_only=True))
        """, line=2, column=23, message="without `weights_only`: what it loads goes straight into"),
        Invalid("""
            import torch
            sd = torch.load(path, map_location="cpu")
            net.load_state_dict(sd)
        """, """
            import torch
            sd = torch.load(path, map_location="cpu", weights_only=True)
            net.load_state_dict(sd)
        """, line=2, column=6, message="without `weights_only`: what it loads goes straight into"),
        Invalid("""
            import torch
            ckpt = torch.load(path)
            net.load_state_dict(ckpt["model"])
            start = ckpt["epoch"]
        """, None, note="a checkpoint dict: its other entries may be pickled objects; reported only",
            line=2, column=8, message="without `weights_only`: since PyTorch 2.6 it defaults to"),
        Invalid("""
            import torch
            def restore(path):
                return torch.load(path)
        """, None, note="the use is elsewhere: reported only",
            line=3, column=12, message="without `weights_only`: since PyTorch 2.6 it defaults to"),
        Invalid("""
            import torch
            model = torch.load("model.pt", map_location="cpu")
            model.eval()
        """, """
            import torch
            model = torch.load("model.pt", map_location="cpu", weights_only=False)
            model.eval()
        """, unsafe=True, line=2, column=9, message="loads an object used as a module (`.eval`): since PyTorch"),
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
        """, unsafe=True, line=3, column=11, message="loads an object used as a module (it is called): since"),
        Invalid("""
            from torch import load
            net = load(path).eval()
        """, """
            from torch import load
            net = load(path, weights_only=False).eval()
        """, unsafe=True, line=2, column=7, message="loads an object used as a module (`.eval`): since PyTorch"),
        Invalid("""
            import torch
            ckpt = torch.load(path)
            G = ckpt["generator"]
            G.eval()
        """, """
            import torch
            ckpt = torch.load(path, weights_only=False)
            G = ckpt["generator"]
            G.eval()
        """, unsafe=True, note="a module inside a checkpoint dict",
            line=2, column=8, message="loads an object used as a module (`.eval`): since PyTorch"),
        Invalid("""
            import torch
            class Runner:
                def __init__(self, path):
                    self.model = torch.load(path)

                def run(self, x):
                    return self.model(x)
        """, """
            import torch
            class Runner:
                def __init__(self, path):
                    self.model = torch.load(path, weights_only=False)

                def run(self, x):
                    return self.model(x)
        """, unsafe=True, line=4, column=22, message="loads an object used as a module (it is called): since"),
        Invalid("""
            import torch
            import torch.nn as nn
            net = nn.DataParallel(torch.load(path))
        """, """
            import torch
            import torch.nn as nn
            net = nn.DataParallel(torch.load(path, weights_only=False))
        """, unsafe=True, line=3, column=23, message="loads an object used as a module"),
        Invalid("""
            import torch
            ckpt = torch.load(path, **kw)
        """, None, note="**kwargs may hold weights_only: reported only",
            line=2, column=8, message="without `weights_only`: since PyTorch 2.6 it defaults to"),
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
        uses = self._uses(node, whole=True, depth=0)
        module = next((u for u in uses if u != STATE and u != OTHER), None)
        if module and self._allow_listed(node):
            self.report(node, f"`{old}` without `weights_only`: the classes it needs are allow-listed "
                              f"(`safe_globals`), so the 2.6 default `weights_only=True` is meant; say so",
                        replacement=append_kwarg(node, "weights_only", cst.Name("True")),
                        fix_title="Pass `weights_only=True` (the current default)")
        elif module:
            self.report(
                node,
                f"`{old}` loads an object used as a module ({module}): since PyTorch 2.6 "
                f"`weights_only=True` is the default and a pickled whole model fails to load. "
                f"`weights_only=False` loads it but runs code from the file: only for a file you "
                f"trust; better, re-save it once as a `state_dict` (see AD213's page)",
                replacement=append_kwarg(node, "weights_only", cst.Name("False")), fix=UNSAFE,
                fix_title="Pass `weights_only=False` (trusts the file)")
        elif uses and all(u == STATE for u in uses):
            self.report(node, f"`{old}` without `weights_only`: what it loads goes straight into "
                              f"`load_state_dict` (a dict of tensors, which the 2.6 default "
                              f"`weights_only=True` loads); say so explicitly",
                        replacement=append_kwarg(node, "weights_only", cst.Name("True")),
                        fix_title="Pass `weights_only=True` (the current default)")
        else:
            self.report(node, f"`{old}` without `weights_only`: since PyTorch 2.6 it defaults to True, "
                              f"which loads tensors, numbers, strings and plain containers and fails on "
                              f"pickled objects (a model, `argparse.Namespace`, numpy arrays). Not fixed: "
                              f"what the file holds is not known here, and an explicit `True` would hide "
                              f"a load that needs `False`; pass `weights_only=True` for plain data, "
                              f"`False` only for a file you trust")

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

    def _uses(self, expr: cst.CSTNode, whole: bool, depth: int) -> list:
        """How the value of `expr` is used: a description of a module use,
        STATE (the whole loaded object passed to `load_state_dict`) or OTHER.
        Follows subscripts (`ckpt["model"]`) and assignments to a name or
        `self.x`, two levels deep."""
        parent = self.ctx.parent(expr)
        if isinstance(parent, cst.Attribute) and parent.value is expr:
            return [f"`.{parent.attr.value}`"] if parent.attr.value in MODULE_USES else [OTHER]
        if isinstance(parent, cst.Call) and parent.func is expr:
            return ["it is called"]
        if isinstance(parent, cst.Subscript) and parent.value is expr:
            return [u for u in self._uses(parent, False, depth) if u != STATE] or [OTHER]
        if isinstance(parent, cst.Arg):
            return [self._as_argument(parent, whole)]
        target = self._assigned_to(parent, expr)
        if target is None or depth >= 2:
            return [OTHER]
        out = [u for ref in self._refs(target, parent) for u in self._uses(ref, whole, depth + 1)]
        return out or [OTHER]

    def _as_argument(self, arg: cst.Arg, whole: bool) -> str:
        call = self.ctx.parent(arg)
        if not isinstance(call, cst.Call):
            return OTHER
        if arg.keyword is not None and arg.keyword.value in ("model", "module", "net"):
            return f"passed as `{arg.keyword.value}=`"
        first = bool(call.args) and call.args[0] is arg and arg.keyword is None
        if first and self.ctx.imports.qualify(call.func) in MODULE_TAKERS:
            return f"passed to `{self.ctx.code(call.func)}`"
        if first and whole and isinstance(call.func, cst.Attribute) and call.func.attr.value == "load_state_dict":
            return STATE
        return OTHER

    @staticmethod
    def _assigned_to(parent, expr) -> Optional[cst.BaseExpression]:
        if isinstance(parent, cst.Assign) and parent.value is expr and len(parent.targets) == 1:
            target = parent.targets[0].target
            if _dotted(target):
                return target
        return None

    def _refs(self, target: cst.BaseExpression, assign: cst.Assign) -> list:
        """The later reads of `target` (a name, or `self.x`) in its scope."""
        name = _dotted(target)
        kinds = (cst.FunctionDef, cst.Module) if isinstance(target, cst.Name) else (cst.ClassDef, cst.Module)
        scope = self.ctx.parent(assign)
        while scope is not None and not isinstance(scope, kinds):
            scope = self.ctx.parent(scope)
        out = []
        for n in nodes(scope if scope is not None else self.ctx.module):
            if n is target or not isinstance(n, (cst.Name, cst.Attribute)) or _dotted(n) != name:
                continue
            p = self.ctx.parent(n)
            if isinstance(p, cst.Attribute) and p.attr is n:
                continue  # `obj.model`: another object's attribute
            if isinstance(p, (cst.AssignTarget, cst.Param)) or (isinstance(p, cst.Arg) and p.keyword is n):
                continue
            out.append(n)
        return out


def _dotted(node) -> Optional[str]:
    """`x` or `self.x` as text; None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        return f"{node.value.value}.{node.attr.value}"
    return None
