"""A graph shared across iterations only through inputs prepared before the loop.

    def _fit(self, x, y):
        x = self.preprocess(x)                  # a method of `self`, from the arguments
        for epoch in range(self.epochs):
            loss = -mll(self(x), y)
            loss.backward(retain_graph=True)    # the next epoch walks only `x` again

The walk takes `self.preprocess(x)` for a call of the module, so the next
iteration's backward seems to walk that graph again and the retain looks
needed. When everything the two walks share was made before the loop, in
the same function, by methods of `self` (not its forward, not a submodule,
none whose code reads a layer or a parameter of `self`) from the function's
own arguments, the shared part is most likely the data
made ready (moved, converted, scaled): no graph. That is an inference the
finding names, so its fix is unsafe: should the method run parameters, the
next iteration would fail to backward without the retain."""
from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes


def prepared_inputs(analysis, ev, later, own) -> Optional[str]:
    """The note when `later`, the next walk of the backward `ev`, shares with
    it only nodes made before its loops by methods of `self` given the
    function's arguments; None otherwise."""
    ctx = analysis.ctx
    if later.call is not ev.call or not ev.loops:
        return None
    shared = {n for n in own & later.reach if not n.leaf}
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if not shared or fn is None:
        return None
    params = {p.name.value for p in fn.params.params + fn.params.kwonly_params} - {"self", "cls"}
    calls = []
    for n in shared:
        if n.stmt is None or any(ctx.encloses(loop, n.stmt) for loop in ev.loops) or \
                ctx.enclosing(n.stmt, cst.FunctionDef) is not fn:
            return None  # made in the loop, or elsewhere
        if any(p.leaf or p not in shared for p in n.parents):
            return None  # a parameter, or a graph from before that is not this one
        if n.kind == "module":
            call = n.expr
            if not _self_method(call, _self_stores(analysis)) or not _reads_only(call, params, shared) or \
                    _runs_parameters(analysis, fn, call.func.attr.value, 0):
                return None
            if call not in calls:
                calls.append(call)
        elif n.kind != "op":
            return None
    if not calls:
        return None
    listed = ", ".join(f"`{ctx.snippet(c)}`" for c in calls[:3])
    return (f"the next iteration walks again only what {listed} made before the loop from the arguments: "
            f"taken for inputs made ready (no parameters), so nothing else needs the retained graph")


def _self_method(call, stored: set) -> bool:
    """`self.meth(...)`: a method, not the forward and not a submodule stored on `self`."""
    if type(call) is not cst.Call or type(call.func) is not cst.Attribute:
        return False
    func = call.func
    if type(func.value) is not cst.Name or func.value.value != "self":
        return False
    name = func.attr.value
    return name not in ("forward", "__call__") and name not in stored


def _runs_parameters(analysis, fn, name: str, depth: int) -> bool:
    """Does the method `name` of `fn`'s class, when this file holds it, read a
    submodule or a parameter of `self`, or call the forward? A base class's is
    judged by its summary; where that cannot tell, the finding says so."""
    ctx, names = analysis.ctx, analysis.names
    cls = ctx.enclosing(fn, cst.ClassDef)
    meths = {m.name.value: m for m in cls.body.body if type(m) is cst.FunctionDef} if cls is not None else {}
    meth = meths.get(name)
    if meth is None:
        # a base class's, maybe in another file: its summary says whether what it returns from `self` has a graph
        return cls is not None and bool(ctx.path) and _base_runs_parameters(ctx.path, cls.name.value, name, depth)
    for node in nodes(meth.body):
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "self":
            return True
        if type(node) is not cst.Attribute or dotted(node.value) != "self":
            continue
        key, attr = f"self.{node.attr.value}", node.attr.value
        if names.is_module(key) and names.has_params(key) or key in names.leaves or names.is_param_attr(attr):
            return True
        if attr in meths and attr != name and (depth >= 2 or _runs_parameters(analysis, fn, attr, depth + 1)):
            return True
    return False


def _base_runs_parameters(path: str, cls: str, name: str, depth: int) -> bool:
    """The same question for a method another class holds, from its summary: what
    it reads of `self` (`self_attrs`), each a layer or a parameter its file makes
    (`self.X = nn.Linear(...)`, `nn.Parameter(...)`), or a method asked in turn."""
    from .project import find, text_of

    found, file = find(path, f"{cls}.{name}")
    if found is None:
        return False  # out of sight: the finding names the inference
    if found.self_flow == "const":
        return False  # only its arguments can give what it returns a graph
    if found.self_flow == "graph" or found.self_attrs is None or depth >= 2:
        return True
    text = text_of(file) or ""
    for attr in found.self_attrs:
        made = re.search(rf"self\.{re.escape(attr)}\s*=\s*(torch\.)?nn\.", text) or \
            re.search(rf"register_parameter\(\s*[\"']{re.escape(attr)}[\"']", text)
        if made or find(path, f"{cls}.{attr}")[0] is not None and _base_runs_parameters(path, cls, attr, depth + 1):
            return True
    return False


def _reads_only(call, params: set, shared) -> bool:
    """Each argument reads only the function's parameters (and no `self` state)."""
    for arg in call.args:
        for node in nodes(arg.value):
            if type(node) is cst.Attribute and dotted(node.value) == "self":
                return False
            if type(node) is cst.Name and node.value == "self":
                return False
        names = {n.value for n in nodes(arg.value) if type(n) is cst.Name}
        if not names <= params:
            return False
    return True


def _self_stores(analysis) -> set:
    """The attributes the file stores on `self` (`self.encoder = ...`): submodules or state, not methods.
    Once per file: every retained backward's later walks ask."""
    memo = analysis.table("_self_stores")
    if "out" in memo:
        return memo["out"]
    out = memo["out"] = set()
    for node in nodes(analysis.ctx.module):
        targets = []
        if type(node) is cst.AssignTarget:
            targets = [node.target]
        elif type(node) in (cst.AnnAssign, cst.AugAssign):
            targets = [node.target]
        for target in targets:
            for t in nodes(target):
                if type(t) is cst.Attribute and type(t.value) is cst.Name and t.value.value == "self":
                    out.add(t.attr.value)
    return out
