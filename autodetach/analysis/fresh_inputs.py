"""`torch.autograd.grad(out, x, retain_graph=True)` where `x` is a tensor the
function makes anew on each call (`x = s.detach().clone().requires_grad_()`,
`x = a.reshape(n)`, `torch.zeros(n, requires_grad=True)`).

Such a grad walks only the nodes between `out` and `x`, and every one of them
was made by this call after `x`: no graph built elsewhere is walked. So the
retain is needed only when a later backward or grad of this function reaches
what `out` hangs from, or when that escapes the call (returned, stored, handed
to a call that may keep it). The analysis may see no graph in `out` at all
(`c = event_fn(t, x)` of a function handed in): the names decide here.
What a call out of sight builds from `x` is taken to keep nothing past the
call: a note says so, and the fix is then unsafe."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from .flow import CUT_ATTRS, CUT_METHODS
from .new_tensors import makes_new_tensor
from .walk import nodes

# methods that always return a new tensor object (`flatten` may return `self`)
_NEW = {"detach", "clone", "reshape", "view", "view_as", "reshape_as", "new_tensor", "new_zeros",
        "new_ones", "new_empty", "new_full"}
# methods that return their tensor, or a copy of it
_SAME = {"requires_grad_", "to", "cuda", "cpu", "float", "double", "half", "type", "contiguous", "detach_"}
_GRADS = {"torch.autograd.grad", "torch.autograd.backward"}


def fresh_grad(analysis, ev) -> Optional[list]:
    """Notes (maybe none) when nothing but `ev` walks the part of the graph its
    grad reaches, its inputs being made anew by the call; None when not shown."""
    ctx = analysis.ctx
    if ev.kind != "grad" or ev.create_graph or ev.target_expr is None:
        return None
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None:
        return None
    loop = ctx.enclosing(ev.call, (cst.For, cst.While), stop=(cst.FunctionDef,))
    if any(isinstance(x, (cst.Global, cst.Nonlocal)) for x in nodes(fn.body)):
        return None
    inputs = _inputs(ev.call)
    if not inputs:
        return None
    binds = _bindings(ctx, fn)
    if binds is None:
        return None
    at = ctx.line_of(ev.call)
    if loop is not None:
        return _fresh_in_loop(ctx, fn, loop, ev, inputs, binds)
    if any(not _fresh_name(ctx, binds, name, at, ev.call, 0) for name in inputs):
        return None
    # bound before the grad from what the inputs reach (an input rebound from itself is still the input)
    made = _derived(ctx, binds, set(inputs), at) - set(inputs)
    hangs = _slice(ctx, binds, ev.target_expr, made, at)  # what `out` hangs from
    reach = _derived(ctx, binds, hangs, None) | hangs
    building = [s for name in hangs for _line, _v, s in binds.get(name, ())]
    if _escapes(ctx, fn, ev, reach, building):
        return None
    unseen = _unseen_calls(ctx, binds, ev.target_expr, hangs, set(inputs) | made)
    listed = ", ".join(f"`{x}`" for x in sorted(inputs))
    return [f"what `{c}` builds from {listed} (made anew by this call, so the grad walks nothing built "
            f"before it) is out of sight: taken to keep none of that graph past the call" for c in unseen]


def _fresh_in_loop(ctx, fn, loop, ev, inputs, binds) -> Optional[list]:
    """In a loop (an inner loop of first-order meta-learning: `grads = grad(loss, q_params,
    retain_graph=True)`, then `q_params[i] = q_params[i] - lr * grads[i]`): every binding of
    each input, before the loop and in it (element stores included), makes new tensors, and
    what the target hangs from is bound anew in the loop's body before the grad, on every
    iteration. The grad then walks only what this iteration built from its inputs; the
    retain is needed only when that is read again (by a later walk, on a later iteration,
    or out of the call). A statement in the other arm of the `if` around the grad that reads
    only names the iteration binds anew before that `if` never sees this grad's graph."""
    body = loop.body.body if isinstance(loop.body, cst.IndentedBlock) else ()
    top = next((stmt for stmt in body if ctx.encloses(stmt, ev.call)), None)
    if top is None or ctx.enclosing(ev.call, (cst.For, cst.While), stop=(cst.FunctionDef,)) is not loop:
        return None
    params = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params, *fn.params.posonly_params)}
    for name in inputs:
        entries = binds.get(name, ())
        if name in params or not entries or any(not _fresh_value(ctx, binds, v, line, st) for line, v, st in entries):
            return None  # an argument is the caller's: what it built on it may lie between the loss and it
        if not any(not ctx.encloses(loop, st) and ctx.line_of(st) < ctx.line_of(loop) and _dominates(ctx, st, loop)
                   for _line, _v, st in entries):
            return None  # made before the loop, on every path to it
        for x in nodes(fn.body):
            if isinstance(x, (cst.Assign, cst.AugAssign)) and any(
                    isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name) and t.value.value == name
                    for t in _store_targets(x)):
                if isinstance(x, cst.AugAssign) or not _fresh_value(ctx, binds, x.value, ctx.line_of(x), x):
                    return None  # `q_params[i] += ...`, `q_params[i] = self.w`: not made anew
            elif isinstance(x, cst.Call) and isinstance(x.func, cst.Attribute) and \
                    isinstance(x.func.value, cst.Name) and x.func.value.value == name:
                return None  # `q_params.append(w)`: what it holds is not told
    before = body[:body.index(top)]
    anew = {name for stmt in before if _unconditional(stmt) for name in _bound_names(stmt)}
    other = _other_arm(ctx, ev.call, top)
    made: set = set()
    changed = True
    while changed:  # bound in the loop from the inputs, through others
        changed = False
        for name, entries in binds.items():
            if name not in inputs and name not in made and any(
                    ctx.encloses(loop, st) and carried(ctx, v) & (set(inputs) | made)
                    for _line, v, st in entries if v is not None):
                made.add(name)
                changed = True
    hangs: set = set()
    todo = list(carried(ctx, ev.target_expr) & made)
    while todo:
        name = todo.pop()
        if name in hangs:
            continue
        hangs.add(name)
        for _line, v, st in binds.get(name, ()):
            if v is not None and ctx.encloses(loop, st) and ctx.line_of(st) < ctx.line_of(ev.call):
                todo.extend(carried(ctx, v) & made)
    if not hangs or not hangs <= anew or any(
            not any(_unconditional(b) and ctx.encloses(b, st) for b in before)
            for name in hangs for _line, _v, st in binds.get(name, ()) if ctx.encloses(loop, st)):
        return None  # the target must be bound anew, before the grad, on every iteration

    def apart(stmt, read) -> bool:
        return other is not None and ctx.encloses(other, stmt) and read <= anew

    reach = hangs | _derived(ctx, binds, hangs, None, apart)
    if reach & set(inputs):
        return None
    for x in nodes(fn.body):
        if x is ev.call or ctx.encloses(ev.call, x) or not isinstance(x, cst.Call):
            continue
        q = ctx.imports.qualify(x.func) or ""
        if q in _GRADS or isinstance(x.func, cst.Attribute) and x.func.value is not None and \
                x.func.attr.value == "backward":
            read = set().union(*(carried(ctx, a.value) for a in x.args))
            if isinstance(x.func, cst.Attribute):
                read |= carried(ctx, x.func.value)
            if read & reach and not apart(x, read & reach):
                return None  # another walk through what this iteration built
    building = [st for name in hangs for _line, _v, st in binds.get(name, ())]
    if _escapes(ctx, fn, ev, reach, building, everywhere=True, apart=apart):
        return None
    unseen = _unseen_calls(ctx, binds, ev.target_expr, hangs, set(inputs) | made)
    listed = ", ".join(f"`{x}`" for x in sorted(inputs))
    notes = [f"what `{c}` builds from {listed} (made anew on each iteration, so the grad walks nothing built "
             f"before it) is out of sight: taken to keep none of that graph past the iteration" for c in unseen]
    for x in nodes(fn.body):
        if not isinstance(x, cst.Call) or x is ev.call or _torch_chain(ctx, x.func) or \
                isinstance(x.func, cst.Name) and x.func.value in _PLAIN | {"zip", "enumerate", "range", "list"}:
            continue
        given = [a.value.value for a in x.args if isinstance(a.value, cst.Name) and a.value.value in inputs]
        if given:
            note = (f"`{given[0]}` is handed to `{ctx.snippet(x)}`, taken not to store into it a tensor "
                    f"built before (the grad would walk on into what built it)")
            if note not in notes:
                notes.append(note)
    return notes


