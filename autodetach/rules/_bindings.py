"""Plain-name bindings per function scope, for the AD21x rules that follow
a value through simple assignments (AD212, AD215)."""
from __future__ import annotations

import libcst as cst


class Scopes(cst.CSTVisitor):
    """Assignments to plain names per function (or the module), and every
    division with the scope it sits in."""

    def __init__(self, divisions: bool = False) -> None:
        self.want_divisions = divisions
        self.stack: list = []
        self.assigned: dict = {}  # scope -> name -> [values]; None marks "unknown"
        self.divisions: list = []  # (node, scope)

    def _scope(self):
        return self.stack[-1]

    def _add(self, name: str, value) -> None:
        self.assigned.setdefault(self._scope(), {}).setdefault(name, []).append(value)

    def visit_Module(self, node) -> None:
        self.stack.append(node)

    def visit_FunctionDef(self, node) -> None:
        self.stack.append(node)
        for p in node.params.params + node.params.kwonly_params + node.params.posonly_params:
            self._add(p.name.value, None)

    def leave_FunctionDef(self, node) -> None:
        self.stack.pop()

    def visit_Lambda(self, node) -> bool:
        return False

    def visit_Assign(self, node) -> None:
        for t in node.targets:
            self._target(t.target, node.value)

    def visit_AnnAssign(self, node) -> None:
        self._target(node.target, node.value)

    def visit_AugAssign(self, node) -> None:
        if isinstance(node.target, cst.Name):
            if isinstance(node.operator, (cst.AddAssign, cst.MultiplyAssign, cst.FloorDivideAssign)):
                self._add(node.target.value, node.value)
            elif not isinstance(node.operator, cst.DivideAssign):  # `/=` is what we report
                self._add(node.target.value, None)
        if isinstance(node.operator, cst.DivideAssign) and self.want_divisions:
            self.divisions.append((node, self._scope()))

    def _target(self, target, value) -> None:
        if isinstance(target, cst.Name):
            self._add(target.value, value)
        else:
            for n in _names_in(target):
                self._add(n, None)

    def visit_For(self, node) -> None:
        for n in _names_in(node.target):
            self._add(n, None)

    def visit_CompFor(self, node) -> None:
        for n in _names_in(node.target):
            self._add(n, None)

    def visit_WithItem(self, node) -> None:
        if node.asname is not None:
            for n in _names_in(node.asname.name):
                self._add(n, None)

    def visit_NamedExpr(self, node) -> None:
        self._target(node.target, node.value)

    def visit_Global(self, node) -> None:
        for n in node.names:
            self._add(n.name.value, None)

    def visit_Nonlocal(self, node) -> None:
        self.visit_Global(node)

    def visit_BinaryOperation(self, node) -> None:
        if isinstance(node.operator, cst.Divide) and self.want_divisions:
            self.divisions.append((node, self._scope()))


def _names_in(node) -> list:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for e in node.elements for n in _names_in(e.value)]
    if isinstance(node, cst.StarredElement):
        return _names_in(node.value)
    return []
