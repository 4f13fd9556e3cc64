"""A module whose forward backwards a loss and then returns a value that
still hangs from the graph that backward freed.

`((quantize - x) ** 2).mean().backward()` inside `forward` (an in-place
codebook update), then `return x + (quantize - x).detach()`: the returned
value reaches `x`, whose graph (the projection layer's, the caller's
encoder's) the inner backward has freed, so the caller's backward through
the output fails ("Trying to backward through the graph a second time").
Read from the forward walk of the class (Analysis.forward_walks), where the
inputs carry a graph."""
from __future__ import annotations

from dataclasses import dataclass

from .graph import closure


@dataclass
class ForwardFree:
    cls: object  # the ClassDef
    event: object  # the backward inside forward
    node: object  # a freed node a returned value reaches (saves tensors, made in forward)


def forward_frees(analysis) -> list:
    """One record per class: the first backward of its forward that frees a
    graph one of its returned values still reaches."""
    out = []
    for cls, _methods, scope in analysis.forward_walks:
        backwards = [e for e in scope.events if e.kind == "backward" and e.retain is False
                     and not e.helper and not e.framework]
        if not backwards or not scope.returns:
            continue
        found = _first(analysis, scope, backwards)
        if found is not None:
            out.append(ForwardFree(cls, *found))
    return out


def _first(analysis, scope, backwards):
    heads = {head for val in scope.returns for head in val.heads}
    for event in backwards:
        # an update the forward makes itself (a codebook's own optimizer): a forward that leaves the
        # step to its caller is a training step, whose returns are losses and statistics to log
        steps = [e for e in scope.events if e.kind == "step" and e.seq > event.seq]
        if not steps:
            continue
        # nor one that clears those optimizers' gradients before the pass (zero_grad, backward, step):
        # a whole training step of those modules, which returns what it trained for display and logs
        opts = {step.opt for step in steps}
        if any(e.kind == "zero" and e.opt in opts and e.seq < event.seq for e in scope.events):
            continue
        # what the caller trains through: a module's output, or a value made after the pass; not the loss,
        # a value built on it (`l_total = l_fake + l_real`), a term or statistic computed before it, nor a
        # value made in another arm
        losses = {head for head in event.target.heads if head.loss or head.kind == "loss"}
        outputs = [head for head in heads if (head.modules or head.seq > event.seq) and not closure([head]) & losses
                   and not _exclusive(head.branch, event.branch)]
        reached = closure(outputs)
        freed = [n for n in _read_by_loss(event) if n in reached and not n.leaf and not n.trivial
                 and n.stmt is not None and not _superseded(scope, n, event) and _foreign(analysis, n, steps)]
        if freed:
            return event, max(freed, key=lambda n: n.seq)
    return None


def _foreign(analysis, node, steps) -> bool:
    """The graph freed under `node` holds a module none of the forward's own steps
    updates (the projection before a codebook): `node`'s own, or the first module
    call on each path above it. Modules whose optimizer is not known count as updated."""
    def not_stepped(n) -> bool:
        return any(all(analysis.owner_uses(step.opt, module) is False for step in steps) for module in n.modules)

    if node.modules and not_stepped(node):
        return True
    seen, stack = {node}, list(node.parents)
    while stack:
        parent = stack.pop()
        if parent in seen:
            continue
        seen.add(parent)
        if parent.modules:
            if not parent.leaf and not_stepped(parent):
                return True
            continue
        stack.extend(parent.parents)
    return False


def _read_by_loss(event) -> set:
    """The nodes the backwarded loss reads through operations of this forward,
    down to the first module call on each path (a codebook's own output, the
    projection's): what the loss's own code shows it reaches. Past a module
    call the analysis assumes its input's graph flows on, which a lookup
    (`embed[argmin]`) does not do."""
    seen, stack = set(), list(event.target.heads)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node.kind == "module" or node.modules:
            continue
        stack.extend(node.parents)
    return seen


def _superseded(scope, node, event) -> bool:
    """The name that held `node` is bound again after the pass, on its path
    (`quantize = codebook(x)` once more after the update): later reads see the new value."""
    if not node.name:
        return False
    depth = len(event.branch)
    return any(other.name == node.name and other.seq > event.seq and other.branch[:depth] == event.branch
               for other in scope.nodes)


def _exclusive(one: tuple, other: tuple) -> bool:
    """Made in different arms of one `if` (`if mode == "gen": ... elif mode == "dis": ...`)."""
    arms = dict(one)
    return any(if_id in arms and arms[if_id] != arm for if_id, arm in other)
