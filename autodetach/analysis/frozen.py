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


def proven_frozen(analysis, conflict) -> bool:
    """The graph the two backwards of `conflict` share comes only from modules whose
    gradients are off whenever the walked method runs, so there is none to free:

    - no method of the class hands the module to other code, and the walked method
      never switches it;
    - every method that switches it on switches it off again in its own top-level body
      (no `return` after the switch on) before it returns: a balanced pair;
    - the walked method is private (`_train_discriminator`) and called only as
      `self._train_discriminator(...)` from methods of the class that switch the module
      off in their top-level body before the statement holding the call, with no switch
      on (outside balanced methods) in between.

    Then the module's parameters do not require gradients when the method runs:
    `self.netG(noise)` builds no graph. The roots of the shared graph must all be
    calls of such modules (no parameter or requires_grad leaf among them)."""
    from .graph import closure

    stmt = conflict.first.stmt
    if stmt is None or not conflict.links:
        return False
    cls, method = _holder(analysis.ctx.module, stmt)
    if cls is None or not method.name.value.startswith("_") or method.name.value.startswith("__"):
        return False
    shared = closure(conflict.links)
    modules = set()
    for node in shared:
        if node.leaf:
            return False
        if not node.parents or node.modules:
            if not node.modules or any(not (m or "").startswith("self.") for m in node.modules):
                return False
            if node.parents and any(p not in shared for p in node.parents):
                return False
            modules |= set(node.modules)
        if not node.parents and not node.modules:
            return False
    return bool(modules) and all(_proven_off(cls, method, module) for module in modules)


def _proven_off(cls, method, module: str) -> bool:
    sets = _sets(cls, module)
    if not sets or any(on is None for _, _, on in sets) or any(fn is method for fn, _, _ in sets):
        return False
    if not all(_balanced(fn, module) for fn in {id(f): f for f, _, on in sets if on is True}.values()):
        return False
    name = method.name.value
    callers = []
    for node in nodes(cls):
        if isinstance(node, cst.Name) and node.value == name:
            callers.append(node)
    calls = []
    for fn in cls.body.body:
        if not isinstance(fn, cst.FunctionDef) or fn is method:
            continue
        for node in nodes(fn):
            if isinstance(node, cst.Attribute) and node.attr.value == name:
                if dotted(node.value) != "self":
                    return False
                calls.append((fn, node))
    # every mention of the name is the method's own definition or a `self.name` read found above
    if len(callers) != len(calls) + 1 or not calls:
        return False
    return all(_off_before(fn, node, module) for fn, node in calls)


def _top_flag(stmt, module: str) -> Optional[bool]:
    """`module.requires_grad_(flag)` as a whole top-level statement: the flag; else None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1 or \
            not isinstance(stmt.body[0], cst.Expr):
        return None
    call = stmt.body[0].value
    if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and \
            call.func.attr.value == "requires_grad_" and dotted(call.func.value) == module:
        return _flag(call.args[0].value) if call.args else True
    return None


def _switches(stmt, module: str) -> bool:
    return any(isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and
               n.func.attr.value == "requires_grad_" and dotted(n.func.value) == module for n in nodes(stmt))


def _balanced(fn, module: str) -> bool:
    """The method's last switch of `module` is a top-level `requires_grad_(False)`, and no
    `return` or `yield` can leave the method after its first switch on."""
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ()
    last = max((i for i, s in enumerate(body) if _switches(s, module)), default=None)
    if last is None or _top_flag(body[last], module) is not False:
        return False
    first_on = min(i for i, s in enumerate(body) if _switches(s, module))
    return not any(isinstance(n, (cst.Return, cst.Yield)) for s in body[first_on:last] for n in nodes(s))


def _off_before(fn, node, module: str) -> bool:
    """`self.meth(...)` in `fn`, whose top-level body switches `module` off before the
    statement holding the call, and nothing but balanced methods in between can switch it on."""
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ()
    at = next((i for i, s in enumerate(body) if any(n is node for n in nodes(s))), None)
    if at is None:
        return False
    off = max((i for i in range(at) if _top_flag(body[i], module) is False), default=None)
    if off is None:
        return False
    for stmt in body[off + 1:at + 1]:
        if _switches(stmt, module) and not (stmt is not body[at] and _top_flag(stmt, module) is False):
            return False  # (a method called in between that switches it on is balanced: checked above)
    return True
