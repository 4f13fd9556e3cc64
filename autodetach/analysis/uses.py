"""Could a variable hold a Python float instead of a tensor?

AD102 keeps `.item()` of a loss in an accumulator only when every use of the
accumulator in the file works the same with a float: printing and
formatting, arithmetic and comparisons with numbers, `float()`, `sum()`,
`len()`, `math`/`numpy`/`statistics` functions, logging calls, and a list
read only in those ways. A tensor method, a `torch.*` call, an unknown
function, a return, an attribute store: the value stays a tensor (the rule
stores `.detach()`)."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .keyed import key_of
from .walk import nodes

TERMINAL = {"print", "str", "repr", "format", "float", "int", "bool", "round", "len", "isinstance", "hash"}
NUMERIC = {"sum", "min", "max", "abs"}  # the result is a number again
LISTING = {"sorted", "list", "tuple", "reversed"}
LIST_METHODS = {"append", "extend", "insert", "clear", "index", "count", "reverse", "sort"}
FLOAT_MODULES = ("math.", "statistics.", "numpy.", "logging.")
LOG_METHODS = {"info", "debug", "warning", "error", "critical", "log", "add_scalar", "add_scalars",
               "log_metric", "log_metrics", "set_postfix", "set_description"}
LOGGERS = ("log", "writer", "wandb", "mlflow", "pbar", "tqdm", "bar", "tracker")
_MAPPING = {"items", "values", "keys"}
STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
MAX_DEPTH = 4


def float_ok(ctx, key: str, kind: str, stmt) -> bool:
    """Would every use of accumulator `key` (a list when kind is
    "container", else a number) work with floats in it?"""
    if "." in key or "[" in key:
        return False  # stored on an object, or a dict's entry (`stats['loss']`): read where we cannot see
    fn = ctx.enclosing(stmt, cst.FunctionDef)
    if fn is not None and key in _params(fn):
        return False  # the caller's object
    return _Uses(ctx).name_ok(ctx.module, key, "list" if kind == "container" else "number", 0)


class _Uses:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.seen: set = set()

    def name_ok(self, scope, name: str, kind: str, depth: int) -> bool:
        if (id(scope), name) in self.seen:
            return True  # already being checked (`total = total + x`)
        if depth > MAX_DEPTH:
            return False
        self.seen.add((id(scope), name))
        return all(self.ok(n, kind, depth) for n in _reads(self.ctx, scope, name))

    def ok(self, node, kind: str, depth: int) -> bool:
        ctx = self.ctx
        parent = ctx.parent(node)
        if isinstance(parent, cst.Attribute):
            call = ctx.parent(parent)
            if kind == "list" and isinstance(call, cst.Call) and call.func is parent:
                meth = parent.attr.value
                if meth in LIST_METHODS:
                    return True
                if meth in ("pop", "copy"):
                    return self.ok(call, "number" if meth == "pop" else "list", depth)
            return False  # `.item()`, `.shape`, `.to()`: tensor only
        if isinstance(parent, cst.Subscript):
            if kind != "list" or parent.value is not node:
                return False
            sliced = any(isinstance(e.slice, cst.Slice) for e in parent.slice)
            return self.ok(parent, "list" if sliced else "number", depth)
        if isinstance(parent, cst.Arg):
            return parent.value is node and self.arg_ok(ctx.parent(parent), parent, kind, depth)
        if isinstance(parent, cst.BinaryOperation):
            if isinstance(parent.operator, cst.Modulo) and isinstance(parent.left, STRINGS):
                return True  # "%.4f" % total
            if kind == "list":
                return isinstance(parent.operator, (cst.Add, cst.Multiply)) and self.ok(parent, "list", depth)
            return self.ok(parent, "number", depth)
        if isinstance(parent, cst.Element):
            seq = ctx.parent(parent)
            op = ctx.parent(seq)
            return isinstance(seq, cst.Tuple) and isinstance(op, cst.BinaryOperation) and \
                op.right is seq and isinstance(op.operator, cst.Modulo) and isinstance(op.left, STRINGS)
        if isinstance(parent, cst.UnaryOperation):
            return isinstance(parent.operator, cst.Not) or (kind == "number" and self.ok(parent, kind, depth))
        if isinstance(parent, (cst.Comparison, cst.ComparisonTarget, cst.FormattedStringExpression, cst.Expr)):
            return True
        if isinstance(parent, cst.Del):
            return True
        if isinstance(parent, (cst.If, cst.While)):
            return parent.test is node
        if isinstance(parent, cst.IfExp):
            return parent.test is node or self.ok(parent, kind, depth)
        if isinstance(parent, cst.AugAssign):
            if parent.target is node:
                return True  # `total += x`, `total /= n`: number arithmetic
            return self.alias_ok(parent, parent.target, "number", depth)
        if isinstance(parent, cst.Assign):
            return len(parent.targets) == 1 and self.alias_ok(parent, parent.targets[0].target, kind, depth)
        if isinstance(parent, cst.For) and parent.iter is node and kind == "list":
            return self.alias_ok(parent, parent.target, "number", depth)
        if isinstance(parent, cst.DictElement) and parent.value is node:
            holder = ctx.parent(ctx.parent(parent))
            return isinstance(holder, cst.Arg) and self.arg_ok(ctx.parent(holder), holder, "dict", depth)
        return False  # returned, yielded, stored in a container, a lambda: not seen

    def alias_ok(self, stmt, target, kind: str, depth: int) -> bool:
        if not isinstance(target, cst.Name):
            return False  # self.x = total, a, b = ...: read where we cannot follow
        scope = self.ctx.enclosing(stmt, cst.FunctionDef) or self.ctx.module
        return self.name_ok(scope, target.value, kind, depth + 1)

    def arg_ok(self, call, arg, kind: str, depth: int) -> bool:
        if not isinstance(call, cst.Call):
            return False
        f = call.func
        qualified = self.ctx.imports.qualify(f)
        key = dotted(f)
        if isinstance(f, cst.Attribute) and f.attr.value == "format" and isinstance(f.value, STRINGS):
            return True  # "{:.4f}".format(total)
        if isinstance(f, cst.Attribute) and f.attr.value in LOG_METHODS and \
                any(h in (dotted(f.value) or "").split(".")[-1].lower() for h in LOGGERS):
            return True
        if qualified is not None:
            return qualified.startswith(FLOAT_MODULES) and kind != "dict"
        if kind == "dict" or key is None:
            return key == "print"
        if key in TERMINAL:
            return True
        if key in NUMERIC:
            return self.ok(call, "number", depth)
        if key in LISTING:
            return kind == "list" and self.ok(call, "list", depth)
        if key == "enumerate" and kind == "list":
            loop = self.ctx.parent(call)
            target = loop.target if isinstance(loop, cst.For) and loop.iter is call else None
            return isinstance(target, cst.Tuple) and len(target.elements) == 2 and \
                self.alias_ok(loop, target.elements[1].value, "number", depth)
        fn = self.ctx.analysis.names.functions.get(key)
        if fn is None or arg.star or depth >= MAX_DEPTH:
            return False  # an unknown function: it may need a tensor
        param = _param_for(fn, call, arg)
        return param is not None and self.name_ok(fn, param, kind, depth + 1)


def read_as_mapping(ctx, stmt, name: str) -> bool:
    """Is variable `name` read as a dict in the function holding `stmt` (`losses["kl"]`,
    `losses.items()`)? A tensor has neither: `.detach()` of it would fail."""
    scope = ctx.enclosing(stmt, cst.FunctionDef) or ctx.module
    for n in nodes(scope):
        if isinstance(n, cst.Subscript) and isinstance(n.value, cst.Name) and n.value.value == name:
            if key_of(n) is not None:
                return True
        elif isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in _MAPPING \
                and isinstance(n.func.value, cst.Name) and n.func.value.value == name:
            return True
    return False


def _reads(ctx, scope, name: str) -> list:
    """Name nodes under `scope` that read variable `name`."""
    out = []
    for n in nodes(scope):
        if isinstance(n, cst.Name) and n.value == name and not _is_store(ctx, n):
            out.append(n)
    return out


def _is_store(ctx, n) -> bool:
    parent = ctx.parent(n)
    if isinstance(parent, cst.Attribute) and parent.attr is n:
        return True
    if isinstance(parent, cst.Arg) and parent.keyword is n:
        return True
    if isinstance(parent, (cst.Param, cst.FunctionDef, cst.ClassDef, cst.ImportAlias, cst.AsName,
                           cst.NameItem, cst.Global, cst.Nonlocal)):
        return True
    child = n
    while isinstance(parent, (cst.Element, cst.Tuple, cst.List, cst.StarredElement)):
        child, parent = parent, ctx.parent(parent)
    if isinstance(parent, (cst.AssignTarget, cst.Del)):
        return True
    if isinstance(parent, (cst.For, cst.CompFor, cst.AnnAssign, cst.NamedExpr)):
        return parent.target is child
    return False


def _params(fn) -> set:
    return {p.name.value for p in fn.params.params + fn.params.kwonly_params + fn.params.posonly_params}


def _param_for(fn, call, arg):
    if arg.keyword is not None:
        name = arg.keyword.value
        return name if name in _params(fn) else None
    pos = [arg for arg in call.args if arg.keyword is None]
    i = pos.index(arg)
    params = list(fn.params.posonly_params) + list(fn.params.params)
    return params[i].name.value if i < len(params) else None


def operands(expr) -> list:
    """The names an arithmetic expression combines (`(tot * 0.9) + info` gives `tot`, `info`)."""
    if isinstance(expr, cst.Name):
        return [expr]
    if isinstance(expr, cst.BinaryOperation):
        return operands(expr.left) + operands(expr.right)
    if isinstance(expr, cst.UnaryOperation):
        return operands(expr.expression)
    return []
