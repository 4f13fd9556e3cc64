"""Modules whose gradients a class switches off outside the walked method.

    def _training_loop(self):
        self.netG.requires_grad_(False)
        for real in loader:
            self._train_generator()        # switches netG on, then off again
            self._train_discriminator(real)

    def _train_discriminator(self, real):
        fake = self.netG(noise)            # no graph when netG is off
        ...

The walk sees `self.netG(noise)` build a graph, but whether netG's
gradients are on when the discriminator method runs depends on the order
of calls in other methods, which the analysis does not follow. When the
graph a second backward needs comes only from such modules, the finding
stays, but the fix is not offered as safe and the message says what could
not be told.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes


def frozen_note(analysis, stmt, modules) -> Optional[str]:
    """A note when every module in `modules` has its gradients switched off
    (`m.requires_grad_(False)`, `p.requires_grad = False` over
    `m.parameters()`) somewhere in the class of the method holding `stmt`,
    and that method never switches them on itself."""
    if not modules or stmt is None:
        return None
    cls, method = _holder(analysis.ctx.module, stmt)
    if cls is None:
        return None
    offs = []
    for module in sorted(modules):
        sets = _sets(cls, module)
        off = [(fn, node) for fn, node, on in sets if on is False and fn is not method]
        if not off or any(fn is method and on is not False for fn, node, on in sets):
            return None
        offs.append((module, off[0][1]))
    ctx = analysis.ctx
    where = ", ".join(f"`{m}` (line {ctx.line_of(_statement(cls, n))})" for m, n in offs)
    return (f"the graph both backwards need comes from {where}, whose gradients the class switches off outside "
            "this method, and this method does not switch them on: if they are off when it runs, there is no "
            "graph to free (the order of the calls was not followed)")


def _holder(module: cst.Module, stmt):
    """The class and the method (directly in it) that hold `stmt`."""
    # Exact type tests: these classes have no subclasses, and isinstance on
    # libcst's ABCs is slow for the many nodes that are not classes.
    for cls in nodes(module):
        if type(cls) is not cst.ClassDef or type(cls.body) is not cst.IndentedBlock:
            continue
        for fn in cls.body.body:
            if type(fn) is cst.FunctionDef and any(n is stmt for n in nodes(fn)):
                return cls, fn
    return None, None


def _sets(cls: cst.ClassDef, module: str) -> list:
    """(method, call or assignment, True/False/None) for every switch of
    `module`'s gradients in the class; None: not a literal."""
    out = []
    for fn in cls.body.body:
        if not isinstance(fn, cst.FunctionDef):
            continue
        loops = {}  # loop variable -> the module whose parameters it runs over
        for node in nodes(fn):
            if isinstance(node, cst.For) and isinstance(node.target, cst.Name) and \
                    isinstance(node.iter, cst.Call) and isinstance(node.iter.func, cst.Attribute) and \
                    node.iter.func.attr.value in ("parameters", "named_parameters"):
                loops[node.target.value] = dotted(node.iter.func.value)
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                    node.func.attr.value == "requires_grad_":
                owner = dotted(node.func.value)
                if owner == module or loops.get(owner or "") == module:
                    out.append((fn, node, _flag(node.args[0].value) if node.args else True))
            elif isinstance(node, cst.Call) and any(dotted(a.value) == module for a in node.args) and \
                    not _reads_only(node):
                out.append((fn, node, None))  # handed to a function that may switch it (`set_grad(m, True)`)
            elif isinstance(node, cst.Assign) and len(node.targets) == 1:
                target = node.targets[0].target
                if isinstance(target, cst.Attribute) and target.attr.value == "requires_grad" and \
                        loops.get(dotted(target.value) or "") == module:
                    out.append((fn, node, _flag(node.value)))
    return out


def _reads_only(call: cst.Call) -> bool:
    """Calls that take a module without touching its flags: `isinstance`, `print`, a forward."""
    name = call.func.value if isinstance(call.func, cst.Name) else None
    return name in ("isinstance", "print", "len", "id", "type", "hasattr", "getattr", "str", "repr")


def _flag(expr) -> Optional[bool]:
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return expr.value == "True"
    return None


def _statement(cls, node):
    """The statement line holding `node`, for its line number."""
    for stmt in nodes(cls):
        if isinstance(stmt, cst.SimpleStatementLine) and any(n is node for n in nodes(stmt)):
            return stmt
    return node
