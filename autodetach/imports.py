"""A light table of import aliases, built from the module's import statements.

libcst's QualifiedNameProvider costs several parses per file; almost every
question a rule asks is "is this name torch.autograd.Variable?", which this
table answers from one cheap pass over the import statements.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

# Old spellings that name the same object today.
_CANONICAL = {
    "torch.autograd.variable.Variable": "torch.autograd.Variable",
    "torch.Variable": "torch.autograd.Variable",
    "torch.nn.modules.module.Module": "torch.nn.Module",
}


def dotted(node: cst.BaseExpression) -> Optional[str]:
    """`a.b.c` as a string, or None when the expression is not a dotted name."""
    # Exact type tests: libcst's node classes are ABCs (isinstance is slow)
    # and Name and Attribute have no subclasses.
    t = type(node)
    if t is _NAME:
        return node.value
    parts = []
    while t is _ATTRIBUTE:
        parts.append(node.attr.value)
        node = node.value
        t = type(node)
    if t is _NAME:
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


_NAME, _ATTRIBUTE = cst.Name, cst.Attribute


def _module_name(node) -> str:
    return dotted(node) or ""


# Names a project's star import almost always brings in.
STAR_CONVENTIONS = {"torch": "torch", "nn": "torch.nn", "F": "torch.nn.functional", "optim": "torch.optim"}


def _relays_torch(mod: str, names: list) -> bool:
    """`from utils._libs_ import math, torch, nn`: a module of the project that
    gathers the usual imports hands on torch itself, and with it the usual
    names (`nn`, `F`, `optim`) it is imported next to. Only when `torch` is
    among the names, from a module that is neither torch's nor another
    autodiff library's (`from mxnet.gluon import nn` is mxnet's)."""
    if "torch" not in names or is_torch(mod):
        return False
    head = mod.split(".")[0]
    return head not in OTHER_AUTODIFF and not head.startswith("torch")


class ImportTable:
    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}
        # (statement, alias node, local name) for import removal.
        self.bindings: list = []
        self.star_modules: list[str] = []
        # (local name, module it binds) for `import` statements at module level
        self.module_imports: list = []
        # local name -> (level, module, name) for `from .x import name`, in functions
        # too (`from .loss import GANLoss` in `__init__`); a module-level import wins
        self.relative: dict = {}
        # dotted text -> its qualified name: rules and analyses qualify the same
        # few names thousands of times a pass (emptied when an import is added)
        self._qualified: dict = {}
        self.module = None
        self._no_grad_helpers = None

    @classmethod
    def from_module(cls, module: cst.Module) -> "ImportTable":
        table = cls()
        table._collect(module.body, top=True)
        table.module = module
        return table

    def no_grad_helpers(self) -> frozenset:
        """The module's functions that return `torch.no_grad()` (analysis.grad_helpers), worked out once."""
        if self._no_grad_helpers is None:
            from .analysis.flow import grad_mode
            from .analysis.grad_helpers import no_grad_helpers

            self._no_grad_helpers = frozenset()  # while they are worked out, none
            if self.module is not None:
                self._no_grad_helpers = no_grad_helpers(
                    self.module, self, lambda call: grad_mode(call, self, helpers=False) == 1)
        return self._no_grad_helpers

    def _collect(self, body, top: bool) -> None:
        for stmt in body:
            if type(stmt) is cst.SimpleStatementLine:
                for small in stmt.body:
                    if type(small) in (cst.Import, cst.ImportFrom):
                        self._add(stmt, small, top)
            elif type(stmt) in (cst.If, cst.Try):
                # Guarded imports (try: import x except ImportError) still bind.
                self._collect(stmt.body.body, top)
                for extra in getattr(stmt, "handlers", ()):
                    self._collect(extra.body.body, top)
                orelse = getattr(stmt, "orelse", None)
                while orelse is not None and hasattr(orelse, "body"):
                    inner = orelse.body
                    self._collect(getattr(inner, "body", ()), top)
                    orelse = getattr(orelse, "orelse", None)
            elif type(stmt) in (cst.FunctionDef, cst.ClassDef):
                # Imports inside functions are common in old scripts.
                block = stmt.body
                if isinstance(block, cst.IndentedBlock):
                    self._collect(block.body, top=False)

    def _add(self, stmt, node, top: bool) -> None:
        self._qualified.clear()
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = _module_name(alias.name)
                if alias.asname is not None:
                    local = alias.asname.name.value
                    self.aliases[local] = full
                else:
                    local = full.split(".")[0]
                    self.aliases.setdefault(local, local)
                self.bindings.append((stmt, node, alias, local))
                if top:
                    self.module_imports.append((local, self.aliases[local] if alias.asname else local))
        else:
            if node.relative:
                self._add_relative(node, top)
                return
            mod = _module_name(node.module) if node.module else ""
            if isinstance(node.names, cst.ImportStar):
                self.star_modules.append(mod)
                return
            names = [_module_name(alias.name) for alias in node.names]
            relay = _relays_torch(mod, names)
            for alias, name in zip(node.names, names):
                local = alias.asname.name.value if alias.asname else name
                self.aliases[local] = STAR_CONVENTIONS[name] if relay and name in STAR_CONVENTIONS else \
                    f"{mod}.{name}" if mod else name
                self.bindings.append((stmt, node, alias, local))

    def _add_relative(self, node: cst.ImportFrom, top: bool) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        mod = _module_name(node.module) if node.module is not None else ""
        names = [_module_name(alias.name) for alias in node.names]
        relay = _relays_torch("", names)
        for alias, name in zip(node.names, names):
            local = alias.asname.name.value if alias.asname else name
            if relay and name in STAR_CONVENTIONS:
                # `from ._libs_ import torch, nn`: a project module that gathers the imports
                self.aliases[local] = STAR_CONVENTIONS[name]
                continue
            if top or local not in self.relative:
                self.relative[local] = (len(node.relative), mod, name)

    def qualify(self, node: cst.BaseExpression) -> Optional[str]:
        """The qualified name an expression refers to, through imports."""
        text = dotted(node)
        if text is None:
            return None
        memo = self._qualified
        if text in memo:
            return memo[text]
        out = memo[text] = self._qualify(text)
        return out

    def _qualify(self, text: str) -> Optional[str]:
        head, _, rest = text.partition(".")
        if head in self.aliases:
            full = self.aliases[head] + ("." + rest if rest else "")
        else:
            full = None
            for mod in self.star_modules:
                if is_torch(mod):  # torch itself, not torchvision / torch_geometric
                    full = f"{mod}.{text}"
                    break
            if full is None and head in STAR_CONVENTIONS and any(not is_torch(m) for m in self.star_modules):
                # `from utils import *` where utils does `import torch`: the
                # usual names are taken to mean what they always mean
                full = STAR_CONVENTIONS[head] + ("." + rest if rest else "")
            if full is None:
                return None
        return canonical(full)

    def module_alias(self, target: str = "torch") -> Optional[str]:
        """The name a module-level `import` binds to module `target`
        (`import torch as th`: "th"; `import torch.nn` binds `torch`), the
        plain name preferred; None when there is none. Imports inside a
        function do not count: code inserted at module level cannot see them."""
        found = [local for local, module in self.module_imports if module == target]
        return target if target in found else (found[0] if found else None)

    def is_(self, node: cst.BaseExpression, *names: str) -> bool:
        q = self.qualify(node)
        return q is not None and q in names

    def mentions_torch(self) -> bool:
        return any(v.split(".")[0] == "torch" for v in self.aliases.values()) or any(
            m.startswith("torch") for m in self.star_modules
        )

    def other_autodiff(self) -> Optional[str]:
        """Another autodiff library the file imports (`import mxnet as mx`,
        `import jax.numpy as jnp`) when it names no torch module at all: its
        tensors, losses and `backward` are that library's, not torch's."""
        if self.mentions_torch():
            return None
        for v in list(self.aliases.values()) + self.star_modules:
            head = v.split(".")[0]
            if head in OTHER_AUTODIFF:
                return head
        return None


# autodiff libraries whose graphs are not torch's (a file of theirs is not the AD1 rules' to read)
OTHER_AUTODIFF = frozenset({"mxnet", "jax", "flax", "tensorflow", "paddle", "mindspore", "oneflow", "chainer",
                            "mlx", "theano"})


def is_torch(name: str) -> bool:
    """Is the qualified name torch itself or inside it (not torchvision, torch_geometric)?"""
    return name == "torch" or name.startswith("torch.")


# Names a project module's `import *` hands on, by the universal convention.
def canonical(name: str) -> str:
    for old, new in _CANONICAL.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old):]
    return name
