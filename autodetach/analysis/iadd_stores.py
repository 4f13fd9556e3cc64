"""`self.tracks[k] += v` where `self.tracks` holds objects of classes of the
file that define `__iadd__`: the `+=` runs their `__iadd__`, which decides what
is kept (a tracker whose `__iadd__` stores `value.detach().cpu()` keeps no graph).

Used by summaries._Fn._adds (ast), so that a meter feeding its own meters is
judged by what those meters keep, not by the `+=` read as tensor arithmetic."""
from __future__ import annotations

import ast
from typing import Optional


def iadd_classes(classes: dict, cls: Optional[str], target) -> Optional[list]:
    """The classes of the file whose objects the `+=` target holds, each
    defining `__iadd__`; None when any stored value is something else or
    nothing stored there is seen (then the `+=` is read as arithmetic)."""
    methods = classes.get(cls) if cls else None
    if not methods:
        return None
    whole = not isinstance(target, ast.Subscript)
    key = _self_key(target if whole else target.value)
    if key is None:
        return None
    found: list = []
    for method in methods.values():
        local = _local_values(method)
        for node in ast.walk(method):
            if not isinstance(node, ast.Assign):
                continue
            for stored in node.targets:
                if whole and isinstance(stored, ast.Attribute) and _self_key(stored) == key or \
                        not whole and isinstance(stored, ast.Subscript) and _self_key(stored.value) == key:
                    for value in _resolved(node.value, local):
                        name = _class_built(value, classes)
                        if name is None:
                            return None
                        if name not in found:
                            found.append(name)
    return found or None


def _self_key(expr) -> Optional[str]:
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return expr.attr
    return None


def _local_values(method) -> dict:
    out: dict = {}
    for node in ast.walk(method):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out.setdefault(node.targets[0].id, []).append(node.value)
    return out


def _resolved(value, local: dict, depth=0) -> list:
    """What a stored value may be: a local name stands for every value bound to it."""
    if isinstance(value, ast.Name) and value.id in local and depth < 4:
        return [v for bound in local[value.id] for v in _resolved(bound, local, depth + 1)]
    if isinstance(value, ast.IfExp):
        return _resolved(value.body, local, depth + 1) + _resolved(value.orelse, local, depth + 1)
    return [value]


def _class_built(value, classes: dict) -> Optional[str]:
    """`RunningMean()`: the name of a class of the file with `__iadd__`."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
            "__iadd__" in classes.get(value.func.id, {}):
        return value.func.id
    return None
