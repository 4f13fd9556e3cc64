"""Backwards that keep their graph (`retain_graph=True`) for nothing.

A retain is needed when a later backward reaches part of the graph, or when
the graph escapes the scope (returned, kept on `self`, or read by a loss that
adds a graph another method keeps on `self`). A loss built from attributes of
`self` that other code fills and this scope empties after the only backward
in the file is taken to be unneeded too, as an inference."""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ..imports import dotted
from .argument_prep import prepared_inputs
from .closures import judged_at_calls, reads_outside
from .fresh_inputs import fresh_grad
from .hooked_explainers import quiet_explainer
from .graph import closure
from .lightning import automatic, lightning_class
from .loop_inputs import walked_again
from .opaque_calls import opaque_later
from .opposite_guards import never_together
from .rebound_reads import cut_chain, entry_key, judged_in_file, reads_rebound
from .refilled_state import refilled
from .reset_totals import entered_through, reset_total
from .state_cuts import cut_after, outer_cut
from .stub_overrides import notes_for
from .stubs import abstract_origins, unseen_call_origins
from .tensor_methods import TENSOR_ONLY
from .walk import is_static, nodes


@dataclass
class UnneededRetain:
    event: object  # the backward (or autograd.grad) event with retain_graph=True
    emptied: list = field(default_factory=list)  # inferred: the `self` attributes it came from, emptied after
    inferred: list = field(default_factory=list)  # other inferences the verdict rests on, in words
    last: object = None  # last_iteration.LastRetain: only the last iteration of its loop retains for nothing


def unneeded_retains(analysis) -> list:
    """The retains no later use needs, one per call, in file order."""
    from .self_graphs import self_graphs, stored_from_arguments
    from .handed_targets import handed_target
    from .unclaimed_returns import unclaimed_return

    ctx = analysis.ctx
    verdict: dict = {}
    calls: dict = {}
    emptied: dict = {}  # call -> attributes the loss came from, emptied after it
    notes: dict = {}  # call -> inferences its verdict rests on
    # a loss that adds a graph kept on `self` by another method: the retain is what lets it run
    on_self = {found[6].call for found in self_graphs(analysis)}
    passed = stored_from_arguments(analysis)
    escapes: dict = {}  # call -> event of a closure whose graph escapes only by its return
    escaped: dict = {}  # call -> whether its lone walk needs it for another reason
    last_free: dict = {}  # call -> whether no walk of its loop's last iteration needs the retain
    for scope in analysis.scopes:
        returned = closure(h for r in scope.returns for h in r.heads)
        for ev in scope.events:
            if ev.kind not in ("backward", "grad") or ev.retain is False or \
                    ev.create_graph and not _create_flag(ev):
                continue
            if ev.retain_arg is None or ev.retain_arg.keyword is None:
                continue
            calls[ev.call] = ev
            if ev.retain is None:  # a test: only its value on a loop's last iteration is worked out
                verdict[ev.call] = True
            hook = _lightning_hook(analysis, scope, ev)
            if hook:
                verdict.setdefault(ev.call, False)
                if hook not in notes.setdefault(ev.call, []):
                    notes[ev.call].append(hook)
                continue
            refill = refilled(analysis, ev)
            if refill:  # a helper's loss on `self` state that each of its callers stores anew first
                verdict.setdefault(ev.call, False)
                why = notes.setdefault(ev.call, [])
                why.extend(x for x in refill if x not in why)
                continue
            quiet = quiet_explainer(analysis, ev)
            if quiet:  # an explainer's last walk: nothing after it, in the method or beyond, reads the graph
                verdict.setdefault(ev.call, False)
                why = notes.setdefault(ev.call, [])
                why.extend(x for x in quiet if x not in why)
                continue
            as_step = _judged_as_step(analysis, scope, ev)
            if isinstance(as_step, str):
                why = notes.setdefault(ev.call, [])
                if as_step not in why:
                    why.append(as_step)
            if as_step or _judged_by_drivers(analysis, scope, ev):
                continue
            if judged_in_file(analysis, scope, ev):
                fn = ctx.enclosing(ev.call, cst.FunctionDef)
                if fn is not None and not is_static(fn) and any(isinstance(n, cst.Return) and n.value is not None
                                                                for n in nodes(fn.body)):
                    why = notes.setdefault(ev.call, [])
                    note = (f"`{fn.name.value}()` returns part of the graph, and its calls in the project are this "
                            f"file's `self.{fn.name.value}(...)`, whose walks judge it: that code out of sight does "
                            "not call it and backward the result again is inferred")
                    if note not in why:
                        why.append(note)
                continue  # the walks of its callers in this file, which inline it, judge it
            own = {n for n in ev.reach if not n.leaf and n not in ev.captured}  # what the pass frees
            entry_notes: list = []  # a later loss shares only a returned dict whose entries its method builds apart
            state = None if ev.target.heads else _state_emptied(ctx, scope)
            if state:
                emptied[ev.call] = state
                verdict.setdefault(ev.call, False)
                continue
            if _replayed_store(analysis, ctx, ev):
                verdict[ev.call] = True  # needed: the next call walks the stored entries' graphs again
                continue
            # a driver that drops its instance when it ends leaves nothing on `self` to backward later
            kept = [n for n in own if _kept_on_self(scope, n)] if scope.driver_note is None or scope.driver_keeps \
                else []
            cut_reads = _read_through_cuts(ctx, kept) if kept and not _reads_arguments(ctx, ev, own) else None
            escape = bool(own & returned) and bool(own & _reached_in_pass(ctx, scope, ev, returned, (
                h for r in scope.returns for h in r.heads)))
            if escape and _holder_walk(ctx, scope, ev):
                escapes[ev.call] = ev  # judged below, where the closure is walked at its calls
                escape = False
            dropped = (_dropped(analysis, ev) or unclaimed_return(analysis, ev, own)) if escape else None
            if dropped:
                escape = False  # returned, but every caller found drops the result
            # a grad for tensors this call makes anew walks only what it built since: names decide
            fresh = fresh_grad(analysis, ev) if not ev.target.heads else None
            if fresh is None and not ev.target.heads:
                fresh = handed_target(analysis, ev)  # a parameter no project caller walks again after the call
            total = reset_total(ctx, ev)  # `total.backward(...)` then `total = 0`: the next total is new
            needed = ((not ev.target.heads or ev.target.unknown) and fresh is None or escape or ev.call in on_self
                      or (bool(kept) and cut_reads is None)
                      or any(n.kind == "stored" for n in ev.reach)  # a graph another method keeps on self
                      or any(o.kind in ("backward", "grad") and o.seq > ev.seq and own & (o.reach - o.captured)
                             and not _same_pass_apart(ctx, scope, o, ev)
                             and not _through_other_arm(ctx, scope, ev, o, own)
                             and not _entries_apart(analysis, scope, ev, o, own, entry_notes)
                             and not _prepared_apart(analysis, ev, o, own, entry_notes)
                             and not _frozen_apart(analysis, own & (o.reach - o.captured), entry_notes)
                             and not (total is not None and entered_through(ctx, ev, o, own, total))
                             for o in scope.events)
                      or walked_again(analysis, ev, own)  # the next iteration walks it again
                      or _stored_on_argument(ctx, ev, own)  # `ctx.g = g`: the caller's object keeps it
                      or _later_method_backward(analysis, ev, own)
                      or _sibling_later(ctx, scope, ev, own)
                      or _object_state_later(analysis, scope, ev, own)
                      or outer_cut(analysis, ev) is not None)  # the next frame reads state hanging from it
            if _last_walk(ev):
                unseen = (not ev.target.heads or ev.target.unknown) and not _argument_target(ctx, ev) \
                    and not _self_target(analysis, ev)
                cut = outer_cut(analysis, ev)
                last_free[ev.call] = last_free.get(ev.call, True) and not (
                    unseen or escape or ev.call in on_self or (cut is not None and not cut_after(ctx, cut))
                    or (bool(kept) and cut_reads is None) or any(n.kind == "stored" for n in ev.reach)
                    or any(o.kind in ("backward", "grad") and o.seq > ev.seq and own & (o.reach - o.captured)
                           and not _exclusive(o, ev) for o in scope.events)
                    or _later_reads_handed(ctx, scope, ev))
            if ev.retain is None:
                continue
            verdict[ev.call] = verdict.get(ev.call, False) or needed
            if ev.call in escapes and scope.name == _holder_name(ctx, ev):
                escaped[ev.call] = needed  # the lone walk's verdict, without its return
                continue
            walker = _walked_function(ctx, scope, ev)
            # a grad that stops at tensor inputs runs only what was built on them since: a graph
            # an argument brought in is not walked (the caller's own backward still finds it whole)
            handed = _caller_graphs(analysis, ev, own, walker) if not needed and not _made_inputs(ctx, ev) else []
            if handed and _callers_reuse(analysis, ev, own, walker):
                needed = True  # a caller backwards again what the argument hangs from
                verdict[ev.call] = True
            if not needed:
                why = notes.setdefault(ev.call, [])
                found = ([scope.driver_note] if scope.driver_note else []) + \
                    _flow_notes(analysis, ev.reach) + (cut_reads or []) + handed \
                    + _unseen_origins(ctx, scope, ev, own) + abstract_origins(analysis, own) + (dropped or []) \
                    + scope.arm_notes + entry_notes + _blind_later(ctx, scope, ev, fresh) + (fresh or []) \
                    + opaque_later(analysis, scope, ev, own) + _captured_list(ctx, scope, ev, own, returned)
                why.extend(x for x in found if x not in why)
                why.extend(unseen_call_origins(analysis, own, why))
                why.extend(x for x in notes_for(analysis, ev.call) if x not in why)  # stub_overrides
                if ev.call in passed:
                    key, method = passed[ev.call]
                    note = (f"`{key}`, which the loss reads, is stored by `{method}()` from what its callers "
                            f"pass, and the loop does not call it: a graph stored there once would be walked "
                            f"again by every later backward")
                    if note not in why:
                        why.append(note)
                if ev.flag_of and ev.helper:  # a summary's word for what the helper does with the flag
                    flag = (f"`{ev.helper}()` (another file) hands `{_code(ev.retain_arg.keyword)}` only to its "
                            f"backward of what the call gives it: read from its code, not walked")
                    if flag not in why:
                        why.append(flag)
    for call, ev in escapes.items():
        walked = {scope.name for scope in analysis.scopes if scope.name != _holder_name(ctx, ev)
                  and any(e.call is call for e in scope.events)}
        inlined = [e for scope in analysis.scopes if scope.name in walked for e in scope.events if e.call is call]
        judged = judged_at_calls(analysis, ev, walked) if call in verdict else None
        if judged is not None and any(reads_outside(ctx, e) for e in inlined):
            judged = None  # the optimizer may run the closure again on a graph built outside it
        if judged is None or escaped.get(call):
            verdict[call] = True
        else:
            notes.setdefault(call, []).extend(judged)
    out = [UnneededRetain(calls[call], emptied.get(call, []), notes.get(call, []))
           for call, needed in verdict.items() if not needed]
    for call, free in last_free.items():
        if free and verdict.get(call) and call not in escapes and not calls[call].flag_of:
            found = _last_iteration(analysis, calls[call])
            if found is not None:
                found.inferred.extend(x for x in notes_for(analysis, call) if x not in found.inferred)
                out.append(found)
    return out


