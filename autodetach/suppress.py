"""Suppression comments: `# noqa`, `# noqa: AD201`, `# autodetach: ignore[AD201]`,
and the file-level `# autodetach: skip-file`."""
from __future__ import annotations

import re

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.I)
_IGNORE = re.compile(r"#\s*autodetach:\s*ignore(?:\[(?P<codes>[A-Z0-9,\s]+)\])?", re.I)
_SKIP_FILE = re.compile(r"^\s*#\s*autodetach:\s*skip-file\b", re.M)


def _codes(m) -> set | None:
    codes = m.group("codes")
    if not codes:
        return None  # bare: everything
    return {c.strip().upper() for c in re.split(r"[,\s]+", codes) if c.strip()}


def line_suppresses(line: str, code: str) -> bool:
    if "#" not in line:
        return False
    for pattern in (_NOQA, _IGNORE):
        for m in pattern.finditer(line):
            codes = _codes(m)
            if codes is None or code in codes:
                return True
    return False


def is_suppressed(lines: list, finding) -> bool:
    for ln in {finding.line, finding.end_line}:
        if 1 <= ln <= len(lines) and line_suppresses(lines[ln - 1], finding.code):
            return True
    return False


def skip_file(text: str) -> bool:
    return "autodetach" in text and _SKIP_FILE.search(text) is not None
