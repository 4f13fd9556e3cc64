"""Entries of a dict of losses told apart by their constant keys.

    losses["d_loss"] = d_loss
    losses["d_loss"].backward()
    ...
    losses["g_loss"] = gan_loss_g(d_gen)
    losses["g_loss"].backward()

The container hangs from every value stored in it, so a read of one key
used to see them all: `losses["d_loss"].backward()` seemed to walk G's loss
and the previous iteration's entries. A store under a constant string key
replaces that key's entry; its node records the key (GNode.item), and a read
of a constant string key sees only the entries stored under it, when every
entry the container holds was stored under a known key and one of them is
that key. Otherwise (an entry stored under a computed key, appended, or
handed in by unseen code, or the key never stored here) the read sees the
whole container, as before. Integer indices are not told apart: `pop(0)`
or `insert` move a list's elements. A dict literal with constant string
keys stores one entry per key, an empty `{}` holds none, and
`losses.update(self.loss_fn(x))` merges the entries of the dict it is
handed (flow.py calls `literal_keys`, `dict_update` and `update`)."""
from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from ..imports import dotted
from .self_storage import _bound, _empties, grows_on_self
from .walk import is_static, nodes


def key_of(target: cst.Subscript) -> Optional[str]:
    """The constant string key of `d["loss"]` (quotes and prefixes normalised), or None."""
    if len(target.slice) != 1 or type(target.slice[0].slice) is not cst.Index:
        return None
    return constant(target.slice[0].slice.value)


def literal_keys(expr) -> Optional[list]:
    """`{"total": a, "disc": b}`: its (key, value) pairs when every key is a constant string, else None."""
    if type(expr) is not cst.Dict or not expr.elements:
        return None
    pairs = [(constant(e.key), e.value) for e in expr.elements if isinstance(e, cst.DictElement)]
    if len(pairs) != len(expr.elements) or any(key is None for key, _ in pairs):
        return None
    return pairs


def empty(head) -> bool:
    """A node for `d = {}` (kept because an entry of `d` is backwarded): it holds no entry."""
    e = head.expr
    return not head.parents and (type(e) is cst.Dict and not e.elements or type(e) is cst.Call
                                 and type(e.func) is cst.Name and e.func.value == "dict" and not e.args)


def constant(index) -> Optional[str]:
    """The value of a constant string expression, or None."""
    if type(index) not in (cst.SimpleString, cst.ConcatenatedString):
        return None
    try:
        value = ast.literal_eval(cst.Module([]).code_for_node(index))
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None


def others(heads, key: str) -> frozenset:
    """The entries a store under `key` keeps: every head not stored under it."""
    return frozenset(head for head in heads if head.item != key)


def all_keyed(heads) -> bool:
    """Was every entry stored under a constant key (an empty `{}` holds none)?"""
    return all(head.item is not None or empty(head) for head in heads)


def entry(value, target: cst.Subscript):
    """The Val a read `d["key"]` sees, when the entries tell it; else None."""
    Val = _flow.Val

    key = key_of(target)
    if key is None or not value.heads or not all_keyed(value.heads):
        return None
    mine = frozenset(head for head in value.heads if head.item == key)
    if not mine:
        return None
    return Val(heads=mine, ghosts=value.ghosts, modules=value.modules,
               uses={head: reads for head, reads in value.uses.items() if head in mine},
               nontrivial=value.nontrivial, unknown=value.unknown, loss=value.loss)


def dict_update(scope, call: cst.Call, base: str) -> bool:
    """Is `base.update(arg)` a dict's update, seen before the argument is
    walked: `base` holds entries of a dict (or an empty `{}`), or the
    argument is a dict literal or a call of this file's code (read there).
    A meter's `update(loss)` of a class in sight was told apart before."""
    if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return False
    old = scope.lookup_key(base)
    if old.heads and all(head.holder or empty(head) for head in old.heads):
        return True
    arg = call.args[0].value
    if type(arg) is cst.Dict:
        return True
    return type(arg) is cst.Call and (scope._own_method(arg.func) is not None
                                      or type(arg.func) is cst.Name and arg.func.value in scope.names.functions)


