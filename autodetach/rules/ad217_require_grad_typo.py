"""AD217: misspelt `requires_grad` (`x.require_grad = False` does nothing)."""
from __future__ import annotations

import libcst as cst

from ..analysis.walk import visit
from ..findings import UNSAFE
from ..rule import Invalid, Rule, Valid

TYPOS = ("require_grad", "required_grad", "requires_grads", "require_grads", "requieres_grad",
         "requries_grad", "reqiures_grad", "requires_gradient", "require_gradient")


class RequireGradTypo(Rule):
    """
    A misspelt `requires_grad` (`p.require_grad = False`).

    ## What it does
    Finds assignments to, and reads of, attributes that are misspellings of
    `requires_grad` (`require_grad`, `required_grad`, `requires_grads`, ...)
    on objects other than `self`, and the same misspellings as keyword
    arguments of `torch` calls (`torch.zeros(3, require_grad=True)`).

    ## Why it matters
    A tensor accepts any new Python attribute: `p.require_grad = False`
    runs without error and freezes nothing, so a "frozen" backbone keeps
    training. Reading the misspelt name raises `AttributeError`; as a keyword
    of a factory it raises `TypeError`.

    ## Example
    ```python
    for p in backbone.parameters():
        p.require_grad = False
    ```

    ## Fix
    ```python
    for p in backbone.parameters():
        p.requires_grad = False
    ```

    ## Fix safety
    Unsafe: the fix does what the author wrote, and that changes the
    numbers: the parameters now freeze (or start to need gradients), so the
    training run differs from the one the code produced so far. Attributes of
    `self` and files that define a `require_grad` parameter or keyword of
    their own are left alone (a configuration flag of that name is common).
    """

    code = "AD217"
    name = "requires-grad-typo"
    summary = "misspelt `requires_grad` (`p.require_grad = False` silently freezes nothing)"
    fix_safety = UNSAFE
    tokens = TYPOS

    VALID = [
        Valid("""
            import torch
            t = torch.Tensor._make_subclass(cls, data, require_grad=data.requires_grad)
        """, note="`Tensor._make_subclass` takes `require_grad` (torch's own subclasses)"),
        Valid("""
            import torch
            for p in model.parameters():
                p.requires_grad = False
        """),
        Valid("""
            import torch.nn as nn
            class Block(nn.Module):
                def __init__(self, require_grad=True):
                    super().__init__()
                    self.require_grad = require_grad
            b = Block()
            print(b.require_grad)
        """, note="a flag of the project's own"),
    ]
    INVALID = [
        Invalid("""
            import torch
            for p in backbone.parameters():
                p.require_grad = False
        """, """
            import torch
            for p in backbone.parameters():
                p.requires_grad = False
        """, unsafe=True, line=3, column=5, message="sets a new Python attribute and changes nothing: the"),
        Invalid("""
            import torch
            w = torch.zeros(3, require_grad=True)
            if w.required_grad:
                pass
        """, """
            import torch
            w = torch.zeros(3, requires_grad=True)
            if w.requires_grad:
                pass
        """, unsafe=True, count=2,
            line=2, column=20, message="is not an argument of `torch.zeros` (TypeError): the keyword"),
    ]

    def visit_Module(self, node: cst.Module) -> None:
        # A parameter or keyword of the project's own by that name: a flag.
        self._own = set()

        class Params(cst.CSTVisitor):
            def visit_Param(self_, p: cst.Param) -> None:
                if p.name.value in TYPOS:
                    self._own.add(p.name.value)

        visit(node, Params())

    def visit_Attribute(self, node: cst.Attribute) -> None:
        name = node.attr.value
        if name not in TYPOS or name in self._own:
            return
        if isinstance(node.value, cst.Name) and node.value.value in ("self", "cls"):
            return
        if not self.ctx.imports.mentions_torch():
            return
        parent = self.ctx.parent(node)
        assigned = isinstance(parent, (cst.AssignTarget, cst.AugAssign)) or (
            isinstance(parent, cst.AnnAssign) and parent.target is node)
        what = ("sets a new Python attribute and changes nothing: the tensor's flag is "
                "`requires_grad`" if assigned else "raises AttributeError on a tensor: the flag is "
                "`requires_grad`")
        self.report(node, f"`{self.ctx.code(node)}` {what} (the fix changes what the code does: "
                          f"the flag now takes effect)",
                    replacement=node.with_changes(attr=cst.Name("requires_grad")),
                    fix_title="Spell it `requires_grad`")

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is None or node.keyword.value not in TYPOS or node.keyword.value in self._own:
            return
        call = self.ctx.parent(node)
        if not (isinstance(call, cst.Call) and (self.ctx.imports.qualify(call.func) or "").startswith("torch.")):
            return
        if self.ctx.code(call.func).endswith("._make_subclass"):
            return  # its C++ binding really spells it `require_grad`
        self.report(node, f"`{node.keyword.value}=` is not an argument of `{self.ctx.code(call.func)}` "
                          f"(TypeError): the keyword is `requires_grad`",
                    replacement=node.with_changes(keyword=cst.Name("requires_grad")),
                    fix_title="Spell it `requires_grad`")
