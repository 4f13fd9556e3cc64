"""State one method of a class keeps on `self` for another, and objects of
project classes whose methods cut some of their arguments.

    def forward(self):
        self.fake_B = self.netG(self.real_A)        # a graph, kept on self

    def backward_D(self):
        loss = self.disc_loss.get_loss(self.netD, self.fake_B, self.real_B)
        loss.backward(retain_graph=True)

`self.fake_B`, read in `backward_D`, carries the graph `forward` built; the
summary pass (summaries.stores_graph) says which attributes a method other
than `__init__` fills with a network's output. `self.disc_loss` is built by
a factory of another file; the project's classes that define `get_loss` with
as many parameters say, per argument, whether their result hangs from it
(summaries.arg_flow: `net(fake.detach())` does not hang from `fake`). Both
rest on code this scope does not show; what they conclude is an inference
the findings name."""
from __future__ import annotations

import os
from typing import Optional

import libcst as cst

from ..imports import dotted
from .factories import _built
from .project_index import classes_with_method
from .runtime_classes import runtime_objects
from .tensor_methods import TENSOR_ONLY


def scope_class(analysis, scope) -> Optional[str]:
    """The class whose method `scope` walks (the method itself or its caller)."""
    if getattr(scope, "self_class", None):
        return scope.self_class
    memo = analysis.table("_scope_class")
    key = id(scope)
    if key not in memo:
        first = scope.body[0] if scope.body else None
        memo[key] = next((cls for (cls, _), m in analysis.names.methods.items()
                          if isinstance(m.body, cst.IndentedBlock) and m.body.body and m.body.body[0] is first),
                         None)
    return memo[key]


def stored_graph_keys(analysis, cls: str) -> frozenset:
    """`self.X` keys that a method of `cls` other than `__init__` fills with a graph."""
    memo = analysis.table("_stored_graph_keys")
    if cls not in memo:
        table = analysis._own_summaries.of_class(cls)  # the classes after it need no summary
        memo[cls] = frozenset(k for s in table.values() for k in getattr(s, "stores_graph", ()))
    return memo[cls]


def object_flow(analysis, call: cst.Call, base: str, meth: str) -> Optional[tuple]:
    """(flow per positional argument, note) for `base.meth(...)` where `base`
    is built by another file's factory or a class chosen at run time, from
    the project classes whose `meth` takes that many arguments; None when
    there are none or the call has keywords or stars."""
    if analysis.ctx.path in (None, "<string>") or any(arg.keyword is not None or arg.star for arg in call.args) or \
            meth in TENSOR_ONLY:
        return None  # `fake.mean()`: a tensor's method, whatever project class also defines `mean`
    how = _built(analysis).get(base)
    if how is None and base not in runtime_objects(analysis):
        return None
    n = len(call.args)
    found = [(cls, s, f) for cls, s, f in classes_with_method(analysis.ctx.path, meth)
             if s.arg_flow is not None and len(s.arg_flow) == n]
    if not found:
        return None
    flow = []
    for i in range(n):
        kinds = {s.arg_flow[i] for _, s, _ in found}
        flow.append("unknown" if "unknown" in kinds else "graph" if "graph" in kinds else "cut")
    names = ", ".join(sorted({cls for cls, _, _ in found})[:3]) + (", ..." if len(found) > 3 else "")
    where = os.path.basename(found[0][2])
    origin = f"built by `{how[0]}`" if how else "of a class chosen at run time"
    note = (f"`{base}` is {origin}; the {len(found)} project classes whose `{meth}()` takes "
            f"{n} arguments ({names}, in {where} and beside it) cut")
    return tuple(flow), note


def object_call(scope, e: cst.Call, f: cst.Attribute) -> Optional[object]:
    """The value of `obj.meth(args)` when object_flow knows what each argument
    passes; None: not known (nothing is evaluated then)."""
    Val = _flow.Val

    base = dotted(f.value)
    if base is None or scope.names.is_module(base):
        return None
    hit = object_flow(scope.analysis, e, base, f.attr.value)
    if hit is None:
        return None
    flow, note = hit
    vals = [None if scope.names.is_module(dotted(arg.value) or "") else scope.expr(arg.value) for arg in e.args]
    out = Val(nontrivial=True)
    dropped = []
    for arg, v, k in zip(e.args, vals, flow):
        if v is None:  # a module: its parameters are leaves, the result may hang from them
            key = dotted(arg.value)
            if k != "cut" and scope.names.has_params(key):
                out.modules = out.modules | frozenset({key})
            continue
        if k == "graph" or k == "unknown":  # unknown: taken to pass it
            out = out.join(v)
        elif v.graph:
            dropped.append(scope.analysis.ctx.code(arg.value))
            out = out.join(Val(ghosts=v.heads | v.ghosts))
    out.nontrivial = True
    if dropped:
        notes = scope.analysis.table("object_flow_notes")
        notes[id(e)] = note + " " + ", ".join(f"`{text}`" for text in dropped) + " from the result"
    return out


def stored_node(scope, key: str):
    """A node for `self.X` read before this scope writes it, when another
    method of the class keeps a graph there; None otherwise."""
    cls = scope_class(scope.analysis, scope)
    if cls is None or key not in scope.analysis._own_summaries.self_targets(cls) or \
            key not in stored_graph_keys(scope.analysis, cls) or scope.names.is_module(key):
        return None
    n = scope.leaf(key, ())
    n.kind = "stored"
    return n


# Bound at the end (flow imports this module): a relative import inside a
# function costs microseconds each time, and object_call runs hundreds of times a pass.
from . import flow as _flow  # noqa: E402
