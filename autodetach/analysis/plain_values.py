"""Is an expression provably not a tensor? A fix that rewrites it to `x.detach()`
or `x.item()` would then crash (`dict` has no `.detach()`, `float` no `.item()`),
so the AD1 fix builders refuse it. Provably: a literal or display (dict, list,
tuple, set, string, number: `.detach()` of `[loss]` fails too), a comprehension that
builds plain values (the fix detaches a comprehension's elements), a call of
a built-in that returns one (`len`, `float`, `dict(...)`), of a function of this
file or a `self` method of this file's classes whose every return is one,
`.item()` / `.tolist()`, a concatenation with a list or tuple display (`h + [x]`),
a name the file uses as a module, or a local name whose every value
(`name = ...`, `name += ...`) is one of those."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .tensor_methods import BUILTIN_METHODS
from .bindings import part_at
from .overrides import abstract_def
from .walk import nodes, returns


PLAIN_BUILTINS = frozenset({"int", "float", "str", "bool", "len", "dict", "list", "tuple", "set",
                            "sorted", "repr", "format", "range", "enumerate", "zip"})
# plain only when what they reduce is: `sum(losses)` of tensors is a tensor
REDUCERS = frozenset({"min", "max", "sum", "abs", "round"})
PLAIN_METHODS = frozenset({"item", "tolist"})
DISPLAYS = (cst.Dict, cst.List, cst.Tuple, cst.Set)
NUMBERS = (cst.Integer, cst.Float, cst.Imaginary, cst.BaseString)


def not_tensor(ctx, expr, depth: int = 0) -> bool:
    """Does `expr` never hold a tensor that `.detach()` / `.item()` could take?
    A container counts whatever it holds (`[loss]` has no `.detach()` either)."""
    if depth > 4:
        return False
    if isinstance(expr, cst.DictComp):
        return not_tensor(ctx, expr.value, depth + 1)  # the fix detaches what it stores, element by element
    if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return not_tensor(ctx, expr.elt, depth + 1)
    if isinstance(expr, NUMBERS + DISPLAYS):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.expression, NUMBERS)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add) and \
            (isinstance(expr.left, (cst.List, cst.Tuple)) or isinstance(expr.right, (cst.List, cst.Tuple))):
        return True  # `hist + [loss]` concatenates lists (a tensor's `+` takes no list)
    if isinstance(expr, cst.Call):
        func = expr.func
        if isinstance(func, cst.Name) and func.value in PLAIN_BUILTINS:
            return ctx.imports.qualify(func) is None and not _shadowed(ctx, func)
        if isinstance(func, cst.Name) and func.value in REDUCERS:
            return bool(expr.args) and all(not_tensor(ctx, arg.value, depth + 1) for arg in expr.args) and \
                not _shadowed(ctx, func)
        if isinstance(func, cst.Name) and _record_class(ctx, func):
            return True  # `Transition(state=s, mean=m)`: a namedtuple has no `.detach()`
        if isinstance(func, cst.Name):
            return _all_plain(ctx, _local_returns(ctx, func), depth)
        if isinstance(func, cst.Attribute) and func.attr.value in PLAIN_METHODS:
            return True
        return _all_plain(ctx, _self_method_returns(ctx, func), depth)
    if isinstance(expr, (cst.Name, cst.Attribute)) and _module(ctx, expr):
        return True  # `clone = l2l.clone_module(policy)`: a module has no `.detach()`
    if isinstance(expr, cst.Name):
        try:
            values = ctx.bindings.values(expr)
        except (KeyError, AttributeError):
            return False
        if values is None:
            values = _unpacked(ctx, expr)
        return bool(values) and all(v is not None and v is not expr and not_tensor(ctx, v, depth + 1)
                                    for v in values)
    return False


def _bound(ctx, name: cst.Name) -> list:
    """The bindings of `name` in the scope that owns it; [] when no scope of the file does."""
    try:
        owner, found = ctx.bindings.lookup(name)
    except (KeyError, AttributeError):
        return []
    return found if owner is not None else []


def _unpacked(ctx, name: cst.Name) -> Optional[list]:
    """What `meta` of `loss, meta = self.step(mb)` may hold: the element at its
    place in every tuple the callee (a function of this file, or a `self` method
    as this file's classes define it) returns; None when a binding is anything else
    or a return does not line up."""
    found = _bound(ctx, name)
    if not found:
        return None
    out = []
    for binding in found:
        call = binding.value
        if binding.kind != "assign" or not binding.path or not isinstance(call, cst.Call):
            return None
        func = call.func
        rets = _local_returns(ctx, func) if isinstance(func, cst.Name) else _self_method_returns(ctx, func)
        parts = [part_at(r, binding.path) if r is not None else None for r in rets]
        if not parts or any(p is None for p in parts):
            return None
        out += parts
    return out


def _module(ctx, expr) -> bool:
    try:
        return ctx.analysis.names.is_module(dotted(expr))
    except AttributeError:
        return False


def _all_plain(ctx, returns: list, depth: int) -> bool:
    """Every value a callee returns is plain (none a bare `return`); False when none is known."""
    return bool(returns) and all(r is not None and not_tensor(ctx, r, depth + 1) for r in returns)


def _record_class(ctx, func: cst.Name) -> bool:
    """Is `func` the file's one binding of a namedtuple class (`T = namedtuple("T", ...)`,
    `class T(NamedTuple)`)? Its instances are tuples, with no `.detach()`."""
    try:
        owner, found = ctx.bindings.lookup(func)
    except (KeyError, AttributeError):
        return False
    if len(found) != 1:
        return False
    node = found[0].node
    if isinstance(node, cst.ClassDef):
        return any((ctx.imports.qualify(base.value) or dotted(base.value) or "").endswith("NamedTuple")
                   for base in node.bases)
    value = getattr(found[0], "value", None)
    if not isinstance(value, cst.Call):
        return False
    return (ctx.imports.qualify(value.func) or dotted(value.func) or "").split(".")[-1] == "namedtuple"


def _local_returns(ctx, func: cst.Name) -> list:
    """The returned values of the one function of this file `func` names
    (`to_numbers(d)` whose `out = {}` is returned), None for a bare `return`;
    [] when the name is not one such function."""
    try:
        owner, found = ctx.bindings.lookup(func)
    except (KeyError, AttributeError):
        return []
    if len(found) != 1 or found[0].kind != "def" or not isinstance(found[0].node, cst.FunctionDef):
        return []
    return returns(found[0].node)


def _self_method_returns(ctx, func) -> list:
    """The returned values of every method of this file's classes named as
    `self.X` is (`return loss, aux` of `self._step(x)`: a tuple); [] when
    no class of the file defines it (an override elsewhere is not seen)."""
    if not (isinstance(func, cst.Attribute) and type(func.value) is cst.Name and func.value.value == "self"):
        return []
    out = []
    for cls in (n for n in nodes(ctx.module) if type(n) is cst.ClassDef):
        for stmt in cls.body.body:
            if type(stmt) is cst.FunctionDef and stmt.name.value == func.attr.value and not abstract_def(stmt):
                found = returns(stmt)
                if not found:
                    return []
                out += found
    return out


def _shadowed(ctx, func: cst.Name) -> bool:
    """A built-in's name the file binds itself (`def len(x)`, `sum = ...`)."""
    try:
        owner, found = ctx.bindings.lookup(func)
    except (KeyError, AttributeError):
        return True
    return bool(found)