def _fresh_value(ctx, binds, value, line, stmt) -> bool:
    """A value that is new tensors: a factory or copy, arithmetic (not in place), or a list of those."""
    if value is None or isinstance(stmt, cst.AugAssign):
        return False
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        return _fresh_value(ctx, binds, value.elt, line, stmt)
    if isinstance(value, (cst.List, cst.Tuple)):
        return bool(value.elements) and all(
            not isinstance(e, cst.StarredElement) and _fresh_value(ctx, binds, e.value, line, stmt)
            for e in value.elements)
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in ("list", "tuple") \
            and len(value.args) == 1:
        return _fresh_value(ctx, binds, value.args[0].value, line, stmt)
    if isinstance(value, (cst.BinaryOperation, cst.UnaryOperation)):
        return True  # `p + 0.`, `w - lr * g`, `-w`: a new tensor
    if isinstance(value, cst.Name):
        return False
    return _fresh(ctx, binds, value, line, stmt, 0)


def _store_targets(stmt):
    targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
    for t in targets:
        yield from _target_parts(t)


def _bound_names(stmt) -> set:
    out = set()
    for x in nodes(stmt):
        if isinstance(x, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            out.update(t.value for t in _store_targets(x) if isinstance(t, cst.Name))
    return out


def _unconditional(stmt) -> bool:
    """A simple statement (it runs whenever the block does)."""
    return isinstance(stmt, cst.SimpleStatementLine)


def _other_arm(ctx, call, top):
    """The arm of the innermost `if` around `call` (inside `top`) that does not hold it."""
    node = ctx.parent(call)
    while node is not None and node is not top:
        parent = ctx.parent(node)
        if isinstance(parent, cst.If) and node is parent.body:
            orelse = parent.orelse
            return orelse.body if isinstance(orelse, cst.Else) else orelse
        if isinstance(parent, cst.Else):
            owner = ctx.parent(parent)
            if isinstance(owner, cst.If):
                return owner.body
        node = parent
    if isinstance(top, cst.If):
        if ctx.encloses(top.body, call):
            return top.orelse.body if isinstance(top.orelse, cst.Else) else top.orelse
        return top.body
    return None


def _inputs(call) -> list:
    """The names `autograd.grad` differentiates for: its second argument or `inputs=`."""
    pos = [a for a in call.args if a.keyword is None and a.star == ""]
    arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "inputs"), None)
    if arg is None and len(pos) >= 2:
        arg = pos[1].value
    if isinstance(arg, cst.Name):
        return [arg.value]
    if isinstance(arg, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.Name) for e in arg.elements):
        return [e.value.value for e in arg.elements]
    return []


