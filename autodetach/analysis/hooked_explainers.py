"""Does anything walk again the graph an explainer's last walk retains?

    class Saliency(nn.Module):                 # or a plain class: `explain(x)`
        def __init__(self, model, layer):
            self.model = model                 # handed in, stored only here
            layer.register_forward_hook(self.keep)
        def keep(self, m, i, o):
            self.acts = o                      # a forward hook: each forward overwrites it
        def forward(self, x, cls):
            out = self.model(x)                # a forward built anew by each call
            out[:, cls].sum().backward(retain_graph=True)   # the method's last walk
            cam = (self.grads * self.acts).sum(1)
            return cam.detach(), out.argmax(1)  # numbers: no graph leaves

The graph is built by this call and, after its last walk, read only through
cuts (`.detach()`, `.data`, `.item()`, an `argmax`, a comparison, a shape):
the method returns none of it, stores none of it on `self` or on what it was
handed, hands none of it to a call that might keep it, and runs no backward
or grad after it. The only other holder is the forward hook's attribute
(`self.acts`), which each call overwrites (an appending hook: which the
method empties before its forward) and which no other method, and no other
file of the project, reads. So no later backward reaches the retained
graph: the next call builds a new one. A careful engineer reads it that way
without seeing the caller.

What the verdict takes on trust (the fix is unsafe): that the model handed
in keeps nothing of this call's graph for the next (the method steps no
optimizer), and that an argument (the image) carries no graph the caller
walks again. Not judged (None): a loss that reads other `self` state (a
tensor built once and walked by every call), a value of a call out of sight
(other than the model's), a walk inside a loop of the method, nested
functions, any hook whose stores cannot be read, a class that steps an
optimizer (a trainer keeps state between calls an explainer does not), and a
model of a class of this file that stores on `self` outside `__init__`."""
from __future__ import annotations

import os
import re
from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes

# values that carry no graph whatever they read
_CUT_ATTRS = {"data", "shape", "dtype", "device", "grad", "requires_grad", "ndim", "is_cuda"}
_CUT_METHODS = {"detach", "item", "tolist", "numpy", "argmax", "argmin", "argsort", "size", "dim", "numel",
                "nonzero", "data_ptr", "max_indices", "eq", "ne", "gt", "lt", "ge", "le"}
_CUT_FUNCS = {"len", "int", "float", "bool", "str", "isinstance", "type", "range", "print", "id", "repr",
              "torch.argmax", "torch.argmin", "torch.argsort", "torch.no_grad", "torch.zeros_like",
              "torch.ones_like", "torch.empty_like", "torch.zeros", "torch.ones", "torch.tensor"}
# calls that hand back what they are given (or values computed from it) and keep nothing
_PURE_PREFIXES = ("torch.", "F.", "nn.functional.", "np.", "numpy.", "math.", "cv2.")
_PURE_FUNCS = {"min", "max", "sum", "abs", "round", "list", "tuple", "zip", "enumerate", "sorted", "reversed"}
_KEEPS = {"append", "extend", "insert", "register_hook", "retain_grad", "copy_", "set_", "update", "add_",
          "setdefault", "put", "put_"}
_FORWARD_HOOKS = ("register_forward_hook", "register_forward_pre_hook")
_EMPTY = (cst.List, cst.Dict, cst.Tuple)


