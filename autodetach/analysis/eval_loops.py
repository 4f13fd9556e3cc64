"""Evaluation functions that run with gradients on.

    def evaluate(model, loader, criterion):      # no backward, no no_grad
        total = 0
        for x, y in loader:
            total += criterion(model(x), y)      # each batch's graph kept
        return total / len(loader)

    val_loss = evaluate(model, val_loader, criterion)   # not under no_grad

A loop with no backward is not a training loop, so the flow analysis does
not look for accumulations in it: usually the function runs under
`torch.no_grad()` somewhere the file does not show. When every call of the
function in this file is outside `no_grad` and none of them backwards what
it returns, the graphs are built and kept for nothing. A module-level
function that no code of its file calls has its callers read from the
project's files that import it by name (`from model.model_pytorch import
predict`). Findings here rest on that inference, made only in a file that
names torch (elsewhere `self.ctx.bindings.lookup(x)` in a loop
would pass for a module call)."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .new_tensors import NEW_TENSORS
from .walk import children, content_parents, nodes, of_types

NO_GRAD = ("torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.set_grad_enabled")
_SKIP = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_ADDS = {"append", "extend", "insert"}
# builtins that only read what they are given: `print(test(model))` cannot backward it
_READERS = {"print", "float", "int", "str", "round", "format"}


def unguarded_evals(analysis) -> dict:
    """FunctionDef -> note (a function giving what was inferred) for such functions."""
    sites = analysis.sites
    imports = analysis.ctx.imports
    # An inference with no backward to lean on: in a file that never names
    # torch, `self.ctx.bindings.lookup(x)` is not a module call, unless the
    # function's callers in other files hand that parameter a network
    # (analysis.caller_networks: `eval_loss([model.module], dev_set)`).
    torch_file = imports.mentions_torch()
    # a function whose backward runs in a function of this file it calls (REINFORCE's `step`, whose
    # `self.actor_learn()` backwards the episode's log-probabilities) trains: it is walked as such
    through = analysis._events_through
    candidates = [fn for fn in sites.functions if not _own_events(fn, sites) and fn not in through and _accumulates(fn)
                  and not any(_is_no_grad(deco.decorator, imports) for deco in fn.decorators)
                  and (torch_file or fn in analysis.ctx.module.body)]
    if not candidates:
        return {}
    # `self.interpolation(data, track_gradient=False)` sets the mode itself
    called = {fn: {(dotted(n.func) or "").rpartition(".")[2] for n in nodes(fn.body, skip=_SKIP)
                   if type(n) is cst.Call} for fn in candidates}
    wanted = set().union(*called.values())  # only functions a candidate calls need the check
    switches = {fn.name.value for fn in sites.functions if fn.name.value in wanted and _switches_grad(fn, imports)}
    candidates = [fn for fn in candidates if not _switches_grad(fn, imports, own=True) and not called[fn] & switches]
    by_name = {fn.name.value: fn for fn in candidates}
    calls: dict = {name: [] for name in by_name}
    _collect_calls(analysis.ctx.module, by_name, calls, imports, analysis.names.classes)
    from .caller_networks import give_roles, local_networks, remote_networks

    out = {}
    table = analysis.names
    for name, fn in by_name.items():
        found = calls[name] if torch_file else []
        if not found:
            # a module-level function called only from other files (`from model.model_pytorch import predict`)
            remote = _remote_calls(analysis.ctx.path, name, package=True) if fn in analysis.ctx.module.body else []
            if remote and not any(guarded or backwarded for _, _, guarded, backwarded, _, _ in remote):
                handed = remote_networks(fn, remote)
                if not torch_file and not handed:
                    continue  # nothing says its calls run networks
                give_roles(table, handed)
                out[fn] = _remote_note(name, remote)
            continue
        if any(guarded or backwarded for _, guarded, backwarded in found):
            continue
        give_roles(table, local_networks(fn, found, table, analysis.ctx.line_of))
        out[fn] = _note(analysis, name, found)
    return out


def _remote_calls(path, name: str, package: bool = False) -> list:
    """(file, line, under no_grad, result backwarded, the ast.Call, the file's
    ast tree) for each call of the module-level function `name` in the
    project's other files that import this file's module by name. Read with
    `ast` through project.text_of. With `package`, the callers are looked for
    in the file's whole package too (`pkg/bin/train.py` calls
    `pkg/evaluators/loss.py`'s function)."""
    import ast
    import os
    import re

    from .callers import parsed_texts, statements
    from .project_index import files_mentioning, package_root

    if not path or path == "<string>" or not os.path.isfile(path):
        return []
    stem = os.path.splitext(os.path.basename(path))[0]
    me = os.path.realpath(path)
    out = []
    others = files_mentioning(path, name.encode())
    if package:
        others += files_mentioning(os.path.join(package_root(path), "_"), name.encode(), up=False)
    seen = {me}
    others = [f for f in others if os.path.realpath(f) not in seen and not seen.add(os.path.realpath(f))]
    # `from pkg.STEM import ...` (STEM and `import` with only blanks between), or `import pkg.STEM`
    pattern = rf"\b{re.escape(stem)}[ \t\\\r\n]*import\b|\bimport[ \t]+[\w.]*\b{re.escape(stem)}\b"
    for f, text, tree in parsed_texts(others, must=stem, pattern=pattern):
        imported = any(isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[-1] == stem and
                       any(a.name == name for a in n.names) for n in statements(tree))
        # `import ais` then `ais.ais_trajectory(...)`: the module's name (or alias) qualifies the call
        modules = {a.asname or a.name for n in statements(tree) if isinstance(n, ast.Import)
                   for a in n.names if a.name.split(".")[-1] == stem}
        if not imported and not modules:
            continue
        _remote_walk(tree, name, f, False, None, out, text.splitlines(), set() if imported else modules, tree)
    return out