def why(ctx, expr) -> str:
    """The message's words for a refused fix."""
    text = ctx.code(expr).strip()
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"`{text}` is not a tensor (a number, string, container or module), so `.detach()` / `.item()` of it " \
        "would raise: no fix is offered"


def unpacked_why(ctx, expr, stmt, key) -> Optional[str]:
    """The message's words when `expr`, a call found not to be a tensor because it
    returns a container (`return scores.argmax().item(), new_hidden`), is unpacked by
    `stmt` (`action, hidden = self.step(obs, hidden)`) and `key` is one of its targets:
    the kept graph is in that element, not in the call; None otherwise."""
    stmt = getattr(stmt, "suite", stmt)
    small = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else (stmt,)
    assign = next((s for s in small if isinstance(s, cst.Assign) and s.value is expr), None)
    if assign is None or not isinstance(expr, cst.Call):
        return None
    place = None
    for target in assign.targets:
        if isinstance(target.target, (cst.Tuple, cst.List)):
            for index, elem in enumerate(target.target.elements):
                if dotted(elem.value) == key:
                    place = index
    if place is None:
        return None
    rets = _local_returns(ctx, expr.func) if isinstance(expr.func, cst.Name) else _self_method_returns(ctx, expr.func)
    kind = "a tuple" if rets and all(isinstance(r, cst.Tuple) for r in rets) else "a container"
    text = ctx.code(expr).strip()
    text = text if len(text) <= 40 else text[:37] + "..."
    return (f"`{text}` returns {kind}, and `{key}`, unpacked from it (element {place}), is what carries the "
            f"graph: a `.detach()` of the call would raise, and no fix rewrites the unpacking (detach `{key}` "
            "after it, or run the loop under `torch.no_grad()`): no fix is offered")


