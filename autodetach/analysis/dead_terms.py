"""Whole terms of a loss cut from their graph: constants that teach nothing.

`at_loss = cls_loss + criterionAT(act_s, act_t).detach() * beta` and
`loss = mse + beta * torch.mean(torch.tensor(decouple_terms))` backward a sum
one of whose terms was computed from the trained model and then cut
(`.detach()`, `.data`, `.item()`, `float(x)`, `torch.tensor(x)` of graph
values), or `w * F.cross_entropy(t.detach(), hard)` whose every input is
cut or a setting: the term adds a number to the loss and sends no gradient, so what
only it reaches never learns, and what the other terms also reach loses its
share of the signal.

The loss is split into terms by its syntax: `+`/`-`, a product or quotient
by a value with no graph (`* beta`, `/ n`), and names followed to the one
assignment that reaches the site (with the `+=` after it). Each term's value
comes from a walk of the function by flow.py's interpreter that records what
each expression holds. Sites: a backward (`loss.backward()`,
`scaler.scale(loss).backward()`, `accelerator.backward(loss)`) and a
function that returns a value named like a loss (`return out, loss` in a
module's forward: the caller backwards it, an inference the message states).

Cuts on purpose are left alone: a term whose cut reads a value another term
reads live (`y_soft + (y_hard - y_soft).detach()`, `loss + (c - loss).detach()`,
the straight-through and value-shifting tricks), a term cut only from
modules the loss does not otherwise train (a teacher's, a target network's),
and a loss with no live term at all (its backward raises)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import libcst as cst

from ..imports import dotted
from .cut_inputs import cut_inputs
from .graph import closure
from .roles import looks_like_loss
from .walk import nodes

CUT_CALLS = {"torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor", "torch.from_numpy",
             "torch.autograd.Variable", "numpy.array", "numpy.asarray"}
CUT_NAMES = {"float"}  # builtins
CUT_METHODS = {"detach", "item", "tolist", "numpy"}
HOSTS = {"accelerator", "fabric", "engine", "model_engine", "self", "amp", "trainer"}
DEPTH = 12  # names followed from a site


@dataclass
class DeadTerm:
    site: cst.CSTNode  # the backward call, or the returned loss
    returned: bool  # the site is a `return` (the caller backwards it: inferred)
    term: cst.CSTNode  # the term's expression
    cut: cst.CSTNode  # the cut inside it (`x.detach()`, `torch.tensor(xs)`)
    lost: frozenset  # modules the cut value was computed from that the loss trains
    only: frozenset  # of those, the ones no live term reaches
    stmt: Optional[cst.CSTNode] = None  # the statement that holds the cut
    loss: str = ""  # the loss's code, for the message
    via: Optional[str] = None  # the term's code, where the cut lies in a name it reads (`adv.pow(2)`)


def dead_terms(analysis) -> list:
    out = []
    seen = set()
    module = analysis.ctx.module
    for fn in [module] + [n for n in nodes(module) if type(n) is cst.FunctionDef]:
        sites = _sites(fn, analysis)
        if not sites or not _has_cut(fn, analysis):
            continue
        order = _Order(fn)
        candidates = []
        for site, loss_expr, returned in sites:
            terms = _terms(loss_expr, order, order.index(site), 0, analysis)
            if len(terms) > 1 and any(_reads_cut(term, analysis, order, 0) for term, _, _ in terms):
                candidates.append((site, loss_expr, returned, terms))
        if not candidates:
            continue
        walked = _walk(analysis, fn)
        if walked is None:
            continue
        vals, scope = walked
        own = _own_modules(analysis, fn)
        for site, loss_expr, returned, terms in candidates:
            stepped = own if returned else _stepped(analysis, scope, site)
            found_here = _judge(analysis, vals, order, site, loss_expr, returned, terms, stepped)
            if not returned:
                found_here += [replace(c, stmt=analysis.ctx.statement_of(c.cut))
                               for c in cut_inputs(analysis, vals, scope, site, terms)]
            for found in found_here:
                if id(found.cut) not in seen:
                    seen.add(id(found.cut))
                    out.append(found)
    return out


# ---------------------------------------------------------------- sites
def _sites(fn, analysis) -> list:
    """(site node, loss expression, returned) in `fn` (or the module's own
    statements), not in nested functions."""
    out = []
    for node in nodes(fn if isinstance(fn, cst.Module) else fn.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        t = type(node)  # exact types: isinstance on libcst's ABCs is slow in this loop
        if t is cst.Call and type(node.func) is cst.Attribute and \
                node.func.attr.value in ("backward", "manual_backward"):
            loss = _backward_loss(node)
            if loss is not None:
                out.append((node, loss, False))
        elif t is cst.Call and analysis.ctx.imports.qualify(node.func) == "torch.autograd.backward" \
                and node.args and node.args[0].keyword is None:
            out.append((node, node.args[0].value, False))
        elif t is cst.Return and node.value is not None and not isinstance(fn, cst.Module):
            for value in _returned(node.value):
                out.append((node, value, True))
    return out


def _backward_loss(call: cst.Call):
    base = call.func.value
    if isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute) and base.func.attr.value == "scale" \
            and base.args:
        return base.args[0].value  # scaler.scale(loss).backward()
    name = dotted(base) or ""
    if call.args and call.args[0].keyword is None and (name.split(".")[0] in HOSTS or call.func.attr.value ==
                                                          "manual_backward"):
        return call.args[0].value  # accelerator.backward(loss)
    return base


def _returned(value) -> list:
    """Loss-named values a return hands back: `loss`, `(out, loss)`, `{"loss": loss}`."""
    if isinstance(value, (cst.Tuple, cst.List)):
        items = [e.value for e in value.elements]
    elif isinstance(value, cst.Dict):
        # `{"loss": ce + kd}` (Lightning's training_step): the key names it
        keyed = [e.value for e in value.elements if isinstance(e, cst.DictElement) and
                 isinstance(e.key, cst.SimpleString) and looks_like_loss(e.key.evaluated_value or "")]
        items = [e.value for e in value.elements if isinstance(e, cst.DictElement)]
        return keyed + [v for v in items if v not in keyed and isinstance(v, (cst.Name, cst.Attribute)) and
                        looks_like_loss(dotted(v) or "")]
    else:
        items = [value]
    return [v for v in items if type(v) in (cst.Name, cst.Attribute) and looks_like_loss(dotted(v) or "")]


# ---------------------------------------------------------------- terms
class _Order:
    """The small statements of a function in source order, each with the
    compound statements (and arms) around it."""

    def __init__(self, fn) -> None:
        self.items = []  # (small statement, path)
        self.where = {}  # id(node inside a small statement) -> its index
        self._block(fn if isinstance(fn, cst.Module) else fn.body, ())

    def _block(self, suite, path) -> None:
        body = suite.body if isinstance(suite, (cst.IndentedBlock, cst.SimpleStatementSuite, cst.Module)) else ()
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine) or isinstance(stmt, cst.BaseSmallStatement):
                for small in (stmt.body if isinstance(stmt, cst.SimpleStatementLine) else [stmt]):
                    self._add(small, path)
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            elif isinstance(stmt, cst.With):
                self._block(stmt.body, path)  # `with autocast():` always runs its body: no arm
            else:
                self._compound(stmt, path + (id(stmt),))

    def _compound(self, stmt, path) -> None:
        for name in ("body", "orelse", "finalbody"):
            part = getattr(stmt, name, None)
            if part is None:
                continue
            if isinstance(part, cst.If):
                self._compound(part, path + (name,))
            elif isinstance(part, (cst.Else, cst.Finally)):
                self._block(part.body, path + (name,))
            elif isinstance(part, (cst.IndentedBlock, cst.SimpleStatementSuite)):
                self._block(part, path + (name,))
        for i, handler in enumerate(getattr(stmt, "handlers", ()) or ()):
            self._block(handler.body, path + (f"h{i}",))
        if isinstance(stmt, cst.If):
            self.where.update({id(n): len(self.items) for n in nodes(stmt.test)})
            self.items.append((stmt.test, path))

    def _add(self, small, path) -> None:
        index = len(self.items)
        self.items.append((small, path))
        for node in nodes(small, skip=(cst.Lambda,)):
            self.where[id(node)] = index

    def index(self, node) -> int:
        return self.where.get(id(node), -1)

    def reaching(self, name: str, before: int, unpack: bool = False) -> Optional[tuple]:
        """(value, [added values]) of the one `name = value` that reaches
        statement `before`, in its block or one around it, with the
        `name += x` after it; None when another binding could reach it.
        `unpack`: `_, name = value` counts too (the whole value is returned)."""
        if before < 0:
            return None
        path = self.items[before][1]
        added = []
        for index in range(before - 1, -1, -1):
            small, where = self.items[index]
            targets = _bound(small)
            if name not in targets:
                continue
            if isinstance(small, cst.AugAssign) and isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)):
                added.append(small.value)
                continue
            kinds = (cst.Name, cst.Attribute, cst.Tuple) if unpack else (cst.Name, cst.Attribute)
            if not isinstance(small, cst.Assign) or len(small.targets) != 1 or \
                    not isinstance(small.targets[0].target, kinds) or where != path[:len(where)]:
                return None
            return small.value, added
        return None


def _bound(small) -> set:
    out = set()
    if isinstance(small, cst.Assign):
        for target in small.targets:
            for node in nodes(target.target):
                if isinstance(node, (cst.Name, cst.Attribute)) and dotted(node):
                    out.add(dotted(node))
    elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
        if dotted(small.target):
            out.add(dotted(small.target))
    return out


def _terms(expr, order, at, depth, analysis) -> list:
    """(term, factors, names) of a loss: the summands, through products by
    other factors and the names that reach statement `at`; `names` are the
    names a term was reached through (`reg` for `reg = w.pow(2).sum()`)."""
    if depth > DEPTH:
        return [(expr, [], _bare(expr))]
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
        return _terms(expr.left, order, at, depth + 1, analysis) + _terms(expr.right, order, at, depth + 1, analysis)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        return _terms(expr.expression, order, at, depth + 1, analysis)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Multiply, cst.Divide)):
        # the factor: a number or a setting before a plain name; the other side is the term
        ranks = [(_factor(expr.right), 1, expr.left, expr.right)]
        if isinstance(expr.operator, cst.Multiply):
            ranks.append((_factor(expr.left), 0, expr.right, expr.left))
        rank, _, side, other = max(ranks, key=lambda r: r[:2])
        if len(ranks) == 2 and ranks[0][0] == ranks[1][0] == 1:
            # `weight * reg`: the term is the name whose value holds a cut, if only one does
            cut = [r for r in ranks if _has_cut(_resolved(r[2], order, at), analysis)]
            if len(cut) != 1:
                return [(expr, [], _bare(expr.left) | _bare(expr.right))]
            _, _, side, other = cut[0]
        if not rank:
            return [(expr, [], set())]
        return [(term, factors + [other], names) for term, factors, names in
                _terms(side, order, at, depth + 1, analysis)]
    inner = _reduced(expr, analysis)
    if inner is not None:
        # `(a + b - c).mean()`: a reduction of a sum is the sum of the terms' reductions
        return _terms(inner, order, at, depth + 1, analysis)
    key = dotted(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
    if key is not None:
        found = order.reaching(key, at)
        if found is not None:
            value, added = found
            out = _terms(value, order, order.index(value), depth + 1, analysis)
            for extra in added:
                out += _terms(extra, order, order.index(extra), depth + 1, analysis)
            return [(term, factors, names | {key}) for term, factors, names in out]
    return [(expr, [], _bare(expr))]


REDUCTIONS = ("mean", "sum")


def _reduced(expr, analysis):
    """The sum a linear reduction reduces (`(a + b).mean()`, `torch.sum(a - b, 1)`),
    with only settings as its other arguments; else None."""
    if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Attribute) or \
            expr.func.attr.value not in REDUCTIONS:
        return None
    qualified = analysis.ctx.imports.qualify(expr.func) or ""
    if qualified.startswith("torch.") and expr.args and expr.args[0].keyword is None:
        inner, rest = expr.args[0].value, expr.args[1:]
    else:
        inner, rest = expr.func.value, expr.args
    if not all(_setting(a.value) for a in rest):
        return None
    if isinstance(inner, cst.BinaryOperation) and isinstance(inner.operator, (cst.Add, cst.Subtract)):
        return inner
    return None


def _bare(expr) -> set:
    key = dotted(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
    return {key} if key else set()


def _resolved(expr, order, at):
    """The value a name holds at statement `at` (the name itself when unknown)."""
    key = dotted(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
    found = order.reaching(key, at) if key is not None else None
    return found[0] if found is not None else expr


def _factor(expr) -> int:
    """How likely a factor is a plain number: 3 a literal, 2 a setting
    (`opt.beta3`, `self.cfg.w`), 1 a name (`beta`), 0 anything else; the
    walk's values decide."""
    if isinstance(expr, cst.UnaryOperation):
        return _factor(expr.expression)
    if isinstance(expr, (cst.Integer, cst.Float)):
        return 3
    return 2 if isinstance(expr, cst.Attribute) else 1 if isinstance(expr, cst.Name) else 0


