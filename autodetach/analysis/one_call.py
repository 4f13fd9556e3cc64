"""Sums and lists that hold one call's graphs, not one per training step.

    def update(self, batch):
        c_loss = []
        for agent in range(self.n_agents):
            self.opts[agent].zero_grad()
            loss = crit(self.critics[agent](batch), y)
            loss.backward()
            self.opts[agent].step()
            c_loss.append(loss)
        return c_loss

`c_loss` keeps a graph per iteration, but the loop goes over the agents
(its variable picks the module and optimizer: there are as many iterations
as agents), and the list starts again at each call: memory does not grow
with training. The same holds for a loop with no optimizer step inside
whose sum starts again in the function that steps after the loop
(`for task in tasks: meta_losses.append(...)`; `opt.step()` after it): the
iterations are parts of one step.

Either way the sum must not be walked again by a backward inside the loop
(`total.backward(retain_graph=True)` each iteration adds the earlier terms
again), and no enclosing loop of the same function may carry it on.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .bindings import target_names
from .walk import nodes

# Methods only a module, an optimizer or an environment has: an entry they are called on is a part.
PART_METHODS = {"step", "zero_grad", "parameters", "named_parameters", "train", "eval", "requires_grad_",
                "state_dict", "load_state_dict"}


def one_call(scope, key: str, head, loop, older, outer: tuple) -> bool:
    """Does `key`, kept across the iterations of `loop`, hold one call's (or
    one outer iteration's) graphs only: started again before the loop, the
    loop goes over the parts of a model or over the sub-steps of one step,
    and no backward in the loop walks the kept graphs again?"""
    if not isinstance(loop, cst.For) or not _started_before(_home(scope, loop), loop, key):
        return False
    if any(key in scope._leak_keys.get(id(o), ()) for o in outer):
        return False  # an enclosing loop carries it on
    kept = set(older) | {head}
    events = scope.events
    if any(ev.kind in ("backward", "grad") and loop in ev.loops and kept & ev.reach for ev in events):
        return False  # walked again each iteration: the earlier terms count again
    return part_loop(scope, loop) or _sub_steps(events, loop, head, outer)


def _sub_steps(events, loop, head, outer: tuple = ()) -> bool:
    """No step inside the loop, one after it in the same function: the
    iterations build one step."""
    if any(ev.kind == "step" and loop in ev.loops for ev in events):
        return False
    if updates_by_hand(loop, outer):
        return False  # `w -= lr * w.grad` in the loop: each iteration is a step of its own
    return any(ev.kind == "step" and loop not in ev.loops and ev.seq > head.seq for ev in events)


_IN_PLACE = {"sub_", "add_", "copy_", "addcdiv_", "addcmul_"}


def _base(expr) -> Optional[str]:
    """`w`, `p.data` or `self.w.data`: the tensor's dotted name without `.data`."""
    name = dotted(expr)
    while name is not None and name.endswith(".data"):
        name = name[:-len(".data")]
    return name


def _grads_of(expr) -> set:
    """The tensors whose `.grad` `expr` reads (`lr * w.grad.data` reads `w`'s)."""
    return {_base(n.value) for n in nodes(expr) if isinstance(n, cst.Attribute) and n.attr.value == "grad"} - {None}


def _updated(loop) -> list:
    """(tensor, statement) for each tensor the body updates in place from its own gradient."""
    out = []
    for node in nodes(loop.body):
        if isinstance(node, cst.AugAssign) and isinstance(node.operator, (cst.SubtractAssign, cst.AddAssign)):
            name = _base(node.target)
            if name in _grads_of(node.value):
                out.append(name)
        elif isinstance(node, cst.Assign) and len(node.targets) == 1:
            name = _base(node.targets[0].target)
            if name in _grads_of(node.value):
                out.append(name)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                node.func.attr.value in _IN_PLACE:
            name = _base(node.func.value)
            if any(name in _grads_of(arg.value) for arg in node.args):
                out.append(name)
    return out


