"""AD107: a tensor derived from parameters once, before the loop, used in
every iteration's loss."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..analysis.decide import Problem
from ..analysis.frozen_scripts import frozen_before
from ..analysis.walk import nodes
from ..findings import UNSAFE
from ..rule import Edit, Invalid, Valid
from ._ad1_shared import GraphRule, BACKWARD_TOKENS, path_note, code, line


class GraphBuiltOutsideLoop(GraphRule):
    """
    A tensor computed from trainable parameters before the loop is used inside it.

    ## What it does
    Finds a value derived from parameters (a normalised weight, a mask, a
    projection) computed once before a training loop, or in `__init__`,
    and used in each iteration's loss. Also a penalty that a method of the
    class builds once and keeps on `self` (`self.reg_loss`, added by an
    `add_regularization_loss` helper) and that a training loop in another
    method adds to every batch's loss; when it is built only from the
    helper's arguments, that they are trainable weights is inferred, from
    the loop's `retain_graph=True`, and the report says so. That one is
    reported without a fix: no statement can be moved into the loop.
    Also a loss module whose capture pass keeps its target with that pass's
    graph: `forward` stores `self.target = gram(input)` (or appends to
    `self.targets`) without a cut in one arm of a test on `self` (`if
    self.mode == "capture":`, `if self.target is None:`), and another arm of
    that test builds `self.loss` from it. The capture runs once, before the
    optimisation loop, so every later loss walks its graph. The fix detaches
    the target; unsafe: that the capture input carries a graph and that the
    target is meant to be constant are inferred.
    Also a value `__init__` computes from a parameter it makes inline and
    does not keep (`self.scale = torch.exp(nn.Parameter(x))`, or a tensor
    made with `requires_grad=True`), read by `forward`: no optimizer sees
    that parameter, and the op's saved tensors are freed by the first
    backward. Reported without a fix (the parameter must move onto the
    module, the op into `forward`).
    Also a value `__init__` computes from a parameter the module makes and
    keeps (`self.mu = nn.Parameter(mu)`), kept on self as an attribute or a
    buffer (`self.register_buffer("cdf_low", normal.cdf(low - self.mu))`)
    and read by another method (`sample`): the class is trained by design,
    so this is reported even in a library file with no training loop,
    without a fix, and the report says what it infers: that what that
    method returns is backwarded more than once.

    ## Why it matters
    The first backward frees the graph between the parameters and that
    value, so the second iteration fails with "Trying to backward through
    the graph a second time". Even with `retain_graph=True` the value is
    stale: it was computed from the parameters before any update.

    ## Example
    ```python
    w = weight / weight.norm()
    for x, y in data:
        loss = ((x @ w) - y).pow(2).mean()
        loss.backward()
        opt.step()
    ```

    ## Fix
    ```python
    for x, y in data:
        w = weight / weight.norm()
        loss = ((x @ w) - y).pow(2).mean()
    ```

    ## Fix safety
    Unsafe. Moving the computation into the loop recomputes it from the
    current parameters, which is usually the intent; if the value was meant
    to be a constant, `.detach()` it instead. The tool cannot tell which, so
    it never detaches on its own, and offers the move only when the
    statement sits right in front of the loop's block. When the value is
    read by an optimizer closure defined beside it (`opt.step(closure)`),
    the move goes to the top of the closure, which the optimizer runs once
    per step or, like LBFGS, several times; only when nothing else in the
    function reads the value.
    """

    code = "AD107"
    kind = Problem.BUILT_BEFORE_LOOP  # what the analysis calls this problem
    name = "graph-built-outside-loop"
    summary = "a tensor derived from parameters before the loop is reused by every iteration's backward"
    fix_safety = UNSAFE
    tokens = BACKWARD_TOKENS + ("Parameter(",)  # a module trained by design (analysis.init_own_graphs)

    VALID = [
        Valid("""
            import torch
            weight = torch.nn.Parameter(torch.randn(4, 1))
            opt = torch.optim.SGD([weight], lr=0.1)
            for i in range(3):
                w = weight / weight.norm()
                loss = (torch.randn(2, 4) @ w).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """),
        Valid("""
            import torch
            weight = torch.nn.Parameter(torch.randn(4, 1))
            opt = torch.optim.SGD([weight], lr=0.1)
            w = (weight / weight.norm()).detach()
            for i in range(3):
                loss = (torch.randn(2, 4) @ (weight + w)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, note="deliberately constant"),
        Valid("""
            import torch
            weight = torch.nn.Parameter(torch.randn(4, 1))
            opt = torch.optim.SGD([weight], lr=0.1)
            with torch.no_grad():
                w = weight / weight.norm()
            for i in range(3):
                loss = (torch.randn(2, 4) @ (weight + w)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """),
        Valid("""
            import torch
            import torch.nn as nn
            from utils.parallel import DataParallelCriterion

            class FlowLoss(nn.Module):
                def __init__(self, args, model):
                    super().__init__()
                    self.register_buffer("std", model.module.out_std.unsqueeze(0))

                def forward(self, pred, target):
                    return ((pred - target) * self.std).pow(2).mean()

            class Trainer(object):
                def __init__(self, args, model):
                    self.args = args
                    self.parallel_loss = DataParallelCriterion(FlowLoss(args, model), args.device_ids)

                def train(self, model, optimizer, loader):
                    for x, y in loader:
                        parts = [self.parallel_loss(model(x), y)]
                        loss = self.parallel_loss.gather(parts, output_device=self.args.src_device).mean()
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
        """, note="a criterion object built once in __init__ (a class call), run in every iteration"),
    ]
    INVALID = [
        Invalid("""
            import torch
            from torch import nn


            class Scaled(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.w = nn.Parameter(torch.randn(4, 1))
                    self.w_unit = self.w / self.w.norm()

                def forward(self, x):
                    return x @ self.w_unit


            model = Scaled()
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            for i in range(3):
                loss = model(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, note="computed in __init__: reported, no automatic fix", line=9, column=9,
            message="is computed from trainable parameters once"),
        Invalid("""
            import torch
            weight = torch.nn.Parameter(torch.randn(4, 1))
            opt = torch.optim.SGD([weight], lr=0.1)
            w = weight / weight.norm()
            for i in range(3):
                loss = (torch.randn(2, 4) @ w).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, """
            import torch
            weight = torch.nn.Parameter(torch.randn(4, 1))
            opt = torch.optim.SGD([weight], lr=0.1)
            for i in range(3):
                w = weight / weight.norm()
                loss = (torch.randn(2, 4) @ w).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, unsafe=True, line=4, column=1),
        Invalid("""
            import torch
            from torch import nn
            model = nn.Linear(4, 1)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            mask = torch.sigmoid(model.weight)
            for i in range(3):
                loss = (model(torch.randn(2, 4)) * mask.sum()).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, """
            import torch
            from torch import nn
            model = nn.Linear(4, 1)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            for i in range(3):
                mask = torch.sigmoid(model.weight)
                loss = (model(torch.randn(2, 4)) * mask.sum()).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, unsafe=True, line=5, column=1),
        Invalid("""
            import torch
            from torch import nn


            def fit(model, x, y):
                opt = torch.optim.LBFGS(model.parameters(), max_iter=4)
                feats = model[0](x)

                def closure():
                    opt.zero_grad()
                    loss = (model[1](feats) - y).pow(2).mean()
                    loss.backward()
                    return loss

                for i in range(3):
                    opt.step(closure)
        """, """
            import torch
            from torch import nn


            def fit(model, x, y):
                opt = torch.optim.LBFGS(model.parameters(), max_iter=4)

                def closure():
                    feats = model[0](x)
                    opt.zero_grad()
                    loss = (model[1](feats) - y).pow(2).mean()
                    loss.backward()
                    return loss

                for i in range(3):
                    opt.step(closure)
        """, unsafe=True, line=7, column=5, note="read by an optimizer closure: recomputed in the closure, "
                                                 "which LBFGS runs several times per step"),
    ]

    def finish(self) -> None:
        ctx = self.ctx
        analysis = ctx.analysis
        done = set()
        for diagnosis in analysis.diagnoses_for(self.kind):
            link, conflict = diagnosis.link, diagnosis.conflict
            if link.stmt is None or id(link.stmt) in done:
                continue
            if frozen_before(analysis, link) is not None:
                continue  # computed by a network the script froze first: no graph to free (frozen_scripts)
            done.add(id(link.stmt))
            second = conflict.second.call
            closure = _closure(ctx, link, second)
            if closure is not None:
                msg = (f"`{link.name}` is computed from trainable parameters once, before the optimizer runs "
                       f"`{closure.name.value}` (line {line(ctx, link.stmt)}), and every run of the closure reads "
                       f"it: the first backward frees its graph, so `{code(ctx, second)}` (line "
                       f"{line(ctx, second)}) fails when the optimizer runs the closure again (every step; LBFGS "
                       f"runs it several times per step). Recompute it inside the closure, or detach it if it is "
                       f"meant to be constant")
                edits = _into_closure(ctx, link, closure)
                title = f"Move the computation into `{closure.name.value}`"
            else:
                msg = (f"`{link.name}` is computed from trainable parameters once, before the loop "
                       f"(line {line(ctx, link.stmt)}), and used by every iteration: the first backward frees "
                       f"its graph, so `{code(ctx, second)}` (line {line(ctx, second)}) fails on the "
                       f"second iteration. Recompute it inside the loop, or detach it if it is meant to be constant")
                edits = self._move(analysis, diagnosis, link)
                title = "Move the computation into the loop"
                if not edits and _iterated(analysis, diagnosis, link):
                    msg += (f"; here the loop iterates values built from `{link.name}`, so it cannot move: "
                            "backward their sum once, or pass retain_graph=True to every backward but the last")
            self.report(link.stmt, msg, edits=edits, fix_title=title,
                        related=[(second, "the backward of a later iteration")] + path_note(ctx, conflict))

        for cls, key, node, read, inline in analysis.init_graphs:
            if id(node.stmt) in done:
                continue
            done.add(id(node.stmt))
            if inline:
                msg = (f"`{key}` is computed once, in `{cls.name.value}.__init__` (line {line(ctx, node.stmt)}), "
                       f"from a tensor made there that requires grad (`nn.Parameter(...)`, `requires_grad=True`), "
                       f"which the module does not keep: no optimizer sees it, the value never changes, and "
                       f"`forward` reads it on every call (line {line(ctx, read)}), so where an op on that path "
                       f"saves tensors, the second backward fails. Keep the parameter on the module "
                       f"(`self.raw = nn.Parameter(...)`) and compute `{key}` from it in `forward`")
                self.report(node.stmt, msg, related=[(read, "read here on every call")])
                continue
            msg = (f"`{key}` is computed from trainable parameters once, in `{cls.name.value}.__init__` "
                   f"(line {line(ctx, node.stmt)}), and read by `forward` (line {line(ctx, read)}): the first "
                   f"backward frees its graph, so the second fails, and the value never follows the updated "
                   f"parameters. Compute it in `forward`, or register a detached buffer if it is meant to be constant")
            self.report(node.stmt, msg, related=[(read, "read here on every call")])

        for cls, key, node, read, method in analysis.init_own_graphs:
            if id(node.stmt) in done:
                continue
            done.add(id(node.stmt))
            msg = (f"`{key}` is computed once, in `{cls.name.value}.__init__` (line {line(ctx, node.stmt)}), "
                   f"from a parameter the module makes itself, and read by `{method}` (line {line(ctx, read)}): "
                   f"the value never follows the updated parameter, and once a backward has run through it, the "
                   f"next one fails (the graph is freed). Compute it where it is read, or keep a detached copy "
                   f"if it is meant to be constant; inferred: that a loss built from `{method}` is backwarded "
                   f"more than once")
            self.report(node.stmt, msg, related=[(read, "read here")])

        self._self_graphs(analysis, done)
        self._captured(analysis, done)

    def _captured(self, analysis, done) -> None:
        """A loss module's capture pass keeps its target with the capture graph
        (analysis/captured_targets.py)."""
        from ..analysis.captured_targets import captured_targets

        ctx = self.ctx
        for found in captured_targets(analysis):
            if id(found.store) in done:
                continue
            done.add(id(found.store))
            msg = (f"`{found.key}` is captured from the input of `{found.cls.name.value}.forward` without a "
                   f"cut (line {line(ctx, found.store)}) and read by the loss of every later call (line "
                   f"{line(ctx, found.read)}): the capture pass runs once, before the optimisation loop, so the "
                   f"first backward frees its graph and the second fails (with retain_graph=True, every step "
                   f"keeps the capture graph alive). Detach the target; inferred: that the capture pass's input "
                   f"carries a graph (trainable network weights, or an image that requires grad) and that the "
                   f"target is meant to be constant")
            value = found.value
            if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or value.lpar:
                value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) \
                    if not value.lpar else value
            new = cst.Call(func=cst.Attribute(value=value, attr=cst.Name("detach")))
            self.report(found.store, msg, edits=[Edit(found.value, new)], fix_title="Detach the captured target",
                        fix=UNSAFE, related=[(found.read, "read by the loss of every call")])

    def _self_graphs(self, analysis, done) -> None:
        """A graph another method builds once and keeps on `self`, read by
        every iteration of a training loop (analysis/self_graphs.py)."""
        from ..analysis.self_graphs import self_graphs

        ctx = self.ctx
        for cls, key, store, builder, read, scope, ev, own in self_graphs(analysis):
            if id(store) in done:
                continue
            done.add(id(store))
            msg = (f"`{key}` is computed once, by `{cls.name.value}.{builder}` (line {line(ctx, store)}), and "
                   f"added to the loss of every iteration (line {line(ctx, read)}): the first backward frees "
                   f"its graph (with retain_graph=True, later backwards walk it through weights the optimizer "
                   f"has since changed), and it never follows the updated weights. Compute it inside the loop")
            if not own:
                msg += (f"; inferred: the arguments of `{builder}` are taken to be trainable weights "
                        f"(`{code(ctx, ev.call)}` retains the graph, as code that met the freed graph does)")
            self.report(read, msg, related=[(store, "built here, once"), (ev.call, "backwarded every iteration")])

    def _move(self, analysis, diagnosis, link) -> list:
        ctx = self.ctx
        stmt = link.stmt
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return []
        loop = _second_loop(analysis, diagnosis, link)
        if loop is None or not isinstance(loop.body, cst.IndentedBlock) or not loop.body.body:
            return []
        if ctx.parent(stmt) is not ctx.parent(loop) or _read_before(ctx, stmt, loop, link.name):
            return []
        first = loop.body.body[0]
        moved = stmt.with_changes(leading_lines=[ln for ln in stmt.leading_lines if ln.comment is not None])
        return [Edit(stmt, cst.RemovalSentinel.REMOVE),
                Edit(first, cst.FlattenSentinel([moved, first]))]


def _second_loop(analysis, diagnosis, link):
    """The loop whose later iteration runs the second backward."""
    lid = diagnosis.conflict.second.tag[len(link.iteration)][0]
    return analysis.loop_node(diagnosis.scope, lid)


def _between(ctx, stmt, loop) -> Optional[list]:
    """The statements after `stmt` and before `loop`, siblings in one block; None when they are not."""
    siblings = list(getattr(ctx.parent(stmt), "body", ()))
    if stmt not in siblings or loop not in siblings:
        return None
    return siblings[siblings.index(stmt) + 1:siblings.index(loop)]


def _iterated(analysis, diagnosis, link) -> bool:
    """The loop the second backward runs in iterates what `link` was read into
    (`losses = [h(z) for h in heads]`, then `for loss in losses`)."""
    loop = _second_loop(analysis, diagnosis, link)
    between = _between(analysis.ctx, link.stmt, loop)
    if not isinstance(loop, cst.For) or between is None:
        return False
    built = {(link.name or "").split(".")[0]}
    for stmt in between:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and any(type(n) is cst.Name and n.value in built
                                                     for n in nodes(small.value)):
                built |= {n.value for t in small.targets for n in nodes(t.target) if type(n) is cst.Name}
    return any(type(n) is cst.Name and n.value in built for n in nodes(loop.iter))


def _read_before(ctx, stmt, loop, name) -> bool:
    """Whether `name` is read after `stmt` and before the loop's body runs (a
    statement between them, or the loop's own iterable: `losses = [h(z) ...]`
    then `for loss in losses`): moved into the body, it would be read unbound."""
    root = (name or "").split(".")[0]
    between = _between(ctx, stmt, loop)
    if between is None:
        return True
    between.append(loop.iter if isinstance(loop, cst.For) else loop.test)
    return not root or any(type(n) is cst.Name and n.value == root for part in between for n in nodes(part))


def _closure(ctx, link, second):
    """The optimizer closure, defined beside the statement, whose backward
    needs the value: the value is recomputed there, where every run of the
    closure (several per step for LBFGS) builds its own graph."""
    from ..analysis.closures import step_closure

    outer = ctx.enclosing(link.stmt, cst.FunctionDef)
    return step_closure(ctx, second, outer) if outer is not None else None


def _into_closure(ctx, link, closure) -> list:
    """Move `name = ...` to the top of the closure, when the closure is the
    only reader of `name` in the enclosing function (moved, the name no
    longer exists outside the closure)."""
    stmt = link.stmt
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1 or \
            not isinstance(stmt.body[0], cst.Assign) or ctx.parent(stmt) is not ctx.parent(closure):
        return []
    targets = stmt.body[0].targets
    if len(targets) != 1 or not isinstance(targets[0].target, cst.Name) or targets[0].target.value != link.name:
        return []
    outer = ctx.enclosing(closure, cst.FunctionDef)
    inside = {id(n) for n in nodes(closure)} | {id(n) for n in nodes(stmt)}
    if any(isinstance(n, cst.Name) and n.value == link.name and id(n) not in inside for n in nodes(outer.body)):
        return []
    if any(isinstance(n, (cst.Nonlocal, cst.Global)) for n in nodes(closure.body)):
        return []
    body = closure.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return []
    first = body.body[0]
    moved = stmt.with_changes(leading_lines=[ln for ln in stmt.leading_lines if ln.comment is not None])
    return [Edit(stmt, cst.RemovalSentinel.REMOVE), Edit(first, cst.FlattenSentinel([moved, first]))]
