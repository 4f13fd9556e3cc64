"""Small builders shared by rules."""
from __future__ import annotations

import libcst as cst


def method_call(obj: cst.BaseExpression, method: str, *args: cst.Arg) -> cst.Call:
    return cst.Call(func=cst.Attribute(value=obj, attr=cst.Name(method)), args=list(args))


def is_call_to(ctx, node: cst.CSTNode, *qualified: str) -> bool:
    return isinstance(node, cst.Call) and ctx.imports.is_(node.func, *qualified)


def kwarg(call: cst.Call, name: str):
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a
    return None


def positional(call: cst.Call) -> list:
    return [a for a in call.args if a.keyword is None and not a.star]


def is_true(expr) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "True"


def is_false(expr) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "False"


def strip_trailing_comma(args: list) -> list:
    if args and args[-1].comma is not cst.MaybeSentinel.DEFAULT:
        args = list(args)
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return args


def parenthesize_if_needed(expr: cst.BaseExpression) -> cst.BaseExpression:
    """Wrap expressions that would bind wrongly as the object of `.method()`."""
    atomic = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString,
              cst.Integer, cst.Float, cst.List, cst.Tuple, cst.Dict, cst.Set)
    if isinstance(expr, atomic) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
