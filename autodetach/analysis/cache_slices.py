"""A per-step cache on `self` that a training method consumes in part and
stores back as a slice of the joined tensor.

    class Policy:
        def __call__(self, state):
            dist = Categorical(logits=self.model(state))
            self._log_probs.append(dist.log_prob(action))   # one entry per step
        def reinforce(self, errors):
            log_probs = torch.cat(self._log_probs)
            self._log_probs = [log_probs[len(errors):]]      # the rest, for the next call
            loss = -torch.dot(log_probs[:len(errors)], errors)
            loss.backward(retain_graph=True)

The stored slice hangs from the `torch.cat` node, which holds every entry
just joined, the trained ones too: the next call joins the slice again, so
each call's graph chains onto the previous ones and none is ever freed
(without the retain, the next backward walks into freed entries). Keeping
the entries not yet used as they were stored (`self._log_probs =
self._log_probs[n:]`, whole items) ends the chain; detaching the slice would
cut the gradient those entries still owe the next loss, so no fix is offered.
That the entries carry a graph is read from the method's backward, whose
loss is built from them while no network runs in the method: an inference
the report states."""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..imports import dotted
from .buffer_updates import CUT_ATTRS, CUT_METHODS
from .plain_values import not_tensor
from .walk import class_methods, nodes

JOINS = {"torch.cat", "torch.stack", "torch.concat"}
ADDS = {"append", "extend", "insert"}


@dataclass
class KeptSlice:
    store: cst.Assign  # `self._log_probs = [log_probs[n:]]`
    key: str  # `self._log_probs`
    joined: cst.Assign  # `log_probs = torch.cat(self._log_probs)`
    backward: cst.Call  # the backward whose loss is built from the joined tensor
    method: str  # `SoftmaxPolicy.reinforce`
    adder: str  # the method that adds entries: `SoftmaxPolicy.cache`


def kept_slices(analysis) -> list:
    return analysis.memo("_kept_slices", lambda: _find(analysis))


def _find(analysis) -> list:
    out = []
    for cls in (n for n in nodes(analysis.ctx.module) if type(n) is cst.ClassDef):
        methods = class_methods(cls)
        for name, fn in methods.items():
            if name != "__init__":
                out.extend(_in_method(analysis, cls, methods, fn))
    return out


def _own(fn) -> list:
    """The nodes of `fn`'s body, without those of nested functions, classes and lambdas."""
    skip = set()
    for n in nodes(fn.body):
        if type(n) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            skip.update(id(m) for m in nodes(n))
    return [n for n in nodes(fn.body) if id(n) not in skip]


def _in_method(analysis, cls, methods, fn) -> list:
    own = _own(fn)
    backwards = [n for n in own if type(n) is cst.Call and type(n.func) is cst.Attribute and
                 n.func.attr.value == "backward" and type(n.func.value) is cst.Name]
    if not backwards or _runs_network(analysis, own, methods):
        return []  # with a network run here, the loss's graph may come from it alone
    deps: dict = {}
    joins = []
    for n in own:
        if type(n) is not cst.Assign:
            continue
        read = {m.value for m in nodes(n.value) if type(m) is cst.Name}
        for name in _bound_names(n):
            deps.setdefault(name, set()).update(read)
        key = _joined_key(analysis, n)
        if key is not None:
            joins.append((n, key))
    out = []
    for joined, key in joins:
        local = joined.targets[0].target.value
        adder = next((f"{cls.name.value}.{m}" for m, other in methods.items()
                      if other is not fn and m != "__init__" and _adds_to(analysis, methods, other, key)), None)
        backward = next((b for b in backwards if local in _closure(deps, b.func.value.value)), None)
        if adder is None or backward is None:
            continue
        after = own[next(i for i, n in enumerate(own) if n is joined) + 1:]
        views = {local}  # names bound to a view of the join: `used, rest = log_probs.split([n, m])`
        for n in after:
            if type(n) is not cst.Assign:
                continue
            if _stores_view(analysis, n, key, views, local):
                out.append(KeptSlice(n, key, joined, backward, f"{cls.name.value}.{fn.name.value}", adder))
            elif _view_of(analysis, n.value, views) is not None:
                views.update(_bound_names(n))
            else:
                views.difference_update(_bound_names(n))  # rebound to something else
    return out


def _bound_names(assign) -> list:
    """The plain names an assignment binds: `v = ...`, `used, rest = ...`."""
    out = []
    for target in assign.targets:
        t = target.target
        parts = [e.value for e in t.elements] if type(t) in (cst.Tuple, cst.List) else [t]
        out.extend(p.value for p in parts if type(p) is cst.Name)
    return out


