"""Small builders shared by rules."""
from __future__ import annotations

import re

import libcst as cst

from ..imports import dotted
from ..nbmask import MARK


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


def parenthesize_if_needed(expr: cst.BaseExpression) -> cst.BaseExpression:
    """Wrap expressions that would bind wrongly as the object of `.method()`."""
    # Not an Integer (`1.detach()` reads as a float literal) nor a bare tuple (`a, b`).
    atomic = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString,
              cst.Float, cst.List, cst.Dict, cst.Set)
    if isinstance(expr, atomic) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


# --- shared by the AD2xx migration rules (AD202, AD204, AD206) and AD106 -------

def _dotted_name(node) -> str:
    return dotted(node) or ""


def top_level_anchor(module: cst.Module, after_imports: bool = False):
    """The top-level statement before which new code goes (None: the module
    ends first). A new import goes after the module docstring and the
    `from __future__` imports; a new function (`after_imports`) also after
    the import lines that open the module. A notebook's masked IPython lines
    there (`%matplotlib inline`) stay above the new code."""
    for i, stmt in enumerate(module.body):
        if isinstance(stmt, cst.SimpleStatementLine):
            first = stmt.body[0] if stmt.body else None
            if _masked(stmt):
                continue
            if i == 0 and isinstance(first, cst.Expr) and isinstance(
                    first.value, (cst.SimpleString, cst.ConcatenatedString)):
                continue
            if isinstance(first, cst.ImportFrom) and _dotted_name(first.module) == "__future__":
                continue
            if after_imports and all(isinstance(small, (cst.Import, cst.ImportFrom)) for small in stmt.body):
                continue
        return stmt
    return None


def _masked(stmt: cst.SimpleStatementLine) -> bool:
    """A notebook's IPython line as nbmask masks it: `pass  # autodetach-masked-N`."""
    comment = stmt.trailing_whitespace.comment
    return (len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Pass)
            and comment is not None and comment.value.startswith(f"# {MARK}-"))


def insert_before(stmt: cst.CSTNode, code: str):
    """The replacement of `stmt` that places `code` as a new statement
    before it; comments and blank lines that sat above `stmt` move above the
    new statement. A function of `stmt` as other edits inside it leave it,
    so that they are kept (see `Edit`)."""
    new = cst.parse_statement(code)

    def place(stmt):
        lead = getattr(stmt, "leading_lines", ())
        if not lead:
            return cst.FlattenSentinel([new, stmt])
        return cst.FlattenSentinel([new.with_changes(leading_lines=lead), stmt.with_changes(leading_lines=())])
    return place


