"""Recurrent state kept on a module between calls, read from other files.

`model = RecurrentGCN()` whose `__init__` builds `self.recurrent =
EvolveGCNH(...)`, a class of another file of the project whose forward does
`_, self.weight = self.gru(x, self.weight)`: each `model(...)` reads the
state the previous call stored and stores new state that hangs from this
call's graph. The flow walk keeps that state under the key
`model.recurrent.weight`, so a loop that never cuts it shows up as AD106.

Facts about other files come from their stdlib-`ast` summaries
(`summaries.class_state`); nothing here parses with libcst."""
from __future__ import annotations

import os

import libcst as cst

from ..imports import dotted
from .walk import class_methods, nodes

WRAPPERS = ("to", "cuda", "cpu", "train", "double", "float", "half")


def module_states(analysis, key) -> tuple:
    """((attr path under `key`, file it was read from, reset methods), ...)
    for a module `key` built from a class that keeps recurrent state."""
    cache = analysis.table("_module_states")
    if key in cache:
        return cache[key]
    cache[key] = ()
    out = []
    found = analysis.foreign_method(key, "forward")
    if found is not None:
        summary, path = found
        out = [(attr, path, resets) for attr, resets in summary.state]
    else:
        out = _wrapped(analysis, analysis.names.instances.get(key))
    cache[key] = tuple(out)
    return cache[key]


def _wrapped(analysis, cls) -> list:
    """A local Module class whose forward calls `self.sub(...)`, with
    `self.sub = Foreign(...)` in `__init__` and Foreign keeping state."""
    names = analysis.names
    if cls is None or cls not in names.module_classes:
        return []
    init, fwd = names.methods.get((cls, "__init__")), names.methods.get((cls, "forward"))
    if init is None or fwd is None:
        return []
    called = {dotted(n.func) for n in nodes(fwd) if type(n) is cst.Call}
    out = []
    for node in nodes(init):
        if type(node) is not cst.Assign or len(node.targets) != 1:
            continue
        target = dotted(node.targets[0].target)
        call = node.value
        while isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value in WRAPPERS:
            call = call.func.value
        if target is None or not target.startswith("self.") or target not in called or \
                not isinstance(call, cst.Call) or dotted(call.func) in names.classes:
            continue
        qualified = analysis.ctx.imports.qualify(call.func)
        found = analysis.project.method(qualified, "forward") if qualified else None
        if found is not None:
            summary, path = found
            out += [(f"{target[5:]}.{attr}", path, resets) for attr, resets in summary.state]
    return out


def state_resets(analysis) -> dict:
    """Dotted calls that reset a module's state (`model.recurrent.reinitialize_weight`)
    -> the state key they reset."""
    return analysis.memo("_state_resets", lambda: _find_state_resets(analysis))


def _find_state_resets(analysis) -> dict:
    out = {}
    names = analysis.names
    keys = list(names.foreign_instances) + [k for k, cls in names.instances.items() if cls in names.module_classes]
    for key in keys:
        for attr, _, resets in module_states(analysis, key):
            owner = f"{key}.{attr}".rpartition(".")[0]
            for reset in resets:
                out[f"{owner}.{reset}"] = f"{key}.{attr}"
    return out


def describe(node) -> str:
    """What the report says it inferred about a module-held state node."""
    module, attr, path = node.module_state
    return (f"`{module}(...)` keeps `{attr}` between calls (read from {os.path.basename(path)}: its forward "
            f"feeds `self.{attr.split('.')[-1]}` back into a recurrent layer and stores the new state there)")


