"""What an evaluation pass run with gradients on keeps after it returns.

    best_loss = float("inf")

    def validate(model, loader):             # no backward, no no_grad (eval_loops)
        global best_loss
        losses = []
        for x, y in loader:
            losses.append(criterion(model(x), y))   # each batch's graph (AD102's)
        val_loss = sum(losses) / len(losses)
        if val_loss < best_loss:
            best_loss = val_loss              # kept after the call: every batch's graph with it
        return val_loss.item()

A function eval_loops finds running with gradients on (every call this file
shows is outside `torch.no_grad()` and backwards nothing it returns) frees
what it computed when it returns, except what it stores where the call does
not end it: a module global it declares `global`, or an attribute of `self`.
A value stored there that hangs from more than one iteration of the
function's loop (a sum or join of every batch's result, not one batch's)
keeps the graph of the whole pass alive until a later call rebinds it,
across everything the program runs in between (the next epochs of
training, the next pass's own graphs on top of it). A careful engineer sees
it from two facts: the pass runs with gradients on, and the stored value is
built from every batch of it. Not when code of the file backwards that
global or attribute (then the graph is wanted), nor when the store is under
`torch.no_grad()`. The fix, a detach of the stored value, rests on the
inference eval_loops makes (the callers' grad mode), so it is unsafe."""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..imports import dotted
from .graph import closure
from .walk import nodes

_BACKWARDS = ("backward", "manual_backward", "grad")


@dataclass
class Outliving:
    key: str  # `best_loss`, `self.best`
    node: object  # the store's graph node
    scope: object  # the evaluation function's walk
    loop: cst.CSTNode  # the loop whose iterations the value hangs from
    kind: str  # "a module global `f` declares" or "an attribute of `self`"


def outliving_passes(analysis) -> list:
    """Outliving per store kept past an evaluation call, once per statement."""
    out, seen = [], set()
    for scope in analysis.scopes:
        for key, node in getattr(scope, "outliving", ()):
            if node.stmt is None or id(node.stmt) in seen:
                continue
            loop = _every_iteration(scope, node)
            if loop is None or _backwarded(analysis.ctx.module, key):
                continue
            seen.add(id(node.stmt))
            kind = "an attribute of `self`" if key.startswith("self.") else \
                f"a module global `{scope.name}` declares"
            out.append(Outliving(key, node, scope, loop, kind))
    return out


def _every_iteration(scope, node):
    """The loop of the scope two of whose simulated iterations made nodes the stored value hangs from."""
    tags = set()
    for n in closure([node]):
        tags.update(n.iteration)
    loops = [scope.loops[loop_id] for loop_id in {t[0] for t in tags}
             if (loop_id, 1) in tags and (loop_id, 2) in tags and loop_id in scope.loops]
    # the outermost (the pass over the batches, not a rollout inside one batch)
    outer = [loop for loop in loops if not any(other is not loop and any(n is loop for n in nodes(other.body))
                                               for other in loops)]
    return outer[0] if outer else None


# calls that only read what they are given as a number or a string
_READERS = frozenset({"print", "float", "int", "str", "round", "format", "len", "bool", "isinstance", "repr",
                      "min", "max", "abs", "math.isnan", "math.isinf", "np.isnan", "numpy.isnan"})


def _backwarded(module, key: str) -> bool:
    """Could a backward (or `autograd.grad`) of the file reach the global or the attribute? The
    names bound from an expression that reads it (`prev = best_loss`, `loss = mse + anchor`), and
    those bound from them, are followed through the whole file whatever function binds them (a
    name is a name: more names than the program links, so more silence, never less); so is a
    parameter of a function of the file handed one of them (`validate(..., prev_loss)`). A
    backward whose receiver or arguments read one of them may train through the kept value, and
    so may any other call handed one (`torch.cat([x, self.best])`, `model(x, h)`): unless it only
    reads numbers (`print`, `float`, `max`), the answer is yes."""
    attr = key[5:] if key.startswith("self.") else None
    tainted = {key}
    functions = {n.name.value: n for n in nodes(module) if type(n) is cst.FunctionDef}

    def reads(expr) -> bool:
        for n in nodes(expr):
            if attr is not None and type(n) is cst.Attribute and n.attr.value == attr:
                return True
            if type(n) is cst.Name and n.value in tainted or type(n) is cst.Attribute and dotted(n) in tainted:
                return True
        return False

    assigns = [n for n in nodes(module) if type(n) in (cst.Assign, cst.AugAssign, cst.AnnAssign)]
    calls = [n for n in nodes(module) if type(n) is cst.Call]
    for _ in range(4):
        grown = False
        for a in assigns:
            if a.value is None or not reads(a.value):
                continue
            targets = [t.target for t in a.targets] if type(a) is cst.Assign else [a.target]
            for t in targets:
                for n in nodes(t):
                    name = dotted(n) if type(n) in (cst.Name, cst.Attribute) else None
                    if name and name not in tainted:
                        tainted.add(name)
                        grown = True
        for call in calls:
            callee = functions.get((dotted(call.func) or "").rpartition(".")[2])
            if callee is None:
                continue
            params = [p.name.value for p in callee.params.params if p.name.value != "self"]
            for i, arg in enumerate(call.args):
                if not reads(arg.value):
                    continue
                name = arg.keyword.value if arg.keyword is not None else \
                    params[i] if i < len(params) and not arg.star else None
                if name is None:
                    return True  # `f(*args)`: not followed
                if name not in tainted:
                    tainted.add(name)
                    grown = True
        if not grown:
            break
    for call in calls:
        func = dotted(call.func) or ""
        name = func.rpartition(".")[2]
        if name in _BACKWARDS and reads(call):
            return True
        if func in _READERS or name in functions:
            continue  # a reader of numbers, or a function of the file (its parameters are followed)
        if any(reads(arg.value) for arg in call.args):
            return True  # handed to code not followed
    return False
