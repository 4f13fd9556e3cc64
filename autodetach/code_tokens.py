"""The text a rule's tokens must appear in: the file without its comments
and docstrings.

The pre-filter admits a rule when one of its tokens is in the text, and
library code names `.backward()` or `volatile` in comments and docstrings
far more often than in code: in a sample of 150 of torch's own files, 10 of
the 64 the tokens admit hold them only there, and each cost a libcst parse and
an analysis that found nothing. What is removed here is never code:
- comments on lines without a quote character (a `#` on such a line either
  starts a comment or sits inside a multi-line string: not code either way);
  the `#` itself stays (AD203's `.data  #` token ends in one);
- string statements (docstrings) alone on their lines, found by the stdlib
  parser. That parse is paid only where it can spare a file: when a quick
  regex guess says that without its triple-quoted blocks no rule is left.
Anything unsure (a line with quotes) stays as it is, and a file the stdlib
parser rejects keeps the rules its text admits (the engine parses it and
reports why)."""
from __future__ import annotations

import ast
import re
from typing import Callable

from .analysis.summaries import parse_text, statements

_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_COMMENT = re.compile(r"(?m)^([^'\"#\r\n]*)#[^'\"\r\n]*$")
# a guess only (a `"""` inside another string fools it): the parser decides
_BLOCK = re.compile(r"(?ms)^[ \t]*[rRuU]?(\"\"\"|''').*?\1")


def code_rules(text: str, admitted: Callable[[str], list], among: Callable[[str, list], list]) -> list:
    """The rules `admitted` gives for `text`'s code (see the module doc):
    `admitted(text)` is the rules its tokens admit in a text, `among(text,
    rules)` the same out of `rules` only (the rescans check only those)."""
    rules = admitted(text)
    if not rules:
        return rules
    if "#" in text:
        code = _COMMENT.sub(r"\1#", text)
        left = among(code, rules)
        if not left:
            # nothing left to run: a file that does not parse is still parsed,
            # so that its syntax error is reported (Python 2 in a migration)
            return left if parse_text(text) is not None else rules
        text, rules = code, left
    if ('"""' in text or "'''" in text) and not among(_BLOCK.sub("", text), rules):
        code = _without_docstrings(text)
        if code is not text:
            rules = among(code, rules)
    return rules


def _without_docstrings(text: str) -> str:
    tree = parse_text(text)
    if tree is None:
        return text
    docs = [st for st in statements(tree)
            if type(st) is ast.Expr and type(st.value) is ast.Constant and type(st.value.value) is str]
    if not docs:
        return text
    lines = _LINES.findall(text)
    keep = [True] * len(lines)
    for st in docs:
        first, last = st.lineno - 1, st.end_lineno - 1
        if last >= len(lines) or lines[first].encode()[:st.col_offset].strip():
            continue  # code before it on its first line (offsets are in UTF-8 bytes)
        tail = lines[last].encode()[st.end_col_offset:].strip()
        if tail and not tail.startswith(b"#"):
            continue  # code after it: `"doc"; x.backward()`
        for i in range(first, last + 1):
            keep[i] = False
    return "".join(line if k else "\n" for line, k in zip(lines, keep))