def _cuts(expr, analysis) -> list:
    """(cut node, what it cuts) inside `expr`, outermost first."""
    out = []
    for node in nodes(expr, skip=(cst.Lambda,)):
        if type(node) is cst.Attribute and node.attr.value == "data":
            out.append((node, node.value))
        elif type(node) is cst.Call:
            func = node.func
            if type(func) is cst.Attribute and func.attr.value in CUT_METHODS and not node.args:
                out.append((node, func.value))
                continue
            qualified = analysis.ctx.imports.qualify(func)
            if node.args and (qualified in CUT_CALLS or (qualified is None and isinstance(func, cst.Name) and
                                                         func.value in CUT_NAMES)):
                out.append((node, node.args[0].value))
    return out


def _spine(expr, analysis):
    """(cut, what it cuts) when the term is a function of the cut alone:
    the cut itself, or reductions, conversions and moves of it
    (`torch.mean(torch.tensor(xs).to(self.device))`, `kl.item()`,
    `crit(s, t).detach()`) whose other arguments are settings; else None
    (`mse(q.detach(), z)` reads `z` live)."""
    for _ in range(DEPTH):
        own = _cuts(expr, analysis)
        if own and own[0][0] is expr:
            return own[0]
        if isinstance(expr, cst.Subscript):
            expr = expr.value
        elif isinstance(expr, cst.Call) and all(_setting(a.value) for a in expr.args[1:]):
            if isinstance(expr.func, cst.Attribute) and (analysis.ctx.imports.qualify(expr.func) or "") \
                    .startswith("torch.") and expr.args:
                expr = expr.args[0].value  # torch.mean(x, dim=1)
            elif isinstance(expr.func, cst.Attribute) and all(_setting(a.value) for a in expr.args):
                expr = expr.func.value  # x.mean(), x.to(self.device)
            else:
                return None
        else:
            return None
    return None


