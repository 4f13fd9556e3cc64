"""Evaluation loops beside the training loop, run with gradients on.

    for epoch in range(epochs):
        for x, y in train_loader:
            loss = crit(net(x), y)
            loss.backward()
            opt.step()
        total = 0
        for x, y in test_loader:             # no backward, no torch.no_grad()
            total += crit(net(x), y)         # each test batch's graph is kept
        print(total / len(test_loader))

A loop with no backward is not a training loop, and its sums are usually
built under `torch.no_grad()`. Here the same walk sees the grad mode (on),
sees the training loop backward through the very module the loop calls,
and sees that nothing backwards the sum: the graphs are built and kept for
nothing until the sum is dropped. Only sums named or built as losses count,
and `+=` sums of anything (`center_sum += gamma.t() @ z` in a pass over the
data after training): AD101 reports those that are not losses.
"""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .factories import factory_notes
from .graph import closure
from .roles import looks_like_loss
from .walk import nodes

# calls that only read or log what they are given (`print(total)`, `writer.add_scalar("val", total)`)
_READERS = {"print", "float", "int", "str", "round", "format", "len", "min", "max", "sum", "abs", "step",
            "info", "debug", "warning", "set_postfix", "set_description", "append"}
_READER_PREFIXES = ("log", "print", "write", "save", "plot", "report", "add_scalar")
# context managers around the loop that leave the grad mode alone
_PLAIN_CONTEXTS = {"open", "tqdm", "nullcontext", "autocast", "Timer", "timer", "profile", "record_function"}
# statements that switch the grad mode for what follows, not a `with` block the walk sees
_SWITCHES = {"set_grad_enabled", "inference_mode", "no_grad", "_set_grad_enabled"}


def evaluation_loop(scope, loop, key: str, head) -> bool:
    """Is `loop` (no backward inside) an evaluation run with gradients on
    whose sum `key` keeps graphs of a module the scope trains? Marks it."""
    if scope.loop_grad.get(id(loop), 1) or scope.eval_note is not None:
        return False
    if not (head.loss or looks_like_loss(key) or head.kind == "accum" or rebound_sum(head, key)):
        return False
    trained = set()
    for event in scope.events:
        if event.kind == "backward" and event.loops and loop not in event.loops:
            trained |= {m for node in event.reach for m in node.modules}
    if not trained:
        return False
    here = (id(loop), 2)
    built = [node for node in closure([head]) if here in node.iteration]
    if any(node in event.reach for event in scope.events if event.kind in ("backward", "grad") for node in built):
        return False  # a backward reads what the loop built (`losses[i].backward()` in a later loop)
    if not (head.loss or looks_like_loss(key)) and factory_notes(scope.analysis, built):
        return False  # a sum of anything whose graph rests on a call not followed (`env.step(action)`'s reward)
    used = {m for node in built for m in node.modules}
    if not used & trained:
        return False  # not the module the training steps: its parameters may be frozen
    if any(_switched(stmt) or _handed_on(stmt, key) for stmt in scope.body):
        return False
    if _unknown_context(scope, loop):
        return False
    scope.eval_loops.add(id(loop))
    return True


def rebound_sum(head, key: str) -> bool:
    """`total = total + err`: the same running sum as `total += err`, written out."""
    small = getattr(head.stmt, "body", (None,))[0]
    if type(small) is not cst.Assign or len(small.targets) != 1 or dotted(small.targets[0].target) != key:
        return False
    value = small.value
    return type(value) is cst.BinaryOperation and type(value.operator) is cst.Add and \
        key in (dotted(value.left), dotted(value.right))


def _switched(stmt) -> bool:
    """A call in the scope that sets the grad mode outside a `with`
    (`torch.set_grad_enabled(False)` as a statement): the walk does not follow it."""
    for node in nodes(stmt, skip=(cst.FunctionDef, cst.ClassDef)):
        if type(node) is cst.Expr and type(node.value) is cst.Call:
            func = node.value.func
            name = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
            if name in _SWITCHES:
                return True
    return False


def _handed_on(stmt, key: str) -> bool:
    """Is the sum (or what is computed from it) an argument of a call that may
    backward it (`trainer.optimize(total)`)? Readers and loggers only read."""
    for node in nodes(stmt, skip=(cst.FunctionDef, cst.ClassDef)):
        if type(node) is not cst.Call:
            continue
        name = (dotted(node.func) or "").rpartition(".")[2]
        if name in _READERS or name.startswith(_READER_PREFIXES):
            continue
        for arg in node.args:
            if any(type(n) in (cst.Name, cst.Attribute) and dotted(n) == key for n in nodes(arg.value)):
                return True
    return False


def _unknown_context(scope, loop) -> bool:
    """Is the loop inside a `with` of the project's own (`with evaluating(model):`)?
    It may turn gradients off where the walk cannot see it."""
    ctx = scope.analysis.ctx
    imports = ctx.imports
    node = ctx.parent(loop)
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
        if type(node) is cst.With:
            for item in node.items:
                call = item.item.func if type(item.item) is cst.Call else item.item
                qualified = imports.qualify(call) or dotted(call) or ""
                if not qualified.startswith("torch.") and qualified.rpartition(".")[2] not in _PLAIN_CONTEXTS:
                    return True
        node = ctx.parent(node)
    return False


def trained_modules(scope) -> frozenset:
    """Modules whose parameters provably carry gradients here: an optimizer
    whose owned modules are known steps them after a backward, and that
    backward walks a call of each. The output of such a module, in grad
    mode, carries a graph whatever its input came through (an unseen
    encoder's output fed to `nn.Linear`): the question `_uncertain_below`
    asks of the input does not arise."""
    stepped = set()
    for event in scope.events:
        if event.kind == "step" and event.opt is not None:
            opt = scope.analysis.names.optimizers.get(event.opt)
            if opt is not None and opt.owns:
                stepped |= set(opt.owns)
    if not stepped:
        return frozenset()
    walked = {m for event in scope.events if event.kind == "backward" for node in event.reach for m in node.modules}
    return frozenset(stepped & walked)
