"""AD219: deprecated torch APIs outside linear algebra (TorchFix's TOR101 list and more)."""
from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from ..findings import SAFE
from ..rule import Invalid, Rule, Valid
from ._helpers import in_version_fallback, kwarg, positional

_AMP_DEVICE = {"torch.cuda.amp": "cuda", "torch.cpu.amp": "cpu"}
# What `torch.<device>.amp.autocast` passed for dtype: `torch.amp.autocast`
# reads the process-wide autocast dtype instead, so it is written out.
_AMP_DTYPE = {"cuda": "float16", "cpu": "bfloat16"}
_AUTOCAST_ARGS = ("enabled", "dtype", "cache_enabled")
_FUNC = ("vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "functionalize")
# 0.3's stochastic functions, whose results had `.reinforce(reward)`.
_SAMPLERS = re.compile(r"\.(multinomial|bernoulli|normal)\(")
_UPSAMPLING = {"torch.nn.UpsamplingNearest2d": '"nearest"', "torch.nn.UpsamplingBilinear2d": '"bilinear"'}
_REPORT_ONLY = {
    "torch.testing.assert_allclose":
        "`torch.testing.assert_allclose` is deprecated (FutureWarning on torch 2.x); "
        "`torch.testing.assert_close` is stricter by default (equal_nan=False, dtype-based "
        "tolerances, scalars not converted): pass rtol/atol, equal_nan=True, check_dtype=False "
        "to keep the old check",
    "torch.nn.utils.weight_norm":
        "`torch.nn.utils.weight_norm` is deprecated; `torch.nn.utils.parametrizations.weight_norm` "
        "stores the weight as `parametrizations.weight.original0/1` instead of `weight_g`/`weight_v` "
        "(old state dicts still load; code reading `weight_g` must change)",
    "torch.backends.cuda.sdp_kernel":
        "`torch.backends.cuda.sdp_kernel` is deprecated; use "
        "`torch.nn.attention.sdpa_kernel([SDPBackend...])` with the backends that were enabled",
}
# Every qualified name visit_Call handles (besides `functorch.*`).
_KNOWN = frozenset({"torch.range", "torch.cuda.amp.autocast", "torch.cpu.amp.autocast",
                    "torch.cuda.amp.autocast_mode.autocast", "torch.cpu.amp.autocast_mode.autocast",
                    "torch.cuda.amp.GradScaler", "torch.cuda.amp.grad_scaler.GradScaler",
                    "torch.cuda.amp.custom_fwd", "torch.cuda.amp.custom_bwd", *_UPSAMPLING, *_REPORT_ONLY})


def _kw(name: str, value: cst.BaseExpression) -> cst.Arg:
    eq = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    return cst.Arg(value=value, keyword=cst.Name(name), equal=eq)


def _args(args: list) -> list:
    """The arguments with plain `, ` separators."""
    out = []
    for i, a in enumerate(args):
        last = i == len(args) - 1
        out.append(a.with_changes(comma=cst.MaybeSentinel.DEFAULT if last else
                                  cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
    return out


def _int(expr) -> Optional[int]:
    """The value of an integer literal (`3`, `-3`), else None."""
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if (isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus)
            and isinstance(expr.expression, cst.Integer)):
        return -int(expr.expression.value, 0)
    return None


def _int_node(v: int) -> cst.BaseExpression:
    return cst.Integer(str(v)) if v >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer(str(-v)))


class DeprecatedFunction(Rule):
    """
    Deprecated torch APIs outside linear algebra: `torch.range`, the
    device-specific AMP classes, `nn.UpsamplingNearest2d`/`UpsamplingBilinear2d`,
    `functorch` transforms, and a few that need a hand rewrite.

    ## What it does
    Finds calls to `torch.range`, `torch.cuda.amp.autocast`,
    `torch.cpu.amp.autocast`, `torch.cuda.amp.GradScaler`,
    `torch.cuda.amp.custom_fwd`/`custom_bwd` (also as bare decorators),
    `torch.nn.UpsamplingNearest2d`, `torch.nn.UpsamplingBilinear2d`, the
    `functorch` transforms (`vmap`, `grad`, `vjp`, `jvp`, `jacrev`, `jacfwd`,
    `hessian`, `functionalize`, `grad_and_value`), and reports
    `torch.testing.assert_allclose`, `torch.nn.utils.weight_norm` and
    `torch.backends.cuda.sdp_kernel`. It also reports `x.reinforce(reward)`,
    0.3's REINFORCE API on sampled tensors, removed in 0.4 (only in a file that
    calls `.multinomial(`, `.bernoulli(` or `.normal(`). (Removed and
    deprecated linear-algebra functions are AD211.)

    ## Why it matters
    Each of these warns on torch 2.x (`FutureWarning`/`UserWarning`) and is
    scheduled for removal; `torch.range` in particular includes its end point
    and returns floats, so a careless switch to `torch.arange` changes both
    the length and the dtype of the result.

    ## Example
    ```python
    steps = torch.range(0, 9)
    with torch.cuda.amp.autocast(True):
        y = model(x)
    scaler = torch.cuda.amp.GradScaler()
    up = nn.UpsamplingBilinear2d(scale_factor=2)
    ```

    ## Fix
    ```python
    steps = torch.arange(0, 10, dtype=torch.get_default_dtype())
    with torch.amp.autocast("cuda", enabled=True, dtype=torch.float16):
        y = model(x)
    scaler = torch.amp.GradScaler("cuda")
    up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
    ```
    - `torch.range(start, end, step)` with integer literals becomes
      `torch.arange(start, last + step, ...)`, `last` being the last point
      `range` produced (`end` when the step divides `end - start`), with
      `dtype=torch.get_default_dtype()` unless a dtype is given (`range`
      always returned the default floating dtype; `arange` of integers
      returns int64). Other arguments are reported only: with a fractional
      end or step, the number of points of `arange(start, end + step)` can
      differ by one.
    - `torch.cuda.amp.autocast(enabled, dtype, cache_enabled)` becomes
      `torch.amp.autocast("cuda", ...)` with the arguments as keywords (the
      positional order differs) and `dtype=torch.float16` written out unless
      given (`torch.bfloat16` for `torch.cpu.amp.autocast`): the old classes
      passed that dtype, the new one reads `torch.get_autocast_dtype`.
    - `torch.cuda.amp.GradScaler(...)` becomes `torch.amp.GradScaler("cuda", ...)`
      (same arguments after the device).
    - `@torch.cuda.amp.custom_fwd` / `custom_bwd` (with or without arguments)
      become `@torch.amp.custom_fwd(device_type="cuda", ...)`.
    - `nn.UpsamplingNearest2d(size, scale_factor)` becomes
      `nn.Upsample(size, scale_factor, mode="nearest")`;
      `nn.UpsamplingBilinear2d` becomes `nn.Upsample(..., mode="bilinear",
      align_corners=True)` (what the old class used).
    - `functorch.vmap(...)` (and the other transforms) become
      `torch.func.vmap(...)`; `from functorch import vmap, grad` becomes
      `from torch.func import vmap, grad`.
    - `torch.testing.assert_allclose` (stricter defaults in `assert_close`),
      `torch.nn.utils.weight_norm` (parameter names change) and
      `torch.backends.cuda.sdp_kernel` (a list of backends instead of flags)
      are reported only.

    ## Fix safety
    Safe: each replacement computes the same thing (checked on torch 2.13:
    `arange` values and dtype against `range`, the `Upsample` outputs against
    the old classes, the AMP classes' arguments). A call through a
    from-import (`autocast()` after `from torch.cuda.amp import autocast`) is
    reported only where `torch` itself is not imported.
    """

    code = "AD219"
    name = "deprecated-function"
    summary = ("deprecated `torch.range`, `torch.cuda.amp.*`, `nn.Upsampling*2d`, `functorch` "
               "transforms (and more, reported)")
    fix_safety = SAFE
    # Not "range" or "amp": Python's range() and words like "example" are in most files.
    tokens = (".range(", "autocast", "GradScaler", "custom_fwd", "custom_bwd", "Upsampling", "functorch",
              "assert_allclose", "weight_norm", "sdp_kernel", ".reinforce(")

    VALID = [
        Valid("""
            agent.reinforce(reward)
        """, note="no torch sampler in the file: another library's reinforce"),
        Valid("""
            import torch
            try:
                from torch.func import vmap
                scaler = torch.amp.GradScaler("cuda")
            except (ImportError, AttributeError):
                from functorch import vmap
                scaler = torch.cuda.amp.GradScaler()
        """, note="the fallback for an older torch keeps the old spelling"),
        Valid("""
            import torch
            scaler = torch.amp.GradScaler("cuda") if _TORCH_GREATER_EQUAL_2_4 else torch.cuda.amp.GradScaler()
        """, note="a branch chosen by the torch version"),
        Valid("""
            import torch
            a = torch.arange(0, 10)
            for i in range(3):
                pass
            with torch.amp.autocast("cuda"):
                pass
            up = torch.nn.Upsample(scale_factor=2)
        """),
        Valid("""
            import numpy as np
            r = np.arange(3)
            from torch.nn.utils.parametrizations import weight_norm
            m = weight_norm(layer)
        """, note="the current parametrization API"),
    ]
    INVALID = [
        Invalid("""
            import torch.nn.functional as F
            action = F.softmax(scores, dim=1).multinomial(1)
            action.reinforce(reward)
        """, note="0.3 stochastic function API: report only",
            line=3, column=1, message="is the PyTorch 0.3 REINFORCE API on a sampled tensor"),
        Invalid("""
            import torch
            a = torch.range(0, 9)
            b = torch.range(1, -3, -2, dtype=torch.long)
            c = torch.range(0, 5, 2)
        """, """
            import torch
            a = torch.arange(0, 10, dtype=torch.get_default_dtype())
            b = torch.arange(1, -5, -2, dtype=torch.long)
            c = torch.arange(0, 6, 2, dtype=torch.get_default_dtype())
        """, count=3, note="c: the end 5 is not a point; arange(0, 7, 2) would add 6",
            line=2, column=5, message="is deprecated"),
        Invalid("""
            import torch
            a = torch.range(0, n)
        """, None, note="a non-literal end may be fractional: reported only",
            line=2, column=5, message="is deprecated (it includes the end point and returns floats)"),
        Invalid("""
            import torch
            with torch.cuda.amp.autocast(False):
                pass
            with torch.cpu.amp.autocast(dtype=torch.float16):
                pass
            scaler = torch.cuda.amp.GradScaler(2.0 ** 10)
        """, """
            import torch
            with torch.amp.autocast("cuda", enabled=False, dtype=torch.float16):
                pass
            with torch.amp.autocast("cpu", dtype=torch.float16):
                pass
            scaler = torch.amp.GradScaler("cuda", 2.0 ** 10)
        """, count=3, line=2, column=6, message="is deprecated"),
        Invalid("""
            import torch
            from torch.cuda.amp import custom_fwd, custom_bwd

            class F(torch.autograd.Function):
                @staticmethod
                @custom_fwd(cast_inputs=torch.float32)
                def forward(ctx, x):
                    return x

                @staticmethod
                @torch.cuda.amp.custom_bwd
                def backward(ctx, g):
                    return g
        """, """
            import torch
            from torch.cuda.amp import custom_fwd, custom_bwd

            class F(torch.autograd.Function):
                @staticmethod
                @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
                def forward(ctx, x):
                    return x

                @staticmethod
                @torch.amp.custom_bwd(device_type="cuda")
                def backward(ctx, g):
                    return g
        """, count=2, line=6, column=6, message="is deprecated"),
        Invalid("""
            import torch.nn as nn
            a = nn.UpsamplingNearest2d(scale_factor=2)
            b = nn.UpsamplingBilinear2d(None, 2)
        """, """
            import torch.nn as nn
            a = nn.Upsample(scale_factor=2, mode="nearest")
            b = nn.Upsample(None, 2, mode="bilinear", align_corners=True)
        """, count=2, line=2, column=5, message="is deprecated"),
        Invalid("""
            import torch
            import functorch
            from functorch import vmap, jacrev
            y = functorch.vmap(f)(x)
        """, """
            import torch
            import functorch
            from torch.func import vmap, jacrev
            y = torch.func.vmap(f)(x)
        """, count=2, line=3, column=1, message="is deprecated"),
        Invalid("""
            import torch
            torch.testing.assert_allclose(a, b)
            m = torch.nn.utils.weight_norm(layer)
        """, None, count=2, note="no equivalent one-line rewrite: reported only",
            line=2, column=1, message="is deprecated (FutureWarning on torch 2.x)"),
    ]

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar) or node.module is None or node.relative:
            return
        if self.ctx.code(node.module) != "functorch" or in_version_fallback(self.ctx, node):
            return  # in_version_fallback: the old spelling for an old torch
        names = [a.name.value if isinstance(a.name, cst.Name) else None for a in node.names]
        if not names or any(n not in _FUNC for n in names):
            self.report(node, "`functorch` is deprecated; its transforms are in `torch.func`")
            return
        self.report(node, "`functorch` is deprecated; `torch.func` has the same transforms",
                    replacement=node.with_changes(module=cst.parse_expression("torch.func")),
                    fix_title="Import from `torch.func`")

    def visit_Decorator(self, node: cst.Decorator) -> None:
        dec = node.decorator
        if isinstance(dec, cst.Call):
            return  # handled as a call
        q = self.ctx.imports.qualify(dec)
        if q in ("torch.cuda.amp.custom_fwd", "torch.cuda.amp.custom_bwd") and not in_version_fallback(self.ctx, node):
            self._custom(dec, q, [])

    def visit_Call(self, node: cst.Call) -> None:
        if (isinstance(node.func, cst.Attribute) and node.func.attr.value == "reinforce"
                and len(node.args) == 1 and _SAMPLERS.search(self.ctx.text)):
            self._reinforce(node)
            return
        q = self.ctx.imports.qualify(node.func)
        if q is None or not (q in _KNOWN or q.startswith("functorch.")):
            return
        if in_version_fallback(self.ctx, node):  # after the cheap test: it walks the parents
            return  # the old spelling for an old torch
        if q == "torch.range":
            self._range(node)
        elif q in ("torch.cuda.amp.autocast", "torch.cpu.amp.autocast",
                   "torch.cuda.amp.autocast_mode.autocast", "torch.cpu.amp.autocast_mode.autocast"):
            self._autocast(node, "cuda" if q.startswith("torch.cuda") else "cpu")
        elif q in ("torch.cuda.amp.GradScaler", "torch.cuda.amp.grad_scaler.GradScaler"):
            self._scaler(node, q)
        elif q in ("torch.cuda.amp.custom_fwd", "torch.cuda.amp.custom_bwd"):
            self._custom(node, q, list(node.args))
        elif q in _UPSAMPLING:
            self._upsampling(node, q)
        elif q.startswith("functorch.") and q.split(".", 1)[1] in _FUNC and isinstance(node.func, cst.Attribute):
            self._functorch(node, q)
        elif q in _REPORT_ONLY:
            self.report(node, _REPORT_ONLY[q])

    # --- one handler per API ---------------------------------------------
    def _reinforce(self, node: cst.Call) -> None:
        # A file that samples with torch (the gate in visit_Call): 0.3's stochastic
        # functions are the likely receiver; another library's `reinforce` is not.
        self.report(node, f"`{self.ctx.code(node)}` is the PyTorch 0.3 REINFORCE API on a sampled "
                          f"tensor (`multinomial`, `bernoulli`, `normal`); it was removed in 0.4 and "
                          f"raises RuntimeError today. Rewrite with `torch.distributions` "
                          f"(`m = Categorical(probs); a = m.sample(); loss = -m.log_prob(a) * reward`): "
                          f"reported only")

    def _torch(self) -> Optional[str]:
        return self.ctx.imports.module_alias("torch")

    def _range(self, node: cst.Call) -> None:
        torch = self._torch()
        pos = [a.value for a in positional(node)]
        start, end = (pos + [None, None])[:2]
        step = pos[2] if len(pos) > 2 else None
        for name in ("start", "end", "step"):
            a = kwarg(node, name)
            if a is not None:
                start, end, step = {"start": (a.value, end, step), "end": (start, a.value, step),
                                    "step": (start, end, a.value)}[name]
        vals = [_int(start), _int(end), _int(step) if step is not None else 1]
        keep = [a for a in node.args if a.keyword is not None and a.keyword.value not in ("start", "end", "step")]
        if torch is None or None in vals or vals[2] == 0 or any(a.star for a in node.args):
            self.report(node, "`torch.range` is deprecated (it includes the end point and returns "
                              "floats); use `torch.arange(start, end + step, dtype=...)` (reported "
                              "only: with a fractional end or step the number of points can differ)")
            return
        s, e, st = vals
        n = (e - s) // st  # the last point is s + n * st (e itself only when the step divides)
        if n < 0:
            self.report(node, "`torch.range` is deprecated; use `torch.arange` (reported only: the "
                              "bounds do not match the step's sign, which raises)")
            return
        args = [cst.Arg(_int_node(s)), cst.Arg(_int_node(s + (n + 1) * st))]
        if st != 1:
            args.append(cst.Arg(_int_node(st)))
        if kwarg(node, "dtype") is None:
            keep.append(_kw("dtype", cst.parse_expression(f"{torch}.get_default_dtype()")))
        self.report(node, "`torch.range` is deprecated; `torch.arange` with the end moved past the "
                          "last point and the default floating dtype gives the same tensor",
                    replacement=node.with_changes(func=cst.parse_expression(f"{torch}.arange"),
                                                  args=_args(args + keep)),
                    fix_title="Use `torch.arange`")

    def _autocast(self, node: cst.Call, device: str) -> None:
        torch = self._torch()
        pos = positional(node)
        if torch is None or len(pos) > 3 or any(a.star for a in node.args):
            self.report(node, f"`torch.{device}.amp.autocast(...)` is deprecated; use "
                              f"`torch.amp.autocast(\"{device}\", ...)` (keywords: the order differs)")
            return
        given = dict(zip(_AUTOCAST_ARGS, (a.value for a in pos)))
        given.update({a.keyword.value: a.value for a in node.args if a.keyword is not None})
        if "dtype" not in given:
            given["dtype"] = cst.parse_expression(f"{torch}.{_AMP_DTYPE[device]}")
        args = [cst.Arg(cst.SimpleString(f'"{device}"'))]
        args += [_kw(k, given.pop(k)) for k in _AUTOCAST_ARGS if k in given]
        args += [_kw(k, v) for k, v in given.items()]
        self.report(node, f"`torch.{device}.amp.autocast` is deprecated; `torch.amp.autocast(\"{device}\", "
                          f"...)` with the same arguments as keywords and the dtype it used",
                    replacement=node.with_changes(func=cst.parse_expression(f"{torch}.amp.autocast"),
                                                  args=_args(args)),
                    fix_title="Use `torch.amp.autocast`")

    def _scaler(self, node: cst.Call, q: str) -> None:
        torch = self._torch()
        if torch is None or any(a.star for a in node.args):
            self.report(node, "`torch.cuda.amp.GradScaler` is deprecated; use `torch.amp.GradScaler(\"cuda\", ...)`")
            return
        args = [cst.Arg(cst.SimpleString('"cuda"'))] + list(node.args)
        self.report(node, "`torch.cuda.amp.GradScaler` is deprecated; `torch.amp.GradScaler(\"cuda\", ...)` "
                          "takes the same arguments after the device",
                    replacement=node.with_changes(func=cst.parse_expression(f"{torch}.amp.GradScaler"),
                                                  args=_args(args)),
                    fix_title="Use `torch.amp.GradScaler`")

    def _custom(self, node: cst.BaseExpression, q: str, args: list) -> None:
        torch = self._torch()
        fn = q.rsplit(".", 1)[1]
        if torch is None or positional(cst.Call(func=cst.Name("f"), args=args)) or any(a.star for a in args):
            self.report(node, f"`torch.cuda.amp.{fn}` is deprecated; use `torch.amp.{fn}(device_type=\"cuda\")`")
            return
        new = cst.Call(func=cst.parse_expression(f"{torch}.amp.{fn}"),
                       args=_args([_kw("device_type", cst.SimpleString('"cuda"'))] + args))
        self.report(node, f"`torch.cuda.amp.{fn}` is deprecated; `torch.amp.{fn}(device_type=\"cuda\", ...)` "
                          f"does the same", replacement=new, fix_title=f"Use `torch.amp.{fn}`")

    def _upsampling(self, node: cst.Call, q: str) -> None:
        old = q.rsplit(".", 1)[1]
        if (not isinstance(node.func, cst.Attribute) or len(positional(node)) > 2
                or any(a.star for a in node.args)
                or any(a.keyword is not None and a.keyword.value not in ("size", "scale_factor") for a in node.args)):
            self.report(node, f"`{old}` is deprecated; use `nn.Upsample(..., mode={_UPSAMPLING[q]})`")
            return
        extra = [_kw("mode", cst.SimpleString(_UPSAMPLING[q]))]
        if "Bilinear" in old:
            extra.append(_kw("align_corners", cst.Name("True")))
        self.report(node, f"`{old}` is deprecated; `nn.Upsample` with the mode (and corner alignment) "
                          f"it used computes the same",
                    replacement=node.with_changes(func=node.func.with_changes(attr=cst.Name("Upsample")),
                                                  args=_args(list(node.args) + extra)),
                    fix_title="Use `nn.Upsample`")

    def _functorch(self, node: cst.Call, q: str) -> None:
        torch = self._torch()
        fn = q.split(".", 1)[1]
        if torch is None:
            self.report(node, f"`functorch.{fn}` is deprecated; use `torch.func.{fn}`")
            return
        self.report(node, f"`functorch.{fn}` is deprecated; `torch.func.{fn}` is the same transform",
                    replacement=node.with_changes(func=cst.parse_expression(f"{torch}.func.{fn}")),
                    fix_title=f"Use `torch.func.{fn}`")