def _remote_walk(node, name, f, guarded, owner, out, lines, modules=frozenset(), tree=None) -> None:
    import ast

    if isinstance(node, ast.stmt):
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])  # above a `def`
        if not any(name in line for line in lines[start - 1:node.end_lineno]):
            return  # a call of `name` in the statement would have it in its lines
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        owner = node
        guarded = guarded or any(_ast_no_grad(d) for d in node.decorator_list)
    if isinstance(node, (ast.With, ast.AsyncWith)) and any(_ast_no_grad(i.context_expr) for i in node.items):
        guarded = True
    if isinstance(node, ast.Call) and (isinstance(node.func, ast.Name) and node.func.id == name and not modules or
                                       isinstance(node.func, ast.Attribute) and node.func.attr == name and
                                       ast.unparse(node.func.value) in modules):
        scope = owner if owner is not None else node
        # a backward anywhere in the calling function: its result may be what is backwarded
        backwarded = any(isinstance(n, ast.Attribute) and n.attr in ("backward", "manual_backward")
                         for n in ast.walk(scope))
        out.append((f, node.lineno, guarded, backwarded, node, tree))
    for child in ast.iter_child_nodes(node):
        _remote_walk(child, name, f, guarded, owner, out, lines, modules, tree)


def _ast_no_grad(expr) -> bool:
    import ast

    call = expr.func if isinstance(expr, ast.Call) else expr
    parts = []
    while isinstance(call, ast.Attribute):
        parts.append(call.attr)
        call = call.value
    return bool(parts) and parts[0] in ("no_grad", "inference_mode", "set_grad_enabled")


def _remote_note(name, remote):
    import os

    def note() -> str:
        where = ", ".join(f"{os.path.basename(f)} line {line}" for f, line, *_ in remote[:3])
        return (f"`{name}` runs with gradients on: its calls in other files ({where}) are outside "
                f"`torch.no_grad()` and do not backward its result (read from those files)")
    return note


def _note(analysis, name, found):
    """The note, written only when a finding needs it: line numbers need
    positions, which cost a print of the whole file."""
    def note() -> str:
        lines = ", ".join(str(analysis.ctx.line_of(site)) for site, _, _ in found[:3])
        return (f"`{name}` runs with gradients on: its calls in this file (line {lines}) are outside "
                f"`torch.no_grad()` and do not backward its result (callers in other files are not seen)")
    return note


def _own_events(fn, sites) -> bool:
    """Does `fn` backward or step? A backward only inside a nested def that
    reads none of the names `fn` sums into (`def grad_U(z): return
    autograd.grad(U(z), z)[0]`, handed to a sampler) takes a gradient for
    that def's own use: it cannot consume the sums."""
    if fn not in sites.events_in:
        return False
    if fn in sites.events_here:
        return True
    sums = _accumulated(fn)
    for inner in nodes(fn.body, skip=(cst.ClassDef, cst.Lambda)):
        if type(inner) is cst.FunctionDef and inner in sites.events_in and \
                any(type(n) is cst.Name and n.value in sums for n in nodes(inner)):
            return True
    return False


def _accumulates(fn) -> bool:
    """A loop in `fn` that sums or collects something."""
    return bool(_accumulated(fn))


