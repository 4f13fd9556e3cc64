"""A read-only tree walk without libcst's visitor machinery.

`CSTNode.visit` rebuilds every node on the way back up, which makes a
read-only walk cost several parses. The analysis only reads, so it walks
the dataclass fields directly, skipping whitespace and punctuation."""
from __future__ import annotations

import bisect
import dataclasses
import inspect
import re

import libcst as cst

from ..imports import dotted

_TRIVIA = {"lpar", "rpar", "comma", "semicolon", "dot", "equal", "colon", "leading_lines",
           "lines_after_decorators", "header", "footer", "newline", "indent", "star", "asynchronous",
           "whitespace_before", "whitespace_after", "operator", "default_indent", "default_newline",
           "encoding", "has_trailing_newline", "lbracket", "rbracket", "lbrace", "rbrace", "arrow"}
_FIELDS: dict = {}


def _fields(cls) -> tuple:
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(fl.name for fl in dataclasses.fields(cls)
                  if fl.name not in _TRIVIA and not fl.name.startswith("whitespace"))
        _FIELDS[cls] = names
    return names


_KIND: dict = {}  # type -> 1 node, 2 sequence, 0 other (isinstance on the CSTNode ABC is slow)


def _kind(cls) -> int:
    k = _KIND.get(cls)
    if k is None:
        k = _KIND[cls] = 1 if issubclass(cls, cst.CSTNode) else 2 if issubclass(cls, (list, tuple)) else 0
    return k


def _collect(node, names) -> list:
    out = []
    kind = _KIND
    for name in names:
        value = getattr(node, name)
        k = kind.get(type(value))
        if k is None:
            k = _kind(type(value))
        if k == 1:
            out.append(value)
        elif k == 2:
            for item in value:
                item_kind = kind.get(type(item))
                if (item_kind if item_kind is not None else _kind(type(item))) == 1:
                    out.append(item)
    return out


# node id -> (node, its children): the analyses walk the same subtrees many
# times. The node is kept with its entry so that a reused id never matches;
# the engine empties the table after each file (`forget`).
_KIDS: dict = {}
_KIDS_MAX = 400_000


def children(node) -> list:
    """The node's non-trivia children (a shared list: do not change it)."""
    entry = _KIDS.get(id(node))
    if entry is not None and entry[0] is node:
        return entry[1]
    kids = _collect(node, _fields(type(node)))
    if len(_KIDS) >= _KIDS_MAX:
        _KIDS.clear()
    _KIDS[id(node)] = (node, kids)
    return kids


def forget() -> None:
    """Drop the cached children, node lists and syntactic answers (and with
    them the trees they hold)."""
    _KIDS.clear()
    _NODES.clear()
    _SYNTAX.clear()
    _ROOT[:] = [None, None, None]
    _SKIPS.clear()


# (name, id of each node) -> (the nodes, the answer): see `by_nodes`.
_SYNTAX: dict = {}


def by_nodes(name: str, body, build):
    """`build(body)` for an answer that depends on nothing but the subtree
    `body` (a node, or a sequence of statements), worked out once while its
    nodes live: the analysis asks it again for every scope that walks the
    same body, and a fix pass keeps the nodes of the statements it leaves
    alone, so the passes after it reuse their answers. The nodes are kept
    with the entry, so a reused id never matches. A shared answer: do not
    change it."""
    kept = (body,) if isinstance(body, cst.CSTNode) else tuple(body)
    key = (name, *map(id, kept))
    e = _SYNTAX.get(key)
    if e is not None and all(a is b for a, b in zip(e[0], kept)):
        return e[1]
    out = build(body)
    if len(_SYNTAX) >= 20_000:
        _SYNTAX.clear()
    _SYNTAX[key] = (kept, out)
    return out


_SKIPPED: dict = {}  # (type, skip) -> isinstance(node, skip): isinstance on libcst's ABCs is slow


def _skipped(t, skip) -> bool:
    k = (t, skip)
    r = _SKIPPED.get(k)
    if r is None:
        r = _SKIPPED[k] = issubclass(t, skip)
    return r


