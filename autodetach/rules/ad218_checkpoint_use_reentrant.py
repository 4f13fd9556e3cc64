"""AD218: `torch.utils.checkpoint` without `use_reentrant`."""
from __future__ import annotations

import libcst as cst

from ..analysis.walk import nodes
from ..findings import SAFE
from ..rule import Invalid, Rule, Valid
from ._helpers import append_kwarg, kwarg

_FUNCS = ("torch.utils.checkpoint.checkpoint", "torch.utils.checkpoint.checkpoint_sequential")


class CheckpointUseReentrant(Rule):
    """
    `torch.utils.checkpoint.checkpoint` without `use_reentrant`.

    ## What it does
    Finds calls to `torch.utils.checkpoint.checkpoint` and
    `checkpoint_sequential` that do not pass `use_reentrant`. A call with
    `**kwargs` is reported without a fix, and not at all when its function
    names `use_reentrant` elsewhere (`kwargs["use_reentrant"] = False`): the
    keyword then travels in the `**` arguments.

    ## Why it matters
    Code written before PyTorch 2.1 relied on the reentrant implementation
    without saying so. Today each such call warns that `use_reentrant` must
    be passed explicitly and that omitting it will raise. The reentrant
    variant also has a silent pitfall: when none of the tensor inputs
    requires grad (the first block of a network fed raw data), its output
    does not require grad either, and the parameters inside the checkpointed
    function get no gradient at all.

    ## Example
    ```python
    from torch.utils.checkpoint import checkpoint
    h = checkpoint(block, h)
    ```

    ## Fix
    ```python
    from torch.utils.checkpoint import checkpoint
    h = checkpoint(block, h, use_reentrant=True)
    ```
    `use_reentrant=True` is what the call does today. PyTorch recommends
    `use_reentrant=False` (works with inputs that do not require grad,
    keyword arguments and `torch.autograd.grad`); switch to it deliberately,
    after checking the gradients.

    ## Fix safety
    Safe: `use_reentrant=True` is the current default, so the computation is
    unchanged; only the warning goes away. The rule does not switch to
    `use_reentrant=False`, which can change which parameters receive
    gradients.
    """

    code = "AD218"
    name = "checkpoint-use-reentrant"
    summary = "`torch.utils.checkpoint` without `use_reentrant` (warns; will raise)"
    fix_safety = SAFE
    tokens = ("checkpoint",)

    VALID = [
        Valid("""
            from torch.utils.checkpoint import checkpoint
            h = checkpoint(block, h, use_reentrant=False)
        """),
        Valid("""
            from torch.utils.checkpoint import checkpoint
            def run(fn, *args, **kwargs):
                kwargs["use_reentrant"] = False
                return checkpoint(fn, *args, **kwargs)
        """, note="the `**` arguments carry it (torch/_higher_order_ops/wrap.py)"),
        Valid("""
            import deepspeed
            h = deepspeed.checkpointing.checkpoint(block, h)
        """, note="not torch's checkpoint"),
    ]
    INVALID = [
        Invalid("""
            from torch.utils.checkpoint import checkpoint
            h = checkpoint(block, h)
        """, """
            from torch.utils.checkpoint import checkpoint
            h = checkpoint(block, h, use_reentrant=True)
        """, line=2, column=5, message="without `use_reentrant`: it warns today and is announced to"),
        Invalid("""
            import torch.utils.checkpoint as cp
            y = cp.checkpoint_sequential(seq, 2, x)
        """, """
            import torch.utils.checkpoint as cp
            y = cp.checkpoint_sequential(seq, 2, x, use_reentrant=True)
        """, line=2, column=5, message="without `use_reentrant`: it warns today and is announced to"),
        Invalid("""
            import torch
            y = torch.utils.checkpoint.checkpoint(f, *xs, **kw)
        """, None, note="`**` may carry use_reentrant: reported only",
            line=2, column=5, message="without `use_reentrant`: it warns today and is announced to"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.imports.qualify(node.func) not in _FUNCS or kwarg(node, "use_reentrant") is not None:
            return
        old = self.ctx.code(node.func)
        msg = (f"`{old}` without `use_reentrant`: it warns today and is announced to raise; "
               f"`use_reentrant=True` is what it does now (`False` is recommended, but with inputs that "
               f"do not require grad it changes which parameters get gradients)")
        if any(a.star == "**" for a in node.args):
            if self._named_in_function(node):
                return  # `kwargs["use_reentrant"] = False` before the call (torch's own wrap.py)
            self.report(node, msg + " (`**` arguments: not rewritten)")
            return
        self.report(node, msg, replacement=append_kwarg(node, "use_reentrant", cst.Name("True")),
                    fix_title="Pass `use_reentrant=True` (the current default)")

    def _named_in_function(self, call: cst.Call) -> bool:
        """Whether the function around `call` names `use_reentrant` elsewhere
        (a string key or a keyword): then the `**` arguments carry it."""
        fn = self.ctx.parent(call)
        while fn is not None and not isinstance(fn, cst.FunctionDef):
            fn = self.ctx.parent(fn)
        if fn is None:
            return False
        return any((isinstance(n, cst.SimpleString) and n.evaluated_value == "use_reentrant")
                   or (isinstance(n, cst.Arg) and n.keyword is not None and n.keyword.value == "use_reentrant")
                   for n in nodes(fn))
