"""Recurrent state a loop threads through a call, returned and fed back, in a
loop that never backwards.

    for i in range(predict_len):
        out, state = self.model(x, state)           # gradients on
        x = pick(out.data)                          # only numbers leave

    for t in range(100):
        action, hidden = agent.get_action(obs, hidden)   # runs self.drqn on hidden

Each step's state carries the graph of every earlier step, and nothing
backwards it: memory grows with the loop. The call is a module with
parameters, or a method of a class of this file that runs one on the state
and returns the new state. Left alone: a loop that backwards or steps (the
state may be trained through: AD106's), state rebound or cut in the loop,
state read anywhere but by the call or through a cut, outputs kept with
their graph (`outs.append(out)`: unrolled for a later backward), and a call
under `torch.no_grad()` (here, in the function's decorator, or around every
call of the function), and a module's forward (its callers choose). `model.eval()`
is no cut. In a file that trains nothing, a loop is read only where it runs with
gradients on as far as the project shows (own_steps.grad_on_note): the script's
own loop, or a function or method some call of which runs outside no_grad."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from ..imports import dotted
from .buffer_updates import CUT_METHODS
from .state_questions import bound_here, calls_any, reaches_cut, trainers, trains, under_no_grad
from .walk import children, nodes

# a method that stores what it is given (the acting step may keep a graph for a later backward)
STORES = {"append", "extend", "insert", "add", "put", "push", "store", "remember", "update", "__setitem__"}
PLAIN_ROOTS = ("random.", "numpy.random.")


@dataclass
class ThreadedState:
    call: cst.Call  # `self.model(x, state)` or `agent.get_action(obs, hidden)`
    stmt: cst.SimpleStatementLine  # its statement
    key: str  # `state`: fed back into the next call
    loop: cst.CSTNode  # the loop that threads it
    runner: str  # the module that runs on the state: `self.model`, or `self.drqn` in `Agent.get_action`
    via: str  # the method the call goes through ("" when it calls the module itself)
    inferred: str = ""  # what was inferred about the runner (a function's parameter): "" when nothing
    trains: bool = False  # the loop trains something else (what it trains does not read the state)
    kept: tuple = ()  # the calls that are handed the state and keep it cut (`buffer.add(s, h)`)
    whole: tuple = ()  # the calls that are handed the state and keep it as it is (`memory.push(s, h)`)


def threaded_states(analysis) -> list:
    return analysis.memo("_threaded_states", lambda: _find(analysis))


def _find(analysis) -> list:
    sites = analysis.sites
    # with nothing trained here, only a parameter whose state comes from a project module class's
    # method (`hidden = model.init_hidden(...)`) is evidence that the module's outputs carry a graph
    trained = bool(sites.backward_in or sites.module_level_backward)
    if not trained and not analysis.ctx.imports.mentions_torch():
        return []
    ctx = analysis.ctx
    out = []
    for stmt in (n for n in nodes(ctx.module) if type(n) is cst.SimpleStatementLine):
        found = _threaded(analysis, stmt, trained)
        if found is not None:
            out.append(found)
    return out


def _threaded(analysis, stmt, trained: bool = True) -> Optional[ThreadedState]:
    ctx, names = analysis.ctx, analysis.names
    if len(stmt.body) != 1 or type(stmt.body[0]) is not cst.Assign or len(stmt.body[0].targets) != 1:
        return None
    call = stmt.body[0].value
    if type(call) is not cst.Call or any(a.star for a in call.args):
        return None
    targets = _flat(stmt.body[0].targets[0].target)
    if targets is None:
        return None
    fed = [k for k in targets if k and any(k in _arg_names(a.value) for a in call.args)]
    loop = ctx.enclosing(call, (cst.For, cst.While), stop=(cst.FunctionDef,))
    new = None  # `a, new_h = f(x, h)` ... `h = new_h`: the state comes back under another name
    if not fed and loop is not None and len(call.args) >= 2:
        renamed = _renamed(loop, stmt, targets, call)
        if renamed is not None:
            fed, new = [renamed[0]], renamed
    # `x = block(x)` transforms; a recurrence also takes an input
    if len(fed) != 1 or len(call.args) < 2:
        return None
    key = fed[0]
    fn = ctx.enclosing(call, cst.FunctionDef)
    if loop is None or "." in key or (fn is not None and fn.name.value == "forward"):
        return None  # a forward's callers, out of sight, choose the grad mode
    back = new[1] if new else key  # the name the call binds the new state to
    shaped = [key if t == back else t for t in targets]
    inferred = ""
    loud = None if trained else _grad_on(analysis, fn)
    found = _runner(analysis, call, shaped, key) if trained or loud else None
    if found is not None and loud:
        # a file that trains nothing: where the loop runs with gradients on; a method's code
        # is read instead (_read_runner: the numbers it returns, `.numpy()` too)
        found, inferred = (None, "") if found[1] else (found, loud)
    if found is not None and found[1] and not new and (trains(analysis, loop.body) or
                                                       calls_any(loop.body, trainers(analysis))):
        found = None  # a method's code, read (_read_runner), may show that only the step reads the state
    if found is None and fn is not None and not new:
        inferred = _param_module(analysis, fn, call, key, loop)
        found = (dotted(call.func), "", set()) if inferred else None
    read = found is None
    if read:
        found, inferred = _read_runner(analysis, call, targets, back, key)
    if found is None:
        return None
    runner, via, plain = found
    if not read and not via and _class_cuts(analysis, runner, len(targets), targets.index(back)):
        return None  # the module's class builds the state it hands back with gradients off (cut_returns)
    scope = fn if fn is not None else ctx.module
    others = [t for i, t in enumerate(targets) if t and t not in (key, back) and t != "_" and i not in plain]
    if any("." in t for t in others) or not all(_numbers_only(ctx, names, scope, loop, t) for t in others):
        return None
    rebind = new[2] if new else None
    reads = _state_reads(ctx, names, scope, loop, key, call, rebind) if new else \
        (() if _only_fed(ctx, names, scope, loop, key, call) else None)
    if new and reads is not None:
        more = _state_reads(ctx, names, scope, loop, back, call, rebind)
        reads = None if more is None else reads + more
    if reads is None or _rebound_in(loop, key, stmt, rebind, ctx if read else None) or \
            (new and _rebound_in(loop, back, stmt, None, None, dotted(call.func))):
        return None
    whole = tuple(r[0] for r in reads if not _cut_store(ctx, r))
    if whole and not (new or read):
        return None  # handed to code that keeps it as it is: a later backward may train through it
    # a loop that trains cannot reach a state read only by this call (and stores that cut it), with
    # the other outputs numbers; the state of a module the file holds may also be trained through
    if not (new or read) and (trains(analysis, loop.body) or calls_any(loop.body, trainers(analysis))):
        return None  # a loop that trains may train through the state (AD106's)
    if under_no_grad(ctx, call, fn) or (fn is not None and _called_quiet(ctx, fn)) or _volatile(scope):
        return None
    if inferred and fn is not None and fn in ctx.module.body and _quiet_elsewhere(ctx, fn):
        return None
    if inferred and _frozen_here(ctx):
        return None
    busy = trains(analysis, loop.body) or calls_any(loop.body, trainers(analysis)) or \
        calls_any(loop.body, {"train", "train_model", "update", "learn", "optimize"})
    return ThreadedState(call, stmt, key, loop, runner, via, inferred, bool(busy and (new or read)),
                         tuple(r[0] for r in reads if r[0] not in whole), whole)


def _class_cuts(analysis, runner: str, n: int, pos: int) -> bool:
    """The class `runner` was built from (this file's, or one a project file defines and this file
    imports) hands back from `forward`, at `pos` of `n`, state it cut or built under `no_grad`."""
    import ast

    from .cut_returns import returns_cut
    from .imported_classes import class_of

    names = analysis.names
    cls = None
    if runner in names.instances:
        tree = analysis.own_tree
        found = [c for c in (tree.body if tree is not None else []) if isinstance(c, ast.ClassDef) and
                 c.name == names.instances[runner]]
        cls = found[0] if len(found) == 1 else None
    elif runner in names.foreign_instances:
        cls = class_of(analysis, names.foreign_instances[runner])[0]
    return cls is not None and returns_cut(cls, "forward", n, pos)


def _renamed(loop, stmt, targets, call) -> Optional[tuple]:
    """(`h`, `new_h`, the statement `h = new_h`) where the call takes `h`, binds `new_h`, and one
    statement of the loop after it, at the call's own level, rebinds `h` to `new_h`."""
    args = set().union(*[_arg_names(a.value) for a in call.args])
    found = None
    for n in nodes(loop.body):
        if type(n) is not cst.SimpleStatementLine or n is stmt:
            continue
        for small in n.body:
            if type(small) is cst.Assign and len(small.targets) == 1 and type(small.value) is cst.Name and \
                    type(small.targets[0].target) is cst.Name:
                k, v = small.targets[0].target.value, small.value.value
                if k in args and v in targets and k not in targets:
                    if found is not None:
                        return None
                    found = (k, v, n)
    return found


