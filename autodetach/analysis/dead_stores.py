"""A graph bound in a training loop, under a test, to a name nothing reads.

    for i, (x, y) in enumerate(loader):
        score = model(x)
        loss = crit(score, y)
        loss.backward()
        opt.step()
        if i % plot_every == 0:
            output = torch.sigmoid(score)      # never read

The name outlives its iteration: what it holds (the sigmoid's output, saved
for a backward that never comes, and the link to this batch's graph) stays
alive through every later iteration until the test holds again, and after
the loop: memory, not a crash. A store that runs in every iteration
(`prev = out`) is rebound at the next one, as `out` itself is, and is left
alone. That the value carries a graph is flow's walk: a node of this
iteration's graph. Names read anywhere in the function (the module, for a
script's loop), or declared global/nonlocal there, or where locals()/vars()/
eval/exec are called, are left alone; so is a loop that backwards nothing."""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from .walk import nodes

_INTROSPECT = {"locals", "vars", "eval", "exec"}


@dataclass
class DeadStore:
    stmt: cst.SimpleStatementLine  # `output = torch.sigmoid(score)`
    value: cst.BaseExpression  # the stored expression
    key: str  # `output`
    loop: cst.CSTNode  # the training loop it sits in
    test: cst.If  # the test it sits under
    node: object  # flow's node for the value (GNode)


def dead_stores(analysis) -> list:
    return analysis.memo("_dead_stores", lambda: _find(analysis))


def _find(analysis) -> list:
    ctx = analysis.ctx
    out, seen = [], set()
    for scope in analysis.scopes:
        for node in scope.nodes:
            stmt = node.stmt
            if node.name is None or "." in node.name or node.uncertain or stmt is None or id(stmt) in seen:
                continue
            found = _dead(ctx, scope, node)
            if found is not None:
                seen.add(id(stmt))
                out.append(found)
    return out


def _dead(ctx, scope, node):
    stmt = node.stmt
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1 or type(stmt.body[0]) is not cst.Assign:
        return None
    assign = stmt.body[0]
    if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name or \
            assign.targets[0].target.value != node.name or assign.value is not node.expr:
        return None
    if not node.parents and not node.modules:
        return None  # no graph of this iteration under it
    loop = ctx.enclosing(stmt, (cst.For, cst.While), stop=(cst.FunctionDef, cst.ClassDef, cst.Lambda))
    test = ctx.enclosing(stmt, cst.If, stop=(cst.For, cst.While, cst.FunctionDef))
    fn = ctx.enclosing(stmt, cst.FunctionDef)
    if loop is None or test is None or ctx.enclosing(loop, cst.FunctionDef) is not fn or \
            (fn is None and ctx.enclosing(stmt, cst.ClassDef) is not None):
        return None
    if not any(event.kind == "backward" and loop in event.loops for event in scope.events):
        return None  # not a training loop
    if not _never_read(fn or ctx.module, node.name, assign.targets[0].target):
        return None
    return DeadStore(stmt, assign.value, node.name, loop, test, node)


def _never_read(fn, key: str, target: cst.Name) -> bool:
    """`key` is bound only by `target` in `fn` (a function, nested ones included, or the
    module for a script's loop) and read nowhere."""
    for n in nodes(fn):
        t = type(n)
        if t is cst.Name and n.value == key and n is not target:
            return False  # a read, another store, a `del`, a parameter's or a nested def's name
        if t in (cst.Global, cst.Nonlocal):
            return False
        if t is cst.Call and type(n.func) is cst.Name and n.func.value in _INTROSPECT:
            return False
    return True
