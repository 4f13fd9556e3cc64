"""The class a call builds, read with the stdlib `ast`: a class of this file,
or one a project file defines and this file imports (`from .mod import Cls`,
`from pkg.mod import Cls`). The file read is recorded, so the result cache
follows its edits."""
from __future__ import annotations

import ast
import os

from ..imports import dotted
from .callers import tree_of
from .project import _import_file, module_file_up


def class_of(analysis, func) -> tuple:
    """(ast.ClassDef, where it was read) of the class called, in this file or
    a project file it imports; (None, None) when out of sight."""
    return class_in_tree(analysis, func)[:2]


def class_in_tree(analysis, func) -> tuple:
    """class_of, and the module's tree it was read from: (None, None, None)."""
    name = dotted(func)
    if name is None:
        return None, None, None
    if "." not in name and name in analysis.names.classes:
        tree, where = analysis.own_tree, "this file"
        cls_name = name
    else:
        path = None
        qualified = analysis.ctx.imports.qualify(func)
        rel = analysis.ctx.imports.relative.get(name.split(".")[0]) if "." not in name else None
        here = analysis.project.dir
        if here is None:
            return None, None, None
        if rel is not None and rel[1]:
            level, mod, cls_name = rel
            path = _import_file(analysis.ctx.path, level, mod.split("."))
        elif qualified and "." in qualified and not qualified.startswith(("torch.", "transformers.")):
            parts = qualified.split(".")
            cls_name = parts[-1]
            path = module_file_up(here, parts[:-1])
        if path is None:
            return None, None, None
        tree, where = tree_of(path)[1], os.path.basename(path)
    if tree is None:
        return None, None, None
    found = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls_name]
    return (found[0], where, tree) if len(found) == 1 else (None, None, None)
