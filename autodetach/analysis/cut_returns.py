"""Whether a method of a project class hands back, at one position of what it
returns, state that carries no graph: built under `torch.no_grad()` or cut
(`.detach()`, `.data`, `.item()`) in the class's own methods (stdlib `ast`).

    class MemNet(nn.Module):
        def _update(self, hids, mems):
            with torch.no_grad():                    # built with gradients off
                new = torch.cat([mems, hids], 1)[:, -self.n:]
            return new.detach()

        def forward(self, x, mems):
            out, hids = self.core(x, mems)
            new_mems = self._update(hids, mems)
            return out.sum(), new_mems               # position 1: cut

A loop that feeds `new_mems` back (`_, mems = model(x, mems)`) chains no
graph from step to step, whatever the grad mode of its caller: the state is
cut where the class makes it. Every `return` of the method must hand back at
that position a value every binding of which is cut: `None`, a constant, a
cut call (`.detach()`, `.item()`, `.numpy()`, `.tolist()`, `.data`), what
a cut value's own methods make of it (`.detach().cpu()`), a tuple or list of
cut values, an assignment inside a `with torch.no_grad():` block, or, down to
a few calls, the same position of another method of the class that is itself
cut. A method decorated with `@torch.no_grad()` cuts all it returns. Anything
else (a for target, `+=`, a call out of sight) is not taken as cut."""
from __future__ import annotations

import ast
from typing import Optional

CUT_CALLS = ("detach", "item", "numpy", "tolist")
# methods of a tensor that keep a cut value cut (`h.detach().cpu()`, `h.data.clone()`)
KEEP = ("cpu", "cuda", "to", "clone", "contiguous", "view", "reshape", "float", "half", "double", "squeeze",
        "unsqueeze", "permute", "transpose", "flatten", "chunk", "split", "requires_grad_")
QUIET = ("no_grad", "inference_mode")
FACTORIES = {f"torch.{f}" for f in ("zeros", "ones", "empty", "full", "randn", "rand", "randint", "arange")}
DEPTH = 4


def method_of(cls: ast.ClassDef, name: str) -> Optional[ast.FunctionDef]:
    own = [m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == name]
    return own[0] if len(own) == 1 else None


def returns_cut(cls: ast.ClassDef, meth: str, n: int, pos: int, depth: int = 0) -> bool:
    """Every `return` of `cls.<meth>` hands back, at `pos` of an `n`-tuple (the whole value
    when `n` is 1), a value that carries no graph."""
    fn = method_of(cls, meth) if cls is not None else None
    if fn is None or depth > DEPTH:
        return False
    if any(_quiet_expr(d) for d in fn.decorator_list):
        return True
    quiet = _quiet_ids(fn)
    binds = _bindings(fn, quiet)
    found = False
    for node in _own_walk(fn):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return False
        if not isinstance(node, ast.Return):
            continue
        if node.value is None:
            found = True  # hands back None
            continue
        elems = [node.value] if n == 1 else _flat(node.value)
        if len(elems) != n:
            if n > 1 and _cut(cls, elems[0] if len(elems) == 1 else node.value, binds, depth, set()):
                found = True  # `return None` where the caller unpacks: it fails, no graph is kept
                continue
            return False
        if not _cut(cls, elems[pos], _reaching(fn, node, elems[pos], binds, quiet), depth, set()):
            return False
        found = True
    return found


def _reaching(fn, ret, expr, binds: dict, quiet: set) -> dict:
    """`binds`, with the name handed back by a `return` at the top of `fn`'s body bound only by
    what reaches it: the last top-level assignment to it before the return, and any binding nested
    in the statements between (`if mems is None: mems = ...` before `h, mems = self._step(mems)`
    does not reach; neither does the parameter)."""
    if not isinstance(expr, ast.Name) or ret not in fn.body:
        return binds
    body = fn.body[:fn.body.index(ret)]
    last = None
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Assign) and any(isinstance(e, ast.Name) and e.id == expr.id
                                                for t in stmt.targets for e in _flat(t)):
            last = i
    if last is None:
        return binds
    sub = ast.Module(body=body[last:], type_ignores=[])
    shadow = ast.FunctionDef(name=fn.name, args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[],
                                                              defaults=[]), body=sub.body, decorator_list=[])
    return {**binds, expr.id: _bindings(shadow, quiet).get(expr.id, [None])}