def _cut_only(expr, analysis, order, at, depth=0, vals=None) -> Optional[list]:
    """The cuts (node, what it cuts) a term is computed from when it reads
    nothing else but settings: `dot * F.cross_entropy(t.detach(), hard)` with
    `_, hard = torch.max(t.detach(), 1)` and `dot` from cut values, followed
    through the names bound before statement `at`; None when some part may
    carry a graph (a name bound elsewhere, a call that is not torch's). With
    the walk's values, a name bound in a way the syntax does not follow (filled
    item by item in a loop: `returns[t] = r`) counts as a constant where the
    walk gave it no graph and nothing unknown."""
    if depth > DEPTH:
        return None
    if _setting(expr) and not isinstance(expr, cst.Attribute):
        return []
    own = _cuts(expr, analysis)
    if own and own[0][0] is expr:
        return [own[0]]
    parts = None
    if isinstance(expr, cst.Name):
        found = order.reaching(expr.value, at, unpack=True)
        if found is None or found[1]:
            # a local the syntax cannot follow (`ret[t] = g` in a loop) that the walk shows with no graph;
            # never a parameter, a loop target or a global (a caller's input, a batch: not proved)
            bound = at >= 0 and any(expr.value in _bound(small) for small, _ in order.items[:at])
            return [] if bound and _no_graph(vals, expr) else None
        return _cut_only(found[0], analysis, order, order.index(found[0]), depth + 1, vals)
    if isinstance(expr, cst.Subscript):
        parts = [expr.value]
    elif isinstance(expr, cst.BinaryOperation):
        parts = [expr.left, expr.right]
    elif isinstance(expr, cst.UnaryOperation):
        parts = [expr.expression]
    elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        values = [a.value for a in expr.args if a.keyword is None]
        if not all(_setting(a.value) for a in expr.args if a.keyword is not None):
            return None
        if (analysis.ctx.imports.qualify(expr.func) or "").startswith("torch."):
            parts = values  # F.cross_entropy(t.detach(), hard), torch.max(x.detach(), dim=1)
        else:
            parts = [expr.func.value] + values  # x.mean(), x.pow(2)
    if not parts:
        return None
    out = []
    for part in parts:
        cuts = _cut_only(part, analysis, order, at, depth + 1, vals)
        if cuts is None:
            return None
        out += cuts
    return out


