"""AD210: `p.add_(-lr, g)` (a scalar first) becomes `p.add_(g, alpha=-lr)`."""
from __future__ import annotations

import libcst as cst

from ..findings import SAFE
from ..rule import Invalid, Rule, Valid
from ._helpers import positional

# method -> (keyword for the scalar, how many tensors follow it)
_METHODS = {
    "add": ("alpha", 1), "add_": ("alpha", 1), "sub": ("alpha", 1), "sub_": ("alpha", 1),
    "addcmul": ("value", 2), "addcmul_": ("value", 2), "addcdiv": ("value", 2), "addcdiv_": ("value", 2),
}
# torch.add(input, value, other): the same with the input first.
_FUNCS = {"torch.add": "add", "torch.sub": "sub", "torch.addcmul": "addcmul", "torch.addcdiv": "addcdiv"}
_ARITH = ("Add", "Subtract", "Multiply", "Divide", "Power", "FloorDivide")


def _number(expr) -> bool:
    return isinstance(expr, (cst.Integer, cst.Float))


def _plain(expr) -> bool:
    """A name, attribute or subscript: a hyperparameter such as `lr` or `group['lr']`."""
    return isinstance(expr, (cst.Name, cst.Attribute, cst.Subscript))


def _signed(expr) -> bool:
    return isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)) and (
        _number(expr.expression) or _plain(expr.expression) or _signed(expr.expression))


def scalar_evidence(expr) -> bool:
    """True when `expr` shows it is a Python scalar at the first position of
    the old overload: a number, a signed name (`-lr`), or arithmetic of such
    in which a number or a signed name appears (`1 - beta1`, `-lr * 0.5`)."""
    if _number(expr) or _signed(expr):
        return True
    if isinstance(expr, cst.BinaryOperation) and type(expr.operator).__name__ in _ARITH:
        sides = (expr.left, expr.right)
        if all(scalar_evidence(s) or _plain(s) for s in sides):
            return any(scalar_evidence(s) for s in sides)
    return False


def _tensorish(ctx, expr) -> bool:
    """Evidence that `expr` is a tensor: `.data`/`.grad` in it, an in-place
    method (`x.mul_(b)`), or a call into torch."""
    while True:
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in ("data", "grad"):
                return True
            expr = expr.value
        elif isinstance(expr, cst.Call):
            if ctx.imports.qualify(expr.func) and ctx.imports.qualify(expr.func).startswith("torch."):
                return True
            if isinstance(expr.func, cst.Attribute) and expr.func.attr.value.endswith("_") \
                    and not expr.func.attr.value.startswith("_"):
                return True
            expr = expr.func
        elif isinstance(expr, cst.Subscript):
            expr = expr.value
        else:
            return False


def _tensor_like(expr) -> bool:
    """Not obviously something other than a tensor (a literal)."""
    return not isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString,
                                 cst.ConcatenatedString, cst.FormattedString, cst.Dict, cst.Set))


