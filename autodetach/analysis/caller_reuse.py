"""Do the callers backward again what a function's retained graph was built on?

    def update_encoding(self, z):                # aae_training.py
        loss_e = -self.D_z(z).mean()
        loss_e.backward(retain_graph=True)

    z = self.Q(images)                           # train.py, a subclass's step
    self.update_encoding(z)
    loss = recon(self.P(z), images)
    loss.backward()                              # walks the encoder's graph again

Inside `update_encoding` nothing uses the graph after the backward, but `z`
is the caller's, and the caller's own backward walks the part of the graph
`z` hangs from: the retain is what lets it run. The project's calls of the
function are read with stdlib `ast` (files that mention its name): a value
handed in for an argument the loss reads, followed through the caller's
assignments (in any order, so a loop's next iteration counts too, and not
through a cut such as `.detach()` or `.item()`), that reaches the target of
a backward of the caller makes the retain needed. So does one the caller hands on to another function
of its file that backwards a loss built from it (gantts' `train_loop`:
`update_discriminator(..., y_hat_static, ...)` retains, then
`update_generator(..., y_hat_static, ...)` backwards `loss_g`, built from
`y_hat_static`: the discriminator's retain is what lets that pass walk the
generator's graph again)."""
from __future__ import annotations

import ast
import os

import libcst as cst

from .callers import arguments, callers_in
from .summaries import _dotted as _key

_CUTS = ("detach", "item", "tolist", "numpy", "cpu_numpy")
# names whose calls found by name are mostly torch's own (`loss.backward()`, `opt.step()`)
_COMMON = {"backward", "forward", "step", "zero_grad", "__call__", "__init__", "train", "update"}
_BACKWARDS = ("backward", "manual_backward")


def callers_reuse(analysis, fn: cst.FunctionDef, params: set, skip=None) -> bool:
    """Does a project call of `fn` pass, for one of `params`, a value that a
    later backward of that caller reaches? `skip(caller, calls)` leaves out
    callers that cannot reach `fn` (dispatch.unreachable_callers)."""
    ctx = analysis.ctx
    if not params or not ctx.path or not os.path.isfile(ctx.path):
        return False
    name = fn.name.value
    order = [p.name.value for p in fn.params.params]
    if order and order[0] in ("self", "cls"):
        order = order[1:]
    memo = analysis.table("_callers_reuse")
    # `skip` depends on `fn` (which of the same-named methods its callers can reach): so does the verdict
    key = (name, tuple(order), frozenset(params), ctx.line_of(fn) if skip is not None else None)
    if key not in memo:
        memo[key] = _reuse(ctx.path, name, order, params, skip)
    return memo[key]


def _reuse(path: str, name: str, order: list, params: set, skip=None, depth: int = 0) -> bool:
    for tree, caller, calls in callers_in(path, name, also=(path,)):
        if skip is not None and skip(caller, calls):
            continue
        if _caller_reuses(caller, calls, order, params) or \
                _handed_to_backward(tree, caller, calls, order, params, name):
            return True
        # `pc_backward(self, objectives)` hands its own argument on to `_pack_grad(objectives)`:
        # its callers' backwards count too (`optimizer.pc_backward(losses)`, then `sum(losses).backward()`)
        handed = _handed_params(caller, calls, order, params)
        if handed and depth < 3 and caller.name != name and caller.name not in _COMMON:
            mine = [a.arg for a in caller.args.args]
            if mine and mine[0] in ("self", "cls"):
                mine = mine[1:]
            if _reuse(path, caller.name, mine, handed, None, depth + 1):
                return True
    return False


def _seeds(calls: list, order: list, params: set) -> set:
    seeds: set = set()
    for call in calls:
        args = arguments(call, order)
        for param in params:
            if param in args:
                seeds |= _reads(args[param])
    return seeds


def _handed_params(caller, calls: list, order: list, params: set) -> set:
    """The caller's own parameters that the values it hands in for `params` read."""
    own = {a.arg for a in caller.args.args + caller.args.kwonlyargs} - {"self", "cls"}
    seeds, deps, seen = list(_seeds(calls, order, params)), _deps(caller), set()
    while seeds:
        key = seeds.pop()
        if key not in seen:
            seen.add(key)
            seeds.extend(deps.get(key, ()))
    return seen & own


def _caller_reuses(caller, calls: list, order: list, params: set) -> bool:
    seeds = _seeds(calls, order, params)
    return bool(seeds) and _backwards_param(caller, seeds)


