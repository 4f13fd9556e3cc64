"""`obj.meth(...)` of a class in another file whose results carry no graph.

`masks = nets.fan.get_heatmap(x)` where `get_heatmap` is `@torch.no_grad()`
in another file, or `greedy = agent.greedy_option(state)` that returns
`q.argmax().item()`: the module call would otherwise be taken to hand back
its input's graph and its parameters'. The summaries of the project's
classes say what `meth` returns. The class is the imported one when the
file shows it (`fan = FAN(...)`); otherwise every project class that
defines `meth` must agree, and a method no project class defines is not
known. `self.net(x)`, or a name this file assigns as an attribute
(`self.fan = ...`), is a callable attribute, never looked up by name."""
from __future__ import annotations

import os
import re
from typing import Optional

from ..textio import read_regular
from .project import summaries_of
from .project_index import project_files
from .summaries import methods_named

_DEF = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", re.M)
_INDEX: dict = {}  # directory -> {method name: files that define it}
SKIP = {"forward", "__call__", "__init__"}


def _defining(path: str, meth: str, widen: bool = False) -> list:
    """Files of the project that define `meth`: the file's directory and below;
    when none there does, those of the whole package the file belongs to (its
    top package's directory and below: `pkg/trainer/trainer.py` calls a method
    of a class of `pkg/crits/`). One read of each file per directory and process."""
    found = _index(path).get(meth, [])
    top = _package_top(os.path.dirname(os.path.abspath(path))) if widen else None
    if found or top is None:
        return found
    return _index(os.path.join(top, "__init__.py")).get(meth, [])


def _package_top(start: str) -> Optional[str]:
    """The directory that holds the outermost package `start` is part of (a chain of
    `__init__.py` up from it); None when `start` is no package."""
    top = None
    while os.path.isfile(os.path.join(start, "__init__.py")):
        parent = os.path.dirname(start)
        if parent == start:
            break
        top, start = parent, parent
    return top


def _index(path: str) -> dict:
    start = os.path.dirname(os.path.abspath(path))
    index = _INDEX.get(start)
    if index is None:
        index = {}
        for f in project_files(path, up=False):
            data = read_regular(f)
            if data is None:
                continue
            names = set(_DEF.findall(data))
            for n in names:
                index.setdefault(n.decode("ascii", "replace"), []).append(f)
        _INDEX[start] = index
    return index


def method_results(analysis, base: Optional[str], meth: str):
    """What `base.meth(...)` returns, read from the project's summaries:
    "cut" (nothing it returns carries a graph), a tuple of "graph"/"cut" per
    element of the tuple it returns (some elements are numbers or indices),
    or None (not known)."""
    if meth in SKIP or analysis.ctx.path in (None, "<string>"):
        return None
    cache = analysis.table("quiet_methods")
    key = (base, meth)
    if key not in cache:
        cache[key] = _results(analysis, base, meth)
    return cache[key]


def project_methods(analysis, base: Optional[str], meth: str, widen: bool = False):
    """The summaries of the `meth` that `base.meth(...)` may run: the imported
    class's, or every project class's that defines it; None when `base` is an
    attribute holding a callable, or `meth` a name every module has."""
    if meth in SKIP or analysis.ctx.path in (None, "<string>"):
        return None
    if base in analysis.names.foreign_instances:
        hit = analysis.foreign_method(base, meth)
        if hit is not None:
            return [hit[0]]
        # `policy = Policy(env, args)`, a function of another file that builds an object of one
        # class of its file or another: each of those classes' `meth` is read
        return _factory_methods(analysis, base, meth)
    if base in (None, "self", "cls") or re.search(rf"\.{meth}\s*=[^=]", analysis.ctx.text or analysis.ctx.module.code):
        # `self.net(x)`, `self.fc = ...`: an attribute that holds a callable, not a method
        return None
    return [s for f in _defining(analysis.ctx.path, meth, widen)
            for _, s in methods_named(summaries_of(f), meth)]


def _factory_methods(analysis, base: str, meth: str) -> list:
    """The summaries of `meth` in the classes that the project function building `base` returns
    (`model = DQNConv(env)` or `model = DQNFC(env)`, then `return model`), all of its file and
    all defining `meth`; [] when not so."""
    import ast

    from .callers import tree_of
    from .project import module_file_up

    func = analysis.names.foreign_instances.get(base)
    qualified = analysis.ctx.imports.qualify(func) if func is not None else None
    here = analysis.project.dir
    if not qualified or "." not in qualified or here is None:
        return []
    parts = qualified.split(".")
    path = module_file_up(here, parts[:-1])
    tree = tree_of(path)[1] if path else None
    fn = [n for n in (tree.body if tree is not None else []) if isinstance(n, ast.FunctionDef) and n.name == parts[-1]]
    if len(fn) != 1:
        return []
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    made: set = set()
    binds: dict = {}
    for n in ast.walk(fn[0]):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                binds.setdefault(t.id if isinstance(t, ast.Name) else None, []).append(n.value)
    for n in ast.walk(fn[0]):
        if not isinstance(n, ast.Return):
            continue
        values = binds.get(n.value.id, []) if isinstance(n.value, ast.Name) else [n.value]
        if not values:
            return []
        for v in values:
            while isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "to":
                v = v.func.value
            if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in classes):
                return []
            made.add(v.func.id)
    found = dict(methods_named(summaries_of(path), meth))
    if not made or any(f"{c}.{meth}" not in found for c in made):
        return []
    return [found[f"{c}.{meth}"] for c in sorted(made)]


def _results(analysis, base, meth):
    # the whole package is searched here (what a method returns, by name): not for self_cut, whose
    # answer would stand for stub_overrides' inference (a class out of the file's folder, unsafe)
    found = project_methods(analysis, base, meth, widen=True)
    if found is None:
        return None
    if not found or any(s.events for s in found):
        return None
    if all(s.no_graph for s in found):
        return "cut"
    arity = {s.arity for s in found}
    if len(arity) != 1 or not all(len(s.elems) == s.arity for s in found) or not found[0].arity:
        return None
    n = arity.pop()
    out = tuple("cut" if all(s.elems[i] in ("cut", "const") for s in found) else "graph" for i in range(n))
    return out if "cut" in out else None


def self_cut(analysis, base: Optional[str], meth: str) -> bool:
    """Does `base.meth(...)` of a project class return none of the module's own
    graph (`evaluate()` that sums `loss.data[0]` values)? Every class that may
    run `meth` must say so (`Summary.self_flow`); what the arguments hand in is
    the caller's to tell."""
    found = project_methods(analysis, base, meth)
    return bool(found) and not any(s.events for s in found) and \
        all(s.self_flow in ("cut", "const") for s in found)