def _create_flag(ev) -> bool:
    """`loss.backward(create_graph=flag, retain_graph=True)`: `flag` a name (`self.second_order`),
    not a literal. When it is true, `retain_graph` defaults to it and the retain changes
    nothing; so the retain is judged as if `flag` were false, the only case where it keeps
    the graph."""
    if ev.retain is not True or ev.flag_of:
        return False
    for arg in ev.call.args:
        if arg.keyword is not None and arg.keyword.value == "create_graph":
            return dotted(arg.value) is not None and dotted(arg.value) not in ("True", "False", "None")
    return False


def _later_method_backward(analysis, ev, own) -> bool:
    """`vqvae.st_bwd()` after `total_loss.backward(retain_graph=True)`: a later
    method of an object whose forward built part of the retained graph runs a
    backward (or a step) inside, maybe on state it keeps from that forward
    (`self.ze.backward(self.st_grad)`, a straight-through estimator): it may
    walk the retained graph."""
    ctx = analysis.ctx
    mods = {m for n in own for m in n.modules}
    if not mods or ev.stmt is None:
        return False
    outer = ctx.enclosing(ev.call, (cst.FunctionDef,)) or ctx.module
    after = ctx.line_of(ev.stmt)
    for call in nodes(outer):
        if type(call) is not cst.Call or not isinstance(call.func, cst.Attribute):
            continue
        base = dotted(call.func.value)
        if base not in mods or ctx.line_of(call) <= after:
            continue
        found = analysis.object_method(base, call.func.attr.value)
        if found is not None and found[0].events:
            return True
    return False


def _entries_apart(analysis, scope, ev, later, own, notes) -> bool:
    """Do the graphs `ev` and a later backward share only a dict of losses that
    a project method returns, filling their entries from separate calls
    (loss_entries)? Its notes go to `notes`: the verdict rests on that file."""
    from .loss_entries import disjoint_entries

    found = disjoint_entries(analysis, scope, ev, later, own & (later.reach - later.captured))
    notes.extend(x for x in found if x not in notes)
    return bool(found)


def _judged_as_step(analysis, scope, ev):
    """A walk of a step method (its own, or inlined where a caller calls it)
    that sees no graph in the loss, when the method returns it and its
    callers drop it, or returns none of it and takes values only from
    helpers that keep nothing: the walk as the body of the caller's loop
    (arguments unknown, so the loss a graph) judges it. True, or in the
    second case the note the verdict rests on; False when it does not."""
    fn = analysis.ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None or fn not in analysis.step_methods or ev.target.heads:
        return False
    if getattr(scope, "caller_loop", False) and scope.name == fn.name.value:
        return False  # the walk that judges

    walks = [s for s in analysis.scopes if getattr(s, "caller_loop", False) and s.name == fn.name.value
             and any(e.call is ev.call for e in s.events)]
    if not walks:
        return False
    if _dropped(analysis, ev):
        return True
    # those walks see the graph (its arguments unknown) and call a returned one needed, so they
    # judge it too when the method returns nothing of it (a Grad-CAM's numpy map); what the
    # loss came from is out of sight, so the verdict is an inference
    if not all(_sees_unreturned(w, ev) for w in walks) or not _helpers_keep_nothing(analysis, fn, ev):
        return False
    return (f"`{fn.name.value}()` shows no graph in the loss on its own (it comes from calls out of sight, "
            f"which may keep a graph of their own); walked as one call of a loop its caller runs, nothing "
            f"after this backward reads the graph and the method does not return it")


