"""The values the engine produces: findings and per-file results."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Optional

SAFE = "safe"
UNSAFE = "unsafe"
NONE = "none"


@dataclass
class Finding:
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    name: str
    message: str
    fix: str = NONE  # safe | unsafe | none
    fix_title: str = ""
    fixed: bool = False
    # Other places that explain the finding: (line, column, note).
    related: list = field(default_factory=list)
    verification: Optional[dict] = None
    # In a notebook: the cell's 1-based position among all its cells; line
    # and column are then within that cell (and related entries carry their
    # cell as a fourth item). None in a .py file.
    cell: Optional[int] = None
    # Identity within one run of the engine: (code, start, end), the anchor's
    # offsets in the text first analysed. Not part of any output.
    identity: Optional[tuple] = field(default=None, repr=False, compare=False)

    @property
    def fixable(self) -> bool:
        return self.fix != NONE

    def to_dict(self) -> dict:
        d = asdict(self)
        if d["verification"] is None:
            del d["verification"]
        if d["cell"] is None:
            del d["cell"]
        del d["identity"]
        return d


@dataclass
class FileResult:
    path: str
    findings: list = field(default_factory=list)
    # Set when the fixed source differs from the original.
    new_source: Optional[bytes] = None
    old_source: Optional[bytes] = None
    fixed: int = 0
    # A value, never an exception: parse errors, rule crashes, write failures.
    errors: list = field(default_factory=list)
    crashed: bool = False
    skipped: bool = False  # pre-filter or skip-file
    diff: str = ""
    write_failed: bool = False
