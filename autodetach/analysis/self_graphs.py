"""A graph built once by a method, kept on `self`, and backwarded every
iteration of another method's training loop.

    def add_regularization_loss(self, weights, decay):
        for w in weights:
            self.reg_loss = self.reg_loss + decay * torch.norm(w)

    def fit(self, loader):
        for x, y in loader:
            loss = crit(self(x), y) + self.reg_loss
            loss.backward(retain_graph=True); opt.step()

The first backward frees the regularisation graph (or, retained, every
later backward walks it through weights the optimizer has since changed),
and the value never follows the updated weights. The method's arguments are
taken to be tensors that carry a graph (trainable weights): an inference
the report states, made only for a helper that adds up into the attribute,
and only when the loop's backward retains the graph."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .graph import GNode, closure
from .new_tensors import makes_new_tensor
from .walk import class_methods, nodes


def self_graphs(analysis) -> list:
    """(class, key, store statement, storing method, read node, loop scope,
    backward event, built from the module's own parameters) for each such
    attribute read in a loop."""
    return analysis.memo("_self_graphs", lambda: _find(analysis))[0]


def stored_from_arguments(analysis) -> dict:
    """backward call -> (key, storing method) where the loss reads an attribute another
    method stores from its arguments only (`self.aux_loss = aux_loss * alpha`), and the
    loop does not call that method: a graph built once there would be walked again by
    every later backward, and whether the callers store it anew each time is not seen."""
    return analysis.memo("_self_graphs", lambda: _find(analysis))[1]


def _find(analysis) -> tuple:
    from .flow import GiveUp, Scope, Val

    sites = analysis.sites
    if not sites.backward_in:
        return [], {}
    out, loose = [], {}
    for cls in analysis.ctx.module.body:
        if type(cls) is not cst.ClassDef:
            continue
        methods = class_methods(cls)
        loops = [scope for scope in analysis.scopes for m in methods.values()
                 if scope.body and _body(m) and scope.body[0] is _body(m)[0] and scope.free_reads]
        if not loops:
            continue
        wanted = {k for scope in loops for k in scope.free_reads if k.startswith("self.")}
        stores = {}  # key -> (stmt, method name)
        passed = {}  # key -> method name, for a value only passed in and stored
        for name, method in methods.items():
            if name == "forward" or method in sites.backward_in or not _assigns_any(method, wanted):
                continue
            params = [p.name.value for p in method.params.params if p.name.value != "self"]
            env = {p: Val(heads=frozenset({GNode(name="<arg>", stmt=None, expr=None, iteration=(), leaf=True)}))
                   for p in params}
            try:
                scope = Scope(analysis, _body(method), params=params + ["self"], env=env, name=name).run()
            except (GiveUp, RecursionError):
                continue
            for key in wanted:
                val = scope.env.get(key)
                reached = _reached(analysis, val.heads) if val is not None else set()
                built = [n for n in reached if not n.leaf and not n.trivial and n.stmt is not None]
                sources = [n for n in reached if n.leaf or n.modules]
                if built and sources and not val.uncertain:
                    store = next((n for n in val.heads if n.stmt is not None), built[0])
                    if _constructed(store.stmt, key):
                        continue  # `self.crit = DataParallelCriterion(loss_module, ids)`: an object, not a graph
                    # from the module's own parameters, or only from the arguments (inferred)
                    own = any(n.modules or (n.leaf and n.name != "<arg>") for n in sources)
                    if own or _accumulates(store.stmt, key):
                        # a helper walked at its call (`self.add_regularization_loss(...)` in `__init__`)
                        # stores it: that helper is the builder
                        holder = next((other for other, m in methods.items()
                                       if m is not method and any(n is store.stmt for n in nodes(m))), name)
                        stores.setdefault(key, (store.stmt, holder, own))
                    else:
                        passed.setdefault(key, name)
        for scope in loops:
            for key, read in scope.free_reads.items():
                if key in passed and key not in stores:
                    found = _backward_reading(analysis, scope, read, methods, passed[key])
                    if found is not None:
                        loose.setdefault(found.call, (key, passed[key]))
                if key not in stores:
                    continue
                stmt, builder, own = stores[key]
                found = _backward_reading(analysis, scope, read, methods, builder)
                # Built from arguments only: the backward's retain_graph=True is the
                # evidence that the author met the freed graph.
                if found is not None and (own or found.retain is True):
                    out.append((cls, key, stmt, builder, read, scope, found, own))
    return out, loose


def _reached(analysis, heads) -> set:
    """The graph below `heads`, not through fresh tensors (`torch.zeros(1, device=d)`
    takes an argument but none of its graph, and is itself a new leaf or a
    constant: `torch.zeros(1, requires_grad=True)` builds nothing to free)."""
    seen, stack = set(), list(heads)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        expr = node.expr
        if isinstance(expr, cst.Call) and isinstance(expr.func, (cst.Attribute, cst.Name)):
            qualified = analysis.ctx.imports.qualify(expr.func) or ""
            if makes_new_tensor(qualified):
                seen.discard(node)
                continue
        stack.extend(node.parents)
    return seen


def _backward_reading(analysis, scope, read, methods, builder):
    """The backward in a loop of `scope` whose loss hangs from the statement
    that reads `read`, when that loop never calls `builder` again."""
    ctx = analysis.ctx
    stmt = read
    while stmt is not None and not isinstance(stmt, cst.SimpleStatementLine):
        stmt = ctx.parent(stmt)
    if stmt is None:
        return None
    for ev in scope.events:
        if ev.kind != "backward" or not ev.loops:
            continue
        loop = ev.loops[-1]
        if not (stmt is loop or ctx.encloses(loop, stmt)) or _rebuilds(loop, methods, builder) or \
                ("forward" in methods and _rebuilds(methods["forward"], methods, builder)):
            continue
        if ev.stmt is stmt or any(n.stmt is stmt for n in closure(ev.target.heads if ev.target else ())):
            return ev
        # `total = loss + self.reg_loss; total.backward()`, where `loss` is not tracked
        target = dotted(ev.target_expr) if ev.target_expr is not None else None
        if target and any(isinstance(b, cst.Assign) and any(dotted(t.target) == target for t in b.targets)
                          for b in stmt.body):
            return ev
    return None


def _rebuilds(loop, methods, builder) -> bool:
    """The loop (or forward, which each iteration runs) calls
    `self.builder()`, directly or through another method."""
    called = {key[5:] for n in nodes(loop) if isinstance(n, cst.Call)
              for key in [dotted(n.func)] if key and key.startswith("self.")}
    if builder in called:
        return True
    return any(builder in {key[5:] for n in nodes(methods[callee]) if isinstance(n, cst.Call)
                           for key in [dotted(n.func)] if key and key.startswith("self.")}
               for callee in called if callee in methods)


def _accumulates(stmt, key) -> bool:
    """`self.reg_loss = self.reg_loss + penalty`: a registration helper, called
    at set-up time to add up terms (a value only passed in and stored, like
    `self.aux_loss = aux_loss * alpha`, may be stored anew by every forward)."""
    for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
        if isinstance(small, cst.AugAssign) and dotted(small.target) == key:
            return True
        if isinstance(small, cst.Assign) and any(isinstance(n, cst.Attribute) and dotted(n) == key
                                                 for n in nodes(small.value)):
            return True
    return False


def _constructed(stmt, key) -> bool:
    """`self.X = Name(...)` with a capitalised name (a class: `DataParallelCriterion(loss, ids)`
    wraps a module and builds no graph; `Variable(x)` is the legacy alias of `x`)."""
    for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
        if isinstance(small, cst.Assign) and any(dotted(t.target) == key for t in small.targets):
            func = small.value.func if isinstance(small.value, cst.Call) else None
            name = (dotted(func) or "").split(".")[-1] if func is not None else ""
            return name[:1].isupper() and not name.isupper() and name != "Variable"
    return False


def _assigns_any(function, keys) -> bool:
    return any(isinstance(n, cst.AssignTarget) and dotted(n.target) in keys for n in nodes(function))


def _body(fn) -> list:
    return list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
