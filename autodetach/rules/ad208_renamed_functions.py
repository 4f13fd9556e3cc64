"""AD208: functions renamed or deprecated since PyTorch 0.3."""
from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node

from ..findings import SAFE
from ..rule import Edit, Invalid, Rule, Valid
from ._helpers import kwarg, positional

_INIT = ("uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
         "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse")

# Old qualified name -> new attribute name, for renames where nothing but the
# name changes (the old functions are wrappers that call the new ones).
RENAMES = {f"torch.nn.init.{n}": f"{n}_" for n in _INIT}
RENAMES.update({
    "torch.nn.utils.clip_grad_norm": "clip_grad_norm_",
    "torch.nn.utils.clip_grad.clip_grad_norm": "clip_grad_norm_",
})
# From-import modules whose alias can be renamed in place.
_RENAME_MODULES = ("torch.nn.init", "torch.nn.utils", "torch.nn.utils.clip_grad")

# F.sigmoid / F.tanh -> torch.sigmoid / torch.tanh
TO_TORCH = {"torch.nn.functional.sigmoid": "sigmoid", "torch.nn.functional.tanh": "tanh"}

UPSAMPLE = ("torch.nn.functional.upsample", "torch.nn.functional.upsample_bilinear",
            "torch.nn.functional.upsample_nearest")
_LINEAR_MODES = ("linear", "bilinear", "bicubic", "trilinear")


def _str(value: str) -> cst.SimpleString:
    return cst.SimpleString(f'"{value}"')