# A module's methods that run its forward: what they return is a forward's output.
FORWARDS = frozenset({"forward", "__call__"})


def unseen_method(ctx, expr, depth: int = 0, seen=None) -> Optional[str]:
    """The call, when `expr` is (or a name or attribute bound from, or an operand of) the result of a method
    of a module whose class this file does not have, other than its forward
    (`logs` of `loss, logs = model.train_step(batch)`): such a method may return
    a dict, a tuple or a number, whose `.detach()` raises. Followed through the
    returns of this file's functions and methods (`loss_dict['acc']` of
    `loss_dict = self._d_epoch(data)`, which returns `{"acc": acc, ...}`).
    None otherwise."""
    seen = set() if seen is None else seen
    if depth > 10 or id(expr) in seen:
        return None
    seen.add(id(expr))
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        meth = expr.func.attr.value
        base = dotted(expr.func.value)
        names = ctx.analysis.names
        if base == "self":
            return _first(ctx, _self_returns(ctx, expr, meth), depth, seen)
        if meth in ("items", "values") and not expr.args:
            # `for name, value in losses.parts.items()`: the entries of what the receiver holds
            return unseen_method(ctx, expr.func.value, depth + 1, seen)
        if base is None or meth in FORWARDS or meth in BUILTIN_METHODS or names.is_module(dotted(expr.func)):
            return None
        if names.is_module(base) and names.method(base, meth) is None:
            text = ctx.code(expr.func).strip()
            return f"`{text}(...)` is a method of a class not followed: what it returns may not be a tensor"
        return None
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name):
        return _first(ctx, _local_returns(ctx, expr.func), depth, seen)
    if isinstance(expr, cst.BinaryOperation):
        # `args.batch_size * world_size`, where `args.batch_size = model.micro_batch_size()`
        return unseen_method(ctx, expr.left, depth + 1, seen) or unseen_method(ctx, expr.right, depth + 1, seen)
    if isinstance(expr, cst.Subscript):
        return unseen_method(ctx, expr.value, depth + 1, seen)
    if isinstance(expr, (cst.Dict, cst.Tuple, cst.List)):
        # which entry a caller reads is not followed: any entry may be it
        return _first(ctx, [e.value for e in expr.elements if e.value is not None], depth, seen)
    if isinstance(expr, (cst.Name, cst.Attribute)):
        key = dotted(expr)
        try:
            found = ctx.bindings.lookup(expr)[1] if isinstance(expr, cst.Name) else \
                ctx.bindings.attrs(key) if key is not None else []
        except (KeyError, AttributeError):
            return None
        for binding in found:
            if binding.kind in ("assign", "augassign", "for") and binding.value is not None and \
                    binding.value is not expr:
                # a loop variable: an element of what its loop iterates
                note = unseen_method(ctx, binding.value, depth + 1, seen)
                if note:
                    return note
        if isinstance(expr, cst.Attribute) and not found:
            # `losses.parts` bound nowhere in this file: part of the object `losses` is
            return unseen_method(ctx, expr.value, depth + 1, seen)
    return None


def _first(ctx, exprs, depth: int, seen) -> Optional[str]:
    for expr in exprs:
        note = expr is not None and unseen_method(ctx, expr, depth + 1, seen)
        if note:
            return note
    return None


def _self_returns(ctx, call: cst.Call, meth: str) -> list:
    """The returned values of `self.meth` as this file's class (or a local base) defines it."""
    cls = ctx.enclosing(call, cst.ClassDef)
    func = ctx.analysis.names.class_method(cls.name.value, meth) if cls is not None else None
    return returns(func) if isinstance(func, cst.FunctionDef) else []


def loop_parts(ctx, name: cst.Name) -> Optional[list]:
    """The values a loop variable takes when every binding of it iterates a
    literal display (`for k, v in [("loss", loss), ("mae", mae)]`, or a local
    name bound once to one): the element of each item at the variable's
    position. None when any binding is something else."""
    found = _bound(ctx, name)
    if not found:
        return None
    out = []
    for binding in found:
        if binding.kind != "for" or binding.path is None:
            return None
        items = binding.value
        if isinstance(items, cst.Name):
            try:
                values = ctx.bindings.values(items)
            except (KeyError, AttributeError):
                return None
            items = values[0] if values and len(values) == 1 else None
        if not isinstance(items, (cst.List, cst.Tuple, cst.Set)):
            return None
        for elem in items.elements:
            part = part_at(elem.value, binding.path) if isinstance(elem, cst.Element) else None
            if part is None:
                return None
            out.append(part)
    return out


