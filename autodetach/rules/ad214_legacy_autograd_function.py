"""AD214: legacy (non-static) `torch.autograd.Function` subclasses."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..analysis.walk import nodes, visit
from ..findings import SAFE, UNSAFE
from ..rule import Edit, Invalid, Rule, Valid
from ._ad214_callers import caller_reports
from ._ad214_init_state import plan as init_state_plan

_FUNCTION = ("torch.autograd.Function", "torch.autograd.function.Function")
_METHODS = ("forward", "backward")


class _SelfToCtx(cst.CSTTransformer):
    """`self` -> `ctx` in one method, not inside nested functions or classes."""

    def __init__(self) -> None:
        self.depth = 0

    def visit_FunctionDef(self, node) -> bool:
        self.depth += 1
        return self.depth == 1

    def leave_FunctionDef(self, original, updated):
        self.depth -= 1
        return updated

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_Lambda(self, node) -> bool:
        return False

    def leave_Name(self, original, updated):
        return updated.with_changes(value="ctx") if updated.value == "self" else updated


_INIT = "state set in `__init__` must become arguments of `apply` (with `None` gradients)"


def _static(fn: cst.FunctionDef) -> cst.FunctionDef:
    """`def m(self, ...)` -> `@staticmethod def m(ctx, ...)`, `self` -> `ctx` inside."""
    new = fn.visit(_SelfToCtx())
    return new.with_changes(decorators=[cst.Decorator(decorator=cst.Name("staticmethod"))] + list(fn.decorators))


def _is_static(fn: cst.FunctionDef) -> bool:
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "classmethod")
               for d in fn.decorators)


def _self_param(fn: cst.FunctionDef) -> Optional[str]:
    params = fn.params.posonly_params or fn.params.params
    return params[0].name.value if params else None


class LegacyAutogradFunction(Rule):
    """
    Legacy `torch.autograd.Function` subclasses with a non-static `forward`.

    ## What it does
    Finds subclasses of `torch.autograd.Function` whose `forward` is an
    ordinary method (`def forward(self, x)`) and the call sites that
    instantiate them (`MyFn()(x)`).

    ## Why it matters
    PyTorch 0.x let a Function be an object: `MyFn()(x)`, with
    `self.save_for_backward`, `self.saved_tensors` and attributes on `self`.
    Since 1.3 that raises "Legacy autograd function with non-static forward
    method is deprecated"; the code does not run at all.

    ## Example
    ```python
    class Clamp(torch.autograd.Function):
        def forward(self, x):
            self.save_for_backward(x)
            return x.clamp(min=0)

        def backward(self, g):
            x, = self.saved_tensors
            return g * (x > 0).float()

    y = Clamp()(x)
    ```

    ## Fix
    ```python
    class Clamp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clamp(min=0)

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * (x > 0).float()

    y = Clamp.apply(x)
    ```
    `forward` and `backward` become static methods taking `ctx`; every
    `self` in them becomes `ctx` (`save_for_backward`, `saved_tensors`,
    `needs_input_grad`, attributes stored for backward); every `Clamp()(...)`
    in the file becomes `Clamp.apply(...)`, and `relu = Clamp()` becomes
    `relu = Clamp.apply` where `relu` is bound once and only ever called.

    State set in `__init__` becomes arguments: with
    `__init__(self, lam): self.lam = lam`, `Rev(0.5)(x)` becomes
    `Rev.apply(x, 0.5)`, `forward(ctx, x, lam)` starts with `ctx.lam = lam`,
    and every `return` of `backward` gets one more `None` (no gradient for
    `lam`).

    ## Fix safety
    Safe when the class has nothing but `forward` and `backward` (no
    `__init__`, no other methods, no class attributes) and every use of the
    class in the file is `Clamp()(...)` or such a `relu = Clamp()`: the static form computes the same
    values and gradients. Unsafe when `__init__` holds state: the rewrite
    above applies only when `__init__` does nothing but call the base
    `__init__` and store values computed from its arguments on `self`, every
    use is `Rev(args)(inputs)`, and `backward` returns tuples (or a single
    gradient for a single input); it is unsafe because the stored values are
    now computed at each call rather than once when the instance was built.
    Otherwise it is reported only: an instance kept in a variable and used
    otherwise, or a helper method called through `self`, has no direct
    `ctx` equivalent.
    A file that imports such a class from a project file (`from
    ..functions.clamp import Clamp`) and calls `Clamp()(x)` gets the same
    finding at each call: `Clamp.apply(x)` (safe) when the class is the kind
    rewritten safely above, read from its file with the stdlib parser,
    rewritten already or not; reported only when its `__init__` holds state
    (its `apply` then takes trailing arguments) or the name is used otherwise.
    """

    code = "AD214"
    name = "legacy-autograd-function"
    summary = "`torch.autograd.Function` with a non-static `forward` (`MyFn()(x)`) raises since 1.3"
    fix_safety = SAFE
    tokens = ("Function", "()(")
    # every spelling of torch.autograd.Function says autograd; a file calling an
    # imported one (`RoICrop()(a, b)`) says `()(` (`)(` admits too many files)
    also_tokens = (("autograd", "()("),)

    VALID = [
        Valid("""
            import torch
            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x)
                    return x * 2

                @staticmethod
                def backward(ctx, g):
                    return g * 2
            y = F.apply(x)
        """),
        Valid("""
            class Function:
                def forward(self, x):
                    return x
            y = Function()(x)
        """, note="not torch's Function"),
    ]
    INVALID = [
        Invalid("""
            import torch
            class Clamp(torch.autograd.Function):
                def forward(self, x):
                    self.save_for_backward(x)
                    return x.clamp(min=0)

                def backward(self, g):
                    x, = self.saved_tensors
                    return g * (x > 0).float()

            y = Clamp()(x) + Clamp()(x * 2)
        """, """
            import torch
            class Clamp(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x)
                    return x.clamp(min=0)

                @staticmethod
                def backward(ctx, g):
                    x, = ctx.saved_tensors
                    return g * (x > 0).float()

            y = Clamp.apply(x) + Clamp.apply(x * 2)
        """, line=2, column=7, message="is a legacy autograd Function (non-static `forward`)"),
        Invalid("""
            from torch.autograd import Function
            class Scale(Function):
                def forward(self, x, k):
                    self.k = k
                    return x * k

                def backward(self, g):
                    return g * self.k, None
            out = Scale()(x, 3.0)
        """, """
            from torch.autograd import Function
            class Scale(Function):
                @staticmethod
                def forward(ctx, x, k):
                    ctx.k = k
                    return x * k

                @staticmethod
                def backward(ctx, g):
                    return g * ctx.k, None
            out = Scale.apply(x, 3.0)
        """, line=2, column=7, message="is a legacy autograd Function (non-static `forward`)"),
        Invalid("""
            import torch
            class Rev(torch.autograd.Function):
                def __init__(self, lam):
                    super().__init__()
                    self.lam = lam

                def forward(self, x):
                    return x.view_as(x)

                def backward(self, g):
                    return -self.lam * g
            y = Rev(0.5)(x)
        """, """
            import torch
            class Rev(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, lam):
                    ctx.lam = lam
                    return x.view_as(x)

                @staticmethod
                def backward(ctx, g):
                    return -ctx.lam * g, None
            y = Rev.apply(x, 0.5)
        """, unsafe=True, note="state set in __init__: an argument of apply (unsafe)",
            line=2, column=7, message="is a legacy autograd Function (non-static `forward`)"),
        Invalid("""
            import torch
            class Rev(torch.autograd.Function):
                def __init__(self, lam):
                    self.lam = lam
                    self.calls = []

                def forward(self, x):
                    self.calls.append(1)
                    return x.view_as(x)

                def backward(self, g):
                    return -self.lam * g
            rev = Rev(0.5)
            y = rev(x)
        """, None, note="an instance kept in a variable, with state: reported only",
            line=2, column=7, message="is a legacy autograd Function (non-static `forward`)"),
        Invalid("""
            import torch
            class Sq(torch.autograd.Function):
                def forward(self, x):
                    self.save_for_backward(x)
                    return x * x

                def backward(self, g):
                    x, = self.saved_tensors
                    return 2 * x * g
            sq = Sq()
            y = sq(x)
            print(sq)
        """, None, note="an instance kept in a variable and used otherwise: reported only",
            line=2, column=7, message="is a legacy autograd Function (non-static `forward`)"),
        Invalid("""
            import torch
            class Sq(torch.autograd.Function):
                def forward(self, x):
                    return x * x

                def backward(self, g):
                    return g
            sq = Sq()
            y = sq(x) + sq(2 * x)
        """, """
            import torch
            class Sq(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return x * x

                @staticmethod
                def backward(ctx, g):
                    return g
            sq = Sq.apply
            y = sq(x) + sq(2 * x)
        """, note="an instance only ever called: bound to .apply",
            line=2, column=7, message="is a legacy autograd Function (non-static `forward`)"),
        Invalid("""
            import torch

            class Half(torch.autograd.Function):
                def forward(self, x):
                    return x.clone()

            class Half(torch.autograd.Function):
                def forward(self, x):
                    return x * 1

            y = Half()(torch.ones(2))
        """, None, count=2, note="one name, two classes: the call cannot be given to either, reported only",
            line=3, column=7, message="is a legacy autograd Function (non-static `forward`)"),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._called: list = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is cst.Call and type(func.func) is cst.Name:
            self._called.append(node)  # `Name()(...)`: a Function of another file, maybe

    def finish(self) -> None:
        if self._called:
            caller_reports(self, self._called)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if not any(self.ctx.imports.qualify(b.value) in _FUNCTION for b in node.bases):
            return
        methods = {s.name.value: s for s in node.body.body if isinstance(s, cst.FunctionDef)}
        fwd = methods.get("forward")
        if fwd is None or _is_static(fwd):
            return
        name = node.name.value
        msg = (f"`{name}` is a legacy autograd Function (non-static `forward`); calling it raises "
               f"since PyTorch 1.3")
        why = self._blocker(node, methods)
        if why == _INIT:
            self._with_init_state(node, methods, msg)
            return
        if why is None and \
                sum(isinstance(n, cst.ClassDef) and n.name.value == name for n in nodes(self.ctx.module)) > 1:
            why = f"`{name}` is defined more than once in this file, so its calls cannot be told apart"
        uses, other = self._uses(name)
        if why is None and other:
            why = f"`{name}` is used other than as `{name}()(...)` (line {self.ctx.line_of(other[0])})"
        if why is not None:
            self.report(node.name, f"{msg}; rewrite it to the static form by hand: {why}")
            return
        edits = [Edit(methods[m], _static(methods[m])) for m in _METHODS if m in methods]
        for call in uses:
            if isinstance(call.func, cst.Call):  # MyFn()(x) -> MyFn.apply(x)
                edits.append(Edit(call, call.with_changes(
                    func=cst.Attribute(value=call.func.func, attr=cst.Name("apply")))))
            else:  # relu = MyFn() -> relu = MyFn.apply
                edits.append(Edit(call, cst.Attribute(value=call.func, attr=cst.Name("apply"))))
        self.report(node.name, f"{msg}; static `forward(ctx, ...)`/`backward(ctx, ...)` and "
                               f"`{name}.apply(...)` compute the same", edits=edits,
                    fix_title="Rewrite to a static autograd Function")

    def _with_init_state(self, node: cst.ClassDef, methods: dict, msg: str) -> None:
        """State set in `__init__`: it becomes trailing arguments of `apply` (unsafe)."""
        name = node.name.value
        edits, why = init_state_plan(self.ctx, node, methods, _static, _is_docstring)
        if why is not None:
            self.report(node.name, f"{msg}; rewrite it to the static form by hand: {_INIT} ({why})")
            return
        self.report(node.name, f"{msg}; the `__init__` arguments become trailing arguments of "
                               f"`{name}.apply(...)`, stored on `ctx` in `forward`, with a `None` "
                               f"gradient each in `backward` (unsafe: they are now evaluated at "
                               f"each call, where the instance was built once)",
                    edits=edits, fix=UNSAFE, fix_title="Rewrite to a static autograd Function")

    def _blocker(self, node: cst.ClassDef, methods: dict) -> Optional[str]:
        extra = sorted(set(methods) - set(_METHODS) - {"__init__"})
        if extra:
            return f"other methods ({', '.join(extra)}) are not reachable from `ctx`"
        if any(not isinstance(s, cst.FunctionDef) and not _is_docstring(s) for s in node.body.body):
            return "class attributes are not reachable from `ctx`"
        for m in _METHODS:
            fn = methods.get(m)
            if fn is not None and (_is_static(fn) or _self_param(fn) != "self"):
                return f"`{m}` has an unusual signature"
        return _INIT if "__init__" in methods else None

    def _uses(self, name: str):
        """(calls `Name()(...)`, other references to `Name`) in the file."""
        uses, other = [], []
        ctx = self.ctx

        class Find(cst.CSTVisitor):
            def visit_Name(self, node: cst.Name) -> None:
                if node.value != name:
                    return
                parent = ctx.parent(node)
                if isinstance(parent, cst.ClassDef) and parent.name is node:
                    return
                outer = ctx.parent(parent) if isinstance(parent, cst.Call) else None
                if (isinstance(parent, cst.Call) and parent.func is node and not parent.args
                        and isinstance(outer, cst.Call) and outer.func is parent):
                    uses.append(outer)
                elif (isinstance(parent, cst.Call) and parent.func is node and not parent.args
                        and _only_called(ctx, outer, parent)):
                    uses.append(parent)  # relu = MyReLU(); relu(x)  ->  relu = MyReLU.apply
                else:
                    other.append(node)

        visit(ctx.module, Find())
        return uses, other


def _only_called(ctx, assign, call) -> bool:
    """`v = MyFn()` where `v` is bound once in the file and only ever called."""
    if not (isinstance(assign, cst.Assign) and assign.value is call and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)):
        return False
    var = assign.targets[0].target.value
    bad = []

    class Refs(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value != var or node is assign.targets[0].target:
                return
            parent = ctx.parent(node)
            if not (isinstance(parent, cst.Call) and parent.func is node):
                bad.append(node)

    visit(ctx.module, Refs())
    return not bad


def _is_docstring(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))