def _accumulated(fn) -> set:
    """The names a loop in `fn` sums or collects into."""
    out, probes = set(), set()
    for loop in nodes(fn.body, skip=_SKIP):
        if type(loop) is cst.For or type(loop) is cst.While:
            for node in nodes(loop.body, skip=_SKIP):
                if type(node) is cst.AugAssign and type(node.operator) in (cst.AddAssign, cst.SubtractAssign):
                    out.add(_root(node.target))
                if type(node) is cst.Call and type(node.func) is cst.Attribute and \
                        node.func.attr.value in _ADDS:
                    out.add(_root(node.func.value))
                if type(node) is cst.Assign and len(node.targets) == 1 and \
                        isinstance(node.targets[0].target, cst.Name) and not isinstance(node.value, cst.Name) and \
                        node.targets[0].target.value in {x.value for x in nodes(node.value) if type(x) is cst.Name}:
                    out.add(node.targets[0].target.value)  # `result = torch.cat((result, pred))`: rebuilt from itself
                    if _built_here(node.value, loop.body):
                        probes.add(node.targets[0].target.value)
    return out - probes


def _built_here(value, body) -> bool:
    """`out = self.layers[f"conv{i}"](out)` where the loop has just stored a new object there
    (`self.layers[f"conv{i}"] = ConvBlock(out.shape)`): a loop that builds a network and runs a
    probe through each new layer, one forward deep, not a sum over batches."""
    if type(value) is not cst.Call:
        return False
    return any(type(node) is cst.Assign and type(node.value) is cst.Call and
               any(target.target.deep_equals(value.func) for target in node.targets)
               for node in nodes(body, skip=_SKIP))


