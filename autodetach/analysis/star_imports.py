"""Names a file takes from a project module by `from evaluation import *`.

`from evaluation import *` then `acc += get_accuracy(SR, GT)`: the import
table cannot qualify `get_accuracy`, so the call was unseen code whose
result was taken to carry the graph. Here a plain name the file does not
bind itself is looked up in the files of its star imports (absolute ones
up the directories, as project.py does, and relative ones), the last star
import first, as Python binds them, and through those files' own star
imports (two hops: `utils/__init__.py` doing `from .metrics import *`).
Only a module-level `def` or `class` counts: a name re-exported by
`from x import name` is not followed."""
from __future__ import annotations

import ast
import builtins
import os
from typing import Optional

import libcst as cst

from ..imports import dotted
from .callers import tree_of
from .project import _module_file, module_file_up

SKIP = ("torch", "numpy", "scipy", "sklearn", "matplotlib", "pandas", "tensorflow", "keras")


def star_files(analysis) -> list:
    """Project files of the module-level star imports, in import order."""
    def build():
        path = analysis.ctx.path
        if not path or path == "<string>":
            return []
        here = os.path.dirname(os.path.abspath(path))
        out = []
        for stmt in analysis.ctx.module.body:
            for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
                if not isinstance(small, cst.ImportFrom) or not isinstance(small.names, cst.ImportStar):
                    continue
                parts = (dotted(small.module) or "").split(".") if small.module is not None else []
                if small.relative:
                    base = here
                    for _ in range(len(small.relative) - 1):
                        base = os.path.dirname(base)
                    found = _module_file(base, parts)
                elif parts and parts[0] not in SKIP:
                    found = module_file_up(here, parts)
                else:
                    found = None
                if found is not None and os.path.realpath(found) != os.path.realpath(path):
                    out.append(found)
        return out
    return analysis.memo("_star_files", build)


def _defined(path: str) -> tuple:
    """(names the file defines at module level, files of its own star imports)."""
    tree = tree_of(path)[1]
    if tree is None:
        return frozenset(), ()  # unreadable or unparsable (an empty file parses: no names either)
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    here = os.path.dirname(os.path.abspath(path))
    stars = []
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or [a.name for a in node.names] != ["*"]:
            continue
        parts = node.module.split(".") if node.module else []
        if node.level:
            base = here
            for _ in range(node.level - 1):
                base = os.path.dirname(base)
            found = _module_file(base, parts)
        else:
            found = module_file_up(here, parts) if parts and parts[0] not in SKIP else None
        if found is not None and os.path.realpath(found) != os.path.realpath(path):
            stars.append(found)
    return frozenset(node.name for node in tree.body if isinstance(node, kinds)), tuple(stars)


def star_file(analysis, name: Optional[str]) -> Optional[str]:
    """The project file a star import takes the plain `name` from, or None
    (a name this file binds, a builtin, or one no star-imported file defines)."""
    if not name or "." in name or hasattr(builtins, name):
        return None
    files = star_files(analysis)
    if not files or analysis.ctx.bindings.module.names.get(name):
        return None
    return _find(analysis.table("_star_defs"), files, name, 2)


def _find(defs: dict, files, name: str, hops: int) -> Optional[str]:
    """The file among `files` (the last first) that defines `name`, or whose
    own star imports do (`utils/__init__.py` doing `from .metrics import *`)."""
    for path in reversed(files):
        if path not in defs:
            defs[path] = _defined(path)
        names, stars = defs[path]
        if name in names:
            return path
        found = _find(defs, stars, name, hops - 1) if stars and hops > 0 else None
        if found is not None:
            return found
    return None