def drop_kwarg(call: cst.Call, name: str) -> cst.Call:
    """`call` without its keyword argument `name` (commas kept tidy)."""
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == name)]
    if len(args) == len(call.args):
        return call
    last_removed = call.args[-1].keyword is not None and call.args[-1].keyword.value == name
    if args and last_removed:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def append_kwarg(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """`call` with `name=value` added as its last argument."""
    args = list(call.args)
    if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    eq = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    args.append(cst.Arg(value=value, keyword=cst.Name(name), equal=eq))
    return call.with_changes(args=args)


# --- rewrites that take an expression out of a call's brackets -----------------

_OPENERS = (cst.List, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_STATEMENTS = (cst.BaseSmallStatement, cst.BaseCompoundStatement, cst.Module)


def _in_brackets(ctx, node) -> bool:
    """Whether `node` sits inside brackets of its statement (other than its own)."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, _STATEMENTS):
        if getattr(parent, "lpar", None) or isinstance(parent, _OPENERS):
            return True
        if isinstance(parent, cst.Call) and isinstance(child, cst.Arg):
            return True
        if isinstance(parent, cst.Subscript) and isinstance(child, cst.SubscriptElement):
            return True
        child, parent = parent, ctx.parent(parent)
    return False


def _comments(node) -> list:
    out = []

    class _Collect(cst.CSTVisitor):
        def visit_Comment(self, c: cst.Comment) -> None:
            out.append(c.value)

    node.visit(_Collect())
    return out


def lost_comments(original, new, ctx=None) -> list:
    """The comments in `original` that `new` does not hold. With `ctx`, a
    node of its tree whose code has no `#` holds none: answered without the
    comment walks (libcst's visitor rebuilds the subtree, twice)."""
    if ctx is not None and not _may_hold_comment(ctx, original):
        return []
    left = list(_comments(new))
    lost = []
    for c in _comments(original):
        if c in left:
            left.remove(c)
        else:
            lost.append(c)
    return lost


def _may_hold_comment(ctx, node) -> bool:
    positions = ctx.positions
    try:
        start, end = positions.extent(node)
    except KeyError:  # not a node of this tree
        return True
    return "#" in positions.code[start:end]


def keep_comments(expr: cst.BaseExpression, comments: list) -> cst.BaseExpression:
    """`expr` in a new pair of parentheses that carries `comments` (from the
    brackets a fix removed) on their own lines: `(  # c\n    expr)`."""
    first, rest = comments[0], comments[1:]
    ws = cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(first)),
        empty_lines=[cst.EmptyLine(indent=True, whitespace=cst.SimpleWhitespace("    "), comment=cst.Comment(c))
                     for c in rest],
        indent=True, last_line=cst.SimpleWhitespace("    "))
    return expr.with_changes(lpar=[cst.LeftParen(whitespace_after=ws), *expr.lpar],
                             rpar=[*expr.rpar, cst.RightParen()])


def bracket_safe(ctx, original: cst.BaseExpression, new: cst.BaseExpression) -> cst.BaseExpression:
    """`new` as the replacement of `original` (say `Variable(x)` -> `x`), kept
    parseable: `original`'s own parentheses carry over, and an expression that
    spans lines outside any brackets (`pe[:n]\\n    .expand_as(e)` taken out of
    `Variable(...)`) is parenthesised. Comments inside the brackets a fix
    removes are kept (see keep_comments)."""
    if not isinstance(new, cst.BaseExpression):
        return new
    lost = lost_comments(original, new, ctx)
    new = _bracket_safe(ctx, original, new)
    return keep_comments(new, lost) if lost else new


def _bracket_safe(ctx, original, new):
    if getattr(original, "lpar", None) and not new.lpar:
        return new.with_changes(lpar=original.lpar, rpar=original.rpar)
    if new.lpar:
        return new
    code = cst.Module(body=[]).code_for_node(new)
    if "\n" not in code and "\r" not in code:
        return new
    if _in_brackets(ctx, original):
        return new
    try:
        cst.parse_expression(code)
        return new
    except cst.ParserSyntaxError:
        return new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


# --- version fallbacks (AD211, AD213, AD219) -----------------------------------

_FALLBACK_ERRORS = ("ImportError", "ModuleNotFoundError", "AttributeError", "TypeError")


_VERSION_TEST = re.compile(r"__version__|\bversion\b|TORCH_(GREATER|LESS|\d)|hasattr\(\s*torch", re.I)


def in_version_fallback(ctx, node: cst.CSTNode) -> bool:
    """Whether `node` is in an `except ImportError/AttributeError/TypeError`
    handler (or a bare one), or under an `if`/`... if ... else ...` that tests
    the torch version (`_TORCH_GREATER_EQUAL_2_4`, `torch.__version__`,
    `hasattr(torch, ...)`): code for an older torch, where the old spelling is
    the point."""
    parent = ctx.parent(node)
    while parent is not None:
        if isinstance(parent, (cst.If, cst.IfExp)) and _VERSION_TEST.search(ctx.code(parent.test)):
            return True
        if isinstance(parent, cst.ExceptHandler):
            t = parent.type
            names = ([e.value for e in t.elements] if isinstance(t, cst.Tuple) else [t]) if t else []
            names = [_dotted_name(n) for n in names if isinstance(n, (cst.Name, cst.Attribute))]
            if t is None or any(n.rsplit(".", 1)[-1] in _FALLBACK_ERRORS for n in names):
                return True
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef)):
            return False
        parent = ctx.parent(parent)
    return False