def _read_runner(analysis, call, targets, back, key) -> tuple:
    """((runner, via, plain positions), inferred) from the code of the function or method the call
    goes to, in this file or another of the project's (recurrent_calls); (None, "") when not so."""
    from .recurrent_calls import summary

    ctx = analysis.ctx
    func = dotted(call.func)
    if func is not None and func.count(".") == 1 and func.startswith("self."):
        return _own_step(analysis, call, targets, back, key)
    if func is None or func.count(".") > (2 if func.startswith("self.") else 1):
        return None, ""  # `self.agent.act(o, h)` is read
    if "." not in func and func not in {f.name.value for f in ctx.module.body if type(f) is cst.FunctionDef}:
        return None, ""
    known = analysis.names.instances.get(func.rpartition(".")[0]) if "." in func else None
    arg_pos = None
    for i, a in enumerate(call.args):
        if key in _arg_names(a.value):
            arg_pos = a.keyword.value if a.keyword is not None else i
            break
    if arg_pos is None or (type(arg_pos) is int and any(a.keyword is not None for a in call.args[:arg_pos])):
        return None, ""
    got = summary(ctx.path, ctx.text, func, call.args, arg_pos, len(targets), targets.index(back), known)
    if got is None:
        return None, ""
    plain, inferred = got
    return (func, func, plain), inferred


