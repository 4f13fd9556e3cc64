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


_KIND: dict = {}  # type -> 1 node, 2 sequence, 0 other (isinstance on the CSTNode ABC is slow)


def _kind(t) -> int:
    k = _KIND.get(t)
    if k is None:
        k = _KIND[t] = 1 if issubclass(t, cst.CSTNode) else 2 if issubclass(t, (list, tuple)) else 0
    return k


def _collect(node, names) -> list:
    out = []
    kind = _KIND
    for name in names:
        v = getattr(node, name)
        k = kind.get(type(v))
        if k is None:
            k = _kind(type(v))
        if k == 1:
            out.append(v)
        elif k == 2:
            for x in v:
                kx = kind.get(type(x))
                if (kx if kx is not None else _kind(type(x))) == 1:
                    out.append(x)
    return out


# node id -> (node, its children): the analyses walk the same subtrees many
# times. The node is kept with its entry so that a reused id never matches;
# the engine empties the table after each file (`forget`).
_KIDS: dict = {}
_KIDS_MAX = 400_000


def children(node) -> list:
    """The node's non-trivia children (a shared list: do not change it)."""
    e = _KIDS.get(id(node))
    if e is not None and e[0] is node:
        return e[1]
    kids = _collect(node, _fields(type(node)))
    if len(_KIDS) >= _KIDS_MAX:
        _KIDS.clear()
    _KIDS[id(node)] = (node, kids)
    return kids


def forget() -> None:
    """Drop the cached children and node lists (and with them the trees they hold)."""
    _KIDS.clear()
    _NODES.clear()


_SKIPPED: dict = {}  # (type, skip) -> isinstance(node, skip): isinstance on libcst's ABCs is slow


def _skipped(t, skip) -> bool:
    k = (t, skip)
    r = _SKIPPED.get(k)
    if r is None:
        r = _SKIPPED[k] = issubclass(t, skip)
    return r


def walk(node, enter=None, leave=None, skip=None) -> None:
    """Pre-order walk; `enter(n)` returning False skips n's children;
    `leave(n)` runs after them; `skip` is a tuple of node types not entered."""
    if leave is None:  # the common case: a stack of nodes, no markers
        stack = [node]
        pop, extend, cached = stack.pop, stack.extend, _KIDS.get
        while stack:
            n = pop()
            if skip is not None and n is not node and _skipped(type(n), skip):
                continue
            if enter is not None and enter(n) is False:
                continue
            e = cached(id(n))  # children(n), inlined: this loop is the analysis's hottest
            kids = e[1] if e is not None and e[0] is n else children(n)
            if kids:
                extend(reversed(kids))
        return
    stack = [(node, False)]
    while stack:
        n, done = stack.pop()
        if done:
            leave(n)
            continue
        if skip is not None and n is not node and _skipped(type(n), skip):
            continue
        if enter is not None and enter(n) is False:
            continue
        stack.append((n, True))
        stack.extend([(k, False) for k in reversed(children(n))])


# (id(node), skip) -> (node, its nodes): the analyses list the same loop
# bodies and functions several times a pass. Emptied with the children.
_NODES: dict = {}


def nodes(node, skip=None):
    """Every node below (and including) `node`, in pre-order (a shared
    list: do not change it)."""
    key = (id(node), skip)
    e = _NODES.get(key)
    if e is not None and e[0] is node:
        return e[1]
    out = []
    walk(node, out.append, skip=skip)
    if len(_NODES) >= 20_000:
        _NODES.clear()
    _NODES[key] = (node, out)
    return out


# Every child, trivia included, in the order libcst's own visitors see them:
# the order of the fields `_visit_and_replace_children` visits (read from its
# source once per node type; tests check it against libcst's visitors).
_VISITED = re.compile(r'visit_\w+\(\s*self,\s*"(\w+)"')
_ORDER: dict = {}
_CONTENT: dict = {}


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


def _content_order(cls) -> tuple:
    o = _CONTENT.get(cls)
    if o is None:
        keep = set(_fields(cls))
        o = _CONTENT[cls] = tuple(n for n in _order(cls) if n in keep)
    return o


def all_children(node, order=_order) -> list:
    return _collect(node, order(type(node)))


# Node types that only occur in the fields `children` skips (tests check this
# on real code): a visitor that handles none of them never needs those fields.
_TRIVIA_TYPES = (cst.BaseParenthesizableWhitespace, cst.BaseBinaryOp, cst.BaseUnaryOp, cst.BaseBooleanOp,
                 cst.BaseCompOp, cst.BaseAugOp, cst.Comma, cst.Dot, cst.AssignEqual, cst.Colon, cst.Semicolon,
                 cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
                 cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.EmptyLine, cst.TrailingWhitespace, cst.Newline,
                 cst.Comment, cst.Asynchronous)


def _own_hooks(cls) -> set:
    """visit_*/leave_* methods the visitor's own classes define (CSTVisitor
    stubs them all). Not cached: rules define visitor classes per call."""
    own = set()
    for klass in cls.__mro__:
        if klass is cst.CSTVisitor:
            break
        own.update(n for n in vars(klass) if n.startswith(("visit_", "leave_")))
    return own


def _plain(cls, own) -> bool:
    """The visitor uses libcst's own on_visit/on_leave and handles only
    non-trivia node types."""
    if cls.on_visit is not cst.CSTVisitor.on_visit or cls.on_leave is not cst.CSTVisitor.on_leave:
        return False
    for name in own:
        t = getattr(cst, name.split("_", 1)[1], None)
        if not (isinstance(t, type) and not issubclass(t, _TRIVIA_TYPES)):
            return False
    return True


def visit(node, visitor) -> None:
    """`node.visit(visitor)` for a read-only `cst.CSTVisitor`, without
    rebuilding the tree: on_visit, the children when it is not False, then
    on_leave. (Attribute visitors, `visit_Call_func`, are not called.)"""
    own = _own_hooks(type(visitor))
    if not _plain(type(visitor), own):
        _visit_all(node, visitor)
        return
    hooks: dict = {}
    stack = [(node, False)]
    while stack:
        n, done = stack.pop()
        t = type(n)
        h = hooks.get(t)
        if h is None:
            v, lv = "visit_" + t.__name__, "leave_" + t.__name__
            h = hooks[t] = (getattr(visitor, v) if v in own else None, getattr(visitor, lv) if lv in own else None)
        if done:
            h[1](n)
            continue
        if h[1] is not None:
            stack.append((n, True))
        if h[0] is None or h[0](n) is not False:
            kids = all_children(n, _content_order)
            kids.reverse()
            stack.extend((k, False) for k in kids)


def _visit_all(node, visitor) -> None:
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