def _no_graph(vals, expr) -> bool:
    """The walk gave `expr` a value with no graph, no module and nothing unknown."""
    val = vals.get(id(expr)) if vals is not None else None
    return val is not None and not (val.heads or val.modules or val.unknown)


def _setting(expr) -> bool:
    """A number, a string, a dotted setting (`self.device`, `cfg.dim`, `torch.float32`)."""
    if isinstance(expr, cst.UnaryOperation):
        return _setting(expr.expression)
    return isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString, cst.Attribute)) or \
        isinstance(expr, cst.Name) and expr.value in ("None", "True", "False")


def _has_cut(node, analysis) -> bool:
    return bool(_cuts(node, analysis))


def _reads_cut(expr, analysis, order, depth) -> bool:
    """`expr` holds a cut, or reads a name whose binding before it does
    (`vl = delta ** 2` with `delta = target - value.detach()`)."""
    if _has_cut(expr, analysis):
        return True
    if depth > 3:
        return False
    at = order.index(expr)
    for node in nodes(expr, skip=(cst.Lambda,)):
        if type(node) is cst.Name:
            found = order.reaching(node.value, at, unpack=True)
            if found is not None and _reads_cut(found[0], analysis, order, depth + 1):
                return True
    return False


# ---------------------------------------------------------------- values
def _walk(analysis, fn) -> Optional[dict]:
    """id(expression) -> the value the interpreter gave it, walking `fn`."""
    from .flow import GiveUp, Scope

    class Recording(Scope):
        def expr(self, expr, stmt=None):
            out = super().expr(expr, stmt)
            if expr is not None:
                vals[id(expr)] = out
            return out

    vals: dict = {}
    try:
        if isinstance(fn, cst.Module):
            scope = Recording(analysis, list(fn.body), name="<module>")
        else:
            params = [p.name.value for p in fn.params.params] + [p.name.value for p in fn.params.kwonly_params]
            body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
            scope = Recording(analysis, body, params=params, name=fn.name.value).grad_from(fn)
            scope.method_class = _class_of(analysis, fn)
        scope.run()
    except (GiveUp, RecursionError):
        return None
    return vals, scope


