"""Driver loops in other project files that run this file's trainer class.

`run.py` builds `model = timegan.TimeGAN(opt, data)` and, in a loop, calls
`model.batch_forward(); model.train_generator(join_train=True);
model.batch_forward(); model.train_embedder(join_train=True)`. Walked alone,
each step method sees graphs another method left on `self` and cannot tell
whether a later one backwards them again. The driver's order says: its calls
of the class's methods (and the loops and `if`s around them) are walked as
`self.m(...)` with `self` an instance of the class. Arguments that are
literals keep their value (`join_train=True` picks the arm); any other is an
unknown value. What the driver does besides is left out, and callers the
project does not show are not seen: a verdict drawn here is an inference
(`Scope.driver_note` says from where)."""
from __future__ import annotations

import ast
import os

import libcst as cst

from .callers import calls_name, parsed, statements
from .project_index import files_mentioning

MAX_DRIVERS = 8


def driver_walks(analysis) -> list:
    """Scopes walking, per driver function found, the calls it makes of a
    class of this file that has a backward."""
    return analysis.memo("_driver_walks", lambda: _walks(analysis))


def driven_methods(analysis) -> dict:
    """FunctionDef of a method -> the driver scopes whose walk ran its events."""
    def build():
        out: dict = {}
        for scope in driver_walks(analysis):
            for e in scope.events:
                fn = analysis.ctx.enclosing(e.call, cst.FunctionDef)
                if fn is not None and scope not in out.setdefault(fn, []):
                    out[fn].append(scope)
        return out
    return analysis.memo("_driven_methods", build)


def _walks(analysis) -> list:
    from .flow import GiveUp, Scope

    ctx = analysis.ctx
    path = getattr(ctx, "path", None)
    if not path or not os.path.isfile(path):
        return []
    sites = analysis.sites
    out = []
    for cls in ctx.module.body:
        if not isinstance(cls, cst.ClassDef):
            continue
        methods = {m.name.value for m in cls.body.body if isinstance(m, cst.FunctionDef)}
        if not any(isinstance(m, cst.FunctionDef) and m in sites.backward_in for m in cls.body.body):
            continue
        name = cls.name.value
        found = 0
        # built here, or by a project function that returns one (`model = CreateModel(opt)`)
        for builder in [name] + _factories(path, name):
            # a script's top level is followed only where a factory builds the object: a top level that
            # builds the class itself is most often a demo or a copy of this file (`train.fixed.py`)
            for caller in _callers(path, builder, top=builder != name):
                for inst in _instances(caller, builder):
                    body = _driver_body(caller.body, inst, methods)
                    if body is None:
                        continue
                    try:
                        scope = Scope(analysis, body, params=["self"], name=f"{caller.name}->{name}")
                        scope.self_class = name
                        scope.driver_keeps = _handed_on(caller, inst)
                        scope.run()
                    except (GiveUp, RecursionError):
                        continue
                    where = "the file's top level" if caller.name == "<module>" else f"`{caller.name}()`"
                    via = "" if builder == name else f" (`{builder}()` returns one)"
                    scope.driver_note = (f"the order of `{name}`'s methods is read from {where} in another file, "
                                         f"which builds `{inst} = {builder}(...)`{via} and calls them; callers "
                                         "out of sight are not followed")
                    out.append(scope)
                    found += 1
                if found >= MAX_DRIVERS:
                    break
    return out


def _factories(path: str, cls: str) -> list:
    """Top-level functions of the project's other files that bind `x = cls(...)`
    and `return x` (or `return cls(...)`): they hand back an object of the class."""
    own = os.path.realpath(path)
    files = [p for p in files_mentioning(path, f"{cls}(".encode()) if os.path.realpath(p) != own]
    out = []
    for _, tree in parsed(files, must=f"{cls}("):
        for fn in tree.body:
            if not isinstance(fn, ast.FunctionDef):
                continue
            bound = {t.id for n in ast.walk(fn) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                     and calls_name(n.value, cls) for t in n.targets if isinstance(t, ast.Name)}
            returns = [n.value for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]
            if returns and all(isinstance(v, ast.Name) and v.id in bound or isinstance(v, ast.Call)
                               and calls_name(v, cls) for v in returns) and fn.name not in out:
                out.append(fn.name)
    return out[:2]


