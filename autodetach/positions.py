"""Node positions from one code generation that counts characters.

libcst's PositionProvider tracks line and column token by token and builds
a CodeRange for every node. Here each node gets two character offsets (an
addition per token); a node's line and column are computed only when asked
for, which is for the few nodes a rule reports or compares. Same ranges as
PositionProvider (syntactic: without the node's own surrounding whitespace)."""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from libcst._nodes.internal import CodegenState
from libcst._position import CodePosition, CodeRange

from .spans import line_starts


@dataclass
class _OffsetState(CodegenState):
    # Keyed by id(node) (the module is kept, so ids stay unique): a node's
    # own __hash__ is a Python call, made twice per node here.
    offsets: dict = field(default_factory=dict)  # id(node) -> (start, end)
    # id(node) -> its whole code's (start, end), where that differs from `offsets`
    outer: dict = field(default_factory=dict)
    pos: int = 0
    _indent_len: int = 0
    _stack: list = field(default_factory=list)
    popped: str = ""

    def increase_indent(self, value: str) -> None:
        self.indent_tokens.append(value)
        self._indent_len += len(value)

    def decrease_indent(self) -> None:
        self._indent_len -= len(self.indent_tokens.pop())

    def add_indent_tokens(self) -> None:
        self.tokens.extend(self.indent_tokens)
        self.pos += self._indent_len

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self.pos += len(value)

    def before_codegen(self, node) -> None:
        self._stack.append(self.pos)

    def after_codegen(self, node) -> None:
        start = self._stack.pop()
        key = id(node)
        if key not in self.offsets:  # a syntactic range recorded inside wins
            self.offsets[key] = (start, self.pos)
        else:
            self.outer[key] = (start, self.pos)

    def pop_trailing_newline(self) -> None:
        if self.tokens:
            self.popped = self.tokens.pop()

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        # A plain context manager: libcst enters one per statement and
        # expression, and a generator-based one costs several times more.
        return _Syntactic(self, node, start_node, end_node)


class _Syntactic:
    """The node's syntactic range, recorded when its code is generated."""

    __slots__ = ("state", "node", "start", "start_node", "end_node")

    def __init__(self, state, node, start_node, end_node) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node
        self.start = state.pos

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        state = self.state
        start, end = self.start, state.pos
        if self.start_node is not None:
            start = state.offsets[id(self.start_node)][0]
        if self.end_node is not None:
            end = state.offsets[id(self.end_node)][1]
        state.offsets[id(self.node)] = (start, end)
        return False


class _PlainState(CodegenState):
    """libcst's own state, less the generator-based context manager it
    enters per statement and expression to record nothing."""

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return _NOTHING


class _Nothing:
    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        return False


_NOTHING = _Nothing()


def code_for(module, node) -> str:
    """`module.code_for_node(node)`: the same tokens, generated with _PlainState."""
    state = _PlainState(default_indent=module.default_indent, default_newline=module.default_newline)
    node._codegen(state)
    return "".join(state.tokens)


class Positions:
    """node -> CodeRange, like `MetadataWrapper.resolve(PositionProvider)`."""

    def __init__(self, module, parts=None) -> None:
        state = _OffsetState(default_indent=module.default_indent, default_newline=module.default_newline)
        self._parts = parts
        self._made: list = []
        if parts is not None and module.has_trailing_newline and module.body:
            self._made = _by_statement(module, state, parts)
        else:
            module._codegen(state)
        self._module = module  # keeps every node, and so its id, alive
        self._offsets = state.offsets
        self._outer = state.outer
        self.code = "".join(state.tokens)  # what `module.code` prints: a fix reuses it
        self._starts = line_starts(self.code + state.popped)
        self._ranges: dict = {}

    def _at(self, offset: int) -> CodePosition:
        line = bisect.bisect_right(self._starts, offset)
        return CodePosition(line, offset - self._starts[line - 1])

    def __getitem__(self, node) -> CodeRange:
        r = self._ranges.get(id(node))
        if r is None:
            start, end = self._offsets[id(node)]
            r = self._ranges[id(node)] = CodeRange(self._at(start), self._at(end))
        return r

    def __contains__(self, node) -> bool:
        return id(node) in self._offsets

    def keep(self, stmts) -> None:
        """Save the offsets of these top-level statements (ids) for the next
        fix pass, which reuses them (only where built with `parts`)."""
        made = [m for m in self._made if id(m[0]) in stmts]
        if not made:
            return
        items, outer = list(self._offsets.items()), list(self._outer.items())
        for stmt, lo, hi, olo, ohi, start, end in made:
            self._parts[id(stmt)] = (stmt, {k: (a - start, b - start) for k, (a, b) in items[lo:hi]},
                                     {k: (a - start, b - start) for k, (a, b) in outer[olo:ohi]}, self.code[start:end])

    def extent(self, node) -> tuple:
        """(start, end) offsets of all of the node's code, its own
        whitespace and comments included: a descendant's extent lies inside."""
        return self._outer.get(id(node)) or self._offsets[id(node)]


def _by_statement(module, state: _OffsetState, parts: dict) -> list:
    """`module._codegen(state)`, one top-level statement at a time: a
    statement's code does not depend on where it stands, so the offsets of
    a statement the last fix pass left alone are its kept ones (from its own
    start, in `parts`) moved to where it stands now. Returns, for the
    statements generated here, (statement, first and last entry in offsets
    and in outer, start, end), from which `Positions.keep` saves them."""
    key = (module.default_indent, module.default_newline)
    if parts.get("key") != key:
        parts.clear()
        parts["key"] = key
    state.before_codegen(module)
    for h in module.header:
        h._codegen(state)
    offsets, outer, tokens = state.offsets, state.outer, state.tokens
    made = []
    for stmt in module.body:
        pos = state.pos
        part = parts.get(id(stmt))
        if part is None or part[0] is not stmt:
            lo, olo = len(offsets), len(outer)
            stmt._codegen(state)
            made.append((stmt, lo, len(offsets), olo, len(outer), pos, state.pos))
            continue
        _, own_offsets, own_outer, code = part
        offsets.update({k: (a + pos, b + pos) for k, (a, b) in own_offsets.items()})
        if own_outer:
            outer.update({k: (a + pos, b + pos) for k, (a, b) in own_outer.items()})
        tokens.append(code)
        state.pos = pos + len(code)
    for f in module.footer:
        f._codegen(state)
    state.after_codegen(module)
    return made
