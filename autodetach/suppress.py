"""Suppression comments: `# noqa`, `# noqa: AD201`, `# noqa:AD201,AD202`,
`# autodetach: ignore[AD201]`, and the file-level `# autodetach: skip-file`.

Only real comments count (a `# noqa` inside a string does not). A comment
suppresses a finding when it sits on the finding's first or last line, or on
any physical line of the logical line where the finding starts (so a
`# noqa` after the closing bracket of a multi-line call works, as in
flake8)."""
from __future__ import annotations

import io
import re
import tokenize
from typing import Optional

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,?\s*[A-Z]+[0-9]+)*))?", re.I)
_IGNORE = re.compile(r"#\s*autodetach:\s*ignore(?:\[(?P<codes>[A-Z0-9,\s]*)\])?", re.I)
_SKIP_FILE = re.compile(r"^[ \t]*#[ \t]*autodetach:[ \t]*skip-file\b", re.M | re.I)


def _codes(m) -> Optional[set]:
    codes = m.group("codes")
    if codes is None or not codes.strip():
        return None  # bare: everything
    return {c.strip().upper() for c in re.split(r"[,\s]+", codes) if c.strip()}


def comment_suppresses(comment: str, code: str) -> bool:
    """Does this comment text (from `#` on) suppress `code`?"""
    for pattern in (_NOQA, _IGNORE):
        for m in pattern.finditer(comment):
            codes = _codes(m)
            if codes is None or code in codes:
                return True
    return False


def line_suppresses(line: str, code: str) -> bool:
    if "#" not in line:
        return False
    return comment_suppresses(line[line.index("#"):], code)


class Lines:
    """The suppression comments of one source text, found lazily."""

    def __init__(self, text: str) -> None:
        self.text = text
        # No match of either pattern anywhere: no comment can hold one (the
        # word "autodetach" in a header comment no longer costs a tokenize).
        self._cheap = _NOQA.search(text) is None and _IGNORE.search(text) is None
        self._comments: Optional[dict] = None  # line -> comment text
        self._logical: dict = {}  # line -> (first, last) of its logical line
        self._lines: Optional[list] = None

    def _scan(self) -> None:
        self._comments = {}
        try:
            first = None
            for tok in tokenize.generate_tokens(io.StringIO(self.text).readline):
                if first is None and tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT,
                                                       tokenize.DEDENT, tokenize.NEWLINE):
                    first = tok.start[0]
                if tok.type == tokenize.COMMENT:
                    self._comments[tok.start[0]] = tok.string
                elif tok.type == tokenize.NEWLINE and first is not None:
                    last = tok.end[0]
                    if last > first:
                        for ln in range(first, last + 1):
                            self._logical[ln] = (first, last)
                    first = None
        except (tokenize.TokenError, SyntaxError, IndentationError):
            # Text libcst parsed but tokenize cannot (rare): fall back to raw lines.
            self._comments = None
            self._lines = self.text.splitlines()

    def suppressed(self, finding) -> bool:
        if self._cheap:
            return False
        if self._comments is None and self._lines is None:
            self._scan()
        lines = {finding.line, finding.end_line}
        span = self._logical.get(finding.line)
        if span is not None:
            lines.update(range(span[0], span[1] + 1))
        for ln in lines:
            if self._comments is not None:
                comment = self._comments.get(ln)
                if comment and comment_suppresses(comment, finding.code):
                    return True
            elif self._lines is not None and 1 <= ln <= len(self._lines):
                if line_suppresses(self._lines[ln - 1], finding.code):
                    return True
        return False


def is_suppressed(lines, finding) -> bool:
    """`lines` is a `Lines` object, or a list of the file's lines."""
    if isinstance(lines, Lines):
        return lines.suppressed(finding)
    for ln in {finding.line, finding.end_line}:
        if 1 <= ln <= len(lines) and line_suppresses(lines[ln - 1], finding.code):
            return True
    return False


def skip_file(text: str) -> bool:
    return "autodetach" in text and _SKIP_FILE.search(text) is not None