def _grad_on(analysis, fn) -> Optional[str]:
    """In a file that trains nothing: why the loop of `fn` runs with gradients on (own_steps)."""
    from .own_steps import grad_on_note

    ctx = analysis.ctx
    cls = ctx.enclosing(fn, cst.ClassDef) if fn is not None else None
    if cls is not None and ctx.enclosing(cls, (cst.FunctionDef, cst.ClassDef)) is not None:
        return None
    return grad_on_note(ctx.path, ctx.text, ctx.module, fn, cls.name.value if cls is not None else None)


def _own_step(analysis, call, targets, back, key) -> tuple:
    """`a, h = self.step(obs, h)` in a loop of a method: the step read in the class (own_steps),
    with a call of the loop's method seen to run it with gradients on."""
    from .own_steps import self_step

    ctx = analysis.ctx
    fn = ctx.enclosing(call, cst.FunctionDef)
    cls = ctx.enclosing(fn, cst.ClassDef) if fn is not None else None
    if cls is None or ctx.enclosing(cls, (cst.FunctionDef, cst.ClassDef)) is not None:
        return None, ""
    arg_pos = _arg_pos(call, key)
    if arg_pos is None:
        return None, ""
    func = dotted(call.func)
    got = self_step(ctx.path, ctx.text, cls.name.value, fn.name.value, func.partition(".")[2], arg_pos,
                    len(targets), targets.index(back))
    if got is None:
        return None, ""
    plain, inferred = got
    return (func, func, plain), inferred


def _arg_pos(call, key):
    for i, a in enumerate(call.args):
        if key in _arg_names(a.value):
            pos = a.keyword.value if a.keyword is not None else i
            if type(pos) is int and any(x.keyword is not None for x in call.args[:pos]):
                return None
            return pos
    return None


def _state_reads(ctx, names, scope, loop, name, call, rebind) -> Optional[tuple]:
    """The calls that are handed `name` besides the threading call and the rebind (`buffer.add(s, h)`),
    when every other read is a cut; None when some read is neither."""
    inside = {id(n) for n in nodes(call)} | ({id(n) for n in nodes(rebind)} if rebind is not None else set())
    step = dotted(call.func)
    for other in nodes(loop.body):  # the same step on another arm (`if t < warmup: _, h2 = f(x, h) else: ...`)
        if type(other) is cst.Call and other is not call and step is not None and dotted(other.func) == step:
            inside |= {id(n) for n in nodes(other)}
    out = []
    for n in _uses(ctx, scope, loop, name):
        if id(n) in inside or reaches_cut(ctx, names, n):
            continue
        parent = ctx.parent(n)
        owner = ctx.parent(parent) if type(parent) is cst.Arg else None
        if type(owner) is cst.Call and type(owner.func) is cst.Attribute and owner.func.attr.value in STORES and \
                not parent.star and parent.keyword is None:
            out.append((owner, owner.args.index(parent)))
            continue
        return None
    return tuple(out)


