"""AD216: softmax / log_softmax / softmin without `dim` (implicit, deprecated)."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..findings import SAFE
from ..rule import Invalid, Rule, Valid
from ._helpers import append_kwarg, kwarg, positional

_FUNCS = ("torch.nn.functional.softmax", "torch.nn.functional.log_softmax", "torch.nn.functional.softmin")
_MODULES = ("torch.nn.Softmax", "torch.nn.LogSoftmax", "torch.nn.Softmin")
# not FloatTensor: a list is data
_FACTORIES = ("torch.randn", "torch.rand", "torch.zeros", "torch.ones", "torch.empty")
_SAME_RANK = ("float", "double", "exp", "log", "neg", "abs", "clone", "detach", "contiguous", "cpu", "cuda",
              "tanh", "sigmoid", "relu")


def old_dim(ndim: int) -> int:
    """torch's `_get_softmax_dim`: what an implicit `dim` has always meant."""
    return 0 if ndim in (0, 1, 3) else 1


class SoftmaxImplicitDim(Rule):
    """
    `softmax`, `log_softmax` and `softmin` without `dim`.

    ## What it does
    Finds `F.softmax(x)`, `F.log_softmax(x)`, `F.softmin(x)` called without
    `dim`, and `nn.Softmax()`, `nn.LogSoftmax()`, `nn.Softmin()` built
    without `dim`.

    ## Why it matters
    Without `dim`, PyTorch picks one from the input's rank with a rule kept
    from 0.3 (`_get_softmax_dim`): dim 0 when the input has 0, 1 or 3
    dimensions, dim 1 otherwise. It warns ("Implicit dimension choice for
    softmax has been deprecated") and the choice is often not the one the
    author meant: for a 3-D `(batch, time, classes)` tensor it normalises over
    the batch.

    ## Example
    ```python
    logits = torch.randn(4, 10)
    p = F.softmax(logits)
    attn = torch.bmm(q, k.transpose(1, 2))
    w = F.softmax(attn)
    ```

    ## Fix
    ```python
    logits = torch.randn(4, 10)
    p = F.softmax(logits, dim=1)
    attn = torch.bmm(q, k.transpose(1, 2))
    w = F.softmax(attn)  # reported: 3-D input, the old rule picks dim 0
    ```
    Where the input's rank is known (factories with explicit sizes,
    `.view`/`.reshape` with explicit sizes, `mm`, `bmm`, `.t()`,
    `unsqueeze`, names bound only to these, elementwise functions of them),
    the same dimension the old rule picked is written out. For a 3-D input
    that is `dim=0`: the finding says so, since it is rarely what was meant.

    ## Fix safety
    Safe where the rank is known: the explicit `dim` is the one PyTorch
    picks today, so the numbers do not change. Where the rank is unknown, and
    for the `nn` modules (their input is not known where they are built), it
    is reported only: the message gives the old rule so the author can write
    the dimension they meant.
    """

    code = "AD216"
    name = "softmax-implicit-dim"
    summary = "`F.softmax`/`log_softmax`/`softmin` and `nn.Softmax()` without `dim` (implicit, deprecated)"
    fix_safety = SAFE
    tokens = ("softmax", "Softmax", "softmin", "Softmin")

    VALID = [
        Valid("""
            import torch.nn.functional as F
            import torch.nn as nn
            p = F.softmax(x, dim=-1)
            q = F.log_softmax(x, 1)
            m = nn.Softmax(dim=1)
        """),
        Valid("""
            import torch
            p = torch.softmax(x, -1) + x.softmax(1)
        """),
    ]
    INVALID = [
        Invalid("""
            import torch
            import torch.nn.functional as F
            logits = torch.randn(4, 10)
            p = F.softmax(logits)
        """, """
            import torch
            import torch.nn.functional as F
            logits = torch.randn(4, 10)
            p = F.softmax(logits, dim=1)
        """, line=4, column=5, message="without `dim` on a 2-D input: PyTorch picks dim 1"),
        Invalid("""
            import torch
            import torch.nn.functional as F
            w = F.log_softmax(torch.bmm(q, k) / 8.0)
        """, """
            import torch
            import torch.nn.functional as F
            w = F.log_softmax(torch.bmm(q, k) / 8.0, dim=0)
        """, note="3-D: the old rule's dim 0, made visible",
            line=3, column=5, message="without `dim` on a 3-D input: PyTorch picks dim 0"),
        Invalid("""
            import torch.nn.functional as F
            p = F.softmax(h.view(-1))
        """, """
            import torch.nn.functional as F
            p = F.softmax(h.view(-1), dim=0)
        """, line=2, column=5, message="without `dim` on a 1-D input: PyTorch picks dim 0"),
        Invalid("""
            import torch.nn.functional as F
            p = F.softmax(self.fc(x))
        """, None, note="unknown rank: reported only",
            line=2, column=5, message="without `dim`: the old rule picks dim 0 for 0-"),
        Invalid("""
            import torch.nn as nn
            act = nn.LogSoftmax()
        """, None, note="module: reported only",
            line=2, column=7, message="without `dim`: the dimension is picked from each input's"),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._calls: list = []

    def visit_Call(self, node: cst.Call) -> None:
        self._calls.append(node)  # judged in finish, in this (source) order: the engine's one walk

    def finish(self) -> None:
        for node in self._calls:
            self._call(node)

    def _call(self, node: cst.Call) -> None:
        q = self.ctx.imports.qualify(node.func)
        if q in _MODULES:
            if not node.args:
                self.report(node, f"`{self.ctx.code(node.func)}()` without `dim`: the dimension is picked "
                                  f"from each input's rank (0 for 1-D and 3-D inputs, 1 otherwise) with a "
                                  f"deprecation warning; pass the `dim` you mean")
            return
        if q not in _FUNCS:
            return
        pos = positional(node)
        if kwarg(node, "dim") is not None or len(pos) != 1 or any(a.star for a in node.args):
            return
        fn = self.ctx.code(node.func)
        ndim = self.rank(pos[0].value)
        if ndim is None:
            self.report(node, f"`{fn}` without `dim`: the old rule picks dim 0 for 0-, 1- and 3-D inputs "
                              f"and dim 1 otherwise (deprecated, with a warning); the input's rank is not "
                              f"known here: pass the `dim` you mean")
            return
        d = old_dim(ndim)
        note = " (for a 3-D input that is the first dimension: check it is the one meant)" if ndim == 3 else ""
        self.report(node, f"`{fn}` without `dim` on a {ndim}-D input: PyTorch picks dim {d}; "
                          f"written out{note}",
                    replacement=append_kwarg(node, "dim", cst.Integer(str(d))),
                    fix_title=f"Pass `dim={d}`")

    # --- rank of an expression ------------------------------------------------------
    def rank(self, e, seen=frozenset()) -> Optional[int]:
        if isinstance(e, cst.Name):
            if e.value in seen:
                return None
            values = self.ctx.bindings.values(e)
            if not values:
                return None
            ranks = {self.rank(v, seen | {e.value}) for v in values}
            return ranks.pop() if len(ranks) == 1 else None
        if isinstance(e, cst.BinaryOperation):
            for a, b in ((e.left, e.right), (e.right, e.left)):
                if isinstance(b, (cst.Integer, cst.Float)):
                    return self.rank(a, seen)
            return None
        if not isinstance(e, cst.Call):
            return None
        q = self.ctx.imports.qualify(e.func)
        pos = positional(e)
        if q in _FACTORIES:
            return _size_count(e)
        if q in ("torch.mm", "torch.bmm"):
            return 2 if q == "torch.mm" else 3
        if q is not None or not isinstance(e.func, cst.Attribute):
            return None
        m, recv = e.func.attr.value, e.func.value
        if m in ("view", "reshape"):
            return _size_count(e)
        if m == "mm":
            return 2
        if m == "bmm":
            return 3
        if m == "t" and not e.args:
            return 2
        if m == "unsqueeze" and len(pos) == 1:
            r = self.rank(recv, seen)
            return r + 1 if r is not None else None
        if m in _SAME_RANK or (m in ("transpose", "permute") and pos):
            return self.rank(recv, seen)
        return None


def _size_count(call: cst.Call) -> Optional[int]:
    """Number of sizes in `f(a, b, c)` or `f((a, b, c))`; None if unknown."""
    if any(a.star for a in call.args):
        return None
    pos = positional(call)
    if len(pos) == 1 and isinstance(pos[0].value, (cst.Tuple, cst.List)):
        elems = pos[0].value.elements
        return None if any(isinstance(x, cst.StarredElement) for x in elems) else len(elems)
    if not pos or not all(isinstance(a.value, (cst.Integer, cst.Name, cst.UnaryOperation, cst.Attribute,
                                               cst.Call, cst.BinaryOperation)) for a in pos):
        return None
    if len(pos) == 1 and not isinstance(pos[0].value, (cst.Integer, cst.UnaryOperation)):
        return None  # f(shape) with a size object: rank unknown
    return len(pos)
