"""AD206: `type(x) == Variable` / `isinstance(x, Variable)` become `isinstance(x, torch.Tensor)`."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..findings import SAFE
from ..rule import Edit, Invalid, Rule, Valid
from ._helpers import top_level_anchor, insert_before, positional

VARIABLE = "torch.autograd.Variable"


class VariableTypeCheck(Rule):
    """
    Type checks against `Variable`, as in the old `repackage_hidden` helper.

    ## What it does
    Finds `type(x) == Variable`, `type(x) is Variable` (and their negations)
    and `isinstance(x, Variable)`, also inside a tuple of types.

    ## Why it matters
    Since PyTorch 0.4 `Variable(x)` returns a plain `torch.Tensor`, so
    `type(x) == Variable` is always false. The classic language-model helper

    ```python
    def repackage_hidden(h):
        if type(h) == Variable:
            return Variable(h.data)
        return tuple(repackage_hidden(v) for v in h)
    ```

    therefore never takes its first branch: it iterates over the tensor,
    then over its rows, down to 0-dim tensors, and fails ("iteration over a
    0-d tensor") or recurses forever. `isinstance(x, Variable)` still works
    through a compatibility hook, but names a deprecated class.

    ## Example
    ```python
    if type(h) == Variable:
        ...
    ok = isinstance(x, Variable)
    ```

    ## Fix
    ```python
    if isinstance(h, torch.Tensor):
        ...
    ok = isinstance(x, torch.Tensor)
    ```
    The file's alias of `torch` is used (`th.Tensor` after `import torch as
    th`); without one, `import torch` is added before the first statement.

    ## Fix safety
    Safe. `isinstance(x, Variable)` already means `isinstance(x,
    torch.Tensor)` today, so that rewrite changes nothing. The `type(...)`
    comparisons are always false on PyTorch >= 0.4; the rewrite restores
    what they meant on 0.3, where every tensor in autograd was a `Variable`.
    One 0.3 nuance is not kept: `nn.Parameter` was a subclass, so
    `type(p) == Variable` was false for parameters and `isinstance` is true;
    code that told parameters apart from other Variables this way should be
    reviewed (the message says so).
    """

    code = "AD206"
    name = "variable-type-check"
    summary = "`type(x) == Variable` is always false today; use `isinstance(x, torch.Tensor)`"
    fix_safety = SAFE
    tokens = ("Variable",)

    VALID = [
        Valid("""
            import torch
            if isinstance(h, torch.Tensor):
                pass
        """),
        Valid("""
            from mylib import Variable
            ok = type(x) == Variable
        """, note="a `Variable` that is not torch's"),
        Valid("""
            from torch.autograd import Variable
            ok = type(x) == type(y)
        """),
        Valid("""
            from torch.autograd import Variable
            ok = type(x) < Variable
        """, note="not an identity or equality test"),
    ]
    INVALID = [
        Invalid("""
            import torch
            from torch.autograd import Variable

            def repackage_hidden(h):
                if type(h) == Variable:
                    return Variable(h.data)
                return tuple(repackage_hidden(v) for v in h)
        """, """
            import torch
            from torch.autograd import Variable

            def repackage_hidden(h):
                if isinstance(h, torch.Tensor):
                    return Variable(h.data)
                return tuple(repackage_hidden(v) for v in h)
        """, line=5, column=8, message="is always false on PyTorch >= 0.4"),
        Invalid("""
            from torch.autograd import Variable
            ok = type(x) is not Variable
        """, """
            import torch
            from torch.autograd import Variable
            ok = not isinstance(x, torch.Tensor)
        """, note="no `import torch` in the file: one is added",
            line=2, column=6, message="is always true on PyTorch >= 0.4"),
        Invalid("""
            import torch as th
            ok = isinstance(x, th.autograd.Variable)
        """, """
            import torch as th
            ok = isinstance(x, th.Tensor)
        """, line=2, column=20, message="tests against the deprecated `Variable` class"),
        Invalid("""
            \"\"\"Helpers.\"\"\"
            from __future__ import annotations
            from torch.autograd import Variable as V

            def walk(h):
                return isinstance(h, (V, list))
        """, """
            \"\"\"Helpers.\"\"\"
            from __future__ import annotations
            import torch
            from torch.autograd import Variable as V

            def walk(h):
                return isinstance(h, (torch.Tensor, list))
        """, line=6, column=27, message="tests against the deprecated `Variable` class"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            ok = Variable != type(h)
        """, """
            import torch
            from torch.autograd import Variable
            ok = not isinstance(h, torch.Tensor)
        """, line=3, column=6, message="is always true on PyTorch >= 0.4"),
        Invalid("""
            import torch
            from torch.autograd import Variable
            a = type(x) == Variable and type(y) == Variable
        """, """
            import torch
            from torch.autograd import Variable
            a = isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor)
        """, count=2, line=3, column=5, message="is always false on PyTorch >= 0.4"),
    ]

    # --- matching -------------------------------------------------------
    def _is_variable(self, node) -> bool:
        return self.ctx.imports.is_(node, VARIABLE)

    def _type_arg(self, node) -> Optional[cst.BaseExpression]:
        """`x` when node is `type(x)` with the builtin `type`."""
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "type"
                and "type" not in self.ctx.imports.aliases and len(node.args) == 1
                and node.args[0].keyword is None and not node.args[0].star):
            return node.args[0].value
        return None

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        op = node.comparisons[0].operator
        right = node.comparisons[0].comparator
        if isinstance(op, (cst.Equal, cst.Is)):
            negate = False
        elif isinstance(op, (cst.NotEqual, cst.IsNot)):
            negate = True
        else:
            return
        subject = None
        if self._is_variable(right):
            subject = self._type_arg(node.left)
        elif self._is_variable(node.left):
            subject = self._type_arg(right)
        if subject is None:
            return
        torch = self._torch()
        new: cst.BaseExpression = self._isinstance(subject, cst.Attribute(cst.Name(torch[0]), cst.Name("Tensor")))
        if negate:
            new = cst.UnaryOperation(operator=cst.Not(), expression=new)
        new = new.with_changes(lpar=node.lpar, rpar=node.rpar)
        src = self.ctx.code(subject)
        self._emit(
            node, new, torch,
            f"`{self.ctx.code(node)}` is always {'true' if negate else 'false'} on PyTorch >= 0.4, "
            f"where `Variable` returns plain tensors; use `{'not ' if negate else ''}isinstance({src}, "
            f"{torch[0]}.Tensor)` (note: it is also true for `nn.Parameter`)")

    def visit_Call(self, node: cst.Call) -> None:
        if not (type(node.func) is cst.Name and node.func.value == "isinstance"
                and "isinstance" not in self.ctx.imports.aliases):
            return
        pos = positional(node)
        if len(pos) != 2 or len(node.args) != 2:
            return
        types = pos[1].value
        if self._is_variable(types):
            target = types
        elif isinstance(types, cst.Tuple):
            hits = [e.value for e in types.elements if self._is_variable(e.value)]
            if len(hits) != 1:
                return
            target = hits[0]
        else:
            return
        torch = self._torch()
        self._emit(
            target, cst.Attribute(cst.Name(torch[0]), cst.Name("Tensor")), torch,
            f"`{self.ctx.code(node)}` tests against the deprecated `Variable` class; "
            f"use `{torch[0]}.Tensor`")

    # --- fixing -----------------------------------------------------------
    def _torch(self):
        """(local name of torch, whether `import torch` must be added)."""
        alias = self.ctx.imports.module_alias("torch")
        return (alias, False) if alias else ("torch", True)

    @staticmethod
    def _isinstance(subject, cls) -> cst.Call:
        return cst.Call(func=cst.Name("isinstance"), args=[
            cst.Arg(subject, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(cls)])

    def _emit(self, node, new, torch, message) -> None:
        edits = [Edit(node, new)]
        if torch[1]:
            anchor = top_level_anchor(self.ctx.module)
            if anchor is None:
                self.report(node, message)
                return
            edits.append(Edit(anchor, insert_before(anchor, "import torch\n")))
            message += " (and `import torch`)"
        self.report(node, message, edits=edits, fix_title="Use `isinstance(..., torch.Tensor)`")
