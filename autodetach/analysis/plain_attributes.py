"""Does reading `net.attr` of a module run nothing with gradients? A function that
only reads a setting of a model it is handed (`w = model.n_window`, `bs =
model.batch`, `if "TranAD" in model.name`) uses none of its parameters: the
value is a number or a string, and what the function builds from it (windows
cut from the data) hangs from no graph of the model.

An attribute counts as such a setting when every store of `.attr` in the
project's files that name it (this file, and the `.py` files of its folder and
below, `project_index.files_mentioning`) sets a literal (a number, a string,
`True`, `None`, a negated number), there is at least one, and no file that
names the attribute in quotes could set it by name (`setattr`,
`register_buffer`, `register_parameter`, `__dict__`), nor defines a function of
that name (a property). A call (`model.encode(x)`)
or any other read of the module still counts as a use (analysis.model `_Sites`)."""
from __future__ import annotations

import ast

from .callers import tree_of
from .project_index import files_mentioning
from .summaries import parse_text

_BY_NAME = ("setattr", "register_buffer", "register_parameter", "__dict__")


def plain_attribute(analysis, attr: str) -> bool:
    """Is every store of `<x>.<attr>` in the project a literal (see the module's doc)?"""
    memo = analysis.table("plain_attributes")
    if attr not in memo:
        memo[attr] = _plain(analysis.ctx, attr)
    return memo[attr]


def _plain(ctx, attr: str) -> bool:
    needle = f".{attr}"
    own = ctx.text.decode("utf-8", errors="replace") if isinstance(ctx.text, bytes) else ctx.text
    sources = [(own, None)]  # (text, path): this file's text as the run sees it, the others through tree_of
    path = getattr(ctx, "path", None)
    if path:
        import os

        here = os.path.abspath(path)
        sources += [(None, f) for f in files_mentioning(path, needle.encode()) if os.path.abspath(f) != here]
    stores = 0
    quoted = (f'"{attr}"', f"'{attr}'")
    for text, other in sources:
        tree = False
        if other is not None:
            # parsed once, and recorded as read (the result cache follows its edits)
            text, tree = tree_of(other)
        if text is None:
            continue
        if any(q in text for q in quoted) and any(b in text for b in _BY_NAME):
            return False  # it may be set by name, to anything
        if f"def {attr}(" in text:
            return False  # a property (or a method) of that name computes it
        if needle not in text:
            continue
        try:
            tree = parse_text(text) if tree is False else tree
        except RecursionError:
            tree = None
        if tree is None:
            return False
        for node in ast.walk(tree):
            for target, value in _stores(node):
                if _is_self_attr(target, attr):
                    if not _literal(value):
                        return False
                    stores += 1
                elif isinstance(target, (ast.Tuple, ast.List)) and any(_is_self_attr(e, attr) for e in
                                                                         ast.walk(target)):
                    return False  # `self.n, self.m = cfg`: not read here
    return stores > 0


def by_name_or_property(ctx, attr: str) -> bool:
    """May `<x>.attr` be set by name (`setattr`, ...) or computed (`def attr(`, a property), in this
    file or the project's files that name it? (size_reads: a read used only as a size.)"""
    needle = f".{attr}"
    quoted = (f'"{attr}"', f"'{attr}'")
    own = ctx.text.decode("utf-8", errors="replace") if isinstance(ctx.text, bytes) else ctx.text
    texts = [own]
    path = getattr(ctx, "path", None)
    if path:
        import os

        here = os.path.abspath(path)
        texts += [tree_of(f)[0] for f in files_mentioning(path, needle.encode()) if os.path.abspath(f) != here]
    for text in texts:
        if text is None:
            continue
        if any(q in text for q in quoted) and any(b in text for b in _BY_NAME) or f"def {attr}(" in text:
            return True
    return False


def _stores(node):
    if isinstance(node, ast.Assign):
        return [(t, node.value) for t in node.targets]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return [(node.target, node.value)]
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        return [(node.target, None)]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [(item.optional_vars, None) for item in node.items if item.optional_vars is not None]
    if isinstance(node, ast.NamedExpr):
        return [(node.target, node.value)]
    return []


def _is_self_attr(node, attr: str) -> bool:
    """A store of `<anything>.attr` (`self.n = 3`, and `net.n = w` of a script: not only `self`'s)."""
    return isinstance(node, ast.Attribute) and node.attr == attr


def _literal(value) -> bool:
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        value = value.operand
    return isinstance(value, ast.Constant) and (value.value is None or isinstance(value.value, (int, float, str, bool)))
