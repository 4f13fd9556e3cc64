"""A cut argument handed to a method that steps the modules only it reaches.

`self.update_critic(obs.detach(), action, ...)` where `update_critic` (of
this class or of a base class in another file) zeroes `self.encoder_opt`,
backwards a loss and steps it: when that loss reaches `self.encoder` (the
optimizer's parameters, from the class's `__init__`) only through the `obs`
argument, and the caller hands in `obs` cut (`.detach()`, `.data`) after
computing it from `self.encoder`, the encoder optimizer steps parameters
whose only path to the loss is cut.

Read with stdlib `ast` from the class's source (this file or the base
class's file, through `callers.tree_of` (`project.text_of`), so the result cache follows it):
the method's statements in order, what each local name hangs from (the
method's parameters, `self.X` modules; nothing under `torch.no_grad()` or
through a cut), its `zero_grad`/`backward`/`step` calls, and the
`self.O = optim.X(self.M.parameters())` of `__init__`. Another file's class
is an inference the message states."""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from ..imports import dotted
from .summaries import _dotted

CUTS = {"detach", "item", "tolist", "numpy", "cpu"}
NO_GRAD = {"torch.no_grad", "no_grad", "torch.inference_mode", "inference_mode"}


@dataclass
class CutArgument:
    call: cst.Call  # `self.update_critic(obs.detach(), ...)`
    arg: cst.CSTNode  # the cut argument
    method: str  # `update_critic`
    opt: str  # `self.encoder_opt`
    modules: frozenset  # what it steps: `self.encoder`
    param: str  # the parameter the cut argument binds
    where: str  # the file that defines the method (for the message)
    stmt: Optional[cst.CSTNode] = None


def cut_arguments(analysis) -> list:
    out = []
    ctx = analysis.ctx
    for cls in [s for s in ctx.module.body if type(s) is cst.ClassDef]:
        source = None
        for fn in [s for s in cls.body.body if isinstance(s, cst.FunctionDef)]:
            for node in _calls(fn):
                func = node.func
                if not (isinstance(func, cst.Attribute) and dotted(func.value) == "self" and
                        any(_cut_arg(a.value) for a in node.args)):
                    continue
                if source is None:
                    source = _Classes(analysis, cls)
                found = source.method(func.attr.value)
                if found is None:
                    continue
                out.extend(_judge(analysis, source, fn, node, found))
    return out


def _calls(fn):
    from .walk import nodes

    return [n for n in nodes(fn.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)) if type(n) is cst.Call]


def _cut_arg(expr):
    """`x.detach()`, `x.data`, `x.detach().clone()`: the value cut (x), or None."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and \
            expr.func.attr.value in ("clone", "contiguous", "float"):
        expr = expr.func.value
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "detach" \
            and not expr.args:
        return expr.func.value
    if isinstance(expr, cst.Attribute) and expr.attr.value == "data":
        return expr.value
    return None


class _Classes:
    """The class and its bases, as `ast` classes: this file's, then those a
    base name imports from a project file."""

    def __init__(self, analysis, cls: cst.ClassDef) -> None:
        self.analysis = analysis
        self.chain = []  # (ast.ClassDef, file) nearest first
        tree = analysis.own_tree  # not `module.code` per class: a whole-module codegen and parse each time
        self._add(tree, cls.name.value, analysis.ctx.path, analysis.ctx.imports.aliases, 0)

    def _add(self, tree, name, path, aliases, depth) -> None:
        if tree is None or depth > 4:
            return
        found = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
        if found is None:
            return
        self.chain.append((found, path))
        for base in found.bases:
            key = _dotted(base)
            if not key:
                continue
            if any(isinstance(n, ast.ClassDef) and n.name == key for n in tree.body):
                self._add(tree, key, path, aliases, depth + 1)
                continue
            other = _imported(path, tree, key, aliases if depth == 0 else None)
            if other is not None:
                self._add(_tree(other[0]), other[1], other[0], None, depth + 1)

    def method(self, name):
        """(FunctionDef, __init__ that sets the optimizers, file) of `name`, nearest first."""
        for index, (cls, path) in enumerate(self.chain):
            for item in cls.body:
                if isinstance(item, ast.FunctionDef) and item.name == name:
                    return item, self._inits(), path
        return None

    def _inits(self) -> list:
        return [item for cls, _ in self.chain for item in cls.body
                if isinstance(item, ast.FunctionDef) and item.name == "__init__"]

    def touches(self, name, mods) -> bool:
        """Does the method `name` of the class read any of `mods`?"""
        found = self.method(name)
        return found is not None and any(_dotted(n) in mods for n in ast.walk(found[0])
                                         if isinstance(n, ast.Attribute))

    def returns_from(self, name) -> set:
        """`self.X` modules the method `name` returns a value of."""
        found = self.method(name)
        if found is None:
            return set()
        deps = _Deps(found[0])
        out = set()
        for node in ast.walk(found[0]):
            if isinstance(node, ast.Return) and node.value is not None:
                out |= {d for d in deps.of(node.value) if d.startswith("self.")}
        return out


def _tree(path):
    """Another project file's ast, parsed once per text (callers.tree_of)."""
    from .callers import tree_of

    return tree_of(path)[1]