def forward_states(analysis) -> list:
    """(class, statement, key, call, uncalled) in this file: a Module's forward that
    feeds `self.X` into a recurrent layer of the module and stores the new
    state in `self.X` (`out, self.hidden = self.lstm(x, self.hidden)`), with
    nothing in the class cutting or resetting it; `uncalled`: methods that set
    `self.X` but that nothing in the project calls outside `__init__`
    (`init_hidden` run once at construction), so they reset nothing. The loop that calls the
    module is elsewhere, so whether the caller resets the state per batch is
    not known: the rule says so."""
    names = analysis.names
    out = []
    if not any(k.startswith("self.") for k in names.recurrent):
        return out  # no recurrent layer kept on a module in this file
    for cls in analysis.ctx.module.body:
        if not isinstance(cls, cst.ClassDef) or cls.name.value not in names.module_classes:
            continue
        methods = class_methods(cls)
        fwd = methods.get("forward")
        if fwd is None:
            continue

        def layer_call(value) -> bool:
            key = dotted(value.func) if isinstance(value, cst.Call) else None
            return key is not None and key.startswith("self.") and key in names.recurrent and key not in names.cells

        for node in nodes(fwd):
            if not isinstance(node, cst.Assign) or not layer_call(node.value):
                continue
            reads = {dotted(x) for arg in node.value.args for x in nodes(arg.value)
                     if isinstance(x, (cst.Attribute, cst.Name))}
            for target in node.targets:
                for part in [target.target] + [e.value for e in getattr(target.target, "elements", ())]:
                    key = dotted(part)
                    if key is None or not key.startswith("self.") or key not in reads:
                        continue
                    uncalled = []

                    def called(name, uncalled=uncalled):
                        if _called(analysis, methods, name):
                            return True
                        uncalled.append(name)
                        return False

                    if _cut_or_reset(cls, methods, fwd, key, layer_call, called):
                        continue
                    stmt = node
                    out.append((cls, stmt, key, node.value, tuple(uncalled)))
    return out


def _cut_or_reset(cls, methods, fwd, key, layer_call, called=lambda name: True) -> bool:
    for name, method in methods.items():
        for node in nodes(method):
            if isinstance(node, cst.Assign) and any(dotted(x) == key for t in node.targets
                                                 for x in [t.target] + [e.value for e in
                                                                        getattr(t.target, "elements", ())]):
                if name == "__init__" or method is not fwd and not called(name):
                    continue  # set once: `__init__`, or an `init_hidden` that only `__init__` calls
                if method is not fwd or not layer_call(node.value):
                    return True  # reset by a method, or cut in forward
            if isinstance(node, cst.Attribute) and node.attr.value in ("detach", "detach_") and \
                    any(dotted(x) == key for x in nodes(node.value) if isinstance(x, cst.Attribute)):
                return True
    return False


def _called(analysis, methods, name: str) -> bool:
    """Whether anything may call method `name` of the class other than its
    `__init__`. Only the constructor's initialiser (`self.init_hidden(b)` in
    `__init__`) can be shown to run once: any other method is a reset offered
    to callers, perhaps the library's users. For the initialiser: a call
    `x.name(...)` elsewhere in this file, or a file of the project that names
    `.name(` or the string `"name"` (getattr). A project too large to list
    counts as calling it."""

    from .project_index import MAX_FILES, files_mentioning, package_root, project_files

    init = methods.get("__init__")
    inside = {id(n) for n in nodes(init)} if init is not None else set()
    if init is None or not any(type(n) is cst.Call and isinstance(n.func, cst.Attribute) and
                               n.func.attr.value == name and dotted(n.func.value) == "self" for n in nodes(init)):
        return True  # not the constructor's initialiser: a reset offered to callers (maybe the library's users)
    for node in nodes(analysis.ctx.module):
        if type(node) is cst.Call and isinstance(node.func, cst.Attribute) and node.func.attr.value == name and \
                id(node) not in inside:
            return True
    path = analysis.ctx.path
    if not path or not os.path.isfile(path):
        return True  # no project to look through: assume a caller
    anchor = os.path.join(package_root(path), "_")
    if len(project_files(anchor, up=False)) >= MAX_FILES:
        return True
    own = os.path.realpath(path)
    for f in files_mentioning(anchor, name.encode(), up=False):
        if os.path.realpath(f) != own and _calls_outside_init(f, name):
            return True
    return False


def _calls_outside_init(path: str, name: str) -> bool:
    """A file that calls `x.name(...)`, or names the string `"name"` (getattr),
    outside an `__init__` (a copy of the class, or a subclass's constructor,
    calls it there); a file that cannot be read or parsed counts as calling it."""
    import ast

    try:
        with open(path, "rb") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return True

    def walk(node, in_init) -> bool:
        for child in ast.iter_child_nodes(node):
            inner = in_init or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and child.name == "__init__"
            if not inner and (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and
                              child.func.attr == name or
                              isinstance(child, ast.Constant) and child.value == name):
                return True
            if walk(child, inner):
                return True
        return False

    return walk(tree, False)
