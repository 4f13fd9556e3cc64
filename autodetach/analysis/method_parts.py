"""Which parts of a module a call runs, when its class is in this file.

    class StyleGAN(nn.Module):
        def __init__(self):
            self.mapping = ...; self.synthesis = ...; self.disc = ...
        def generate(self, z):
            return self.synthesis(self.mapping(z))

    fake = model.generate(z)        # runs model.mapping, model.synthesis
    score = model.disc(fake)        # runs model.disc

Taking every call on `model` to run all of it would say that `opt_d`
(over `model.disc`) steps the graph of `fake`: a stale graph after its step,
and an unknown owner where the gradients of `fake` are in fact discarded.
The answer is a set of parts only when the method's every use of `self` is
read here: a layer built in `__init__`, a method of the class (followed), or
an attribute that only ever holds a literal; anything else (a bare `self`, a
base class of our own, `super()`, a module handed in) answers None."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import class_methods, nodes

_NOT_PARTS = {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.ParameterList",
              "torch.nn.ParameterDict"}
_BUILTIN_ATTRS = {"training"}
_ASSIGNS = (cst.Assign, cst.AnnAssign, cst.AugAssign)  # exact types: isinstance on libcst's ABCs is slow


def method_parts(analysis, base: str, meth: str) -> Optional[frozenset]:
    """The keys (`model.synthesis`) of the parts `base.meth(...)` runs, or None."""
    cls = analysis.names.instances.get(base)
    if cls is None:
        return None
    info = analysis.memo(f"_class_parts:{cls}", lambda: _class_info(analysis, cls))
    if info is None:
        return None
    methods, layers, plain = info
    if meth in layers:
        return frozenset({f"{base}.{meth}"})
    if meth not in methods:
        return None
    found: set = set()
    todo, seen = [meth], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        attrs = _self_attrs(methods[name])
        if attrs is None:
            return None
        for attr in attrs:
            if attr in methods:
                todo.append(attr)
            elif attr in layers:
                found.add(f"{base}.{attr}")
            elif attr not in plain and attr not in _BUILTIN_ATTRS:
                return None
    return frozenset(found)


def _class_info(analysis, cls_name: str):
    """(methods, attrs holding a layer built here, attrs holding only literals)
    of a top-level class derived from nn.Module alone; None otherwise."""
    imports = analysis.ctx.imports
    found = analysis.ctx.class_defs(cls_name)
    if not found:
        return None
    cls = found[0]
    if [imports.qualify(b.value) for b in cls.bases] != ["torch.nn.Module"] or cls.keywords:
        return None
    methods = class_methods(cls)
    values: dict = {}
    for node in nodes(cls):
        if type(node) in _ASSIGNS:
            targets = [t.target for t in node.targets] if type(node) is cst.Assign else [node.target]
            for target in targets:
                key = dotted(target)
                if key is not None and key.startswith("self.") and key.count(".") == 1:
                    values.setdefault(key[5:], []).append(node.value)
                elif isinstance(target, (cst.Tuple, cst.List)):
                    return None  # `self.a, self.b = ...`: names and values not paired here
    layers, plain = set(), set()
    for attr, vals in values.items():
        if all(_layer(analysis, v) for v in vals):
            layers.add(attr)
        elif all(_literal(v) for v in vals):
            plain.add(attr)
    return methods, layers, plain


def _layer(analysis, value) -> bool:
    if not isinstance(value, cst.Call):
        return False
    qualified = analysis.ctx.imports.qualify(value.func) or ""
    if qualified.startswith("torch.nn.") and qualified not in _NOT_PARTS and \
            qualified.rsplit(".", 1)[-1][:1].isupper():
        return True
    return dotted(value.func) in analysis.names.module_classes


def _literal(value) -> bool:
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("True", "False", "None")
    if isinstance(value, cst.UnaryOperation):
        return _literal(value.expression)
    if isinstance(value, (cst.Tuple, cst.List)):
        return all(_literal(e.value) for e in value.elements)
    return False


def _self_attrs(fn: cst.FunctionDef) -> Optional[set]:
    """The attributes the method reads on its first parameter; None when
    that parameter is used otherwise (passed on, `getattr(self, ...)`)."""
    if not fn.params.params or fn.decorators:
        return None
    me = fn.params.params[0].name.value
    inside = nodes(fn.body)
    if any(isinstance(n, cst.Name) and n.value == "super" for n in inside):
        return None
    names = [n for n in inside if isinstance(n, cst.Name) and n.value == me]
    attrs = {id(n.value): n.attr.value for n in inside if isinstance(n, cst.Attribute)
             and isinstance(n.value, cst.Name) and n.value.value == me}
    called = {id(n.func) for n in inside if isinstance(n, cst.Call) and isinstance(n.func, cst.Name)
              and n.func.value == me}
    out = set()
    for n in names:
        if id(n) in attrs:
            out.add(attrs[id(n)])
        elif id(n) in called:
            out.add("forward")  # `self(x)`
        else:
            return None
    return out