def _own_walk(fn):
    """The nodes of `fn` outside the functions, lambdas and classes it defines."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _quiet_expr(expr) -> bool:
    call = expr.func if isinstance(expr, ast.Call) else expr
    last = call.attr if isinstance(call, ast.Attribute) else call.id if isinstance(call, ast.Name) else ""
    if last == "set_grad_enabled" and isinstance(expr, ast.Call) and expr.args:
        first = expr.args[0]
        return isinstance(first, ast.Constant) and first.value is False
    return last in QUIET


def _quiet_ids(fn) -> set:
    """ids of the assignments of `fn` made inside a `with torch.no_grad():` block."""
    out: set = set()
    for node in _own_walk(fn):
        if isinstance(node, ast.With) and any(_quiet_expr(i.context_expr) for i in node.items):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Assign):
                    out.add(id(inner))
    return out


def _flat(expr) -> list:
    if isinstance(expr, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in expr.elts):
        return [x for e in expr.elts for x in _flat(e)]
    return [expr]


def _bindings(fn, quiet: set) -> dict:
    """name -> [(value, length of the flat target, position in it, made under no_grad)];
    a name bound any other way maps to [None]."""
    out: dict = {}
    for node in _own_walk(fn):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                flat = _flat(t)
                for j, e in enumerate(flat):
                    if isinstance(e, ast.Name):
                        out.setdefault(e.id, []).append((node.value, len(flat), j, id(node) in quiet))
                    else:
                        for x in ast.walk(e):
                            if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store):
                                out.setdefault(x.id, []).append(None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith,
                               ast.NamedExpr, ast.comprehension)):
            if isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
                out.setdefault(node.target.id, []).append((node.value, 1, 0, False))
                continue
            targets = [i.optional_vars for i in node.items if i.optional_vars is not None] \
                if isinstance(node, (ast.With, ast.AsyncWith)) else [node.target]
            for x in (y for tgt in targets for y in ast.walk(tgt)):
                if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store):
                    out.setdefault(x.id, []).append(None)
    for a in fn.args.args + fn.args.kwonlyargs:
        out.setdefault(a.arg, []).append(None)  # a parameter: what the caller hands in
    return out


def _cut(cls, expr, binds, depth, seen) -> bool:
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, (ast.Tuple, ast.List)):
        return all(_cut(cls, e, binds, depth, seen) for e in expr.elts)
    if isinstance(expr, ast.Starred):
        return _cut(cls, expr.value, binds, depth, seen)
    if isinstance(expr, ast.Subscript):
        return _cut(cls, expr.value, binds, depth, seen)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):  # `[loss] + new_mems`: only lists join
        return isinstance(expr.left, (ast.List, ast.Tuple)) and _cut(cls, expr.left, binds, depth, seen) and \
            _cut(cls, expr.right, binds, depth, seen)
    if isinstance(expr, (ast.ListComp, ast.GeneratorExp)) and len(expr.generators) == 1:
        return _cut(cls, expr.elt, {**binds, **_comp_names(expr)}, depth, seen)  # `[h.detach() for h in hs]`
    if isinstance(expr, ast.IfExp):
        return _cut(cls, expr.body, binds, depth, seen) and _cut(cls, expr.orelse, binds, depth, seen)
    if isinstance(expr, ast.Attribute) and expr.attr == "data":
        return True
    if isinstance(expr, ast.Call) and ast.unparse(expr.func) in FACTORIES:
        return True  # a new tensor, made from sizes
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        attr = expr.func.attr
        if attr in CUT_CALLS:
            return True
        if attr in KEEP:
            return _cut(cls, expr.func.value, binds, depth, seen)
        return _own_call(cls, expr, 1, 0, depth)
    if isinstance(expr, ast.Name):
        if expr.id in seen:
            return False
        values = binds.get(expr.id)
        if not values or any(v is None for v in values):
            return False
        seen = seen | {expr.id}
        for value, n2, j, quiet in values:
            if quiet:
                continue  # made with gradients off
            if n2 == 1:
                if not _cut(cls, value, binds, depth, seen):
                    return False
            elif not _own_call(cls, value, n2, j, depth):
                return False
        return True
    return False


def _comp_names(comp) -> dict:
    """The comprehension's own names: what they hold is not followed."""
    return {x.id: [None] for x in ast.walk(comp.generators[0].target) if isinstance(x, ast.Name)}


def _own_call(cls, value, n2, j, depth) -> bool:
    """`a, b = self._step(...)`: position `j` of what a method of the class hands back is cut."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute) or \
            not isinstance(value.func.value, ast.Name) or value.func.value.id != "self":
        return False
    return returns_cut(cls, value.func.attr, n2, j, depth + 1)
