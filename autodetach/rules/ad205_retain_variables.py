"""AD205: `backward(retain_variables=...)` becomes `backward(retain_graph=...)`."""
from __future__ import annotations

import libcst as cst

from ..findings import SAFE
from ..rule import Invalid, Rule, Valid
from ._helpers import kwarg

_FUNCS = ("torch.autograd.backward",)


class RetainVariables(Rule):
    """
    `retain_variables=`, the PyTorch 0.2/0.3 name of `retain_graph=`.

    ## What it does
    Finds `tensor.backward(..., retain_variables=...)` and
    `torch.autograd.backward(..., retain_variables=...)`.

    ## Why it matters
    PyTorch 0.4 renamed the argument to `retain_graph`; the old name was kept
    for a while with a warning and is now rejected:
    `TypeError: backward() got an unexpected keyword argument 'retain_variables'`.

    ## Example
    ```python
    loss.backward(retain_variables=True)
    ```

    ## Fix
    ```python
    loss.backward(retain_graph=True)
    ```

    ## Fix safety
    Safe: only the keyword's name changes; its value and meaning (keep the
    saved tensors for another backward pass) are the same. A call that passes
    both `retain_variables=` and `retain_graph=` was an error even in 0.3; it
    is reported without a fix. Whether the graph should be retained at all is
    a separate question (see the AD1xx rules).
    """

    code = "AD205"
    name = "retain-variables"
    summary = "`retain_variables=` was renamed `retain_graph=` in PyTorch 0.4"
    fix_safety = SAFE
    tokens = ("retain_variables",)

    VALID = [
        Valid("""
            loss.backward(retain_graph=True)
        """),
        Valid("""
            import torch
            torch.autograd.grad(y, x, retain_graph=True)
        """),
        Valid("""
            forward(retain_variables=True)
        """, note="not a backward call"),
    ]
    INVALID = [
        Invalid("""
            loss.backward(retain_variables=True)
        """, """
            loss.backward(retain_graph=True)
        """, line=1, column=15, message="uses `retain_variables=`"),
        Invalid("""
            import torch
            torch.autograd.backward([a, b], retain_variables=keep)
        """, """
            import torch
            torch.autograd.backward([a, b], retain_graph=keep)
        """, line=2, column=33, message="uses `retain_variables=`"),
        Invalid("""
            from torch.autograd import backward
            backward(loss, grad_tensors=None, retain_variables = True)
        """, """
            from torch.autograd import backward
            backward(loss, grad_tensors=None, retain_graph = True)
        """, line=2, column=35, message="uses `retain_variables=`"),
        Invalid("""
            model(x).sum().backward(retain_variables=True)
        """, """
            model(x).sum().backward(retain_graph=True)
        """, line=1, column=25, message="uses `retain_variables=`"),
        Invalid("""
            loss.backward(retain_variables=True, retain_graph=False)
        """, None, note="both given: reported only",
            line=1, column=1, message="passes both `retain_variables=` (the pre-0.4 name) and"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        arg = kwarg(node, "retain_variables")
        if arg is None:
            return
        func = node.func
        method = isinstance(func, cst.Attribute) and func.attr.value == "backward"
        if not method and not self.ctx.imports.is_(func, *_FUNCS):
            return
        if method and self.ctx.imports.qualify(func) not in (None,) + _FUNCS:
            # `something.backward` that resolves to a non-torch import
            if not self.ctx.imports.qualify(func).startswith("torch"):
                return
        if isinstance(func, cst.Attribute) and not self.ctx.imports.is_(func, *_FUNCS):
            what = f"`{self.ctx.code(func.value)}.backward(...)`"
        else:
            what = "`torch.autograd.backward(...)`"
        if kwarg(node, "retain_graph") is not None:
            self.report(
                node,
                f"{what} passes both `retain_variables=` (the pre-0.4 name) and `retain_graph=`; "
                f"keep only `retain_graph=`",
            )
            return
        self.report(
            arg,
            f"{what} uses `retain_variables=`, renamed `retain_graph=` in PyTorch 0.4; "
            f"the old name is a TypeError today",
            replacement=arg.with_changes(keyword=cst.Name("retain_graph")),
            fix_title="Rename to `retain_graph=`",
        )