def _bound_in(outer) -> tuple:
    """What the outermost loop binds in its body or target: ({dotted name}, {loop
    variable: dotted name of what it iterates})."""
    bound, over = set(), {}
    for node in [outer] + list(nodes(outer.body)):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                bound.update(target_names(t.target) or [dotted(t.target)])
        elif isinstance(node, (cst.AnnAssign, cst.NamedExpr)):
            bound.update(target_names(node.target) or [dotted(node.target)])
        elif isinstance(node, (cst.For, cst.CompFor)):
            names = target_names(node.target)
            if node is not outer and len(names) == 1 and dotted(node.iter) is not None:
                over[names[0]] = dotted(node.iter)
            else:
                bound.update(names)
        elif isinstance(node, cst.AsName):
            bound.update(target_names(node.name))
    return bound - {None}, over


def updates_by_hand(loop, outer: tuple = ()) -> bool:
    """Does the loop's body update a tensor in place from its own gradient, a step written
    out (`w -= lr * w.grad`, `p.data.sub_(lr * p.grad)` for `p` in a list of them), where the
    tensor (or the list) is bound before the outermost enclosing loop: a weight every step
    trains, not an input made anew for each batch (`x_adv.data += eps * x_adv.grad.sign()`)?"""
    updated = _updated(loop)
    if not updated:
        return False
    bound, over = _bound_in(outer[0] if outer else loop)

    def before(name: str) -> bool:
        if name in over:
            name = over[name]
        return name.split(".")[0] not in bound and name not in bound

    return any(before(name) for name in updated)


def part_loop(scope, loop) -> bool:
    """Does each iteration of `loop` work on another part: `for i in range(n)`
    whose `i` picks a module or optimizer from a list (`self.critics[i](x)`,
    `self.opts[i].step()`, `self.models[i].disc` handed to a parameter that
    is a module), or `for D, opt in zip(Ds, opts)` calling or stepping them?"""
    by_index, direct = _targets(loop)
    if not by_index and not direct:
        return False
    if _parameter_reads(loop, direct):
        return True
    for node in nodes(loop.body):
        if isinstance(node, cst.Call):
            func = node.func
            if _picked(func, by_index, direct) or isinstance(func, cst.Attribute) and \
                    func.attr.value == "forward" and _picked(func.value, by_index, direct):
                return True  # an entry called on tensors (`self.discs[key].forward(x)` too)
            if isinstance(func, cst.Attribute) and func.attr.value in PART_METHODS and \
                    _picked(func.value, by_index, direct):
                return True
            if _hands_part(scope, node, by_index, direct):
                return True
    return False


def _parameter_reads(loop, direct: set) -> bool:
    """`for up, down in lora_layers(model): weights.append(up.weight.to(torch.float16))`: a
    loop variable's `.weight` / `.bias` is read (a module's, not a tensor's) and the body
    calls nothing but tensor and container methods and builtins, so the only graph kept is
    that of each entry's own parameters."""
    from .tensor_methods import BUILTIN_METHODS

    reads = False
    for node in nodes(loop.body):
        if isinstance(node, cst.Attribute) and node.attr.value in ("weight", "bias") and \
                _picked(node.value, set(), direct):
            reads = True
        elif isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in BUILTIN_METHODS:
                continue
            if isinstance(func, cst.Name) and func.value in _BUILTINS:
                continue
            return False
        elif isinstance(node, (cst.Lambda, cst.FunctionDef)):
            return False
    return reads


_BUILTINS = {"len", "float", "int", "str", "isinstance", "print", "tuple", "list", "dict", "getattr"}


def _targets(loop: cst.For):
    """Loop variables that index (`range`, `enumerate`'s count) and those
    bound to the entries of what is iterated (not a range)."""
    it = loop.iter
    func = it.func.value if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) else None
    target = loop.target
    if func == "range":
        return ({target.value} if isinstance(target, cst.Name) else set()), set()
    names = {n.value for n in nodes(target) if isinstance(n, cst.Name)}
    if func == "enumerate" and isinstance(target, cst.Tuple) and target.elements and \
            isinstance(target.elements[0].value, cst.Name):
        count = target.elements[0].value.value
        return {count}, names - {count}
    return set(), names


