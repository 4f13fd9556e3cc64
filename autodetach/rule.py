"""The rule base class. A rule is one class that carries its own cases.

Rules are libcst batchable visitors: the engine walks each tree once with all
selected rules. A rule that needs the whole file (the AD1xx graph rules) does
its work in `finish()`, asking `self.ctx.analysis` rather than re-deriving it.
"""
from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import libcst as cst

from .findings import NONE, SAFE, UNSAFE


@dataclass
class Valid:
    """Code the rule must leave alone (no finding)."""
    code: str
    note: str = ""

    def __post_init__(self) -> None:
        self.code = textwrap.dedent(self.code).lstrip("\n")


@dataclass
class Invalid:
    """Code the rule must report; `expected` is the fixed code (None: no fix)."""
    code: str
    expected: Optional[str] = None
    unsafe: bool = False  # apply unsafe fixes when checking `expected`
    count: int = 1  # findings expected on the first pass
    note: str = ""
    # Where the first finding (in source order) is reported, when given:
    # 1-based line and the column the finding reports.
    line: Optional[int] = None
    column: Optional[int] = None
    message: Optional[str] = None  # words the first finding's message contains

    def __post_init__(self) -> None:
        self.code = textwrap.dedent(self.code).lstrip("\n")
        if self.expected is not None:
            self.expected = textwrap.dedent(self.expected).lstrip("\n")


@dataclass
class Edit:
    """Replace `node` with `replacement` (a node, a FlattenSentinel, or REMOVE).

    `replacement` may also be a function of the node as the other edits
    inside it left it: code placed beside a statement (a helper before the
    function whose body another edit of the same fix changes) then keeps
    those inner edits."""
    node: cst.CSTNode
    replacement: Any


@dataclass
class TextEdit:
    """A byte-exact edit on the source text, for code libcst cannot parse yet."""
    start: int
    end: int
    text: str


@dataclass
class Report:
    node: Optional[cst.CSTNode]
    message: str
    edits: list = field(default_factory=list)
    fix: str = NONE
    fix_title: str = ""
    related: list = field(default_factory=list)  # (node, note)
    # For text-level reports: explicit 1-based positions.
    position: Optional[tuple] = None
    text_edits: list = field(default_factory=list)
    # The local name of an unused import that this fix removes, when that is
    # all it does (the engine may then skip the AD1 rules on the next pass).
    removes_import: str = ""


class Rule(cst.BatchableCSTVisitor):
    code: str = ""
    name: str = ""
    summary: str = ""
    # Default safety of this rule's fix; a report may override it.
    fix_safety: str = NONE
    # The pre-filter: a file with none of these substrings is never parsed
    # for this rule. Empty means the rule always runs.
    tokens: Sequence[str] = ()
    # And-groups: the file must also hold one token of every group (a rule
    # that needs a `/` and an integer tensor, say). Checked only after a hit.
    also_tokens: Sequence[Sequence[str]] = ()
    VALID: Sequence[Valid] = ()
    INVALID: Sequence[Invalid] = ()

    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx
        self.reports: list[Report] = []

    # --- reporting -----------------------------------------------------
    def report(
        self,
        node: cst.CSTNode,
        message: str,
        *,
        replacement: Any = None,
        edits: Sequence[Edit] = (),
        fix: Optional[str] = None,
        fix_title: str = "",
        related: Sequence = (),
    ) -> Report:
        all_edits = list(edits)
        if replacement is not None:
            all_edits.insert(0, Edit(node, replacement))
        if fix is None:
            fix = self.fix_safety if all_edits else NONE
        if not all_edits:
            fix = NONE
        rep = Report(node, message, all_edits, fix, fix_title, list(related))
        self.reports.append(rep)
        return rep

    def finish(self) -> None:
        """Called after the tree walk."""

    # --- text pass (optional) -------------------------------------------
    # Rules whose target makes the file unparseable (AD209) implement this;
    # it runs before parsing. Return Reports with `position` and `text_edits`.
    def check_text(self, text: str) -> list:  # pragma: no cover - default
        return []

    @classmethod
    def has_text_pass(cls) -> bool:
        return cls.check_text is not Rule.check_text

    # --- docs ------------------------------------------------------------
    @classmethod
    def doc(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def safety_label(cls) -> str:
        return {SAFE: "safe", UNSAFE: "unsafe", NONE: "no fix"}[cls.fix_safety]
