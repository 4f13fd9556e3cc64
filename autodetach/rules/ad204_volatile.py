"""AD204: `Variable(x, volatile=True)` becomes inference under `torch.no_grad()`."""
from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from ..analysis.walk import visit
from ..findings import SAFE
from ..imports import dotted
from ..rule import Edit, Invalid, Rule, Valid
from ._helpers import drop_kwarg, top_level_anchor, insert_before, is_false, is_true, kwarg

VARIABLE = "torch.autograd.Variable"
NO_GRAD = {"torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad",
           "torch.inference_mode", "torch.autograd.grad_mode.inference_mode"}
EVAL_WORDS = {"eval", "evaluate", "evaluation", "test", "testing", "validate", "validation", "val",
              "valid", "predict", "prediction", "infer", "inference", "sample", "sampling",
              "generate", "decode", "score"}
TRAIN_WORDS = {"train", "training", "fit", "step", "update", "optimize", "finetune"}
_BLOCKS = (cst.IndentedBlock, cst.Module)


def _blank_lines_bare(stmt):
    """A blank line above a statement moved into the new block stays empty:
    libcst would indent it to the block's depth (a whitespace-only line)."""
    lines = getattr(stmt, "leading_lines", ())
    if not any(ln.indent and ln.comment is None for ln in lines):
        return stmt
    return stmt.with_changes(leading_lines=[
        ln.with_changes(indent=False, whitespace=cst.SimpleWhitespace(""))
        if ln.comment is None else ln for ln in lines])


_LOOPS = (cst.For, cst.While)
_MUTATORS = {"append", "extend", "insert", "add", "update", "add_", "copy_"}


def _refs(node, skip_graph_free: bool) -> set:
    """Names and dotted names (`self.h`) an expression or statement reads."""
    out: set = set()

    class V(cst.CSTVisitor):
        def visit_Attribute(self, n: cst.Attribute) -> bool:
            if skip_graph_free and n.attr.value == "data":
                return False  # `x.data` is a plain tensor: volatility stops there
            chain = dotted(n)
            if chain:
                parts = chain.split(".")
                if skip_graph_free and "data" in parts[1:]:
                    return False
                out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
                return False
            return True

        def visit_Call(self, n: cst.Call) -> bool:
            f = n.func
            if skip_graph_free and isinstance(f, cst.Attribute) and f.attr.value == "detach":
                return False
            return True

        def visit_Arg(self, n: cst.Arg) -> bool:
            visit(n.value, self)
            return False

        def visit_Name(self, n: cst.Name) -> None:
            out.add(n.value)

    visit(node, V())
    return out


def _targets(node) -> set:
    """Names a statement binds or mutates (anywhere inside it)."""
    out: set = set()

    def add(t) -> None:
        if isinstance(t, (cst.Tuple, cst.List)):
            for e in t.elements:
                add(e.value)
        elif isinstance(t, cst.StarredElement):
            add(t.value)
        elif isinstance(t, cst.Subscript):
            add(t.value)
        else:
            d = dotted(t)
            if d:
                out.add(d)

    class V(cst.CSTVisitor):
        def visit_Assign(self, n) -> None:
            for t in n.targets:
                add(t.target)

        def visit_AugAssign(self, n) -> None:
            add(n.target)

        def visit_AnnAssign(self, n) -> None:
            add(n.target)

        def visit_For(self, n) -> None:
            add(n.target)

        def visit_NamedExpr(self, n) -> None:
            add(n.target)

        def visit_Call(self, n) -> None:
            f = n.func
            if isinstance(f, cst.Attribute) and f.attr.value in _MUTATORS and n.args:
                add(f.value)

    visit(node, V())
    return out


class _DropVolatile(cst.CSTTransformer):
    def __init__(self, imports) -> None:
        super().__init__()
        self.imports = imports

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if self.imports.is_(original.func, VARIABLE) and kwarg(original, "volatile") is not None:
            return drop_kwarg(updated, "volatile")
        return updated


