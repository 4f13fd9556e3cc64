"""The uses of a rewrite: lines that read what the rewritten statement binds
or mutates (an accumulator's later reads, a hidden state's consumers).

A rewrite is verified only when its uses ran too: `losses.append(loss)` ->
`losses.append(loss.item())` is fine in the loop and breaks at
`losses[-1].item()` after it. Static and approximate (no aliasing, no calls
across files): names bound or mutated by the statement, then

- a local name: its reads later in the same function, and anywhere in the
  innermost loop around the statement (the next round reads it), up to a
  later plain re-assignment outside that loop;
- a module-level name: the same, plus its reads in functions that do not
  bind it (reached through the calls); a global mutated inside a function:
  its reads anywhere in the module;
- an attribute `self.h`: reads of `self.h` anywhere in the class (or, outside
  a class, in the same function after the statement);
- a name returned by its function (`return total_loss`): the calls of that
  function, and the uses of what they bind (two levels)."""
from __future__ import annotations

import ast
import functools
from typing import Optional

MAX_USES = 64


def _parents(tree) -> dict:
    out = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            out[child] = node
    return out


def _key(node) -> Optional[tuple]:
    """('name', n) or ('attr', base, attr) for a target or a mutated object."""
    while isinstance(node, (ast.Subscript, ast.Starred)):
        node = node.value
    if isinstance(node, ast.Name):
        return ("name", node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return ("attr", node.value.id, node.attr)
    if isinstance(node, ast.Attribute):
        return _key(node.value)
    return None


def _targets(stmt) -> set:
    keys: set = set()

    def add(t):
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                add(e)
            return
        k = _key(t)
        if k:
            keys.add(k)

    if isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            add(t)
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        add(stmt.target)
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
            isinstance(stmt.value.func, ast.Attribute):
        add(stmt.value.func.value)  # losses.append(...), h.detach_(), d.update(...)
    return keys


_SIMPLE_SKIP = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor, ast.While, ast.If,
                ast.With, ast.AsyncWith, ast.Try)


def _rewritten(tree, lines: set) -> list:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, _SIMPLE_SKIP):
            if any(node.lineno <= ln <= (node.end_lineno or node.lineno) for ln in lines):
                out.append(node)
    return out


def _enclosing(node, parents, kinds):
    p = parents.get(node)
    while p is not None and not isinstance(p, kinds):
        p = parents.get(p)
    return p


def _binds(fn, name: str) -> bool:
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del)):
            return True
        if isinstance(n, ast.arg) and n.arg == name:
            return True
    return False


def _rebound_after(scope, name: str, after: int, loop) -> int:
    """The first line after `after` where a plain assignment in `scope`
    (outside `loop`) rebinds name; a large number when none."""
    lo, hi = (loop.lineno, loop.end_lineno) if loop is not None else (0, -1)
    best = 1 << 30
    for n in ast.walk(scope):
        if isinstance(n, ast.Assign) and n.lineno > after and not (lo <= n.lineno <= hi):
            if any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
                best = min(best, n.lineno)
    return best


FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
DEPTH = 2  # returned values followed into their callers this many times


def _stmt_of(node, parents):
    while node is not None and not isinstance(node, ast.stmt):
        node = parents.get(node)
    return node


def _callers(tree, parents, fn) -> list:
    """Statements that call function `fn` by its name (`f(...)`, `self.f(...)`)."""
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            f = n.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name == fn.name:
                st = _stmt_of(n, parents)
                if st is not None:
                    out.append(st)
    return out


def _uses_of(tree, parents, stmt, found: set, depth: int) -> None:
    end = stmt.end_lineno or stmt.lineno
    scope = _enclosing(stmt, parents, FUNCS) or tree
    loop = _enclosing(stmt, parents, (ast.For, ast.While, ast.AsyncFor) + FUNCS)
    if isinstance(loop, FUNCS):
        loop = None
    for key in _targets(stmt):
        if key[0] == "name":
            name = key[1]
            if scope is not tree and not _binds(scope, name):
                # A global mutated in a function (`hist.append(...)`): read anywhere.
                for n in ast.walk(tree):
                    if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
                        found.add(n.lineno)
                continue
            stop = _rebound_after(scope, name, end, loop)
            for n in ast.walk(scope):
                if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
                    in_loop = loop is not None and loop.lineno <= n.lineno <= loop.end_lineno
                    if (end < n.lineno < stop) or in_loop:
                        found.add(n.lineno)
                        st = _stmt_of(n, parents)
                        # `return total`: reached through the callers, and what they bind.
                        if isinstance(st, ast.Return) and depth > 0 and isinstance(scope, FUNCS[:2]):
                            for call in _callers(tree, parents, scope):
                                found.add(call.lineno)
                                _uses_of(tree, parents, call, found, depth - 1)
            if scope is tree:  # a global: its readers elsewhere in the module
                for fn in ast.walk(tree):
                    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _binds(fn, name):
                        for n in ast.walk(fn):
                            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
                                found.add(n.lineno)
        else:
            _, base, attr = key
            cls = _enclosing(stmt, parents, (ast.ClassDef,))
            region = cls if (cls is not None and base == "self") else scope
            for n in ast.walk(region):
                if isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.ctx, ast.Load) and \
                        isinstance(n.value, ast.Name) and n.value.id == base:
                    if region is cls or n.lineno > end or (
                            loop is not None and loop.lineno <= n.lineno <= loop.end_lineno):
                        found.add(n.lineno)


@functools.lru_cache(maxsize=16)
def _parse(source: bytes):
    """The tree and its parent map (each file has several rewrites)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    return tree, _parents(tree)


def uses(source, lines: set) -> set:
    """Lines (of `source`) that use what the statements on `lines` bind or
    mutate; the rewritten lines themselves excluded."""
    parsed = _parse(bytes(source) if not isinstance(source, str) else source.encode())
    if parsed is None:
        return set()
    tree, parents = parsed
    found: set = set()
    for stmt in _rewritten(tree, lines):
        _uses_of(tree, parents, stmt, found, DEPTH)
    found -= set(lines)
    return set(sorted(found)[:MAX_USES])
