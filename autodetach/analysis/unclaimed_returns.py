"""Does anyone backward again what a one-backward function returns?

    class GradCAM:                        # a plain class: torch does not call it
        def forward(self, x, idx):
            logit = self.model(x)         # a forward built anew by each call
            logit[:, idx].sum().backward(retain_graph=True)   # its only backward
            cam = (self.grads * self.acts).sum(1).data
            return cam, logit             # `logit` carries the graph out
        def __call__(self, x, idx):
            return self.forward(x, idx)

The graph leaves the function by its return, which makes the retain look
needed: a caller might backward `logit` again. A careful reader asks who
calls it. The project's calls are found through the project index: calls of
a module-level function by its name, and for a method the instances of its
class the project builds (`cam = GradCAM(net)`, then `cam(x, 3)` or
`cam.forward(x, 3)` in the same function). When every one of them drops
what it gets or reads it only through a cut, a number or a log
(dropped_results), no caller backwards it; when the project builds no
instance and calls the function nowhere (library code, a notebook's
helper), that no caller does is inferred and said. Either way the verdict
is an inference (code out of sight may call it): the fix is unsafe.

Not judged here (None): a function with a second backward or grad, a
generator, one that returns the very loss it backwards (a training step:
dropped_results judges it at its callers), a method of a class built on
anything but `object` and plain classes of its file (an `nn.Module`'s
forward is run by `model(x)` inside training code that may backward the
output), a nested function, and any instance or reference the project
hands on as a value (its calls are out of sight) or any call whose result
is kept. Read with stdlib `ast` (callers.py) at the call sites."""
from __future__ import annotations

import ast
import os
from typing import Optional

import libcst as cst

from ..imports import dotted
from .callers import mentioning_trees
from .dropped_results import _dropped as _plain_drop, _logged, _own_nodes, _plain_class, _target_names
from .dropped_results import calls_drop, dropping_calls
from .flow import nodes


def unclaimed_return(analysis, ev, own) -> Optional[list]:
    """Notes (inferences) when the graph of `ev` leaves its function only to
    callers that do not backward it, or to no caller the project has; None
    when the analysis cannot tell."""
    from .retained import _caller_graphs

    ctx = analysis.ctx
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is not None and ctx.path and ctx.path.endswith(".ipynb"):
        return _notebook_return(analysis, ev, own, fn)
    if fn is None or not ctx.path or not ctx.path.endswith(".py") or not os.path.isfile(ctx.path):
        return None
    if any(ctx.encloses(fn, lp) for lp in ev.loops) and _caller_graphs(analysis, ev, own):
        return None  # each iteration walks again the graph a tensor argument brought in (max-sliced distances)
    if _backwards(fn) != 1 or any(isinstance(x, (cst.Yield,)) for x in nodes(fn.body)):
        return None  # a second backward may walk the graph; a generator hands values out as it goes
    if _returns_target(fn, ev):
        return None  # a step returning its loss: judged at its callers (dropped_results)
    holder = ctx.enclosing(fn, (cst.FunctionDef, cst.ClassDef))
    name = fn.name.value
    memo = analysis.table("_unclaimed_return")
    key = (id(fn),)
    if key in memo:
        return memo[key]
    if holder is None:
        found = _function_callers(ctx.path, name)
    elif isinstance(holder, cst.ClassDef) and _plain_class(ctx, holder, 0, modules=False):
        found = _instance_callers(ctx, holder, name)
    else:
        found = None
    memo[key] = found
    return found


def _notebook_return(analysis, ev, own, fn) -> Optional[list]:
    """A function of a notebook (no other file imports a notebook: its callers are its
    cells) that backwards once and returns part of that graph (a C&W attack returning
    its best adversarial image): when no other cell, and no other function of the
    notebook, runs a backward or grad, nothing walks the returned graph again, whoever
    receives it. A module-level function only; unsafe, a cell run by hand later is not
    seen."""
    from .retained import _caller_graphs

    ctx = analysis.ctx
    if ctx.enclosing(fn, (cst.FunctionDef, cst.ClassDef)) is not None or _backwards(fn) != 1 \
            or any(isinstance(x, cst.Yield) for x in nodes(fn.body)) or _returns_target(fn, ev):
        return None
    # a flag (`target=False`, the callers pass `target=True`) is no tensor: it brings in no graph
    flags = {p.name.value for p in fn.params.params + fn.params.kwonly_params
             if p.default is not None and dotted(p.default) in ("True", "False")}
    if any(ctx.encloses(fn, lp) for lp in ev.loops) and _caller_graphs(analysis, ev, own, skip=flags):
        return None  # each iteration walks again the graph a tensor argument brought in
    if _backwards(ctx.module) != 1:
        return None  # another backward of the notebook may receive the returned graph
    return [f"`{fn.name.value}()` returns part of the graph it backwards, and the notebook runs no other "
            "backward or grad: nothing walks it again (a cell run by hand later is not seen)"]


