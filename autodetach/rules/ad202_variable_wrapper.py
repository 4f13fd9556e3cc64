"""AD202: `Variable(x)` wrappers become `x` (fresh data) or `x.detach()`."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..findings import SAFE
from ..imports import canonical, dotted
from ..rule import Edit, Invalid, Rule, Valid
from ._helpers import (append_kwarg, bracket_safe, is_false, is_true, kwarg, method_call,
                       parenthesize_if_needed, positional)

VARIABLE = "torch.autograd.Variable"

# Torch functions that build a new tensor from data (no graph can come out).
_T = "torch."
FACTORIES = {_T + n for n in (
    "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange",
    "linspace", "logspace", "eye", "tensor", "as_tensor", "from_numpy", "zeros_like",
    "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like",
    "Tensor", "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
    "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
    "cuda.FloatTensor", "cuda.DoubleTensor", "cuda.HalfTensor", "cuda.LongTensor",
    "cuda.IntTensor", "cuda.ByteTensor",
)}
# Factories that take `requires_grad=` and give a floating tensor by default.
GRAD_FACTORIES = {_T + n for n in (
    "zeros", "ones", "empty", "full", "rand", "randn", "eye", "linspace", "logspace",
    "tensor", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like",
)}
# Methods that keep a tensor graph-free: their arguments only give a shape,
# a dtype or a device, never values that could carry a graph.
DATA_METHODS = {
    "cuda", "cpu", "to", "float", "double", "half", "long", "int", "short", "char",
    "byte", "bool", "type", "type_as", "contiguous", "pin_memory", "view", "view_as",
    "reshape", "reshape_as", "unsqueeze", "squeeze", "permute", "t", "transpose",
    "expand", "expand_as", "flatten", "clone", "narrow", "split", "chunk", "unbind",
    "zero_", "normal_", "uniform_", "random_", "bernoulli_",
}
NEW_METHODS = {"new", "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"}
# Methods whose result is fresh when the tensor and every argument are:
# `torch.rand(1, 1).mul(ntokens)` with `ntokens = len(vocab)`.
ARITH_METHODS = {"mul", "div", "add", "sub", "pow", "mul_", "div_", "add_", "sub_", "pow_",
                 "floor", "ceil", "round", "abs", "neg", "exp", "log", "sqrt", "clamp", "fill_"}
# Builtins that return Python numbers: never a graph.
NUMBER_BUILTINS = {"len", "int", "float", "round", "abs", "min", "max"}
DATA_WRAPPERS = {"enumerate", "zip", "iter", "reversed", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm"}
LOADERS = {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}
# Parents in which a bare expression needs no parentheses.
_NO_PARENS = (cst.Arg, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Element,
              cst.DictElement, cst.Expr, cst.Yield, cst.WithItem)


def _numeric(node) -> bool:
    if type(node) in (cst.Integer, cst.Float, cst.Imaginary):
        return True
    return isinstance(node, cst.UnaryOperation) and _numeric(node.expression)


def _as_fresh_input(b) -> tuple:
    """A binding as Freshness reads it: ("value", expr), ("for", iterable)
    or ("unknown", None)."""
    if b.kind in ("for", "comp"):
        return ("for", b.value)
    if b.kind not in ("assign", "augassign", "walrus") or b.path is None:
        return ("unknown", None)
    # `x, y = next(iter(loader))`: each part is as fresh as the whole
    part = b.element()
    return ("value", part if part is not None else b.value)


def _store(ctx, name_node) -> Optional[tuple]:
    """What `x[i] = v` or `x.add_(w)` does to the tensor a read of `x` names:
    ("value", v), ("unknown", None) for an in-place change with values that
    could carry a graph, or None."""
    top = name_node
    parent = ctx.parent(top)
    while isinstance(parent, (cst.Attribute, cst.Subscript)) and parent.value is top:
        top, parent = parent, ctx.parent(parent)
    if isinstance(top, cst.Subscript):
        if isinstance(parent, cst.AssignTarget):
            return ("value", ctx.parent(parent).value)
        if isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is top:
            return ("value", parent.value) if parent.value is not None else ("unknown", None)
        while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
            top, parent = parent, ctx.parent(parent)
        if isinstance(parent, (cst.AssignTarget, cst.For, cst.CompFor)) and parent.target is top:
            return ("unknown", None)  # `x[0], y = ...`: a part of an unpacking
        return None
    if (isinstance(top, cst.Attribute) and isinstance(parent, cst.Call) and parent.func is top
            and isinstance(top.value, (cst.Name, cst.Attribute, cst.Subscript))):
        attr = top.attr.value
        if (attr.endswith("_") and not attr.startswith("_") and attr not in DATA_METHODS
                and not all(_numeric(a.value) for a in parent.args)):
            return ("unknown", None)
    return None


class Freshness:
    """Decides whether an expression is provably a graph-free data tensor."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._cache: dict = {}

    def lookup(self, node: cst.Name):
        """(owner scope, bindings as _as_fresh_input gives them), stores into
        the tensor (`x[i] = v`, `x.add_(w)`) counted as bindings."""
        b = self.ctx.bindings
        owner, binds = b.lookup(node)
        if owner is None:
            return None, []
        key = (id(owner), node.value)
        if key not in self._cache:
            found = [_as_fresh_input(x) for x in binds]
            for read in b.reads_of(owner, node.value):
                store = _store(self.ctx, read)
                if store is not None:
                    found.append(store)
            self._cache[key] = found
        return owner, self._cache[key]

    def name(self, node: cst.Name, visiting: frozenset) -> bool:
        scope, found = self.lookup(node)
        if not found:
            return False
        key = (id(scope), node.value)
        if key in visiting:
            return True  # a cycle (`x = x.cuda()`): fresh if every way in is
        visiting = visiting | {key}
        for kind, value in found:
            if kind == "unknown":
                return False
            if kind == "for" and not self.iterable(value, visiting):
                return False
            if kind == "value" and not self.expr(value, visiting):
                return False
        return True

    def expr(self, node, visiting: frozenset = frozenset()) -> bool:
        imp = self.ctx.imports
        if _numeric(node):
            return True
        if isinstance(node, cst.Name):
            return self.name(node, visiting)
        if isinstance(node, cst.Subscript):
            return self.expr(node.value, visiting)
        if isinstance(node, cst.BinaryOperation):
            return self.expr(node.left, visiting) and self.expr(node.right, visiting)
        if isinstance(node, cst.Call):
            q = _callee(imp, node)
            if q in FACTORIES:
                return True
            if q in ("len", "int", "float"):
                return True  # a Python number, whatever its argument
            if q in NUMBER_BUILTINS and node.args:
                return all(self.expr(a.value, visiting) for a in node.args if not a.star)
            if q == VARIABLE:
                rg = kwarg(node, "requires_grad")
                return rg is None or is_false(rg.value)
            if q == "next" and len(node.args) == 1:
                inner = node.args[0].value
                if isinstance(inner, cst.Call) and _callee(imp, inner) == "iter" and inner.args:
                    inner = inner.args[0].value
                return self.iterable(inner, visiting)
            f = node.func
            if isinstance(f, cst.Attribute):
                if f.attr.value == "detach" and not node.args:
                    return True
                if f.attr.value in DATA_METHODS:
                    return self.expr(f.value, visiting)
                if f.attr.value in NEW_METHODS:
                    return True  # `w.new(2, 3)`: a new tensor, only the dtype comes from `w`
                if f.attr.value in ARITH_METHODS and not any(a.star for a in node.args):
                    return self.expr(f.value, visiting) and all(
                        self.expr(a.value, visiting) for a in node.args)
        return False

    def iterable(self, node, visiting: frozenset = frozenset()) -> bool:
        imp = self.ctx.imports
        if isinstance(node, cst.Call):
            q = _callee(imp, node)
            if q in LOADERS:
                return True
            if q in DATA_WRAPPERS:
                pos = positional(node)
                if q == "enumerate":
                    pos = pos[:1]
                return bool(pos) and all(self.iterable(a.value, visiting) for a in pos)
        if isinstance(node, (cst.Name, cst.Attribute)):
            leaf = node.value if isinstance(node, cst.Name) else node.attr.value
            if "loader" in leaf.lower():
                return True
        if isinstance(node, (cst.List, cst.Tuple)):
            return bool(node.elements) and all(self.expr(e.value, visiting) for e in node.elements)
        if isinstance(node, cst.Name):
            _, found = self.lookup(node)
            if found and all(k == "value" and isinstance(v, cst.Call) and _callee(imp, v) in LOADERS
                             for k, v in found):
                return True
        return self.expr(node, visiting)


