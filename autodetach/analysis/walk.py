"""A read-only tree walk without libcst's visitor machinery.

`CSTNode.visit` rebuilds every node on the way back up, which makes a
read-only walk cost several parses. The analysis only reads, so it walks
the dataclass fields directly, skipping whitespace and punctuation."""
from __future__ import annotations

import dataclasses
import inspect
import re

import libcst as cst

_TRIVIA = {"lpar", "rpar", "comma", "semicolon", "dot", "equal", "colon", "leading_lines",
           "lines_after_decorators", "header", "footer", "newline", "indent", "star", "asynchronous",
           "whitespace_before", "whitespace_after", "operator", "default_indent", "default_newline",
           "encoding", "has_trailing_newline", "lbracket", "rbracket", "lbrace", "rbrace", "arrow"}
_FIELDS: dict = {}


def _fields(cls) -> tuple:
    f = _FIELDS.get(cls)
    if f is None:
        f = tuple(fl.name for fl in dataclasses.fields(cls)
                  if fl.name not in _TRIVIA and not fl.name.startswith("whitespace"))
        _FIELDS[cls] = f
    return f


def children(node) -> list:
    out = []
    for name in _fields(type(node)):
        v = getattr(node, name)
        if isinstance(v, cst.CSTNode):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            out.extend(x for x in v if isinstance(x, cst.CSTNode))
    return out


def walk(node, enter=None, leave=None, skip=None) -> None:
    """Pre-order walk; `enter(n)` returning False skips n's children;
    `leave(n)` runs after them; `skip` is a tuple of node types not entered."""
    stack = [(node, False)]
    while stack:
        n, done = stack.pop()
        if done:
            leave(n)
            continue
        if skip is not None and n is not node and isinstance(n, skip):
            continue
        if enter is not None and enter(n) is False:
            continue
        if leave is not None:
            stack.append((n, True))
        kids = children(n)
        kids.reverse()
        stack.extend((k, False) for k in kids)


def nodes(node, skip=None):
    """Every node below (and including) `node`, in pre-order."""
    out = []
    walk(node, out.append, skip=skip)
    return out


# Every child, trivia included, in the order libcst's own visitors see them:
# the order of the fields `_visit_and_replace_children` visits (read from its
# source once per node type; tests check it against libcst's visitors).
_VISITED = re.compile(r'visit_\w+\(\s*self,\s*"(\w+)"')
_ORDER: dict = {}


def _order(cls) -> tuple:
    o = _ORDER.get(cls)
    if o is None:
        try:
            src = inspect.getsource(cls._visit_and_replace_children)
        except (OSError, TypeError):
            src = ""
        o = tuple(dict.fromkeys(_VISITED.findall(src))) or tuple(f.name for f in dataclasses.fields(cls))
        _ORDER[cls] = o
    return o


def all_children(node) -> list:
    out = []
    for name in _order(type(node)):
        v = getattr(node, name)
        if isinstance(v, cst.CSTNode):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            out.extend(x for x in v if isinstance(x, cst.CSTNode))
    return out


def visit(node, visitor) -> None:
    """`node.visit(visitor)` for a read-only `cst.CSTVisitor`, without
    rebuilding the tree: on_visit, the children when it is not False, then
    on_leave. (Attribute visitors, `visit_Call_func`, are not called.)"""
    stack = [(node, False)]
    while stack:
        n, done = stack.pop()
        if done:
            visitor.on_leave(n)
            continue
        stack.append((n, True))
        if visitor.on_visit(n):
            kids = all_children(n)
            kids.reverse()
            stack.extend((k, False) for k in kids)


def parents(module) -> dict:
    """child -> parent for every node (what ParentNodeProvider gives)."""
    out = {}
    stack = [module]
    while stack:
        n = stack.pop()
        for k in all_children(n):
            out[k] = n
            stack.append(k)
    return out