def _helpers_keep_nothing(analysis, fn, ev) -> bool:
    """Is every helper object the method calls before `ev` (`self.tap.run(x)`,
    no module) of a class of this file whose methods store on `self` only in
    `__init__` or in gradient hooks (`x.register_hook(self.keep_grad)`)? A
    helper that keeps a value from one call for the next (a running mix of
    activations) may hand the next call's backward this call's graph."""
    ctx, names = analysis.ctx, analysis.names
    before = ctx.line_of(ev.stmt) if ev.stmt is not None else None
    params = {p.name.value for p in fn.params.params + fn.params.kwonly_params} - {"self"}
    own = ctx.enclosing(fn, cst.ClassDef)
    if own is not None and _forward_hooks(own):
        return False  # a forward hook of this class may keep activations, with their graph, on `self`
    # a training step may run a recurrent model keeping its state (and graph) for the next call
    stepped = any(type(c) is cst.Call and isinstance(c.func, cst.Attribute) and c.func.attr.value == "step"
                  for c in nodes(fn.body))
    for call in nodes(fn.body):
        if type(call) is not cst.Call or before is None or ctx.line_of(call) > before \
                or isinstance(ctx.parent(call), cst.Expr):
            continue  # a call whose result is dropped (`self.model.zero_grad()`) hands on no graph
        func = call.func
        if isinstance(func, cst.Name) and func.value in params:
            return False  # `model(x)` of a model handed in: out of sight, it may keep state
        base = dotted(func.value) if isinstance(func, cst.Attribute) else dotted(func)
        if not base or base.count(".") != 1 or not base.startswith("self.") or names.is_module(base):
            continue
        cls = names.instances.get(base)
        if cls is None and not stepped and _bound_in_init(ctx, fn, base):
            continue  # a model handed in, run to explain it (no step): taken to keep nothing between calls
        if cls is None or any(b != "object" and b not in names.bases for b in names.bases.get(cls, ())):
            return False  # out of sight (or a base of another file): it may keep state
        methods = [m for (owner, _), m in names.methods.items() if owner == cls]
        if any(_keeps_on_self(m) or _forward_hooks(m) for m in methods):
            return False
        hooks = {x.attr.value for m in methods for c in nodes(m) if type(c) is cst.Call
                 and isinstance(c.func, cst.Attribute) and c.func.attr.value in _GRAD_HOOKS
                 for a in c.args for x in nodes(a.value)
                 if isinstance(x, cst.Attribute) and dotted(x.value) == "self"}
        for m in methods:
            if m.name.value in ("__init__",) or m.name.value in hooks:
                continue
            if any(isinstance(t, cst.Attribute) and dotted(t.value) == "self"
                   for x in nodes(m) if isinstance(x, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign))
                   for t in nodes(x.target)):
                return False
    return True


def _bound_in_init(ctx, fn, base) -> bool:
    """Is `self.A` stored only by `__init__` of the class holding `fn`?"""
    cls = ctx.enclosing(fn, cst.ClassDef)
    if cls is None:
        return False
    where = [ctx.enclosing(x, cst.FunctionDef) for x in nodes(cls)
             if isinstance(x, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign))
             and any(dotted(t) == base for t in nodes(x.target) if isinstance(t, cst.Attribute))]
    return bool(where) and all(f is not None and f.name.value == "__init__" for f in where)


def _forward_hooks(node) -> bool:
    """`layer.register_forward_hook(self.save)`: a hook handed activations, with their graph."""
    return any(type(c) is cst.Call and isinstance(c.func, cst.Attribute) and "forward" in c.func.attr.value
               and c.func.attr.value.endswith("hook") for c in nodes(node))


def _keeps_on_self(method) -> bool:
    """`self.seen.append(h)`, `setattr(self, ...)`: a method adding to `self` state without an assignment."""
    from .local_graphs import _KEEPS

    for c in nodes(method):
        if type(c) is not cst.Call:
            continue
        if isinstance(c.func, cst.Name) and c.func.value == "setattr":
            return True
        if isinstance(c.func, cst.Attribute) and c.func.attr.value in _KEEPS \
                and (dotted(c.func.value) or "").startswith("self."):
            return True
    return False


# hooks handed gradients, which carry no graph (a forward hook's activation does)
_GRAD_HOOKS = {"register_hook", "register_full_backward_hook", "register_backward_hook"}


def _sees_unreturned(walk, ev) -> bool:
    """Does the caller-loop walk see a graph in `ev`'s loss that the method does not return?"""
    mine = [e for e in walk.events if e.call is ev.call]
    returned = closure(h for r in walk.returns for h in r.heads)
    return all(e.target.heads and not e.target.unknown and
               not ({n for n in e.reach if not n.leaf} & returned) for e in mine)


def _judged_by_drivers(analysis, scope, ev) -> bool:
    """A lone walk of a method that drivers in other files call in order
    (analysis.drivers), when no code of this file calls it: those walks
    judge its retain, since they show what runs between two of its calls."""
    from .drivers import driven_methods

    if scope.driver_note is not None:
        return False
    fn = analysis.ctx.enclosing(ev.call, cst.FunctionDef)
    walks = driven_methods(analysis).get(fn) if fn is not None else None
    if not walks or not all(any(e.call is ev.call for e in w.events) for w in walks):
        return False
    name = fn.name.value
    return not any(isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == name
                   for n in nodes(analysis.ctx.module))


def _dropped(analysis, ev):
    """Notes when the function holding `ev` returns its graph and every project
    call drops the result (dropped_results); None otherwise."""
    from .dropped_results import dropped_by_callers

    fn = analysis.ctx.enclosing(ev.call, cst.FunctionDef)
    return dropped_by_callers(analysis, fn) if fn is not None else None


def _last_walk(ev) -> bool:
    """Is `ev` in the second walk of its innermost loop, which stands for the
    iterations after the first, the last among them?"""
    return bool(ev.loops) and bool(ev.tag) and ev.tag[-1] == (id(ev.loops[-1]), 2)


def _blind_later(ctx, scope, ev, fresh=None) -> list:
    """A later backward of the same pass whose loss shows no graph here (`task_loss[i]` of
    `task_loss = self._per_task(loss)`, a graph handed in): whether it walks the retained
    graph again is not seen, so dropping the retain is no safe fix. Not this grad's own
    next run when its inputs are made anew on each iteration (`fresh`): it stops at them."""
    for later in scope.events:
        if fresh is not None and later.call is ev.call:
            continue
        if later.kind in ("backward", "grad") and later.seq > ev.seq and later.target is not None and \
                not later.target.heads and not _exclusive(later, ev):
            text = ctx.snippet(later.call)
            return [f"`{text}` (line {ctx.line_of(later.call)}) backwards a value whose graph is not "
                    "seen here: it may walk the retained graph again"]
    return []


