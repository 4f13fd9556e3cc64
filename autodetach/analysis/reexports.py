"""What `find` follows past a file's own definitions: the star re-exports of a
package `__init__` (`from .models import *`) and the bases of a class, for a
method the class inherits (`class ARGVA(ARGA)`, `discriminator_loss` defined
in ARGA). Read with `ast`, once per file text."""
from __future__ import annotations

import ast
from typing import Optional

from .callers import tree_of
from .project import text_of
from .summaries import _dotted, may_declare

_MEMO: dict = {}  # path -> (text, (stars, bases))


def _facts(path: str, text: str) -> tuple:
    text, tree = tree_of(path, text)
    hit = _MEMO.get(path)
    if hit is not None and hit[0] == text:
        return hit[1]
    stars, bases = [], {}
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            stars.append((node.level, node.module or ""))
        elif isinstance(node, ast.ClassDef):
            bases[node.name] = tuple(b for b in (_dotted(base) for base in node.bases) if b is not None)
    out = (tuple(stars), bases)
    _MEMO[path] = (text, out)
    return out


def star_imports(path: str) -> tuple:
    """(level, module) of the file's module-level `from m import *`, in order."""
    text = text_of(path)
    if text is None or "*" not in text:
        return ()  # nothing to parse for
    return _facts(path, text)[0]


def class_bases(path: str, cls: str) -> Optional[tuple]:
    """The dotted names of the bases of class `cls` defined in the file; None
    when the file defines no such class."""
    text = text_of(path)
    if text is None or not may_declare(text, "class", cls):
        return None  # no class of that name
    return _facts(path, text)[1].get(cls)