def _own_modules(analysis, fn) -> set:
    """`self.X` modules with parameters of the nn.Module class whose method
    `fn` is: what `model.parameters()` hands its optimizer."""
    cls = _class_of(analysis, fn)
    if cls is None or cls not in analysis.names.module_classes:
        return set()
    return {key for key in analysis.names.modules if key.startswith("self.") and key.count(".") == 1 and
            analysis.names.has_params(key) and _defined_in(analysis, cls, key)}


def _class_of(analysis, fn):
    return next((cls for (cls, _), method in analysis.names.methods.items() if method is fn), None)


def _defined_in(analysis, cls, key) -> bool:
    init = analysis.names.class_method(cls, "__init__")
    return init is not None and any(isinstance(n, cst.Attribute) and dotted(n) == key for n in nodes(init))


def _stepped(analysis, scope, site) -> set:
    """Modules the optimizer stepped after the backward `site` owns (when known)."""
    backs = [e for e in scope.events if e.kind == "backward" and e.call is site]
    if not backs:
        return set()
    out = set()
    at = backs[0].seq
    for step in scope.events:
        if step.kind == "step" and step.seq > at:
            if any(z.kind == "zero" and z.opt == step.opt and at < z.seq < step.seq for z in scope.events):
                continue  # cleared first: it steps another backward's gradients (`vf_opt.zero_grad()` before vf_loss's)
            opt = analysis.names.optimizers.get(step.opt)
            if opt is not None and opt.owns:
                out |= set(opt.owns)
    return out