def walk(node, enter=None, leave=None, skip=None, leave_types=None) -> None:
    """Pre-order walk; `enter(n)` returning False skips n's children;
    `leave(n)` runs after them (only for nodes of exactly `leave_types`, when
    given); `skip` is a tuple of node types not entered."""
    if leave is None and skip is None and enter is not None:  # the common case, without its tests per node
        stack = [node]
        pop, extend, cached = stack.pop, stack.extend, _KIDS.get
        while stack:
            n = pop()
            if enter(n) is False:
                continue
            e = cached(id(n))
            kids = e[1] if e is not None and e[0] is n else children(n)
            if kids:
                extend(reversed(kids))
        return
    if leave is None or leave_types is not None:  # a stack of nodes, markers (n,) only where asked
        stack = [node]
        pop, extend, cached, skipped = stack.pop, stack.extend, _KIDS.get, _SKIPPED.get
        while stack:
            n = pop()
            if type(n) is tuple:
                leave(n[0])
                continue
            if skip is not None and n is not node:
                s = skipped((type(n), skip))  # _skipped(type(n), skip), inlined
                if s is None:
                    s = _skipped(type(n), skip)
                if s:
                    continue
            if enter is not None and enter(n) is False:
                continue
            if leave_types is not None and type(n) in leave_types:
                stack.append((n,))
            e = cached(id(n))  # children(n), inlined: this loop is the analysis's hottest
            kids = e[1] if e is not None and e[0] is n else children(n)
            if kids:
                extend(reversed(kids))
        return
    stack = [(node, False)]
    while stack:
        current, done = stack.pop()
        if done:
            leave(current)
            continue
        if skip is not None and current is not node and _skipped(type(current), skip):
            continue
        if enter is not None and enter(current) is False:
            continue
        stack.append((current, True))
        stack.extend([(k, False) for k in reversed(children(current))])


# (id(node), skip) -> (node, its nodes): the analyses list the same loop
# bodies and functions several times a pass. Emptied with the children.
_NODES: dict = {}


# The last module listed whole: its pre-order list and id(node) -> index.
# A subtree's pre-order is a contiguous run of its module's, so the nodes of
# a statement, loop or function are a slice, not a walk of their own.
_ROOT: list = [None, None, None]  # module, its nodes, their indexes (built on first use)


def nodes(node, skip=None):
    """Every node below (and including) `node`, in pre-order (a shared
    list: do not change it)."""
    key = (id(node), skip)
    e = _NODES.get(key)
    if e is not None and e[0] is node:
        return e[1]
    out = _slice(node) if skip is None else _slice_skipping(node, skip)
    if out is None:
        out = _from_last(node) if skip is None and type(node) is cst.Module else None
        if out is None:
            out = []
            walk(node, out.append, skip=skip)
        if skip is None and type(node) is cst.Module:
            _ROOT[:] = [node, out, None]
    if len(_NODES) >= 20_000:
        _NODES.clear()
    _NODES[key] = (node, out)
    return out


def is_static(fn: cst.FunctionDef) -> bool:
    """`@staticmethod` (or `@builtins.staticmethod`): called through `self`, it binds no `self`."""
    return any(dotted(d.decorator) in ("staticmethod", "builtins.staticmethod") for d in fn.decorators)


def returns(fn: cst.FunctionDef) -> list:
    """The values of `fn`'s own `return` statements (None for a bare `return`),
    not those of functions, classes or lambdas nested in it."""
    return [n.value for n in nodes(fn.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda))
            if type(n) is cst.Return]


def _slice(node):
    """`node`'s pre-order nodes cut from its module's list, or None when it
    is not a node of the last module listed."""
    listed = _ROOT[1]
    if listed is None:
        return None
    index = _ROOT[2]
    if index is None:
        index = _ROOT[2] = {id(n): i for i, n in enumerate(listed)}
    start = index.get(id(node))
    if start is None or listed[start] is not node:
        return None
    return listed[start:index[id(last_node(node))] + 1]


