"""AD212: `/` on integer tensors truncated before PyTorch 1.5; it divides now."""
from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from ..findings import SAFE, UNSAFE
from ..rule import Invalid, Rule, Valid
from ._helpers import positional

ITENSOR, PYINT = "itensor", "pyint"
_CMP_METHODS = ("eq", "ne", "lt", "gt", "le", "ge")
_KEEP = ("cpu", "cuda", "clone", "detach", "squeeze", "unsqueeze", "view", "view_as", "reshape",
         "flatten", "t", "contiguous")
_INT_CASTS = ("long", "int", "short")
_RATIO_NAME = re.compile(r"acc|ratio|rate|frac|percent|pct|prec|recall|score|mean|avg|prob", re.I)
_INT_TENSOR_TYPES = {f"torch.{p}{t}" for p in ("", "cuda.") for t in ("LongTensor", "IntTensor", "ShortTensor")}


class IntegerDivision(Rule):
    """
    `/` between integer tensors: it truncated before PyTorch 1.5, it divides now.

    ## What it does
    Finds `a / b` and `a /= b` where one operand is provably an integer tensor
    and the other an integer tensor or a Python int: `.long()`/`.int()`
    casts, `.sum()` of a comparison (`(pred == y).sum()`, `pred.eq(y).sum()`),
    `torch.LongTensor(...)`, `argmax`/`argmin`, `.max(dim)[1]`, `nonzero()`,
    `torch.arange`/`torch.randint` with integer literals, names assigned only
    from these (including `correct = 0` then `correct += ...`), and sums or
    products of them. Python ints are literals, `len(...)`, `.size(i)`,
    `.shape[i]` and `.numel()`.

    ## Why it matters
    Before PyTorch 1.5, `/` on two integer tensors (or an integer tensor and
    an int) truncated toward zero, like C. Since 1.5 it is true division and
    returns a float tensor, with no error and no warning: `correct / total`
    with both `LongTensor` gave `0` and now gives `0.83`; `idx / 2` used as
    an index now fails, or indexes somewhere else after a `.long()`. `a /= b`
    on an integer tensor now raises ("result type Float can't be cast to the
    desired output type Long").

    ## Example
    ```python
    idx = (x * 10).long()
    bucket = idx / 2
    hits = (pred == y).sum()
    half = hits / 2
    acc = (pred == y).sum() / len(y)
    ```

    ## Fix
    ```python
    idx = (x * 10).long()
    bucket = torch.div(idx, 2, rounding_mode="trunc")
    hits = (pred == y).sum()
    half = hits // 2
    acc = (pred == y).sum() / len(y)  # reported only: a ratio was meant
    ```
    The old meaning is kept: `torch.div(a, b, rounding_mode="trunc")`, or
    `a // b` where both operands are provably non-negative (counts of a
    comparison, `argmax`, `len`, sizes, non-negative literals), since `//`
    floors and truncation and flooring agree there. `a /= b` becomes
    `a //= b` or `a.div_(b, rounding_mode="trunc")`.

    Where the author clearly wanted a ratio (the quotient is scaled by a
    float or by 100, printed or formatted, or stored in a name like `acc`,
    `ratio`, `rate`, `precision`), the finding is reported without a fix: the
    message says the division was read as a ratio, which is what it computes
    today (on PyTorch < 1.5 it was truncated to an integer, 0 for a fraction).

    ## Fix safety
    Safe where both operands are proven integers and at least one a torch
    integer tensor: the rewrite computes exactly what `/` computed before
    1.5. Unsafe where the integer tensor is known only from a shape that
    numpy and pandas share (`(a == b).sum()`, `.argmax()`, `.nonzero()`
    without a `.long()`, `.cpu()` or `torch.` call in the chain): on a numpy
    array `/` always divided, and `//` would change it. Anything the rule
    cannot prove is left alone.
    """

    code = "AD212"
    name = "integer-tensor-division"
    summary = "`/` on integer tensors truncated before PyTorch 1.5 and divides now (silently)"
    fix_safety = SAFE
    tokens = ("/",)
    # A finding needs torch imported and an operand proven an integer tensor:
    # one of these spellings is in the text of every such proof (see `kind`;
    # written without spaces before the parenthesis, as code is).
    also_tokens = (("torch",), ("LongTensor", "IntTensor", "ShortTensor", "argmax", "argmin", "nonzero",
                                "arange", "randint", ".long()", ".int()", ".short()", ".sum(", ".max(",
                                ".min("))

    VALID = [
        Valid("""
            import torch
            y = x.float() / 2
            z = torch.randn(3) / torch.randn(3)
        """),
        Valid("""
            import torch
            n = len(data) / 2
            m = x.size(0) / 3
        """, note="Python ints: Python 3 division, no torch change"),
        Valid("""
            import torch
            correct = (pred == y).sum().item()
            print(correct / len(y))
        """, note=".item() gives a Python int: no torch change"),
        Valid("""
            import torch
            def f(idx):
                return idx / 2
        """, note="parameter of unknown type"),
        Valid("""
            import torch
            q = torch.div(idx.long(), 2, rounding_mode="trunc")
            r = idx.long() // 2
        """),
    ]
    INVALID = [
        Invalid("""
            import torch
            idx = (x * 10).long()
            bucket = idx / 2
        """, """
            import torch
            idx = (x * 10).long()
            bucket = torch.div(idx, 2, rounding_mode="trunc")
        """, line=3, column=10, message="divides integer tensors: before PyTorch 1.5 this truncated"),
        Invalid("""
            import torch
            hits = (pred == y).sum()
            half = hits / 2
        """, """
            import torch
            hits = (pred == y).sum()
            half = hits // 2
        """, unsafe=True, note="a comparison's sum may be numpy's: unsafe",
            line=3, column=8, message="divides integer tensors: before PyTorch 1.5 this truncated"),
        Invalid("""
            import torch
            hits = (pred == y).long().sum()
            half = hits / 2
        """, """
            import torch
            hits = (pred == y).long().sum()
            half = hits // 2
        """, line=3, column=8, message="divides integer tensors: before PyTorch 1.5 this truncated"),
        Invalid("""
            import torch
            c = torch.argmax(s, 1) / k.size(1)
        """, """
            import torch
            c = torch.argmax(s, 1) // k.size(1)
        """, line=2, column=5, message="divides integer tensors: before PyTorch 1.5 this truncated"),
        Invalid("""
            import torch
            correct = 0
            for x, y in data:
                correct += pred(x).eq(y).sum()
            print(100. * correct / len(data))
        """, None, note="an accuracy: reported only",
            line=5, column=7, message="divides integer tensors: before PyTorch 1.5 this truncated"),
        Invalid("""
            import torch
            acc = (p == y).sum() / len(y)
        """, None, note="named like a ratio: reported only",
            line=2, column=7, message="divides integer tensors: before PyTorch 1.5 this truncated"),
        Invalid("""
            import torch
            pos = torch.LongTensor([3, -3])
            pos /= 2
        """, """
            import torch
            pos = torch.LongTensor([3, -3])
            pos.div_(2, rounding_mode="trunc")
        """, line=3, column=1, message="on an integer tensor truncated before PyTorch 1.5"),
        Invalid("""
            import torch as th
            steps = th.arange(-5, 5)
            k = steps / (steps + 10).long()
        """, """
            import torch as th
            steps = th.arange(-5, 5)
            k = th.div(steps, (steps + 10).long(), rounding_mode="trunc")
        """, line=3, column=5, message="divides integer tensors: before PyTorch 1.5 this truncated"),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._divisions: list = []
        self._lambdas = 0  # a division inside a lambda is not judged

    # Collected in the engine's one walk, in source order; judged in finish.
    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._lambdas += 1

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self._lambdas -= 1

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not self._lambdas and type(node.operator) is cst.Divide:
            self._divisions.append(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not self._lambdas and type(node.operator) is cst.DivideAssign:
            self._divisions.append(node)

    def finish(self) -> None:
        if not self.ctx.imports.mentions_torch():
            return
        for node in self._divisions:
            if isinstance(node, cst.AugAssign):
                self._aug(node)
            else:
                self._binary(node)

    # --- what an expression is ------------------------------------------------
    def kind(self, e, seen=frozenset()):
        """(ITENSOR|PYINT, non_negative) or None when unproven."""
        if type(e) is cst.Integer:
            return PYINT, True, True
        if type(e) is cst.UnaryOperation and type(e.operator) is cst.Minus \
                and isinstance(e.expression, cst.Integer):
            return PYINT, False, True
        if isinstance(e, cst.Name):
            return self._name(e, seen)
        if isinstance(e, cst.BinaryOperation) and isinstance(
                e.operator, (cst.Add, cst.Multiply, cst.Subtract, cst.FloorDivide, cst.Modulo)):
            a, b = self.kind(e.left, seen), self.kind(e.right, seen)
            if a is None or b is None:
                return None
            k = ITENSOR if ITENSOR in (a[0], b[0]) else PYINT
            nonneg = a[1] and b[1] and not isinstance(e.operator, cst.Subtract)
            return k, nonneg, a[2] and b[2]
        if isinstance(e, cst.Subscript):
            # x.shape[i] / x.max(1)[1]
            v = e.value
            if isinstance(v, cst.Attribute) and v.attr.value == "shape":
                return PYINT, True, True
            if (isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute)
                    and v.func.attr.value in ("max", "min") and positional(v)
                    and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Index)
                    and isinstance(e.slice[0].slice.value, cst.Integer)
                    and e.slice[0].slice.value.value == "1"):
                return ITENSOR, True, False
            return None
        if isinstance(e, cst.Attribute) and e.attr.value == "data":
            return self._tensor_only(self.kind(e.value, seen))
        if isinstance(e, cst.Call):
            return self._call(e, seen)
        return None

    def _tensor_only(self, k):
        return k if k is not None and k[0] == ITENSOR else None

    def _call(self, e: cst.Call, seen):
        q = self.ctx.imports.qualify(e.func)
        if isinstance(e.func, cst.Name) and e.func.value == "len" and q is None:
            return PYINT, True, True
        if q in _INT_TENSOR_TYPES:
            return ITENSOR, False, True
        if q in ("torch.argmax", "torch.argmin", "torch.nonzero"):
            return ITENSOR, True, True
        if q in ("torch.arange", "torch.randint"):
            kinds = [self.kind(a.value, seen) for a in e.args if a.keyword is None]
            if kinds and len(kinds) == len(e.args) and all(k is not None and k[0] == PYINT for k in kinds):
                return ITENSOR, all(k[1] for k in kinds), True
            return None
        if q is not None or not isinstance(e.func, cst.Attribute):
            return None
        m, recv = e.func.attr.value, e.func.value
        if m in _INT_CASTS and not e.args:
            inner = self.kind(recv, seen)
            return ITENSOR, bool(_is_comparison(recv) or (inner and inner[1])), True
        if m in ("size", "numel", "dim") and len(e.args) <= 1:
            return PYINT, True, True
        if m in ("argmax", "argmin", "nonzero"):
            return ITENSOR, True, False  # numpy arrays have these too
        if m == "sum" and not any(a.keyword and a.keyword.value == "dtype" for a in e.args):
            if _is_comparison(recv):
                return ITENSOR, True, False  # numpy/pandas counts look the same
            return self._tensor_only(self.kind(recv, seen))
        if m in _KEEP:
            k = self._tensor_only(self.kind(recv, seen))
            # .cpu()/.cuda()/.detach() exist on torch tensors only.
            return k and (k[0], k[1], k[2] or m in ("cpu", "cuda", "detach"))
        return None

    def _name(self, node: cst.Name, seen):
        name = node.value
        if name in seen:
            return None
        values = self.ctx.bindings.values(node)
        if not values:
            return None
        kinds = [self.kind(v, seen | {name}) for v in values]
        if any(k is None for k in kinds):
            return None
        k = ITENSOR if any(k[0] == ITENSOR for k in kinds) else PYINT
        return k, all(k[1] for k in kinds), all(k[2] for k in kinds)

    # --- reports ----------------------------------------------------------------
    def _operands(self, left, right):
        """(both non-negative, provably torch) or None."""
        a, b = self.kind(left), self.kind(right)
        if a is None or b is None or ITENSOR not in (a[0], b[0]):
            return None
        return a[1] and b[1], a[2] and b[2]

    def _binary(self, node: cst.BinaryOperation) -> None:
        got = self._operands(node.left, node.right)
        if got is None:
            # 100. * correct / total: the scaled count of an accuracy.
            left = node.left
            if (isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Multiply)
                    and _is_scale(left.left) and self._operands(left.right, node.right) is not None):
                ratio = self._ratio_reading(node) or "the count is scaled by a float or by 100"
                got = (True, True)
            else:
                return
        else:
            ratio = self._ratio_reading(node)  # after: it walks the parents
        nonneg, sure = got
        code = self.ctx.code(node)
        head = (f"`{code}` divides integer tensors: before PyTorch 1.5 this truncated toward zero, "
                f"today it returns a float")
        if ratio:
            self.report(node, f"{head}. Read as a ratio ({ratio}), which is what it computes today "
                              f"(on PyTorch < 1.5 it was truncated to an integer): no fix; make it explicit with "
                              f"`.float()` "
                              f"if so, or `//` if the old integer result was meant")
            return
        torch = self.ctx.imports.module_alias("torch")
        if nonneg:
            new = node.with_changes(operator=cst.FloorDivide(
                whitespace_before=node.operator.whitespace_before,
                whitespace_after=node.operator.whitespace_after))
            title = "Use `//` (both operands are non-negative)"
        elif torch is not None:
            new = _div_call(torch, node.left, node.right).with_changes(lpar=node.lpar, rpar=node.rpar)
            title = "Use `torch.div(..., rounding_mode=\"trunc\")`"
        else:
            self.report(node, f"{head}; use `torch.div(a, b, rounding_mode=\"trunc\")` for the old result")
            return
        self._fixed(node, head, new, title, sure)

    def _aug(self, node: cst.AugAssign) -> None:
        got = self._operands(node.target, node.value)
        if got is None or not isinstance(node.target, cst.Name):
            return
        nonneg, sure = got
        head = (f"`{self.ctx.code(node).strip()}` on an integer tensor truncated before PyTorch 1.5; "
                f"today it raises (a float result cannot be stored in place)")
        if nonneg:
            new = node.with_changes(operator=cst.FloorDivideAssign(
                whitespace_before=node.operator.whitespace_before,
                whitespace_after=node.operator.whitespace_after))
        else:
            call = cst.Call(func=cst.Attribute(value=node.target, attr=cst.Name("div_")),
                            args=[cst.Arg(value=node.value, comma=cst.Comma(
                                whitespace_after=cst.SimpleWhitespace(" "))), _rounding()])
            new = cst.Expr(value=call, semicolon=node.semicolon)
        self._fixed(node, head, new, "Keep the truncating division", sure)

    def _fixed(self, node, head, new, title, sure) -> None:
        if sure:
            self.report(node, f"{head}; the old integer result is kept", replacement=new, fix_title=title)
        else:
            self.report(node, f"{head}; the old integer result is kept, if these are torch tensors "
                              f"(unsafe: a numpy array or pandas count here divides as floats, "
                              f"as it always did)", replacement=new, fix=UNSAFE, fix_title=title)

    def _ratio_reading(self, node) -> Optional[str]:
        """Why this quotient looks like a ratio the author wanted, or None."""
        child, parent = node, self.ctx.parent(node)
        while isinstance(parent, (cst.BinaryOperation,)) or (
                isinstance(parent, cst.Call) and isinstance(parent.func, cst.Attribute)
                and parent.func.attr.value in ("float", "item", "double")):
            if isinstance(parent, cst.BinaryOperation):
                if isinstance(parent.operator, cst.Modulo) and isinstance(parent.left, (cst.SimpleString,
                                                                                         cst.ConcatenatedString)):
                    return "it is formatted with %"
                other = parent.right if parent.left is child else parent.left
                if isinstance(parent.operator, cst.Multiply) and _is_scale(other):
                    return "it is scaled by a float or by 100"
            child, parent = parent, self.ctx.parent(parent)
        while isinstance(parent, (cst.Arg, cst.Tuple, cst.Element, cst.FormattedStringExpression,
                                  cst.FormattedString)):
            if isinstance(parent, (cst.FormattedStringExpression, cst.FormattedString)):
                return "it is formatted into a string"
            parent = self.ctx.parent(parent)
        if isinstance(parent, cst.Call):
            f = parent.func
            fname = f.value if isinstance(f, cst.Name) else f.attr.value if isinstance(f, cst.Attribute) else ""
            if fname in ("print", "format", "write", "info", "add_scalar", "log", "append"):
                return f"it is passed to `{fname}`"
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Modulo):
            return "it is formatted with %"
        if isinstance(parent, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
            for t in targets:
                text = self.ctx.code(t)
                if _RATIO_NAME.search(text):
                    return f"it is stored in `{text}`"
        return None


def _is_comparison(e) -> bool:
    # Peel .cpu()/.data/... off: `pred.eq(y).cpu().sum()` counts a comparison.
    while (isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value in _KEEP) \
            or (isinstance(e, cst.Attribute) and e.attr.value == "data"):
        e = e.func.value if isinstance(e, cst.Call) else e.value
    if isinstance(e, cst.Comparison):
        return True
    return (isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute)
            and e.func.attr.value in _CMP_METHODS and len(e.args) == 1)


def _is_scale(e) -> bool:
    return isinstance(e, cst.Float) or (isinstance(e, cst.Integer) and e.value == "100")


def _rounding() -> cst.Arg:
    eq = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    return cst.Arg(keyword=cst.Name("rounding_mode"), equal=eq, value=cst.SimpleString('"trunc"'))


def _div_call(torch: str, a, b) -> cst.Call:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.Call(func=cst.Attribute(value=cst.Name(torch), attr=cst.Name("div")),
                    args=[cst.Arg(value=a, comma=comma),
                          cst.Arg(value=b, comma=comma), _rounding()])

