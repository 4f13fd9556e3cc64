"""The project's calls of a function, read with stdlib `ast`.

Several questions are answered at the call sites in other files: does a
caller backward again what it handed in (caller_reuse), did a network build
the argument (loop_inputs), what does a trainer's caller give its optimizers
(caller_owners), is an evaluation function called under `no_grad`
(eval_loops). Files are read through `project.text_of`, so each becomes a
dependency of the result and a `--fix` run reads it as it was when it began."""
from __future__ import annotations

import ast
import os
import re
from typing import Iterator, Optional

from .project import text_of
from .project_index import files_mentioning
from .summaries import parse_text, statements


_TREES: dict = {}  # realpath -> (text, ast.Module or None): the same callers are read for many files
_KEEP = 256


def tree_of(path: str, text=False) -> tuple:
    """(text, tree) of a project file; either is None when it cannot be read
    or parsed. Parsed once while its text stays the same. `text`: the file's
    text, when the caller has just read it with text_of."""
    if text is False:
        text = text_of(path)  # recorded as read: the result cache follows edits of that file
    real = os.path.realpath(path)
    hit = _TREES.get(real)
    if hit is not None and hit[0] == text:
        return hit
    tree = parse_text(text) if text is not None else None
    if len(_TREES) >= _KEEP:
        _TREES.pop(next(iter(_TREES)))
    _TREES[real] = (text, tree)
    return text, tree


def class_nodes(found) -> Optional[list]:
    """(class node, file, tree) for each (class, summary, file) that
    project_index.classes_with_method found; None when one of them is not a
    single top-level class of that name in its file (or the file does not parse)."""
    out = []
    for cls, _summary, path in found:
        tree = tree_of(path)[1]
        hits = [n for n in (tree.body if tree is not None else []) if isinstance(n, ast.ClassDef) and n.name == cls]
        if len(hits) != 1:
            return None
        out.append((hits[0], path, tree))
    return out


def parsed(paths, must: str = "", pattern=None) -> Iterator[tuple]:
    """(path, tree) for each file whose text holds `must` (and matches the
    regex `pattern`) and parses; a file that does not is never parsed."""
    for path, _, tree in parsed_texts(paths, must, pattern):
        yield path, tree


def parsed_texts(paths, must: str = "", pattern=None) -> Iterator[tuple]:
    """(path, text, tree) for the files `parsed` yields, each read once."""
    for path in paths:
        text = text_of(path)
        if text is None or must not in text or pattern is not None and not re.search(pattern, text):
            continue
        text, tree = tree_of(path, text)
        if tree is not None:
            yield path, text, tree


def mentioning_trees(path: str, name: str) -> Iterator[tuple]:
    """(file, tree, parents) for `path` and the project files whose text says `name`,
    each file once (by its real path); `parents` maps id(node) to its parent node."""
    paths, seen = [], set()
    for p in [*files_mentioning(path, name.encode()), path]:
        real = os.path.realpath(p)
        if real not in seen:
            seen.add(real)
            paths.append(p)
    for file, tree in parsed(paths, must=name):
        yield file, tree, {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def calls_name(node, name: str) -> bool:
    """`name(...)` or `x.name(...)`."""
    func = node.func if isinstance(node, ast.Call) else None
    return isinstance(func, ast.Name) and func.id == name or isinstance(func, ast.Attribute) and func.attr == name


def arguments(call: ast.Call, order: list) -> dict:
    """Parameter name -> argument expression: positional by `order`, then keywords."""
    args = {order[i]: arg for i, arg in enumerate(call.args[:len(order)])}
    args.update({kw.arg: kw.value for kw in call.keywords if kw.arg})
    return args


def callers(path: str, name: str, also=()) -> Iterator[tuple]:
    """(caller, calls) for each function in the project's files (those that
    mention `name(`, and `also`) whose body calls `name`."""
    for _, caller, calls in callers_in(path, name, also):
        yield caller, calls


def callers_in(path: str, name: str, also=()) -> Iterator[tuple]:
    """(the file's tree, caller, calls): `callers`, with the tree each caller is in."""
    paths = list(files_mentioning(path, f"{name}(".encode()))
    known = {os.path.realpath(p) for p in paths}
    paths += [p for p in also if os.path.realpath(p) not in known]
    for _, tree in parsed(paths, must=f"{name}("):
        for caller in statements(tree):
            if isinstance(caller, (ast.FunctionDef, ast.AsyncFunctionDef)):
                calls = [node for node in ast.walk(caller) if calls_name(node, name)]
                if calls:
                    yield tree, caller, calls
