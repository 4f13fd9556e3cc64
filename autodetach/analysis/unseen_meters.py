"""Meters whose class this file's imports do not let the analysis read.

    from nni.nas.pytorch.utils import AverageMeter   # not found from here
    from utils import *                              # MovingAverageMeter
    losses = AverageMeter("losses")
    for x, y in loader:
        loss = crit(model(x), y)
        losses.update(loss, x.size(0))
        loss.backward()
    print(losses.avg)

`model.object_method` reads a meter's method only when its class is defined
in this file or imported by name from a project file it finds. Two more:

- a class a star import brings (`from utils import *`): its method is read
  there, as for a named import;
- a class out of sight (a library, or a package above the search): taken to
  keep what `update` / `add` / `append` / `accumulate` / `push` / `record` /
  `log` is given, as meters do, when the object's state is read elsewhere
  (`losses.avg`, handed to a printer or a format). Known libraries whose
  metrics detach or convert (torchmetrics, ignite, loggers) are left out.

Either way the value must be strong evidence of a graph: the very name
handed over is backwarded in the same loop (or function body), so an
accuracy or a count (`update(acc, sum(lengths))`) never makes a finding.
What was inferred goes in the note the finding's message quotes."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .backwarded import _targets
from .summaries import Summary
from .walk import nodes

METHODS = {"update", "add", "append", "accumulate", "push", "record", "log"}
# libraries whose metric and logger objects cut or convert what they are given
LIBRARIES = ("torch", "torchmetrics", "ignite", "pytorch_lightning", "lightning", "tensorboardX", "wandb",
             "mlflow", "numpy", "collections", "queue", "logging", "tqdm", "comet_ml", "neptune", "sklearn",
             "accelerate", "transformers", "fastai", "keras", "tensorflow", "visdom", "aim", "clearml")
_SKIP = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def meter_guess(analysis, base: Optional[str], meth: str, body=None) -> Optional[tuple]:
    """(summary, where, class name, note) for `base.meth(...)` when `base` is an
    object of a star-imported class whose method keeps its argument, or of a
    class out of sight taken for a meter; else None. `body`: the walked
    function's, where a local meter's state must be read."""
    if not base or meth not in METHODS or analysis.names.is_module(base):
        return None
    func = analysis.names.foreign_instances.get(base)
    if func is None:
        return None
    memo = analysis.table("_unseen_meters")
    where = analysis.ctx.module if "." in base or body is None else body
    key = (base, meth, id(where))
    if key not in memo:
        memo[key] = _guess(analysis, base, meth, func, where)
    return memo[key]


def _guess(analysis, base, meth, func, where):
    cls = (dotted(func) or "").split(".")[-1]
    if not cls[:1].isupper():
        return None
    if isinstance(func, cst.Name):
        from .project import find, summaries_of
        from .star_imports import star_file

        path = star_file(analysis, func.value)  # `from utils import *`
        if path is not None:
            import os

            found, where = find(path, f"{cls}.{meth}")
            if found is None or not found.accum:
                return None
            if any(k.startswith(cls + ".") and v.events for k, v in summaries_of(where).items()):
                return None  # a policy storing its log-probs to train on them
            note = f"`{cls}` comes through `from ... import *` ({os.path.basename(where)})"
            return found, os.path.basename(where), cls, note
    qualified = analysis.ctx.imports.qualify(func)
    if not qualified or qualified.split(".")[0] in LIBRARIES:
        return None
    if analysis.project.method(qualified, meth) is not None or analysis.project.method(qualified, "__init__"):
        return None  # read by model.object_method: its answer stands
    read = _state_read(analysis, base, where)
    if read is None:
        return None
    accum = tuple((index, None, True) for index in range(3))
    note = (f"`{qualified}` is out of sight: taken to keep what `{meth}` is given in its state, "
            f"as meters do (the object is read at line {read})")
    return Summary("unknown", accum=accum), "not read", cls, note


def _state_read(analysis, base: str, where) -> Optional[int]:
    """The first line where `base` is used other than by calling its methods
    (`base.avg`, `print(base)`, `[meter_a, base]`, `f"{base}"`), or None."""
    ctx = analysis.ctx
    calls = set()
    found = [n for stmt in where for n in nodes(stmt)] if isinstance(where, (list, tuple)) else list(nodes(where))
    for node in found:
        if type(node) is cst.Call and isinstance(node.func, cst.Attribute) and dotted(node.func.value) == base:
            calls.add(id(node.func))
    for node in found:
        if type(node) is cst.Attribute and id(node) not in calls and dotted(node.value) == base:
            return ctx.line_of(node)
        if type(node) is cst.FormattedStringExpression and dotted(node.expression) == base:
            return ctx.line_of(node)
        if type(node) in (cst.Arg, cst.Element) and dotted(node.value) == base:
            return ctx.line_of(node)
    return None


def strong(scope, arg_value) -> bool:
    """Is `arg_value` a name the loop holding the call (or the function body,
    outside any loop) backwards itself?"""
    key = dotted(arg_value)
    if not key:
        return False
    body = scope.loop_stack[0][0].body if scope.loop_stack else scope.body
    if isinstance(body, (list, tuple)):
        found = [n for stmt in body for n in nodes(stmt, skip=_SKIP)]
    else:
        found = nodes(body, skip=_SKIP)
    return any(type(n) is cst.Call and (key, True) in _targets(n) for n in found)
