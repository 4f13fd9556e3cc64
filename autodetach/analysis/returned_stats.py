"""A dict of the loss's parts, returned beside the loss for the log, that callers
in other files feed to meters.

    # actors/tracker.py
    def compute_losses(self, pred, gt):
        parts = self.objective(pred, gt)        # {"giou": t1, "l1": t2}
        loss = sum(parts.values())
        status = parts.copy()                   # the parts themselves, with their graph
        return loss, status

    # trainers/base.py, in the loop
    loss, stats = self.actor(data)
    loss.backward()
    self._update_stats(stats, n)                # meters[k].update(v, n): self.sum += val * n

Nothing in the returning file keeps anything: the callers do. They are found
by reading the project's other files (stdlib `ast`): a call of the method (or
of the object, for `__call__`, through an attribute the class name ends
with: `self.actor` for `TrackActor`), in a loop, whose first result is
backwarded and whose dict is handed, entry by entry, to `.update(v, ...)` of
objects of a project class that adds its argument into `self` state, in the
calling function or a method of its class it hands the dict to. That the
parts carry a graph is inferred from the backwarded sum; reported at the dict
the method returns, without a fix (its entries may be numbers too)."""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from .callers import tree_of
from .project_index import files_mentioning, package_root
from .remote_helpers import _backwarded, _bound_at, _functions_of, _keeping_classes, loop_assigns
from .walk import nodes

COPIES = {"copy", "dict", "OrderedDict", "deepcopy"}
METER_METHODS = ("update",)
PACKAGE_UP = 3
MIN_ATTR = 4  # `self.actor` names a `...Actor`; shorter attributes (`self.fn`) say nothing


@dataclass
class ReturnedStats:
    value: cst.BaseExpression  # what the dict is bound to (`loss_dict.copy()`), else the name returned
    name: str  # the returned dict
    parts: str  # the dict whose entries the loss sums
    loss: str
    cls: str
    meth: str
    caller: tuple  # (file, line, meter class, meter file)


def returned_stats(analysis) -> list:
    path = analysis.ctx.path
    if not path or path == "<string>" or not os.path.isfile(path):
        return []
    out = []
    for cls in analysis.ctx.module.body:
        if not isinstance(cls, cst.ClassDef):
            continue
        methods = {m.name.value: m for m in cls.body.body if isinstance(m, cst.FunctionDef)}
        for name, m in methods.items():
            found = _stats_returned(m)
            if found is None:
                continue
            value, stats, parts, loss, at_loss, at_stats = found
            entries = [(name, at_loss, at_stats)] + _forwarders(methods, name, at_loss, at_stats)
            caller = _fed_callers(path, cls, entries)
            if caller is not None:
                out.append(ReturnedStats(value, stats, parts, loss, cls.name.value, name, caller))
    return out


def _body(func) -> list:
    return list(nodes(func.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)))


def _bindings(body: list, name: str) -> list:
    """The values bound to `name` (`name = v`, or `name, other = v`: the call)."""
    out = []
    for n in body:
        if type(n) is cst.Assign:
            for t in n.targets:
                if name in _target_names(t.target):
                    out.append(n.value)
        elif type(n) in (cst.AugAssign, cst.AnnAssign) and type(n.target) is cst.Name and n.target.value == name:
            out.append(None)  # rebound some other way: not followed
        elif type(n) in (cst.For, cst.CompFor) and any(type(x) is cst.Name and x.value == name
                                                       for x in nodes(n.target)):
            out.append(None)
    return out


def _target_names(target) -> set:
    """Names a target binds (`a`, `a, (b, c)`), not those it stores into (`a[k]`, `a.x`)."""
    if type(target) is cst.Name:
        return {target.value}
    if type(target) in (cst.Tuple, cst.List):
        return set().union(*(_target_names(e.value) for e in target.elements))
    if type(target) is cst.StarredElement:
        return _target_names(target.value)
    return set()


