"""Recurrent memory a module keeps on itself that nothing ever cuts.

    class MemoryAttention(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.k = nn.Linear(d, d)
            self.register_buffer("mem", torch.zeros(d, d))

        def forward(self, x):
            out = x @ self.mem                    # reads the memory into this call's output
            k = self.k(x)
            self.mem = self.mem + k.t() @ k       # the new memory hangs from this call's graph
            return out

Memory that forward reads and then sets anew from this call's graph is
recurrent state (an LSTM's hidden state kept on the module): its owner
decides where the chain is cut, by a method that sets it anew
(`self.mem = torch.zeros(...)`) or detaches it, or by a caller that does
(`model.mem = model.mem.detach()`). Where no code of the project does
either (the only reset is in place, `mem.zero_()`, which keeps the
history), the chain can never be cut: the next call's output reads the
memory, so a backward per call walks into the previous call's graph,
already freed ("Trying to backward through the graph a second time"),
and every call's graph stays referenced. buffer_updates finds the store
(forward read the key, then rebinds it from its old value and this call's
graph); `cut_anywhere` answers whether the project cuts it.
"""
from __future__ import annotations

import os
import re

import libcst as cst

from ..imports import dotted
from .project import text_of
from .project_index import files_mentioning, package_root
from .walk import nodes

CUTS = ("detach_", "detach", "requires_grad_")


def cut_anywhere(ctx, cls, key: str) -> bool:
    """Does code outside `cls` (this file's other classes and functions, or
    another file of the project) set `key`'s attribute anew on some object
    (`model.mem = ...`, `setattr(m, "mem", ...)`), detach it, or detach every
    buffer of a module? `cls`'s own methods are buffer_updates' `_reset`;
    another class's `self.mem = ...` is state of its own (a copy of the class)."""
    attr = key.split(".", 1)[1] if key.startswith("self.") and key.count(".") == 1 else None
    if attr is None:
        return True
    for stmt in ctx.module.body:
        if stmt is cls:
            continue
        if _cuts(stmt, attr):
            return True
    path = ctx.path
    if not path or path == "<string>" or not os.path.isfile(path):
        return False
    # another file's `self.X = ...` is a class of its own (a copy of this one); its writes on objects count
    name = re.escape(attr.encode())
    pattern = re.compile(rb"(?<!self)\." + name + rb"\s*(?:,[^\n=]*)?=(?!=)|(?<!self)\." + name +
                         rb"\.(?:detach|data\b|requires_grad_)|setattr\([^\n]*['\"]" + name + rb"['\"]")
    every = re.compile(rb"buffers\(\)[^\n]*\n?[^\n]*detach_")
    for other in files_mentioning(os.path.join(package_root(path), "_"), attr.encode(), up=False):
        if os.path.realpath(other) == os.path.realpath(path):
            continue
        text = text_of(other)
        if text is None:
            continue
        data = text.encode("utf-8", "replace")
        if pattern.search(data) or every.search(data):
            return True
    return False


def _cuts(tree, attr: str) -> bool:
    for n in nodes(tree):
        if type(n) is cst.AssignTarget:
            for t in nodes(n.target):
                if type(t) is cst.Attribute and t.attr.value == attr and dotted(t.value) != "self":
                    return True
        elif type(n) is cst.Call and type(n.func) is cst.Attribute:
            base = n.func.value
            if n.func.attr.value in CUTS and type(base) is cst.Attribute and base.attr.value == attr and \
                    dotted(base.value) != "self":
                return True
            if n.func.attr.value in ("setattr", "register_buffer") or dotted(n.func) == "setattr":
                if any(type(a.value) is cst.SimpleString and a.value.evaluated_value == attr for a in n.args):
                    return True
        elif type(n) is cst.Call and dotted(n.func) == "setattr":
            if any(type(a.value) is cst.SimpleString and a.value.evaluated_value == attr for a in n.args):
                return True
        elif type(n) is cst.For and type(n.iter) is cst.Call and type(n.iter.func) is cst.Attribute and \
                n.iter.func.attr.value == "buffers" and \
                any(type(x) is cst.Attribute and x.attr.value == "detach_" for x in nodes(n.body)):
            return True
    return False


def returns_cut(ctx, methods, value) -> bool:
    """`self._update(k, v, self.mem)` where the method `_update` (or a function
    of the file) hands back only detached values (`return new.detach()`,
    `m = m.detach(); return m, z`) or runs under `torch.no_grad()`: the store
    carries no graph. A call to a function the file does not define (imported
    from another module, not torch's) is unknown: taken as cut, nothing is
    reported on it."""
    from .flow import grad_mode

    if type(value) is not cst.Call:
        return False
    if type(value.func) is cst.Attribute and dotted(value.func.value) == "self":
        fn = methods.get(value.func.attr.value)
    else:
        name = dotted(value.func) or ""
        q = ctx.imports.qualify(value.func) or ""
        if q.startswith("torch.") or "." in name and not q:
            return False  # a torch function, or a method of a value (`self.mem.add(x)`)
        fn = next((f for f in ctx.module.body if type(f) is cst.FunctionDef and f.name.value == name), None)
        if fn is None:
            return True
    if fn is None:
        return False
    if any(grad_mode(d.decorator, ctx.imports) == 1 for d in fn.decorators):
        return True
    cut = {}
    returns = []
    for n in nodes(fn.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if type(n) is cst.Assign and len(n.targets) == 1 and type(n.targets[0].target) is cst.Name:
            cut[n.targets[0].target.value] = _detached(n.value, cut)
        elif type(n) is cst.Return:
            returns.append(n.value)
    if not returns:
        return False
    for r in returns:
        parts = [e.value for e in r.elements] if type(r) in (cst.Tuple, cst.List) else [r]
        if r is None or not all(_detached(p, cut) for p in parts):
            return False
    return True


def _detached(e, cut) -> bool:
    if type(e) is cst.Name:
        return cut.get(e.value, False)
    return type(e) is cst.Call and type(e.func) is cst.Attribute and e.func.attr.value in ("detach", "item", "clone") \
        and (e.func.attr.value != "clone" or _detached(e.func.value, cut))