def quiet_explainer(analysis, ev) -> Optional[list]:
    """Notes (inferences) when `ev` is a method's last walk of a graph that the
    method builds anew, reads afterwards only through cuts and keeps nowhere but
    in forward-hook attributes that each call overwrites; None otherwise."""
    ctx = analysis.ctx
    call = ev.call
    fn = ctx.enclosing(call, cst.FunctionDef)
    cls = ctx.enclosing(fn, cst.ClassDef) if fn is not None else None
    if fn is None or cls is None or ctx.enclosing(cls, cst.FunctionDef) is not None:
        return None
    if not fn.params.params or fn.params.params[0].name.value != "self" or ev.retain is not True:
        return None
    if any(a.keyword is not None and a.keyword.value == "create_graph" for a in call.args):
        return None
    if any(isinstance(x, (cst.For, cst.While)) and ctx.encloses(x, call) for x in nodes(fn.body)):
        return None  # each iteration may walk the graph again
    if any(isinstance(x, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Global, cst.Nonlocal, cst.Yield, cst.Await))
           for x in nodes(fn.body)):
        return None
    if any(type(c) is cst.Call and isinstance(c.func, cst.Attribute) and c.func.attr.value == "step"
           for c in nodes(fn.body)):
        return None  # a training step: a recurrent model may keep its state, with its graph
    if any(type(c) is cst.Call and isinstance(c.func, cst.Attribute) and c.func.attr.value == "step"
           or dotted(c) in ("torch.optim", "optim") for c in nodes(cls)):
        return None  # a class that trains: what it keeps between calls is not an explainer's
    hooks = _hook_attrs(ctx, cls)
    if hooks is None:
        return None
    kept, appended = hooks
    params = {p.name.value for p in fn.params.params + fn.params.kwonly_params} - {"self"}
    flow = _Flow(ctx, cls, fn, params, set(kept) | set(appended))
    if not flow.run(call):
        return None
    sources = flow.sources(call)
    if sources is None:
        return None
    models = {s[5:] for s in sources if s.startswith("call:")}
    for m in models:
        if not _bound_in_init_only(cls, m) or _keeps_state(analysis, f"self.{m}"):
            return None  # `self.net` rebound by another method, or of a class keeping state between calls
    used = {s for s in sources if s.startswith("self.")}
    if not models and not used:
        return None  # no forward of this call's own: the graph may come from the caller alone
    for attr in appended:
        if not flow.reset_before(attr, call):
            return None  # an appending hook whose list the method does not empty: earlier calls' graphs stay
    if not _read_only_here(ctx, cls, fn, set(kept) | set(appended), hooks_of=_hook_functions(ctx, cls)):
        return None
    held = sorted(set(kept) | set(appended))
    shown = ", ".join(f"`self.{a}`" for a in held)
    origin = ", ".join(f"`self.{m}`" for m in sorted(models)) or "what its forward hooks keep"
    notes = [f"`{fn.name.value}()` builds this graph anew from {origin} and after this walk reads it only "
             "through cuts" + (f"; its forward hooks keep it on {shown}, which each call replaces and no other "
                               "method or file reads" if held else "")
             + ": that the model handed in keeps nothing of the graph for the next call, and that the "
             "arguments carry none the caller walks again, is inferred"]
    return notes


def _keeps_state(analysis, base: str) -> bool:
    """Is `base` an instance of a class of this file whose methods store on `self`
    outside `__init__` (a recurrent state, a cache: the next call may walk it)?"""
    from .retained import _keeps_on_self

    cls = analysis.names.instances.get(base)
    if cls is None:
        return False
    for (owner, name), m in analysis.names.methods.items():
        if owner != cls or name == "__init__":
            continue
        if _keeps_on_self(m) or any(isinstance(t, cst.Attribute) and dotted(t.value) == "self"
                                    for x in nodes(m) if isinstance(x, (cst.AssignTarget, cst.AugAssign))
                                    for t in nodes(x.target)):
            return True
    return False


def _hook_functions(ctx, cls) -> list:
    """The forward hooks the class registers: its methods passed as `self.m`, or
    functions defined in the registering method; None for one not read."""
    out = []
    methods = {m.name.value: m for m in cls.body.body if isinstance(m, cst.FunctionDef)}
    for c in nodes(cls):
        if type(c) is not cst.Call or not isinstance(c.func, cst.Attribute) or c.func.attr.value not in _FORWARD_HOOKS:
            continue
        if not c.args:
            return None
        h = c.args[0].value
        name = dotted(h)
        if name and name.startswith("self.") and name[5:] in methods:
            out.append(methods[name[5:]])
            continue
        host = ctx.enclosing(c, cst.FunctionDef)
        local = [d for d in nodes(host) if isinstance(d, cst.FunctionDef) and d.name.value == name] if host else []
        if isinstance(h, cst.Name) and len(local) == 1:
            out.append(local[0])
            continue
        return None
    return out


def _hook_attrs(ctx, cls):
    """(attributes a forward hook assigns, attributes it appends to); None when a
    hook does something else with `self` or cannot be read."""
    hooks = _hook_functions(ctx, cls)
    if hooks is None:
        return None
    kept, appended = set(), set()
    for h in hooks:
        for x in nodes(h):
            if isinstance(x, cst.Attribute) and dotted(x.value) == "self":
                parent = ctx.parent(x)
                if isinstance(parent, cst.AssignTarget):
                    kept.add(x.attr.value)
                elif isinstance(parent, cst.Attribute) and parent.attr.value in ("append", "extend", "insert") \
                        and type(ctx.parent(parent)) is cst.Call:
                    appended.add(x.attr.value)
                else:
                    return None  # a hook reading or using `self` otherwise: not read here
    return sorted(kept), sorted(appended)


def _bound_in_init_only(cls, attr: str) -> bool:
    where = [m for m in cls.body.body if isinstance(m, cst.FunctionDef)
             for x in nodes(m) if isinstance(x, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign))
             for t in nodes(x.target) if isinstance(t, cst.Attribute) and dotted(t) == f"self.{attr}"]
    return bool(where) and all(m.name.value == "__init__" for m in where)