def _callee(imp, call: cst.Call) -> Optional[str]:
    """The qualified name of the function called; a bare builtin's own name."""
    q = imp.qualify(call.func)
    if q is None and isinstance(call.func, cst.Name):
        return call.func.value
    return q


def _chain_root(node):
    """The innermost object of a method chain: `torch.zeros(3).cuda()` -> the zeros call."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
            and node.func.attr.value in DATA_METHODS:
        node = node.func.value
    return node


class VariableWrapper(Rule):
    """
    `Variable(x)` wrappers left over from PyTorch 0.3.

    ## What it does
    Finds `Variable(x)` and `Variable(x, requires_grad=...)` calls (other than
    `Variable(x.data)`, which is AD201's, and calls with `volatile=`, which are
    AD204's), and `Variable` imports that nothing uses any more.

    ## Why it matters
    Since PyTorch 0.4 tensors and Variables are one type and `Variable` is a
    deprecated alias. It is not a no-op, though: `Variable(x)` returns a
    *detached* alias of `x`. Deleting the wrapper around a tensor that carries
    a graph reconnects that graph, and the next `backward()` can walk into an
    already-freed graph ("Trying to backward through the graph a second
    time") or train parameters that used to be frozen.

    ## Example
    ```python
    from torch.autograd import Variable

    for x, y in loader:
        x, y = Variable(x), Variable(y)
        ...
    prev = Variable(out)
    w = Variable(torch.randn(3, 4), requires_grad=True)
    ```

    ## Fix
    ```python
    for x, y in loader:
        x, y = x, y
        ...
    prev = out.detach()
    w = torch.randn(3, 4, requires_grad=True)
    ```
    The wrapper is dropped only where `x` is provably a fresh data tensor: a
    torch constructor (`torch.zeros`, `torch.randn`, `torch.tensor`,
    `torch.from_numpy`, `torch.LongTensor(...)`, `w.new(...)`, ...), a number, a batch bound
    by a `for` loop over a `DataLoader` (or an iterable named `*loader*`), a
    `.detach()` result, or `.cuda()`/`.to()`/`.float()`/`.view()`/indexing of
    one of these; a name counts only if every binding of it in its scope is
    such a value. Everything else becomes `x.detach()`.
    `Variable(t, requires_grad=True)` is a new leaf: the flag moves into a
    constructor call that takes it, `.requires_grad_()` is appended to a
    fresh constructor expression, and anything else becomes
    `t.detach().requires_grad_()`. Once no use of `Variable` remains, its
    import is removed (`from torch.autograd import Variable, grad` keeps
    `grad`).

    ## Fix safety
    Safe. `x.detach()` is exactly what `Variable(x)` computes today: a new
    tensor that shares storage with `x`, has no history and does not require
    grad. Plain `x` is used only when `x` provably has no graph and does not
    require grad, so the sole difference is object identity; where the result
    later gets `requires_grad` set, `.detach()` is kept so that `x` itself is
    not changed. The leaf forms give a tensor with the same values that
    requires grad, as before. An import is removed only when no name in the
    file still refers to it.
    """

    code = "AD202"
    name = "variable-wrapper"
    summary = "`Variable(x)` is a detached alias, not a no-op: drop it only for fresh data, else `.detach()`"
    fix_safety = SAFE
    tokens = ("Variable",)

    VALID = [
        Valid("""
            from torch.autograd import Variable
            h = Variable(h.data)
        """, note="`Variable(x.data)` is AD201's"),
        Valid("""
            from torch.autograd import Variable
            x = Variable(x, volatile=True)
        """, note="`volatile=` is AD204's: it goes first"),
        Valid("""
            from mylib import Variable
            y = Variable(x)
        """, note="a `Variable` that is not torch's"),
        Valid("""
            import torch
            y = x.detach()
        """),
        Valid("""
            from torch.autograd import Variable
            __all__ = ["Variable"]
        """, note="a re-export stays"),
    ]
    INVALID = [
        Invalid("""
            import torch
            from torch.autograd import Variable
            x = Variable(torch.randn(4, 3))
        """, """
            import torch
            x = torch.randn(4, 3)
        """, note="fresh constructor: the wrapper goes, and so does the import",
            line=3, column=5, message="is a deprecated wrapper"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            from torch.utils.data import DataLoader
            for i, (x, y) in enumerate(DataLoader(ds, batch_size=4)):
                x, y = Variable(x.cuda()), Variable(y)
        """, """
            import torch
            from torch.utils.data import DataLoader
            for i, (x, y) in enumerate(DataLoader(ds, batch_size=4)):
                x, y = x.cuda(), y
        """, count=2, line=5, column=12, message="is a deprecated wrapper"),
        Invalid("""
            from torch.autograd import Variable
            for data, target in train_loader:
                data, target = Variable(data), Variable(target)
                loss = model(data, target)
        """, """
            for data, target in train_loader:
                loss = model(data, target)
        """, count=2, note="`x = Variable(x)` of a batch is a no-op statement once unwrapped",
            line=3, column=20, message="is a deprecated wrapper"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            out = model(x)
            prev = Variable(out)
        """, """
            import torch
            out = model(x)
            prev = out.detach()
        """, note="`out` carries a graph: dropping the wrapper would reconnect it",
            line=4, column=8, message="returns a detached alias on PyTorch >= 0.4"),
        Invalid("""
            from torch.autograd import Variable, grad
            def f(x):
                return Variable(x).sum()
        """, """
            from torch.autograd import grad
            def f(x):
                return x.detach().sum()
        """, note="a parameter is not provably fresh",
            line=3, column=12, message="returns a detached alias on PyTorch >= 0.4"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            w = Variable(torch.randn(3, 4), requires_grad=True)
            b = Variable(torch.from_numpy(a).float(), requires_grad=True)
            c = Variable(out, requires_grad=True)
        """, """
            import torch
            w = torch.randn(3, 4, requires_grad=True)
            b = torch.from_numpy(a).float().requires_grad_()
            c = out.detach().requires_grad_()
        """, count=3, line=3, column=5, message="makes a new leaf"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            x = torch.zeros(3)
            x = x.cuda()
            y = Variable(x / 255.0).sum()
        """, """
            import torch
            x = torch.zeros(3)
            x = x.cuda()
            y = (x / 255.0).sum()
        """, line=5, column=5, message="is a deprecated wrapper"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            x = torch.zeros(3)
            x = model(x)
            y = Variable(x)
        """, """
            import torch
            x = torch.zeros(3)
            x = model(x)
            y = x.detach()
        """, note="one binding of `x` carries a graph",
            line=5, column=5, message="returns a detached alias on PyTorch >= 0.4"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            x = torch.zeros(3)
            v = Variable(x)
            v.requires_grad = True
        """, """
            import torch
            x = torch.zeros(3)
            v = x.detach()
            v.requires_grad = True
        """, note="the result gets requires_grad: keep it a separate tensor",
            line=4, column=5, message="returns a detached alias on PyTorch >= 0.4"),
        Invalid("""
            import torch
            xs = [torch.autograd.Variable(t) for t in torch.randn(3, 2)]
        """, """
            import torch
            xs = [t for t in torch.randn(3, 2)]
        """, line=2, column=7, message="is a deprecated wrapper"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            print(torch.ones(2))
        """, """
            import torch
            print(torch.ones(2))
        """, note="an unused import left behind by earlier fixes",
            line=2, column=28, message="(torch.autograd.Variable) is imported but no longer used"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            ntokens = len(vocab)
            start = Variable(torch.rand(1, 1).mul(ntokens).long())
        """, """
            import torch
            ntokens = len(vocab)
            start = torch.rand(1, 1).mul(ntokens).long()
        """, note="arithmetic of a fresh tensor with a Python number is fresh: no .detach()",
            line=4, column=9, message="is a deprecated wrapper"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            pe = torch.zeros(10, 1, 4)
            def encode(emb):
                return emb + Variable(pe[:emb.size(0)]
                    .expand_as(emb), requires_grad=False)
        """, """
            import torch
            pe = torch.zeros(10, 1, 4)
            def encode(emb):
                return emb + (pe[:emb.size(0)]
                    .expand_as(emb))
        """, note="an argument continued on the next line stays in brackets",
            line=5, column=18, message="is a deprecated wrapper"),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._fresh: Optional[Freshness] = None
        self._calls = 0

    @property
    def fresh(self) -> Freshness:
        if self._fresh is None:
            self._fresh = Freshness(self.ctx)
        return self._fresh

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.imports.is_(node.func, VARIABLE):
            return
        self._calls += 1
        pos = positional(node)
        if len(pos) != 1:
            return
        arg = pos[0].value
        if isinstance(arg, cst.Attribute) and arg.attr.value == "data":
            return  # AD201
        leaf_flag = None
        for a in node.args:
            if a.keyword is None:
                continue
            if a.keyword.value != "requires_grad":
                return  # volatile= (AD204) or something we do not know
            leaf_flag = a.value
        if leaf_flag is not None and is_false(leaf_flag):
            leaf_flag = None
        src = self.ctx.code(arg)
        if leaf_flag is None:
            self._plain(node, arg, src)
        else:
            self._leaf(node, arg, src, leaf_flag)

    # --- the call forms ----------------------------------------------------
    def _needs_parens(self, node: cst.Call) -> bool:
        return not isinstance(self.ctx.parent(node), _NO_PARENS)

    def _plain(self, node, arg, src) -> None:
        if self.fresh.expr(arg) and not self._gets_requires_grad(node):
            stmt = self._self_assignment(node)
            if stmt is not None:
                self.report(
                    node,
                    f"`Variable({src})` is a deprecated wrapper; `{src}` is a fresh data tensor "
                    f"with no graph, so the assignment does nothing without it",
                    edits=[Edit(stmt, cst.RemoveFromParent())],
                    fix_title="Remove the `Variable` wrapper")
                return
            new = parenthesize_if_needed(arg) if self._needs_parens(node) else arg
            self.report(
                node,
                f"`Variable({src})` is a deprecated wrapper; `{src}` is a fresh data tensor "
                f"with no graph, so use it directly",
                replacement=bracket_safe(self.ctx, node, new), fix_title="Remove the `Variable` wrapper")
            return
        new = method_call(parenthesize_if_needed(arg), "detach")
        self.report(
            node,
            f"`Variable({src})` returns a detached alias on PyTorch >= 0.4, and `{src}` may carry "
            f"a graph: dropping the wrapper would reconnect it; use `{_shown(new)}`",
            replacement=bracket_safe(self.ctx, node, new), fix_title="Replace with `.detach()`")

    def _leaf(self, node, arg, src, flag) -> None:
        imp = self.ctx.imports
        root = _chain_root(arg)
        flag_args = [] if is_true(flag) else [cst.Arg(flag)]
        if (is_true(flag) and isinstance(arg, cst.Call) and imp.qualify(arg.func) in GRAD_FACTORIES
                and kwarg(arg, "requires_grad") is None and not any(a.star for a in arg.args)):
            new = append_kwarg(arg, "requires_grad", cst.Name("True"))
            how = "pass `requires_grad=True` to the constructor"
        elif isinstance(root, cst.Call) and (imp.qualify(root.func) in FACTORIES or (
                isinstance(root.func, cst.Attribute) and root.func.attr.value in NEW_METHODS)):
            new = cst.Call(func=cst.Attribute(parenthesize_if_needed(arg), cst.Name("requires_grad_")),
                           args=flag_args)
            how = f"use `{_shown(new)}`"
        else:
            new = cst.Call(func=cst.Attribute(method_call(parenthesize_if_needed(arg), "detach"),
                                              cst.Name("requires_grad_")), args=flag_args)
            how = f"use `{_shown(new)}`"
        self.report(
            node,
            f"`Variable({src}, requires_grad=...)` makes a new leaf; {how}",
            replacement=bracket_safe(self.ctx, node, new), fix_title="Make the leaf without `Variable`")

    def _self_assignment(self, node: cst.Call):
        """The statement line `x = Variable(x)` / `x, y = Variable(x), Variable(y)`
        (every wrapper fresh) when removing it whole is the tidy fix."""
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.Element):
            parent = self.ctx.parent(self.ctx.parent(parent))
        if not isinstance(parent, cst.Assign) or len(parent.targets) != 1:
            return None
        target, value = parent.targets[0].target, parent.value
        if isinstance(target, cst.Name) and value is node:
            pairs = [(target, value)]
        elif (isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple)
              and len(target.elements) == len(value.elements)):
            pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)]
        else:
            return None
        for t, v in pairs:
            if isinstance(t, cst.Name) and isinstance(v, cst.Name) and t.value == v.value:
                continue  # a part unwrapped on an earlier pass
            if not (isinstance(t, cst.Name) and isinstance(v, cst.Call) and len(v.args) == 1
                    and v.args[0].keyword is None and not v.args[0].star
                    and isinstance(v.args[0].value, cst.Name) and v.args[0].value.value == t.value
                    and self.ctx.imports.is_(v.func, VARIABLE)
                    and self.fresh.expr(v.args[0].value)):
                return None
        stmt = self.ctx.parent(parent)
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        if any(line.comment is not None for line in stmt.leading_lines):
            return None
        block = self.ctx.parent(stmt)
        if not isinstance(block, (cst.Module, cst.IndentedBlock)) or len(block.body) == 1:
            return None
        scope = self.ctx.parent(block)
        if isinstance(scope, cst.ClassDef):
            return None  # `x = x` in a class body copies a name: not a no-op
        return stmt

    def _gets_requires_grad(self, node: cst.Call) -> bool:
        """Is the result bound to a name whose requires_grad is set later?"""
        parent = self.ctx.parent(node)
        if not isinstance(parent, cst.Assign):
            return False
        names = [t.target.value for t in parent.targets if isinstance(t.target, cst.Name)]
        if len(names) != len(parent.targets):
            return True  # unpacking or attributes: keep it simple, keep a copy
        text = self.ctx.text
        return any(f"{n}.requires_grad" in text for n in names)

    # --- the import -----------------------------------------------------------
    def leave_Module(self, node: cst.Module) -> None:
        if self.reports or self._calls:
            return  # uses remain in this pass; the import goes on a later one
        for stmt, imp, alias in self._variable_imports(node):
            local = (alias.asname.name if alias.asname else alias.name).value
            if self.ctx.bindings.reads_named(local):
                continue
            if "__all__" in self.ctx.text and (f'"{local}"' in self.ctx.text or f"'{local}'" in self.ctx.text):
                continue
            edit = self._removal(stmt, imp, alias)
            if edit is None:
                continue
            rep = self.report(
                alias,
                f"`{local}` (torch.autograd.Variable) is imported but no longer used",
                edits=[edit], fix_title="Remove the unused import")
            rep.removes_import = local

    def _variable_imports(self, module: cst.Module):
        out = []

        def scan(body) -> None:
            for stmt in body:
                if isinstance(stmt, cst.SimpleStatementLine):
                    for small in stmt.body:
                        if isinstance(small, cst.ImportFrom) and not small.relative \
                                and not isinstance(small.names, cst.ImportStar) and small.module:
                            mod = _dotted(small.module)
                            for alias in small.names:
                                full = canonical(f"{mod}.{_dotted(alias.name)}")
                                if full == VARIABLE:
                                    out.append((stmt, small, alias))
                elif isinstance(stmt, (cst.If, cst.Try)):
                    scan(stmt.body.body)

        scan(module.body)
        return out

    def _removal(self, stmt, imp: cst.ImportFrom, alias) -> Optional[Edit]:
        names = [a for a in imp.names if a is not alias]
        if names:
            if imp.names[-1] is alias:
                names[-1] = names[-1].with_changes(comma=alias.comma)
            return Edit(imp, imp.with_changes(names=names))
        if len(stmt.body) > 1:
            return Edit(imp, cst.RemoveFromParent())
        if any(line.comment is not None for line in stmt.leading_lines):
            return None  # a comment above it: leave the line to a human
        parent = self.ctx.parent(stmt)
        if not isinstance(parent, cst.Module) and len(parent.body) == 1:
            return None  # the only statement of its block
        return Edit(stmt, cst.RemoveFromParent())


def _dotted(node) -> str:
    return dotted(node) or ""


def _shown(node) -> str:
    """The code a fix writes, as the message quotes it (parentheses included)."""
    return cst.Module(body=[]).code_for_node(node)