def _cut_store(ctx, read) -> bool:
    """The store's method, in every project class that defines it, cuts the argument before keeping it."""
    from .recurrent_calls import store_cuts

    call, pos = read
    return store_cuts(ctx.path, call.func.attr.value, pos) is not None


def _frozen_here(ctx) -> bool:
    """Gradients are turned off by the file in a way the walk does not place: frozen parameters,
    `set_grad_enabled(False)`, inference mode."""
    text = ctx.text or ""
    return any(t in text for t in ("requires_grad_(False)", "requires_grad = False", "set_grad_enabled(False)",
                                   "inference_mode", "requires_grad=False"))


def _param_module(analysis, fn, call, key, loop) -> str:
    """`out, hidden = model(x, hidden)` where `model` is a parameter of `fn` and the state
    first comes from a method of it (`hidden = model.init_hidden(...)`) that only project
    module classes define, with a `forward`: what was inferred, or "" when not so."""
    if type(call.func) is not cst.Name or fn not in analysis.ctx.module.body:
        return ""  # a method's or nested function's callers are not read
    name = call.func.value
    if name not in {p.name.value for p in fn.params.params} or analysis.names.is_module(name):
        return ""
    start = analysis.ctx.line_of(loop)
    inits = set()
    for n in nodes(fn.body):
        if type(n) is not cst.Assign or key not in [k for t in n.targets for k in (_flat(t.target) or [])]:
            continue
        if analysis.ctx.line_of(n) >= start:
            continue
        value = n.value
        if type(value) is cst.Call and type(value.func) is cst.Attribute and dotted(value.func.value) == name:
            inits.add(value.func.attr.value)
    if len(inits) != 1:
        return ""
    meth = inits.pop()
    classes = _module_classes(analysis.ctx.path, meth)
    if not classes:
        return ""
    import os

    where = ", ".join(f"`{cls}` ({os.path.basename(f)})" for cls, f in classes[:2])
    return (f"`{name}` is a module with parameters, since `{key}` comes from `{name}.{meth}()`, which only "
            f"module classes of the project define ({where}); no call of `{fn.name.value}` that the project's "
            f"files show runs it under `torch.no_grad()` or backwards its result")


def _module_classes(path: str, meth: str) -> list:
    """(class, file) of the project classes that define `meth`, when each is an
    `nn.Module` with a `forward`; [] when any is not."""
    import ast

    from .callers import class_nodes
    from .project_index import classes_with_method

    if not path or path == "<string>":
        return []
    out = []
    for node, f, _tree in class_nodes(classes_with_method(path, meth, whole=True)) or ():
        cls = node.name
        bases = [ast.unparse(b) for b in node.bases]
        if not any(b == "Module" or b.endswith("nn.Module") for b in bases) or \
                not any(isinstance(m, ast.FunctionDef) and m.name == "forward" for m in node.body):
            return []
        out.append((cls, f))
    return out


def _quiet_elsewhere(ctx, fn) -> bool:
    """Some call of the module-level `fn` in another project file runs under `no_grad`
    (or in a function that backwards: it may backward what `fn` returns)."""
    from .eval_loops import _remote_calls

    return any(guarded or backwarded for _f, _line, guarded, backwarded, *_ in _remote_calls(ctx.path, fn.name.value))


def _flat(target) -> Optional[list]:
    """`out, (h, c)` -> ["out", "h", "c"]; None for a target that is not names."""
    if type(target) in (cst.Tuple, cst.List):
        out = []
        for e in target.elements:
            if type(e) is cst.StarredElement:
                return None
            sub = _flat(e.value)
            if sub is None:
                return None
            out.extend(sub)
        return out
    key = dotted(target)
    return [key] if key is not None else None