def _bindings(ctx, fn) -> Optional[dict]:
    """name -> [(line, value or None, statement)] for the function's own bindings,
    in order; value None for a binding whose value is not an expression here
    (a loop variable, `with ... as`, `+=`). None when a name is bound in a
    nested function's way (walrus)."""
    out: dict = {}
    for x in nodes(fn.body):
        if isinstance(x, cst.NamedExpr):
            return None
        if isinstance(x, cst.Assign):
            for tgt in x.targets:
                _bind(ctx, out, tgt.target, x.value, x)
        elif isinstance(x, (cst.AugAssign, cst.AnnAssign)) and x.value is not None:
            val = x.value if isinstance(x, cst.AnnAssign) else cst.BinaryOperation(
                left=x.target, operator=cst.Add(), right=x.value)
            _bind(ctx, out, x.target, val, x)
        elif isinstance(x, (cst.For, cst.CompFor)):
            _bind(ctx, out, x.target, None, x)
        elif isinstance(x, cst.AsName):
            _bind(ctx, out, x.name, None, x)
    return out


def _bind(ctx, out, target, value, stmt) -> None:
    if isinstance(target, cst.Name):
        out.setdefault(target.value, []).append((ctx.line_of(stmt), value, stmt))
    elif isinstance(target, (cst.Tuple, cst.List)):
        parts = value.elements if isinstance(value, (cst.Tuple, cst.List)) and \
            len(value.elements) == len(target.elements) else None
        for i, el in enumerate(target.elements):
            sub = el.value.value if isinstance(el.value, cst.StarredElement) else el.value
            if parts is not None and not isinstance(parts[i], cst.StarredElement):
                _bind(ctx, out, sub, parts[i].value, stmt)
            else:  # an element of an unpacked value: it carries what the whole reads
                _bind(ctx, out, sub, value, stmt)


