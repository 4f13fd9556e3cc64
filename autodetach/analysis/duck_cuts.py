"""A method of an object whose class the file does not know, that every class of
the project defining a method of that name uses to cut its argument:

    hidden = helper.repackage_hidden(hidden)      # `helper` handed in, class unknown
    ...
    class TextHelper:                             # another file of the project
        @staticmethod
        def repackage_hidden(h):
            if isinstance(h, torch.Tensor):
                return h.detach()
            return tuple(TextHelper.repackage_hidden(v) for v in h)

The result hangs from no graph when each such method returns only cut values
(`x.detach()`, `x.data`, a number, None) or containers of its own recursive calls.
That `helper` is an object of one of those classes is inferred (duck typing): the
walk notes it, so a verdict resting on it is unsafe."""
from __future__ import annotations

import ast
import os
from typing import Optional

from .callers import tree_of
from .project_index import classes_with_method
from .summaries import parse_text


def duck_cut(analysis, base: str, meth: str) -> Optional[str]:
    """The inference note when every project method named `meth` returns its argument cut."""
    memo = analysis.table("duck_cuts")
    if meth not in memo:
        memo[meth] = _classes(analysis.ctx, meth)
    classes = memo[meth]
    if not classes:
        return None
    names = ", ".join(f"`{c}`" for c in classes[:3])
    return (f"`{base}.{meth}()` is taken for the method of that name of {names} (the project's only "
            f"one{'s' if len(classes) > 1 else ''}), which returns its argument cut from the graph: "
            f"the class of `{base}` is not known")


def returns_cut(path: str, meth: str) -> bool:
    """Every method `meth` of the classes of file `path` (the file a resolved
    `obj.meth(...)` was read from) returns only cut values: the same reading as
    the duck-typed case above, for an object whose class is known."""
    from .method_cuts import _methods

    defs = _methods(path).get(meth, []) if meth.isidentifier() and not meth.startswith("__") else []
    try:
        return bool(defs) and all(_cuts(d, meth) for d in defs)
    except RecursionError:
        return False


def _classes(ctx, meth: str) -> list:
    path = getattr(ctx, "path", None)
    if not path or not meth.isidentifier() or meth.startswith("__"):
        return []
    found = classes_with_method(path, meth, whole=True)
    if not found:
        return []
    out = []
    for cls, _summary, f in found:
        # another file through tree_of: parsed once, and recorded as read (the result cache follows its edits)
        try:
            tree = tree_of(f)[1] if os.path.abspath(f) != os.path.abspath(path) else parse_text(ctx.text)
        except RecursionError:
            return []
        if tree is None:
            return []
        defs = [d for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and c.name == cls for d in c.body
                if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d.name == meth]
        if not defs or not all(_cuts(d, meth) for d in defs):
            return []
        out.append(cls)
    # a plain function of that name elsewhere is not a method, but `obj.meth` cannot call it
    return sorted(set(out))


def _cuts(func, meth: str) -> bool:
    returns = [n for n in ast.walk(func) if isinstance(n, ast.Return)]
    if not returns or any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)) for n in ast.walk(func)):
        return False
    return all(n.value is not None and _cut(n.value, meth) for n in returns)


def _cut(expr, meth: str) -> bool:
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.Attribute) and expr.attr == "data":
        return True
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ("detach", "item"):
        return True
    if isinstance(expr, ast.Call) and _self_call(expr.func, meth):
        return True  # its own recursion: cut by the same test
    if isinstance(expr, (ast.Tuple, ast.List)):
        return all(_cut(e, meth) for e in expr.elts)
    if isinstance(expr, (ast.GeneratorExp, ast.ListComp)):
        return _cut(expr.elt, meth)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("tuple", "list") and \
            len(expr.args) == 1 and not expr.keywords:
        return _cut(expr.args[0], meth)
    return False


def _self_call(func, meth: str) -> bool:
    if isinstance(func, ast.Name):
        return func.id == meth
    return isinstance(func, ast.Attribute) and func.attr == meth and isinstance(func.value, ast.Name)