def _root(expr) -> str:
    """`total` for `total`, `self.stats[k]`'s `self`: the name a closure would read."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else ""


def _switches_grad(fn, imports, own: bool = False) -> bool:
    """Does `fn` set the grad mode somewhere its loops may run? In the loop's
    own function (`own`), a `with torch.no_grad():` around set-up code that
    only makes fresh tensors (`logw = torch.zeros(B)`) does not: the walk sees
    which statements it covers. A function the loop calls switches it wherever it does
    (`with torch.set_grad_enabled(track_gradient):` around its whole body)."""
    setup = set() if not own else {
        id(item.item) for w in nodes(fn, skip=(cst.ClassDef,)) if type(w) is cst.With and _fresh_only(w.body)
        for item in w.items}
    return any((type(n) is cst.Call or type(n) is cst.Decorator) and id(n) not in setup and
               _is_no_grad(n if type(n) is cst.Call else n.decorator, imports)
               for n in nodes(fn, skip=(cst.ClassDef,)))


# what set-up code calls: new tensors, their sizes; a model's forward is no set-up
_FACTORIES = NEW_TENSORS | frozenset({"size", "dim", "numel", "to", "float", "long", "int", "double",
                        "half", "bool", "cuda", "cpu", "mul_", "add_", "fill_", "zero_", "normal_", "uniform_",
                        "view", "reshape", "expand", "repeat", "unsqueeze"})


def _fresh_only(body) -> bool:
    """A block that only makes fresh tensors (`logw = torch.zeros(B)`, `z =
    torch.randn(B, D)`): no loop, no def, and every call a factory or a size.
    `with torch.no_grad(): out = model(x)` guards what is computed from `out`."""
    for n in nodes(body):
        if type(n) in (cst.For, cst.While, cst.FunctionDef):
            return False
        if type(n) is cst.Call and not (type(n.func) is cst.Attribute and n.func.attr.value in _FACTORIES or
                                        type(n.func) is cst.Name and n.func.value in _FACTORIES):
            return False
    return True


def _is_no_grad(expr, imports) -> bool:
    call = expr.func if isinstance(expr, cst.Call) else expr
    return imports.qualify(call) in NO_GRAD


_CALLS = frozenset({cst.Call})


def _collect_calls(module, by_name, calls, imports, classes) -> None:
    """For each call of a candidate (by its name: `f(...)`, `self.f(...)`,
    `Cls.f(...)`): (call, under no_grad, its result backwarded in the caller).
    The calls come from the pass's shared list; only the few that match
    climb their parents (a walk of the whole file per pass cost more)."""
    found = []
    for node in of_types(module, _CALLS):
        key = dotted(node.func) or ""
        base, _, name = key.rpartition(".")
        if name in by_name and (not base or base in ("self", "cls") or base in classes):
            found.append((node, name))
    if not found:
        return
    out = []
    parents = content_parents(module)  # a call's ancestors are never trivia
    for node, name in found:
        owner, guarded, order = None, False, []
        child, cur = node, parents.get(id(node))
        while cur is not None:
            t = type(cur)  # exact types: isinstance on libcst's ABCs is slow here
            if t is cst.FunctionDef:
                owner = owner or cur
                guarded = guarded or any(_is_no_grad(deco.decorator, imports) for deco in cur.decorators)
            elif t is cst.With and any(_is_no_grad(i.item, imports) for i in cur.items):
                guarded = True
            order.append(-next(k for k, c in enumerate(children(cur)) if c is child))
            child, cur = cur, parents.get(id(cur))
        owner = owner or module
        if by_name[name] is not owner:
            # the order of a walk that visits the last child first (the notes name the first calls)
            out.append((tuple(reversed(order)), node, name, guarded, owner))
    out.sort(key=lambda e: e[0])
    for _, node, name, guarded, owner in out:
        calls[name].append((node, guarded, _backwards_result(owner, node, by_name[name])))


def _backwards_result(owner, call, fn) -> bool:
    """Does the caller backward (or return, or pass on) what the call gives?
    Judged by the names the result is bound to (none when the call is a
    statement); anything else counts as yes."""
    owner_nodes = nodes(owner.body if isinstance(owner, cst.FunctionDef) else owner, skip=_SKIP)
    bound = set()
    for node in owner_nodes:
        if type(node) is cst.Expr and _only_read(node.value, call):
            # `test(epoch)` or `print(f"{test(epoch)}")` as a statement: its result is dropped, never backwarded;
            # `self.forward(x)` leaves its result on `self`, where the caller's backward may read it
            return _backwards_state(owner_nodes, fn)
        if type(node) is cst.Assign and node.value is call:
            for target in node.targets:
                bound |= {dotted(x) for x in nodes(target.target) if isinstance(x, (cst.Name, cst.Attribute))}
            break
    else:
        return True  # used inside an expression: not followed
    bound.discard(None)
    for _ in range(2):  # `total = val_loss + reg`: what is computed from the result, too
        for node in owner_nodes:
            if type(node) is cst.Assign and _names(node.value) & bound:
                for target in node.targets:
                    bound |= {dotted(x) for x in nodes(target.target) if isinstance(x, (cst.Name, cst.Attribute))}
        bound.discard(None)
    for node in owner_nodes:
        if type(node) is cst.Call and type(node.func) is cst.Attribute and \
                node.func.attr.value in ("backward", "manual_backward"):
            if _names(node) & bound:
                return True
        if type(node) is cst.Return and node.value is not None and _names(node.value) & bound:
            return True
    return False


def _backwards_state(owner_nodes, fn) -> bool:
    """Does a caller that runs a backward read a `self.X` the called method
    stores (`self.forward(x)` keeps its crops in `self.fake_patch`, and the
    caller's loss is built from them)? Then what the method keeps is what is
    backwarded, not an evaluation's leftovers."""
    stored = {dotted(n.target) for n in nodes(fn) if type(n) is cst.AssignTarget}
    stored = {key for key in stored if key and key.startswith("self.")}
    if not stored or not any(type(n) is cst.Call and type(n.func) is cst.Attribute and
                             n.func.attr.value in ("backward", "manual_backward") for n in owner_nodes):
        return False
    return any(type(n) is cst.Attribute and dotted(n) in stored for n in owner_nodes)


def _only_read(expr, call) -> bool:
    """Is `call` reached in `expr` only through the builtins of _READERS and
    string formatting (`.format`, f-strings, `%`)?"""
    if expr is call:
        return True
    t = type(expr)
    if t is cst.Call:
        func = expr.func
        reads = (type(func) is cst.Name and func.value in _READERS) or \
            (type(func) is cst.Attribute and func.attr.value == "format")
        return reads and any(_only_read(a.value, call) for a in expr.args)
    if t is cst.FormattedString:
        return any(type(p) is cst.FormattedStringExpression and _only_read(p.expression, call) for p in expr.parts)
    if t is cst.BinaryOperation and type(expr.operator) is cst.Modulo and \
            type(expr.left) in (cst.SimpleString, cst.ConcatenatedString):
        right = expr.right
        parts = [e.value for e in right.elements] if type(right) is cst.Tuple else [right]
        return any(_only_read(e, call) for e in parts)
    return False


def _names(expr) -> set:
    return {dotted(x) for x in nodes(expr) if type(x) in (cst.Name, cst.Attribute)}