def partly_plain(ctx, expr) -> bool:
    """A loop variable that is a number on some iterations and perhaps a tensor
    on others (`for name, value in [("loss", loss), ("mae", mae.item())]`):
    neither `value.detach()` nor `value.item()` works on every iteration."""
    if not isinstance(expr, cst.Name):
        return False
    plain = {not_tensor(ctx, p) for p in loop_parts(ctx, expr) or ()}
    return plain == {True, False}


def loop_number_why(name: cst.Name) -> str:
    """The message's words for a fix refused because of such a loop variable."""
    return f"`{name.value}` is a number on some iterations of its loop, which has no `.detach()`: no fix is offered"


def partly_plain_read(ctx, expr) -> Optional[cst.Name]:
    """The first name `expr` reads that is such a loop variable: `.detach()`
    of `[value]` or of `0.9 * ema[k] + 0.1 * value` fails where it is a number."""
    if expr is None:
        return None
    return next((n for n in nodes(expr) if type(n) is cst.Name and partly_plain(ctx, n)), None)


def maybe_plain(ctx, expr) -> Optional[str]:
    """Why `expr.detach()` may raise where `expr` carries a graph on other runs, or None:
    a name bound to a display in its scope (`hidden = (h0, c0)`, later the state an LSTM
    returns: a tuple either way), or one that still holds the number it was given
    (`adv = 0.0`) when the `if` arms that make it a tensor do not run (a GAN's adversarial
    term before the discriminator starts). The words name the binding."""
    if not isinstance(expr, cst.Name):
        return None
    found = _bound(ctx, expr)
    if not found:
        return None
    for binding in found:
        value = binding.element() if binding.kind in ("assign", "walrus") else None
        if isinstance(value, DISPLAYS + (cst.ListComp, cst.DictComp, cst.SetComp)):
            return f"`{expr.value}` is bound to a container (`{ctx.snippet(binding.node)}`): it has no `.detach()`"
    left = _number_left(ctx, expr, found)
    if left is not None:
        plain, guarded = left
        when = " when the `if` that makes it a tensor does not run" if guarded else ""
        return (f"`{expr.value}` is still the plain value of `{ctx.snippet(plain)}`{when}, "
                f"which has no `.detach()`")
    return None


def _number_left(ctx, read: cst.Name, found) -> Optional[tuple]:
    """(the `name = <plain value>` that reaches `read` through the statements before it in
    its block and the blocks around it, up to the nearest loop or function, whether an `if`
    that binds the name was passed on the way); None at any other binding, loop or `try`
    first."""
    binds = {id(b.node): b for b in found}
    guarded = False
    stmt = ctx.statement_of(read)
    while stmt is not None:
        block = ctx.parent(stmt)
        if not isinstance(block, cst.IndentedBlock):
            return None
        body = list(block.body)
        at = next((i for i, s in enumerate(body) if s is stmt), None)
        if at is None:
            return None
        for prev in reversed(body[:at]):
            if isinstance(prev, cst.SimpleStatementLine):
                for small in reversed(prev.body):
                    binding = binds.get(id(small))
                    if binding is None:
                        continue
                    if binding.kind == "assign" and binding.path == () and binding.value is not None and \
                            not_tensor(ctx, binding.value):
                        return small, guarded
                    return None
                continue
            if not any(id(n) in binds for n in nodes(prev)):
                continue
            if not isinstance(prev, cst.If):
                return None  # a loop or `try` that binds it: taken to make it a tensor
            guarded = True
        owner = block
        while owner is not None and not isinstance(owner, (cst.If, cst.Else, cst.With)):
            if isinstance(owner, (cst.For, cst.While, cst.Try, cst.FunctionDef, cst.ClassDef, cst.Module)):
                return None
            owner = ctx.parent(owner)
        stmt = ctx.statement_of(owner) if owner is not None else None
        while isinstance(stmt, cst.If) and isinstance(ctx.parent(stmt), cst.If):
            stmt = ctx.parent(stmt)  # an `elif`: the statements before the first `if`
    return None