def _from_last(module):
    """The module's pre-order list, where a statement of the module listed
    before it (the last fix pass's: the statements its fixes left alone) is
    cut from that one's list instead of walked. None when that list has no
    indexes yet (making them costs what it saves)."""
    if _ROOT[2] is None:
        return None
    out = [module]
    for stmt in children(module):
        part = _slice(stmt)
        if part is None:
            part = []
            walk(stmt, part.append)
        out += part
    return out


# skip -> (the listed module's nodes, indexes of the nodes `skip` leaves out)
_SKIPS: dict = {}


def _slice_skipping(node, skip):
    """`walk(node, skip=skip)`'s nodes cut from the module's list (None as
    `_slice`): the runs between the skipped subtrees, which are found by
    index instead of testing every node (the analysis lists the statements
    of every loop and function this way, again for each scope)."""
    listed = _ROOT[1]
    if listed is None:
        return None
    index = _ROOT[2]
    if index is None:
        index = _ROOT[2] = {id(n): i for i, n in enumerate(listed)}
    start = index.get(id(node))
    if start is None or listed[start] is not node:
        return None
    e = _SKIPS.get(skip)
    if e is None or e[0] is not listed:
        types = {t for t in set(map(type, listed)) if _skipped(t, skip)}
        e = _SKIPS[skip] = (listed, [i for i, n in enumerate(listed) if type(n) in types])
    hits = e[1]
    end = index[id(last_node(node))] + 1
    k = bisect.bisect_right(hits, start)  # the node itself is listed whatever its type
    if k == len(hits) or hits[k] >= end:
        return listed[start:end]
    out = []
    at = start
    while k < len(hits) and hits[k] < end:
        i = hits[k]
        out += listed[at:i]
        at = index[id(last_node(listed[i]))] + 1
        k = bisect.bisect_left(hits, at, k)
    out += listed[at:end]
    return out


def last_node(node):
    """The last node of `node`'s subtree in pre-order."""
    cached = _KIDS.get
    while True:
        e = cached(id(node))
        kids = e[1] if e is not None and e[0] is node else children(node)
        if not kids:
            return node
        node = kids[-1]


def of_types(node, types: frozenset) -> list:
    """The nodes below (and including) `node` whose exact type is in `types`,
    in pre-order (a shared list: do not change it). A whole-file pass that
    reads a few node types loops over these instead of calling a function
    per node; worked out once while the nodes live (`by_nodes`)."""
    return by_nodes(("of_types", types), node, lambda n: [x for x in nodes(n) if type(x) in types])


def content_parents(node) -> dict:
    """id(child) -> parent for every node below `node`, through the non-trivia
    children only (a shared table: do not change it). Built from the pass's
    shared pre-order list, whose children are cached: an analysis that climbs
    from a few nodes needs neither the trivia nor libcst's Python-level hash
    (`parents`, over every field, cost a fifth of a file's analysis)."""
    def build(root) -> dict:
        out = {}
        cached = _KIDS.get
        for n in nodes(root):
            e = cached(id(n))
            for k in (e[1] if e is not None and e[0] is n else children(n)):
                out[id(k)] = n
        return out
    return by_nodes("content_parents", node, build)


# Every child, trivia included, in the order libcst's own visitors see them:
# the order of the fields `_visit_and_replace_children` visits (read from its
# source once per node type; tests check it against libcst's visitors).
_VISITED = re.compile(r'visit_\w+\(\s*self,\s*"(\w+)"')
_ORDER: dict = {}
_CONTENT: dict = {}


def _order(cls) -> tuple:
    order = _ORDER.get(cls)
    if order is None:
        try:
            src = inspect.getsource(cls._visit_and_replace_children)
        except (OSError, TypeError):
            src = ""
        order = tuple(dict.fromkeys(_VISITED.findall(src))) or tuple(f.name for f in dataclasses.fields(cls))
        _ORDER[cls] = order
    return order


def _content_order(cls) -> tuple:
    order = _CONTENT.get(cls)
    if order is None:
        keep = set(_fields(cls))
        order = _CONTENT[cls] = tuple(n for n in _order(cls) if n in keep)
    return order