def _judge(analysis, vals, order, site, loss_expr, returned, terms, stepped) -> list:
    from .decide import param_modules

    def graph(expr) -> bool:
        val = vals.get(id(expr))
        return val is not None and (bool(val.heads) or bool(val.modules) or val.unknown)

    live, dead, live_names = [], [], set()
    for term, factors, names in terms:
        val = vals.get(id(term))
        if val is None:
            return []  # not walked (a branch the walk did not take): cannot tell
        if any(graph(f) for f in factors) or val.heads or val.modules or val.unknown:
            # (`x.detach() * w` with a graph in w too: `-log_prob * advantage` trains what log_prob reaches)
            live += [term] + [f for f in factors if graph(f)]
            live_names |= names
        elif val.ghosts:
            dead.append(term)
    if not live or not dead:
        return []
    trained = set()
    for term in live:
        val = vals[id(term)]
        trained |= param_modules(analysis, closure(val.heads)) | {m for m in val.modules
                                                                  if analysis.names.has_params(m)}
    out = []
    for term in dead:
        spine = _spine(term, analysis)
        cuts = [spine] if spine else _cut_only(term, analysis, order, order.index(term), vals=vals) or []
        cut_vals = [v for v in (vals.get(id(c[1])) for c in cuts) if v is not None and (v.heads or v.modules)]
        if not cut_vals:
            continue  # not a function of cuts alone, or nothing with a graph was cut
        if _graph_names([c[1] for c in cuts], vals) & live_names:
            continue  # `a + (b - a).detach()`, `reg - reg.detach()`: a value shifted on purpose
        lost = set()
        for val in cut_vals:
            lost |= param_modules(analysis, closure(val.heads, through_ghosts=True)) | \
                {m for m in val.modules if analysis.names.has_params(m)}
        spine = cuts[0]
        hit = lost & trained
        # what the step updates: a stepped module itself or a layer of it (`self.v` where `self.parameters()` is)
        only = frozenset(m for m in lost if _part_of(m, stepped) and not _within(m, trained))
        if not hit and not only:
            continue  # cut from modules this loss does not train (a teacher, a target network)
        out.append(DeadTerm(site, returned, term, spine[0], frozenset(hit), only,
                            via=None if _inside(spine[0], term) else analysis.ctx.module.code_for_node(term),
                            stmt=analysis.ctx.statement_of(spine[0]),
                            loss=analysis.ctx.module.code_for_node(loss_expr)))
    return out


def _graph_names(exprs, vals) -> set:
    out = set()
    for expr in exprs:
        for node in nodes(expr, skip=(cst.Lambda,)):
            if isinstance(node, (cst.Name, cst.Attribute)):
                val = vals.get(id(node))
                if val is not None and val.heads and dotted(node):
                    out.add(dotted(node))
    return out


def _inside(node, expr) -> bool:
    return any(n is node for n in nodes(expr, skip=(cst.Lambda,)))


def _part_of(module, group) -> bool:
    """`module` is one in `group` or a layer of one (`self.v` of `self`)."""
    return any(module == m or module.startswith((m + ".", m + "[")) for m in group)


def _within(module, group) -> bool:
    """`module` is, holds, or is part of one in `group` (`self.cells` and `self.cells[0]`)."""
    return any(module == m or module.startswith((m + ".", m + "[")) or m.startswith((module + ".", module + "["))
               for m in group)


