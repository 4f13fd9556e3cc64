"""AD220: deprecated `torch.norm` and `torch.svd` (TorchFix TOR101) to `torch.linalg`."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..findings import SAFE, UNSAFE
from ..rule import Edit, Invalid, Rule, Valid
from ._helpers import in_version_fallback

_NORM_ARGS = ("input", "p", "dim", "keepdim", "out", "dtype")
_SVD_ARGS = ("input", "some", "compute_uv", "out")
# torch.svd's result (U, S, V) read from linalg.svd's (U, S, Vh).
_SVD_PARTS = {0: "U", 1: "S", 2: "Vh.mH", -3: "U", -2: "S", -1: "Vh.mH", "U": "U", "S": "S", "V": "Vh.mH"}


def _bind(call: cst.Call, names: tuple) -> Optional[dict]:
    """Parameter name -> argument value; None for `*args`/`**kw` or an unknown keyword."""
    out = {}
    for i, a in enumerate(call.args):
        if a.star:
            return None
        if a.keyword is None:
            if i >= len(names):
                return None
            out[names[i]] = a.value
        elif a.keyword.value in names:
            out[a.keyword.value] = a.value
        else:
            return None
    return out


def _kw(name: str, value: cst.BaseExpression) -> cst.Arg:
    eq = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    return cst.Arg(value=value, keyword=cst.Name(name), equal=eq)


def _call(func: str, first: cst.BaseExpression, kws: list) -> cst.Call:
    args = [cst.Arg(first)] + [_kw(k, v) for k, v in kws]
    sep = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    args = [a.with_changes(comma=sep) for a in args[:-1]] + args[-1:]
    return cst.Call(cst.parse_expression(func), args=args)


def _number(expr) -> bool:
    """A numeric literal for `p`: `1`, `2.5`, `-1`, `float("inf")`, `float('-inf')`."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "float"
            and len(expr.args) == 1 and isinstance(expr.args[0].value, cst.SimpleString)
            and expr.args[0].value.evaluated_value in ("inf", "-inf"))


def _string(expr) -> Optional[str]:
    return expr.evaluated_value if isinstance(expr, cst.SimpleString) else None


def _small_dims(expr) -> bool:
    """`dim` that `torch.norm(p="fro")` hands to `vector_norm`: an int literal,
    or a tuple/list literal of at most two (more goes to `matrix_norm`, which raises)."""
    if isinstance(expr, cst.UnaryOperation):
        expr = expr.expression
    if isinstance(expr, cst.Integer):
        return True
    return isinstance(expr, (cst.Tuple, cst.List)) and len(expr.elements) <= 2 and all(
        isinstance(e.value, (cst.Integer, cst.UnaryOperation)) for e in expr.elements)


