"""Objects whose class is chosen at run time: `find_class(name)(...)`,
`MODELS[name](...)`, `getattr(models, name)(...)`, a same-file function that
returns one (`create_model(opt)`), or a factory imported from another file
of the project. `obj.train_step(...)` on such an object is looked up among
the project's classes that define the method (analysis.project_index); what
they do is then an inference the findings name."""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Optional

import libcst as cst

from ..imports import dotted
from .tensor_methods import TENSOR_ONLY
from .walk import nodes


OPTIMIZER_METHODS = {"step", "zero_grad", "backward"}  # a scheduler or optimizer from a factory


def _dynamic(call) -> bool:
    return isinstance(call, cst.Call) and isinstance(call.func, (cst.Call, cst.Subscript))


def _returns_dynamic(fn) -> bool:
    bound = set()
    rets = []
    for n in nodes(fn):
        if type(n) is cst.Assign and _dynamic(n.value):
            bound.update(dotted(t.target) for t in n.targets)
        elif type(n) is cst.Return and n.value is not None:
            rets.append(n.value)
    return bool(rets) and any(_dynamic(r) or dotted(r) in bound for r in rets)


def _assigns(body):
    """The assignments among the statements of `body` and of the blocks inside
    them (statements only: expressions are not walked)."""
    stack = list(body)
    while stack:
        st = stack.pop()
        if isinstance(st, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            yield from (s for s in st.body if isinstance(s, cst.Assign))
            continue
        parts = [getattr(st, field, None) for field in ("body", "orelse", "finalbody")] + \
            list(getattr(st, "handlers", ()))
        for part in parts:
            if isinstance(part, cst.If):
                stack.append(part)  # elif
            elif isinstance(part, cst.BaseSuite):
                stack.extend(part.body)
            elif part is not None and isinstance(getattr(part, "body", None), cst.BaseSuite):
                stack.extend(part.body.body)  # else, finally, except


def runtime_objects(analysis) -> dict:
    """key -> the code that builds it, for objects of a class chosen at run time."""
    return analysis.memo("_runtime_objects", lambda: _find_runtime_objects(analysis))


def _find_runtime_objects(analysis) -> dict:
    names = analysis.names
    out: dict = {}
    for n in _assigns(analysis.ctx.module.body):
        if len(n.targets) != 1 or not isinstance(n.value, cst.Call):
            continue
        key = dotted(n.targets[0].target)
        if key is None or key in names.instances or key in names.foreign_instances or names.is_module(key):
            continue
        call = n.value
        func = dotted(call.func)
        if _dynamic(call):
            out[key] = analysis.ctx.code(call.func)
        elif func in names.functions and _returns_dynamic(names.functions[func]):
            out[key] = f"{func}(...)"
        elif func is not None and not func[:1].isupper() and func not in names.functions and \
                analysis.project_summary(analysis.ctx.imports.qualify(call.func), func) is not None:
            out[key] = f"{func}(...)"  # a factory in another file of the project
    return out


def handed_objects(analysis) -> dict:
    """key -> how, for `self.agent = agent` in `__init__`, `agent` a parameter
    whose class the caller chooses (not a module, optimizer or known class)."""
    return analysis.memo("_handed_objects", lambda: _find_handed(analysis))


def _find_handed(analysis) -> dict:
    names = analysis.names
    out: dict = {}
    for cls in analysis.ctx.module.body:
        if not isinstance(cls, cst.ClassDef):
            continue
        init = next((m for m in cls.body.body if isinstance(m, cst.FunctionDef) and m.name.value == "__init__"), None)
        if init is None:
            continue
        params = {p.name.value for p in init.params.params[1:]}
        for n in _assigns(init.body.body):
            if len(n.targets) != 1 or not isinstance(n.value, cst.Name) or n.value.value not in params:
                continue
            key = dotted(n.targets[0].target)
            if key is None or not key.startswith("self.") or key in names.instances or \
                    key in names.foreign_instances or names.is_module(key) or key in names.optimizers or \
                    names.is_module(n.value.value) or n.value.value in names.optimizers:
                continue
            out.setdefault(key, f"handed to `{cls.name.value}.__init__` as `{n.value.value}`")
    return out


def _trains(cls, summary, path) -> bool:
    """The method runs backward or steps, itself or in another method of its class."""
    from .project import summaries_of

    table = summaries_of(path)
    return summary.events or any(getattr(table.get(f"{cls}.{m}"), "events", False) for m in summary.self_calls)


def runtime_method(analysis, base: str, meth: str) -> Optional[tuple]:
    """(summary, file) standing for `base.meth` when `base` is of a class
    chosen at run time and some project classes define `meth` and run
    backward in it; the summary joins theirs. None otherwise."""
    if analysis.ctx.path in (None, "<string>") or meth in TENSOR_ONLY:
        return None  # `fake.mean()`: a tensor's method, whatever project class also defines `mean`
    how = runtime_objects(analysis).get(base) if meth not in OPTIMIZER_METHODS else None
    handed = how is None and meth not in OPTIMIZER_METHODS and base in handed_objects(analysis)
    if handed:
        how = handed_objects(analysis)[base]
    if how is None:
        return None
    from .project_index import classes_with_method

    every = classes_with_method(analysis.ctx.path, meth, whole=handed)
    found = [(cls, s, f) for cls, s, f in every if _trains(cls, s, f)]
    if not found or handed and len(found) < len(every):
        return None  # an object handed in: every project class with the method must train in it
    arity = {s.arity for _, s, _ in found}
    arity = arity.pop() if len(arity) == 1 else 0
    elems = ()
    if arity and all(len(s.elems) == arity for _, s, _ in found):
        elems = tuple("graph" if any(s.elems[i] == "graph" for _, s, _ in found) else "cut" for i in range(arity))
    # the first value returned (the loss of `loss, out, log = model.train(batch)`) decides
    graph = [(cls, f) for cls, s, f in found if (s.elems[0] if elems else s.result) == "graph"]
    summary = replace(found[0][1], result="graph" if graph else "unknown", arity=arity, elems=elems, events=True)
    where = graph[0][1] if graph else found[0][2]
    names = ", ".join(f"{cls} ({os.path.basename(f)})" for cls, f in graph[:3]) + \
        (f" and {len(graph) - 3} more" if len(graph) > 3 else "")
    built = f"is {how} (its class is the caller's)" if handed else f"is built by a class chosen at run time (`{how}`)"
    note = (f"`{base}` {built}; of the {len(found)} project classes "
            f"whose `{meth}()` runs backward, {len(graph)} return a value that carries its graph"
            + (f": {names}" if graph else ""))
    numbers = [cls for cls, s, _ in every if s.arity == arity and len(s.elems) == arity and arity and
               s.elems[0] == "cut" or not arity and s.result == "cut"]
    if numbers:
        note += (f"; {len(numbers)} other project classes that define `{meth}()` return a number there "
                 f"({numbers[0]}{', ...' if len(numbers) > 1 else ''})")
    if len(graph) < len(found) or numbers:
        # some return numbers: a `.item()`/`.detach()` fix could fail on them
        analysis.mixed_results.add(base)
    if summary.result == "graph":
        analysis.names.inferred[base] = note  # the method whose result the findings rest on
    return summary, where