def _fresh_name(ctx, binds, name, at, use, depth) -> bool:
    """Is `name`, where `use` reads it at line `at`, a tensor made anew by this call?"""
    before = [b for b in binds.get(name, ()) if b[0] < at]
    if not before or depth > 8:
        return False
    line, value, stmt = before[-1]
    if value is None or any(b[0] == line for b in before[:-1]) or not _dominates(ctx, stmt, use):
        return False
    return _fresh(ctx, binds, value, line, stmt, depth + 1)


def _fresh(ctx, binds, expr, at, stmt, depth) -> bool:
    if isinstance(expr, cst.Name):
        return _fresh_name(ctx, binds, expr.value, at, stmt, depth)
    if not isinstance(expr, cst.Call):
        return False
    func = expr.func
    if isinstance(func, cst.Attribute):
        if func.attr.value in _NEW:
            return True
        if func.attr.value in _SAME:
            return _fresh(ctx, binds, func.value, at, stmt, depth)
    return makes_new_tensor(ctx.imports.qualify(func))


def _dominates(ctx, stmt, use) -> bool:
    """Does every block around `stmt` hold `use` too (so `stmt` runs before it)?"""
    block = ctx.parent(ctx.statement_of(stmt))
    while block is not None and not isinstance(block, cst.FunctionDef):
        if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) and not ctx.encloses(block, use):
            return False
        block = ctx.parent(block)
    return True


def carried(ctx, expr) -> set:
    """Names whose graph `expr`'s value may hold."""
    if isinstance(expr, cst.Name):
        return {expr.value}
    if isinstance(expr, cst.Attribute):
        return set() if expr.attr.value in CUT_ATTRS else carried(ctx, expr.value)
    if isinstance(expr, cst.Call):
        func = expr.func
        q = ctx.imports.qualify(func)
        if q in _GRADS and not any(a.keyword is not None and a.keyword.value == "create_graph" for a in expr.args):
            return set()
        if makes_new_tensor(q) or isinstance(func, cst.Attribute) and func.attr.value in CUT_METHODS:
            return set()
        out = set().union(*(carried(ctx, a.value) for a in expr.args))
        return out | (carried(ctx, func.value) if isinstance(func, cst.Attribute) else set())
    if isinstance(expr, cst.Subscript):
        return carried(ctx, expr.value)
    if isinstance(expr, cst.IfExp):
        return carried(ctx, expr.body) | carried(ctx, expr.orelse)
    if isinstance(expr, (cst.Comparison, cst.SimpleString, cst.Integer, cst.Float)):
        return set()
    if isinstance(expr, cst.Lambda):
        return {x.value for x in nodes(expr.body) if isinstance(x, cst.Name)}
    out: set = set()
    for child in expr.children:
        if isinstance(child, cst.BaseExpression):
            out |= carried(ctx, child)
        elif isinstance(child, (cst.Element, cst.Arg, cst.DictElement, cst.StarredElement)):
            out |= set().union(*(carried(ctx, v) for v in child.children if isinstance(v, cst.BaseExpression)))
    return out


def _derived(ctx, binds, seeds, before, apart=None) -> set:
    """Names bound (before line `before`, or anywhere) to values carrying a seed's graph, through others;
    not by a binding `apart(stmt, read)` sets aside (what it reads runs in the other arm)."""
    out: set = set()
    changed = True
    while changed:
        changed = False
        for name, entries in binds.items():
            if name in out:
                continue
            for line, value, stmt in entries:
                if before is not None and line >= before:
                    continue
                read = carried(ctx, value) & (seeds | out) if value is not None else set()
                if read and not (apart is not None and apart(stmt, read)):
                    out.add(name)
                    changed = True
                    break
    return out


def _slice(ctx, binds, target, made, at) -> set:
    """The names among `made` that the target's value hangs from, through their bindings;
    with the others a statement binding one of them binds (`c, aux = f(x)`: one call's graph)."""
    out: set = set()
    todo = list(carried(ctx, target) & made)
    while todo:
        name = todo.pop()
        if name in out:
            continue
        out.add(name)
        for line, value, stmt in binds.get(name, ()):
            if line < at and value is not None:
                todo.extend(carried(ctx, value) & made)
                todo.extend(other for other, entries in binds.items() if any(e[2] is stmt for e in entries))
    return out


