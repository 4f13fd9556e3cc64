"""AD203: `loss.data[0]` on a 0-dim tensor becomes `loss.item()`."""
from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from ..findings import SAFE, UNSAFE
from ..imports import dotted
from ..rule import Invalid, Rule, Valid
from ._helpers import positional
from .ad207_legacy_reduction import call_reduction, loss_kind

# Methods that reduce a whole tensor to 0-dim when called without a dim.
_REDUCE_METHODS = {"sum", "mean", "prod", "max", "min", "norm", "std", "var", "median",
                   "all", "any", "nansum", "nanmean", "amax", "amin"}
_REDUCE_FUNCS = {"torch.sum", "torch.mean", "torch.prod", "torch.norm", "torch.std", "torch.var",
                 "torch.median", "torch.max", "torch.min", "torch.nansum", "torch.nanmean"}
_PAIR_FUNCS = {"torch.dot", "torch.dist", "torch.vdot"}
# Methods that keep the shape (so a 0-dim stays 0-dim).
_SAME_SHAPE = {"cpu", "cuda", "detach", "clone", "float", "double", "half", "abs", "sqrt",
               "exp", "log", "neg", "contiguous"}
_SCALAR_KW = {"dtype"}
_LOSSY_NAME = re.compile(r"loss", re.I)


def _is_number(expr) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    return isinstance(expr, cst.UnaryOperation) and isinstance(expr.expression, (cst.Integer, cst.Float))


class _Scope:
    def __init__(self, kind: str, parent: Optional["_Scope"]) -> None:
        self.kind = kind  # module | function | class
        self.parent = parent
        self.values: dict = {}  # name -> list of (op, value expr); op "=" or "+=" ...
        self.opaque: set = set()  # names bound in ways we cannot follow


