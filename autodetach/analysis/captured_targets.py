"""A loss module that captures its target with the graph of the capture pass.

    def forward(self, input):
        if self.mode == "capture":
            self.target = gram(input)                     # no .detach()
        elif self.mode == "loss":
            self.loss = self.crit(gram(input), self.target)

The capture pass runs the network once, before the optimisation loop; the
target it keeps on `self` carries that pass's graph, so the first backward
of the loop frees it and the second fails (or, with retain_graph=True,
every step keeps the capture graph alive). A store in one arm of a test on
`self` (a mode, a flag, `self.target is None`) of a value built from the
forward's inputs without a cut, read by another arm of the same test that
sets a `self.*loss*` attribute, is such a target."""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..imports import dotted
from .walk import children, nodes

CUTS = {"detach", "detach_", "item", "tolist", "numpy"}
SHAPES = {"size", "dim", "nelement", "numel", "shape", "ndim", "dtype", "device"}  # values with no graph
PLAIN = {"len", "int", "float", "bool", "isinstance", "range", "print"}


@dataclass
class CapturedTarget:
    cls: cst.ClassDef
    key: str  # `self.target`
    store: cst.BaseSmallStatement  # the store (`self.target = ...`, `self.targets.append(...)`)
    value: cst.BaseExpression  # the stored value, which the fix detaches
    read: cst.CSTNode  # a read of the key by the loss arm


def captured_targets(analysis) -> list:
    """The captured targets of the file's module classes, in file order; none
    when the file runs no backward (nothing frees the capture graph)."""
    sites = analysis.sites
    if not sites.backward_in and not sites.module_level_backward:
        return []
    out = []
    for cls in nodes(analysis.ctx.module):
        if type(cls) is not cst.ClassDef or cls.name.value not in analysis.names.module_classes:
            continue
        fwd = next((s for s in cls.body.body if type(s) is cst.FunctionDef and s.name.value == "forward"), None)
        if fwd is None:
            continue
        graphs = _graph_names(fwd)
        for test in nodes(fwd.body):
            if type(test) is cst.If and _reads_self(test.test) and not _is_elif(fwd, test):
                out.extend(CapturedTarget(cls, *found) for found in _arm_pairs(test, graphs))
    return out


def _graph_names(fwd) -> set:
    """Names (and `self.X` keys) every store of which in `forward` is built
    from its inputs without a cut: values that carry the input's graph."""
    params = {p.name.value for p in fwd.params.params} - {"self"}
    stores: dict = {}
    for node in nodes(fwd.body):
        if type(node) is cst.Assign:
            for target in node.targets:
                key = dotted(target.target)
                if key is not None and (key.count(".") == 0 or key.startswith("self.")):
                    stores.setdefault(key, []).append(node.value)
                elif key is None:
                    for name in nodes(target.target):  # unpacking: its names hold no known value
                        if type(name) is cst.Name:
                            stores.setdefault(name.value, []).append(None)
        elif type(node) in (cst.AugAssign, cst.AnnAssign, cst.For):
            key = dotted(node.target)
            if key is not None:
                stores.setdefault(key, []).append(None)  # read as unknown, not as a graph
        elif type(node) is cst.WithItem and node.asname is not None:
            stores.setdefault(dotted(node.asname.name) or "", []).append(None)
    graphs = set(params)
    changed = True
    while changed:
        changed = False
        for key, values in stores.items():
            if key in graphs or key in params or None in values:
                continue
            # `x = x.div(n)` keeps what the other stores of x hold
            if all(_reads(v, graphs | {key}) for v in values) and any(_reads(v, graphs) for v in values):
                graphs.add(key)
                changed = True
    return graphs


def _reads(expr, names) -> bool:
    """Does `expr` read one of `names` other than through a cut (`.detach()`, `.data`, `.item()`)?"""
    if type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value in CUTS | SHAPES:
        return False
    if type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value in PLAIN:
        return False
    if type(expr) is cst.Attribute:
        if expr.attr.value == "data" or expr.attr.value in SHAPES:
            return False
        key = dotted(expr)
        if key is not None and key in names:
            return True
        return _reads(expr.value, names)
    if type(expr) is cst.Name:
        return expr.value in names
    if type(expr) in (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp):
        return False  # a scope of its own: not followed
    return any(_reads(child, names) for child in children(expr))


def _reads_self(test) -> bool:
    return any(type(n) is cst.Attribute and type(n.value) is cst.Name and n.value.value == "self"
               for n in nodes(test))


def _is_elif(fwd, test) -> bool:
    return any(type(n) is cst.If and n.orelse is test for n in nodes(fwd.body))


def _arms(test) -> list:
    """The blocks of an `if`/`elif`/`else` chain."""
    arms, node = [], test
    while type(node) is cst.If:
        arms.append(node.body)
        node = node.orelse
    if type(node) is cst.Else:
        arms.append(node.body)
    return arms


def _arm_pairs(test, graphs) -> list:
    arms = _arms(test)
    out = []
    for i, arm in enumerate(arms):
        for store, key, value in _stores(arm, graphs):
            for j, other in enumerate(arms):
                if j == i or not _sets_loss(other) or _stores_key(other, key):
                    continue
                read = next((n for n in nodes(other) if dotted(n) == key), None)
                if read is not None:
                    out.append((key, store, value, read))
                    break
    return out


def _stores(arm, graphs) -> list:
    """(statement, key, value) for each `self.X = v` / `self.X.append(v)` of
    the arm whose value carries a graph of the inputs."""
    out = []
    for node in nodes(arm):
        if type(node) is cst.Assign and len(node.targets) == 1:
            key = dotted(node.targets[0].target)
            if key and key.startswith("self.") and key.count(".") == 1 and _reads(node.value, graphs):
                out.append((node, key, node.value))
        elif type(node) is cst.Expr and type(node.value) is cst.Call:
            call = node.value
            if type(call.func) is cst.Attribute and call.func.attr.value == "append" and len(call.args) == 1:
                key = dotted(call.func.value)
                if key and key.startswith("self.") and key.count(".") == 1 and _reads(call.args[0].value, graphs):
                    out.append((node, key, call.args[0].value))
    return out


def _sets_loss(arm) -> bool:
    for node in nodes(arm):
        if type(node) in (cst.Assign, cst.AugAssign):
            targets = [t.target for t in node.targets] if type(node) is cst.Assign else [node.target]
            if any((dotted(t) or "").startswith("self.") and "loss" in (dotted(t) or "").lower() for t in targets):
                return True
    return False


def _stores_key(arm, key) -> bool:
    """Does the arm store `key` or an entry of it (then its reads may read the new value)?"""
    for node in nodes(arm):
        targets = []
        if type(node) is cst.Assign:
            targets = [t.target for t in node.targets]
        elif type(node) in (cst.AugAssign, cst.AnnAssign):
            targets = [node.target]
        for t in targets:
            while type(t) is cst.Subscript:
                t = t.value
            if dotted(t) == key:
                return True
    return False
