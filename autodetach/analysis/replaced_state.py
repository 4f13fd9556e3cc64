"""State handed to a model whose forward replaces it before reading it.

`y, mu, logvar, hidden = model(d, hidden if i else None)` in a loop that
backwards every step looks like recurrent state carried across batches. But
when `model` is, in that arm, a class of the project (`if 'OmniAnomaly' in
model.name:` with `class OmniAnomaly` whose `__init__` sets `self.name =
'OmniAnomaly'`) whose forward rebinds that parameter before anything reads
it (`hidden = torch.rand(...) if hidden is not None else hidden`), the state
fed back never reaches the recurrent layer: no graph crosses from one step's
backward into the next.

The class is read from the arm's test that compares a string with
`model.name` (or `type(model).__name__`); the forward from another file is
read with stdlib `ast` (never libcst)."""
from __future__ import annotations

import ast
import os
from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes


def replaced_in_forward(analysis, call, name: str) -> Optional[str]:
    """The class (`OmniAnomaly`, file) whose forward replaces the state `name`
    handed to `call` before reading it; None when not shown."""
    ctx = analysis.ctx
    callee = dotted(call.func) if isinstance(call, cst.Call) else None
    if not callee or not ctx.path or not os.path.isfile(ctx.path):
        return None
    index = next((i for i, arg in enumerate(call.args) if arg.keyword is None and
                  any(isinstance(n, cst.Name) and n.value == name for n in nodes(arg.value))), None)
    if index is None or any(arg.star for arg in call.args):
        return None
    names = _arm_names(ctx, call, callee)
    if len(names) != 1:
        return None
    from .project_index import classes_with_method

    found = [(cls, f) for cls, _, f in classes_with_method(ctx.path, "forward", whole=True)]
    hits = []
    for cls, f in dict.fromkeys(found):
        fwd = _named_forward(f, cls, names[0])
        if fwd is not None:
            hits.append((cls, f, fwd))
    if len(hits) != 1:
        return None
    cls, f, fwd = hits[0]
    params = [a.arg for a in fwd.args.posonlyargs + fwd.args.args][1:]
    if index >= len(params) or not _replaced(fwd, params[index]):
        return None
    return f"`{cls}.forward` (read from {os.path.basename(f)}) replaces `{params[index]}` before reading it"


def _arm_names(ctx, call, callee: str) -> list:
    """Strings the innermost `if` arm around `call` that names the model
    compares with `callee.name`."""
    node, child = ctx.parent(call), call
    while node is not None:
        if isinstance(node, cst.If) and child is node.body:
            out = []
            for comp in nodes(node.test):
                if not isinstance(comp, cst.Comparison):
                    continue
                sides = [comp.left] + [t.comparator for t in comp.comparisons]
                ops = [t.operator for t in comp.comparisons]
                if len(sides) != 2 or not isinstance(ops[0], (cst.In, cst.Equal)):
                    continue
                strings = [s.evaluated_value for s in sides if isinstance(s, cst.SimpleString)]
                others = [dotted(s) for s in sides if not isinstance(s, cst.SimpleString)]
                if len(strings) == 1 and others and others[0] in (f"{callee}.name", f"{callee}.__class__.__name__"):
                    out.append(strings[0])
            if out:
                return out  # else an arm on something else (`if training:`): look further out
        node, child = ctx.parent(node), node
    return []


def _named_forward(path: str, cls: str, label: str):
    """The forward of class `cls` in `path` when the class is named `label` or
    its `__init__` sets `self.name = label`."""
    from .callers import tree_of

    tree = tree_of(path)[1]  # parsed once, and recorded as read (the result cache follows its edits)
    if tree is None:
        return None
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or node.name != cls:
            continue
        methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
        init = methods.get("__init__")
        named = cls == label or init is not None and any(
            isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and s.value.value == label and
            any(isinstance(t, ast.Attribute) and t.attr == "name" and isinstance(t.value, ast.Name) and
                t.value.id == "self" for t in s.targets) for s in ast.walk(init))
        return methods.get("forward") if named else None
    return None


def _replaced(fwd, param: str) -> bool:
    """The first statement of `fwd` that names `param` rebinds it to a value
    with no graph from it: one that does not read it, or `fresh if param is
    not None else param` (None stays None)."""
    for stmt in fwd.body:
        if not any(isinstance(n, ast.Name) and n.id == param for n in ast.walk(stmt)):
            continue
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or \
                not isinstance(stmt.targets[0], ast.Name) or stmt.targets[0].id != param:
            return False
        return _fresh(stmt.value, param)
    return False


def _fresh(value, param: str) -> bool:
    def reads(node) -> bool:
        return any(isinstance(n, ast.Name) and n.id == param for n in ast.walk(node))

    if not reads(value):
        return True
    if isinstance(value, ast.IfExp) and isinstance(value.test, ast.Compare) and len(value.test.ops) == 1 and \
            isinstance(value.test.left, ast.Name) and value.test.left.id == param and \
            isinstance(value.test.comparators[0], ast.Constant) and value.test.comparators[0].value is None:
        # the arm taken when param is not None must not read it; the other sees only None
        live, none_arm = (value.body, value.orelse) if isinstance(value.test.ops[0], ast.IsNot) else \
            (value.orelse, value.body) if isinstance(value.test.ops[0], ast.Is) else (None, None)
        return live is not None and not reads(live) and (
            not reads(none_arm) or isinstance(none_arm, ast.Name) and none_arm.id == param)
    return False
