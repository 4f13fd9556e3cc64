"""AD207: `size_average=` / `reduce=` on losses become `reduction=`.

This module also holds the table of torch's loss functions and modules (their
legacy parameters and how many tensors their call takes); AD203 uses it to
tell whether a loss value is a 0-dim tensor."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..findings import SAFE
from ..rule import Invalid, Rule, Valid
from ._helpers import kwarg, positional

# torch.nn.functional losses: name -> (positional parameters, in order, up to
# and including the legacy/reduction ones; the number of tensor inputs).
_F_LOSSES = {
    "binary_cross_entropy": (("input", "target", "weight", "size_average", "reduce", "reduction"), 2),
    "binary_cross_entropy_with_logits": (("input", "target", "weight", "size_average", "reduce", "reduction"), 2),
    "cosine_embedding_loss": (("input1", "input2", "target", "margin", "size_average", "reduce", "reduction"), 3),
    "cross_entropy": (("input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction"), 2),
    "ctc_loss": (("log_probs", "targets", "input_lengths", "target_lengths", "blank", "reduction"), 4),
    "gaussian_nll_loss": (("input", "target", "var", "full", "eps", "reduction"), 3),
    "hinge_embedding_loss": (("input", "target", "margin", "size_average", "reduce", "reduction"), 2),
    "huber_loss": (("input", "target", "reduction"), 2),
    "kl_div": (("input", "target", "size_average", "reduce", "reduction"), 2),
    "l1_loss": (("input", "target", "size_average", "reduce", "reduction"), 2),
    "margin_ranking_loss": (("input1", "input2", "target", "margin", "size_average", "reduce", "reduction"), 3),
    "mse_loss": (("input", "target", "size_average", "reduce", "reduction"), 2),
    "multi_margin_loss": (("input", "target", "p", "margin", "weight", "size_average", "reduce", "reduction"), 2),
    "multilabel_margin_loss": (("input", "target", "size_average", "reduce", "reduction"), 2),
    "multilabel_soft_margin_loss": (("input", "target", "weight", "size_average", "reduce", "reduction"), 2),
    "nll_loss": (("input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction"), 2),
    "poisson_nll_loss": (("input", "target", "log_input", "full", "size_average", "eps", "reduce", "reduction"), 2),
    "smooth_l1_loss": (("input", "target", "size_average", "reduce", "reduction"), 2),
    "soft_margin_loss": (("input", "target", "size_average", "reduce", "reduction"), 2),
    "triplet_margin_loss": (("anchor", "positive", "negative", "margin", "p", "eps", "swap", "size_average", "reduce",
                             "reduction"), 3),
    "triplet_margin_with_distance_loss": (("anchor", "positive", "negative"), 3),  # keyword-only after
}

# torch.nn loss modules: name -> (constructor parameters, in order; the number
# of tensors the module's call takes).
_NN_LOSSES = {
    "BCELoss": (("weight", "size_average", "reduce", "reduction"), 2),
    "BCEWithLogitsLoss": (("weight", "size_average", "reduce", "reduction"), 2),
    "CTCLoss": (("blank", "reduction"), 4),
    "CosineEmbeddingLoss": (("margin", "size_average", "reduce", "reduction"), 3),
    "CrossEntropyLoss": (("weight", "size_average", "ignore_index", "reduce", "reduction"), 2),
    "GaussianNLLLoss": ((), 3),  # keyword-only
    "HingeEmbeddingLoss": (("margin", "size_average", "reduce", "reduction"), 2),
    "HuberLoss": (("reduction",), 2),
    "KLDivLoss": (("size_average", "reduce", "reduction"), 2),
    "L1Loss": (("size_average", "reduce", "reduction"), 2),
    "MSELoss": (("size_average", "reduce", "reduction"), 2),
    "MarginRankingLoss": (("margin", "size_average", "reduce", "reduction"), 3),
    "MultiLabelMarginLoss": (("size_average", "reduce", "reduction"), 2),
    "MultiLabelSoftMarginLoss": (("weight", "size_average", "reduce", "reduction"), 2),
    "MultiMarginLoss": (("p", "margin", "weight", "size_average", "reduce", "reduction"), 2),
    "NLLLoss": (("weight", "size_average", "ignore_index", "reduce", "reduction"), 2),
    "PoissonNLLLoss": (("log_input", "full", "size_average", "eps", "reduce", "reduction"), 2),
    "SmoothL1Loss": (("size_average", "reduce", "reduction"), 2),
    "SoftMarginLoss": (("size_average", "reduce", "reduction"), 2),
    "TripletMarginLoss": (("margin", "p", "eps", "swap", "size_average", "reduce", "reduction"), 3),
    "TripletMarginWithDistanceLoss": ((), 3),  # keyword-only
}

_LEGACY = ("size_average", "reduce")
_REDUCTION_PARAMS = ("size_average", "reduce", "reduction")


def loss_kind(qualified: Optional[str]):
    """('F', params, n_inputs) for a functional loss, ('nn', params, n_inputs)
    for a loss module class, None otherwise."""
    if not qualified:
        return None
    for prefix in ("torch.nn.functional.",):
        if qualified.startswith(prefix) and qualified[len(prefix):] in _F_LOSSES:
            params, n = _F_LOSSES[qualified[len(prefix):]]
            return "F", params, n
    for prefix in ("torch.nn.", "torch.nn.modules.loss.", "torch.nn.modules."):
        name = qualified[len(prefix):] if qualified.startswith(prefix) else None
        if name in _NN_LOSSES:
            params, n = _NN_LOSSES[name]
            return "nn", params, n
    return None


def _literal(expr) -> tuple:
    """(True, value) for True/False/None or a plain string literal."""
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return True, {"True": True, "False": False, "None": None}[expr.value]
    if isinstance(expr, cst.SimpleString) and not expr.prefix.strip("rRuU"):
        return True, expr.evaluated_value
    return False, None


def legacy_reduction(size_average, reduce) -> str:
    """torch's own mapping of the legacy pair to a `reduction` string."""
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        return "mean"
    if reduce:
        return "sum"
    return "none"


