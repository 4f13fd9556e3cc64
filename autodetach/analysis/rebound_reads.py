"""Reads of `self.X` that see a value the same function just stored.

A graph kept on `self` (`self.D_loss` after `backward_D()`) is read again by
a later backward only through a read that sees the kept value. A method that
stores `self.X` and then reads it (`self.D_loss = a + b` then `self.D_loss =
self.D_loss + c` in `forward_D()`, `self.logit = self.netD(fake)` then
`self.logit.mean()` in `forward_G()`) reads the graph it just built: a new
forward, never the one kept. Only stores in earlier statements of the read's
own block or of a block around it count: those always run first."""
from __future__ import annotations

import ast
import os

import libcst as cst

from ..imports import dotted
from .walk import is_static, nodes

_BLOCKS = (cst.IndentedBlock, cst.SimpleStatementSuite)


def reads_rebound(ctx, read, key: str) -> bool:
    """Does `read` (a `self.X` attribute whose dotted name is `key`) come after
    a store of `key` that always runs before it in the same function?"""
    node = read
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module, cst.ClassDef)):
        up = ctx.parent(node)
        if isinstance(node, cst.BaseStatement) and isinstance(up, (cst.IndentedBlock, cst.Module)):
            body = list(up.body)
            for earlier in body[:body.index(node)]:
                if _stores(earlier, key):
                    return True
        if isinstance(up, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False  # the store must run in this call, not in another
        node = up
    return False


def _stores(stmt, key: str) -> bool:
    """Does a plain statement line store `key` (`self.a = ...`, `self.a, self.b = ...`;
    for an entry `self.a["d"]`, the entry or the whole `self.a`)?"""
    keys = {key, key.split("[", 1)[0]}
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
            [small.target] if isinstance(small, cst.AnnAssign) and small.value is not None else []
        reads = [x for x in nodes(small.value) if isinstance(x, (cst.Attribute, cst.Subscript))] if targets else []
        if any(entry_key(x) in keys for x in reads):
            continue  # `self.a = self.a if c else b`: the new value may be the old graph
        for target in targets:
            if any(isinstance(x, (cst.Attribute, cst.Subscript)) and entry_key(x) in keys and _whole(target, x)
                   for x in nodes(target)):
                return True
    return False


def entry_key(node):
    """`self.a` -> "self.a"; `self.a["d"]` -> 'self.a["d"]' (a string key); else None."""
    if isinstance(node, cst.Attribute):
        return dotted(node)
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) \
            and isinstance(node.slice[0].slice.value, cst.SimpleString):
        base = dotted(node.value)
        return f"{base}[{node.slice[0].slice.value.value}]" if base else None
    return None


def _whole(target, attr) -> bool:
    """Is `attr` the target itself or an element of a tuple/list target (not
    `self.a[k] = v` or `self.a.b = v`, which change part of the old value)?"""
    if target is attr:
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_whole(el.value, attr) for el in target.elements)
    return False


def judged_in_file(analysis, scope, ev) -> bool:
    """`def backward_D(self): self.D_loss.backward(retain_graph=True)`, called
    only as `self.backward_D()` by methods of this file whose walks inline it
    and see the loss's graph (`self.forward_D()` stored it first): those walks
    judge the retain, not the method's own walk, which cannot see what runs
    before and after it. Not when another project file names the method
    (`model.backward_D()` elsewhere may follow other code), nor when the
    method returns a value that a caller does not bind to plain names of its
    own (`d_real, d_fake, d = self._train_discriminator(x, y)` is followed by
    the caller's walk; `return self.step(x)` is not)."""
    from .callers import parsed
    from .project_index import files_mentioning

    ctx = analysis.ctx
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None or scope.name != fn.name.value or scope.driver_note is not None:
        return False
    params = fn.params.params
    # a @staticmethod run as `self.name(...)`: its own walk sees no graph in what it is given
    static = is_static(fn)
    if not static and (not params or params[0].name.value != "self"):
        return False
    returns = any(isinstance(n, cst.Return) and n.value is not None for n in nodes(fn.body))
    name = fn.name.value
    calls = [n for n in nodes(ctx.module) if isinstance(n, cst.Call) and _names(n.func, name)]
    if not calls:
        return False
    for call in calls:
        if not (isinstance(call.func, cst.Attribute) and dotted(call.func) == f"self.{name}"):
            return False  # `trainer.backward_D()`, `backward_D` handed on: not a walk of this class
        if returns and not static and not _walked_result(ctx, call):
            return False  # a graph it returns is judged by dropped_results, which also weighs callers out of sight
        holder = ctx.enclosing(call, cst.FunctionDef)
        if holder is None or holder is fn or not any(
                s.name == holder.name.value and any(e.call is ev.call and e.target.heads for e in s.events)
                for s in analysis.scopes):
            return False
    if any(isinstance(n, cst.Name) and n.value == name and not _names(ctx.parent(n), name) and
           not isinstance(ctx.parent(n), cst.FunctionDef) for n in nodes(ctx.module)):
        return False  # `getattr`-free but handed on by name (`hooks = [self.backward_D]`)
    cls = ctx.enclosing(fn, cst.ClassDef)
    if cls is None or not ctx.path:
        return False
    own = os.path.realpath(ctx.path)
    others = [p for p in files_mentioning(ctx.path, f"{name}(".encode()) if os.path.realpath(p) != own]
    return not any(_calls_from(tree, name, cls.name.value) for _, tree in parsed(others, must=f"{name}("))


def _walked_result(ctx, call) -> bool:
    """`d_real, d_fake, d = self._train_discriminator(x, y)` as a statement of the
    caller's own body: the caller's walk, which inlines the method, follows each
    name it binds. A result handed straight on (`return self.step(x)`, an argument)
    is not followed here."""
    up = ctx.parent(call)
    if not isinstance(up, cst.Assign) or len(up.targets) != 1:
        return isinstance(up, cst.Expr)  # dropped
    target = up.targets[0].target
    names = [target] if isinstance(target, cst.Name) else \
        [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else []
    return bool(names) and all(isinstance(n, cst.Name) for n in names)


def _calls_from(tree, name: str, mine: str, bases=None) -> bool:
    """Does another file call `name` on something that may be an instance of
    class `mine`? `self.name()` in a class that does not derive from `mine`
    by name calls that class's own method."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.ClassDef):
            names = {b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                     for b in node.bases}
            if _calls_from(node, name, mine, names):
                return True
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name:
            on_self = isinstance(node.func.value, ast.Name) and node.func.value.id == "self"
            if not (on_self and bases is not None and mine not in bases):
                return True
        if _calls_from(node, name, mine, bases):
            return True
    return False


def _names(node, name: str) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == name or \
        isinstance(node, cst.Name) and node.value == name


def cut_chain(ctx, read) -> bool:
    """`self.logit.mean().item()`, `self.loss.detach().cpu()`: a chain of method
    calls on the read that ends in a cut; the values between are temporaries."""
    from .flow import CUT_ATTRS, CUT_METHODS

    node = read
    while True:
        up = ctx.parent(node)
        if not (isinstance(up, cst.Attribute) and up.value is node):
            return False
        if up.attr.value in CUT_METHODS or up.attr.value in CUT_ATTRS:
            return True
        call = ctx.parent(up)
        if not (isinstance(call, cst.Call) and call.func is up) or up.attr.value in _KEEPS:
            return False
        node = call


# methods whose result may be stored or hand the graph on elsewhere
_KEEPS = {"backward", "register_hook", "retain_grad", "append", "extend", "add_", "copy_"}