def _imported(path, tree, key, aliases) -> Optional[tuple]:
    """(file, class name) of a base class imported from a project file."""
    from .project import SKIP, module_file_up

    head, _, rest = key.partition(".")
    full = None
    if aliases is not None:
        full = aliases.get(head)
    else:
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if (alias.asname or alias.name) == head:
                        full = f"{node.module}.{alias.name}"
    if not full or not path or path == "<string>":
        return None
    full = full + ("." + rest if rest else "")
    parts = full.split(".")
    if parts[0] in SKIP or len(parts) < 2:
        return None
    found = module_file_up(os.path.dirname(os.path.abspath(path)), parts[:-1])
    return (found, parts[-1]) if found is not None else None


class _Deps:
    """What each local name of a method hangs from: its parameters and the
    `self.X` it calls; the events in order."""

    def __init__(self, fn: ast.FunctionDef) -> None:
        self.params = [a.arg for a in fn.args.args[1:]] + [a.arg for a in fn.args.kwonlyargs]
        self.env: dict = {}
        self.events: list = []  # (kind, optimizer key or loss deps)
        self._block(fn.body, quiet=False)

    def _block(self, body, quiet) -> None:
        for stmt in body:
            if isinstance(stmt, ast.With):
                off = quiet or any(_dotted(i.context_expr.func if isinstance(i.context_expr, ast.Call)
                                           else i.context_expr) in NO_GRAD for i in stmt.items)
                self._block(stmt.body, off)
            elif isinstance(stmt, (ast.If, ast.For, ast.While, ast.Try)):
                self._scan(stmt, quiet)
                for part in ("body", "orelse", "finalbody"):
                    self._block(getattr(stmt, part, []) or [], quiet)
                for handler in getattr(stmt, "handlers", []) or []:
                    self._block(handler.body, quiet)
            elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                continue
            else:
                self._scan(stmt, quiet)
                if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
                    deps = set() if quiet else self.of(stmt.value)
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    for target in targets:
                        for name in ast.walk(target):
                            if isinstance(name, ast.Name):
                                old = self.env.get(name.id, set()) if isinstance(stmt, ast.AugAssign) else set()
                                self.env[name.id] = old | deps

    def _scan(self, stmt, quiet) -> None:
        """The events of a simple statement (or an `if`'s test)."""
        top = [stmt.test] if isinstance(stmt, (ast.If, ast.While)) else \
            [] if isinstance(stmt, (ast.For, ast.Try)) else [stmt]
        for part in top:
            for node in ast.walk(part):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                    continue
                meth, base = node.func.attr, _dotted(node.func.value)
                if meth == "zero_grad" and base:
                    self.events.append(("zero", base))
                elif meth == "step" and base and not node.args:
                    self.events.append(("step", base))
                elif meth == "backward" and not quiet:
                    self.events.append(("backward", self.of(node.func.value)))

    def of(self, expr) -> set:
        out = set()
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in CUTS:
            return out
        if isinstance(expr, ast.Attribute) and expr.attr in ("data", "shape", "device", "dtype"):
            return out
        if isinstance(expr, ast.Name):
            if expr.id in self.params:
                return {expr.id}
            return set(self.env.get(expr.id, ()))
        if isinstance(expr, ast.Call):
            key = _dotted(expr.func)
            if key and key.startswith("self.") and key.count(".") == 1:
                out.add(key)  # self.critic(obs, action), self.helper(x)
            elif isinstance(expr.func, ast.Attribute):
                out |= self.of(expr.func.value)
            for arg in list(expr.args) + [k.value for k in expr.keywords]:
                out |= self.of(arg)
            return out
        for child in ast.iter_child_nodes(expr):
            out |= self.of(child)
        return out


