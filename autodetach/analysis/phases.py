"""Phase methods of a trainer class: `self.forward()`, `self.compute_G()`.

Real GAN trainers split a step across methods: `optimize_parameters()`
calls `self.forward()` (stores `self.fake_B`), `self.backward_D()`,
`self.optimizer_D.step()`, `self.backward_G()`. A method with no backward
or step of its own is walked at its call site when it runs a model and
stores into `self`: the graph it leaves on `self` is then seen by the
phases that follow, in the order the driving method calls them."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes


def phase_helper(scope, own) -> bool:
    """Is `own` (a method of this class with no backward or step,
    `Scope.plain_self_method`) such a phase?"""
    memo = scope.analysis.table("_phase_methods")
    hit = memo.get(own)
    if hit is None:
        hit = memo[own] = _stores_model_output(own, scope.names) and _conditional_stores(own)
    if not hit:
        return False
    # `if self.opt.nce_idt: self.idt_B = ...`, read later under the same flag:
    # a skipped branch does not leave the last call's value for the next phase.
    for key in hit:
        scope.env.pop(key, None)
    return True


def _conditional_stores(fn) -> frozenset:
    """The `self.X` the method stores only inside an `if` (a truthy value
    even when there are none)."""
    top, inside = set(), set()

    def visit(stmts, nested):
        for st in stmts:
            if isinstance(st, cst.SimpleStatementLine):
                for small in st.body:
                    for t in getattr(small, "targets", ()):
                        for n in nodes(t.target):
                            key = dotted(n) if isinstance(n, cst.Attribute) else None
                            if key and key.startswith("self.") and key.count(".") == 1:
                                (inside if nested else top).add(key)
            elif isinstance(st, cst.If):
                visit(_suite(st.body), True)
                orelse = st.orelse
                while orelse is not None:
                    visit(_suite(orelse.body), True)
                    orelse = getattr(orelse, "orelse", None)
            elif hasattr(st, "body"):
                visit(_suite(st.body), nested)

    visit(_suite(fn.body), False)
    return frozenset(inside - top) or frozenset({"<none>"})


def _suite(body) -> list:
    return list(body.body) if isinstance(body, cst.IndentedBlock) else \
        list(getattr(body, "body", ()) if not isinstance(body, cst.SimpleStatementSuite) else [])


def _stores_model_output(fn, table) -> bool:
    """Does `fn` call a module and assign to a `self.` attribute?"""
    calls = stores = False
    for n in nodes(fn):
        if type(n) is cst.Call and (table.is_module(dotted(n.func)) or type(n.func) is cst.Attribute and
                                    table.is_module(dotted(n.func.value))):
            calls = True  # `self.gen(z)`, `self.gen.forward_a(z)`
        elif isinstance(n, cst.AssignTarget) and (dotted(n.target) or "").startswith("self."):
            stores = True
        elif isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Tuple) and any(
                (dotted(e.value) or "").startswith("self.") for e in n.target.elements):
            stores = True
        if calls and stores:
            return True
    return False


def phase_pairs(analysis) -> list:
    """Scopes that run two phase methods of a class one after the other,
    `self.dis_update(); self.gen_update()`, where no walked code shows their
    order (the loop that drives them is in another file, or calls them
    through lambdas): the second
    reads a `self.X` that only the first stores, so it runs after it. Each
    scope has `phase_note`, what was inferred. Used for stale graphs only."""
    return analysis.memo("_phase_pairs", lambda: _pairs(analysis))


def _pairs(analysis) -> list:
    sites = analysis.sites
    out = []
    for cls in analysis.ctx.module.body:
        if type(cls) is not cst.ClassDef:
            continue
        methods = {m.name.value: m for m in cls.body.body if isinstance(m, cst.FunctionDef)
                   and not m.name.value.startswith("__") and m.params.params
                   and m.params.params[0].name.value == "self" and m in sites.events_in}
        if len(methods) < 2:
            continue
        facts = {n: _facts(m) for n, m in methods.items()}
        for b_name, b in methods.items():
            if b not in sites.backward_in:
                continue
            for a_name, method in methods.items():
                if method is b or not facts[a_name]["steps"] or a_name in facts[b_name]["calls"] \
                        or b_name in facts[a_name]["calls"]:
                    continue
                shared = sorted(facts[b_name]["reads"] & facts[a_name]["stores"]
                                - facts[b_name]["stores"] - _stored_elsewhere(facts, a_name, b_name))
                if not shared or _driven_together(analysis, a_name, b_name):
                    continue
                scope = _walk_pair(analysis, cls, a_name, b_name)
                if scope is None:
                    continue
                scope.phase_note = (f"`{b_name}` is taken to run after `{a_name}` (no loop the analysis follows "
                                 f"calls both; it reads `{shared[0]}`, which only `{a_name}` stores)")
                out.append(scope)
        out.extend(_stored_before(analysis, cls, methods, facts))
    return out


def _walk_pair(analysis, cls, a_name: str, b_name: str):
    """`self.a(); self.b()` walked as methods of `cls`; None when the walk gives up."""
    from .flow import GiveUp, Scope

    try:
        scope = Scope(analysis, [_call_stmt(a_name), _call_stmt(b_name)], params=["self"], name=f"{a_name}+{b_name}")
        scope.self_class = cls.name.value
        scope.run()
    except (GiveUp, RecursionError):
        return None
    return scope


def _stored_before(analysis, cls, methods: dict, facts: dict) -> list:
    """`update_EG()` that steps and then backwards `self.fake_B`, which only
    `forward()` (a phase method with no backward or step, that `update_EG`
    does not call) stores: whatever runs in between, `forward` ran before
    `update_EG` began, so its graph was built before the step. Walked as
    `self.forward(); self.update_EG()`."""
    sites = analysis.sites
    out = []
    helpers = {m.name.value: m for m in cls.body.body if isinstance(m, cst.FunctionDef)
               and not m.name.value.startswith("__") and m.params.params
               and m.params.params[0].name.value == "self" and m not in sites.events_in
               and _stores_model_output(m, analysis.names)}
    if not helpers:
        return out
    every = {m.name.value: _facts(m) for m in cls.body.body if isinstance(m, cst.FunctionDef)
             and not m.name.value.startswith("__")}
    for b_name, b in methods.items():
        if not facts[b_name]["steps"]:
            continue
        calls = _called(every, b_name)  # `self.backward_G()` reads what `update_G` hands it
        reads = set().union(*(every[n]["reads"] for n in calls))
        stores = set().union(*(every[n]["stores"] for n in calls))
        for a_name in sorted(helpers):
            if a_name in calls or b_name in _called(every, a_name):
                continue
            shared = sorted(reads & every[a_name]["stores"] - stores
                            - _stored_elsewhere({n: f for n, f in every.items() if n not in calls}, a_name, b_name))
            if not shared:
                continue
            scope = _walk_pair(analysis, cls, a_name, b_name)
            if scope is None:
                continue
            scope.phase_note = (f"`{b_name}` is taken to run after `{a_name}` (it reads `{shared[0]}`, which "
                                f"only `{a_name}` stores)")
            out.append(scope)
    return out


def _facts(fn) -> dict:
    reads, stores, calls, steps = set(), set(), set(), False
    targets = {id(n.target) for n in nodes(fn) if type(n) is cst.AssignTarget or type(n) is cst.AugAssign}
    # `self.fake_B, self.aux = ...`: each element of a tuple target is stored
    targets |= {id(e.value) for n in nodes(fn) if type(n) is cst.AssignTarget
                and isinstance(n.target, (cst.Tuple, cst.List)) for e in n.target.elements}
    for n in nodes(fn):
        t = type(n)  # exact types: isinstance on libcst's ABCs is slow here
        if t is cst.Attribute:
            key = dotted(n)
            if key and key.startswith("self.") and key.count(".") == 1:
                (stores if id(n) in targets else reads).add(key)
        elif t is cst.Call:
            key = dotted(n.func) or ""
            if key.startswith("self.") and key.count(".") == 1:
                calls.add(key[5:])
            if isinstance(n.func, cst.Attribute) and n.func.attr.value == "step":
                steps = True
    return {"reads": reads, "stores": stores, "calls": calls, "steps": steps}


def _called(facts: dict, name: str) -> set:
    """`name` and the methods of the class it calls on `self`, transitively."""
    out, todo = {name}, [name]
    while todo:
        for callee in facts[todo.pop()]["calls"]:
            if callee in facts and callee not in out:
                out.add(callee)
                todo.append(callee)
    return out


def _stored_elsewhere(facts, a_name, b_name) -> set:
    """Attributes another method (not `__init__`, already excluded) stores too:
    then which value the second phase reads is not known."""
    return {k for n, f in facts.items() if n not in (a_name, b_name) for k in f["stores"]}


def _driven_together(analysis, a_name, b_name) -> bool:
    """Does a walked scope already run both (`trainer.dis_update(x)` then
    `trainer.gen_update(x)` in a loop of this file)? Then the flow saw them
    in their real order."""
    memo = analysis.memo("_event_methods", lambda: [_event_methods(analysis, scope) for scope in analysis.scopes])
    return any(a_name in names and b_name in names for names in memo)


def _event_methods(analysis, scope) -> set:
    """Names of the functions holding the events a scope walked."""
    out = set()
    for e in scope.events:
        n = e.call
        while n is not None and not isinstance(n, cst.FunctionDef):
            n = analysis.ctx.parent(n)
        if n is not None:
            out.add(n.name.value)
    return out


def _call_stmt(name: str):
    call = cst.Call(func=cst.Attribute(value=cst.Name("self"), attr=cst.Name(name)))
    return cst.SimpleStatementLine(body=[cst.Expr(value=call)])


def sibling_stores(analysis, method, cls_name) -> frozenset:
    """The `self.X` that another step method of the class (`update_D`, which
    calls `self.forward()`) stores, directly or through the methods it calls,
    when `method` does not call it: a driver that calls both each iteration
    refreshes them between two calls of `method`."""
    cls = next(iter(analysis.ctx.class_defs(cls_name)), None)
    if cls is None:
        return frozenset()
    every = {m.name.value: _facts(m) for m in cls.body.body if isinstance(m, cst.FunctionDef)}
    mine = _called(every, method.name.value) if method.name.value in every else set()
    out: set = set()
    for other, owner in analysis.step_methods.items():
        name = other.name.value
        if owner != cls_name or other is method or name not in every or name in mine:
            continue
        out |= set().union(*(every[n]["stores"] for n in _called(every, name)))
    return frozenset(k for k in out if k.startswith("self."))