class DataIndexScalar(Rule):
    """
    `loss.data[0]`, the PyTorch 0.3 way to read a scalar.

    ## What it does
    Finds `x.data[0]` (and `x.cpu().data[0]`, `x.data.cpu()[0]`,
    `x.data.cpu().numpy()[0]`) where `x` is provably a 0-dim tensor: a loss
    computed by a torch criterion or `F.*` loss with a reducing `reduction`,
    a whole-tensor reduction (`.sum()`, `.mean()`, `torch.norm(t)`, ...), a
    name assigned only from such values, or arithmetic of them.

    ## Why it matters
    In 0.3, losses and reductions were 1-element tensors and `.data[0]` read
    the number. Since 0.4 they are 0-dim, and indexing one raises
    `IndexError: invalid index of a 0-dim tensor. Use tensor.item()`.

    ## Example
    ```python
    loss = criterion(model(x), y)
    total += loss.data[0]
    ```

    ## Fix
    ```python
    loss = criterion(model(x), y)
    total += loss.item()
    ```

    ## Fix safety
    Safe for `.data[0]`: on a 1-element tensor in 0.3 it returned the same
    Python number that `.item()` returns today. The `.numpy()[0]` forms are
    unsafe: they returned a NumPy scalar (`numpy.float32`), `.item()` a Python
    `float`, which prints with more digits. Real indexing is left alone: when
    `x` cannot be shown to be 0-dim there is no finding, except for names that
    look like a loss, which are reported without a fix.
    """

    code = "AD203"
    name = "data-index-scalar"
    summary = "`x.data[0]` on a 0-dim tensor is an IndexError today; use `x.item()`"
    fix_safety = SAFE
    tokens = (".data[0]", "numpy()[0]", "cpu()[0]")

    VALID = [
        Valid("""
            out = model(x)
            first = out.data[0]
        """, note="real indexing of a model output"),
        Valid("""
            import torch
            s = torch.sum(x, 1)
            print(s.data[0])
        """, note="reduction over a dim: not 0-dim"),
        Valid("""
            import torch.nn.functional as F
            per = F.mse_loss(a, b, reduction="none")
            print(per.data[0])
        """),
        Valid("""
            import torch.nn as nn
            crit = nn.CrossEntropyLoss(reduce=False)
            l = crit(out, y)
            print(l.data[0])
        """),
        Valid("""
            total = x.sum()
            total = model(x)
            print(total.data[0])
        """, note="one binding is unknown"),
        Valid("""
            loss = x.sum()
            loss.data[0] = 1.0
        """, note="an assignment target"),
        Valid("""
            y = x.sum(0)
            print(y.data[0])
        """),
    ]
    INVALID = [
        Invalid("""
            import torch.nn as nn
            criterion = nn.CrossEntropyLoss()
            def step(out, y):
                loss = criterion(out, y)
                return loss.data[0]
        """, """
            import torch.nn as nn
            criterion = nn.CrossEntropyLoss()
            def step(out, y):
                loss = criterion(out, y)
                return loss.item()
        """),
        Invalid("""
            import torch.nn.functional as F
            loss = F.nll_loss(out, y, size_average=False)
            total += loss.data[0]
        """, """
            import torch.nn.functional as F
            loss = F.nll_loss(out, y, size_average=False)
            total += loss.item()
        """),
        Invalid("""
            print((a - b).pow(2).sum().data[0])
        """, """
            print((a - b).pow(2).sum().item())
        """),
        Invalid("""
            import torch
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.crit = nn.MSELoss()
                def fit(self, x, y):
                    loss = self.crit(x, y) + 0.1 * torch.norm(x)
                    loss.backward()
                    return loss.cpu().data[0]
        """, """
            import torch
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.crit = nn.MSELoss()
                def fit(self, x, y):
                    loss = self.crit(x, y) + 0.1 * torch.norm(x)
                    loss.backward()
                    return loss.cpu().item()
        """),
        Invalid("""
            err = x.mean()
            v = err.data.cpu().numpy()[0]
        """, """
            err = x.mean()
            v = err.item()
        """, unsafe=True),
        Invalid("""
            loss = model.compute_loss(x)
            print(loss.data[0])
        """, None, note="looks like a loss, not provably 0-dim: reported only"),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._scope = _Scope("module", None)
        self._attrs: dict = {}  # "self.crit" -> list of values (module-wide)
        self._sites: list = []  # (subscript, base, numpy, scope)

    # --- scopes and bindings ------------------------------------------------
    def _push(self, kind: str) -> None:
        self._scope = _Scope(kind, self._scope)

    def _pop(self) -> None:
        self._scope = self._scope.parent

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scope.opaque.add(node.name.value)
        self._push("function")
        for p in (*node.params.params, *node.params.kwonly_params, *node.params.posonly_params):
            self._scope.opaque.add(p.name.value)
        for p in (node.params.star_arg, node.params.star_kwarg):
            if isinstance(p, cst.Param):
                self._scope.opaque.add(p.name.value)

    def leave_FunctionDef(self, node) -> None:
        self._pop()

    def visit_Lambda(self, node) -> None:
        self._push("function")
        for p in node.params.params:
            self._scope.opaque.add(p.name.value)

    def leave_Lambda(self, node) -> None:
        self._pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._scope.opaque.add(node.name.value)
        self._push("class")

    def leave_ClassDef(self, node) -> None:
        self._pop()

    def _bind(self, target, op: str, value) -> None:
        if isinstance(target, cst.Name):
            self._scope.values.setdefault(target.value, []).append((op, value))
        elif isinstance(target, cst.Attribute):
            key = dotted(target)
            if key:
                self._attrs.setdefault(key, []).append((op, value))
        else:
            self._opaque_target(target)

    def _opaque_target(self, target) -> None:
        if isinstance(target, cst.Name):
            self._scope.opaque.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._opaque_target(el.value)
        elif isinstance(target, cst.StarredElement):
            self._opaque_target(target.value)
        elif isinstance(target, cst.Attribute):
            key = dotted(target)
            if key:
                self._attrs.setdefault(key, []).append(("?", None))

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self._bind(t.target, "=", node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, "=", node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        op = type(node.operator).__name__
        self._bind(node.target, op, node.value)

    def visit_For(self, node: cst.For) -> None:
        self._opaque_target(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._opaque_target(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._opaque_target(node.asname.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._opaque_target(node.target)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._opaque_target(node.name.name)

    def visit_Global(self, node: cst.Global) -> None:
        for n in node.names:
            self._scope.opaque.add(n.name.value)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for n in node.names:
            self._scope.opaque.add(n.name.value)

    def visit_Del(self, node: cst.Del) -> None:
        self._opaque_target(node.target)

    # --- the sites --------------------------------------------------------------
    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) != 1:
            return
        el = node.slice[0].slice
        if not (isinstance(el, cst.Index) and isinstance(el.value, cst.Integer) and el.value.value == "0"):
            return
        base, numpy = _strip_data(node.value)
        if base is None:
            return
        self._sites.append((node, base, numpy, self._scope))

    def finish(self) -> None:
        for node, base, numpy, scope in self._sites:
            if self._is_target(node):
                continue
            full = " ".join(self.ctx.code(base).split())
            src = _short(full)
            old = _short(self.ctx.code(node))
            use = f"`{full}.item()`" if src == full else "`.item()` in place of `.data[0]`"
            why = self._scalar(base, scope, set())
            new = cst.Call(func=cst.Attribute(value=base, attr=cst.Name("item")),
                           lpar=node.lpar, rpar=node.rpar)
            if why:
                msg = (f"`{old}` reads a number the PyTorch 0.3 way; `{src}` is 0-dim ({why}), "
                       f"and indexing a 0-dim tensor is an IndexError today; use {use}")
                if numpy:
                    msg += (" (unsafe: `.numpy()[0]` gave a NumPy scalar, `.item()` gives a Python "
                            "number, which prints differently)")
                self.report(node, msg, replacement=new, fix=UNSAFE if numpy else SAFE,
                            fix_title="Use `.item()`")
            elif self._looks_like_loss(base):
                self.report(
                    node,
                    f"`{old}` looks like the PyTorch 0.3 way to read a loss; if `{src}` is 0-dim "
                    f"(a reduced loss) this is an IndexError today and should be {use}",
                )

    def _is_target(self, node) -> bool:
        parent = self.ctx.parent(node)
        if isinstance(parent, (cst.AssignTarget, cst.Del)):
            return True
        if isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node:
            return True
        return False

    @staticmethod
    def _looks_like_loss(base) -> bool:
        name = base.value if isinstance(base, cst.Name) else (
            base.attr.value if isinstance(base, cst.Attribute) else None)
        return bool(name and _LOSSY_NAME.search(name) and not name.lower().endswith("losses"))

    # --- is it 0-dim? A reason string, or "" ---------------------------------------
    def _scalar(self, expr, scope: _Scope, seen: set) -> str:
        if isinstance(expr, cst.Call):
            return self._scalar_call(expr, scope, seen)
        if isinstance(expr, cst.Name):
            return self._scalar_name(expr.value, scope, seen)
        if isinstance(expr, cst.Attribute):
            key = dotted(expr)
            if key and key.startswith("self.") and key not in seen:
                vals = self._attrs.get(key)
                if vals and all(op == "=" and v is not None for op, v in vals):
                    seen = seen | {key}
                    if all(self._scalar(v, scope, seen) for _, v in vals):
                        return f"`{key}` is assigned a 0-dim value"
            return ""
        if isinstance(expr, cst.BinaryOperation) and type(expr.operator).__name__ in (
                "Add", "Subtract", "Multiply", "Divide", "Power"):
            sides = [expr.left, expr.right]
            tensors = [s for s in sides if not _is_number(s)]
            if tensors and all(self._scalar(s, scope, seen) for s in tensors):
                return "arithmetic of 0-dim values"
            return ""
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            return self._scalar(expr.expression, scope, seen)
        return ""

    def _scalar_name(self, name: str, scope: _Scope, seen: set) -> str:
        if name in seen:
            return ""
        s = scope
        while s is not None:
            if s.kind == "class" and s is not scope:
                s = s.parent  # class bodies do not enclose their methods
                continue
            if name in s.opaque:
                return ""
            if name in s.values:
                vals = s.values[name]
                seen = seen | {name}
                firsts = [v for op, v in vals if op == "="]
                if not firsts:
                    return ""
                reason = ""
                for op, v in vals:
                    if op not in ("=", "AddAssign", "SubtractAssign", "MultiplyAssign", "DivideAssign"):
                        return ""
                    if op != "=" and _is_number(v):
                        continue
                    why = self._scalar(v, s, seen)
                    if not why:
                        return ""
                    reason = reason or why
                return f"assigned only 0-dim values: {reason}"
            s = s.parent
        return ""

    def _scalar_call(self, call: cst.Call, scope: _Scope, seen: set) -> str:
        func = call.func
        q = self.ctx.imports.qualify(func)
        if any(a.star for a in call.args):
            return ""
        pos = positional(call)
        kws = {a.keyword.value for a in call.args if a.keyword is not None}
        kind = loss_kind(q)
        if kind is not None and kind[0] == "F":
            if len(pos) <= kind[2] and call_reduction(call, kind[1]) not in (None, "none"):
                return f"`{_short(self.ctx.code(func))}` is a loss with a reducing `reduction`"
            return ""
        if q in _REDUCE_FUNCS:
            if len(pos) == 1 and kws <= _SCALAR_KW | ({"p"} if q == "torch.norm" else set()):
                return f"`{_short(self.ctx.code(func))}` over the whole tensor"
            return ""
        if q in _PAIR_FUNCS:
            return f"`{_short(self.ctx.code(func))}` returns a 0-dim tensor" if len(pos) == 2 else ""
        if isinstance(func, cst.Attribute) and q is None:
            meth = func.attr.value
            if meth in _REDUCE_METHODS:
                extra = {"p"} if meth == "norm" else set()
                if meth == "norm" and len(pos) == 1 and _is_number(pos[0].value) and kws <= _SCALAR_KW:
                    return "`.norm(p)` over the whole tensor"
                if not pos and kws <= _SCALAR_KW | extra:
                    return f"`.{meth}()` over the whole tensor"
                return ""
            if meth in ("dot", "dist") and len(pos) >= 1:
                return f"`.{meth}()` returns a 0-dim tensor"
            if meth in _SAME_SHAPE:
                inner = self._scalar(func.value, scope, seen)
                return inner
        # A criterion: nn.MSELoss()(a, b), crit(a, b), self.crit(a, b)
        if self._is_criterion(func, scope, seen) and not kws - {"weight"}:
            return f"`{_short(self.ctx.code(func))}` is a loss module with a reducing `reduction`"
        return ""

    def _is_criterion(self, func, scope: _Scope, seen: set) -> bool:
        if isinstance(func, cst.Call):
            kind = loss_kind(self.ctx.imports.qualify(func.func))
            return bool(kind and kind[0] == "nn" and call_reduction(func, kind[1]) not in (None, "none"))
        if isinstance(func, cst.Name):
            key = func.value
            if key in seen:
                return False
            s = scope
            while s is not None:
                if s.kind == "class" and s is not scope:
                    s = s.parent
                    continue
                if key in s.opaque:
                    return False
                if key in s.values:
                    vals = s.values[key]
                    return all(op == "=" and self._is_criterion(v, s, seen | {key}) for op, v in vals)
                s = s.parent
            return False
        if isinstance(func, cst.Attribute):
            key = dotted(func)
            if not key or not key.startswith("self.") or key in seen:
                return False
            vals = self._attrs.get(key)
            return bool(vals) and all(
                op == "=" and v is not None and self._is_criterion(v, scope, seen | {key}) for op, v in vals)
        return False


def _short(src: str, limit: int = 48) -> str:
    src = " ".join(src.split())
    return src if len(src) <= limit else src[: limit - 3] + "..."


def _is_method_call(node, name: str) -> bool:
    return (isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == name)


def _strip_data(expr):
    """For the object of `[0]`: (x, numpy) when it is `x.data`, `x.data.cpu()`,
    `x.data.numpy()`, `x.data.cpu().numpy()` or `x.detach().cpu().numpy()`;
    (None, False) otherwise."""
    numpy = False
    if _is_method_call(expr, "numpy"):
        numpy = True
        expr = expr.func.value
    if _is_method_call(expr, "cpu"):
        expr = expr.func.value
    if isinstance(expr, cst.Attribute) and expr.attr.value == "data":
        return expr.value, numpy
    if numpy and _is_method_call(expr, "detach"):
        return expr.func.value, numpy
    return None, False