def _stats_returned(func: cst.FunctionDef):
    """(bound value, dict, parts, loss, loss index, dict index) for `return loss, stats`
    where `stats` is bound once to a copy of (or is) a dict `parts` whose entries `loss` sums."""
    body = _body(func)
    names = _returned_names(body)
    if names is None or names[0] is None:
        return None
    loss = names[0]
    for at, stats in enumerate(names[1:], 1):
        if stats is None or stats == loss:
            continue
        bound = _bindings(body, stats)
        if len(bound) != 1 or bound[0] is None:
            continue
        parts = _copied(bound[0])
        value = bound[0]
        if parts is None:
            # `loss_dict = self.criterion(out, y)` returned itself: reported at the return
            parts, value = stats, _returned_element(body, at)
        if _converted(body, stats) or _converted(body, parts):
            continue
        if _sums(body, loss, parts):
            return value, stats, parts, loss, 0, at
    return None


def _returned_element(body: list, at: int) -> cst.Name:
    return next(n.value.elements[at].value for n in body if type(n) is cst.Return and type(n.value) is cst.Tuple)


def _returned_names(body: list) -> Optional[list]:
    """The names of the tuple every tuple `return` hands back (`return loss, status`; a
    `return loss` beside it, under a flag, is another shape of result)."""
    tuples = [n.value for n in body if type(n) is cst.Return and type(n.value) is cst.Tuple]
    got = {tuple(e.value.value if type(e) is cst.Element and type(e.value) is cst.Name else None
                 for e in t.elements) for t in tuples}
    if len(got) != 1:
        return None
    names = list(got.pop())
    return names if len(names) >= 2 else None


def _copied(value) -> Optional[str]:
    """`parts` for `parts`, `parts.copy()`, `dict(parts)`, `copy.copy(parts)`."""
    if type(value) is cst.Name:
        return value.value
    if type(value) is not cst.Call:
        return None
    func = value.func
    if type(func) is cst.Attribute and func.attr.value == "copy" and not value.args and type(func.value) is cst.Name:
        return func.value.value
    called = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else None
    if called in COPIES and len(value.args) == 1 and value.args[0].keyword is None and not value.args[0].star \
            and type(value.args[0].value) is cst.Name:
        return value.args[0].value.value
    return None


def _converted(body: list, name: str) -> bool:
    """Are entries of `name` replaced under a key that is not a constant (`stats[k] = v.item()`
    in a loop), or is it handed to a call that may convert them (`to_numbers(stats)`)?"""
    for n in body:
        if type(n) is cst.Assign:
            for t in n.targets:
                target = t.target
                if type(target) is cst.Subscript and type(target.value) is cst.Name and target.value.value == name:
                    key = target.slice[0].slice if target.slice else None
                    if not (type(key) is cst.Index and type(key.value) is cst.SimpleString):
                        return True
        elif type(n) is cst.Call and any(type(a.value) is cst.Name and a.value.value == name for a in n.args):
            func = n.func
            if not (type(func) is cst.Name and func.value in COPIES | {"sum", "len", "print"}):
                return True
    return False


def _sums(body: list, loss: str, parts: str) -> bool:
    """Is `loss` bound once to `sum(...)` over the entries of `parts`, or of a dict
    filled from them (`weighted[k] = parts[k] * w[k]`)?"""
    bound = _bindings(body, loss)
    if len(bound) != 1 or bound[0] is None:
        return False
    value = bound[0]
    if not (type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "sum" and value.args):
        return False
    read = {n.value for n in nodes(value.args[0].value) if type(n) is cst.Name}
    if parts in read:
        return True
    return any(_filled_from(body, r, parts) for r in read)


def _filled_from(body: list, name: str, parts: str) -> bool:
    """`name[k] = <reads parts>` somewhere, `name` otherwise bound only to `{}`."""
    fills = False
    for n in body:
        if type(n) is not cst.Assign:
            continue
        for t in n.targets:
            target = t.target
            if type(target) is cst.Name and target.value == name:
                if not (type(n.value) is cst.Dict and not n.value.elements):
                    return False
            elif type(target) is cst.Subscript and type(target.value) is cst.Name and target.value.value == name:
                fills = fills or any(type(x) is cst.Name and x.value == parts for x in nodes(n.value))
    return fills


