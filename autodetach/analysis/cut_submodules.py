"""A layer of a module class that its own `forward` cuts from every output.

    class GCNResnet(nn.Module):
        def __init__(self, ...):
            self.non_local = NONLocalBlock1D(300)
            self.gc1 = GraphConvolution(300, 1024)

        def forward(self, feature, inp):
            adj = self.non_local(inp)
            adj = gen_adj(adj).detach()             # every path from self.non_local ends here
            x = self.gc1(inp, adj)
            return x, adj

        def get_config_optim(self, lr):
            return [{"params": self.non_local.parameters(), "lr": lr}, ...]

No training loop is in sight (it lives in another file), so no step shows
that the layer stops learning. The class says it itself: it hands the
layer's parameters to an optimizer by name (a parameter group), while
`forward`, the only method that runs it, returns (or stores on `self`) what
it computes only through a cut (`.detach()`, `.data`). A layer meant to stay
fixed is not handed to an optimizer. Read from the class alone, in order,
with names rebound as the body goes; a layer another method runs, or whose
output leaves `forward` in any other way, is left alone."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import class_methods, nodes

_CUT_CALLS = ("detach",)
_CUT_ATTRS = ("data",)


@dataclass
class CutSubmodule:
    submodule: str  # `self.non_local`
    cls: str
    cut: cst.CSTNode  # the `.detach()` call (or `.data`) that cuts its last path
    group: cst.CSTNode  # the `.parameters()` call that hands it to an optimizer
    method: str  # the method that builds the parameter group


def cut_submodules(analysis) -> list:
    return analysis.memo("_cut_submodules", lambda: _find(analysis))


def _find(analysis) -> list:
    out = []
    names = analysis.names
    for cls in analysis.ctx.module.body:
        if type(cls) is not cst.ClassDef or cls.name.value not in names.module_classes:
            continue
        methods = class_methods(cls)
        forward = methods.get("forward")
        if forward is None:
            continue
        groups = _param_groups(methods)
        for key, (group, where) in groups.items():
            if any(_runs(m, key) for name, m in methods.items() if name not in ("forward", "__init__")):
                continue  # run elsewhere too: another method may train it
            cut = _only_cut(forward, key)
            if cut is not None:
                out.append(CutSubmodule(key, cls.name.value, cut, group, where))
    return out


def _param_groups(methods: dict) -> dict:
    """`self.X` -> (the `self.X.parameters()` call, method) for each layer a
    method puts in a parameter group (`{"params": self.X.parameters(), ...}`)."""
    out: dict = {}
    for name, m in methods.items():
        if name in ("forward", "__init__"):
            continue
        for node in nodes(m.body):
            if type(node) is cst.Dict:
                values = [e.value for e in node.elements if isinstance(e, cst.DictElement) and
                          isinstance(e.key, cst.SimpleString) and e.key.evaluated_value == "params"]
            elif type(node) is cst.Call and dotted(node.func) == "dict":
                values = [a.value for a in node.args if a.keyword is not None and a.keyword.value == "params"]
            else:
                continue
            for value in values:
                if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
                        value.func.attr.value == "parameters":
                    key = dotted(value.func.value)
                    if key and key.startswith("self.") and key.count(".") == 1:
                        out.setdefault(key, (value, name))
    return out


def _runs(fn, key: str) -> bool:
    return any(isinstance(n, cst.Call) and dotted(n.func) in (key, key + ".forward") for n in nodes(fn.body))


def _only_cut(forward, key: str) -> Optional[cst.CSTNode]:
    """The cut that ends the last live path from `key` in `forward`, when
    what forward returns or stores on `self` reaches `key` only through cuts."""
    env: dict = {}  # local name -> (live, cut node or None)
    outputs = []
    ran = [False]

    def reach(expr) -> tuple:
        """(live, cut): does `expr` read `key`'s output uncut, and the cut it reads it through."""
        if isinstance(expr, cst.Call):
            if dotted(expr.func) in (key, key + ".forward"):
                ran[0] = True
                parts = [reach(arg.value) for arg in expr.args]
                return True, next((c for _, c in parts if c is not None), None)
            if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _CUT_CALLS:
                live, cut = reach(expr.func.value)
                return False, expr if live else cut
        if isinstance(expr, cst.Attribute) and expr.attr.value in _CUT_ATTRS:
            live, cut = reach(expr.value)
            return False, expr if live else cut
        if isinstance(expr, cst.Name):
            return env.get(expr.value, (False, None))
        if isinstance(expr, (cst.Lambda, cst.ListComp, cst.DictComp, cst.GeneratorExp, cst.SetComp)):
            return _unknown(expr)
        live, cut = False, None
        for sub in _parts(expr):
            found = reach(sub)
            live = live or found[0]
            cut = cut or found[1]
        return live, cut

    def _unknown(expr) -> tuple:
        read = any(isinstance(n, cst.Name) and env.get(n.value, (False, None))[0] for n in nodes(expr)) or \
            any(isinstance(n, cst.Call) and dotted(n.func) in (key, key + ".forward") for n in nodes(expr))
        return read, None

    for stmt in _statements(forward.body.body):
        if stmt is None:
            return None  # a `with torch.no_grad()` or other block: not followed
        if isinstance(stmt, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            if stmt.value is None:
                continue
            value = reach(stmt.value)
            targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
            for target in targets:
                names = [n.value for n in nodes(target) if isinstance(n, cst.Name)] \
                    if isinstance(target, (cst.Tuple, cst.List)) else [dotted(target)]
                for name in names:
                    if name is None:
                        continue
                    if name.startswith("self.") or isinstance(stmt, cst.AugAssign) or isinstance(target, cst.Subscript):
                        outputs.append(value)  # stored on self (or into something): leaves forward
                        old = env.get(name, (False, None))
                        env[name] = (old[0] or value[0], old[1] or value[1])
                    else:
                        env[name] = value
        elif isinstance(stmt, cst.Return):
            if stmt.value is not None:
                outputs.append(reach(stmt.value))
        elif isinstance(stmt, cst.Expr):
            if _unknown(stmt.value)[0] or reach(stmt.value)[0]:
                return None  # `self.cache.append(adj)`: leaves forward another way
    if not ran[0] or not outputs or any(live for live, _ in outputs):
        return None
    return next((cut for _, cut in outputs if cut is not None), None)


def _parts(expr) -> list:
    """The expressions directly inside `expr` (call arguments, elements, operands)."""
    out = []
    for child in expr.children:
        if isinstance(child, (cst.Arg, cst.Element, cst.StarredElement)):
            out.append(child.value)
        elif isinstance(child, cst.DictElement):
            out += [child.key, child.value]
        elif isinstance(child, (cst.SubscriptElement,)):
            if isinstance(child.slice, cst.Index):
                out.append(child.slice.value)
        elif isinstance(child, cst.BaseExpression):
            out.append(child)
    return out


def _statements(body):
    """The small statements of `body`, in order; None for a compound
    statement (its arms are not followed: the answer is then no)."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, cst.If):
            yield None
        else:
            yield None