class PositionalAlpha(Rule):
    """
    `p.data.add_(-lr, p.grad.data)`: the scalar passed first, positionally.

    ## What it does
    Finds `add`, `add_`, `sub`, `sub_` called with a scalar and then a tensor
    (`x.add_(-lr, g)`), `addcmul`/`addcdiv` (and their in-place forms) called
    with a scalar and then two tensors (`v.addcmul_(1 - beta2, g, g)`), and
    `torch.add(x, 2, y)`-style function calls. The first argument must show
    it is a Python scalar: a number literal, a signed name (`-lr`,
    `-group['lr']`), or arithmetic containing one of those (`1 - beta1`).
    For the generic names `add` and `sub` (not in place), the receiver or the
    tensor argument must also show it is a tensor (`.data`, `.grad`, an
    in-place method such as `.mul_()`, or a torch call).

    ## Why it matters
    PyTorch 0.3 code (and hand-written SGD loops copied from it) passes the
    multiplier first. Current PyTorch keeps that overload only as deprecated:
    every call prints `UserWarning: This overload of add_ is deprecated`
    (checked on torch 2.13), and once it is removed the call is a TypeError.

    ## Example
    ```python
    for p in model.parameters():
        p.data.add_(-lr, p.grad.data)
    exp_avg_sq.addcmul_(1 - beta2, grad, grad)
    ```

    ## Fix
    ```python
    for p in model.parameters():
        p.data.add_(p.grad.data, alpha=-lr)
    exp_avg_sq.addcmul_(grad, grad, value=1 - beta2)
    ```

    ## Fix safety
    Safe: the old overload and the keyword form run the same kernel
    (`self + alpha * other`), so the numbers are bit-identical. The rewrite is
    made only where the first argument shows it is a scalar and the expected
    number of further positional arguments follows with no `alpha=`/`value=`
    keyword: a call with two tensors first (`x.add(y, 2)`), or an object whose
    `sub` is not torch's (`pattern.sub(repl, text)`), is left alone. A plain
    name first (`x.add_(lr, g)`) is not reported: `lr` could be a tensor. The
    arguments keep their places and comments; only the values move.
    """

    code = "AD210"
    name = "positional-alpha"
    summary = "`x.add_(-lr, g)` passes the scalar first (deprecated overload); use `x.add_(g, alpha=-lr)`"
    fix_safety = SAFE
    # In-place forms are torch's; the generic `.add(`/`.sub(` (sets, regexes) only
    # with a sign, a digit, a bracket or a line break next (a fifth of the files).
    tokens = (".add_(", ".sub_(", ".addcmul", ".addcdiv", "torch.add(", "torch.sub(") + tuple(
        f".{m}({c}" for m in ("add", "sub") for c in "-0123456789(\r\n")

    VALID = [
        Valid("""
            p.data.add_(p.grad.data, alpha=-lr)
        """),
        Valid("""
            import re
            pattern = re.compile("a+")
            print(pattern.sub("b", text))
        """, note="a regex's sub: the first argument is a string"),
        Valid("""
            y = x.add(z, 2)
        """, note="a tensor first: the current signature"),
        Valid("""
            p.add_(lr, g)
        """, note="a plain name first: could be a tensor"),
        Valid("""
            seen.add(-1)
        """, note="one argument"),
        Valid("""
            meter.add(1, batch_size)
        """, note="a generic `add` with no sign of a tensor: could be any object"),
        Valid("""
            p.add_(-lr, g, alpha=2)
        """, note="already has alpha="),
        Valid("""
            v.addcmul_(0.5, g)
        """, note="addcmul needs two tensors after the scalar"),
    ]
    INVALID = [
        Invalid("""
            for p in model.parameters():
                p.data.add_(-lr, p.grad.data)
        """, """
            for p in model.parameters():
                p.data.add_(p.grad.data, alpha=-lr)
        """, line=2, column=5, message="passes the scalar `-lr` first"),
        Invalid("""
            exp_avg.mul_(beta1).add_(1 - beta1, grad)
        """, """
            exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        """, line=1, column=1, message="passes the scalar `1 - beta1` first"),
        Invalid("""
            exp_avg_sq.addcmul_(1 - beta2, grad, grad)
        """, """
            exp_avg_sq.addcmul_(grad, grad, value=1 - beta2)
        """, line=1, column=1, message="passes the scalar `1 - beta2` first"),
        Invalid("""
            p.data.addcdiv_(-step_size, exp_avg, denom)
        """, """
            p.data.addcdiv_(exp_avg, denom, value=-step_size)
        """, line=1, column=1, message="passes the scalar `-step_size` first"),
        Invalid("""
            import torch
            y = torch.add(x, 2, z)
        """, """
            import torch
            y = torch.add(x, z, alpha=2)
        """, line=2, column=5, message="passes the scalar `2` first"),
        Invalid("""
            d = a.data.sub(0.5, b)
        """, """
            d = a.data.sub(b, alpha=0.5)
        """, line=1, column=5, message="passes the scalar `0.5` first"),
        Invalid("""
            p.data.add_(
                -group['lr'],  # the step
                d_p,
            )
        """, """
            p.data.add_(
                d_p,  # the step
                alpha=-group['lr'],
            )
        """, note="multi-line, with a comment and a trailing comma: the layout stays",
            line=1, column=1, message="passes the scalar `-group['lr']` first"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        if any(a.star for a in node.args):
            return
        func = node.func
        q = self.ctx.imports.qualify(func)
        skip = 0
        if q in _FUNCS:
            method, skip = _FUNCS[q], 1
        elif type(func) is cst.Attribute and func.attr.value in _METHODS and (
                q is None or q.startswith("torch.")):
            method = func.attr.value
        else:
            return
        keyword, n_tensors = _METHODS[method]
        if any(a.keyword is not None and a.keyword.value in (keyword, "alpha", "value") for a in node.args):
            return
        pos = positional(node)
        if len(pos) != skip + 1 + n_tensors or list(node.args[: len(pos)]) != pos:
            return
        scalar = pos[skip]
        tensors = pos[skip + 1:]
        if not scalar_evidence(scalar.value) or not all(_tensor_like(t.value) for t in tensors):
            return
        if method in ("add", "sub") and skip == 0 and not (
                _tensorish(self.ctx, func.value) or any(_tensorish(self.ctx, t.value) for t in tensors)):
            return  # `meter.add(1, n)`: a generic name on an object of unknown type
        # Values move, the Arg shells (commas, comments, whitespace) keep their places.
        values = [a.value for a in pos[:skip]] + [t.value for t in tensors] + [scalar.value]
        args = list(node.args)
        for i, value in enumerate(values):
            args[i] = args[i].with_changes(value=value)
        last = len(pos) - 1
        args[last] = args[last].with_changes(
            keyword=cst.Name(keyword),
            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                  whitespace_after=cst.SimpleWhitespace("")))
        src = " ".join(self.ctx.code(scalar.value).split())
        name = q if q in _FUNCS else f".{method}"
        self.report(
            node,
            f"`{name}(...)` passes the scalar `{src}` first, the deprecated scalar-first overload (a warning "
            f"today, a TypeError once removed); pass it as `{keyword}={src}` after the tensor"
            + ("s" if n_tensors > 1 else ""),
            replacement=node.with_changes(args=args),
            fix_title=f"Use `{keyword}=`",
        )
