"""Which arguments a method of another file's class cuts, read from its text:
`def discriminator_loss(self, z)` whose every read of `z` is `z.detach()`,
`z.data`, or new data of its shape (`torch.randn_like(z)`, `z.size(0)`). The
summaries' arg_flow also says "cut" for an argument handed to `self.forward(x)`
and looped over (UNIT's `calc_gen_loss`), so flow.py trusts only this syntactic
reading before it drops an argument's graph."""
from __future__ import annotations

import ast

from .callers import tree_of

_MEMO: dict = {}  # path -> (text, {method name: [FunctionDef in a class]})

CUTS = ("detach", "data")
NO_GRAPH_ATTRS = ("shape", "size", "device", "dtype", "dim", "ndim", "numel", "new_zeros", "new_ones", "new_empty",
                  "new_full", "new_tensor", "is_cuda", "requires_grad")


def _methods(path: str) -> dict:
    text, tree = tree_of(path)
    hit = _MEMO.get(path)
    if hit is not None and hit[0] == text:
        return hit[1]
    out: dict = {}
    for cls in tree.body if tree is not None else ():
        if isinstance(cls, ast.ClassDef):
            for fn in cls.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.setdefault(fn.name, []).append(fn)
    _MEMO[path] = (text, out)
    return out


def cut_positions(path: str, meth: str, count: int) -> frozenset:
    """Positions (after self) among the first `count` arguments that every class
    of the file defining `meth` reads only through `.detach()` / `.data`."""
    defs = _methods(path).get(meth, [])
    if not defs:
        return frozenset()
    out = set(range(count))
    for fn in defs:
        if fn.args.vararg or fn.args.kwarg:
            return frozenset()
        params = [a.arg for a in fn.args.args[1:]]
        for i in list(out):
            if i >= len(params) or not _only_cut(fn, params[i]):
                out.discard(i)
    return frozenset(out)


def _only_cut(fn, name: str) -> bool:
    parents = {}
    for node in ast.walk(fn):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    reads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name]
    if not reads:
        return False
    if _cut_first(fn, name):
        return True  # `h = h.detach()` first thing: no later line sees the argument's graph
    for n in reads:
        if not isinstance(n.ctx, ast.Load):
            return False  # rebound: not followed
        up = parents.get(id(n))
        if isinstance(up, ast.Attribute) and up.value is n and (up.attr in CUTS or up.attr in NO_GRAPH_ATTRS):
            continue
        if isinstance(up, ast.Call) and up.args and up.args[0] is n and (
                isinstance(up.func, ast.Attribute) and up.func.attr.endswith("_like") or
                isinstance(up.func, ast.Name) and (up.func.id.endswith("_like") or up.func.id == "len")):
            continue  # `torch.randn_like(z)`, `len(z)`: new data of its shape
        return False
    return True


def _cut_first(fn, name: str) -> bool:
    """The method's first statement that names `name` is `name = name.detach()`."""
    for stmt in fn.body:
        if not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(stmt)):
            continue
        value = getattr(stmt, "value", None)
        return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name and \
            isinstance(value, ast.Call) and not value.args and isinstance(value.func, ast.Attribute) and \
            value.func.attr == "detach" and isinstance(value.func.value, ast.Name) and value.func.value.id == name
    return False