def _backwards(fn) -> int:
    """The `x.backward(...)` and `autograd.grad(...)` calls of `fn` (or of a module),
    nested functions included."""
    count = 0
    for c in nodes(fn.body if isinstance(fn, cst.FunctionDef) else fn):
        if type(c) is not cst.Call:
            continue
        func = c.func
        if isinstance(func, cst.Attribute) and func.attr.value == "backward":
            count += 1
        elif (dotted(func) or "").endswith("autograd.grad") or dotted(func) == "grad":
            count += 1
    return count


def _returns_target(fn, ev) -> bool:
    """Does a `return` of `fn` name the backwarded loss itself (`return loss` after
    `loss.backward()`)? A loss the call builds inline (`logits[:, k].sum().backward()`)
    is not a value the function can return."""
    func = ev.call.func
    target = func.value if isinstance(func, cst.Attribute) and func.attr.value == "backward" else None
    if target is None and ev.call.args:
        target = ev.call.args[0].value
    if target is None:
        return True
    if not isinstance(target, cst.Name):
        return not isinstance(target, (cst.Call, cst.Subscript, cst.Attribute))
    return any(isinstance(r, cst.Return) and r.value is not None and
               any(isinstance(x, cst.Name) and x.value == target.value for x in nodes(r.value))
               for r in nodes(fn.body))


def _function_callers(path: str, name: str) -> Optional[list]:
    """Module-level `name`: each reference in the project must be a call that drops the result."""
    found = dropping_calls(path, name, _dropped, skip_stores=True)
    return None if found is None else _notes(f"`{name}()`", *found)


def _instance_callers(ctx, cls, name: str) -> Optional[list]:
    """A method `name` of the plain class `cls`: the project's instances of the class
    and of its subclasses in this file, each bound to a name whose calls (`cam(x)`,
    `cam.forward(x)`, or of a method returning `self.<name>(...)` such as `__call__`)
    must drop the result; the class's own calls of `self.<name>` must either be such a
    `return` or drop the result too."""
    family = {cls.name.value} | _subclasses(ctx, cls.name.value) | _bases(ctx, cls)
    sites, logged = [], []
    via = _via(ctx.path, family, name, sites, logged)
    if via is None:
        return None
    for cname in sorted({cls.name.value} | _subclasses(ctx, cls.name.value)):
        for file, tree, parents in mentioning_trees(ctx.path, cname):
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and os.path.realpath(file) != os.path.realpath(ctx.path) \
                        and any(cname in ast.unparse(b) for b in node.bases):
                    return None  # a subclass of another file: its instances are not followed
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                if not (isinstance(func, ast.Name) and func.id == cname or
                        isinstance(func, ast.Attribute) and func.attr == cname):
                    continue
                up = parents.get(id(node))
                if not (isinstance(up, ast.Assign) and len(up.targets) == 1 and isinstance(up.targets[0], ast.Name)):
                    return None  # stored or handed on: its calls are out of sight
                if _instance_uses(up, up.targets[0].id, via, parents, file, sites, logged) is None:
                    return None
    return _notes(f"`{cls.name.value}.{name}()`", sites, logged)


def _via(path, family, name, sites, logged):
    """The methods whose calls reach `name` and hand on its result: `name`, and those of the
    class family returning `self.<name>(...)`; None when one of the family's calls of
    `self.<name>` keeps the result (it may backward it again)."""
    via = {name}
    for file, tree, parents in mentioning_trees(path, name):
        if os.path.realpath(file) != os.path.realpath(path):
            continue
        for c in ast.walk(tree):
            if not (isinstance(c, ast.ClassDef) and c.name in family):
                continue
            for call in ast.walk(c):
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                        and call.func.attr == name and isinstance(call.func.value, ast.Name)
                        and call.func.value.id == "self"):
                    continue
                up = parents.get(id(call))
                if isinstance(up, ast.Return):
                    fn = up
                    while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        fn = parents.get(id(fn))
                    if fn is None:
                        return None
                    via.add(fn.name)
                elif _dropped(call, parents, logged):
                    sites.append(f"{os.path.basename(file)}:{call.lineno}")
                else:
                    return None
    return via