def _read_only_here(ctx, cls, fn, attrs: set, hooks_of) -> bool:
    """Is each hook attribute mentioned, outside the hooks and `fn`, only by an
    assignment of an empty value (`self.acts = []`, `None`), and, in this file and
    the project's others, only as `self.<attr>` (no `cam.acts`)?"""
    if not attrs:
        return True
    hooks = hooks_of or []
    for m in cls.body.body:
        if not isinstance(m, cst.FunctionDef) or m is fn or m in hooks:
            continue
        for x in nodes(m):
            if ctx.enclosing(x, cst.FunctionDef) in hooks:
                continue
            if not (isinstance(x, cst.Attribute) and dotted(x.value) == "self" and x.attr.value in attrs):
                continue
            parent = ctx.parent(x)
            assign = ctx.parent(parent) if isinstance(parent, cst.AssignTarget) else None
            if not (isinstance(assign, cst.Assign) and _empty(assign.value)):
                return False
    path = ctx.path
    if not path or not os.path.isfile(path):
        return False
    from .project_index import files_mentioning

    for attr in attrs:
        outside = re.compile(r"(?<![\w.])(\w+(?:\.\w+)*)\." + re.escape(attr) + r"\b")
        for f in {os.path.abspath(path), *map(os.path.abspath, files_mentioning(path, ("." + attr).encode()))}:
            try:
                with open(f, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                return False
            if any(m.group(1) != "self" for m in outside.finditer(text)):
                return False  # `cam.acts` read outside the class (this file's script, another file)
    return True


def _empty(value) -> bool:
    if isinstance(value, cst.Name) and value.value == "None":
        return True
    return isinstance(value, _EMPTY) and not getattr(value, "elements", None)


class _Flow:
    """Which values of the method reach each name, flow-insensitively (a union
    over every binding): `self.X` reads, `call:self.M` for a model held on
    `self`, `arg:x` for an argument, `?` for a call out of sight."""

    def __init__(self, ctx, cls, fn, params, hook_attrs):
        self.ctx, self.cls, self.fn, self.params, self.hooks = ctx, cls, fn, params, hook_attrs
        self.env: dict = {}
        self.resets: list = []  # (attr, line) of `self.attr = []` in the method

    def reset_before(self, attr, call) -> bool:
        line = self.ctx.line_of(call)
        return any(a == attr and ln < line for a, ln in self.resets)

    def of(self, e) -> set:
        t = type(e)
        if t is cst.Name:
            if e.value in self.params:
                return {f"arg:{e.value}"}
            return set(self.env.get(e.value, ()))
        if t is cst.Attribute:
            if e.attr.value in _CUT_ATTRS:
                return set()
            d = dotted(e)
            if d and d.startswith("self."):
                return {"self." + d.split(".")[1]}
            return self.of(e.value)
        if t is cst.Call:
            func = e.func
            name = dotted(func) or ""
            args = set()
            for a in e.args:
                args |= self.of(a.value)
            if name in _CUT_FUNCS:
                return set()
            if isinstance(func, cst.Attribute) and func.attr.value in _CUT_METHODS:
                return set()
            if name and name.startswith("self.") and name.count(".") == 1:
                return args | {f"call:{name[5:]}"}
            if name and (name.startswith(_PURE_PREFIXES) or name in _PURE_FUNCS):
                return args
            if name.endswith("autograd.grad") and not any(
                    a.keyword is not None and a.keyword.value == "create_graph" for a in e.args):
                return set()  # gradients taken without create_graph carry no graph
            if isinstance(func, cst.Attribute) and self._local(func.value):
                return self.of(func.value) | args  # a method of a value of the method's own
            return args | {"?"}
        if t is cst.Subscript:
            return self.of(e.value)  # an index selects: it carries no graph into the result
        if t is cst.Comparison or (t is cst.UnaryOperation and type(e.operator) is cst.Not):
            return set()
        if t in (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
            return set()
        out = set()
        for child in e.children:
            if isinstance(child, cst.BaseExpression):
                out |= self.of(child)
            elif isinstance(child, (cst.Element, cst.StarredElement, cst.Arg, cst.DictElement)):
                out |= self.of(child.value)
                if isinstance(child, cst.DictElement):
                    out |= self.of(child.key)
        return out

    def _local(self, e) -> bool:
        """Is `e` rooted in a local name or an argument (not `self`, a module, a global)?"""
        d = dotted(e)
        if d is None:
            return True  # a computed value (`f(x)[0].data`): what it reads is followed by `of`
        root = d.split(".")[0]
        return root in self.params or root in self.env

    def sources(self, call) -> Optional[set]:
        """What the walk's outputs (and seeds) reach; None when a call out of sight
        or `self` state other than the hooks' and the models' feeds it."""
        exprs = [a.value for a in call.args if a.keyword is None or a.keyword.value == "gradient"]
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "backward":
            exprs.append(call.func.value)
        else:
            exprs = exprs[:1] + [a.value for a in call.args[2:3] if a.keyword is None]
        found = set()
        for x in exprs:
            found |= self.of(x)
        if "?" in found:
            return None
        for s in found:
            if s.startswith("self.") and s[5:] not in self.hooks:
                return None
        return found

    def _store_target(self, target, flow, after) -> bool:
        """Bind or store `flow` in `target`; False when it keeps a graph outside the method."""
        if isinstance(target, cst.Name):
            self.env.setdefault(target.value, set()).update(flow)
            return True
        if isinstance(target, (cst.Tuple, cst.List)):
            return all(self._store_target(el.value, flow, after) for el in target.elements)
        if isinstance(target, cst.StarredElement):
            return self._store_target(target.value, flow, after)
        if isinstance(target, (cst.Attribute, cst.Subscript)):
            root = target
            while isinstance(root, (cst.Attribute, cst.Subscript)):
                root = root.value
            if isinstance(root, cst.Name) and root.value not in self.params and root.value != "self" \
                    and root.value in self.env:
                self.env[root.value].update(flow)  # a local container, now holding the value
                return True
            return not flow  # on `self`, on what the caller handed in, on a global: kept
        return not flow

    def run(self, walk) -> bool:
        """Bind every name of the method; False when a value that may carry the
        graph leaves it (returned, stored outside, handed to a call out of sight
        after the walk) or a backward or grad follows the walk."""
        ctx = self.ctx
        line = ctx.line_of(walk)
        stmts = [s for s in nodes(self.fn.body) if isinstance(s, cst.BaseSmallStatement)]
        for s in stmts:  # twice: a name bound below its use in a branch reaches it too
            self._bind(s)
        for s in stmts:
            self._bind(s)
        for x in nodes(self.fn.body):
            if isinstance(x, (cst.For,)):
                self._store_target(x.target, self.of(x.iter), True)
            if isinstance(x, cst.WithItem) and x.asname is not None:
                self._store_target(x.asname.name, self.of(x.item), True)
        for s in stmts:
            after = ctx.line_of(s) >= line
            if not self._check(s, after, walk):
                return False
        return True

    def _bind(self, s) -> None:
        if isinstance(s, cst.Assign):
            flow = self.of(s.value)
            for t in s.targets:
                tgt = t.target
                if isinstance(tgt, cst.Attribute) and dotted(tgt.value) == "self" and _empty(s.value):
                    self.resets.append((tgt.attr.value, self.ctx.line_of(s)))
                if isinstance(tgt, (cst.Name, cst.Tuple, cst.List)):
                    self._store_target(tgt, flow, False)
        elif isinstance(s, (cst.AugAssign, cst.AnnAssign)) and s.value is not None \
                and isinstance(s.target, cst.Name):
            self._store_target(s.target, self.of(s.value), False)

    def _check(self, s, after, walk) -> bool:
        if isinstance(s, cst.Return):
            return s.value is None or not self.of(s.value)
        if isinstance(s, cst.Assign):
            flow = self.of(s.value)
            if not all(self._store_target(t.target, flow, after) for t in s.targets):
                return False
        if isinstance(s, (cst.AugAssign, cst.AnnAssign)) and s.value is not None:
            if not self._store_target(s.target, self.of(s.value), after):
                return False
        for c in nodes(s):
            if type(c) is not cst.Call:
                continue
            name = dotted(c.func) or ""
            attr = c.func.attr.value if isinstance(c.func, cst.Attribute) else name
            if after and c is not walk and (attr in ("backward", "grad") or name.endswith("autograd.grad")):
                return False  # a later walk may reach the graph
            args = set()
            for a in c.args:
                args |= self.of(a.value)
            method = isinstance(c.func, cst.Attribute)
            if method and attr in _KEEPS and args:
                if not self._store_target(c.func.value, args, after):
                    return False  # `self.kept.append(out)`: held outside the method
                continue
            if not args or name in _CUT_FUNCS or name in _PURE_FUNCS or name.startswith(_PURE_PREFIXES):
                continue
            if method and (attr in _CUT_METHODS or self._local(c.func.value)):
                continue  # a method of a value of the method's own
            if not after and name.startswith("self.") and name.count(".") == 1 \
                    and _bound_in_init_only(self.cls, name[5:]):
                continue  # the model's forward, which builds the graph
            return False  # handed to a call that may keep it
        return True