def _arg_names(expr) -> set:
    """Names an argument hands over as they are: `h`, `(h, c)`, `[h, c]`."""
    if type(expr) in (cst.Tuple, cst.List):
        return set().union(*[_arg_names(e.value) for e in expr.elements]) if expr.elements else set()
    return {expr.value} if type(expr) is cst.Name else set()


def _module_key(names, func) -> Optional[str]:
    key = dotted(func)
    if key is not None and key.endswith(".forward"):
        key = key[: -len(".forward")]
    return key if names.is_module(key) and names.has_params(key) else None


def _runner(analysis, call, targets, key) -> Optional[tuple]:
    """(module, method it goes through, target positions known to be plain) when
    the call runs a module with parameters on the state and hands back its new state."""
    ctx, names = analysis.ctx, analysis.names
    module = _module_key(names, call.func)
    if module is not None:
        return module, "", set()
    if type(call.func) is not cst.Attribute:
        return None
    base = dotted(call.func.value)
    cls = names.instances.get(base) if base != "self" else None
    if base == "self":
        owner = ctx.enclosing(call, cst.ClassDef)
        cls = owner.name.value if owner is not None else None
    meth = names.class_method(cls, call.func.attr.value) if cls else None
    if meth is None or _stores(meth):
        return None
    param = _param_for(meth, call, key)
    if param is None:
        return None
    returns = _returned(meth)
    if not returns or any(len(r) != len(targets) for r in returns):
        return None
    pos = targets.index(key)
    inner = None
    for r in returns:
        new = dotted(r[pos]) if type(r[pos]) is cst.Name else None
        inner = _module_call_binding(names, meth, new, param) if new else None
        if inner is None or under_no_grad(ctx, inner, meth):
            return None
    plain = {i for i in range(len(targets)) if i != pos and all(_plain_value(ctx, meth, r[i]) for r in returns)}
    return _module_key(names, inner.func), f"{cls}.{meth.name.value}", plain


def _stores(meth) -> bool:
    """The method keeps something on the object: a graph may be kept for a later backward."""
    for n in nodes(meth):
        if type(n) is cst.AssignTarget and (dotted(n.target) or "").startswith("self."):
            return True
        if type(n) is cst.Call and type(n.func) is cst.Attribute and n.func.attr.value in STORES:
            return True
    return False


def _param_for(meth, call, key) -> Optional[str]:
    """The parameter of `meth` that receives `key` at `call`."""
    params = [p.name.value for p in meth.params.params]
    if params and params[0] == "self":
        params = params[1:]
    for i, arg in enumerate(call.args):
        if type(arg.value) is not cst.Name or arg.value.value != key:
            continue
        if arg.keyword is not None:
            return arg.keyword.value if arg.keyword.value in params else None
        return params[i] if i < len(params) else None
    return None


def _returned(meth) -> Optional[list]:
    """The elements each `return` of `meth` hands back (a list per return), or None."""
    found = []
    for n in nodes(meth):
        if type(n) is cst.FunctionDef and n is not meth or type(n) is cst.Lambda:
            return None  # nested functions: their returns are not the method's
        if type(n) is cst.Return:
            if n.value is None:
                return None
            found.append(_flat_exprs(n.value))
    return found


def _flat_exprs(expr) -> list:
    if type(expr) in (cst.Tuple, cst.List) and not any(isinstance(e, cst.StarredElement) for e in expr.elements):
        return [x for e in expr.elements for x in _flat_exprs(e.value)]
    return [expr]


def _module_call_binding(names, meth, new, param) -> Optional[cst.Call]:
    """The call that binds `new` in `meth`, when every binding of it is a call of a
    module with parameters that takes `param` as it is."""
    found = None
    for n in nodes(meth):
        if type(n) is not cst.Assign:
            continue
        for t in n.targets:
            flat = _flat(t.target) or []
            if new not in flat:
                continue
            call = n.value
            if type(call) is not cst.Call or _module_key(names, call.func) is None or \
                    not any(param in _arg_names(a.value) for a in call.args):
                return None
            found = call
    return found


def _plain_value(ctx, meth, expr) -> bool:
    """A number: `q.argmax().item()`, or a name every binding in `meth` gives one (`random.randint(...)`)."""
    if type(expr) is not cst.Name:
        return _plain(ctx, expr)
    name = expr.value
    values = [n.value for n in nodes(meth) if type(n) is cst.Assign and
              any(dotted(t.target) == name for t in n.targets)]
    return bool(values) and all(_plain(ctx, v) for v in values)