class NormSvd(Rule):
    """
    `torch.norm` and `torch.svd`: deprecated in favour of `torch.linalg`
    (`vector_norm`/`matrix_norm`, `svd` with `full_matrices` and `Vh`).

    ## What it does
    Reports `torch.norm(...)` and `torch.svd(...)` (the functions, not the
    tensor methods) and rewrites them where the `torch.linalg` form is
    known from the arguments:

    - `torch.norm(x, p, dim, keepdim, dtype=...)` with `p` absent, `None`,
      `"fro"` or a number (`1`, `2.5`, `float("inf")`) becomes
      `torch.linalg.vector_norm(x, ord=p, dim=dim, keepdim=keepdim, dtype=...)`.
      `"fro"` is the 2-norm of the elements over `dim` (all of them when
      absent), so `ord` is left out; with `"fro"` the `dim` must be a literal
      of at most two dimensions. `p="nuc"`, a `p` or `dim` that is not a
      literal (with `"fro"`), or `out=` are reported only
      (`torch.linalg.matrix_norm(x, "nuc")` for a matrix).
    - `torch.svd(A, some)` becomes `torch.linalg.svd(A, full_matrices=not some)`
      where the result is read in a way that can be rewritten: unpacked
      (`U, S, V = ...`, followed by `V = V.mH`, because `linalg.svd` returns
      `Vh`, the conjugate transpose of `V`), indexed (`[0]`, `[1]`, `[2]`) or
      read by field (`.U`, `.S`, `.V`). `compute_uv=`, `out=` and a result
      kept whole are reported only.

    ## Why it matters
    Both are documented as deprecated ("may be removed in a future PyTorch
    release") and are on TorchFix's TOR101 list, which rewrites neither. The
    traps in a hand rewrite: `torch.norm`'s `"fro"` and `p=2` over two
    dimensions are vector norms of the elements, not `matrix_norm(ord=2)`
    (the largest singular value); `linalg.svd` returns `Vh`, not `V`, and
    computes full matrices unless told otherwise (`some=True` was the old
    default).

    ## Example
    ```python
    n = torch.norm(w, dim=1, keepdim=True)
    m = torch.norm(x, p=1)
    U, S, V = torch.svd(A)
    ```

    ## Fix
    ```python
    n = torch.linalg.vector_norm(w, dim=1, keepdim=True)
    m = torch.linalg.vector_norm(x, ord=1)
    U, S, V = torch.linalg.svd(A, full_matrices=False)
    V = V.mH
    ```

    ## Fix safety
    The `svd` fix is safe: on torch 2.x `torch.svd(A, some)` is computed as
    `torch.linalg.svd(A, full_matrices=not some)` with `V = Vh.mH`, the same
    numbers and the same gradients. The `norm` fix is unsafe: for a dense
    tensor on CPU or CUDA `torch.norm` calls `linalg.vector_norm` with these
    very arguments (its source on torch 2.13), but for a sparse tensor it
    takes another path, and `linalg.vector_norm` does not support sparse
    tensors; the layout of `x` is not known from the code.
    """

    code = "AD220"
    name = "norm-svd"
    summary = "deprecated `torch.norm`/`torch.svd` (to `linalg.vector_norm`, `linalg.svd` with `Vh`)"
    fix_safety = SAFE
    tokens = ("norm", "svd")

    VALID = [
        Valid("""
            import torch
            n = torch.linalg.vector_norm(x, dim=1)
            U, S, Vh = torch.linalg.svd(A, full_matrices=False)
        """),
        Valid("""
            import torch
            n = x.norm(dim=1)
            U, S, V = A.svd()
        """, note="the tensor methods: not deprecated by name"),
        Valid("""
            import numpy as np
            n = np.linalg.norm(x)
            U, S, V = np.linalg.svd(A)
        """),
    ]
    INVALID = [
        Invalid("""
            import torch
            n = torch.norm(w, dim=1, keepdim=True)
        """, """
            import torch
            n = torch.linalg.vector_norm(w, dim=1, keepdim=True)
        """, unsafe=True, line=2, column=5, message="is deprecated"),
        Invalid("""
            import torch
            a = torch.norm(x, 1)
            b = torch.norm(x, p=float("inf"), dim=(0, 1))
            c = torch.norm(x, "fro", (-2, -1))
        """, """
            import torch
            a = torch.linalg.vector_norm(x, ord=1)
            b = torch.linalg.vector_norm(x, ord=float("inf"), dim=(0, 1))
            c = torch.linalg.vector_norm(x, dim=(-2, -1))
        """, unsafe=True, count=3, line=2, column=5, message="is deprecated"),
        Invalid("""
            import torch
            n = torch.norm(x, p="nuc")
            m = torch.norm(x, p=order)
        """, None, count=2, note="nuclear norm, and a p that may be a string: reported only",
            line=2, column=5, message="is deprecated: use `torch.linalg.vector_norm`"),
        Invalid("""
            import torch
            U, S, V = torch.svd(A)
        """, """
            import torch
            U, S, V = torch.linalg.svd(A, full_matrices=False)
            V = V.mH
        """, line=2, column=11, message="is deprecated: `torch.linalg.svd(A, full_matrices=not some)`"),
        Invalid("""
            import torch
            def whiten(A, reduced):
                _, s, _ = torch.svd(A, some=reduced)
                v = torch.svd(A)[2]
                u = torch.svd(A, some=False).U
                return s, v, u
        """, """
            import torch
            def whiten(A, reduced):
                _, s, _ = torch.linalg.svd(A, full_matrices=not reduced)
                v = torch.linalg.svd(A, full_matrices=False).Vh.mH
                u = torch.linalg.svd(A, full_matrices=True).U
                return s, v, u
        """, count=3, line=3, column=15, message="is deprecated: `torch.linalg.svd(A, full_matrices=not some)`"),
        Invalid("""
            import torch
            res = torch.svd(A)
            _, S, _ = torch.svd(A, compute_uv=False)
        """, None, count=2, note="a result kept whole, and compute_uv: reported only",
            line=2, column=7, message="is deprecated: `torch.linalg.svd(A, full_matrices=not some)`"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        q = self.ctx.imports.qualify(node.func)
        if q not in ("torch.norm", "torch.svd") or in_version_fallback(self.ctx, node):
            return
        torch = self.ctx.imports.module_alias("torch")
        if q == "torch.norm":
            self._norm(node, torch)
        else:
            self._svd(node, torch)

    def _norm(self, node: cst.Call, torch: Optional[str]) -> None:
        a = _bind(node, _NORM_ARGS)
        hint = ("`torch.norm` is deprecated: use `torch.linalg.vector_norm` (numeric `p`, or `\"fro\"` "
                "as the 2-norm of the elements) or `torch.linalg.matrix_norm` (`\"nuc\"`, or `p` of a "
                "matrix)")
        if a is None or "input" not in a or "out" in a or torch is None:
            self.report(node, hint)
            return
        p, dim = a.get("p"), a.get("dim")
        fro = p is None or _string(p) == "fro" or (isinstance(p, cst.Name) and p.value == "None")
        if not (fro or _number(p)) or (fro and _string(p) == "fro" and dim is not None and not _small_dims(dim)):
            self.report(node, hint + " (not rewritten: which one depends on a `p` or `dim` not known here)")
            return
        kws = [] if fro else [("ord", p)]
        kws += [(k, a[k]) for k in ("dim", "keepdim", "dtype") if k in a]
        self.report(node, "`torch.norm` is deprecated; with these arguments it is "
                          "`torch.linalg.vector_norm` (unsafe only for a sparse tensor, which "
                          "`vector_norm` does not support)",
                    replacement=_call(f"{torch}.linalg.vector_norm", a["input"], kws), fix=UNSAFE,
                    fix_title="Use `torch.linalg.vector_norm`")

    def _svd(self, node: cst.Call, torch: Optional[str]) -> None:
        a = _bind(node, _SVD_ARGS)
        hint = ("`torch.svd` is deprecated: `torch.linalg.svd(A, full_matrices=not some)` returns "
                "`(U, S, Vh)` with `Vh = V.mH`")
        if a is None or "input" not in a or "out" in a or "compute_uv" in a or torch is None:
            self.report(node, hint + " (`compute_uv=False`: `torch.linalg.svdvals`)")
            return
        full = self._full_matrices(a.get("some"))
        if full is None:
            self.report(node, hint)
            return
        new = _call(f"{torch}.linalg.svd", a["input"], [("full_matrices", full)])
        msg = hint + "; rewritten"
        parent = self.ctx.parent(node)
        part = self._part(parent, node)
        if part is not None:
            expr = cst.parse_expression(f"_.{_SVD_PARTS[part]}")
            self.report(parent, msg, replacement=_replace_base(expr, new), fix_title="Use `torch.linalg.svd`")
            return
        edits = self._unpacked(parent, node, new)
        if edits is None:
            self.report(node, hint + " (not rewritten: the result is kept whole)")
            return
        self.report(node, msg + ", `V = V.mH` after the unpacking", edits=edits,
                    fix_title="Use `torch.linalg.svd`")

    @staticmethod
    def _full_matrices(some) -> Optional[cst.BaseExpression]:
        if some is None or (isinstance(some, cst.Name) and some.value == "True"):
            return cst.Name("False")
        if isinstance(some, cst.Name) and some.value == "False":
            return cst.Name("True")
        if not isinstance(some, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.UnaryOperation)):
            some = some.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.UnaryOperation(cst.Not(), some)

    @staticmethod
    def _part(parent, node):
        """0/1/2 or "U"/"S"/"V" when the result is read as `svd(...)[i]` or `svd(...).X`."""
        if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in _SVD_PARTS:
            return parent.attr.value
        if isinstance(parent, cst.Subscript) and parent.value is node and len(parent.slice) == 1:
            idx = parent.slice[0].slice
            if isinstance(idx, cst.Index):
                v = idx.value
                sign = -1 if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus) else 1
                v = v.expression if sign < 0 else v
                if isinstance(v, cst.Integer) and sign * int(v.value, 0) in _SVD_PARTS:
                    return sign * int(v.value, 0)
        return None

    def _unpacked(self, assign, node, new) -> Optional[list]:
        """`U, S, V = torch.svd(A)` alone on its line: the new call, then `V = V.mH`."""
        line = self.ctx.parent(assign)
        if not (isinstance(assign, cst.Assign) and assign.value is node and len(assign.targets) == 1
                and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
            return None
        target = assign.targets[0].target
        if not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 3
                and all(isinstance(e, cst.Element) for e in target.elements)):
            return None
        v = target.elements[2].value
        if not isinstance(v, cst.Name):
            return None
        first = line.with_changes(body=[assign.with_changes(value=new)])
        if v.value == "_":
            return [Edit(line, first)]
        return [Edit(line, cst.FlattenSentinel([first, cst.parse_statement(f"{v.value} = {v.value}.mH\n")]))]


def _replace_base(expr: cst.BaseExpression, new: cst.BaseExpression) -> cst.BaseExpression:
    """`expr` (an attribute chain on `_`) with `_` replaced by `new`."""
    if isinstance(expr, cst.Attribute):
        return expr.with_changes(value=_replace_base(expr.value, new))
    return new
