"""A meter class whose callers live in other files of the project.

`LossesTrackEpoch.update_train_losses(loss)` adds each entry of its argument
into `self` state; train.py calls it once per batch with `loss`, whose
`loss['total'].backward()` shows it carries a graph. The bug and its fix are
in the meter (one `.detach()` there serves every caller), so the finding is
reported in the meter's file, at the store. What the callers pass is read from
their stdlib-`ast` summaries (summaries.passed_graphs), an inference the
finding names."""
from __future__ import annotations

import os
from dataclasses import dataclass

import libcst as cst

from .project import summaries_of, text_of
from .summaries import CALLS, calls_backward


@dataclass
class RemoteStore:
    cls: str
    meth: str
    line: int  # the store in this file
    whole: bool
    callers: list  # (file, line, name)
    callee: str = ""  # the imported function out of sight the value goes through (summaries' guessed)


def remote_meter_stores(analysis) -> list:
    path = analysis.ctx.path
    if not path or path == "<string>" or not os.path.isfile(path):
        return []
    stem = os.path.splitext(os.path.basename(path))[0]
    importers = _importers(path, stem)
    if not importers:
        return []  # no caller can exist: this file's own summaries are not needed
    table = analysis._own_summaries
    out = []
    for name in table.class_keys():
        cls, _, meth = name.partition(".")
        needle = f".{meth}(".encode()
        if not any(needle in text for _, text in importers):
            continue  # no caller: the method needs no summary
        s = table[name]
        if not s.accum or s.events:
            continue
        if any(getattr(v, "events", False) for v in table.of_class(cls).values()):
            continue  # a policy that stores its log-probs and trains on them in another method
        sites = _callers(importers, meth)
        for pos, line, whole in s.accum:
            callers = [(f, ln, arg) for f, ln, p, arg in sites if p == pos]
            if callers:
                out.append(RemoteStore(cls, meth, line, whole, callers, dict(s.guessed).get(line, "")))
    return out


def _importers(path: str, stem: str) -> list:
    """(file, bytes) of the other project files that import this file's
    module and run a backward: the only files whose calls can feed its
    meters (one read each; the `backward` listing is shared by the folder)."""
    from .project_index import files_mentioning, package_root

    imports = (f"import {stem}".encode(), f".{stem} import".encode(), f" {stem} import".encode())
    me = os.path.realpath(path)
    out = []
    found = list(files_mentioning(path, b"backward"))  # the file's folder, below, and the scripts above
    root = package_root(path)
    if root != os.path.dirname(os.path.abspath(path)):
        # a package's trainers sit beside its utilities (`hive/agents/dqn.py` feeding `hive/utils/logging.py`)
        seen = set(found)
        found += [f for f in files_mentioning(os.path.join(root, "_"), b"backward", up=False) if f not in seen]
    for f in found:
        if os.path.realpath(f) == me:
            continue
        decoded = text_of(f)  # recorded as read: the result cache then follows the callers' edits
        if decoded is None:
            continue
        text = decoded.encode("utf-8")
        # passed_graphs needs a `.backward()` there; another module's class may share the method name
        if any(i in text for i in imports) and calls_backward(decoded):
            out.append((f, text))
    return out


def _callers(importers: list, meth: str) -> list:
    needle = f".{meth}(".encode()
    out = []
    for f, text in importers:
        if needle not in text:
            continue
        for line, pos, arg in summaries_of(f).get(CALLS, {}).get(meth, ()):
            out.append((f, line, pos, arg))
    return out


def store_value(ctx, cls: str, meth: str, line: int):
    """The value added at `line` of `cls.meth`: the right side of `+=`, or
    what `.append()` is given."""
    for stmt in ctx.class_defs(cls):
        for m in stmt.body.body:
            if not (isinstance(m, cst.FunctionDef) and m.name.value == meth):
                continue
            from .walk import nodes

            for n in nodes(m):
                if isinstance(n, cst.AugAssign) and ctx.line_of(n.value) == line:
                    return n.value
                if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.args and \
                        n.func.attr.value in ("append", "extend", "insert") and ctx.line_of(n) == line:
                    return n.args[-1].value
    return None