def _owned(inits) -> dict:
    """`self.O` -> `self.M` modules whose `.parameters()` its constructor is given."""
    out: dict = {}
    for init in inits:
        for node in ast.walk(init):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                mods = {_dotted(c.func.value) for c in ast.walk(node.value) if isinstance(c, ast.Call) and
                        isinstance(c.func, ast.Attribute) and c.func.attr == "parameters"}
                mods = {m for m in mods if m and m.startswith("self.") and m.count(".") == 1}
                for target in node.targets:
                    key = _dotted(target)
                    if mods and key and key.startswith("self."):
                        out.setdefault(key, set()).update(mods)
    return out


def _holds(inits, key, mods) -> bool:
    """`self.critic = Critic(self.encoder, ...)` in `__init__`: `key` is built around one of `mods`."""
    for init in inits:
        for node in ast.walk(init):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                    any(_dotted(t) == key for t in node.targets):
                if any(_dotted(n) in mods for n in ast.walk(node.value) if isinstance(n, ast.Attribute)):
                    return True
    return False


def _judge(analysis, source, fn, call, found) -> list:
    method, inits, path = found
    deps = _Deps(method)
    owned = _owned(inits)
    params = deps.params
    bound = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return []
        name = arg.keyword.value if arg.keyword is not None else (params[index] if index < len(params) else None)
        if name is not None:
            bound[name] = arg.value
    out = []
    events = deps.events
    for i, (kind, opt) in enumerate(events):
        if kind != "step" or opt not in owned:
            continue
        zeros = [j for j in range(i) if events[j] == ("zero", opt)]
        if not zeros:
            continue  # gradients from before the method may be stepped too
        losses = [events[j][1] for j in range(zeros[-1] + 1, i) if events[j][0] == "backward"]
        if not losses:
            continue
        reach = set().union(*losses)
        mods = owned[opt]
        if reach & mods or not reach - {m for m in reach if m.startswith("self.")}:
            continue  # the loss reaches the modules itself, or through no argument
        if any(source.touches(key[5:], mods) or _holds(inits, key, mods) for key in reach if key.startswith("self.")):
            continue  # through a helper method that uses them, or a module built around them
        through = [p for p in reach if not p.startswith("self.")]
        # every argument the loss hangs from reaches `mods` only cut, and one is a cut of them
        cut = None
        for param in through:
            value = bound.get(param)
            if value is None:
                break
            inner = _cut_arg(value)
            if inner is None:
                if _carries(analysis, source, fn, value, call, mods):
                    break
                continue
            if cut is None and _carries(analysis, source, fn, inner, call, mods):
                cut = (param, value)
        else:
            if cut is not None:
                where = os.path.basename(path) if path and path != analysis.ctx.path else None
                out.append(CutArgument(call, cut[1], method.name, opt, frozenset(mods), cut[0], where or "",
                                       stmt=analysis.ctx.statement_of(call)))
    return out


def _carries(analysis, source, fn, expr, call, mods) -> bool:
    """Can `expr` (in the caller `fn`, before `call`) hang from `mods`? Through
    the assignments of the names it reads, a call of `self.M(...)` or of a
    method of the class that returns one."""
    seen = set()
    stack = [expr]
    line = analysis.ctx.line_of(call)
    assigns = _assignments(analysis, fn)
    while stack:
        node = stack.pop()
        for sub in _subnodes(node):
            if isinstance(sub, cst.Call):
                key = dotted(sub.func)
                if key in mods:
                    return True
                if key and key.startswith("self.") and key.count(".") == 1 and \
                        source.returns_from(key[5:]) & mods:
                    return True
            elif isinstance(sub, cst.Name) and sub.value not in seen:
                seen.add(sub.value)
                stack.extend(value for target, value, at in assigns if target == sub.value and at < line)
    return False


def _subnodes(node):
    from .walk import nodes

    return nodes(node, skip=(cst.Lambda,))


def _assignments(analysis, fn) -> list:
    out = []
    for node in _subnodes(fn.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                for name in _subnodes(target.target):
                    if isinstance(name, cst.Name):
                        out.append((name.value, node.value, analysis.ctx.line_of(node)))
    return out


