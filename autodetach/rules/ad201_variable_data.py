"""AD201: `Variable(x.data)` becomes `x.detach()`."""
from __future__ import annotations

import libcst as cst

from ..findings import SAFE
from ..rule import Invalid, Rule, Valid
from ._helpers import bracket_safe, is_call_to, is_true, method_call, parenthesize_if_needed, positional

VARIABLE = "torch.autograd.Variable"


class VariableData(Rule):
    """
    Re-wrapping `.data` in a `Variable` to cut the graph.

    ## What it does
    Finds `Variable(x.data)` and `Variable(x.data, requires_grad=True)`.

    ## Why it matters
    Before PyTorch 0.4 this was the way to cut a tensor out of its graph (for
    example to repackage an RNN's hidden state). `Variable` is now a
    deprecated alias that returns a plain tensor, and `.data` hides in-place
    changes from autograd. `x.detach()` says what the code means and keeps
    autograd's version checks.

    ## Example
    ```python
    hidden = Variable(hidden.data)
    ```

    ## Fix
    ```python
    hidden = hidden.detach()
    ```
    With `requires_grad=True` the result is a new leaf:
    `x.detach().requires_grad_()`.

    ## Fix safety
    Safe: both forms give a tensor that shares storage with `x`, has no
    history and does not require grad unless asked. Other keyword arguments
    (`volatile=`) are left for AD204 and keep the call unchanged.
    """

    code = "AD201"
    name = "variable-data-rewrap"
    summary = "`Variable(x.data)` is the 0.3 way to cut a graph; use `x.detach()`"
    fix_safety = SAFE
    tokens = ("Variable",)

    VALID = [
        Valid("""
            from torch.autograd import Variable
            y = Variable(x)
        """, note="no .data: that is AD202"),
        Valid("""
            y = Variable(x.data)
        """, note="Variable not imported from torch: not ours"),
        Valid("""
            from torch.autograd import Variable
            y = Variable(x.data, volatile=True)
        """, note="volatile: left to AD204"),
        Valid("""
            y = x.detach()
        """),
    ]
    INVALID = [
        Invalid("""
            from torch.autograd import Variable
            h = Variable(h.data)
        """, """
            from torch.autograd import Variable
            h = h.detach()
        """, line=2, column=5, message="re-wraps data to cut the graph"),
        Invalid("""
            import torch
            w = torch.autograd.Variable(w0.data, requires_grad=True)
        """, """
            import torch
            w = w0.detach().requires_grad_()
        """, line=2, column=5, message="re-wraps data to cut the graph"),
        Invalid("""
            import torch.autograd as ag
            hidden = tuple(ag.Variable(v.data) for v in hidden)
        """, """
            import torch.autograd as ag
            hidden = tuple(v.detach() for v in hidden)
        """, line=2, column=16, message="re-wraps data to cut the graph"),
        Invalid("""
            from torch.autograd import Variable
            z = Variable((a + b).data, requires_grad=False)
        """, """
            from torch.autograd import Variable
            z = (a + b).detach()
        """, line=2, column=5, message="re-wraps data to cut the graph"),
        Invalid("""
            from torch.autograd import Variable
            z = Variable(model(x)[0].data)
        """, """
            from torch.autograd import Variable
            z = model(x)[0].detach()
        """, line=2, column=5, message="re-wraps data to cut the graph"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        if not is_call_to(self.ctx, node, VARIABLE):
            return
        pos = positional(node)
        if len(pos) != 1 or len(node.args) > 2:
            return
        arg = pos[0].value
        if not (isinstance(arg, cst.Attribute) and arg.attr.value == "data"):
            return
        extra = [a for a in node.args if a.keyword is not None]
        leaf = False
        for a in extra:
            if a.keyword.value != "requires_grad":
                return
            if is_true(a.value):
                leaf = True
            elif not (isinstance(a.value, cst.Name) and a.value.value == "False"):
                return  # a computed flag: leave it
        inner = parenthesize_if_needed(arg.value)
        new = method_call(inner, "detach")
        if leaf:
            new = method_call(new, "requires_grad_")
        src = self.ctx.code(arg.value)
        self.report(
            node,
            f"`Variable({src}.data)` re-wraps data to cut the graph; use "
            f"`{src}.detach(){'.requires_grad_()' if leaf else ''}`",
            replacement=bracket_safe(self.ctx, node, new),
            fix_title="Replace with `.detach()`",
        )
