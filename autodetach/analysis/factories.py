"""Objects built by another file of the project (`self.loss_fn =
create_loss_function(cfg)`, `self.criterion = init_loss(opt)`): what a call
of such an object returns is taken to carry its arguments' graph, an
inference about code this file does not show. The rules name it."""
from __future__ import annotations

import os
import sys
from typing import Optional

import libcst as cst

from ..imports import dotted
from .project import SKIP, module_file_up
from .walk import nodes


def _built(analysis) -> dict:
    """key -> (factory name, module) for `key = f(...)` / `key = C(...)` where
    `f` is imported from a module outside torch and the standard library."""
    return analysis.memo("_built_by", lambda: _find_built(analysis))


def _find_built(analysis) -> dict:
    ctx = analysis.ctx
    out: dict = {}
    for n in nodes(ctx.module):
        if type(n) is not cst.Assign or not isinstance(n.value, cst.Call):
            continue
        func = dotted(n.value.func)
        if func is None:
            continue
        qualified = ctx.imports.qualify(n.value.func)
        if qualified is not None:
            if qualified.split(".")[0] in SKIP + ("builtins",) or "." not in qualified:
                continue
            if qualified.startswith("torch") and not _in_project(ctx.path, qualified):
                continue  # torchvision, torchaudio: a library (torch_geometric inside its own checkout is not)
            where = qualified.rpartition(".")[0]
        else:
            hit = ctx.imports.relative.get(func.split(".")[0])
            if hit is None:
                continue
            where = "." * hit[0] + hit[1]
        targets = [t.target for t in n.targets]
        if len(targets) == 1 and isinstance(targets[0], cst.Tuple):
            targets = [e.value for e in targets[0].elements]
        for t in targets:
            key = dotted(t)
            if key is not None:
                out.setdefault(key, (func.split(".")[-1], where))
    return out


def _in_project(path, qualified: str) -> bool:
    if not path or path == "<string>":
        return False
    return module_file_up(os.path.dirname(os.path.abspath(path)), qualified.split(".")[:-1]) is not None


def factory_note(analysis, call) -> Optional[str]:
    """What is inferred about `obj(...)` / `obj.m(...)` when `obj` was built by
    another file's factory or class; None otherwise."""
    if not isinstance(call, cst.Call):
        return None
    func = dotted(call.func)
    if func is None:
        return None
    table = _built(analysis)
    for key in (func, func.rpartition(".")[0]):
        if analysis.names.is_module(key):
            return None  # a model's output carries its parameters' graph: nothing inferred
        hit = table.get(key)
        if hit is not None and key == func and key in analysis.names.foreign_instances and \
                (analysis.foreign_method(key, "__call__") or analysis.foreign_method(key, "forward")):
            return (f"`{func}(...)` is taken to return values that carry its arguments' graph (`{key}` is an "
                    f"object of `{hit[0]}` of `{hit[1]}`, whose forward is read in that file)")
        if hit is not None:
            return (f"`{func}(...)` is taken to return values that carry its arguments' graph (`{key}` is built "
                    f"by `{hit[0]}` of `{hit[1]}`, whose code is not followed)")
    return _unread_method_note(analysis, call)


def _unread_method_note(analysis, call) -> Optional[str]:
    """`evaluator.eval(out, y)` of an object this file does not build, `eval` no method of a
    tensor or a container and not read here: that it hands back its arguments' graph is
    only assumed (it may return numbers)."""
    from .tensor_methods import BUILTIN_METHODS

    func = call.func
    if not isinstance(func, cst.Attribute) or not call.args:
        return None
    base, meth = dotted(func.value), func.attr.value
    names = analysis.names
    if base is None or base == "self" or meth in BUILTIN_METHODS or names.is_module(base) or \
            base in names.instances or names.method(base, meth) is not None or \
            analysis.ctx.imports.qualify(func) is not None:
        return None
    if analysis.foreign_method(base, meth) is not None:
        return None  # read from its class in another file of the project
    return (f"`{base}.{meth}(...)` is taken to return values that carry its arguments' graph (`{meth}` is no "
            f"tensor method, and its code is not followed)")


def factory_notes(analysis, graph_nodes) -> list:
    out = set()
    read_from = analysis.table("override_nodes")  # built by the one override of an abstract method
    for n in graph_nodes:
        note = factory_note(analysis, n.expr) or read_from.get(n)
        if note:
            out.add(note)
    return sorted(out)


def library_keeper_note(analysis, key: str, stmt) -> Optional[str]:
    """`run_loss.append(loss)` where `run_loss = CumulativeAverage()` of a library
    (`monai.metrics`): the method is not read, so that the object keeps the graph
    of what it is given (as a list would) is inferred; it may detach it."""
    func = analysis.names.foreign_instances.get(key)
    meth = next((n.func.attr.value for n in nodes(stmt) if isinstance(n, cst.Call) and
                 isinstance(n.func, cst.Attribute) and dotted(n.func.value) == key), None)
    if func is None:
        from .flow import CONTAINER_ADD
        from .unread_keepers import unread_keeper_note

        if meth not in CONTAINER_ADD or key in analysis.names.instances:
            return None
        return unread_keeper_note(analysis, key, meth)  # `avg = meters.averager()`: no container we know
    if meth is None or analysis.foreign_method(key, meth) is not None:
        return None  # read from the project's own class
    name = analysis.ctx.imports.qualify(func) or dotted(func) or ""
    if name.split(".")[0] in sys.stdlib_module_names or name.split(".")[0] == "builtins":
        return None  # `collections.deque`, `queue.Queue`: they keep what they are given
    return (f"`{key}` is an object of `{name}`, whose `{meth}` is not read: that it keeps its argument with "
            f"its graph is taken from the name")