def _comma() -> cst.Comma:
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _append_kwargs(call: cst.Call, extra: list) -> cst.Call:
    args = list(call.args)
    new = [cst.Arg(keyword=cst.Name(k), value=v,
                   equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
           for k, v in extra]
    if args:
        last = args[-1]
        trailing = last.comma
        if isinstance(trailing, cst.Comma):
            # Keep the author's trailing comma layout after the new arguments.
            new = [a.with_changes(comma=_comma()) for a in new]
            new[-1] = new[-1].with_changes(comma=trailing)
            args[-1] = last.with_changes(comma=_comma())
        else:
            args[-1] = last.with_changes(comma=_comma())
            new = [a.with_changes(comma=_comma()) for a in new[:-1]] + new[-1:]
    else:
        new = [a.with_changes(comma=_comma()) for a in new[:-1]] + new[-1:]
    return call.with_changes(args=args + new)


class RenamedFunctions(Rule):
    """
    Functions renamed or deprecated since PyTorch 0.3.

    ## What it does
    Finds the old names that still work today only as deprecated wrappers:
    `nn.init.xavier_uniform` and the other `nn.init` functions without the
    trailing underscore; `nn.utils.clip_grad_norm`; `F.upsample`,
    `F.upsample_bilinear` and `F.upsample_nearest`; `F.sigmoid` and `F.tanh`.
    Also `probs.multinomial()` with no argument: `num_samples` defaulted to 1
    up to PyTorch 0.3 and is required today (a TypeError).
    Names are resolved through imports (`from torch.nn import init`,
    `import torch.nn.functional as F`, ...).

    ## Why it matters
    Each call warns, and the warnings hide the ones that matter. The `nn.init`
    functions and `clip_grad_norm` work in place; the trailing `_` says so.
    `F.upsample*` are thin wrappers around `F.interpolate`.

    ## Example
    ```python
    nn.init.xavier_uniform(layer.weight)
    nn.utils.clip_grad_norm(model.parameters(), 5.0)
    y = F.upsample_bilinear(x, scale_factor=2)
    p = F.sigmoid(logits)
    action = probs.multinomial()
    ```

    ## Fix
    ```python
    nn.init.xavier_uniform_(layer.weight)
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    y = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
    p = torch.sigmoid(logits)
    action = probs.multinomial(1)
    ```
    `F.upsample_nearest(...)` becomes `F.interpolate(...)` (nearest is its
    default mode); `F.upsample(...)` becomes `F.interpolate(...)` with the
    same arguments, plus an explicit `align_corners=False` for the linear
    modes. A name imported directly (`from torch.nn.init import
    xavier_uniform`) is fixed at the import: `xavier_uniform_ as
    xavier_uniform`. `import torch` is added when `torch` is not bound.

    ## Fix safety
    Safe: every old name calls the new function with the same arguments today,
    so the numbers are the same as on the installed PyTorch (checked for
    `upsample_bilinear` = `interpolate(mode="bilinear", align_corners=True)`
    and `upsample(mode="bilinear")` = `interpolate(..., align_corners=False)`).
    Beware one historical change the fix does not undo: up to PyTorch 0.3.1
    the linear modes of `F.upsample` computed what `align_corners=True`
    computes now. Code whose weights or expected outputs date from then may
    want `align_corners=True`; the finding's message says so. Names imported
    from `torch.nn.functional` by `from ... import` are reported only.
    """

    code = "AD208"
    name = "renamed-function"
    summary = "deprecated pre-0.4 function names (`xavier_uniform`, `clip_grad_norm`, `F.upsample`, `F.sigmoid`)"
    fix_safety = SAFE
    tokens = ("init.", "xavier_", "kaiming_", "orthogonal", "clip_grad_norm", "upsample", "sigmoid",
              "tanh", "multinomial()")

    VALID = [
        Valid("""
            import numpy as np
            counts = np.random.multinomial(10, [0.5, 0.5])
            action = probs.multinomial(1)
        """),
        Valid("""
            import torch.nn as nn
            nn.init.xavier_uniform_(w)
            nn.utils.clip_grad_norm_(ps, 1.0)
        """),
        Valid("""
            import torch
            y = torch.sigmoid(x) + torch.tanh(x)
        """),
        Valid("""
            import mylib.init as init
            init.xavier_uniform(w)
        """, note="not torch"),
        Valid("""
            import torch.nn as nn
            up = nn.Upsample(scale_factor=2, mode="bilinear")
        """, note="nn.Upsample is current API"),
        Valid("""
            import torch.nn.functional as F
            y = F.interpolate(x, scale_factor=2)
        """),
    ]
    INVALID = [
        Invalid("""
            import torch.nn.functional as F
            action = F.softmax(scores, dim=1).multinomial()
        """, """
            import torch.nn.functional as F
            action = F.softmax(scores, dim=1).multinomial(1)
        """, note="0.3's default num_samples=1 (spro/practical-pytorch reinforce-gridworld)",
            line=2, column=10, message="relied on PyTorch 0.3's default `num_samples=1`"),
        Invalid("""
            import torch.nn as nn
            nn.init.xavier_uniform(layer.weight, gain=nn.init.calculate_gain("relu"))
        """, """
            import torch.nn as nn
            nn.init.xavier_uniform_(layer.weight, gain=nn.init.calculate_gain("relu"))
        """, line=2, column=1, message="is the pre-0.4 name of `xavier_uniform_`"),
        Invalid("""
            from torch.nn import init
            init.constant(m.bias, 0)
            init.kaiming_normal(m.weight)
        """, """
            from torch.nn import init
            init.constant_(m.bias, 0)
            init.kaiming_normal_(m.weight)
        """, count=2, line=2, column=1, message="is the pre-0.4 name of `constant_`"),
        Invalid("""
            import torch
            torch.nn.utils.clip_grad_norm(model.parameters(), 0.5)
        """, """
            import torch
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        """, line=2, column=1, message="is the pre-0.4 name of `clip_grad_norm_`"),
        Invalid("""
            from torch.nn.utils import clip_grad_norm
            clip_grad_norm(params, 1.0)
        """, """
            from torch.nn.utils import clip_grad_norm_ as clip_grad_norm
            clip_grad_norm(params, 1.0)
        """, line=1, column=28, message="is the pre-0.4 name of `clip_grad_norm_`"),
        Invalid("""
            from torch.nn.init import xavier_normal as xn
            xn(w)
        """, """
            from torch.nn.init import xavier_normal_ as xn
            xn(w)
        """, line=1, column=27, message="is the pre-0.4 name of `xavier_normal_`"),
        Invalid("""
            import torch
            import torch.nn.functional as F
            p = F.sigmoid(z) * F.tanh(c)
        """, """
            import torch
            import torch.nn.functional as F
            p = torch.sigmoid(z) * torch.tanh(c)
        """, count=2, line=3, column=5, message="is deprecated"),
        Invalid("""
            # activations
            import torch.nn.functional as F
            p = F.sigmoid(z)
        """, """
            # activations
            import torch
            import torch.nn.functional as F
            p = torch.sigmoid(z)
        """, line=3, column=5, message="is deprecated"),
        Invalid("""
            import torch.nn.functional as F
            y = F.upsample_bilinear(x, size=(8, 8))
        """, """
            import torch.nn.functional as F
            y = F.interpolate(x, size=(8, 8), mode="bilinear", align_corners=True)
        """, line=2, column=5, message="is deprecated"),
        Invalid("""
            import torch.nn.functional as F
            y = F.upsample_nearest(x, scale_factor=2)
        """, """
            import torch.nn.functional as F
            y = F.interpolate(x, scale_factor=2)
        """, line=2, column=5, message="is deprecated"),
        Invalid("""
            import torch.nn.functional as F
            y = F.upsample(x, scale_factor=2, mode='bilinear')
        """, """
            import torch.nn.functional as F
            y = F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=False)
        """, line=2, column=5, message="is deprecated"),
        Invalid("""
            import torch.nn.functional as F
            y = F.upsample(x, None, 2, "nearest")
        """, """
            import torch.nn.functional as F
            y = F.interpolate(x, None, 2, "nearest")
        """, line=2, column=5, message="is deprecated"),
        Invalid("""
            from torch.nn.functional import sigmoid
            p = sigmoid(z)
        """, None, note="from-import of F.sigmoid: reported only", line=1, column=33, message="is deprecated"),
    ]

    # --- renames through an attribute: nn.init.xavier_uniform ---------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        q = self.ctx.imports.qualify(node)
        if q in RENAMES:
            new = RENAMES[q]
            self.report(
                node,
                f"`{self.ctx.code(node)}` is the pre-0.4 name of `{new}` (in place, hence the `_`); "
                f"the old name is a deprecated wrapper",
                replacement=node.with_changes(attr=cst.Name(new)),
                fix_title=f"Rename to `{new}`",
            )
        elif q in TO_TORCH:
            self._to_torch(node, TO_TORCH[q])

    def _to_torch(self, node: cst.Attribute, fn: str) -> None:
        msg = f"`{self.ctx.code(node)}` is deprecated; use `torch.{fn}`"
        new = cst.Attribute(value=cst.Name("torch"), attr=cst.Name(fn))
        edits = []
        if self.ctx.imports.aliases.get("torch") != "torch":
            stmt = self._first_torch_import()
            if stmt is None:
                self.report(node, msg + " (and `import torch`)")
                return
            imp = cst.SimpleStatementLine(
                body=[cst.Import(names=[cst.ImportAlias(name=cst.Name("torch"))])],
                leading_lines=stmt.leading_lines,
            )
            edits.append(Edit(stmt, cst.FlattenSentinel([imp, stmt.with_changes(leading_lines=[])])))
        self.report(node, msg, replacement=new, edits=edits, fix_title=f"Use `torch.{fn}`")

    def _first_torch_import(self) -> Optional[cst.SimpleStatementLine]:
        """The first top-level statement importing from torch."""
        for stmt in self.ctx.module.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if isinstance(small, cst.Import) and any(
                        (a.evaluated_name.split(".")[0] == "torch") for a in small.names):
                    return stmt
                if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
                    mod = get_full_name_for_node(small.module) or ""
                    if mod.split(".")[0] == "torch":
                        return stmt
        return None

    # --- from torch.nn.init import xavier_uniform ---------------------------
    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        mod = get_full_name_for_node(node.module) or ""
        for alias in node.names:
            name = alias.evaluated_name
            q = f"{mod}.{name}"
            if mod in _RENAME_MODULES and q in RENAMES:
                new = RENAMES[q]
                local = alias.evaluated_alias or name
                self.report(
                    alias,
                    f"`{name}` imported from `{mod}` is the pre-0.4 name of `{new}`; "
                    f"import `{new}` (kept under the local name `{local}`)",
                    replacement=alias.with_changes(
                        name=cst.Name(new),
                        asname=cst.AsName(name=cst.Name(local)),
                    ),
                    fix_title=f"Import `{new}`",
                )
            elif mod == "torch.nn.functional" and (q in TO_TORCH or q in UPSAMPLE):
                repl = f"torch.{TO_TORCH[q]}" if q in TO_TORCH else "F.interpolate"
                self.report(alias, f"`{name}` from `torch.nn.functional` is deprecated; "
                                   f"use `{repl}` at its call sites")

    # --- F.upsample* -> F.interpolate ---------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if (not node.args and isinstance(node.func, cst.Attribute)
                and node.func.attr.value == "multinomial"):
            # 0.3's default num_samples=1; no other library's multinomial takes no argument.
            old = self.ctx.code(node)
            self.report(node, f"`{old}` relied on PyTorch 0.3's default `num_samples=1`; the "
                              f"argument is required today (TypeError): pass `1`",
                        replacement=node.with_changes(args=[cst.Arg(cst.Integer("1"))]),
                        fix_title="Pass `num_samples=1`")
            return
        q = self.ctx.imports.qualify(node.func)
        if q not in UPSAMPLE or not isinstance(node.func, cst.Attribute):
            return
        old = self.ctx.code(node.func)
        func = node.func.with_changes(attr=cst.Name("interpolate"))
        new_name = self.ctx.code(node.func.value) + ".interpolate"
        if any(a.star for a in node.args):
            self.report(node, f"`{old}` is deprecated; use `{new_name}` (arguments passed with `*` "
                              f"or `**`: not rewritten)")
            return
        pos = positional(node)
        call = node.with_changes(func=func)
        if q.endswith("upsample_bilinear"):
            if len(pos) > 3:
                self.report(node, f"`{old}` is deprecated; use `{new_name}`")
                return
            call = _append_kwargs(call, [("mode", _str("bilinear")), ("align_corners", cst.Name("True"))])
            msg = (f"`{old}(...)` is deprecated; it is `{new_name}(..., mode=\"bilinear\", "
                   f"align_corners=True)`")
        elif q.endswith("upsample_nearest"):
            if len(pos) > 3:
                self.report(node, f"`{old}` is deprecated; use `{new_name}`")
                return
            msg = f"`{old}(...)` is deprecated; it is `{new_name}(...)` (nearest is the default mode)"
        else:
            mode_arg = kwarg(node, "mode") or (pos[3] if len(pos) > 3 else None)
            has_align = kwarg(node, "align_corners") is not None or len(pos) > 4
            mode = "nearest"
            if mode_arg is not None:
                v = mode_arg.value
                mode = v.evaluated_value if isinstance(v, cst.SimpleString) else None
            msg = f"`{old}(...)` is deprecated; `{new_name}` takes the same arguments"
            if mode in _LINEAR_MODES and not has_align:
                call = _append_kwargs(call, [("align_corners", cst.Name("False"))])
                msg += (f"; `align_corners=False` made explicit (the default since 0.4.0). Up to "
                        f"PyTorch 0.3.1 mode={mode!r} computed what `align_corners=True` computes "
                        f"now: use that if this code's numbers date from then")
            elif mode is None and not has_align:
                msg += ("; if `mode` is a linear mode, note that up to PyTorch 0.3.1 it behaved "
                        "like `align_corners=True`")
        self.report(node, msg, replacement=call, fix_title=f"Use `{new_name}`")