def _instance_uses(assign, var, via, parents, file, sites, logged):
    """The reads of `var` (an instance) in the function or module that binds it; None when one
    hands it on or keeps what a call of `via` returns."""
    scope = assign
    while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        scope = parents.get(id(scope))
    if scope is None:
        return None
    for use in ast.walk(scope):
        if not (isinstance(use, ast.Name) and use.id == var and isinstance(use.ctx, ast.Load)):
            continue
        parent = parents.get(id(use))
        if isinstance(parent, ast.Call) and parent.func is use:
            call = parent if "__call__" in via else None
        elif isinstance(parent, ast.Attribute) and isinstance(parents.get(id(parent)), ast.Call) \
                and parents.get(id(parent)).func is parent:
            call = parents.get(id(parent)) if parent.attr in via else None
        else:
            return None  # the instance handed on or read otherwise
        if call is None:
            continue  # another method of the instance, which does not reach `name`
        if not _dropped(call, parents, logged):
            return None
        sites.append(f"{os.path.basename(file)}:{call.lineno}")
    return True


def _bases(ctx, cls) -> set:
    classes = {c.name.value: c for c in ctx.module.body if isinstance(c, cst.ClassDef)}
    out, todo = set(), [cls]
    while todo:
        cur = todo.pop()
        for b in cur.bases:
            key = dotted(b.value)
            if key in classes and key not in out:
                out.add(key)
                todo.append(classes[key])
    return out


def _subclasses(ctx, name: str) -> set:
    out, todo = set(), [name]
    while todo:
        cur = todo.pop()
        for c in ctx.module.body:
            if isinstance(c, cst.ClassDef) and c.name.value not in out and \
                    any(dotted(b.value) == cur for b in c.bases):
                out.add(c.name.value)
                todo.append(c.name.value)
    return out


_NUMBERS = ("float", "int", "bool", "str")
# `.grad` of a tensor: a gradient, which carries no graph of the value
_CUT_LINKS = ("item", "detach", "tolist", "data", "numpy", "grad")


def _dropped(call, parents, logged: list) -> bool:
    """dropped_results' test, where a read of a bound name may also be a chain of calls
    that ends in a cut (`heat.sum().item()`, `out.argmax(1).tolist()`): a number, no graph."""
    if _plain_drop(call, parents, logged):
        return True
    up = parents.get(id(call))
    names = _target_names(up.targets[0]) if isinstance(up, ast.Assign) and len(up.targets) == 1 else None
    if not names:
        return False
    fn = up
    while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        fn = parents.get(id(fn))
    if fn is None:
        return False
    for name in names:
        for node in _own_nodes(fn, name):
            if isinstance(node, ast.Name) and node.id == name != "_" and isinstance(node.ctx, ast.Load) \
                    and not _read_as_number(node, parents, logged):
                return False
    return True


def _read_as_number(node, parents, logged) -> bool:
    """Is this read of a tensor turned into a number or text before anything keeps it?"""
    cur, up = node, parents.get(id(node))
    while True:
        if isinstance(up, ast.Attribute) and up.value is cur:
            if up.attr in ("backward", "requires_grad_", "retain_grad"):
                return False
            if up.attr in _CUT_LINKS:
                return True
        elif isinstance(up, ast.Subscript) and up.value is cur:
            pass
        elif isinstance(up, ast.Call) and up.func is cur:
            pass
        elif isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in _NUMBERS:
            return True
        elif isinstance(up, ast.Compare) or isinstance(up, ast.FormattedValue):
            return True
        else:
            if cur is node and _logged(node, up, parents):
                logged.append(node.id)
                return True
            return False
        cur, up = up, parents.get(id(up))


def _notes(owner: str, sites: list, logged: list) -> list:
    if not sites:
        return [f"the graph leaves {owner} by its return, and no code of the project calls it (library "
                f"code): that its callers do not backward what it returns is inferred"]
    return [calls_drop(owner, sites, logged)]