def _callers(path: str, name: str, top: bool = False):
    """Functions of the project's other files that call `name(...)` (and, with
    `top`, their top-level statements that do)."""
    own = os.path.realpath(path)
    files = [p for p in files_mentioning(path, f"{name}(".encode()) if os.path.realpath(p) != own]
    for _, tree in parsed(files, must=f"{name}("):
        for fn in statements(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    any(calls_name(node, name) for node in ast.walk(fn)):
                yield fn
        if not top:
            continue
        # a script's top level (`model = CreateModel(opt)`, then a loop)
        top_level = [st for st in tree.body
                     if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        if any(calls_name(node, name) for st in top_level for node in ast.walk(st)):
            script = ast.Module(body=top_level, type_ignores=[])
            script.name = "<module>"  # driven like a function's body
            yield script


def _instances(fn, cls: str) -> list:
    """Names bound to `cls(...)` (or `mod.cls(...)`) in the function."""
    out = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Name) and func.id == cls or isinstance(func, ast.Attribute) and func.attr == cls:
                if node.targets[0].id not in out:
                    out.append(node.targets[0].id)
    return out


def _handed_on(fn, inst: str) -> bool:
    """Does the driver use `inst` other than through its attributes (`return
    model`, `evaluate(model)`, `self.model = model`)? Then graphs left on it
    outlive the driver."""
    through = {id(node.value) for node in ast.walk(fn) if isinstance(node, ast.Attribute)}
    bound = {id(t) for node in ast.walk(fn) if isinstance(node, ast.Assign) for t in node.targets}
    return any(isinstance(node, ast.Name) and node.id == inst and id(node) not in through and id(node) not in bound
               for node in ast.walk(fn))


def _driver_body(stmts, inst: str, methods: set):
    """The driver's statements kept as libcst: loops, `if`s and the calls of
    `inst.m(...)` for the class's methods, `inst` read as `self`. None when
    no loop calls one of them."""
    lines = _lines(stmts, inst, methods, 0)
    if not any(line.lstrip().startswith(("for ", "while ")) for line in lines):
        return None
    try:
        return list(cst.parse_module("\n".join(lines) + "\n").body)
    except cst.ParserSyntaxError:
        return None


def _lines(stmts, inst, methods, depth) -> list:
    pad = "    " * depth
    out = []
    for st in stmts:
        if isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
            inner = _lines(st.body, inst, methods, depth + 1)
            if inner:
                head = "while _more:" if isinstance(st, ast.While) else "for _ in _calls:"
                out += [pad + head] + inner
        elif isinstance(st, ast.If):
            body = _lines(st.body, inst, methods, depth + 1)
            other = _lines(st.orelse, inst, methods, depth + 1)
            if body or other:
                out += [pad + "if _test:"] + (body or [pad + "    pass"])
                if other:
                    out += [pad + "else:"] + other
        elif isinstance(st, (ast.With, ast.AsyncWith, ast.Try)):
            out += _lines(st.body, inst, methods, depth)
        else:
            call = _method_call(st, inst, methods)
            if call is not None:
                out.append(pad + call)
    return out


def _method_call(st, inst, methods):
    value = st.value if isinstance(st, (ast.Expr, ast.Assign)) else None
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
        return None
    func = value.func
    if not (isinstance(func.value, ast.Name) and func.value.id == inst and func.attr in methods):
        return None
    args = [_arg(a) for a in value.args if not isinstance(a, ast.Starred)]
    args += [f"{kw.arg}={_arg(kw.value)}" for kw in value.keywords if kw.arg]
    text = f"self.{func.attr}({', '.join(args)})"
    return text if isinstance(st, ast.Expr) else f"_ = {text}"


def _arg(node) -> str:
    """A literal as written; anything else an unknown name."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float, str, type(None))):
        return repr(node.value)
    return "_arg"