def update(scope, call: cst.Call, base: str):
    """`losses.update(self.loss_fn(x))`: the dict now holds the entries of the
    dict handed to it (when every head of the argument holds a dict's entries),
    each under its key when the entries tell: a key it hands replaces the old
    entry, the others stay."""
    Val = _flow.Val

    given = scope.expr(call.args[0].value)
    if not given.heads or scope.no_grad or not all(_entry(head) for head in given.heads):
        return Val()
    old = scope.lookup_key(base)
    kept = frozenset(head for head in old.heads if not empty(head))
    if all_keyed(given.heads):
        for head in given.heads:
            kept = others(kept, head.item)
    scope.env[base] = Val(heads=kept | given.heads, ghosts=old.ghosts | given.ghosts, loss=old.loss or given.loss)
    scope.bound.add(base)
    return Val()


def _entry(head) -> bool:
    """A node for an entry of a container: a dict or list store, or `d[k] += v`."""
    if head.holder or head.kind == "container":
        return True
    body = getattr(head.stmt, "body", None)
    return head.kind == "accum" and isinstance(body, (list, tuple)) and len(body) == 1 and \
        isinstance(body[0], cst.AugAssign) and type(body[0].target) is cst.Subscript


def slot(expr, scope=None) -> Optional[str]:
    """`stats["loss"]` (or `self.history["loss"]`): the key a list held under a constant key is
    tracked by (`stats['loss']`, as model_containers.entry_keys spells it); None otherwise. Only
    appends and clears go through it; the dict itself does not see the list's graphs. With the
    scope that appends: a dict on `self` only when `__init__` alone binds or empties it (another
    method, not walked at its call, may start the lists again)."""
    if not isinstance(expr, cst.Subscript):
        return None
    holder, key = dotted(expr.value), key_of(expr)
    if holder is None or key is None:
        return None
    if scope is not None and "." in holder and \
            not grows_on_self(scope.analysis, scope.method_class or scope.self_class, holder):
        return None
    if scope is not None and "." not in holder and _reset_elsewhere(scope, holder):
        return None
    return f"{holder}[{key!r}]"


# calls that read a dict without changing its lists
_READERS = {"print", "len", "dump", "dumps", "save", "format", "str", "repr", "sorted", "list", "dict"}


def _reset_elsewhere(scope, holder: str) -> bool:
    """May code not walked here start `holder`'s lists again: another function of the module
    that stores into it, rebinds or empties it (`Statistic["loss"] = []` in a `reset()`), or a
    call here that is handed the dict (`reset(stats)`)?"""
    memo = scope.analysis.table("_slot_resets")
    module = scope.analysis.ctx.module
    if (id(module), holder) not in memo:
        memo[(id(module), holder)] = [fn for fn in nodes(module) if isinstance(fn, cst.FunctionDef) and any(
            holder in _bound(n) or _empties(n, holder) for n in nodes(fn.body))]
    body = list(scope.body) if isinstance(scope.body, (list, tuple)) else [scope.body]
    own = {id(stmt) for stmt in body}
    if any(not any(id(stmt) in own for stmt in fn.body.body) for fn in memo[(id(module), holder)]):
        return True
    for call in (n for stmt in body for n in nodes(stmt)):
        if isinstance(call, cst.Call) and any(type(arg.value) is cst.Name and arg.value.value == holder
                                              for arg in call.args):
            name = call.func.attr.value if isinstance(call.func, cst.Attribute) else dotted(call.func)
            if name not in _READERS and not _saver(name) and not _reads_only(scope, call, holder):
                return True
    return False


# words of a function's name that say it writes out or draws what it is handed
# (`save_pickle(hist, path)`, `plot_history(hist)`): such a call does not start its lists again
_SAVE_WORDS = {"save", "dump", "pickle", "json", "yaml", "plot", "draw", "show", "write", "print", "export"}


def _saver(name) -> bool:
    return bool(name) and bool(_SAVE_WORDS.intersection(name.rsplit(".", 1)[-1].lower().split("_")))


