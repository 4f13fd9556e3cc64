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


def flag_params(func: cst.FunctionDef) -> frozenset:
    """The parameters of `func` that only ever reach its backwards as their
    `retain_graph=` (default False or None, never rebound, no create_graph)."""
    params = {p.name.value: p for p in func.params.params + func.params.kwonly_params}
    used: dict = {}  # name -> reads, all as a retain keyword
    keyword_reads = set()
    for node in nodes(func.body):
        if type(node) is cst.Arg and node.keyword is not None:
            keyword_reads.add(id(node.keyword))  # `retain_graph=` names no value
        if type(node) is cst.Call:
            keywords = {a.keyword.value for a in node.args if a.keyword is not None}
            if "create_graph" in keywords:
                continue
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value in RETAIN_KEYWORDS and \
                        type(arg.value) is cst.Name and arg.value.value in params:
                    keyword_reads.add(id(arg.value))
                    used[arg.value.value] = True
    out = set()
    for name in used:
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
    for call in backwards:
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
    args = fn.args
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
