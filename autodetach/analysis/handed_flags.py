"""A retain flag a caller hands to a helper that backwards:

    def backward_step(self, loss, retain_graph=False):
        loss.backward(retain_graph=retain_graph)
    ...
    self.backward_step(loss, retain_graph=True)      # the retain is decided here

The helper's backward retains only because of the caller's `True`, so the
verdict and the fix (drop the keyword: the default retains nothing) belong
at the call. Only a parameter whose default retains nothing and that the
helper reads nowhere but as the `retain_graph=` of its backwards counts:
then dropping the keyword changes nothing else the helper does."""
from __future__ import annotations

import ast

import libcst as cst

from .walk import nodes

RETAIN_KEYWORDS = ("retain_graph", "retain_variables")
_OFF = ("False", "None")


def _retain_value(arg: cst.Arg) -> bool:
    return isinstance(arg.value, cst.Name) and arg.value.value == "True"


def _assigned(func: cst.FunctionDef) -> set:
    return {n.value for t in nodes(func.body) if type(t) in (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)
            for n in nodes(t.target) if type(n) is cst.Name}


def _backwarded_param(call: cst.Call, params: dict, assigned: set) -> bool:
    """`loss.backward(...)` on a parameter the function never rebinds: the
    graph is the caller's, which the caller's walk sees whole."""
    func = call.func
    if type(func) is not cst.Attribute or func.attr.value != "backward":
        return False
    return type(func.value) is cst.Name and func.value.value in params and func.value.value not in assigned


def flag_params(func: cst.FunctionDef) -> frozenset:
    """The parameters of `func` that only ever reach its backwards as their
    `retain_graph=` (default False or None, never rebound, no create_graph),
    each backward running on a parameter (`loss.backward(...)`): a loss the
    helper builds itself (from `self` state, other helpers) is not judged."""
    params = {p.name.value: p for p in func.params.params + func.params.kwonly_params}
    assigned = _assigned(func)
    used: dict = {}  # name -> whether every call it is the retain of backwards a parameter
    keyword_reads = set()
    for node in nodes(func.body):
        if type(node) is cst.Arg and node.keyword is not None:
            keyword_reads.add(id(node.keyword))  # `retain_graph=` names no value
        if type(node) is cst.Call:
            keywords = {a.keyword.value for a in node.args if a.keyword is not None}
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value in RETAIN_KEYWORDS and \
                        type(arg.value) is cst.Name and arg.value.value in params:
                    keyword_reads.add(id(arg.value))
                    ok = "create_graph" not in keywords and _backwarded_param(node, params, assigned)
                    used[arg.value.value] = used.get(arg.value.value, True) and ok
    out = set()
    for name in (n for n, ok in used.items() if ok and n not in assigned):
        default = params[name].default
        if not (isinstance(default, cst.Name) and default.value in _OFF):
            continue
        reads = [n for n in nodes(func.body) if type(n) is cst.Name and n.value == name]
        if all(id(n) in keyword_reads for n in reads):
            out.add(name)
    return frozenset(out)


def handed_flags(func: cst.FunctionDef, call: cst.Call) -> dict:
    """param -> the call's `param=True` argument, for the flag parameters of
    `func` that the call sets by keyword."""
    flags = flag_params(func)
    return {arg.keyword.value: arg for arg in call.args
            if arg.keyword is not None and arg.keyword.value in flags and _retain_value(arg)}


def ast_flag_param(fn, backwards: list) -> tuple:
    """For a function summarised from stdlib `ast`: (name, position) of the
    one parameter that every one of `backwards` gets as its `retain_graph=`
    and that the function reads nowhere else (default False or None); the
    position counts the arguments a call passes (`self` left out), -1 for a
    keyword-only one. () when there is none."""
    names = set()
    args = fn.args
    own = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    rebound = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for call in backwards:
        target = call.func.value if isinstance(call.func, ast.Attribute) else None
        if not (isinstance(target, ast.Name) and target.id in own and target.id not in rebound):
            return ()  # a loss the helper builds itself: its graph is not the call's
        kws = {k.arg: k.value for k in call.keywords}
        if "create_graph" in kws:
            return ()
        value = kws.get("retain_graph", kws.get("retain_variables"))
        if not isinstance(value, ast.Name):
            return ()
        names.add(value.id)
    if len(names) != 1:
        return ()
    name = names.pop()
    if name in rebound:
        return ()
    positional = args.posonlyargs + args.args
    defaults = dict(zip([a.arg for a in positional][len(positional) - len(args.defaults):], args.defaults))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    default = defaults.get(name)
    if not (isinstance(default, ast.Constant) and default.value in (False, None)):
        return ()
    allowed = {id(k.value) for call in backwards for k in call.keywords}
    reads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name]
    if not all(id(n) in allowed for n in reads):
        return ()
    names = [a.arg for a in positional]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return (name, names.index(name) if name in names else -1)


def flag_at_call(call: cst.Call, flag: tuple) -> tuple:
    """(retain, arg) a call of a helper whose flag parameter is `flag` (name,
    position) gives its backwards: (True, arg) for `name=True`, (False, None)
    when the call leaves it out (the default), (None, arg) for anything else."""
    name, position = flag
    if position >= 0 and len([a for a in call.args if a.keyword is None]) > position:
        return None, None  # handed by position: not a keyword the fix can drop
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            if _retain_value(arg):
                return True, arg
            if isinstance(arg.value, cst.Name) and arg.value.value in _OFF:
                return False, arg
            return None, arg
        if arg.star:
            return None, None
    return False, None