def _joined_key(analysis, assign):
    """`v = torch.cat(self.X)` (one name bound): `self.X`, or None."""
    if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
        return None
    value = assign.value
    if type(value) is not cst.Call or not value.args or \
            analysis.ctx.imports.qualify(value.func) not in JOINS:
        return None
    key = dotted(value.args[0].value)
    return key if key and key.startswith("self.") and key.count(".") == 1 else None


def _stores_view(analysis, assign, key, views, local) -> bool:
    """`self.X = [v[n:]]`, `self.X = v.narrow(0, n, m)`, `self.X = [rest]`: every value
    stored is a view of the join (the join itself, stored whole, is not taken)."""
    if len(assign.targets) != 1 or dotted(assign.targets[0].target) != key:
        return False
    value = assign.value
    parts = [e.value for e in value.elements] if type(value) in (cst.List, cst.Tuple) else [value]
    found = [_view_of(analysis, p, views) for p in parts]
    return bool(parts) and all(steps is not None and (steps or dotted(p) != local) for steps, p in zip(found, parts))


VIEW_METHODS = {"narrow", "view", "reshape", "split", "chunk", "unbind", "squeeze", "unsqueeze", "flatten",
                "tensor_split", "view_as", "reshape_as"}
VIEW_FUNCTIONS = {"torch.split", "torch.chunk", "torch.narrow", "torch.unbind", "torch.tensor_split"}


def _view_of(analysis, expr, views):
    """How many view steps lead from a name in `views` to `expr` (`v[n:]`, `v.split(k)[1]`,
    `torch.narrow(v, 0, n, m)`); None when `expr` is not a view of one."""
    steps = 0
    while True:
        if type(expr) is cst.Subscript:
            expr = expr.value
        elif type(expr) is cst.Call and expr.args and analysis.ctx.imports.qualify(expr.func) in VIEW_FUNCTIONS:
            expr = expr.args[0].value
        elif type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value in VIEW_METHODS:
            expr = expr.func.value
        else:
            break
        steps += 1
    return steps if type(expr) is cst.Name and expr.value in views else None


def _adds_to(analysis, methods, fn, key) -> bool:
    """Does `fn` add to `self.X` a value that may carry a graph? Not a number or a
    fresh tensor (`torch.tensor(r)`, `x.detach()`); a parameter added as it is
    counts unless every call of `fn` in the class hands it such a value."""
    params = [p.name.value for p in fn.params.params]
    for n in _own(fn):
        if not (type(n) is cst.Call and type(n.func) is cst.Attribute and n.func.attr.value in ADDS and
                dotted(n.func.value) == key and n.args):
            continue
        value = n.args[-1].value
        if type(value) is cst.Name and value.value in params[1:]:
            at = params.index(value.value) - 1
            handed = [c.args[at].value for m in methods.values() for c in _own(m)
                      if type(c) is cst.Call and dotted(c.func) == f"self.{fn.name.value}" and len(c.args) > at and
                      c.args[at].keyword is None and not c.args[at].star]
            if not handed or not all(_plain(analysis, h) for h in handed):
                return True
        elif not _plain(analysis, value):
            return True
    return False


FRESH = {"torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.Tensor", "torch.FloatTensor",
         "torch.LongTensor", "torch.zeros", "torch.ones", "torch.full", "torch.rand", "torch.randn", "torch.empty"}


def _plain(analysis, expr) -> bool:
    """A value that carries no graph: a number, a fresh tensor, or a cut (`x.detach()`, `x.item()`)."""
    ctx = analysis.ctx
    if not_tensor(ctx, expr):
        return True
    if type(expr) is cst.Attribute and expr.attr.value in CUT_ATTRS:
        return True
    if type(expr) is not cst.Call:
        return False
    if type(expr.func) is cst.Attribute and expr.func.attr.value in CUT_METHODS:
        return True
    qualified = ctx.imports.qualify(expr.func) or ""
    return qualified in FRESH or qualified.startswith("numpy.")


def _closure(deps: dict, name: str) -> set:
    seen, todo = set(), [name]
    while todo:
        cur = todo.pop()
        if cur not in seen:
            seen.add(cur)
            todo.extend(deps.get(cur, ()))
    return seen


def _runs_network(analysis, own, methods) -> bool:
    """A call of a module (`self.model(x)`, `net.forward(x)`) in the method; a
    callable kept on `self` that is not a method of the class counts as one."""
    names = analysis.names
    for n in own:
        if type(n) is not cst.Call:
            continue
        func = n.func
        if type(func) is cst.Attribute and func.attr.value == "forward":
            func = func.value
        key = dotted(func)
        if key and (names.is_module(key) or key.startswith("self.") and key.count(".") == 1 and
                    key[5:] not in methods):
            return True
    return False
