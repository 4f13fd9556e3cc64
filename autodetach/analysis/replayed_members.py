"""A graph an agent stores into its rollout memory, and a later update that backwards
through what the memory hands back more than once.

    class PPO:
        def record(self, s, a, r):
            v = self.critic(s)                       # gradients on: `v` carries the critic's graph
            self.memory.add(states=s, values=v)      # kept by an object that outlives this step

        def update(self):
            s, v, ret = self.memory.sample(64)       # hands stored entries back (their graphs too)
            for epoch in range(4):
                loss = (self.critic(s) - ret).pow(2).mean() + 0.1 * (v - ret).pow(2).mean()
                self.opt.zero_grad()
                loss.backward()                      # epoch 2 walks the stored graph again: freed
                self.opt.step()

What proves the graph: the stored value comes out of a call on a member
(`self.critic(...)`, `self.value.act(...)`) made with gradients on and not cut,
and the same member's output feeds the loss the update backwards (so its
outputs carry the graph of trained weights). What proves the replay: the update
draws from the same memory member once and backwards, in a loop, a loss that
reads what it drew, so every backward after the first walks the stored entries'
graphs, which the first freed ("Trying to backward through the graph a second
time"), and the memory keeps every stored step's graph alive meanwhile.

A REINFORCE / A2C agent that keeps log-probabilities with their graph and
backwards their sum once per update is correct: a single backward over what
was drawn is not reported. The memory's class is usually in another file (its
`sample` is taken to hand back what its store method kept: inferred), and a cut
of the stored value would change the gradient the reference (every backward
retained) sends through it, so no fix is offered.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..imports import dotted
from .walk import class_methods, nodes

_SKIP = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_CUTS = ("detach", "item", "cpu", "numpy", "tolist", "detach_")


@dataclass
class ReplayedMember:
    cls: str  # the class
    store: cst.CSTNode  # the statement that binds the stored value (`v = self.critic(s)`)
    value: str  # `v`
    producer: str  # `self.critic`
    memory: str  # `self.memory`
    store_call: cst.Call  # `self.memory.add(...)`
    storer: str  # the method that stores
    draw: cst.CSTNode  # `s, v, ret = self.memory.sample(64)`
    updater: str  # the method that draws and backwards
    backward: cst.Call  # the backward in the loop
    loop: cst.CSTNode


def replayed_members(analysis) -> list:
    return analysis.memo("_replayed_members", lambda: _find(analysis.ctx))


def _find(ctx) -> list:
    out = []
    for cls in (n for n in ctx.module.body if type(n) is cst.ClassDef):
        methods = class_methods(cls)
        for uname, updater in methods.items():
            for draw, memory, drawn, loop, backward, producers in _replays(updater):
                for sname, storer in methods.items():
                    if storer is updater or _called_without_grad(ctx, sname):
                        continue
                    for found in _stores(ctx, storer, memory, producers):
                        stmt, value, producer, call = found
                        out.append(ReplayedMember(cls.name.value, stmt, value, producer, memory, call, sname,
                                                  draw, uname, backward, loop))
    seen, unique = set(), []
    for r in out:
        if id(r.store) not in seen:
            seen.add(id(r.store))
            unique.append(r)
    return unique


def _names(target) -> list:
    if type(target) is cst.Name:
        return [target.value]
    if type(target) in (cst.Tuple, cst.List):
        return [n for e in target.elements for n in _names(e.value)]
    return []


def _reads(expr) -> set:
    return {n.value for n in nodes(expr, skip=_SKIP) if type(n) is cst.Name}


def _member_calls(expr) -> set:
    """`self.critic` of `self.critic(s)` / `self.value.act(states=s)`: members whose output this reads."""
    found = set()
    for n in nodes(expr, skip=_SKIP):
        if type(n) is cst.Call:
            name = dotted(n.func) or ""
            parts = name.split(".")
            if len(parts) >= 2 and parts[0] == "self":
                found.add(".".join(parts[:2]))
    return found


def _simple_assigns(body) -> list:
    """(targets, value, stmt) of every plain assignment in `body`, in order (nested blocks included)."""
    out = []
    for n in nodes(body, skip=_SKIP):
        if type(n) is cst.Assign:
            names = [x for t in n.targets for x in _names(t.target)]
            out.append((names, n.value))
        elif type(n) in (cst.AugAssign, cst.AnnAssign) and type(n.target) is cst.Name and n.value is not None:
            out.append(([n.target.value], n.value))
    return out


def _replays(fn):
    """`drawn = self.M.m(...)` once, then a loop that backwards a loss reading `drawn`."""
    body = fn.body.body
    for index, stmt in enumerate(body):
        if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1 or type(stmt.body[0]) is not cst.Assign:
            continue
        assign = stmt.body[0]
        value = assign.value
        if type(value) is not cst.Call or type(value.func) is not cst.Attribute:
            continue
        memory = dotted(value.func.value) or ""
        if memory.count(".") != 1 or not memory.startswith("self."):
            continue
        drawn = {x for t in assign.targets for x in _names(t.target)}
        if not drawn:
            continue
        for later in body[index + 1:]:
            if type(later) not in (cst.For, cst.While):
                continue
            if any(x in drawn for x, _ in ((x, v) for names, v in _simple_assigns(later.body) for x in names)):
                continue  # the loop draws anew
            found = _loop_backward(later, drawn)
            if found is not None:
                backward, producers = found
                yield stmt, memory, drawn, later, backward, producers


def _loop_backward(loop, drawn):
    """The backward in `loop` whose loss reads a drawn name (through the loop's assignments),
    and the members whose outputs feed that loss."""
    assigns = _simple_assigns(loop.body)
    for n in nodes(loop.body, skip=_SKIP):
        if type(n) is not cst.Call or type(n.func) is not cst.Attribute or n.func.attr.value != "backward":
            continue
        root = dotted(n.func.value)
        if root is None or "." in root:
            continue
        wanted, reads, members = {root}, set(), set()
        changed = True
        while changed:
            changed = False
            for names, value in assigns:
                if wanted & set(names):
                    new = _reads(value) - wanted
                    members |= _member_calls(value)
                    reads |= _reads(value)
                    if new:
                        wanted |= new
                        changed = True
        if reads & drawn and members:
            return n, members
    return None


def _no_grad(ctx, fn, target) -> bool:
    from .flow import decorated_grad, grad_mode

    if decorated_grad(fn, ctx.imports) == 1:
        return True
    for n in nodes(fn.body, skip=_SKIP):
        if type(n) is cst.With and any(grad_mode(i.item, ctx.imports) == 1 for i in n.items):
            if any(x is target for x in nodes(n.body)):
                return True
    return False


def _stores(ctx, fn, memory, producers):
    """`v = self.critic(s)` ... `self.memory.add(values=v)` in `fn`, with gradients on."""
    bound = {}
    for n in nodes(fn.body, skip=_SKIP):
        if type(n) is cst.SimpleStatementLine and len(n.body) == 1 and type(n.body[0]) is cst.Assign:
            assign = n.body[0]
            value = assign.value
            if type(value) is cst.Call and type(value.func) is cst.Attribute and \
                    value.func.attr.value in _CUTS:
                for x in (x for t in assign.targets for x in _names(t.target)):
                    bound.pop(x, None)
                continue
            made = _member_calls(value) & producers
            for x in (x for t in assign.targets for x in _names(t.target)):
                if made and type(value) is cst.Call and not _no_grad(ctx, fn, assign):
                    bound[x] = (n, next(iter(sorted(made))))
                else:
                    bound.pop(x, None)
        elif type(n) is cst.Call and type(n.func) is cst.Attribute and dotted(n.func.value) == memory:
            if _no_grad(ctx, fn, n):
                continue
            for arg in n.args:
                if type(arg.value) is cst.Name and arg.value.value in bound:
                    stmt, producer = bound[arg.value.value]
                    yield stmt, arg.value.value, producer, n


def _called_without_grad(ctx, name: str) -> bool:
    """Some caller, in this file or another of the project, runs `.name(...)` inside a
    `with torch.no_grad():` (or `inference_mode`) block: the store may carry no graph."""
    import os
    import re

    from .project import text_of
    from .project_index import files_mentioning, package_root

    block = re.compile(r"^([ \t]*)with [^\n]*(?:no_grad|inference_mode|set_grad_enabled\(\s*False)[^\n]*:"
                       r"[ \t]*\n((?:\1[ \t]+[^\n]*\n|[ \t]*\n)*)", re.M)
    call = re.compile(r"\." + re.escape(name) + r"\s*\(")
    texts = [ctx.text]
    path = ctx.path
    if path and path != "<string>" and os.path.isfile(path):
        for other in files_mentioning(os.path.join(package_root(path), "_"), name.encode(), up=False):
            if os.path.realpath(other) != os.path.realpath(path):
                texts.append(text_of(other) or "")
    for text in texts:
        for m in block.finditer(text):
            if call.search(m.group(2)):
                return True
    return False