def _handed_to_backward(tree, caller, calls: list, order: list, params: set, name: str) -> bool:
    """Does the caller hand what it passes for `params` (or a value computed
    from it, not through a cut) to another function of its file, whose
    backward reaches the parameter that receives it?"""
    if any(isinstance(a, ast.Starred) for call in calls for a in call.args):
        return False  # `f(*transition)`: which argument is which is not known
    deps = _deps(caller)
    # only values the caller computes (`fake = G(z)`): a loop's batch or the caller's own argument is data
    # here (one handed on is followed through the caller's callers, by _reuse)
    seeds = {key for key in _seeds(calls, order, params) if key in deps}
    if not seeds:
        return False
    defs = _functions(tree)
    arms = _arms(caller)
    for call in ast.walk(caller):
        if not isinstance(call, ast.Call) or call in calls or any(isinstance(a, ast.Starred) for a in call.args):
            continue
        if all(_apart(arms, call, mine) for mine in calls):
            continue  # `if algo == "a": a_update(x) elif ...: b_update(x)`: never both in one run
        if all((call.lineno, call.col_offset) < (mine.lineno, mine.col_offset) for mine in calls):
            continue  # the critic step before the generator's: its backward ran before the retain
        func = call.func
        callee = func.id if isinstance(func, ast.Name) else \
            func.attr if isinstance(func, ast.Attribute) and _key(func.value) in ("self", "cls") else None
        target = defs.get(callee) if callee and callee != name and callee not in _COMMON else None
        if target is None:
            continue
        mine = [a.arg for a in target.args.args]
        if mine and mine[0] in ("self", "cls"):
            mine = mine[1:]
        reached = {param for param, arg in arguments(call, mine).items() if _reaches(_reads(arg), deps, seeds)}
        if reached and _backwards_param(target, reached):
            return True
    return False


def _arms(fn) -> dict:
    """id(node) -> ((id of an `if`, which arm), ...) for the nodes of `fn` inside `if` arms."""
    out: dict = {}

    def walk(node, path):
        out[id(node)] = path
        if isinstance(node, ast.If):
            walk(node.test, path)
            for arm, body in ((0, node.body), (1, node.orelse)):
                for child in body:
                    walk(child, path + ((id(node), arm),))
            return
        for child in ast.iter_child_nodes(node):
            walk(child, path)

    walk(fn, ())
    return out


def _apart(arms: dict, a, b) -> bool:
    """Are `a` and `b` in different arms of one `if`?"""
    mine = dict(arms.get(id(a), ()))
    return any(key in mine and mine[key] != arm for key, arm in arms.get(id(b), ()))


def _functions(tree) -> dict:
    """Name -> the file's module-level functions and its classes' methods
    (a name defined twice is left out: which one a call runs is not known)."""
    out: dict = {}
    twice = set()
    for node in tree.body if tree is not None else ():
        for fn in [node] + (list(node.body) if isinstance(node, ast.ClassDef) else []):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if fn.name in out:
                    twice.add(fn.name)
                out[fn.name] = fn
    return {k: v for k, v in out.items() if k not in twice}


def _backwards_param(fn, params: set) -> bool:
    """Does a backward in `fn` reach one of `params` (its parameters, or names
    it binds) through its assignments?"""
    deps = _deps(fn)
    return any(_reaches(_reads(target), deps, params)
               for target in map(_backward_target, ast.walk(fn)) if target is not None)


def _reaches(start, deps: dict, keys: set) -> bool:
    """Do the names `start` read, followed back through `deps`, reach one of `keys`?"""
    todo, seen = list(start), set()
    while todo:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        if key in keys:
            return True
        todo.extend(deps.get(key, ()))
    return False


def _deps(fn) -> dict:
    """name -> names its assigned values read, over the whole function."""
    out: dict = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        reads = _reads(value)
        for target in targets:
            for key in _targets(target):
                out.setdefault(key, set()).update(reads)
                if isinstance(node, ast.AugAssign):
                    out[key].add(key)
    return out


def _targets(target) -> list:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [k for elt in target.elts for k in _targets(elt)]
    if isinstance(target, ast.Starred):
        return _targets(target.value)
    if isinstance(target, ast.Subscript):
        return _targets(target.value)  # `losses["d"] = ...` adds to `losses`
    key = _key(target)
    return [key] if key else []


def _reads(expr) -> set:
    """Names and `self.x` attributes an expression reads, not through a cut."""
    out: set = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CUTS:
            continue  # `z.detach()`: no graph from z
        if isinstance(node, ast.Attribute) and node.attr in ("data", "shape"):
            continue
        if isinstance(node, (ast.Lambda, ast.FunctionDef)):
            continue
        key = _key(node)
        if key is not None and key not in ("self", "cls"):
            out.add(key)  # `self.z` and, below it, nothing of `self` alone
        stack.extend(ast.iter_child_nodes(node))
    return out


def _backward_target(call):
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _BACKWARDS:
        if func.attr == "backward" and not call.args:
            return func.value  # loss.backward()
        if func.attr == "backward" and isinstance(func.value, ast.Name) and func.value.id != "self":
            return func.value  # loss.backward(gradient)
        return call.args[0] if call.args else func.value  # accelerator.backward(loss)
    if isinstance(func, ast.Attribute) and func.attr == "grad" and _key(func.value) in ("torch.autograd", "autograd"):
        return call.args[0] if call.args else None
    return None
