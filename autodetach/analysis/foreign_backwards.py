"""Methods of another file's class that run `.backward()` on what they are handed.

    # metabalance.py
    class MetaBalance(Optimizer):
        @torch.no_grad()
        def step(self, loss_array):
            self.balance_GradMagnitudes(loss_array)

        def balance_GradMagnitudes(self, loss_array):
            for loss in loss_array:
                loss.backward(retain_graph=True)
                ...

    # train.py
    metabalance.step([loss_buy, loss_click])     # a backward of these losses' graph

The summary of a method says which parameters it backwards (`backward_params`).
A method that only hands a parameter on to another method of its class
(`self.balance_GradMagnitudes(loss_array)`) backwards it when that method does;
one such hop is followed, read in the class's file (stdlib `ast`)."""
from __future__ import annotations

import ast
from typing import Optional

from ..imports import dotted
from .callers import tree_of


def backwarded_params(analysis, base: str, meth: str, found) -> Optional[tuple]:
    """(parameter names after self that `base.meth(...)` backwards, retain, every
    parameter name after self) where `found` is the method's (summary, file); None
    when it backwards none."""
    summary, path = found
    if summary.backward_args and summary.backward_params:
        # only what its backward reads past cuts (`kl_div(model(x + d), preds.detach())` walks no graph of `preds`)
        live = summary.live_backward_params
        return (live, summary.backward_retain, summary.params) if live else None
    if not summary.self_calls:
        return None
    method = _method(path, (dotted(analysis.names.foreign_instances.get(base)) or "").split(".")[-1], meth)
    if method is None:
        return None
    params = [arg.arg for arg in method.args.args[1:]]
    out, retains = [], set()
    for node in ast.walk(method):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
                isinstance(node.func.value, ast.Name) and node.func.value.id == "self" and
                node.func.attr in summary.self_calls and node.func.attr != meth):
            continue
        hit = analysis.foreign_method(base, node.func.attr)
        if hit is None or not (hit[0].backward_args and hit[0].backward_params):
            continue
        for index, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred):
                break
            if index < len(hit[0].params) and hit[0].params[index] in hit[0].live_backward_params and \
                    isinstance(arg, ast.Name) and arg.id in params and arg.id not in out:
                out.append(arg.id)
                retains.add(hit[0].backward_retain)
    if not out:
        return None
    return tuple(out), retains.pop() if len(retains) == 1 else None, tuple(params)


def _method(path: str, cls: str, meth: str):
    """The FunctionDef of `cls.meth` in the file at `path`, or None."""
    tree = tree_of(path)[1] if cls else None
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == meth:
                    return item
    return None
