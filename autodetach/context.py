"""Per-file state shared by all rules: the tree, imports, lazy metadata."""
from __future__ import annotations

from functools import cached_property
from typing import Optional

import libcst as cst

from .analysis.walk import content_parents, is_trivia
from .imports import ImportTable
from .positions import Positions, code_for


_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
_KINDS: dict = {}  # (node type, kinds) -> isinstance's answer


def _is(node, kinds) -> bool:
    """isinstance(node, kinds), kept per node type: libcst's node classes are
    ABCs, whose isinstance runs Python code for every node not of the exact
    class, and an ancestor walk tests many such nodes."""
    key = (type(node), kinds)
    if key not in _KINDS:
        _KINDS[key] = isinstance(node, kinds)
    return _KINDS[key]


class FileContext:
    def __init__(self, module: cst.Module, path: str = "<string>", text: str = "", parts=None) -> None:
        self.module = module
        self.path = path
        self.text = text
        # Per top-level statement facts kept across the passes of one fix run
        # (positions, parents): a fix pass reuses those of untouched statements.
        self.parts = parts

    @cached_property
    def imports(self) -> ImportTable:
        return ImportTable.from_module(self.module)

    @cached_property
    def positions(self):
        # Computed only when a rule reports something or asks for it.
        return Positions(self.module, None if self.parts is None else self.parts.setdefault("positions", {}))

    @cached_property
    def parents(self):
        # A read-only walk: ParentNodeProvider rebuilds the whole tree.
        from .analysis.walk import parents, parents_by_statement

        if self.parts is None:
            return parents(self.module)
        return parents_by_statement(self.module, self.parts.setdefault("parents", {}))

    @cached_property
    def bindings(self):
        # Built the first time a rule asks which binding a name sees.
        from .analysis.bindings import Bindings

        return Bindings(self.module, self.parent)

    def release(self) -> None:
        """Drop what this pass worked out. The analysis and the bindings point
        back here, so they and the tree they hold live in reference cycles
        that only the cyclic collector frees, after scanning every node."""
        analysis = self.__dict__.pop("analysis", None)
        if analysis is not None:
            analysis.__dict__.clear()
        bindings = self.__dict__.pop("bindings", None)
        if bindings is not None:
            bindings.release()
        self.__dict__.clear()

    def position(self, node: cst.CSTNode) -> tuple:
        r = self.positions[node]
        return r.start.line, r.start.column + 1, r.end.line, r.end.column + 1

    def line_of(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        # (walk imported at the top: a relative import in a function costs
        # microseconds, and this runs thousands of times a pass)
        if is_trivia(node):
            return self.parents.get(node)
        # The same answer from the pass's table over non-trivia children (a
        # non-trivia node never sits in a trivia field), cheaper than `parents`.
        return self._content_parents.get(id(node))

    @cached_property
    def _content_parents(self) -> dict:
        # content_parents' own lookup (a key and a check of the kept nodes)
        # cost more than the climb itself, thousands of times a pass.
        return content_parents(self.module)

    def encloses(self, outer, node) -> bool:
        """Is `outer` a proper ancestor of `node`?"""
        cur = self.parent(node)
        while cur is not None:
            if cur is outer:
                return True
            cur = self.parent(cur)
        return False

    def class_defs(self, name) -> list:
        """The top-level classes named `name`, in order (usually one)."""
        return [stmt for stmt in self.module.body if type(stmt) is cst.ClassDef and stmt.name.value == name]

    def enclosing(self, node, kinds, stop=()) -> Optional[cst.CSTNode]:
        """The nearest ancestor of `node` of one of `kinds`; None when there is
        none, or when an ancestor of one of `stop` comes first."""
        cur = self.parent(node) if node is not None else None
        while cur is not None:
            if _is(cur, kinds):
                return cur
            if stop and _is(cur, stop):
                return None
            cur = self.parent(cur)
        return None

    def statement_of(self, node) -> Optional[cst.CSTNode]:
        """The statement holding `node` (itself, when it is one): a simple line or a compound statement."""
        while node is not None and not _is(node, _STATEMENTS):
            node = self.parent(node)
        return node

    def code(self, node: cst.CSTNode) -> str:
        return code_for(self.module, node)

    def snippet(self, node: cst.CSTNode, limit: int = 50) -> str:
        """`node`'s code on one line, cut to `limit` characters (for messages)."""
        text = " ".join(self.code(node).split())
        return text if len(text) <= limit else text[:limit - 3] + "..."

    @cached_property
    def analysis(self):
        from .analysis import build

        return build(self)
