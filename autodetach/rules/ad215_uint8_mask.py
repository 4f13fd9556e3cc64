"""AD215: uint8 (`ByteTensor`) masks, from before PyTorch had `bool` tensors."""
from __future__ import annotations

import libcst as cst

from ..findings import SAFE
from ..rule import Invalid, Rule, Valid
from ._helpers import kwarg, positional

_BYTE_TYPES = ("torch.ByteTensor", "torch.cuda.ByteTensor")
_FACTORIES = ("torch.zeros", "torch.ones", "torch.full", "torch.empty", "torch.tensor", "torch.zeros_like",
              "torch.ones_like", "torch.full_like", "torch.randint", "torch.as_tensor")
# method -> index of the mask among its positional arguments
_MASK_METHODS = {"masked_fill": 0, "masked_fill_": 0, "masked_select": 0, "masked_scatter": 0,
                 "masked_scatter_": 0}


def _bool_call(e: cst.BaseExpression) -> cst.BaseExpression:
    atomic = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)
    if not isinstance(e, atomic) and not e.lpar:
        e = e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(func=cst.Attribute(value=e, attr=cst.Name("bool")))


class Uint8Mask(Rule):
    """
    uint8 (`ByteTensor`) masks: deprecated for indexing, rejected by `masked_*`.

    ## What it does
    Finds masks that are provably `uint8` where a mask is expected: indexing
    (`x[mask]`, `x[mask] = v`), `masked_fill`/`masked_fill_`,
    `masked_select`, `masked_scatter` and `torch.where(mask, a, b)`. A mask
    is `uint8` when it is `e.byte()`, `torch.ByteTensor(...)`, a factory with
    `dtype=torch.uint8`, `~`, `1 - ...`, `&`, `|` or `*` of these, or a name
    bound only to these in the same function. It also finds `~m` on a uint8
    tensor outside a mask position.

    ## Why it matters
    Before PyTorch 1.2 comparisons returned `ByteTensor`s and every mask was
    `uint8`; code converted masks with `.byte()`. On torch 2.13,
    `masked_fill`, `masked_select`, `masked_scatter` and `x[mask] = v` raise
    ("only supports boolean masks"); `x[mask]` and `torch.where` warn that
    uint8 is deprecated. Worse, `~m` on a uint8 tensor was `1 - m` until
    PyTorch 1.2 and is a bitwise NOT now: `~1` is 254, so a mask inverted this
    way silently selects everything.

    ## Example
    ```python
    mask = (lengths > 3).byte()
    scores = scores.masked_fill(mask, -1e9)
    kept = x[~mask]
    ```

    ## Fix
    ```python
    mask = (lengths > 3).byte()
    scores = scores.masked_fill(mask.bool(), -1e9)
    kept = x[~mask.bool()]
    ```
    At a mask position, `e.byte()` becomes `e.bool()` and any other uint8
    mask `m` becomes `m.bool()`; `~m` there becomes `~m.bool()`. Elsewhere
    `~m` on a uint8 tensor becomes `(1 - m)`, what it computed before 1.2.

    ## Fix safety
    Safe: a uint8 mask selects the positions where it is non-zero, and
    `.bool()` is true exactly there, so the selection is the same; `1 - m` is
    the old definition of `~` on `ByteTensor`. Masks the rule cannot prove to
    be uint8 are left alone.
    """

    code = "AD215"
    name = "uint8-mask"
    summary = "uint8 `ByteTensor` masks (`masked_fill` raises, indexing warns, `~` is bitwise now)"
    fix_safety = SAFE
    tokens = (".byte", "Byte", "uint8")  # .byte(), ByteTensor, torch.uint8
    also_tokens = (("torch",),)

    VALID = [
        Valid("""
            import torch
            y = x.masked_fill(x > 0, 0.0)
            z = x[mask.bool()]
            img = torch.zeros(3, 8, 8, dtype=torch.uint8)
            img[0] = 255
        """),
        Valid("""
            import torch
            pixels = img.byte()
            print(pixels.sum(), x[idx])
        """, note="uint8 data, not a mask"),
        Valid("""
            import torch
            def f(mask):
                return x.masked_fill(mask, 0)
        """, note="dtype of a parameter is unknown"),
    ]
    INVALID = [
        Invalid("""
            import torch
            y = x.masked_fill((x > 0).byte(), 0.0)
        """, """
            import torch
            y = x.masked_fill((x > 0).bool(), 0.0)
        """, line=2, column=19, message="is a uint8 mask for `x.masked_fill`: since PyTorch 1.2 masks"),
        Invalid("""
            import torch
            mask = (lengths > 3).byte()
            scores = scores.masked_fill(mask, -1e9)
            kept = x[~mask]
        """, """
            import torch
            mask = (lengths > 3).byte()
            scores = scores.masked_fill(mask.bool(), -1e9)
            kept = x[~mask.bool()]
        """, count=2, line=3, column=29, message="is a uint8 mask for `scores.masked_fill`: since PyTorch 1.2"),
        Invalid("""
            import torch
            m = torch.ByteTensor([1, 0, 1])
            x[m] = 0
            sel = torch.masked_select(x, m)
        """, """
            import torch
            m = torch.ByteTensor([1, 0, 1])
            x[m.bool()] = 0
            sel = torch.masked_select(x, m.bool())
        """, count=2, line=3, column=3, message="is a uint8 mask for indexing: since PyTorch 1.2 masks are"),
        Invalid("""
            import torch
            keep = torch.ones(5, dtype=torch.uint8)
            inv = ~keep
        """, """
            import torch
            keep = torch.ones(5, dtype=torch.uint8)
            inv = (1 - keep)
        """, note="bitwise NOT on uint8 since 1.2",
            line=3, column=7, message="on a uint8 tensor: `~` was `1 - m` for ByteTensor before"),
        Invalid("""
            import torch
            out = torch.where(m.byte(), a, b)
        """, """
            import torch
            out = torch.where(m.bool(), a, b)
        """, line=2, column=19, message="is a uint8 mask for `torch.where`: since PyTorch 1.2 masks"),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._seen: list = []  # calls, subscripts and unary operations, in the engine's walk (pre-order)

    def visit_Call(self, node) -> None:
        self._seen.append(node)

    def visit_Subscript(self, node) -> None:
        self._seen.append(node)

    def visit_UnaryOperation(self, node) -> None:
        self._seen.append(node)

    def finish(self) -> None:
        if not self.ctx.imports.mentions_torch():
            return
        for node in self._seen:
            if isinstance(node, cst.Call):
                self._call(node)
            elif isinstance(node, cst.Subscript):
                if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
                    self._mask(node.slice[0].slice.value, "indexing")
            else:
                self._invert(node)

    # --- is it uint8? -------------------------------------------------------------
    def is_u8(self, e, seen=frozenset()) -> bool:
        if isinstance(e, cst.Call):
            q = self.ctx.imports.qualify(e.func)
            if q in _BYTE_TYPES:
                return True
            if q in _FACTORIES:
                d = kwarg(e, "dtype")
                return d is not None and self.ctx.imports.qualify(d.value) == "torch.uint8"
            if isinstance(e.func, cst.Attribute):
                m = e.func.attr.value
                if m == "byte" and not e.args:
                    return True
                if m in ("type", "to") and len(e.args) == 1 and not e.args[0].keyword:
                    return self.ctx.imports.qualify(e.args[0].value) in ("torch.uint8",) + _BYTE_TYPES
                if m in ("clone", "detach", "view", "view_as", "contiguous", "cpu", "cuda", "squeeze",
                         "unsqueeze", "expand", "expand_as", "t", "reshape"):
                    return self.is_u8(e.func.value, seen)
            return False
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.BitInvert):
            return self.is_u8(e.expression, seen)
        if isinstance(e, cst.BinaryOperation):
            if isinstance(e.operator, cst.Subtract) and isinstance(e.left, cst.Integer) and e.left.value == "1":
                return self.is_u8(e.right, seen)
            if isinstance(e.operator, (cst.BitAnd, cst.BitOr, cst.Multiply)):
                return self.is_u8(e.left, seen) and self.is_u8(e.right, seen)
            return False
        if isinstance(e, cst.Name) and e.value not in seen:
            values = self.ctx.bindings.values(e)
            if not values:
                return False
            return all(self.is_u8(v, seen | {e.value}) for v in values)
        return False

    # --- mask positions -----------------------------------------------------------
    def _call(self, node: cst.Call) -> None:
        q = self.ctx.imports.qualify(node.func)
        pos = positional(node)
        mask = None
        if q == "torch.where" and len(pos) == 3:
            mask = pos[0].value
        elif q in ("torch.masked_select", "torch.masked_fill", "torch.masked_scatter") and len(pos) >= 2:
            mask = pos[1].value
        elif q is None and isinstance(node.func, cst.Attribute) and node.func.attr.value in _MASK_METHODS:
            k = kwarg(node, "mask")
            i = _MASK_METHODS[node.func.attr.value]
            mask = k.value if k is not None else (pos[i].value if len(pos) > i else None)
        if mask is not None:
            self._mask(mask, f"`{self.ctx.code(node.func)}`")

    def _mask(self, mask, where: str) -> None:
        if not self.is_u8(mask):
            return
        if (isinstance(mask, cst.Call) and isinstance(mask.func, cst.Attribute)
                and mask.func.attr.value == "byte" and not mask.args):
            new = mask.with_changes(func=mask.func.with_changes(attr=cst.Name("bool")))
        elif isinstance(mask, cst.UnaryOperation) and isinstance(mask.operator, cst.BitInvert):
            new = mask.with_changes(expression=_bool_call(mask.expression))
        else:
            new = _bool_call(mask).with_changes(lpar=mask.lpar, rpar=mask.rpar) if isinstance(
                mask, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) else _bool_call(mask)
        self.report(mask, f"`{self.ctx.code(mask)}` is a uint8 mask for {where}: since PyTorch 1.2 "
                          f"masks are `bool` (uint8 raises in `masked_*` and `x[m] = v`, warns in "
                          f"indexing and `where`)", replacement=new, fix_title="Use a bool mask")

    def _invert(self, node: cst.UnaryOperation) -> None:
        if not isinstance(node.operator, cst.BitInvert) or not self.is_u8(node.expression):
            return
        if self._at_mask_position(node):
            return  # the mask report rewrites it
        one_minus = cst.BinaryOperation(
            left=cst.Integer("1"), operator=cst.Subtract(), right=node.expression,
            lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        self.report(node, f"`{self.ctx.code(node)}` on a uint8 tensor: `~` was `1 - m` for ByteTensor "
                          f"before PyTorch 1.2 and is a bitwise NOT now (~1 == 254)",
                    replacement=one_minus, fix_title="Use `(1 - m)`")

    def _at_mask_position(self, node) -> bool:
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.Index):
            return True
        if isinstance(parent, cst.Arg):
            call = self.ctx.parent(parent)
            if isinstance(call, cst.Call):
                q = self.ctx.imports.qualify(call.func)
                if q in ("torch.where", "torch.masked_select", "torch.masked_fill", "torch.masked_scatter"):
                    return True
                if isinstance(call.func, cst.Attribute) and call.func.attr.value in _MASK_METHODS:
                    return True
        return False