def _plain(ctx, expr) -> bool:
    if type(expr) in (cst.Integer, cst.Float):
        return True
    if type(expr) is not cst.Call:
        return False
    if type(expr.func) is cst.Attribute and expr.func.attr.value in ("item", "tolist"):
        return True
    if type(expr.func) is cst.Name and expr.func.value in ("int", "float"):
        return True
    return (ctx.imports.qualify(expr.func) or "").startswith(PLAIN_ROOTS)


def _uses(ctx, scope, loop, name) -> list:
    """Reads of `name` in the loop or after it (a read before it sees an earlier binding)."""

    inside = {id(n) for n in nodes(loop)}
    start = ctx.line_of(loop)
    return [n for n in _own_nodes(scope) if type(n) is cst.Name and n.value == name and not bound_here(ctx, n)
            and not _attr_name(ctx, n) and (id(n) in inside or ctx.line_of(n) > start)]


def _own_nodes(scope):
    """The nodes of `scope` outside the functions and classes it defines (their names are their own)."""
    stack = list(scope.body.body if type(scope) is cst.FunctionDef else scope.body)
    while stack:
        n = stack.pop()
        yield n
        if type(n) not in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            stack.extend(children(n))


def _attr_name(ctx, n) -> bool:
    parent = ctx.parent(n)
    return type(parent) is cst.Attribute and parent.attr is n or type(parent) is cst.Arg and parent.keyword is n


def _numbers_only(ctx, names, scope, loop, name) -> bool:
    return all(reaches_cut(ctx, names, n) for n in _uses(ctx, scope, loop, name))


def _only_fed(ctx, names, scope, loop, key, call) -> bool:
    """`key` is read only by the threading call, or through a cut."""
    inside = {id(n) for n in nodes(call)}
    return all(id(n) in inside or reaches_cut(ctx, names, n) for n in _uses(ctx, scope, loop, key))


def _rebound_in(loop, key, stmt, rebind=None, ctx=None, step=None) -> bool:
    """Another statement of the loop binds or cuts the state: a reset, `h = h.detach()`, `h.detach_()`.
    With `ctx`, a reset on one arm of an `if` (`if done: h = policy.initial_state()`: the episode's
    end), whose value does not read the state, is no cut: the state grows until then."""
    for n in nodes(loop.body):
        if type(n) is cst.SimpleStatementLine and n is not stmt and n is not rebind:
            for small in n.body:
                if type(small) in (cst.Assign, cst.AugAssign, cst.AnnAssign):
                    targets = small.targets if type(small) is cst.Assign else [small]
                    if any(key in (_flat(t.target) or []) for t in targets):
                        if step is not None and type(small.value) is cst.Call and dotted(small.value.func) == step:
                            continue  # the same step on another arm
                        if ctx is not None and type(small) is cst.Assign and _episode_reset(ctx, loop, n, small, key):
                            continue
                        return True
        if type(n) is cst.Call and type(n.func) is cst.Attribute and dotted(n.func.value) == key and \
                n.func.attr.value in CUT_METHODS:
            return True
        if type(n) is cst.For and key in (_flat(n.target) or []):
            return True
    return False


def _episode_reset(ctx, loop, stmt, assign, key) -> bool:
    if any(type(x) is cst.Name and x.value == key for x in nodes(assign.value)):
        return False
    cur = ctx.parent(stmt)
    while cur is not None and cur is not loop:
        if type(cur) is cst.If:
            return True
        cur = ctx.parent(cur)
    return False


def _volatile(scope) -> bool:
    """`Variable(x, volatile=True)`: the 0.3 author meant no graph; AD204's fix says so with no_grad."""
    return any(type(n) is cst.Arg and n.keyword is not None and n.keyword.value == "volatile"
               for n in _own_nodes(scope))


def _called_quiet(ctx, fn) -> bool:
    """Some call of `fn` in this file runs under `torch.no_grad()`: its caller chose."""
    name = fn.name.value
    for n in nodes(ctx.module):
        if type(n) is cst.Call and (type(n.func) is cst.Name and n.func.value == name or
                                    type(n.func) is cst.Attribute and n.func.attr.value == name):
            if under_no_grad(ctx, n, ctx.enclosing(n, cst.FunctionDef)):
                return True
    return False