def _picked(expr, by_index: set, direct: set) -> bool:
    """An entry the loop's variable picks: the variable itself (`D` of `zip(Ds, opts)`), or a named
    collection indexed by the count (`self.opts[i]`) or by a key the loop goes over
    (`self.optimizers[name]` for `name in self.optimizers.keys()`, `key, _ in self.discs.items()`)."""
    if isinstance(expr, cst.Name):
        return expr.value in direct
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        idx = expr.slice[0].slice.value
        return isinstance(idx, cst.Name) and (idx.value in by_index or idx.value in direct) and \
            dotted(expr.value) is not None
    return False


def _entry(expr, by_index: set, direct: set) -> bool:
    """`self.models[i]` or `self.models[i].disc` (an attribute of the entry)."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return _picked(expr, by_index, direct)


def _hands_part(scope, call: cst.Call, by_index: set, direct: set) -> bool:
    """An entry handed to a local function whose parameter is a module or an optimizer."""
    fn = _local_def(scope, call.func)
    if fn is None:
        return False
    params = [p.name.value for p in fn.params.params]
    if params[:1] == ["self"] and isinstance(call.func, cst.Attribute):
        params = params[1:]
    for index, arg in enumerate(call.args):
        if arg.star or not _entry(arg.value, by_index, direct):
            continue
        name = arg.keyword.value if arg.keyword is not None else params[index] if index < len(params) else None
        if name is not None and (scope.names.is_module(name) or name in scope.names.optimizers or
                                 _used_as_part(fn, name)):
            return True
    return False


def _used_as_part(fn, name: str) -> bool:
    """Does `fn` call a method only a module or optimizer has on its parameter
    `name` (`optimizer.step()`), or hand it to a scaler's step (`scaler.step(optimizer)`)?"""
    for node in nodes(fn.body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value in PART_METHODS and isinstance(node.func.value, cst.Name) and \
                    node.func.value.value == name:
                return True
            if node.func.attr.value == "step" and node.args and isinstance(node.args[0].value, cst.Name) and \
                    node.args[0].value.value == name:
                return True
    return False


def _local_def(scope, func) -> Optional[cst.FunctionDef]:
    table = scope.names
    if isinstance(func, cst.Name):
        return table.functions.get(func.value)
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
        cls = scope.self_class or scope.method_class
        name = cls if isinstance(cls, str) else getattr(getattr(cls, "name", None), "value", None)
        if name:
            return table.class_method(name, func.attr.value)
        # a method inlined into its caller's walk, whose class is not carried: the one
        # class of the file that has the method
        found = [fn for (_, meth), fn in table.methods.items() if meth == func.attr.value]
        return found[0] if len(found) == 1 else None
    return None


def _home(scope, loop) -> list:
    """The statements of the function that holds `loop`: the walked one, or
    a callee inlined into it (its locals start again at each call)."""
    if _contains_list(scope.body, loop):
        return scope.body
    holders = [fn for fn in scope.names.functions_all if _contains(fn, loop)]
    if not holders:
        return []
    inner = min(holders, key=lambda fn: len(nodes(fn)))
    return list(inner.body.body) if isinstance(inner.body, cst.IndentedBlock) else []


def _started_before(body, loop, key: str) -> bool:
    """Is `key` assigned at a level that encloses `loop`, before it?"""
    for block in _blocks_to(body, loop):
        for stmt in block:
            if stmt is loop or _contains(stmt, loop):
                break
            if _assigns(stmt, key):
                return True
    return False


def _blocks_to(body, loop) -> list:
    """The statement lists from `body` down to the one holding `loop`."""
    out = [list(body)]
    block = list(body)
    while True:
        holder = next((s for s in block if s is not loop and _contains(s, loop)), None)
        if holder is None:
            return out
        inner = _inner_block(holder, loop)
        if inner is None:
            return out
        out.append(inner)
        block = inner


def _inner_block(stmt, loop) -> Optional[list]:
    for node in nodes(stmt):
        if node is stmt:
            continue
        if isinstance(node, cst.IndentedBlock) and _contains_list(node.body, loop):
            return list(node.body)
    return None


def _contains_list(stmts, target) -> bool:
    return any(s is target or _contains(s, target) for s in stmts)


def _contains(stmt, target) -> bool:
    return any(n is target for n in nodes(stmt))


def _assigns(stmt, key: str) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        targets = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            targets = [small.target]
        for target in targets:
            parts = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
            if any(dotted(p) == key for p in parts):
                return True
    return False