def _forwarders(methods: dict, meth: str, at_loss: int, at_stats: int) -> list:
    """Methods of the class that return what `self.meth(...)` returns, in the same places
    (`loss, status = self.compute_losses(out)`, then `return loss, status`)."""
    out = []
    for name, m in methods.items():
        if name == meth:
            continue
        body = _body(m)
        got = _returned_names(body)
        if got is None:
            continue
        for n in body:
            if not (type(n) is cst.Assign and len(n.targets) == 1 and type(n.targets[0].target) is cst.Tuple):
                continue
            call = n.value
            if not (type(call) is cst.Call and type(call.func) is cst.Attribute and call.func.attr.value == meth
                    and type(call.func.value) is cst.Name and call.func.value.value == "self"):
                continue
            elts = [e.value.value if type(e.value) is cst.Name else None for e in n.targets[0].target.elements]
            if max(at_loss, at_stats) >= len(elts) or None in (elts[at_loss], elts[at_stats]):
                continue
            if elts[at_loss] in got and elts[at_stats] in got:
                out.append((name, got.index(elts[at_loss]), got.index(elts[at_stats])))
    return out


def _fed_callers(path: str, cls: cst.ClassDef, entries: list) -> Optional[tuple]:
    """(file, line, meter class, meter file) of the first call, in another project file, that
    backwards the returned loss and feeds the returned dict's entries to meters."""
    me = os.path.realpath(path)
    bases = [cls.name.value] + [b.value.value if type(b.value) is cst.Name else b.value.attr.value
                                for b in cls.bases if type(b.value) in (cst.Name, cst.Attribute)]
    for f in files_mentioning(os.path.join(package_root(path, PACKAGE_UP), "_"), b"backward", up=False):
        if os.path.realpath(f) == me:
            continue
        text, tree = tree_of(f)
        if tree is None or ".update(" not in text:
            continue
        for owner, fn in _functions_of(tree):
            for call, target in _unpacked_calls(fn):
                for meth, at_loss, at_stats in entries:
                    if not _calls_entry(call, meth, bases):
                        continue
                    loss, stats = _bound_at(target, at_loss), _bound_at(target, at_stats)
                    if loss is None or stats is None or loss not in _backwarded(fn):
                        continue
                    meter = _fed(f, tree, owner, fn, stats, 1)
                    if meter is not None:
                        return (f, call.lineno) + meter
    return None


def _unpacked_calls(fn) -> list:
    """(call, tuple target) for `a, b = f(...)` in a loop of `fn`, outside `no_grad`."""
    return loop_assigns(fn, lambda node: isinstance(node.targets[0], ast.Tuple) and isinstance(node.value, ast.Call))


def _calls_entry(call: ast.Call, meth: str, bases: list) -> bool:
    """`x.meth(...)`; for `__call__`, `self.attr(...)` / `attr(...)` where the class (or a base)
    name ends with the attribute's (`self.actor` for `TrackActor`)."""
    func = call.func
    if meth != "__call__":
        return isinstance(func, ast.Attribute) and func.attr == meth
    attr = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    attr = attr.lower().replace("_", "")
    return len(attr) >= MIN_ATTR and any(b.lower().endswith(attr) for b in bases)


def _fed(path: str, tree, owner, fn, stats: str, hops: int) -> Optional[tuple]:
    """(meter class, file) when `fn` hands the entries of `stats` to `.update(v, ...)` of objects
    of a project class that adds its argument into `self` state, itself or through a method of
    its class it passes `stats` to (`self._update_stats(stats, n)`)."""
    values = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and \
                isinstance(node.iter.func, ast.Attribute) and node.iter.func.attr in ("items", "values") and \
                isinstance(node.iter.func.value, ast.Name) and node.iter.func.value.id == stats:
            target = node.target
            if node.iter.func.attr == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                target = target.elts[1]
            if isinstance(target, ast.Name):
                values.add(target.id)
    if values:
        made = {(path, n.func.id) for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                and n.func.id[:1].isupper()}
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in METER_METHODS and node.args and isinstance(node.args[0], ast.Name) and \
                    node.args[0].id in values:
                kept = _keeping_classes(path, made, node.func.attr, 0)
                if kept:
                    return kept[0]
    if hops <= 0 or owner is None:
        return None
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
                isinstance(node.func.value, ast.Name) and node.func.value.id == "self"):
            continue
        at = [i for i, a in enumerate(node.args) if isinstance(a, ast.Name) and a.id == stats]
        if len(at) != 1:
            continue
        for cls_name, other in _functions_of(tree):
            if cls_name == owner and other.name == node.func.attr:
                params = [a.arg for a in other.args.args][1:]
                if at[0] < len(params):
                    found = _fed(path, tree, owner, other, params[at[0]], hops - 1)
                    if found is not None:
                        return found
    return None