def _reads_only(scope, call: cst.Call, holder: str) -> bool:
    """`report(stats)` of a function of this file that neither binds, empties nor stores
    into the parameter it is handed the dict as; `monitor.check(net, stats)` of an object
    whose class is not known, when the file's classes define `check` and every one of them
    only reads it (which class it is stays an inference: the dict is handed on)."""
    fn = scope.names.functions.get(dotted(call.func) or "")
    if isinstance(fn, cst.FunctionDef):
        return _reads_param(fn, call, holder, 0)
    if not isinstance(call.func, cst.Attribute) or type(call.func.value) is not cst.Name:
        return False
    methods = _file_methods(scope, call.func.attr.value)
    return bool(methods) and all(_reads_param(m, call, holder, 0 if is_static(m) else 1) for m in methods)


def _file_methods(scope, name: str) -> list:
    """The methods called `name` of the classes of this file."""
    memo = scope.analysis.table("_file_methods")  # one table per file's analysis
    if name not in memo:
        memo[name] = [m for cls in nodes(scope.analysis.ctx.module) if isinstance(cls, cst.ClassDef)
                      for m in cls.body.body if isinstance(m, cst.FunctionDef) and m.name.value == name]
    return memo[name]


def _reads_param(fn, call: cst.Call, holder: str, skip: int) -> bool:
    """Does `fn` (its first `skip` parameters bound by the call's receiver) neither bind, empty
    nor store into the parameter `call` hands it the dict as?"""
    params = [p.name.value for p in fn.params.params][skip:]
    at = [i for i, arg in enumerate(call.args) if type(arg.value) is cst.Name and arg.value.value == holder]
    if any(call.args[i].keyword is not None or call.args[i].star or i >= len(params) for i in at):
        return False
    names = {params[i] for i in at}
    for n in nodes(fn.body):
        if names & _bound(n) or any(_empties(n, name) for name in names):
            return False
        if not isinstance(n, cst.Call):
            continue
        held = n.func.value if isinstance(n.func, cst.Attribute) else None
        if type(held) is cst.Subscript and dotted(held.value) in names:
            return False  # `hist[k].append(...)`: it adds to the lists itself
        if dotted(held) in names and n.func.attr.value not in _DICT_READS:
            return False  # `hist.update(...)`, `hist.pop(k)`: entries replaced or dropped
        name = n.func.attr.value if held is not None else dotted(n.func)
        if any(dotted(arg.value) in names for arg in n.args) and name not in _READERS and not _saver(name):
            return False  # handed on to code that may start the lists again
    return True


_DICT_READS = {"items", "keys", "values", "get", "copy"}


def drop_slots(env: dict, holder: str, key: Optional[str] = None) -> None:
    """`holder` rebound (or `holder[key] = ...`; a computed key may be any): its lists start again."""
    prefix = f"{holder}[" if key is None else f"{holder}[{key!r}]"
    for name in [name for name in env if name.startswith(prefix) and (key is not None or name.endswith("]"))]:
        del env[name]


def slots_in(env: dict, expr) -> list:
    """The lists held under constant keys of the names `expr` reads (`return stats`)."""
    names = {f"{dotted(n)}[" for n in nodes(expr) if type(n) in (cst.Name, cst.Attribute) and dotted(n)}
    return [val for name, val in env.items() if "[" in name and name[:name.index("[") + 1] in names]


def slot_note(ctx, key: str, stmt) -> Optional[str]:
    """For a finding on a dict-held list (`history['loss']`): what the fix infers, unless the dict
    is a local of the function that appends, never returned nor handed on."""
    if "[" not in key:
        return None
    holder = key[:key.index("[")]
    note = f"that nothing else reads `{holder}`'s lists as tensors with a graph (not followed: "
    fn = ctx.enclosing(stmt, cst.FunctionDef)
    if "." in holder or fn is None:
        return note + "the dict outlives the function)"
    inside = nodes(fn.body)
    bound = any(isinstance(n, cst.AssignTarget) and type(n.target) is cst.Name and n.target.value == holder
                for n in inside)
    if not bound or any(isinstance(n, cst.Global) for n in inside):
        return note + "the dict is not made here)"
    handed = any(isinstance(n, (cst.Return, cst.Yield)) and n.value is not None and any(
        type(m) is cst.Name and m.value == holder for m in nodes(n.value)) for n in inside) or any(
        isinstance(n, cst.Arg) and dotted(n.value) == holder for n in inside)
    return note + "the dict is handed on)" if handed else None


# Bound at the end (flow imports this module): a relative import inside a
# function costs microseconds each time, and these run hundreds of times a pass.
from . import flow as _flow  # noqa: E402
