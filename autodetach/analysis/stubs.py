"""Abstract methods: a base class's interface that subclasses fill in.

`def compute_model(self, inputs, variables): raise NotImplementedError` (or
any body under `@abstractmethod`) never runs as written when its result is
used: an override of a subclass runs, often out of sight (in another package,
a test, the user's code). Its body says nothing about what that override
returns, so the summary of such a stub must not claim that the result carries
no graph (a body that reads no `self` and returns nothing looks exactly so)."""
from __future__ import annotations

import os

import ast


def _docstring(stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _raises_not_implemented(stmt) -> bool:
    if not isinstance(stmt, ast.Raise) or stmt.exc is None:
        return False
    exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def _placeholder(stmt) -> bool:
    return isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                                          and stmt.value.value is Ellipsis)


def _abstract_decorator(dec) -> bool:
    name = dec.attr if isinstance(dec, ast.Attribute) else dec.id if isinstance(dec, ast.Name) else ""
    return name == "abstractmethod"


def abstract_stub(fn) -> bool:
    """Is `fn` (an ast function) an abstract method: its body, docstring aside,
    only `raise NotImplementedError`, or, under `@abstractmethod`, only a
    placeholder (`pass`, `...`) or that raise?"""
    body = [s for s in fn.body if not _docstring(s)]
    if len(body) == 1 and _raises_not_implemented(body[0]):
        return True
    return any(_abstract_decorator(d) for d in fn.decorator_list) and \
        all(_placeholder(s) or _raises_not_implemented(s) for s in body)


def abstract_origins(analysis, nodes) -> list:
    """Notes for the nodes built by a call of a method that the project defines
    only as abstract stubs, no override in sight (`loss, _ =
    self.learner.compute_model(batch, w)`): what the override returns, and
    whether it keeps a graph from before (a cached embedding the next call
    reads again), is inferred, not seen."""
    import libcst as cst

    from ..imports import dotted
    from .quiet_methods import project_methods

    out = []
    for node in sorted(nodes, key=lambda n: n.seq):
        call = node.expr
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            continue
        base, meth = dotted(call.func.value), call.func.attr.value
        found = project_methods(analysis, base, meth)
        if not found or not all(s.abstract for s in found):
            continue  # an override in sight is what the walk reads
        note = (f"`{base}.{meth}()` is abstract where the project defines it (`raise NotImplementedError`): "
                f"the override that runs is out of sight, taken to build its result anew on each call")
        if note not in out:
            out.append(note)
    return out


def unseen_call_origins(analysis, nodes, noted) -> list:
    """Notes for the nodes of a retained graph that come out of a call the walk
    cannot see into (`loss = self.compute_loss(batch)` of a method an override
    out of sight defines, `self.learner.compute_model(...)` of a class of another
    package): the graph is only proven by the backward, so that the next call
    builds it anew, keeping nothing of this call's graph for a later backward to
    walk again (a cached embedding, a running sum), is inferred. `noted`: the
    notes already given (an abstract stub's names the call)."""
    import libcst as cst

    from ..imports import dotted

    out = []
    for node in sorted(nodes, key=lambda n: n.seq):
        call = node.expr
        if node.parents or node.leaf or not isinstance(call, cst.Call):
            continue
        if node.kind == "module" and node.modules and _state_method(analysis, call):
            pass  # `net.loss_a(batch)`: not its forward; it may read what an earlier call kept on `net`
        elif node.kind != "op" or node.modules:
            continue  # a module's forward builds its graph anew from its parameters and inputs
        name = dotted(call.func)
        if name is None or name.split(".")[0] in ("torch", "F", "nn", "np", "math"):
            continue
        if any(f"`{name}()`" in note for note in noted + out):
            continue
        out.append(f"`{name}()` returns a graph the analysis cannot see into, taken to be built anew on each "
                   f"call (none of it kept for a later call's backward to walk again)")
    return out


# What a module answers without reading state an earlier call left on it.
_FORWARD_LIKE = {"forward", "__call__", "apply", "to", "cuda", "cpu", "float", "double", "half", "train", "eval"}


def _state_method(analysis, call) -> bool:
    """`net.loss_a(batch)` of an object whose class is not one of this file's: a method of a module
    other than its forward may read what an earlier call kept on the object (`self.out`), which the
    next loss reads again."""
    import libcst as cst

    from ..imports import dotted

    if not isinstance(call.func, cst.Attribute) or call.func.attr.value in _FORWARD_LIKE \
            or call.func.attr.value.startswith("__"):
        return False
    base = dotted(call.func.value)
    func = analysis.names.foreign_instances.get(base) if base is not None else None
    cls = dotted(func) if func is not None else None
    if cls is None:
        return False  # not an instance this file builds from a class it imports
    meth = call.func.attr.value
    path = analysis.ctx.path
    if path and os.path.isfile(path):
        from .project import find

        if find(path, f"{cls.rpartition('.')[2]}.{meth}")[0] is not None:
            return False  # the class's method is in the project: its summary answers
    return True