class Volatile(Rule):
    """
    `volatile=True`, the 0.3 way to run inference without a graph.

    ## What it does
    Finds `Variable(x, volatile=...)`.

    ## Why it matters
    `volatile` was removed in PyTorch 0.4: today it is ignored with a
    warning, so "inference" code builds a full autograd graph for every
    batch, holding every activation in memory. The replacement is
    `torch.no_grad()`. In 0.3 a volatile input made everything computed from
    it volatile, until someone re-wrapped `.data`; some old code used that on
    *training* inputs to freeze a feature extractor. Wrapping such a caller
    in `no_grad` would stop the rest of the network from training, so only
    evaluation code is rewritten.

    ## Example
    ```python
    def evaluate(model, loader):
        for x, y in loader:
            x = Variable(x, volatile=True)
            correct += (model(x).max(1)[1] == y).sum().item()
    ```

    ## Fix
    ```python
    def evaluate(model, loader):
        for x, y in loader:
            with torch.no_grad():
                x = Variable(x)
                correct += (model(x).max(1)[1] == y).sum().item()
    ```
    The `with` covers the statement that makes the volatile value and every
    following statement of the same block that uses it, or something
    computed from it (values taken through `.data` or `.detach()` do not
    count, as in 0.3): inside an evaluation function or loop that is the
    whole body. The remaining `Variable(x)` is AD202's. Inside `no_grad`
    (or `inference_mode`, or a function decorated with one) the argument is
    simply dropped; `volatile=False` is always dropped.

    ## Fix safety
    Safe where it is applied: only when no `backward()`,
    `torch.autograd.grad`, optimizer `step()` or `zero_grad()` can run after
    the volatile value is made (later in the same function, or anywhere in a
    loop around it). Then nothing under the new `no_grad` feeds a backward
    pass, and everything computed from the volatile input was graph-free in
    0.3 as well. Where a backward is reachable (a frozen backbone inside a
    training loop) the finding is reported without a fix: put only the
    frozen computation under `torch.no_grad()` by hand. A computed
    `volatile=flag` is reported without a fix too.
    """

    code = "AD204"
    name = "volatile-to-no-grad"
    summary = "`volatile=True` is ignored since 0.4; run the inference under `torch.no_grad()`"
    fix_safety = SAFE
    tokens = ("volatile",)

    VALID = [
        Valid("""
            import torch
            from torch.autograd import Variable
            with torch.no_grad():
                y = model(x)
        """),
        Valid("""
            from mylib import Variable
            x = Variable(x, volatile=True)
        """, note="a `Variable` that is not torch's"),
        Valid("""
            import torch
            from torch.autograd import Variable
            t = Variable(x, requires_grad=True)
        """),
    ]
    INVALID = [
        Invalid("""
            import torch
            x = torch.autograd.Variable(torch.rand(1, 1), volatile=True)

            out = model(x)
            print(out)
        """, """
            import torch
            with torch.no_grad():
                x = torch.autograd.Variable(torch.rand(1, 1))

                out = model(x)
                print(out)
        """, note="a blank line stays empty, not indented whitespace",
            line=2, column=5, message="is ignored since PyTorch 0.4"),
        Invalid("""
            import torch
            from torch.autograd import Variable

            def evaluate(model, loader):
                model.eval()
                correct = 0
                for x, y in loader:
                    x = Variable(x, volatile=True)
                    out = model(x)
                    correct += (out.data.max(1)[1] == y).sum()
                return correct
        """, """
            import torch
            from torch.autograd import Variable

            def evaluate(model, loader):
                model.eval()
                correct = 0
                for x, y in loader:
                    with torch.no_grad():
                        x = Variable(x)
                        out = model(x)
                        correct += (out.data.max(1)[1] == y).sum()
                return correct
        """, line=8, column=13, message="is ignored since PyTorch 0.4"),
        Invalid("""
            from torch.autograd import Variable

            def predict(net, batch):
                # inference only
                v = Variable(batch, volatile=True)
                return net(v).argmax(1)
        """, """
            import torch
            from torch.autograd import Variable

            def predict(net, batch):
                # inference only
                with torch.no_grad():
                    v = Variable(batch)
                    return net(v).argmax(1)
        """, note="no `import torch`: one is added", line=5, column=9, message="is ignored since PyTorch 0.4"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            for x, y in loader:
                x = Variable(x, volatile=True)
                feats = backbone(x)
                out = head(Variable(feats.data))
                loss = crit(out, y)
                loss.backward()
        """, None, note="a frozen backbone in a training loop: reported, not fixed",
            line=4, column=9, message="is ignored since PyTorch 0.4"),
        Invalid("""
            import torch
            from torch.autograd import Variable

            def run(model, x):
                v = Variable(x, volatile=True)
                f = model.backbone(v)
                return model.head(Variable(f.data))
        """, None, note="re-wrapping `.data` of a volatile result: training on a frozen part",
            line=5, column=9, message="is ignored since PyTorch 0.4"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            with torch.no_grad():
                y = model(Variable(x, volatile=True))
        """, """
            import torch
            from torch.autograd import Variable
            with torch.no_grad():
                y = model(Variable(x))
        """, note="already under no_grad: only the argument goes",
            line=4, column=15, message="is ignored since PyTorch 0.4"),
        Invalid("""
            import torch as th
            from torch.autograd import Variable
            for step in range(3):
                loss = model(inp).sum()
                loss.backward()
            model.eval()
            a = Variable(xa, volatile=True)
            b = Variable(xb, volatile=True)
            print(model(a).sum(), model(b).sum())
            print("done")
        """, """
            import torch as th
            from torch.autograd import Variable
            for step in range(3):
                loss = model(inp).sum()
                loss.backward()
            model.eval()
            with th.no_grad():
                a = Variable(xa)
                b = Variable(xb)
                print(model(a).sum(), model(b).sum())
            print("done")
        """, count=2, note="the backward is before, outside any shared loop",
            line=7, column=5, message="is ignored since PyTorch 0.4"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            x = Variable(torch.ones(2), volatile=False)
        """, """
            import torch
            from torch.autograd import Variable
            x = Variable(torch.ones(2))
        """, line=3, column=5, message="does nothing since PyTorch 0.4"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            x = Variable(torch.ones(2), volatile=not training)
        """, None, note="a computed flag", line=3, column=5, message="is ignored since PyTorch 0.4"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        arg = kwarg(node, "volatile")
        if arg is None or not self.ctx.imports.is_(node.func, VARIABLE):
            return
        src = self.ctx.code(node)
        if is_false(arg.value):
            self.report(node, f"`volatile=False` in `{src}` does nothing since PyTorch 0.4; drop it",
                        replacement=drop_kwarg(node, "volatile"), fix_title="Drop `volatile=False`")
            return
        if not is_true(arg.value):
            self.report(node, f"`volatile=` in `{src}` is ignored since PyTorch 0.4; use "
                              f"`torch.no_grad()` where the flag is true (a computed flag: not fixed)")
            return
        if self._under_no_grad(node):
            self.report(node, f"`volatile=True` in `{src}` is ignored since PyTorch 0.4, and this "
                              f"code already runs under no_grad; drop it",
                        replacement=drop_kwarg(node, "volatile"), fix_title="Drop `volatile=True`")
            return
        backward = self._reachable_backward(node)
        if backward is not None:
            self._training(node, src, f"`{self.ctx.code(backward)}` can run after it",
                           [(backward, "a backward pass reachable from the volatile value")])
            return
        func = self._function(node)
        if isinstance(func, cst.FunctionDef):
            words = _words(func.name.value)
            if words & TRAIN_WORDS and not words & EVAL_WORDS:
                self._training(node, src, f"it is in `{func.name.value}`, a training function", [])
                return
        self._wrap(node, src)

    def _training(self, node, src, why, related) -> None:
        self.report(
            node,
            f"`volatile=True` in `{src}` is ignored since PyTorch 0.4, so a graph is built here; "
            f"but {why} (training context, perhaps a frozen feature extractor), so wrapping this "
            f"code in `torch.no_grad()` could stop training: put only the frozen computation under "
            f"`torch.no_grad()` by hand",
            related=related)

    # --- context ----------------------------------------------------------
    def _ancestors(self, node):
        cur = self.ctx.parent(node)
        while cur is not None:
            yield cur
            cur = self.ctx.parent(cur)

    def _is_no_grad(self, expr) -> bool:
        imp = self.ctx.imports
        if isinstance(expr, cst.Call):
            if imp.is_(expr.func, *NO_GRAD):
                return True
            if imp.is_(expr.func, "torch.set_grad_enabled", "torch.autograd.set_grad_enabled"):
                return bool(expr.args) and is_false(expr.args[0].value)
            return False
        return imp.is_(expr, *NO_GRAD)

    def _under_no_grad(self, node) -> bool:
        for anc in self._ancestors(node):
            if isinstance(anc, cst.With) and any(self._is_no_grad(i.item) for i in anc.items):
                return True
            if isinstance(anc, cst.FunctionDef):
                return any(self._is_no_grad(d.decorator) for d in anc.decorators)
        return False

    def _function(self, node):
        """The def (or the module) whose run runs `node`: lambdas, classes and
        comprehensions run with it."""
        b = self.ctx.bindings
        return b.code_block(b.scope_of(node)).node

    def _reachable_backward(self, node) -> Optional[cst.CSTNode]:
        """A backward-like call that can run after `node` in its function."""
        func = self._function(node)
        loops = []
        for anc in self._ancestors(node):
            if anc is func:
                break
            if isinstance(anc, _LOOPS):
                loops.append(anc)
        start = self.ctx.positions[node].start
        here = (start.line, start.column)
        finder = _Backward(self.ctx.imports)
        visit(func.body if isinstance(func, cst.FunctionDef) else func, finder)
        for call in finder.found:
            pos = self.ctx.positions[call].start
            if (pos.line, pos.column) > here:
                return call
            if loops and any(self._inside(call, loop) for loop in loops):
                return call
        return None

    def _inside(self, node, container) -> bool:
        return any(anc is container for anc in self._ancestors(node))

    def _eval_hint(self, node) -> str:
        func = self._function(node)
        if isinstance(func, cst.FunctionDef):
            if _words(func.name.value) & EVAL_WORDS:
                return f"in `{func.name.value}`, an evaluation function"
        return "no backward pass can follow it"

    # --- fix ----------------------------------------------------------------
    def _statement(self, node):
        """(block, index) of the statement that contains `node`."""
        child = node
        for anc in self._ancestors(node):
            if isinstance(anc, _BLOCKS):
                return anc, list(anc.body).index(child)
            if isinstance(anc, cst.SimpleStatementSuite):
                return None, None
            child = anc
        return None, None

    def _wrap(self, node, src) -> None:
        hint = self._eval_hint(node)
        message = (f"`volatile=True` in `{src}` is ignored since PyTorch 0.4, so this inference "
                   f"builds a graph ({hint}); run it under `torch.no_grad()`")
        block, i = self._statement(node)
        if block is None:
            self.report(node, message)
            return
        body = list(block.body)
        end, tainted = self._range_end(body, i)
        rewrap = self._rewrap(body[i:end + 1], tainted)
        func = self._function(node)
        if rewrap is not None and not (isinstance(func, cst.FunctionDef) and _words(func.name.value) & EVAL_WORDS):
            self._training(node, src, f"`{self.ctx.code(rewrap)}` re-wraps a value computed from it, "
                                      f"the 0.3 way to train on top of a frozen part",
                           [(rewrap, "re-wrapped here")])
            return
        torch = self.ctx.imports.module_alias("torch")
        edits = []
        if torch is None:
            anchor = top_level_anchor(self.ctx.module)
            if anchor is None or (block is self.ctx.module and anchor in body[i:end + 1]):
                self.report(node, message)
                return
            edits.append(Edit(anchor, insert_before(anchor, "import torch\n")))
            torch = "torch"
        drop = _DropVolatile(self.ctx.imports)
        stmts = [_blank_lines_bare(s.visit(drop)) for s in body[i:end + 1]]
        lead = stmts[0].leading_lines
        stmts[0] = stmts[0].with_changes(leading_lines=())
        with_node = cst.With(
            items=[cst.WithItem(cst.parse_expression(f"{torch}.no_grad()"))],
            body=cst.IndentedBlock(body=stmts),
            leading_lines=lead,
        )
        edits.insert(0, Edit(body[i], with_node))
        edits[1:1] = [Edit(s, cst.RemoveFromParent()) for s in body[i + 1:end + 1]]
        self.report(node, message, edits=edits, fix_title="Run under `torch.no_grad()`")

    def _range_end(self, body: list, i: int) -> int:
        """The last statement after body[i] that uses what body[i] made volatile."""
        tainted = _targets(body[i])
        end = i
        for j in range(i + 1, len(body)):
            stmt = body[j]
            # More volatile calls in the same block join this range.
            if _has_volatile(stmt, self.ctx.imports):
                tainted |= _targets(stmt)
                end = j
                continue
            if _refs(stmt, False) & tainted:
                end = j
                tainted |= _targets(stmt)
        return end, tainted

    def _rewrap(self, stmts, tainted):
        """A `Variable(t.data)` of a volatile-derived `t` among `stmts`."""
        imports = self.ctx.imports
        found = []

        class V(cst.CSTVisitor):
            def visit_Call(self, n: cst.Call) -> None:
                if imports.is_(n.func, VARIABLE) and n.args:
                    a = n.args[0].value
                    if isinstance(a, cst.Attribute) and a.attr.value == "data" and _refs(a.value, False) & tainted:
                        found.append(n)

        for st in stmts:
            visit(st, V())
        return found[0] if found else None


def _words(name: str) -> set:
    return set(re.split(r"[_\W]+", re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()))


def _has_volatile(stmt, imports) -> bool:
    found = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            a = kwarg(n, "volatile")
            if a is not None and is_true(a.value) and imports.is_(n.func, VARIABLE):
                found.append(n)

    visit(stmt, V())
    return bool(found)


class _Backward(cst.CSTVisitor):
    """Calls that run a backward pass or an optimizer step."""

    def __init__(self, imports) -> None:
        super().__init__()
        self.imports = imports
        self.found: list = []

    def visit_FunctionDef(self, node) -> bool:
        return False  # a nested function runs only when called

    def visit_Call(self, node: cst.Call) -> None:
        f = node.func
        if self.imports.is_(f, "torch.autograd.backward", "torch.autograd.grad"):
            self.found.append(node)
        elif isinstance(f, cst.Attribute) and f.attr.value in ("backward", "zero_grad"):
            self.found.append(node)
        elif isinstance(f, cst.Attribute) and f.attr.value == "step" and "optim" in (dotted(f.value) or "").lower():
            self.found.append(node)
        elif isinstance(f, cst.Attribute) and f.attr.value == "step" and not node.args:
            self.found.append(node)