def call_reduction(call: cst.Call, params: tuple, skip_positional: int = 0) -> Optional[str]:
    """The reduction a loss call (or loss constructor) ends up with, when every
    argument that decides it is a literal; None when that cannot be told."""
    if any(a.star for a in call.args):
        return None
    pos = positional(call)
    decided = [p for p in params if p in _REDUCTION_PARAMS]
    first = min((params.index(p) for p in decided), default=len(params))
    if len(pos) > first:
        return None  # a legacy/reduction argument given by position
    values = {}
    for name in _REDUCTION_PARAMS:
        a = kwarg(call, name)
        if a is None:
            values[name] = None if name != "reduction" else "mean"
            continue
        ok, val = _literal(a.value)
        if not ok:
            return None
        values[name] = val
    if values["size_average"] is not None or values["reduce"] is not None:
        return legacy_reduction(values["size_average"], values["reduce"])
    return values["reduction"] if isinstance(values["reduction"], str) else None


class LegacyReduction(Rule):
    """
    Loss arguments `size_average=` and `reduce=` from PyTorch 0.3.

    ## What it does
    Finds calls of torch's loss functions (`F.mse_loss`, `F.cross_entropy`,
    ...) and loss modules (`nn.MSELoss`, `nn.CrossEntropyLoss`, ...) that pass
    the legacy `size_average=` or `reduce=` arguments.

    ## Why it matters
    Since PyTorch 0.4.1 both are deprecated in favour of one `reduction=`
    argument (`'mean'`, `'sum'` or `'none'`); every call warns, and the pair
    is hard to read (`reduce=False` wins over `size_average`).

    ## Example
    ```python
    criterion = nn.MSELoss(size_average=False)
    per_item = F.cross_entropy(logits, y, reduce=False)
    ```

    ## Fix
    ```python
    criterion = nn.MSELoss(reduction="sum")
    per_item = F.cross_entropy(logits, y, reduction="none")
    ```

    ## Fix safety
    Safe when every value is a literal `True`, `False` or `None`: the fix
    applies torch's own legacy mapping (both unset or true: `'mean'`;
    `size_average=False`: `'sum'`; `reduce=False`: `'none'`, whatever
    `size_average` says), which is what the call does today. When a value is
    computed at run time, or given by position, the call is only reported.
    """

    code = "AD207"
    name = "legacy-loss-reduction"
    summary = "`size_average=`/`reduce=` on losses are deprecated; use the equivalent `reduction=`"
    fix_safety = SAFE
    tokens = ("size_average", "reduce", "Loss(False", "Loss(True")  # positional flags: nn.L1Loss(False)
    # The callee's own name: every _NN_LOSSES key holds "Loss"; the _F_LOSSES
    # keys hold "loss" or are one of the other two.
    also_tokens = (("loss", "Loss", "cross_entropy", "kl_div"),)

    VALID = [
        Valid("""
            import torch.nn as nn
            crit = nn.MSELoss(reduction="sum")
        """),
        Valid("""
            def mse_loss(a, b, size_average=True):
                return a
            mse_loss(x, y, size_average=False)
        """, note="not torch's function"),
        Valid("""
            import functools
            total = functools.reduce(add, xs)
        """, note="an unrelated reduce"),
        Valid("""
            import torch.nn.functional as F
            loss = F.mse_loss(a, b, reduction="none")
        """),
    ]
    INVALID = [
        Invalid("""
            import torch.nn as nn
            crit = nn.MSELoss(size_average=False)
        """, """
            import torch.nn as nn
            crit = nn.MSELoss(reduction="sum")
        """, line=2, column=8, message="uses the deprecated `size_average`/`reduce` pair"),
        Invalid("""
            import torch.nn.functional as F
            loss = F.cross_entropy(logits, y, size_average=False, reduce=False)
        """, """
            import torch.nn.functional as F
            loss = F.cross_entropy(logits, y, reduction="none")
        """, line=2, column=8, message="uses the deprecated `size_average`/`reduce` pair"),
        Invalid("""
            from torch import nn
            crit = nn.NLLLoss(weight=w, size_average=True)
        """, """
            from torch import nn
            crit = nn.NLLLoss(weight=w, reduction="mean")
        """, line=2, column=8, message="uses the deprecated `size_average`/`reduce` pair"),
        Invalid("""
            from torch.nn import functional as F
            loss = F.kl_div(a, b, reduce=True, size_average=False, reduction="mean")
        """, """
            from torch.nn import functional as F
            loss = F.kl_div(a, b, reduction="sum")
        """, note="legacy arguments win over an explicit reduction",
            line=2, column=8, message="uses the deprecated `size_average`/`reduce` pair"),
        Invalid("""
            import torch
            crit = torch.nn.BCELoss(
                weight=w,
                size_average=None,
            )
        """, """
            import torch
            crit = torch.nn.BCELoss(
                weight=w,
            )
        """, line=2, column=8, message="deprecated arguments that change nothing"),
        Invalid("""
            import torch.nn as nn
            crit = nn.L1Loss(size_average=avg)
        """, None, note="computed flag: reported, not fixed", line=2, column=8, message="passes `size_average=avg`"),
        Invalid("""
            import torch.nn as nn
            crit = nn.L1Loss(False)
        """, None, note="given by position: reported, not fixed",
            line=2, column=8, message="passes the deprecated `size_average` by position"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        kind = loss_kind(self.ctx.imports.qualify(node.func))
        if kind is None:
            return
        _, params, n_inputs = kind
        legacy = [a for a in node.args if a.keyword is not None and a.keyword.value in _LEGACY]
        pos = positional(node)
        by_position = [p for i, p in enumerate(params[: len(pos)]) if p in _LEGACY]
        if not legacy and not by_position:
            return
        callee = self.ctx.code(node.func)
        if by_position:
            self.report(
                node,
                f"`{callee}(...)` passes the deprecated `{'`/`'.join(by_position)}` by position; "
                f"use the keyword `reduction=` ('mean', 'sum' or 'none') instead",
            )
            return
        if any(a.star for a in node.args):
            self.report(
                node,
                f"`{callee}(...)` passes the deprecated `size_average`/`reduce` next to `*`/`**` "
                f"arguments; replace them with `reduction=` by hand",
            )
            return
        values = {}
        for a in legacy:
            ok, val = _literal(a.value)
            if not ok or isinstance(val, str):
                self.report(
                    node,
                    f"`{callee}(...)` passes `{a.keyword.value}={self.ctx.code(a.value)}`, a deprecated "
                    f"argument with a computed value; replace it with `reduction=` by hand "
                    f"(size_average=False means 'sum', reduce=False means 'none')",
                )
                return
            values[a.keyword.value] = val
        red_arg = kwarg(node, "reduction")
        sa, rd = values.get("size_average"), values.get("reduce")
        if sa is None and rd is None:
            target = None  # torch ignores both: just drop them
        else:
            target = legacy_reduction(sa, rd)
        new_args = []
        placed = red_arg is not None or target is None
        for a in node.args:
            if a in legacy:
                if not placed:
                    new_args.append(a.with_changes(
                        keyword=cst.Name("reduction"), value=cst.SimpleString(f'"{target}"')))
                    placed = True
                continue
            if a is red_arg and target is not None:
                a = a.with_changes(value=cst.SimpleString(f'"{target}"'))
            new_args.append(a)
        if new_args:
            last_comma = node.args[-1].comma
            new_args[-1] = new_args[-1].with_changes(comma=last_comma)
        old = ", ".join(f"{a.keyword.value}={self.ctx.code(a.value)}" for a in legacy)
        if target is None:
            msg = (f"`{callee}(..., {old})`: deprecated arguments that change nothing "
                   f"(None is their default); remove them")
        else:
            msg = (f"`{callee}(..., {old})` uses the deprecated `size_average`/`reduce` pair; "
                   f"it means `reduction=\"{target}\"`")
        self.report(node, msg, replacement=node.with_changes(args=new_args),
                    fix_title=f"Use `reduction=\"{target}\"`" if target else "Remove the arguments")