def _escapes(ctx, fn, ev, reach, building, everywhere=False, apart=None) -> bool:
    """Does a value carrying what the grad walked leave the call, or reach a later backward?
    `building`: the statements binding what the target hangs from (their calls are noted apart).
    `everywhere`: a walk anywhere in the function counts (a loop runs it again); `apart(stmt, read)`:
    a statement that never sees this grad's graph."""
    if not reach:
        return False
    at = ctx.line_of(ev.call) if not everywhere else -1
    for x in nodes(fn.body):
        if x is ev.call or ctx.encloses(ev.call, x):
            continue
        if apart is not None and apart(x, _read_by(ctx, x) & reach):
            continue
        if isinstance(x, (cst.Return, cst.Yield)) and x.value is not None and carried(ctx, x.value) & reach:
            return True
        if isinstance(x, (cst.FunctionDef, cst.Lambda)) and \
                {n.value for n in nodes(x) if isinstance(n, cst.Name)} & reach:
            return True  # a closure reading it may run later
        if isinstance(x, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and x.value is not None:
            targets = [t.target for t in x.targets] if isinstance(x, cst.Assign) else [x.target]
            stored = any(not isinstance(n, cst.Name) for t in targets for n in _target_parts(t))
            if stored and carried(ctx, x.value) & reach:
                return True  # `self.h = h`, `cache[k] = h`
        if not isinstance(x, cst.Call):
            continue
        func = x.func
        q = ctx.imports.qualify(func) or ""
        walks = q in _GRADS or isinstance(func, cst.Attribute) and func.attr.value == "backward"
        read = set().union(*(carried(ctx, a.value) for a in x.args))
        if isinstance(func, cst.Attribute):
            read |= carried(ctx, func.value)
        if walks and ctx.line_of(x) >= at and read & reach:
            return True  # another walk through it
        if walks or not any(carried(ctx, a.value) & reach for a in x.args) or any(ctx.encloses(b, x) for b in building):
            continue
        if q.startswith("torch.") or isinstance(func, cst.Attribute) and carried(ctx, func.value) & reach \
                or isinstance(func, cst.Name) and func.value in _PLAIN and q == "":
            continue
        return True  # `keep(h)`, `seen.append(h)`: a call out of sight may keep it
    return False


def _read_by(ctx, x) -> set:
    """Names whose graph the node hands on (its value, or a call's arguments and object)."""
    if isinstance(x, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return, cst.Yield)):
        return carried(ctx, x.value) if x.value is not None else set()
    if isinstance(x, cst.Call):
        out = set().union(*(carried(ctx, a.value) for a in x.args))
        return out | (carried(ctx, x.func.value) if isinstance(x.func, cst.Attribute) else set())
    if isinstance(x, (cst.FunctionDef, cst.Lambda)):
        return {n.value for n in nodes(x) if isinstance(n, cst.Name)}
    return set()


_PLAIN = {"len", "print", "isinstance", "float", "int", "str", "repr", "format", "bool"}


def _target_parts(target):
    if isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from _target_parts(el.value)
    else:
        yield target


def _unseen_calls(ctx, binds, target, hangs, made) -> list:
    """The calls out of sight (not torch's, not a tensor's method) that build the target."""
    exprs = [target] + [v for name in hangs for _line, v, _s in binds.get(name, ()) if v is not None]
    out = []
    for expr in exprs:
        for x in nodes(expr):
            if not isinstance(x, cst.Call):
                continue
            if _torch_chain(ctx, x.func) or isinstance(x.func, cst.Attribute) and carried(ctx, x.func.value) & made:
                continue
            text = ctx.snippet(x)
            if text not in out:
                out.append(text)
    return out


def _torch_chain(ctx, func) -> bool:
    """`torch.ones(n).requires_grad_().to`, `F.relu`: a call of torch's, or a method of what one made."""
    while isinstance(func, cst.Attribute) and (ctx.imports.qualify(func) or "") == "":
        func = func.value.func if isinstance(func.value, cst.Call) else func.value
    return (ctx.imports.qualify(func) or "").startswith("torch.")
