"""A tensor on `self`, made before a loop, filled slot by slot with what a
network keeps on itself, in a loop that runs the network with gradients on
and backwards nothing.

    def decision_function(self, loader):
        self.emb = torch.zeros(n, d)
        for batch in loader:
            loss, score = self.forward_model(batch)        # runs self.model
            self.emb[batch.idx] = self.model.emb[:k].cpu()

Each slot store is an in-place copy: `self.emb` takes a `CopySlices` node
that hangs from the previous one and from this batch's graph, so every
batch's graph (and what it saved) stays alive until `self.emb` is dropped.
Nothing here shows the attribute's value (`self.model.emb`): it is taken to
hold what the network's forward computed, with its graph, an inference the
message names, as is that the loop runs the network: called directly
(`self.model(x)`), or through a method of the class whose result another
method backwards while stepping an optimizer of the network's parameters
(`loss, score = self.forward_model(batch)`, then `loss.backward()` in `fit`).
Left alone: a loop (or function) under `torch.no_grad()`, a loop that runs a
backward (training: the store's graph is another question), a value cut
(`.detach()`, `.item()`, `.numpy()`, `.data`), a weight or bias of the
network (a leaf)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from .summaries import _dotted, _grad, parse_text

CONSTRUCTORS = {"zeros", "empty", "ones", "full", "zeros_like", "empty_like", "ones_like", "full_like"}
CUTS = {"detach", "item", "numpy", "tolist", "data", "detach_", "no_grad"}
LEAVES = ("weight", "bias")


@dataclass
class NetworkSlot:
    func: str  # the method holding the loop
    key: str  # `self.emb`
    line: int  # the store's value
    col: int
    attr: str  # `self.model.emb`
    net: str  # `self.model`
    runs: str  # how the loop runs the network: `self.forward_model(...)`, backwarded in `fit`


def network_slots(analysis) -> list:
    memo = analysis.table("_network_slots")
    if "out" not in memo:
        memo["out"] = _slots(analysis.ctx.text)
    return memo["out"]


def _slots(text: str) -> list:
    if "self." not in text or not any(f".{c}(" in text for c in CONSTRUCTORS):
        return []
    tree = parse_text(text)
    if tree is None:
        return []
    out = []
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        methods = [m for m in cls.body if isinstance(m, ast.FunctionDef)]
        nets = _networks(methods)
        if not nets:
            continue
        for func in methods:
            if _quiet(func.decorator_list):
                continue
            out += _in_method(func, methods, nets)
    return out


def _networks(methods: list) -> set:
    """`self.model` whose parameters the class hands to an optimizer (`Adam(self.model.parameters())`)."""
    out = set()
    for m in methods:
        for node in ast.walk(m):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "parameters" and not node.args:
                key = _dotted(node.func.value)
                if key and key.startswith("self.") and key.count(".") == 1:
                    out.add(key)
    return out


def _in_method(func, methods: list, nets: set) -> list:
    out = []
    made = _made_before(func)
    if not made:
        return out
    for loop in _loops(func.body):
        body = list(_own(loop.body))
        if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("backward", "step")
               for n in body):
            continue  # a training loop
        for node in body:
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            key = _slot_of(node.targets[0])
            if key is None or key not in made or made[key] > node.lineno:
                continue
            found = _network_attr(node.value, nets)
            if found is None:
                continue
            attr, net = found
            runs = _runs(body, net, methods, func, node.lineno)
            if runs is not None:
                out.append(NetworkSlot(func.name, key, node.value.lineno, node.value.col_offset, attr, net, runs))
    return out


def _loops(body):
    """Loops of `body` outside `with torch.no_grad():` and nested functions."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, (ast.With, ast.AsyncWith)) and _quiet([i.context_expr for i in stmt.items]):
            continue
        if isinstance(stmt, (ast.For, ast.While)):
            yield stmt
            continue  # its nested loops are inside it: its body is read whole
        for field in ("body", "orelse", "finalbody"):
            yield from _loops(getattr(stmt, field, None) or [])
        for handler in getattr(stmt, "handlers", None) or []:
            yield from _loops(handler.body)


def _own(body):
    """Nodes of `body` outside nested functions and `with torch.no_grad():` blocks."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.With, ast.AsyncWith)) and _quiet([i.context_expr for i in node.items]):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _quiet(exprs) -> bool:
    return any(_grad(e) > 0 for e in exprs)


def _made_before(func) -> dict:
    """`self.emb` -> line, for `self.emb = torch.zeros(...)` (or a tuple of such) in the method."""
    out = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            key = _dotted(node.targets[0])
            if key and key.startswith("self.") and _constructed(node.value):
                out.setdefault(key, node.lineno)
    return out


def _constructed(value) -> bool:
    if isinstance(value, ast.Tuple):
        return bool(value.elts) and all(_constructed(e) for e in value.elts)
    return isinstance(value, ast.Call) and (_dotted(value.func) or "").split(".")[-1] in CONSTRUCTORS and \
        (_dotted(value.func) or "").startswith(("torch.", "zeros", "empty", "ones", "full"))


def _slot_of(target) -> Optional[str]:
    """`self.emb[idx]`, `self.emb[0][idx]` -> `self.emb`."""
    if not isinstance(target, ast.Subscript):
        return None
    base = target.value
    while isinstance(base, ast.Subscript):
        base = base.value
    key = _dotted(base)
    return key if key and key.startswith("self.") else None


def _network_attr(value, nets: set) -> Optional[tuple]:
    """(`self.model.emb`, `self.model`) when the value reads an attribute the network keeps, uncut."""
    found = None
    for node in ast.walk(value):
        if isinstance(node, ast.Attribute) and node.attr in CUTS:
            return None
        if isinstance(node, ast.Call) and (_dotted(node.func) or "").split(".")[-1] in CUTS:
            return None
        key = _dotted(node) if isinstance(node, ast.Attribute) else None
        if key and key.count(".") == 2:
            net = key.rsplit(".", 1)[0]
            if net in nets and not key.rsplit(".", 1)[1].endswith(LEAVES):
                found = (key, net)
    return found


def _runs(body: list, net: str, methods: list, func, line: int) -> Optional[str]:
    """How the loop runs `net` before the store: `self.model(x)`, or a method of the class
    whose first result another method backwards (`loss, s = self.forward_model(b)`, then
    `loss.backward()` there)."""
    for node in body:
        if not isinstance(node, ast.Call) or node.lineno > line:
            continue
        callee = _dotted(node.func)
        if callee == net or callee == f"{net}.forward":
            return f"`{callee}(...)`"
    for node in body:
        if not isinstance(node, ast.Assign) or node.lineno > line or not isinstance(node.value, ast.Call):
            continue
        callee = _dotted(node.value.func)
        if not callee or not callee.startswith("self.") or callee.count(".") != 1:
            continue
        trainer = _backwarded_in(callee, methods, func)
        if trainer is not None:
            return f"`{callee}(...)`, whose result `{trainer}` backwards"
    return None


def _backwarded_in(callee: str, methods: list, here) -> Optional[str]:
    """The method (not `here`) that binds the first result of `callee(...)` and backwards it."""
    for m in methods:
        if m is here:
            continue
        for node in ast.walk(m):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.value, ast.Call) \
                    or _dotted(node.value.func) != callee:
                continue
            target = node.targets[0]
            first = target.elts[0] if isinstance(target, ast.Tuple) and target.elts else target
            if not isinstance(first, ast.Name):
                continue
            if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "backward" and
                   isinstance(n.func.value, ast.Name) and n.func.value.id == first.id for n in ast.walk(m)):
                return m.name
    return None