def _stored_on_argument(ctx, ev, own) -> bool:
    """`ctx.g = g` in an autograd Function's `forward`, `state.h = h`, `buf.append(h)`: the function
    keeps the retained graph on an object its caller handed in, which outlives the call (the
    Function's `backward` differentiates `ctx.g` again). Stores on `self` are judged elsewhere."""
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None:
        return False
    params = {p.name.value for p in fn.params.params + fn.params.kwonly_params + fn.params.posonly_params}
    params -= {"self", "cls"}
    names = {n.name for n in own if n.name and "." not in n.name and "[" not in n.name}
    if not params or not names:
        return False

    def root(t):
        while isinstance(t, (cst.Attribute, cst.Subscript)):
            t = t.value
        return t.value if isinstance(t, cst.Name) else None

    for x in nodes(fn.body):
        if isinstance(x, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and x.value is not None:
            targets = [t.target for t in x.targets] if isinstance(x, cst.Assign) else [x.target]
            stored = [t for tgt in targets for t in nodes(tgt) if isinstance(t, (cst.Attribute, cst.Subscript))
                      and root(t) in params]
            if stored and _live_names(x.value) & names and not never_together(ctx, fn, x, ev.call):
                return True  # (a store only on calls that run no backward, `if not learn:`, keeps nothing of it)
        elif type(x) is cst.Call and isinstance(x.func, cst.Attribute) and root(x.func.value) in params \
                and x.func.attr.value in ("append", "extend", "insert", "add", "update", "save_for_backward",
                                          "__setitem__", "setdefault"):
            if any(_live_names(a.value) & names for a in x.args) and not never_together(ctx, fn, x, ev.call):
                return True
    return False


def _later_reads_handed(ctx, scope, ev) -> bool:
    """`for k in range(n): vjp = grad(g, x, vjp, retain_graph=True)[0]` with `g` handed in, then
    `grad(g, x, neumann_vjp)` after the loop: the walk sees no graph in `g`, so no node ties the two,
    yet the later call walks the graph the last iteration retains. True when a later backward or grad
    of the function reads what the retained loss's parameters hold, through the names its target is
    built from (values read only through a cut, `.item()`, `.detach()`, or a gradient taken without
    `create_graph`, carry none of it)."""
    handed = _argument_target(ctx, ev)
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if not handed or fn is None:
        return False
    feeds = _name_feeds(ctx, fn)
    outer = {id(loop) for loop in ev.loops[:-1]}
    mine = [t for t in ev.tag if t[0] in outer]
    for o in scope.events:
        if o.kind not in ("backward", "grad") or o.seq <= ev.seq or o.call is ev.call or o.target_expr is None \
                or _exclusive(o, ev) or ctx.enclosing(o.call, cst.FunctionDef) is not fn:
            continue
        if [t for t in o.tag if t[0] in outer] != mine:
            continue  # a later pass of a loop around this one: new values, judged as such
        seen: set = set()
        todo = list(_live_names(o.target_expr))
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            todo.extend(feeds.get(name, ()))
        if seen & handed:
            return True
    return False


def _returns_handed(ctx, fn, handed) -> bool:
    """Does `fn` return a value built, name by name, from the values `handed` names?"""
    feeds = _name_feeds(ctx, fn)
    for ret in nodes(fn.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if type(ret) is not cst.Return or ret.value is None:
            continue
        seen: set = set()
        todo = list(_live_names(ret.value))
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(feeds.get(name, ()))
        if seen & handed:
            return True
    return False


def _name_feeds(ctx, fn) -> dict:
    """name -> names its values in `fn` are made from: assignments, augmented ones, `for` targets,
    stores into entries (`xs[i] = v`) and fills (`xs.append(v)`), leaving out what is read through
    a cut."""
    out: dict = {}

    def add(target, value):
        read = _live_names(value) if value is not None else set()
        for x in nodes(target):
            if isinstance(x, cst.Name):
                out.setdefault(x.value, set()).update(read)

    for x in nodes(fn.body):
        if isinstance(x, cst.Assign):
            for t in x.targets:
                add(t.target, x.value)
        elif isinstance(x, (cst.AugAssign, cst.AnnAssign)):
            add(x.target, x.value)
        elif isinstance(x, (cst.For, cst.CompFor)):
            add(x.target, x.iter)
        elif isinstance(x, cst.NamedExpr):
            add(x.target, x.value)
        elif type(x) is cst.Call and isinstance(x.func, cst.Attribute) and type(x.func.value) is cst.Name \
                and x.func.attr.value in ("append", "extend", "insert", "add", "update"):
            for a in x.args:
                add(x.func.value, a.value)
    return out


def _live_names(expr) -> set:
    """Names an expression reads, but those under a cut (`l.item()`, `x.detach()`) or inside a
    gradient taken without `create_graph` (its result carries no graph)."""
    under: set = set()
    for x in nodes(expr):
        if type(x) is cst.Attribute and x.attr.value in _CUTS + _SIZES:
            under.update(id(y) for y in nodes(x.value))
        elif type(x) is cst.Subscript:  # `losses[i]`: the index picks an entry, it hands in no graph
            under.update(id(y) for el in x.slice for y in nodes(el))
        elif type(x) is cst.Call and dotted(x.func) == "len":
            under.update(id(y) for y in nodes(x))
        elif type(x) is cst.Call and (dotted(x.func) or "").split(".")[-1] == "grad":
            if not any(a.keyword is not None and a.keyword.value == "create_graph" and
                       dotted(a.value) != "False" for a in x.args):
                under.update(id(y) for y in nodes(x))
    skip = {id(x.attr) for x in nodes(expr) if isinstance(x, cst.Attribute)} | \
        {id(x.keyword) for x in nodes(expr) if isinstance(x, cst.Arg) and x.keyword is not None}
    return {x.value for x in nodes(expr) if isinstance(x, cst.Name) and id(x) not in skip and id(x) not in under}


def _exclusive(a, b) -> bool:
    """Are two events in different arms of one `if` (never both in one pass)?"""
    arms = dict(a.branch)
    return any(key in arms and arms[key] != arm for key, arm in b.branch)


def _prepared_apart(analysis, ev, later, own, notes) -> bool:
    """Does the next walk of `ev` share only inputs made ready before the loop
    (argument_prep.py)? Its note joins `notes`: an inference."""
    note = prepared_inputs(analysis, ev, later, own)
    if note is not None and note not in notes:
        notes.append(note)
    return note is not None


def _frozen_apart(analysis, shared, notes) -> bool:
    """Is everything two backwards share a value the script computed before its loop from
    networks it froze first (frozen_scripts)? Its notes join `notes`: an inference."""
    from .frozen_scripts import frozen_before

    found = [frozen_before(analysis, n) for n in shared]
    if not found or not all(found):
        return False
    notes.extend(x for x in found if x not in notes)
    return True


def _same_pass_apart(ctx, scope, a, b) -> bool:
    """Are two events in different arms of one `if`, in the same run of that `if`
    (the same walk of each loop around it)? The other arm's backward never runs
    after this one on its graph; in a later iteration it may (walked_again judges that)."""
    arms = dict(a.branch)
    for key, arm in b.branch:
        node = scope.branch_nodes.get(key) if key in arms and arms[key] != arm else None
        fn = ctx.enclosing(node, cst.FunctionDef) if node is not None else None
        if node is None or fn is not None and fn.name.value != scope.name:
            continue  # a function walked at its calls may run the other arm at a later call
        around = {id(loop) for loop in a.loops if ctx.encloses(loop, node)}
        if [t for t in a.tag if t[0] in around] == [t for t in b.tag if t[0] in around]:
            return True
    return False


def _made_inputs(ctx, ev) -> bool:
    """Is every input of this grad a tensor its function's own code made (not a parameter, not
    an argument)? Then no graph the caller built leads to them, and the grad walks none of it."""
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    return bool(ev.inputs) and fn is not None and all(
        not n.leaf and n.stmt is not None and ctx.encloses(fn, n.stmt) for n in ev.inputs)


def _captured_list(ctx, scope, ev, own, returned) -> list:
    """A grad for the tensors of a list (`grad(loss, fast)`, `fast = [p + 0. for p in params]`)
    stops at the elements the list holds when it runs; the analysis sees the list's stores, not
    which element was built on which (`[x, f(x)]` runs `f` toward `x`): when the verdict rests
    on the grad stopping there, that none is built on another is inferred."""
    if not ev.captured:
        return []
    whole = {n for n in ev.reach if not n.leaf}
    if not ((whole - own) & returned or any(
            o.kind in ("backward", "grad") and o.seq > ev.seq and (whole & o.reach) - (own & (o.reach - o.captured))
            for o in scope.events)):
        return []  # the verdict does not rest on where the grad stops
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    arg = next((a.value for a in ev.call.args if a.keyword is not None and a.keyword.value == "inputs"), None)
    pos = [a.value for a in ev.call.args if a.keyword is None and not a.star]
    arg = arg if arg is not None else (pos[1] if len(pos) > 1 else None)
    names = [arg] if isinstance(arg, cst.Name) else [e.value for e in getattr(arg, "elements", ())]
    lists = []
    for name in names:
        if not isinstance(name, cst.Name):
            continue
        for x in nodes(fn.body) if fn is not None else ():
            if isinstance(x, (cst.Assign, cst.AugAssign)):
                targets = [t.target for t in x.targets] if isinstance(x, cst.Assign) else [x.target]
                if any(isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name) and t.value.value == name.value
                       for t in targets) or any(isinstance(t, cst.Name) and t.value == name.value for t in targets) \
                        and not isinstance(x.value, (cst.Call, cst.Attribute, cst.Name, cst.BinaryOperation)):
                    lists.append(name.value)
                    break
    if not lists and all(isinstance(n, cst.Name) for n in names) and names:
        return []
    what = f"`{lists[0]}`" if lists else f"`{ctx.snippet(arg)}`" if arg is not None else "its inputs"
    return [f"the grad is taken to stop at the tensors {what} holds, none of them built on another "
            "(then it would walk on into what built it)"]


def _through_other_arm(ctx, scope, ev, later, own) -> bool:
    """Does `later` reach this pass's graph only through values made in the other arm of an
    `if` around `ev`, in the same run of it (`grads = grad(loss, p, retain_graph=True)` in one
    arm, `grads = grad(loss, p, create_graph=True)` in the other, then `p = p - lr * grads`)?
    The pass that runs `ev` never makes them: what `ev`'s arm binds carries no graph there."""
    if _made_apart(ctx, scope, ev, later):
        return True  # the other arm's walk, in the run of the `if` that runs this one instead
    return not (_reached_in_pass(ctx, scope, ev, later.reach, later.target.heads) & own
                & (later.reach - later.captured))


def _reached_in_pass(ctx, scope, ev, reach, heads) -> set:
    """The nodes of `reach` that `heads` reach without passing through one made in an arm
    that `ev`'s pass does not run (the whole of `reach` when there is none)."""
    blocked = {n for n in reach if _made_apart(ctx, scope, ev, n)}
    if not blocked:
        return set(reach)
    seen: set = set()
    todo = [h for h in heads if h not in blocked]
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        todo.extend(p for p in node.parents if p not in blocked)
    return seen


def _made_apart(ctx, scope, ev, node) -> bool:
    """Was `node` (or an event) made in an arm of an `if` that `ev` is in the other arm of, in the
    same run of that `if` (the walk of its arms, which `branch_runs` bounds by walk order)?"""
    arms = dict(ev.branch)
    runs = getattr(scope, "branch_runs", {})
    return any(key in arms and arms[key] != arm and any(first <= ev.seq <= last and first <= node.seq <= last
                                                        for first, last in runs.get(key, ()))
               for key, arm in node.branch)


def _last_iteration(analysis, ev):
    """The finding for a retain that every iteration of its loop but the last
    needs (the next one walks the graph again), when the last iteration
    retains too and nothing after the loop backwards the graph."""
    from .last_iteration import last_retain
    from .local_graphs import dies_on_return

    found = last_retain(analysis, ev)
    if found is None:
        return None
    from .caller_reuse import callers_reuse
    from .dispatch import unreachable_callers

    own = {n for n in ev.reach if not n.leaf}
    handed = _argument_target(analysis.ctx, ev)
    held = _self_target(analysis, ev) if not handed else set()
    fn = analysis.ctx.enclosing(ev.call, cst.FunctionDef)
    if _callers_reuse(analysis, ev, own) or \
            handed and callers_reuse(analysis, fn, handed, unreachable_callers(analysis.ctx, fn)):
        return None
    if handed and fn is not None and _returns_handed(analysis.ctx, fn, handed):
        return None  # `return sum(losses)`: the caller gets a graph the retain keeps walkable
    if not handed and not held and dies_on_return(analysis.ctx, ev, found.loop):
        return None  # only locals hold the graph: it is freed when the function returns, not kept a step
    why = list(found.inferred)
    notes = _flow_notes(analysis, ev.reach) + _caller_graphs(analysis, ev, own)
    if handed:
        listed = ", ".join(f"`{p}`" for p in sorted(handed))
        notes.append(f"the loss is {listed}, handed to `{fn.name.value}()`: the caller's graph, which it may "
                     f"backward again after this call (the project's calls that were found do not; callers "
                     f"out of sight may)")
    if held:
        listed = ", ".join(f"`{k}`" for k in sorted(held))
        notes.append(f"the loss is read from {listed}, a graph built out of sight (no code in this file stores it); "
                     f"nothing in this file backwards it after the loop, and code elsewhere is not followed")
    for note in notes:
        if note not in why:
            why.append(note)
    return UnneededRetain(ev, [], why, found)


def _self_target(analysis, ev) -> set:
    """`for tn, task in enumerate(self.task_name): self.rep[task].backward(g, retain_graph=True)`:
    the `self.X` a backward's target reads, with nothing else but its loop's names, when
    no code of this file stores `self.X` (another file's class fills it: a graph the walk
    cannot see) and no other backward of this file reads it, bar one in another arm."""
    ctx = analysis.ctx
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None or not ev.loops or not isinstance(ev.loops[-1], cst.For) or ev.target_expr is None \
            or not fn.params.params or fn.params.params[0].name.value != "self":
        return set()
    loop_names = {x.value for x in nodes(ev.loops[-1].target) if isinstance(x, cst.Name)}
    keys = {k for x in nodes(ev.target_expr) if isinstance(x, cst.Attribute) and type(x.value) is cst.Name
            and x.value.value == "self" for k in [dotted(x)]}
    if not keys or _plain_names(ev.target_expr) - loop_names - {"self"} or \
            any(isinstance(x, cst.Call) for x in nodes(ev.target_expr)):
        return set()
    memo = analysis.table("_self_stores")
    if "keys" not in memo:
        memo["keys"] = {dotted(t) for x in nodes(ctx.module) if isinstance(x, (cst.AssignTarget, cst.AugAssign))
                        for t in nodes(x.target) if isinstance(t, cst.Attribute)}
    if keys & memo["keys"]:
        return set()
    attrs = {k.split(".")[1] for k in keys}
    for scope in analysis.scopes:
        mine = any(o is ev for o in scope.events)
        for o in scope.events:
            if o.kind not in ("backward", "grad") or o.call is ev.call:
                continue
            other = ctx.enclosing(o.call, cst.FunctionDef)
            if other is fn:
                # this method: a later backward may walk the graph again (`self.rep.backward()` in the
                # other arm of an `if` never runs with it); an earlier one is another graph's
                if (mine and o.seq > ev.seq or o.target_expr is not None and
                        keys & {dotted(x) for x in nodes(o.target_expr) if isinstance(x, cst.Attribute)}) \
                        and not _exclusive(o, ev):
                    return set()
            elif attrs & {x.attr.value for x in nodes(other if other is not None else o.stmt)
                          if isinstance(x, cst.Attribute)}:
                return set()  # other code that reads `.X` (`self._rep_penalty()`, `model.rep`) may backward it
    return keys


def _argument_target(ctx, ev) -> set:
    """The parameters a backward's target reads when it reads nothing else
    but its loop's names (`losses[i]` with `losses` handed in): a graph the
    walk cannot see, which only the caller built."""
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None or not ev.loops or not isinstance(ev.loops[-1], cst.For) or ev.target_expr is None:
        return set()
    params = {p.name.value for p in fn.params.params + fn.params.kwonly_params} - {"self", "cls"}
    loop = ev.loops[-1]
    loop_names = {x.value for x in nodes(loop.target) if isinstance(x, cst.Name)}
    read = _plain_names(ev.target_expr)
    if read - params - loop_names:
        return set()
    # `for obj in objectives: obj.backward(...)`, `for i, l in enumerate(losses)`: the elements of a list handed in
    over = _plain_names(loop.iter) - _ITER_BUILTINS if read & loop_names else set()
    if over - params:
        over = set()
    return (read & params) | over


_ITER_BUILTINS = {"enumerate", "zip", "range", "len", "list", "reversed"}


def _plain_names(expr) -> set:
    """Names an expression reads, not the attribute names after a dot (`x.values`: `x`)."""
    skip = {id(x.attr) for x in nodes(expr) if isinstance(x, cst.Attribute)}
    return {x.value for x in nodes(expr) if isinstance(x, cst.Name) and id(x) not in skip}


def _holder_name(ctx, ev):
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    return fn.name.value if fn is not None else None


def _holder_walk(ctx, scope, ev) -> bool:
    """Is `scope` the walk of a nested function holding `ev` on its own?"""
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None or scope.name != fn.name.value:
        return False
    return isinstance(ctx.enclosing(fn, (cst.FunctionDef, cst.ClassDef)), cst.FunctionDef)


def _unseen_origins(ctx, scope, ev, own) -> list:
    """The loss hangs from nothing the walk saw carry a graph (`s_logit, t_logit
    = model.forward_D(...)` of a model built out of sight): its backward proves a
    graph the walk cannot see. When a later backward's loss is built the same
    way, the two may share that unseen graph (both heads read one trunk): a note
    saying so, naming the values both read, since the verdict rests on it."""
    if not any(_unseen(n) for n in own):
        return []
    for other in scope.events:
        if other.kind in ("backward", "grad") and other.seq > ev.seq and other.call is not ev.call \
                and any(_unseen(n) for n in other.reach):
            shared = _reads(ctx, own) & _reads(ctx, other.reach)
            both = f", and both read {', '.join(f'`{x}`' for x in sorted(shared))}" if shared else ""
            return [f"this loss and the one `{_code(other.call)}` backwards are both built from values that "
                    f"carry no graph the analysis can see{both}: a graph they share there would not be seen"]
    return []


def _sibling_later(ctx, scope, ev, own) -> bool:
    """A later backward of the same pass whose loss hangs from what the statement binding this
    one's unseen graph also bound (`d_loss, fake = out`, then a loss on `fake`), or from that
    statement itself: both come out of one call the analysis cannot see into, and may share
    its graph (the critic's loss on an undetached fake, then the generator's)."""
    mine = [n for n in own if _unseen(n)]
    if not mine:
        return False
    stmts = {id(n.stmt) for n in mine}
    bound = {x.value for n in mine for small in getattr(n.stmt, "body", ()) if type(small) is cst.Assign
             for tgt in small.targets for x in nodes(tgt.target) if type(x) is cst.Name}
    for other in scope.events:
        if other.kind not in ("backward", "grad") or other.seq <= ev.seq or other.tag != ev.tag \
                or other.call is ev.call:
            continue
        theirs = [n for n in other.reach if _unseen(n)]
        if any(id(n.stmt) in stmts for n in theirs) or _reads(ctx, theirs) & bound:
            return True
        if _entries_of(mine) & _entries_of(theirs):
            return True  # `loss_g_ae = vals_g['loss_g_ae']`, then `loss_g = vals_g['loss_g']`: one forward's losses
    return False


def _object_state_later(analysis, scope, ev, own) -> bool:
    """The loss comes from a method of an object `self` holds (`kl_div = self.agent.compute_kl_div()`),
    either out of sight (no graph seen) or a module whose class the analysis does not know (handed to
    `__init__`), and that object's own call filled its state (`policy_outputs, task_z = self.agent(obs,
    context)` keeps the posterior on the agent): a later backward of the pass on a value that object
    gave (`q1_pred = self.qf1(obs, actions, task_z)`) may walk the graph the method read, which the
    retain keeps for it."""
    ctx = analysis.ctx
    methods = set()
    for n in own:
        unseen = _unseen(n)
        if not unseen and n.kind != "module":
            continue
        for call in _calls_behind(ctx, n.stmt):
            func = dotted(call.func)
            if not func or func.count(".") < 2 or not func.startswith("self."):
                continue
            owner, meth = func.rsplit(".", 1)
            if meth in TENSOR_ONLY or meth == "forward":
                continue  # `self.z.mean()`, not `self.agent.compute_kl_div()`
            if unseen or (owner in n.modules and analysis.names.instances.get(owner) is None
                          and analysis.foreign_method(owner, meth) is None):
                methods.add(owner)
    if not methods:
        return False
    for other in scope.events:
        if other.kind not in ("backward", "grad") or other.seq <= ev.seq or other.tag != ev.tag \
                or other.call is ev.call:
            continue
        for n in other.reach:
            if n.stmt is None:
                continue
            for call in _calls_behind(ctx, n.stmt):
                func = dotted(call.func)
                # the object's own call (`self.agent(obs, context)`), whose state the method may read;
                # not its other methods (`self.bg.energy(batch)`, a forward of its own)
                if func and (func in methods or (func.endswith(".forward") and func[:-len(".forward")] in methods)):
                    return True
    return False


def _calls_behind(ctx, stmt) -> list:
    """The calls of a statement, and of the statements binding the names it reads (one step back,
    in the same function: `kl_loss = w * kl_div` reaches `kl_div = self.agent.compute_kl_div()`)."""
    out = [x for x in nodes(stmt) if type(x) is cst.Call]
    body = stmt.body if type(stmt) is cst.SimpleStatementLine else ()  # a `for` header's block: not its own
    values = [small.value for small in body if type(small) in (cst.Assign, cst.AugAssign, cst.AnnAssign)
              and small.value is not None]
    skip = {id(x.attr) for v in values for x in nodes(v) if type(x) is cst.Attribute}
    # `task_z.detach()`: what the name is bound from does not reach the graph
    skip |= {id(x.value) for v in values for x in nodes(v) if type(x) is cst.Attribute
             and x.attr.value in _CUTS}
    seen = set()
    for value in values:
        for name in nodes(value):
            if type(name) is not cst.Name or id(name) in skip or name.value in seen:
                continue
            seen.add(name.value)
            try:
                _, found = ctx.bindings.lookup(name)
            except (KeyError, AttributeError):
                continue
            for binding in found:
                if binding.kind in ("assign", "augassign", "annotation", "walrus") and binding.value is not None:
                    out.extend(_live_calls(binding.value))
    return out


_CUTS = ("detach", "data", "item", "numpy", "tolist")
_SIZES = ("shape", "size", "dim", "ndim", "numel")


def _live_calls(expr) -> list:
    """The calls of `expr` but those under a cut (`self.policy.log_prob_t(obs, act).detach()`: the
    name holds no graph of that call, so a later backward does not reach the object through it)."""
    under = {id(y) for x in nodes(expr) if type(x) is cst.Attribute and x.attr.value in _CUTS for y in nodes(x.value)}
    return [x for x in nodes(expr) if type(x) is cst.Call and id(x) not in under]


def _entries_of(graph) -> set:
    """X for each unseen node whose statement is `name = X[...]`: an entry of one
    value (a dict of losses some call returned)."""
    out = set()
    for n in graph:
        body = getattr(n.stmt, "body", ())
        if len(body) == 1 and type(body[0]) is cst.Assign and type(body[0].value) is cst.Subscript \
                and type(body[0].value.value) is cst.Name:
            out.add(body[0].value.value.value)
    return out


def _unseen(n) -> bool:
    """A graph node that hangs from nothing: a graph only the backward proves."""
    return not n.parents and not n.leaf and not n.modules and n.kind == "op" and n.stmt is not None


def _reads(ctx, graph) -> set:
    """Names the statements of the graph's unseen nodes read, leaving out
    imports, called names and what the statements assign."""
    out: set = set()
    for n in graph:
        if not _unseen(n):
            continue
        skip = {id(x.func) for x in nodes(n.stmt) if type(x) is cst.Call} | \
            {id(x.attr) for x in nodes(n.stmt) if type(x) is cst.Attribute} | \
            {id(x.keyword) for x in nodes(n.stmt) if type(x) is cst.Arg and x.keyword is not None}
        targets = {x.value for t in getattr(n.stmt, "body", ()) if type(t) is cst.Assign
                   for tgt in t.targets for x in nodes(tgt.target) if type(x) is cst.Name}
        out |= {x.value for x in nodes(n.stmt) if type(x) is cst.Name and id(x) not in skip
                and x.value not in ctx.imports.aliases and x.value not in ("self", "True", "False", "None")} - targets
    return out


def _code(node) -> str:
    return cst.Module([]).code_for_node(node).strip()


def _lightning_hook(analysis, scope, ev):
    """`def backward(self, loss): loss.backward(retain_graph=True)` overriding the
    hook of a LightningModule that optimizes automatically: Lightning calls it once
    per training step with that step's new loss. A note saying so, or None."""
    cls = scope.method_class or scope.self_class
    fn = analysis.names.class_method(cls, "backward") if cls and scope.name == "backward" else None
    params = [p.name.value for p in fn.params.params] if fn is not None else []
    if fn is None or len(params) < 2 or dotted(ev.target_expr) != params[1]:
        return None
    if not lightning_class(analysis, cls) or not automatic(analysis, cls):
        return None  # manual optimization: the hook may run on one graph twice
    if len({e.call for e in scope.events if e.kind in ("backward", "grad")}) != 1:
        return None
    return (f"`{cls}.backward` overrides LightningModule's hook, which Lightning calls once per training "
            "step with that step's new loss")


def _read_through_cuts(ctx, kept) -> list:
    """For graphs still held on `self` when the scope ends: notes when every
    other read of those attributes in this file goes through a cut
    (`self.loss_D.item()`), so no other method of the file backwards them;
    None when one does not. Code in other files could still read them."""
    from .flow import CUT_ATTRS, CUT_METHODS

    out = []
    for key in sorted({n.name for n in kept}):
        reads = [attr for attr in nodes(ctx.module) if isinstance(attr, cst.Attribute) and _key(attr) == key]
        rebound = False
        for read in reads:
            up = ctx.parent(read)
            entry = entry_key(up) if isinstance(up, cst.Subscript) and up.value is read else None
            if entry:  # `self.loss["g"]`: one entry of a dict kept on `self`, judged on its own
                read, up = up, ctx.parent(up)
            if isinstance(up, cst.AssignTarget) or isinstance(up, cst.Attribute) and up.value is read and \
                    (up.attr.value in CUT_ATTRS or up.attr.value in CUT_METHODS or up.attr.value == "backward"):
                continue
            if isinstance(up, (cst.Tuple, cst.List, cst.Element)) and _in_target(ctx, up):
                continue
            if cut_chain(ctx, read):
                continue  # `self.logit.mean().item()`
            if reads_rebound(ctx, read, entry or key):
                rebound = True
                continue  # reads what its own function just stored there: a new graph, not the kept one
            return None
        how = "a cut or after its own function stored a new value there" if rebound else "a cut"
        out.append(f"`{key}` stays on `self` after the backward, and this file reads it only through {how} "
                   "(code in other files is not seen)")
    return out


def _reads_arguments(ctx, ev, own) -> bool:
    """Does the loss read a parameter of the function holding the backward
    (other than `self`)? Then its graph may come from the caller, who may
    walk it again: a graph kept on `self` there is not judged."""
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None:
        return False
    params = {p.name.value for p in fn.params.params + fn.params.kwonly_params} - {"self"}
    return any(isinstance(x, cst.Name) and x.value in params
               for n in own if n.stmt is not None for x in nodes(n.stmt))


NUMBER_CALLS = {"range", "len", "int", "float", "bool", "round", "str", "isinstance", "print"}


def _walked_function(ctx, scope, ev):
    """The function whose walk this is: a caller of the function holding the
    backward walks it inline (`self._stress(v, energy)` of a @staticmethod), and
    then the arguments the loss reads are that caller's values, which it sees."""
    body = list(scope.body or [])
    first = body[0] if body else None
    if isinstance(first, cst.For) and isinstance(first.body, cst.IndentedBlock) and first.body.body:
        first = first.body.body[0]  # a step method walked as the body of its caller's loop (model.py)
    fn = ctx.enclosing(first, cst.FunctionDef) if first is not None else None
    holder = ctx.enclosing(ev.call, cst.FunctionDef)
    static = holder is not None and is_static(holder)
    if static and isinstance(fn, cst.FunctionDef) and fn is not holder and fn.name.value == scope.name:
        return fn  # only a @staticmethod: a method's own `self` state keeps its walk the judge (d3rlpy's update_alpha)
    return holder


def _caller_graphs(analysis, ev, own, fn=None, skip=()) -> list:
    """A note when the loss reads a tensor argument of the function holding
    the backward: the caller built that argument and may backward through
    its graph again after this call (a GAN's `d_step(fake)` then
    `g_step(fake)`), so that the retain is unneeded is not proven here
    (a caller the project shows doing so makes it needed: `_callers_reuse`).
    Modules, optimizers and called arguments (`model(x)`) carry no graph in."""
    ctx = analysis.ctx
    fn = fn or ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None:
        return []
    params = {p.name.value for p in fn.params.params + fn.params.kwonly_params} - {"self", "cls"} - set(skip)
    names = analysis.names
    read = set()
    for n in own:
        if n.stmt is None:
            continue
        for x in nodes(n.stmt):
            if not isinstance(x, cst.Name) or x.value not in params or x.value in read:
                continue
            up = ctx.parent(x)
            if isinstance(up, cst.Call) and up.func is x or isinstance(up, cst.Param):
                continue  # `model(x)`: the argument is called, not a tensor handed in
            call = ctx.parent(up) if isinstance(up, cst.Arg) else None
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in NUMBER_CALLS \
                    and analysis.ctx.imports.qualify(call.func) is None:
                continue  # `range(n)`, `len(xs)`: a count, not a graph handed in
            if names.is_module(x.value) or x.value in names.optimizers:
                continue
            read.add(x.value)
    if not read:
        return []
    listed = ", ".join(f"`{p}`" for p in sorted(read))
    what = "an argument" if len(read) == 1 else "arguments"
    return [f"the loss reads {listed}, {what} of `{fn.name.value}()`: a graph handed in is the caller's, "
            f"which may backward through it again after this call (the project's calls that were found "
            f"do not; callers out of sight may)"]


def _callers_reuse(analysis, ev, own, fn=None) -> bool:
    """Does a project caller of the function holding `ev` (or of the one whose
    walk inlines it) backward again what an argument the loss reads hangs from
    (analysis.caller_reuse)?"""
    from .caller_reuse import callers_reuse

    ctx = analysis.ctx
    fn = fn or ctx.enclosing(ev.call, cst.FunctionDef)
    if fn is None:
        return False
    params = {p.name.value for p in fn.params.params + fn.params.kwonly_params} - {"self", "cls"}
    read = {x.value for n in own if n.stmt is not None for x in nodes(n.stmt) if isinstance(x, cst.Name)}
    # and the arguments those names were computed from in the function (`fake_adv = select(fake)`, then
    # `d_fake = model_d(fake_adv)`): the argument's graph is what the loss hangs from
    names = analysis.names
    # modules, optimizers and called arguments (`model_d(x)`) carry no graph in (as in _caller_graphs)
    called = {n.func.value for n in nodes(fn.body) if type(n) is cst.Call and type(n.func) is cst.Name}
    handed = {p for p in _through_locals(fn, read) & params
              if p not in called and not names.is_module(p) and p not in names.optimizers}
    return callers_reuse(analysis, fn, handed)


def _through_locals(fn, names: set) -> set:
    """`names` and the names their assignments in `fn` read, followed back (not through `.detach()`)."""
    deps: dict = {}
    for node in nodes(fn.body):
        if type(node) is cst.Assign:
            targets, value = [t.target for t in node.targets], node.value
        elif type(node) in (cst.AugAssign, cst.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        reads = {x.value for x in nodes(value) if type(x) is cst.Name} if not _cut(value) else set()
        for target in targets:
            for x in nodes(target):
                if type(x) is cst.Name:
                    deps.setdefault(x.value, set()).update(reads)
    out, todo = set(), list(names)
    while todo:
        key = todo.pop()
        if key not in out:
            out.add(key)
            todo.extend(deps.get(key, ()))
    return out


def _cut(value) -> bool:
    return type(value) is cst.Call and type(value.func) is cst.Attribute and \
        value.func.attr.value in ("detach", "item", "tolist", "numpy")


def _key(attr) -> str:
    from ..imports import dotted

    return dotted(attr) or ""


def _in_target(ctx, node) -> bool:
    while node is not None and not isinstance(node, cst.BaseSmallStatement):
        if isinstance(node, cst.AssignTarget):
            return True
        node = ctx.parent(node)
    return False


def _flow_notes(analysis, reach) -> list:
    """What stored_state.object_call inferred for the calls the loss came from."""
    table = analysis.table("object_flow_notes")
    if not table:
        return []
    out = []
    for n in reach:
        for node in nodes(n.expr) if n.expr is not None else ():
            note = table.get(id(node))
            if note and note not in out:
                out.append(note)
    return sorted(out)


def _kept_on_self(scope, node) -> bool:
    """Is a graph node stored on `self` still held there when the scope ends?
    `self.losses = []` after the backward drops it; a later call of another
    method could otherwise backward it again."""
    if not (node.name and node.name.startswith("self.")):
        return False
    held = scope.env.get(node.name)
    return held is None and node.name not in scope.bound or (
        held is not None and node in closure(held.heads))


def _state_emptied(ctx, scope):
    """`loss = torch.cat(self.losses).sum(); loss.backward(retain_graph=True);
    self.losses = []`: a loss built from attributes of `self` that other code
    filled, each rebound to a value without a graph by the end of the scope,
    and no other backward call in the file. Returns the attributes, or None."""
    reads = [k for k in scope.free_reads if k.startswith("self.")]
    if not reads:
        return None
    calls = [n for n in nodes(ctx.module) if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
             and n.func.attr.value in ("backward", "manual_backward")]
    if len(calls) != 1:
        return None
    if any(k not in scope.env or scope.env[k].heads or scope.env[k].unknown for k in reads):
        return None
    return sorted(reads)


def _replayed_store(analysis, ctx, ev) -> bool:
    """A loss backwarded in a loop over the entries of a container the object keeps (`for S,
    action, reward in self.data:` in a replay buffer's `optimize`): bound in the class's
    `__init__`, filled by another of its methods, not emptied as a whole (rebound, `.clear()`,
    `del x[:]`) by the method that backwards, and either found by the flow to keep graphs across
    iterations (AD101's leak of `self.data`) or filled with what the filler's callers hand it
    (`def save(self, states, ...)`: not followed). The entries outlive the call, so the next call
    backwards whatever graphs they hold again: the retain is not shown to be unneeded."""
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    cls = ctx.enclosing(fn, cst.ClassDef) if fn is not None else None
    if cls is None or ctx.enclosing(fn, cst.FunctionDef) is not None:
        return False
    loop = ctx.enclosing(ev.call, (cst.For,))
    keys = set()
    while loop is not None and ctx.encloses(fn, loop):
        it = loop.iter
        if type(it) is cst.Call and dotted(it.func) in ("enumerate", "reversed", "list") and it.args:
            it = it.args[0].value
        key = dotted(it)
        if key and key.startswith("self.") and key.count(".") == 1:
            keys.add(key)
        loop = ctx.enclosing(loop, (cst.For,))
    kept = {leak.key for _, leak in analysis.leaks}
    methods = [m for m in cls.body.body if type(m) is cst.FunctionDef]
    init = next((m for m in methods if m.name.value == "__init__"), None)
    if init is None:
        return False
    for key in keys:
        if not any(type(n) is cst.AssignTarget and dotted(n.target) == key for n in nodes(init)):
            continue
        if any(_wholly_emptied(n, key) for n in nodes(fn)):
            continue
        for m in methods:
            if m is fn or m is init:
                continue
            params = {p.name.value for p in m.params.params[1:]}
            for n in nodes(m):
                if type(n) is cst.Call and type(n.func) is cst.Attribute and dotted(n.func.value) == key and \
                        n.func.attr.value in ("append", "extend", "insert", "appendleft") and \
                        (key in kept or any(type(x) is cst.Name and x.value in params for x in nodes(n))):
                    return True  # a kept graph, or what the callers hand in, which is not followed
    return False


def _wholly_emptied(node, key: str) -> bool:
    if type(node) is cst.AssignTarget:
        target = node.target.value if type(node.target) is cst.Subscript else node.target
        return dotted(target) == key
    if type(node) is cst.Del:
        target = node.target.value if type(node.target) is cst.Subscript else node.target
        return dotted(target) == key
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "clear" and \
        dotted(node.func.value) == key
