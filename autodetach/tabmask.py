"""Indentation that mixes tabs and spaces in a way Python accepts and
libcst's tokenizer rejects (a method body indented `\\t    ` in a file
indented with spaces). Each tab in a line's leading whitespace becomes one
space: the text keeps its length, so positions hold. Python accepts a file
only when its blocks nest the same with a tab worth 1 column as with 8
(otherwise TabError), so a tab worth 1 column keeps the file's blocks."""
from __future__ import annotations

import ast
import re
from typing import Optional

import libcst as cst

_LEADING_TABS = re.compile(r"^[ \t]*\t[ \t]*", re.MULTILINE)


def mask(text: str) -> str:
    """`text` with the tabs of its lines' leading whitespace made spaces."""
    return _LEADING_TABS.sub(lambda m: " " * len(m.group()), text)


def parse(text: str) -> Optional[tuple]:
    """(masked text, its module) when `text` fails libcst only through such
    tabs: Python compiles it and libcst parses it masked; else None."""
    if "\t" not in text:
        return None
    masked = mask(text)
    if masked == text:
        return None
    try:
        compile(text, "<file>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        return masked, cst.parse_module(masked)
    except (SyntaxError, ValueError, RecursionError, MemoryError, cst.ParserSyntaxError):
        return None