def all_children(node, order=_order) -> list:
    return _collect(node, order(type(node)))


# Node types that only occur in the fields `children` skips (tests check this
# on real code): a visitor that handles none of them never needs those fields.
_TRIVIA_TYPES = (cst.BaseParenthesizableWhitespace, cst.BaseBinaryOp, cst.BaseUnaryOp, cst.BaseBooleanOp,
                 cst.BaseCompOp, cst.BaseAugOp, cst.Comma, cst.Dot, cst.AssignEqual, cst.Colon, cst.Semicolon,
                 cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
                 cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.EmptyLine, cst.TrailingWhitespace, cst.Newline,
                 cst.Comment, cst.Asynchronous)


def is_trivia(node) -> bool:
    """A node of a type that only sits in the fields `children` skips."""
    t = type(node)
    r = _SKIPPED.get((t, _TRIVIA_TYPES))
    return _skipped(t, _TRIVIA_TYPES) if r is None else r


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
        node_type = getattr(cst, name.split("_", 1)[1], None)
        if not (isinstance(node_type, type) and not issubclass(node_type, _TRIVIA_TYPES)):
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
        current, done = stack.pop()
        node_type = type(current)
        pair = hooks.get(node_type)
        if pair is None:
            visit_name, leave_name = "visit_" + node_type.__name__, "leave_" + node_type.__name__
            pair = hooks[node_type] = (getattr(visitor, visit_name) if visit_name in own else None,
                                       getattr(visitor, leave_name) if leave_name in own else None)
        if done:
            pair[1](current)
            continue
        if pair[1] is not None:
            stack.append((current, True))
        if pair[0] is None or pair[0](current) is not False:
            kids = all_children(current, _content_order)
            kids.reverse()
            stack.extend((k, False) for k in kids)


def _visit_all(node, visitor) -> None:
    stack = [(node, False)]
    while stack:
        current, done = stack.pop()
        if done:
            visitor.on_leave(current)
            continue
        stack.append((current, True))
        if visitor.on_visit(current):
            kids = all_children(current)
            kids.reverse()
            stack.extend((k, False) for k in kids)


def parents(module) -> dict:
    """child -> parent for every node (what ParentNodeProvider gives)."""
    out = {}
    _fill_parents(out, module)
    return out


def _fill_parents(out: dict, root) -> None:
    stack = [root]
    while stack:
        current = stack.pop()
        for k in all_children(current):
            out[k] = current
            stack.append(k)


def parents_by_statement(module, parts: dict) -> dict:
    """`parents(module)`, where a top-level statement the last fix pass left
    alone brings its kept table (`parts`: id -> (statement, table)); see
    `keep_parents` for saving them."""
    top = all_children(module)
    out = {k: module for k in top}
    for k in top:  # the header's and footer's lines
        if type(k) is cst.EmptyLine:
            out.update(parents(k))
    made = []
    for stmt in module.body:
        part = parts.get(id(stmt))
        if part is not None and part[0] is stmt:
            out.update(part[1])
            continue
        lo = len(out)
        _fill_parents(out, stmt)
        made.append((stmt, lo, len(out)))
    parts["made"] = (out, made)
    return out


def keep_parents(parts: dict, stmts) -> None:
    """Save the parent tables of these top-level statements (ids) for the next fix pass."""
    out, made = parts.pop("made", (None, ()))
    made = [m for m in made if id(m[0]) in stmts]
    if made:
        items = list(out.items())
        for stmt, lo, hi in made:
            parts[id(stmt)] = (stmt, dict(items[lo:hi]))


def class_methods(cls: cst.ClassDef) -> dict:
    """A class's own methods by name (the last definition of a name wins)."""
    return {m.name.value: m for m in cls.body.body if isinstance(m, cst.FunctionDef)}


def bound_argument(call: cst.Call, params: list, name: str):
    """The expression `call` hands to parameter `name` of a function whose positional
    parameters are `params` (self left out); None when not given or behind `*args`."""
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is not None:
            if arg.keyword.value == name:
                return arg.value
        elif index < len(params) and params[index] == name:
            return arg.value
    return None
