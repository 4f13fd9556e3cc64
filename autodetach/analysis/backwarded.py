"""Values a backward proves to carry a graph.

    for x, y in loader:
        loss = criterion(helper(model_bag["net"](x)), y)   # unseen code
        loss.backward()
        total_loss += loss

Whatever `helper` and `model_bag` are, `loss.backward()` only runs on a
tensor that carries a graph, so the binding it backwards does. A binding is
proven when it is the only assignment of that name in the loop holding the
backward (so the backwarded value is the one assigned there). The same for
the one value appended to a list whose last element is backwarded
(`losses.append(l); losses[-1].backward()`)."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import by_nodes, nodes

_SKIP = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_WRAPPERS = {"scale"}  # scaler.scale(loss).backward()
_CALL_FORMS = {"backward", "manual_backward"}  # accelerator.backward(loss), self.manual_backward(loss)
_ADDS = {"append", "insert", "appendleft"}


def _targets(call: cst.Call) -> list:
    """(key, whole) for what a backward call runs on: whole is False for
    `key[i].backward()` (an element of a container)."""
    func = call.func
    if type(func) is not cst.Attribute or func.attr.value not in _CALL_FORMS:
        return []
    base = func.value
    if isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute) and \
            base.func.attr.value in _WRAPPERS and len(base.args) == 1:
        base = base.args[0].value
    elif dotted(base) is not None and call.args and call.args[0].keyword is None and \
            func.attr.value == "backward" and dotted(call.args[0].value) is not None and \
            not _looks_like_grad(call.args[0].value):
        base = call.args[0].value  # accelerator.backward(loss)
    elif func.attr.value == "manual_backward" and call.args:
        base = call.args[0].value
    if isinstance(base, cst.Subscript):
        key = dotted(base.value)
        return [(key, False)] if key else []
    key = dotted(base)
    return [(key, True)] if key else []


def _looks_like_grad(expr) -> bool:
    name = (dotted(expr) or "").split(".")[-1].lower()
    return "grad" in name or name in ("gradient", "ones", "g")


def proven_bindings(body) -> tuple:
    """({(id(statement), key)} of proven assignments, {id(call)} of proven
    appends, the part of the first that holds the backwarded value as an
    element, not as itself, the part of that whose entries are only inferred
    to carry it: summed into the backwarded loss, {(id(statement), key,
    names)} of tuple unpackings of one call whose `names` the backwarded
    `key` sums) for the loops in `body` (outside nested functions).
    Fresh sets (a scope adds to them); worked out once per body (walk.by_nodes)."""
    return tuple(set(part) for part in by_nodes("proven", body, _proven))


def _proven(body) -> tuple:
    stmts, adds, holders, summed, parts = set(), set(), set(), set(), set()
    for loop in nodes(body, skip=_SKIP) if isinstance(body, cst.CSTNode) else _all(body):
        # exact types: isinstance on libcst's ABCs is slow
        if type(loop) is not cst.For and type(loop) is not cst.While:
            continue
        _unit(loop.body, stmts, adds, holders, summed, parts, ordered=False)
    if isinstance(body, cst.IndentedBlock):
        # a function's body run once per call (`train_step`: `loss = ...; loss.backward(); return loss`):
        # the one binding of the name, before the backward, is what it backwards
        _unit(body, stmts, adds, holders, summed, parts, ordered=True)
    return stmts, adds, holders, summed, parts


def _unit(suite, stmts, adds, holders, summed, parts, ordered) -> None:
    inner = list(nodes(suite, skip=_SKIP))
    calls = [n for n in inner if type(n) is cst.Call]
    wanted = {t for n in calls for t in _targets(n)}
    if not wanted:
        return
    where = {id(n): i for i, n in enumerate(inner)} if ordered else None
    lines = _statement_lines(suite)
    for key, whole in wanted:
        found = _beside_constants(lines, key) if whole else [stmt for stmt, small in lines if _assigns(small, key)]
        if len(found) > 1 and not ordered:
            found = _last_straight(suite, found, [n for n in calls if (key, whole) in _targets(n)])
        if ordered and len(found) == 1:
            first = min(where[id(n)] for n in calls if (key, whole) in _targets(n))
            if where.get(id(found[0]), first) >= first:
                continue  # backwarded before it is bound here: a parameter's value
        if whole:
            if len(found) == 1 and not _rebinds_elsewhere(inner, key):
                stmts.add((id(found[0]), key))
                _summed_holders(found[0], lines, inner, stmts, holders, summed)
                _summed_parts(found[0], key, lines, inner, parts)
        else:
            adding = [n for n in calls if isinstance(n.func, cst.Attribute)
                      and n.func.attr.value in _ADDS and dotted(n.func.value) == key]
            if len(adding) == 1 and not found and not ordered:
                adds.add(id(adding[0]))
            elif not adding:
                # `loss = compute_loss(...)`, then `loss["total"].backward()`: the one container
                # bound in the loop holds the backwarded element
                if len(found) == 1 and not _rebinds_elsewhere(inner, key):
                    stmts.add((id(found[0]), key))
                    holders.add((id(found[0]), key))


def _summed_holders(stmt, lines, inner, stmts, holders, summed) -> None:
    """`loss = sum(parts.values()) + det_loss`, `sum([l for d in aux for l in d.values()])`: a dict or
    list whose every entry the backwarded loss sums holds the loss's graph as elements. Each such
    container bound once in the loop is proven as a holder (only the whole is proven by the
    backward: that its entries carry a graph is an inference from their being summed into it)."""
    small = next((small for line, small in lines if line is stmt and isinstance(small, cst.Assign)), None)
    for name in _summed_names(small.value) if small is not None else ():
        found = [s for s, small in lines if _assigns(small, name)]
        if len(found) == 1 and found[0] is not stmt and not _rebinds_elsewhere(inner, name):
            stmts.add((id(found[0]), name))
            holders.add((id(found[0]), name))
            summed.add((id(found[0]), name))


def _summed_parts(stmt, key, lines, inner, parts) -> None:
    """`mse, kl = compute(model, x)`, `loss = mse + beta * kl`, `loss.backward()`: every name the
    backwarded loss adds up comes from one unpacking of one call, bound once in the loop, so that
    call's result carries a graph (which of its elements, the callee's code says: flow._siblings).
    A weight (`beta`) not bound in the loop is left out."""
    small = next((small for line, small in lines if line is stmt and isinstance(small, cst.Assign)), None)
    added = _added_names(small.value) if small is not None else None
    if not added:
        return
    terms, weights = added
    sources, summed = set(), set()
    for name in terms | weights:
        found = [s for s, sm in lines if _assigns(sm, name)]
        if not found and name in weights and name not in terms:
            continue
        if len(found) != 1 or found[0] is stmt or _rebinds_elsewhere(inner, name):
            return
        sources.add(found[0])
        summed.add(name)
    if len(sources) != 1:
        return
    source = next(iter(sources))
    unpack = next((sm for line, sm in lines if line is source and isinstance(sm, cst.Assign)), None)
    if unpack is not None and len(unpack.targets) == 1 and isinstance(unpack.targets[0].target, cst.Tuple) \
            and isinstance(unpack.value, cst.Call):
        parts.add((id(source), key, frozenset(summed)))


def _added_names(expr):
    """(terms, weights) of a sum: `a + b - c`, `a + w * b` (either factor of a product of a name
    and a name, a number or an attribute may be the weight); None when a term is anything else."""
    if isinstance(expr, cst.Name):
        return {expr.value}, set()
    if not isinstance(expr, cst.BinaryOperation):
        return None
    op = type(expr.operator)
    if op in (cst.Add, cst.Subtract):
        left, right = _added_names(expr.left), _added_names(expr.right)
        if left is None or right is None:
            return None
        return left[0] | right[0], left[1] | right[1]
    if op in (cst.Multiply, cst.Divide):
        sides = (expr.left, expr.right)
        if any(isinstance(side, cst.Name) for side in sides) and all(
                isinstance(side, (cst.Name, cst.Integer, cst.Float)) or
                isinstance(side, cst.Attribute) and dotted(side) for side in sides):
            return set(), {side.value for side in sides if isinstance(side, cst.Name)}
    return None


_SUMS = {"sum", "torch.sum", "torch.stack", "torch.cat", "math.fsum"}


def _summed_names(expr) -> set:
    """Names whose every entry a reduction in `expr` takes: `sum(d.values())`, `sum(xs)`,
    `torch.stack([v for v in d.values()])`, `sum(l for d in ds for l in d.values())`."""
    out = set()
    for call in nodes(expr, skip=_SKIP):
        if type(call) is not cst.Call or dotted(call.func) not in _SUMS or not call.args:
            continue
        arg = call.args[0].value
        if isinstance(arg, (cst.ListComp, cst.GeneratorExp)):
            for_in, bound = arg.for_in, set()
            while for_in is not None:
                out |= _whole(for_in.iter) - bound  # `for l in d.values()` of an outer `for d in aux`
                bound |= {n.value for n in nodes(for_in.target) if isinstance(n, cst.Name)}
                for_in = for_in.inner_for_in
        else:
            out |= _whole(arg)
    return out


def _whole(expr) -> set:
    """`d`, `d.values()`, `list(d.values())`: the container all of whose entries are read."""
    if isinstance(expr, cst.Call) and dotted(expr.func) == "list" and len(expr.args) == 1:
        expr = expr.args[0].value
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and \
            expr.func.attr.value == "values" and not expr.args:
        expr = expr.func.value
    return {expr.value} if isinstance(expr, cst.Name) else set()


def _last_straight(suite, found, backwards) -> list:
    """`losses = dict()`, `losses, extra = self.step(losses, x)`, `losses["total"].backward()`:
    when every binding is a statement of the loop body itself (none under an `if`, a `with` or
    an inner loop) and every backward comes after the last of them, the last one is what is
    backwarded. Otherwise all of them (not proven)."""
    top = list(getattr(suite, "body", ()))
    index = {id(stmt): i for i, stmt in enumerate(top)}
    if not all(id(stmt) in index for stmt in found):
        return found
    last = max(index[id(stmt)] for stmt in found)
    for call in backwards:
        at = next((i for i, stmt in enumerate(top) if any(n is call for n in nodes(stmt, skip=_SKIP))), None)
        if at is None or at <= last:
            return found
    return [top[last]]


def _all(body):
    for stmt in body:
        if type(stmt) not in _SKIP:
            yield from nodes(stmt, skip=_SKIP)


def _statement_lines(suite) -> list:
    """(statement line, small statement) for every small statement in `suite`."""
    out = []
    for node in nodes(suite, skip=_SKIP):
        t = type(node)
        if t is cst.SimpleStatementLine or t is cst.SimpleStatementSuite:
            out.extend((node, s) for s in node.body)
    return out


def _assigns(small, key) -> bool:
    if type(small) is cst.Assign:
        return any(key in _target_keys(t.target) for t in small.targets)
    if type(small) in (cst.AnnAssign, cst.AugAssign):
        return dotted(small.target) == key
    return False


def _beside_constants(lines, key) -> list:
    """The statements binding `key`, less those that bind it to a number or None (`d_loss = 0` in
    the arm that skips the step) when one other binding is left, a plain assignment that does
    not read `key` (not an accumulation): a backward never runs on a number, so it runs on that."""
    found = [(stmt, small) for stmt, small in lines if _assigns(small, key)]
    rest = [(stmt, small) for stmt, small in found if not _constant(small, key)]
    if len(rest) == 1 and len(found) > 1 and isinstance(rest[0][1], cst.Assign) and \
            key not in {dotted(n) for n in nodes(rest[0][1].value) if isinstance(n, (cst.Name, cst.Attribute))}:
        found = rest
    return [stmt for stmt, _small in found]


def _constant(small, key) -> bool:
    """`key = 0`, `a, key = 0, None`: a plain assignment of a number or None to `key`."""
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return False
    target, value = small.targets[0].target, small.value
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)):
        if len(target.elements) != len(value.elements):
            return False
        pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)]
    else:
        pairs = [(target, value)]
    hits = [v for t, v in pairs if dotted(t) == key]
    return len(hits) == 1 and _number_or_none(hits[0])


def _number_or_none(expr) -> bool:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    return type(expr) in (cst.Integer, cst.Float) or type(expr) is cst.Name and expr.value == "None"


def _rebinds_elsewhere(inner, key) -> bool:
    """`for loss in ...`, `with ... as loss`, `(loss := ...)`: not followed."""
    for node in inner:
        kind = type(node)  # exact types: this runs on every node of a loop
        if (kind is cst.NamedExpr or kind is cst.For or kind is cst.CompFor) and key in _target_keys(node.target):
            return True
        if kind is cst.AsName and key in _target_keys(node.name):
            return True
    return False


def _target_keys(target) -> set:
    if type(target) in (cst.Tuple, cst.List):
        return {k for el in target.elements for k in _target_keys(el.value)}
    if type(target) is cst.StarredElement:
        return _target_keys(target.value)
    key = dotted(target)
    return {key} if key else set()


def holds_element(node, names) -> bool:
    """Is the stored value a dict or list proven by a backward of one of its elements
    (`loss = compute_loss(...)`, `loss["total"].backward()`, `epoch_loss.append(loss)`)?
    Followed through the accumulator's stores and the stored name's."""
    seen, todo = set(), [node]
    while todo:
        current = todo.pop()
        if current in seen or len(seen) > 64:
            continue
        seen.add(current)
        if current.holder:
            return True
        todo.extend(parent for parent in current.parents if parent.name in names)
    return False


def backwarded_keys(body) -> frozenset:
    """The names some backward in `body` runs on (`loss.backward()`, `scaler.scale(loss)`,
    `accelerator.backward(loss)`), bound once or not: the weaker fact `flow._aside` needs."""
    def build(body):
        return frozenset(key for n in (nodes(body, skip=_SKIP) if isinstance(body, cst.CSTNode) else _all(body))
                         if type(n) is cst.Call for key, whole in _targets(n) if whole)
    return by_nodes("backwarded_keys", body, build)
