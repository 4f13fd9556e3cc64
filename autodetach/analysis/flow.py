"""A small abstract interpreter for training code.

It walks a function's statements in order, keeping for every variable the
graph nodes its value hangs from. Each loop body is walked twice, so that a
value stored in iteration 1 and read in iteration 2 shows up as an edge
between the two iterations. A backward frees every node it reaches (unless
the graph is retained); a later backward that reaches a freed node is a
Conflict. Branches are alternatives: a node counts as freed after an `if`
only when both arms free it.

Cost is linear in the statements walked; nested loops double it, so the
walk gives up (and reports nothing) past a fixed budget.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from ..imports import dotted
from . import containers, model_containers, phases
from .graph import GNode, closure
from .roles import looks_like_loss as _looks_like_loss
from .walk import nodes, walk

CUT_METHODS = {"detach", "item", "tolist", "numpy", "data_ptr", "size", "dim", "numel",
               "nelement", "argmax", "argmin", "eq", "ne", "gt", "lt", "ge", "le", "long", "int",
               "bool", "byte", "nonzero", "sign", "round", "floor", "ceil", "isnan", "isinf",
               "argsort", "multinomial", "bernoulli", "isfinite", "count_nonzero", "short", "char"}
CUT_ATTRS = {"data", "grad", "shape", "dtype", "device", "requires_grad", "is_cuda", "ndim", "indices"}
# torch functions whose results never carry a graph: indices, samples, truth values
CUT_FUNCTIONS = {f"torch.{k}" for k in (
    "argmax", "argmin", "argsort", "multinomial", "bernoulli", "poisson", "nonzero", "count_nonzero",
    "searchsorted", "bucketize", "eq", "ne", "gt", "lt", "ge", "le", "isnan", "isinf", "isfinite",
    "randint", "randperm", "sign")}
# `.to(torch.long)`, `.type(torch.LongTensor)`: an integer tensor cannot carry a graph
INT_DTYPES = {f"torch.{k}" for k in (
    "long", "int", "int64", "int32", "int16", "int8", "uint8", "short", "bool", "LongTensor", "IntTensor",
    "ByteTensor", "BoolTensor", "cuda.LongTensor", "cuda.IntTensor", "cuda.ByteTensor", "cuda.BoolTensor")}
# (values, indices) pairs: always, or when a dimension is given (`x.max(1)`, not `x.max()`)
WITH_INDICES = {"sort", "topk", "kthvalue", "mode", "cummax", "cummin"}
WITH_INDICES_DIM = {"max", "min", "median", "nanmedian"}
CUT_BUILTINS = {"float", "int", "bool", "len", "str", "repr", "print", "isinstance", "range", "type",
                "enumerate", "zip", "abs", "round"}
STATE_METHODS = {"parameters", "named_parameters", "zero_grad", "train", "eval", "state_dict",
                 "load_state_dict", "to", "cuda", "cpu", "apply", "modules", "children",
                 "named_modules", "requires_grad_", "register_forward_hook", "buffers"}
# new tensors of another's shape: no graph comes with them
LIKE_FACTORIES = {f"torch.{k}_like" for k in ("zeros", "ones", "full", "empty", "rand", "randn", "randint")}
ADDITIVE = (cst.Add, cst.Subtract)
CONTAINER_ADD = {"append", "extend", "insert", "add", "appendleft"}
CONTAINER_CLEAR = {"clear"}
BUDGET = 20000  # statements walked per scope


_BUILTINS = {"max", "min", "sum", "abs", "pow", "list", "tuple", "dict", "set", "sorted", "reversed",
             "map", "filter", "getattr", "iter", "next", "any", "all", "divmod", "id", "hash", "super"}


class GiveUp(Exception):
    pass


@dataclass(kw_only=True)  # built by field name: ten fields read badly by position
class Val:
    heads: frozenset = frozenset()
    ghosts: frozenset = frozenset()
    modules: frozenset = frozenset()
    uses: dict = field(default_factory=dict)
    nontrivial: bool = False
    unknown: bool = False
    loss: bool = False
    elems: Optional[list] = None  # tuple results, element-wise
    bare: bool = False  # a plain name read, nothing computed
    uncertain: bool = False  # went through code we cannot see (it may cut)

    def join(self, other: "Val") -> "Val":
        uses = dict(self.uses)
        for k, v in other.uses.items():
            uses[k] = uses.get(k, []) + v
        return Val(heads=self.heads | other.heads, ghosts=self.ghosts | other.ghosts,
                   modules=self.modules | other.modules, uses=uses,
                   nontrivial=self.nontrivial or other.nontrivial, unknown=self.unknown or other.unknown,
                   loss=self.loss or other.loss, uncertain=self.uncertain or other.uncertain)

    @property
    def graph(self) -> bool:
        return bool(self.heads) or bool(self.modules)


@dataclass(eq=False)
class Event:
    kind: str  # backward | grad | step | zero
    stmt: cst.CSTNode
    call: cst.CSTNode
    tag: tuple
    branch: tuple
    seq: int
    loops: tuple  # enclosing loop nodes, outermost first
    # backward / grad
    target: Optional[Val] = None
    target_expr: Optional[cst.CSTNode] = None
    retain: Optional[bool] = False  # None: not a literal
    retain_arg: Optional[cst.Arg] = None
    create_graph: bool = False
    reach: frozenset = frozenset()
    helper: Optional[str] = None  # run inside this project function (its summary says so)
    # step / zero
    opt: Optional[str] = None
    modules: Optional[frozenset] = None  # zero: modules cleared (None: unknown)
    exits: bool = False  # in a branch that leaves the iteration (continue, return)


@dataclass(eq=False)
class Conflict:
    first: Event
    second: Event
    links: list  # freed nodes where the second backward enters the first's graph
    path: list  # nodes from the second backward's root down to the link


@dataclass(eq=False)
class Leak:
    key: str
    node: GNode  # the store in the later iteration
    loop: cst.CSTNode
    reached: bool  # a backward reaches the kept graph (retain_graph hides it)


class Scope:
    """Walks one function (or the module body)."""

    def __init__(self, analysis, body, params=(), env=None, name="<module>") -> None:
        self.a = analysis
        self.names = analysis.names
        self.imports = analysis.ctx.imports
        self.body = body
        self.name = name
        self.env: dict = dict(env or {})
        self.bound: set = set(self.env) | set(params)
        self.freed: dict = {}
        self.events: list = []
        self.conflicts: list = []
        self.leaks: list = []
        self.nodes: list = []
        self.loop_stack: list = []
        self.branch: tuple = ()
        self.no_grad = 0
        self.seq = 0
        self.walked = 0
        self.inlining: set = set()
        self.loops: dict = {}  # id(loop) -> loop node, for the rules' fixes
        self.returns: list = []
        self.leaf_nodes: dict = {}
        self.free_reads: dict = {}  # self.X read before this scope writes it
        self.for_targets: list = []  # (loop variable, what it iterates), innermost last
        self.local_defs: dict = {}  # nested functions defined so far (closures)
        self.self_class = None  # the class whose method this is, when walked as one
        self.eval_note = None  # an evaluation function walked for its callers (analysis.eval_loops)
        self.phase_note = None  # two phase methods whose order was inferred (analysis.phases)
        self.fresh: dict = {}  # id(loop) -> env values rebound at each iteration (a method's arguments)
        self.training_loops: set = set()  # id(loop): loops that call another file's training step
        self.caller_loop = False  # a method walked as the body of a loop its caller runs (Analysis._step_methods)
        self.cur_stmt = None  # the statement being walked
        self.distributions: set = set()  # names bound to a torch.distributions object
        self.handed: dict = {}  # an inlined callee's parameter -> the caller's optimizer it was given
        self._leak_candidates: list = []  # (key, store, loop, older stores), judged after the walk
        self._proven: Optional[tuple] = None  # see `proven`, built on first use

    # ---------------------------------------------------------------- helpers
    @property
    def proven(self) -> tuple:
        """Bindings and appends a backward in their loop proves to carry a graph."""
        if self._proven is None:
            from .backwarded import proven_bindings

            self._proven = proven_bindings(self.body)
        return self._proven

    def tag(self) -> tuple:
        return tuple((id(l), k) for l, k in self.loop_stack)

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def new_node(self, name, stmt, expr, val: Val, kind="op", trivial=None) -> GNode:
        n = GNode(name=name, stmt=stmt, expr=expr, iteration=self.tag(),
                  parents=val.heads, modules=val.modules, ghosts=val.ghosts,
                  trivial=(not val.nontrivial) if trivial is None else trivial,
                  uses=val.uses, kind=kind, uncertain=val.uncertain,
                  branch=self.branch, seq=self.next_seq())
        self.nodes.append(n)
        return n

    def leaf(self, key: str, modules) -> GNode:
        n = self.leaf_nodes.get(key)
        if n is None:
            n = GNode(name=key, stmt=None, expr=None, iteration=(), modules=frozenset(modules),
                      leaf=True, trivial=True, kind="leaf")
            self.leaf_nodes[key] = n
        return n

    # ---------------------------------------------------------------- run
    def run(self) -> "Scope":
        self.block(self.body)
        self.finish_leaks()
        return self

    def block(self, stmts) -> None:
        for s in stmts:
            self.statement(s)

    def statement(self, s) -> None:
        self.cur_stmt = s
        self.walked += 1
        if self.walked > BUDGET:
            raise GiveUp()
        if isinstance(s, (cst.SimpleStatementLine, _SuiteLine)):
            for small in s.body:
                self.small(small, s.suite if isinstance(s, _SuiteLine) else s)
        elif isinstance(s, (cst.For, cst.While)):
            self.loop(s)
        elif isinstance(s, cst.If):
            self.if_(s)
        elif isinstance(s, cst.With):
            self.with_(s)
        elif isinstance(s, cst.Try) or type(s).__name__ == "TryStar":
            self.block(s.body.body)
            for h in s.handlers:
                self.branch_run([h.body.body], s)
            if s.orelse is not None:
                self.block(s.orelse.body.body)
            if s.finalbody is not None:
                self.block(s.finalbody.body.body)
        elif isinstance(s, cst.FunctionDef):
            self.local_defs[s.name.value] = s  # walked when passed to optimizer.step(closure)
        elif isinstance(s, cst.ClassDef):
            return  # walked as scopes of their own
        elif hasattr(s, "body") and isinstance(getattr(s, "body"), cst.IndentedBlock):
            self.block(s.body.body)

    def _block_of(self, suite) -> list:
        if isinstance(suite, cst.IndentedBlock):
            return list(suite.body)
        if isinstance(suite, cst.SimpleStatementSuite):
            return [_SuiteLine(suite, suite.body)]
        return []

    def loop(self, s) -> None:
        if isinstance(s, cst.For):
            it = self.expr(s.iter)
            it_elem = self._loop_elem(s.iter, it)
        self.loops[id(s)] = s
        body = self._block_of(s.body)
        tgt = dotted(s.target) if isinstance(s, cst.For) else None
        it_key = dotted(s.iter) if isinstance(s, cst.For) else None
        for k in (1, 2):
            self.env.update(self.fresh.get(id(s), {}))
            self.loop_stack.append((s, k))
            if tgt and it_key:
                self.for_targets.append((tgt, it_key))
            if isinstance(s, cst.For):
                self.assign_target(s.target, it_elem, s, s.iter, kind="op")
            else:
                self.expr(s.test)
            self.block(body)
            if tgt and it_key:
                self.for_targets.pop()
            self.loop_stack.pop()
        self.find_leaks(s)
        if s.orelse is not None:
            self.block(self._block_of(s.orelse.body))

    def _loop_elem(self, it_expr, it: Val) -> Val:
        """What one iteration binds: `zip(outs, ys)` and `enumerate(outs)` hand
        out their arguments' elements position by position."""
        if isinstance(it_expr, cst.Call) and isinstance(it_expr.func, cst.Name) and \
                it_expr.func.value in ("zip", "enumerate") and self.imports.qualify(it_expr.func) is None \
                and it_expr.args and not any(a.star or a.keyword for a in it_expr.args):
            parts = [self._loop_elem(a.value, self.expr(a.value)) for a in it_expr.args]
            if it_expr.func.value == "enumerate":
                parts = [Val(), parts[0]] if len(parts) == 1 else None
            if parts is not None:
                out = Val()
                for p in parts:
                    out = out.join(p)
                out.elems = parts
                return out
        heads = it.heads
        if it.modules and not self.no_grad:
            # `for row in net(x)`: the rows carry the call's graph
            heads = heads | {self.new_node(None, self.cur_stmt, it_expr, it, kind="module")}
        return Val(heads=heads, ghosts=it.ghosts, unknown=it.unknown)

    def branch_run(self, arms, node, none_in=()) -> None:
        """Run alternatives; keep the frees common to all (and to 'not taken').
        `none_in`: (arm, name) pairs where a test proved the name None."""
        base_env, base_freed, base_branch = dict(self.env), dict(self.freed), self.branch
        envs, freeds = [], []
        for i, arm in enumerate(arms):
            self.env, self.freed = dict(base_env), dict(base_freed)
            for j, key in none_in:
                if j == i and key in self.env:
                    self.env[key] = Val()
            self.branch = base_branch + ((id(node), i),)
            start = len(self.events)
            self.block(arm)
            if _exits(arm):
                for ev in self.events[start:]:
                    ev.exits = True
                continue
            envs.append(self.env)
            freeds.append(self.freed)
        self.branch = base_branch
        if not envs:
            envs, freeds = [dict(base_env)], [dict(base_freed)]
        merged: dict = {}
        for e in envs:
            for k, v in e.items():
                merged[k] = merged[k].join(v) if k in merged and merged[k] is not v else v
        self.env = merged
        common = set(base_freed)
        all_freed = [set(f) for f in freeds]
        if len(freeds) >= 2 and all_freed:
            both = set.intersection(*all_freed)
            common |= both
        self.freed = {n: (base_freed.get(n) or freeds[0].get(n)) for n in common}

    def if_(self, s: cst.If) -> None:
        self.expr(s.test)
        arms = [self._block_of(s.body)]
        none_check = _none_check(s.test)
        orelse = s.orelse
        while orelse is not None:
            if isinstance(orelse, cst.If):
                self.expr(orelse.test)
                arms.append(self._block_of(orelse.body))
                orelse = orelse.orelse
            else:
                arms.append(self._block_of(orelse.body))
                orelse = None
        if len(arms) == 1:
            arms.append([])  # the branch not taken
        none_in = ()
        if none_check is not None:
            # `if state is not None: state = state.detach()`: where the test
            # says the name is None, it holds no graph (the first iteration)
            key, in_body = none_check
            none_in = tuple((i, key) for i in range(len(arms)) if (i == 0) == in_body)
        self.branch_run(arms, s, none_in)

    def with_(self, s: cst.With) -> None:
        ng = 0
        for item in s.items:
            ng = grad_mode(item.item, self.imports) or ng
        saved = self.no_grad
        self.set_grad(ng)
        self.block(self._block_of(s.body))
        self.no_grad = saved

    def set_grad(self, mode: int) -> None:
        """Enter a region where `mode` (grad_mode's answer) holds."""
        if mode == 1:
            self.no_grad += 1
        elif mode == -1:
            self.no_grad = 0

    def grad_from(self, fn) -> "Scope":
        """Walk `fn`'s body with the grad mode its decorators set."""
        self.set_grad(decorated_grad(fn, self.imports))
        return self

    # ---------------------------------------------------------------- small statements
    def small(self, s, stmt) -> None:
        if isinstance(s, cst.Assign):
            val = self.expr(s.value)
            for t in s.targets:
                self.assign_target(t.target, val, stmt, s.value)
        elif isinstance(s, cst.AnnAssign):
            if s.value is not None:
                self.assign_target(s.target, self.expr(s.value), stmt, s.value)
        elif isinstance(s, cst.AugAssign) and isinstance(s.target, cst.Subscript):
            from .entries import add_entry

            add_entry(self, s, stmt)  # total[name] += loss
        elif isinstance(s, cst.AugAssign):
            key = dotted(s.target)
            rhs = self.expr(s.value)
            old = self.lookup_key(key) if key else Val()
            nontrivial = not isinstance(s.operator, (cst.AddAssign, cst.SubtractAssign))
            val = old.join(rhs)
            if key is not None and (self.no_grad or key in self.names.leaves):
                pass  # an in-place update: same tensor, same place in the graph
            elif key is not None and val.graph and not self.no_grad:
                node = self.new_node(key, stmt, s.value, Val(heads=val.heads, ghosts=val.ghosts, modules=rhs.modules,
                                                               uses=rhs.uses, nontrivial=nontrivial), kind="accum")
                node.loss = rhs.loss
                self.env[key] = Val(heads=frozenset({node}), loss=rhs.loss)
            elif key is not None:
                self.env[key] = Val(unknown=val.unknown)
            self.bound.add(key)
        elif isinstance(s, cst.Expr):
            self.expr(s.value, stmt=stmt)
        elif isinstance(s, cst.Return):
            if s.value is not None:
                val = self.expr(s.value)
                # computed with gradients off, what comes back carries no graph;
                # a name handed back as it is (`return x`) keeps what it holds
                quiet = self.no_grad and not isinstance(s.value, (cst.Name, cst.Attribute))
                self.returns.append(self.cut(val, s.value) if quiet else val)
        elif isinstance(s, cst.Del):
            self.delete(s.target)
        elif isinstance(s, cst.Global) or isinstance(s, cst.Nonlocal):
            pass

    def delete(self, target) -> None:
        if isinstance(target, cst.Subscript):
            key = dotted(target.value)
            if key is not None:
                self.env[key] = Val()  # del buf[:]
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self.delete(el.value)
        else:
            key = dotted(target)
            if key is not None:
                self.env.pop(key, None)

    def assign_target(self, target, val: Val, stmt, expr, kind=None) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            elems = [e.value for e in target.elements]
            if val.elems is None and val.graph and not self.no_grad:
                # Outputs of one call share one graph: a node for the call,
                # and a trivial node per target hanging from it.
                call_node = self.new_node(None, stmt, expr, val, kind="module" if val.modules else "op")
                val = Val(heads=frozenset({call_node}))
            siblings = self._siblings(elems, val, stmt, expr)
            for i, t in enumerate(elems):
                sub = val
                if val.elems is not None and i < len(val.elems):
                    sub = val.elems[i]
                if i in siblings:
                    sub = siblings[i]
                self.assign_target(t, sub, stmt, expr, kind=self._state_kind(t, expr) or kind)
            return
        if isinstance(target, cst.StarredElement):
            self.assign_target(target.value, val, stmt, expr, kind)
            return
        if isinstance(target, cst.Subscript):
            key = dotted(target.value)
            if key is not None and val.graph and not self.no_grad:
                old = self.lookup_key(key)
                if _constant_index(target):
                    # `log["loss"] = loss`: the entry is replaced, so the new value does not
                    # hang from the old ones (which stay in the container beside it)
                    node = self.new_node(key, stmt, expr, Val(heads=val.heads, ghosts=val.ghosts, uses=val.uses),
                                         kind="container")
                    node.loss = val.loss
                    self.env[key] = Val(heads=frozenset({node}) | frozenset(h for h in old.heads if h.name != key or
                                                                      h.stmt is not stmt), loss=val.loss)
                    return
                node = self.new_node(key, stmt, expr, Val(heads=old.heads | val.heads, ghosts=val.ghosts,
                                                          uses=val.uses), kind="container")
                node.loss = val.loss
                self.env[key] = Val(heads=frozenset({node}), loss=val.loss)
            elif key is not None and not val.graph and val.ghosts and key in self.env:
                # `hidden[i] = repackage_hidden(hidden[i])`, `out["loss"] = out["loss"].detach()`:
                # the part that carried the graph is cut; which parts did is not tracked.
                old = self.env[key]
                self.env[key] = Val(ghosts=old.heads | old.ghosts | val.ghosts)
            return
        key = dotted(target)
        if key is None:
            return
        self.bound.add(key)
        if isinstance(expr, cst.Call) and self._distribution(expr):
            self.distributions.add(key)
        else:
            self.distributions.discard(key)
        if key in self.names.modules and key not in self.names.leaves or key in self.names.optimizers:
            self.env.pop(key, None)  # `model = Net()`, `opt = SGD(params)`: an object, not a tensor
            return
        if key in self.names.leaves and not val.graph:
            self.env[key] = Val(heads=frozenset({self.leaf(key, {key})}))  # w = nn.Parameter(...)
            return
        proven = not self.no_grad and (id(stmt), key) in self.proven[0]
        if not proven and (self.no_grad or not val.graph):
            self.env[key] = Val(ghosts=val.ghosts, unknown=val.unknown, elems=val.elems)
            return
        kind = kind or self._state_kind(target, expr) or ("module" if val.modules else "op")
        node = self.new_node(key, stmt, expr, val, kind=kind, trivial=True if not val.graph else None)
        node.loss = val.loss or _looks_like_loss(key) or proven
        if proven:
            node.proven, node.uncertain = True, False
        self.env[key] = Val(heads=frozenset({node}), loss=node.loss)

    def _siblings(self, elems, val: Val, stmt, expr) -> dict:
        """`loss, _, coarse = self.completion(data)` with `loss.backward()`:
        the call is a same-file function whose code says which results can
        carry a graph, and a backward proves that this call's do; the other
        such results are taken to carry one too (an inference, noted on the node)."""
        if self.no_grad or val.graph or not isinstance(expr, cst.Call):
            return {}
        keys = [dotted(t) for t in elems]
        proven = [k for k in keys if k and (id(stmt), k) in self.proven[0]]
        if not proven:
            return {}
        fn = self._own_method(expr.func) or self.names.functions.get(dotted(expr.func) or "")
        shape = self.a.returns_elems(fn) if fn is not None else None
        if shape is None or len(shape) != len(elems):
            return {}
        out = {}
        for i, (k, g) in enumerate(zip(keys, shape)):
            if g and k and k not in proven:
                node = self.new_node(k, stmt, expr, Val(), trivial=True)
                node.sibling = (f"`{k}` comes from the same call as `{proven[0]}` (line "
                                f"{self.a.ctx.line_of(stmt)}), which is backwarded, and "
                                f"`{fn.name.value}` can return a graph there")
                out[i] = Val(heads=frozenset({node}))
        return out

    def _state_kind(self, target, expr) -> Optional[str]:
        """`out, h = rnn(x, h)`: h is recurrent state fed back into the call."""
        key = dotted(target)
        if key is None or not isinstance(expr, cst.Call):
            return None
        callee = dotted(expr.func)
        if callee is None or not (self.names.is_module(callee) or callee in self.names.functions):
            return None
        for a in expr.args:
            for name in _names_in(a.value):
                if name == key:
                    return "state"
        return None

    # ---------------------------------------------------------------- expressions
    def lookup_key(self, key) -> Val:
        if key is None:
            return Val(unknown=True)
        if key in self.env:
            return self.env[key]
        if key in self.names.leaves:
            n = self.leaf(key, {key})
            return Val(heads=frozenset({n}))
        return Val(unknown=key not in self.bound)

    def expr(self, e, stmt=None) -> Val:
        """What evaluating `e` hands back; one handler per node type below
        (`_EXPR`), anything else is a value we know nothing about."""
        if e is None:
            return Val()
        handler = _EXPR.get(type(e))
        if handler is None:
            return Val(unknown=True)
        return handler(self, e, stmt)

    def _literal(self, e, stmt) -> Val:
        return Val()

    def _fstring(self, e: cst.FormattedString, stmt) -> Val:
        for part in e.parts:
            if isinstance(part, cst.FormattedStringExpression):
                self.expr(part.expression)
        return Val()

    def _name(self, e: cst.Name, stmt) -> Val:
        if e.value in ("None", "True", "False"):
            return Val()
        v = self._used(self.lookup_key(e.value), e)
        if v.heads:
            v.bare = True
        return v

    def _attribute(self, e: cst.Attribute, stmt) -> Val:
        if e.attr.value in CUT_ATTRS:
            return self.cut(self.expr(e.value), e.value)
        key = dotted(e)
        if key is not None and key in self.env:
            return self._used(self.env[key], e)
        if key is not None and key.startswith("self.") and key not in self.bound:
            self.free_reads.setdefault(key, e)
            if key.count(".") == 1 and key not in self.names.leaves:
                from .stored_state import stored_node

                held = stored_node(self, key)  # another method keeps a graph there
                if held is not None:
                    return self._used(Val(heads=frozenset({held})), e)
        base = dotted(e.value)
        if base is not None and self.names.is_module(base) and key not in self.names.modules \
                and self.names.is_param_attr(e.attr.value):
            # model.weight: a parameter of `model`.
            return Val(heads=frozenset({self.leaf(base, {base})}))
        if key is not None and key in self.names.leaves:
            return Val(heads=frozenset({self.leaf(key, {key})}))
        return self.expr(e.value)

    def _binary(self, e: cst.BinaryOperation, stmt) -> Val:
        v = self.expr(e.left).join(self.expr(e.right))
        v.nontrivial = v.nontrivial or not isinstance(e.operator, ADDITIVE)
        v.loss = False
        return v

    def _unary(self, e: cst.UnaryOperation, stmt) -> Val:
        v = self.expr(e.expression)
        if isinstance(e.operator, cst.Not):
            return Val(ghosts=v.heads | v.ghosts)
        return v

    def _boolean(self, e: cst.BooleanOperation, stmt) -> Val:
        v = self.expr(e.left).join(self.expr(e.right))
        return Val(ghosts=v.heads | v.ghosts)  # truth values, in practice

    def _comparison(self, e: cst.Comparison, stmt) -> Val:
        self.expr(e.left)
        for c in e.comparisons:
            self.expr(c.comparator)
        return Val()

    def _subscript(self, e: cst.Subscript, stmt) -> Val:
        v = self.expr(e.value)
        for s in e.slice:
            if isinstance(s.slice, cst.Index):
                self.expr(s.slice.value)
        last = containers.last_elem(v, e)
        if last is not None:
            return last
        if v.elems is not None and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Index) \
                and isinstance(e.slice[0].slice.value, cst.Integer):
            i = int(e.slice[0].slice.value.value)
            if -len(v.elems) <= i < len(v.elems):
                return v.elems[i]
        return Val(heads=v.heads, ghosts=v.ghosts, modules=v.modules, uses=v.uses, nontrivial=v.nontrivial,
                   unknown=v.unknown, loss=v.loss)

    def _sequence(self, e, stmt) -> Val:
        out = Val()
        elems = []
        for el in e.elements:
            sub = self.expr(el.value)
            elems.append(sub)
            out = out.join(sub)
        out.elems = elems
        return out

    def _dict(self, e: cst.Dict, stmt) -> Val:
        out = Val()
        for el in e.elements:
            if isinstance(el, cst.DictElement):
                self.expr(el.key)
            out = out.join(self.expr(el.value))
        return out

    def _comprehension(self, e, stmt) -> Val:
        f = e.for_in
        it = self.expr(f.iter)
        saved = dict(self.env)
        key = dotted(f.target) if isinstance(f.target, (cst.Name, cst.Attribute)) else None
        if key:
            self.env[key] = Val(heads=it.heads, ghosts=it.ghosts, unknown=it.unknown)
        v = self.expr(e.elt)
        self.env = saved
        return v.join(Val(ghosts=it.ghosts))

    def _unknown(self, e, stmt) -> Val:
        return Val(unknown=True)

    def _if_exp(self, e: cst.IfExp, stmt) -> Val:
        self.expr(e.test)
        return self.expr(e.body).join(self.expr(e.orelse))

    def _named(self, e: cst.NamedExpr, stmt) -> Val:
        v = self.expr(e.value)
        self.assign_target(e.target, v, stmt, e.value)
        return v

    def _starred(self, e: cst.StarredElement, stmt) -> Val:
        return self.expr(e.value)

    def _await(self, e: cst.Await, stmt) -> Val:
        return self.expr(e.expression)

    def cut(self, inner: Val, expr) -> Val:
        """A value cut from its graph; what it was cut from stays as a ghost
        (AD109 asks whether a model is reached only through a cut)."""
        ghosts = inner.heads | inner.ghosts
        if inner.modules and not self.no_grad:
            stmt = self.cur_stmt
            if isinstance(stmt, _SuiteLine):
                stmt = stmt.suite
            ghosts = ghosts | {self.new_node(None, stmt, expr, inner, kind="module")}
        return Val(ghosts=ghosts)

    def _used(self, v: Val, name_node) -> Val:
        if not v.heads:
            return v
        uses = {h: [name_node] for h in v.heads}
        return Val(heads=v.heads, ghosts=v.ghosts, uses=uses, unknown=v.unknown, loss=v.loss, elems=v.elems)

    def call(self, e: cst.Call, stmt) -> Val:
        """A call, in this order: a backward, a call that hands back what it is
        given, a method with a known meaning (events, containers, cuts), then
        the callee itself."""
        f = e.func
        q = self.imports.qualify(f)
        if isinstance(f, cst.Attribute) and f.attr.value in ("backward", "manual_backward"):
            return self.backward_site(e, stmt)
        if q in ("torch.autograd.backward", "torch.autograd.grad"):
            return self.backward_site(e, stmt, q=q)
        if _hands_back(f, q):
            # accelerator.prepare(model, opt, loader): the same objects, wrapped
            # for devices; no tensor comes out of it, so no graph does
            for a in e.args:
                self.expr(a.value)
            return Val()
        if isinstance(f, cst.Attribute):
            out = self.method_call(e, stmt, f)
            if out is not None:
                return out
        out = self.callee(e, stmt, f, q)
        if out.graph and _with_indices(e, f, q) and not self.names.is_module(dotted(f.value) if
                                                                             isinstance(f, cst.Attribute) else None):
            # `values, idx = x.max(1)`: the indices are integers, without a graph
            out.elems = [Val(heads=out.heads, ghosts=out.ghosts, modules=out.modules, uses=out.uses,
                             nontrivial=out.nontrivial, unknown=out.unknown, loss=out.loss),
                         Val(ghosts=out.heads | out.ghosts)]
        return out

    def _distribution(self, e) -> bool:
        """Is `e` a `torch.distributions` object (`Categorical(logits=x)`, or a
        name bound to one in this scope)? Its `.sample()` has no graph."""
        if isinstance(e, cst.Call):
            return (self.imports.qualify(e.func) or "").startswith("torch.distributions.")
        return dotted(e) in self.distributions

    # ---------------------------------------------------------------- calls: methods
    def method_call(self, e: cst.Call, stmt, f: cst.Attribute) -> Optional[Val]:
        """`base.meth(...)` where the method's name or the object says what
        it does; None: treat it as an ordinary callee."""
        base, meth = dotted(f.value) or model_containers.elem_key(f.value, self.names), f.attr.value
        event = _EVENT_METHODS.get(meth)
        if event is not None:
            out = event(self, e, stmt, self.handed.get(base, base))
            if out is not None:
                return out
        known = self.a.object_method(base, meth) if meth not in CUT_METHODS else None
        if known is not None and known[0].accum and not known[0].events:
            return self._meter_add(e, stmt, base, meth, known)
        if meth in CONTAINER_ADD and base is not None and known is None:
            return self._container_add(e, stmt, base, meth)
        if meth not in CUT_METHODS and meth not in STATE_METHODS and "." in (dotted(f) or "") and \
                (self.names.foreign_instances or self.names.instances):
            from .module_state import state_resets

            skey = state_resets(self.a).get(dotted(f))
            if skey is not None:
                self.env[skey] = Val()  # model.recurrent.reset_state()
                return Val()
        if meth in CONTAINER_CLEAR and base is not None:
            self.env[base] = Val()
            return Val()
        if meth == "detach_" and base is not None:
            return self._detach_in_place(base)
        if meth in CUT_METHODS or meth in ("to", "type") and any(
                self.imports.qualify(a.value) in INT_DTYPES for a in e.args) or \
                meth == "sample" and self._distribution(f.value):
            inner = self.expr(f.value)
            for a in e.args:
                self.expr(a.value)
            return self.cut(inner, f.value)
        if base is not None and self.names.is_module(base) and meth in STATE_METHODS:
            return Val()
        found = self.a.foreign_method(base, meth)
        if found is not None and found[0].events:
            return self._foreign_step(e, base, meth, found)
        method = self.names.method(base, meth)
        if method is None and base == "self" and self.self_class:
            method = self.names.class_method(self.self_class, meth)  # self.backward_step(loss)
        if method is not None and method.name.value not in self.inlining and \
                self.a.function_summary(method).has_events:
            return self.inline(method, e, stmt, bound_self=True)
        own = self.plain_self_method(f, base)
        if own is not None and (model_containers.forward_helper(self, own) or phases.phase_helper(self, own)):
            return self.inline(own, e, stmt, bound_self=True)  # outputs = self.process_batch(inputs)
        if base is not None and self.names.is_module(base) and not meth[:1].isupper() \
                and base not in self.imports.aliases:
            return self._module_method(e, f, base)
        return None

    def _step(self, e: cst.Call, stmt, base) -> Optional[Val]:
        if e.args and dotted(e.args[0].value) in self.local_defs:
            # optimizer.step(closure): the closure runs the forward and backward first
            fn = self.local_defs[dotted(e.args[0].value)]
            if fn.name.value not in self.inlining:
                ret = self.inline(fn, cst.Call(func=cst.Name(fn.name.value)), stmt)
                self.event("step", e, stmt, opt=base if base in self.names.optimizers else None)
                return ret  # step(closure) returns the closure's loss
        if base in self.names.optimizers:
            self.event("step", e, stmt, opt=base)
            return Val()
        if e.args and dotted(e.args[0].value) in self.names.optimizers:
            self.event("step", e, stmt, opt=dotted(e.args[0].value))  # scaler.step(opt)
            return Val()
        if base is not None and not e.args and not self.names.is_module(base) and \
                not _NOT_AN_OPTIMIZER.search(base.split(".")[-1]):
            # `opt = make_optimizer(G, D)` from another file: it may step anything
            # (decide.discarded then cannot say the gradients are thrown away)
            self.event("unknown_step", e, stmt)
        return None

    def _zero_grad(self, e: cst.Call, stmt, base) -> Val:
        if base in self.names.optimizers:
            owns = self.names.optimizers[base].owns
            self.event("zero", e, stmt, opt=base, modules=owns)
        else:
            self.event("zero", e, stmt, modules=frozenset({base}) if base else None)
        return Val()

    def _container_add(self, e: cst.Call, stmt, base: str, meth: str) -> Val:
        """`losses.append(loss)`: the container now holds the argument's graph."""
        args = [self.expr(a.value) for a in e.args]
        val = Val()
        for a in args:
            val = val.join(a)
        proven = id(e) in self.proven[1]
        if (val.graph or proven) and not self.no_grad:
            old = self.lookup_key(base)
            expr = e.args[-1].value if e.args else None
            elem = containers.append_elem(self, base, meth, val, proven, stmt, expr)
            node = self.new_node(base, stmt, expr, Val(heads=old.heads | elem.heads, ghosts=val.ghosts,
                                                       uses=val.uses), kind="container")
            node.loss = val.loss or proven
            if proven:
                node.proven, node.uncertain = True, False
            if meth == "append":
                node.last = elem
            self.env[base] = Val(heads=frozenset({node}), loss=val.loss)
        return Val()

    def _detach_in_place(self, base: str) -> Val:
        # in place: `h.detach_()`, or `for s in state: s.detach_()` cuts `state`
        for key in [base] + [it for tgt, it in self.for_targets if tgt == base]:
            old = self.lookup_key(key)
            self.env[key] = Val(ghosts=old.heads | old.ghosts)
        return Val()

    def _module_method(self, e: cst.Call, f: cst.Attribute, base: str) -> Val:
        """model.encode(x): runs the module's parameters."""
        out = self._module_call(e, base)
        own = self._own_method(f)
        if own is None:
            return self._quiet_method(out, base, f.attr.value)
        if own.name.value not in self.inlining and \
                not self.a.function_summary(own).has_events:
            if self.a.returns_graph(own) is False:
                return Val(ghosts=out.heads | out.ghosts)  # `s, a = self.make_batch()` of plain data
            shape = self.a.returns_elems(own)
            if shape is not None:
                cut = Val(ghosts=out.heads | out.ghosts)
                out.elems = self._elems(own, e, out, shape, out, cut, 1)
        return out

    # ---------------------------------------------------------------- calls: the callee
    def callee(self, e: cst.Call, stmt, f, q) -> Val:
        """A call by what is called: a module, a constructor that cuts, a
        helper class, a function of this file or one we cannot see."""
        key = dotted(f) or model_containers.elem_key(f, self.names)
        if key is not None and self.names.is_module(key):
            return self._module_call(e, key)
        if q == "torch.autograd.Variable":
            return self._variable(e)
        if q in ("torch.tensor", "torch.as_tensor", "numpy.array", "numpy.asarray") or q in LIKE_FACTORIES or \
                q in CUT_FUNCTIONS or (q or "").startswith("numpy.") or \
                (key in CUT_BUILTINS and q is None):
            args = Val()
            for a in e.args:
                args = args.join(self.expr(a.value))
            return Val(ghosts=args.heads | args.ghosts)
        if key is not None and key in self.names.classes and key not in self.names.module_classes:
            for a in e.args:
                self.expr(a.value)
            return Val()  # an object of a local helper class
        if isinstance(f, cst.Attribute) and q is None:
            from .stored_state import object_call

            known = object_call(self, e, f)  # an object of a project class that cuts some arguments
            if known is not None:
                return self._quiet_method(known, dotted(f.value), f.attr.value)
        args = Val()
        module_args = set()
        for a in e.args:
            k = dotted(a.value)
            if k is not None and self.names.is_module(k):
                module_args.add(k)
                continue
            args = args.join(self.expr(a.value))
        if isinstance(f, cst.Attribute) and q is None:
            # a method on a value: x.sum(), x.view(...), scaler.scale(loss)
            args = self.expr(f.value).join(args)
        elif not isinstance(f, (cst.Attribute, cst.Name)):
            args = self.expr(f).join(args)
        if key is not None and key in self.names.functions:
            out = self._local_function(e, stmt, key, args)
            if out is not None:
                return out
            module_args = set()  # the summary's modules stand for them
        own = self._own_method(f)
        if own is not None and args.graph and own.name.value not in self.inlining and \
                not self.a.function_summary(own).has_events:
            if self.a.returns_graph(own) is False:
                # `@torch.no_grad()`, `return np.transpose(x)`: no graph, and no cut worth
                # naming (what `args` holds includes the object's own state)
                return Val()
            shape, from_args = self.a.returns_elems(own), self.a.returns_elems_from_args(own)
            if shape is not None and from_args is not None:
                # `e_loss, d_loss = self._calc_loss(out)`: d_loss built on `out.detach()` and
                # the discriminator does not hang from `out`
                args.nontrivial = True
                whole = Val(heads=args.heads, ghosts=args.ghosts, modules=args.modules, uses=args.uses,
                            nontrivial=True, unknown=args.unknown, loss=args.loss)
                whole.uncertain = args.uncertain
                cut = Val(ghosts=args.heads | args.ghosts)
                args.elems = self._elems(own, e, args, shape, whole, cut, 1)
        if module_args:
            args.modules = args.modules | frozenset(m for m in module_args if self.names.has_params(m))
            args.nontrivial = True
        if self._external(f, q, key):
            out = self._external_call(e, stmt, args, q, key)
            if out is not None:
                return out
        if isinstance(f, cst.Attribute) and q is None and own is None and args.graph and \
                dotted(f.value) is not None and not self.lookup_key(dotted(f.value)).graph:
            # `agent.greedy_option(state)`, `nets.fan.get_heatmap(x)` of an object whose class is
            # in another file; a base that holds a graph is a tensor (`loss.mean()` is never
            # looked up by name)
            args = self._quiet_method(args, dotted(f.value), f.attr.value)
        if args.graph:
            args.nontrivial = True
            args.loss = bool(q and _looks_like_loss(q)) or bool(key and _looks_like_loss(key))
        return args

    def _variable(self, e: cst.Call) -> Val:
        if e.args and isinstance(e.args[0].value, cst.Attribute) and e.args[0].value.attr.value == "data":
            return self.cut(self.expr(e.args[0].value.value), e.args[0].value.value)
        inner = self.expr(e.args[0].value) if e.args else Val()
        return self.cut(inner, e)  # Variable(x) is a detached alias today

    def _local_function(self, e: cst.Call, stmt, key: str, args: Val) -> Optional[Val]:
        """A function of this file: walked at the call when it has events,
        else read from its summary. None: `args` now stands for its result."""
        if key in self.inlining:
            return Val(ghosts=args.heads | args.ghosts)  # recursion: assume it cuts
        fn = self.names.functions[key]
        if self.a.returns_cut(fn):
            return Val(ghosts=args.heads | args.ghosts)
        summary = self.a.function_summary(fn)
        if summary.has_events:
            return self.inline(fn, e, stmt)
        ret = self.a.returns_graph(fn)
        if ret is False:
            return Val(ghosts=args.heads | args.ghosts)
        if ret is None:
            args.uncertain = True
        mods = summary.modules
        if mods:
            args.modules = args.modules | frozenset(m for m in mods if self.names.has_params(m))
            args.nontrivial = True
        shape = self.a.returns_elems(fn)
        if shape is not None:
            # `loss, n_correct, n_word = cal_performance(...)`: only some carry the graph
            if args.graph:
                args.nontrivial = True
            cut = Val(ghosts=args.heads | args.ghosts)
            whole = Val(heads=args.heads, ghosts=args.ghosts, modules=args.modules, uses=args.uses,
                        nontrivial=args.nontrivial, unknown=args.unknown, loss=args.loss)
            whole.uncertain = args.uncertain
            args.elems = self._elems(fn, e, args, shape, whole, cut, 0)
        return None

    def _external_call(self, e: cst.Call, stmt, args: Val, q, key) -> Optional[Val]:
        """A function we cannot see; its project summary, when there is one,
        says whether it runs backward, cuts or passes the graph through."""
        summary = self.a.project_summary(q, key)
        if summary is not None and summary.backward_args and args.graph:
            self.helper_backward(e, stmt, args, summary.backward_retain, q or key)
        if summary is not None and not summary.events:
            if summary.result in ("cut", "const"):
                return Val(ghosts=args.heads | args.ghosts)
            if summary.result == "graph" and args.graph:
                return self._through(args, summary, q or key)
        if args.graph:
            args.uncertain = True
        return None

    def _elems(self, fn, call, args, shape, whole, cut, skip) -> list:
        """Per returned element: the graph of the arguments it hangs from (its
        parameters, matched to this call's arguments), plus the modules the
        callee runs. `whole` where the match cannot be made."""
        from_args = self.a.returns_elems_from_args(fn)
        params = [p.name.value for p in fn.params.params][skip:]
        if from_args is None or any(a.star for a in call.args):
            return [whole if g else cut for g in shape]
        bound = {}
        for i, a in enumerate(x for x in call.args if x.keyword is None):
            if i < len(params):
                bound[params[i]] = a.value
        for a in call.args:
            if a.keyword is not None:
                bound[a.keyword.value] = a.value
        out = []
        for g, ps in zip(shape, from_args):
            if not g:
                out.append(cut)
            elif ps is None:
                out.append(whole)
            else:
                v = Val(ghosts=args.heads | args.ghosts, modules=args.modules, nontrivial=True)
                v.uncertain = args.uncertain
                for p in ps:
                    if p in bound:
                        arg = bound[p]
                        # a name read again is free; anything else is not walked twice
                        part = self.expr(arg) if isinstance(arg, (cst.Name, cst.Attribute)) else args
                        v = v.join(Val(heads=part.heads, ghosts=part.ghosts, modules=part.modules, uses=part.uses,
                                       nontrivial=True, unknown=part.unknown))
                v.nontrivial = True
                out.append(v)
        return out

    def _foreign_step(self, call, base, meth, found) -> Val:
        """`trainer.train_step(x, y)` of a class in another file of the project
        that runs backward and steps inside: the loop around it trains, and a
        result the summary says carries a graph gets a node of its own."""
        summary, path = found
        for a in call.args:
            self.expr(a.value)
        self.training_loops.update(id(l) for l, _ in self.loop_stack)
        if summary.result != "graph" or self.no_grad:
            return Val()
        import os

        self.names.inferred.setdefault(base, (
            f"`{base}.{meth}()` runs backward and returns values that carry their graph (read from "
            f"{os.path.basename(path)})"))
        stmt = self.cur_stmt
        stmt = stmt.suite if isinstance(stmt, _SuiteLine) else stmt
        node = self.new_node(None, stmt, call, Val(nontrivial=True), kind="op", trivial=False)
        node.loss = _looks_like_loss(meth)
        v = Val(heads=frozenset({node}), loss=node.loss)
        if summary.arity:
            # per element where the callee's returns agree (`return loss.item(), out`)
            v.elems = [Val() if summary.elems and summary.elems[i] in ("cut", "const") else Val(heads=frozenset({node}))
                       for i in range(summary.arity)]
        return v

    def _meter_add(self, call, stmt, base, meth, meter) -> Val:
        """`meter.update(loss)`: the method adds its argument into the
        object's state, so the object is a container of what it is given."""
        summary, where, cls = meter
        vals = [(a, self.expr(a.value)) for a in call.args]
        pos = [(a, v) for a, v in vals if a.keyword is None and not a.star]
        for i, line, whole in summary.accum:
            if i >= len(pos) or self.no_grad:
                continue
            arg, val = pos[i]
            if not val.graph:
                continue
            old = self.lookup_key(base)
            node = self.new_node(base, stmt, arg.value, Val(heads=old.heads | val.heads, ghosts=val.ghosts,
                                                            uses=val.uses), kind="container")
            node.loss = True
            node.meter = (f"{cls}.{meth}", where, line, whole)
            self.env[base] = Val(heads=frozenset({node}), loss=True)
            break
        return Val()

    def _quiet_method(self, out: Val, base, meth: str) -> Val:
        """`out` is what `base.meth(...)` would hand back; a project class's
        method that returns no graph (`@torch.no_grad()`, `.item()`) cuts it,
        whole or per returned element."""
        if not out.graph:
            return out
        from .quiet_methods import method_results

        known = method_results(self.a, base, meth)
        if known == "cut":
            return Val(ghosts=out.heads | out.ghosts)
        if known:
            out.elems = [Val(ghosts=out.heads | out.ghosts) if k == "cut" else
                         Val(heads=out.heads, ghosts=out.ghosts, modules=out.modules, uses=out.uses,
                             nontrivial=True, unknown=out.unknown) for k in known]
        return out

    def plain_self_method(self, f, base):
        """`self.m(...)` of this class with no backward or step of its own,
        not being inlined already, outside no_grad: the methods that
        analysis.model_containers and analysis.phases may walk at the call."""
        if base != "self" or self.no_grad:
            return None
        own = self._own_method(f)
        if own is None or own.name.value in self.inlining or self.a.function_summary(own).has_events:
            return None
        return own

    def _own_method(self, f):
        """The FunctionDef of `obj.m(...)` / `self.m(...)` when this file defines it
        (for `self`, the walked class, else the only class with such a method)."""
        if not isinstance(f, cst.Attribute):
            return None
        base, meth = dotted(f.value), f.attr.value
        m = self.names.method(base, meth)
        if m is None and base == "self":
            if self.self_class:
                return self.names.class_method(self.self_class, meth)
            found = [fn for (_, name), fn in self.names.methods.items() if name == meth]
            m = found[0] if len(found) == 1 else None
        return m

    def _through(self, args: Val, summary, name: str) -> Val:
        """A project-local function that returns its arguments' graph."""
        args.nontrivial = True
        args.loss = _looks_like_loss(name)
        if summary.arity:
            args.elems = [Val(heads=args.heads, ghosts=args.ghosts, modules=args.modules, uses=args.uses,
                              nontrivial=True, unknown=args.unknown, loss=args.loss)
                          for _ in range(summary.arity)]
        return args

    def _external(self, f, q, key) -> bool:
        """A function whose body we cannot see (imported from elsewhere, a
        parameter, a callback): it might cut the graph."""
        if q is not None:
            return not q.startswith(("torch", "math", "numpy", "builtins"))
        if isinstance(f, cst.Name):
            return f.value not in _BUILTINS and key not in self.names.functions
        return False

    def _module_call(self, e: cst.Call, key: str) -> Val:
        args = Val()
        for a in e.args:
            args = args.join(self.expr(a.value))
        if self.no_grad:
            from .module_state import module_states

            for attr, _, _ in module_states(self.a, key):
                self.env[f"{key}.{attr}"] = Val()  # stored without a graph
            return Val(ghosts=args.heads | args.ghosts)
        mods = frozenset({key}) if self.names.has_params(key) else frozenset()
        v = Val(heads=args.heads, ghosts=args.ghosts, modules=args.modules | mods, uses=args.uses, nontrivial=True,
                unknown=args.unknown)
        v.loss = not self.names.has_params(key) and _looks_like_loss(key)
        if args.unknown and not v.heads and not mods:
            v.unknown = True
        if key in self.names.wrapped:
            # DataParallel(trainer) of a class we cannot see: which of its
            # results share a graph is unknown (no freed-graph conflicts)
            v.uncertain = True
        if dotted(e.func) not in (key, key + ".forward"):
            return v  # model.encode(x): not the forward that keeps the state
        return self._module_state(key, v)

    def _module_state(self, key: str, v: Val) -> Val:
        """`model(x)` whose class keeps recurrent state on itself (read from
        another file): the call reads the state the last call stored and
        stores new state hanging from this call's graph."""
        from .module_state import module_states

        stmt = self.cur_stmt
        stmt = stmt.suite if isinstance(stmt, _SuiteLine) else stmt
        for attr, path, _ in module_states(self.a, key):
            skey = f"{key}.{attr}"
            old = self.env.get(skey, Val())
            node = self.new_node(skey, stmt, None, Val(heads=old.heads | v.heads, ghosts=old.ghosts, modules=v.modules,
                                                       nontrivial=True),
                                 kind="state")
            node.module_state = (key, attr, path)
            node.loss = False
            self.env[skey] = Val(heads=frozenset({node}))
            self.bound.add(skey)
            v = Val(heads=v.heads | {node}, ghosts=v.ghosts, modules=v.modules, uses=v.uses, nontrivial=True,
                    unknown=v.unknown, loss=v.loss)
        return v

    def inline(self, fn: cst.FunctionDef, call: cst.Call, stmt, bound_self=False) -> Val:
        """Walk a same-file function (or a method of a local class) at its
        call site, one level deep. A method's `self.X` state lives on."""
        saved_env, saved_handed = dict(self.env), self.handed
        params = [p.name.value for p in fn.params.params][1 if bound_self else 0:]
        pos = [a for a in call.args if a.keyword is None]
        given = {p: pos[i].value for i, p in enumerate(params) if i < len(pos)}
        given.update((a.keyword.value, a.value) for a in call.args if a.keyword is not None)
        self.handed = dict(self.handed)
        for p, arg in given.items():
            self.env[p] = self.expr(arg)
            # `take_step(self.critic_opt, loss)`: the callee's `optimizer.step()` steps the caller's
            opt = self.handed.get(dotted(arg), dotted(arg))
            if opt in self.names.optimizers:
                self.handed[p] = opt
            else:
                self.handed.pop(p, None)
        self.inlining.add(fn.name.value)
        saved_returns, saved_grad = self.returns, self.no_grad
        self.returns = []
        try:
            self.grad_from(fn).block(self._block_of(fn.body))
        finally:
            self.inlining.discard(fn.name.value)
            self.no_grad = saved_grad
            self.handed = saved_handed
        out = Val()
        for r in self.returns:
            out = out.join(r)
        if len(self.returns) == 1:
            out = self.returns[0]
        self.returns = saved_returns
        # Locals of the callee vanish; stores to attributes and globals stay.
        local = set(params) | self._locals_of(fn)
        for k in list(self.env):
            if k in local and "." not in k:
                if k in saved_env:
                    self.env[k] = saved_env[k]
                else:
                    del self.env[k]
        return out

    def _locals_of(self, fn) -> set:
        """The names `fn` assigns and does not declare outer: two walks of
        its body, so once per function and file, not once per inlined call."""
        memo = self.a.table("_locals_memo")
        out = memo.get(fn)
        if out is None:
            out = memo[fn] = _assigned_names(fn) - _declared_outer(fn)
        return out

    # ---------------------------------------------------------------- events
    def event(self, kind, call, stmt, **kw) -> Event:
        ev = Event(kind=kind, stmt=stmt, call=call, tag=self.tag(), branch=self.branch,
                   seq=self.next_seq(), loops=tuple(l for l, _ in self.loop_stack), **kw)
        self.events.append(ev)
        return ev

    def backward_site(self, e: cst.Call, stmt, q=None) -> Val:
        f = e.func
        retain_arg = None
        create = False
        pos = [a for a in e.args if a.keyword is None and not a.star]
        kwargs = {a.keyword.value: a for a in e.args if a.keyword is not None}
        if q in ("torch.autograd.backward", "torch.autograd.grad"):
            if not pos and "outputs" not in kwargs and "tensors" not in kwargs:
                return Val()
            target_expr = pos[0].value if pos else (kwargs.get("outputs") or kwargs.get("tensors")).value
            kind = "grad" if q.endswith("grad") else "backward"
            retain_pos = 3 if kind == "grad" else 2
            inputs_val = self.expr(pos[1].value) if kind == "grad" and len(pos) > 1 else Val()
        else:
            base_val = self.expr(f.value)
            if base_val.graph or not pos:
                target_expr = f.value
            else:
                target_expr = pos[0].value  # accelerator.backward(loss)
            kind = "backward"
            retain_pos = 2 if target_expr is f.value else 99
            inputs_val = Val()
        target = self.expr(target_expr)
        for name, a in kwargs.items():
            if name not in ("retain_graph", "retain_variables", "create_graph"):
                self.expr(a.value)
        retain: Optional[bool] = False
        if "retain_graph" in kwargs or "retain_variables" in kwargs:
            retain_arg = kwargs.get("retain_graph") or kwargs.get("retain_variables")
            retain = _literal_bool(retain_arg.value)
        elif len(pos) >= retain_pos:
            retain_arg = pos[retain_pos - 1]
            retain = _literal_bool(retain_arg.value)
        if "create_graph" in kwargs:
            cg = _literal_bool(kwargs["create_graph"].value)
            create = cg is not False
            if retain_arg is None and cg is not False:
                retain = True if cg else None
        ev = self.event(kind, e, stmt, target=target, target_expr=target_expr, retain=retain,
                        retain_arg=retain_arg, create_graph=create)
        reach = closure(target.heads)
        ev.reach = frozenset(reach)
        if self.no_grad:
            return Val()
        self.check_conflict(ev, target)
        if retain is False:
            for n in reach:
                if not n.leaf:
                    self.freed[n] = ev
        if kind == "grad" and create:
            return Val(heads=target.heads | inputs_val.heads, nontrivial=True)
        return Val(ghosts=target.heads)

    def helper_backward(self, e: cst.Call, stmt, args: Val, retain, name: str) -> None:
        """A project function that runs backward on what it is given
        (`GDPPLoss(phi_real, phi_fake, backward=True)`): a backward through
        the arguments' graph, at the call. Known from its summary only."""
        ev = self.event("backward", e, stmt, target=args, target_expr=e, retain=retain, helper=name)
        ev.reach = frozenset(closure(args.heads))
        if self.no_grad:
            return
        self.check_conflict(ev, args)
        if retain is False:
            for n in ev.reach:
                if not n.leaf:
                    self.freed[n] = ev

    def check_conflict(self, ev: Event, target: Val) -> None:
        if not self.freed:
            return
        # Walk from the root; stop at freed nodes that hold saved tensors.
        # Never through code we cannot see: a freed node counts when some
        # path to it is certain, whichever path the walk meets first.
        stack = [h for h in target.heads if not h.uncertain]
        prev: dict = {h: None for h in stack}
        links = []
        while stack:
            n = stack.pop()
            if n in self.freed and not n.trivial and not n.leaf:
                links.append(n)
                continue
            for p in n.parents:
                if p not in prev and not p.uncertain:
                    prev[p] = n
                    stack.append(p)
        if not links:
            return
        by_first: dict = {}
        for link in links:
            by_first.setdefault(self.freed[link], []).append(link)
        for first, group in by_first.items():
            path = []
            n = group[0]
            while n is not None:
                path.append(n)
                n = prev.get(n)
            path.reverse()
            self.conflicts.append(Conflict(first, ev, group, path))

    # ---------------------------------------------------------------- leaks
    def find_leaks(self, loop) -> None:
        """Keys whose value in iteration 2 still hangs from iteration 1's
        graph through an earlier value of the same key (it accumulates)."""
        lid = id(loop)
        for key, val in self.env.items():
            for head in val.heads:
                if not any(t == (lid, 2) for t in head.iteration):
                    continue
                older = [p for p in closure(head.parents) if p.name == key and not p.entry
                         and any(t == (lid, 1) for t in p.iteration)]
                if older:
                    self._leak_candidates.append((key, head, loop, older))

    def finish_leaks(self) -> None:
        # Decided at the end: a backward after the loop may consume it.
        returned = closure(h for r in self.returns for h in r.heads)
        targets = {h for ev in self.events if ev.kind == "backward" and ev.target is not None
                   for h in ev.target.heads}
        evaluates = self.eval_note is not None  # callers seen: no backward, no no_grad
        for key, head, loop, older in self._leak_candidates:
            if head in returned and not evaluates and not any(n in self.freed for n in closure([head])):
                continue  # the caller may backward it; not when a backward here freed its graph
            if not any(loop in ev.loops for ev in self.events if ev.kind in ("backward", "grad")) and \
                    id(loop) not in self.training_loops and not evaluates:
                continue  # not a training loop
            if _uncertain_below(head):
                continue
            if containers.last_consumed(head, self.events):
                continue  # `losses[-1].backward()` frees what the list keeps
            reached = any(head in ev.reach or any(o in ev.reach for o in older)
                          for ev in self.events if ev.kind in ("backward", "grad"))
            if reached and not any(ev.retain is not False for ev in self.events
                                   if ev.kind in ("backward", "grad") and head in ev.reach):
                continue  # consumed by a backward (gradient accumulation)
            if not head.loss and (_looks_like_loss(key) or
                                  (head.kind == "accum" and targets & closure(head.parents))):
                head.loss = True  # named as one, or a sum of values computed from what is backwarded
            self.leaks.append(Leak(key, head, loop, reached))


# Scope.expr's handlers, by node type; a node type not here is unknown.
_EXPR = {
    cst.Integer: Scope._literal, cst.Float: Scope._literal, cst.Imaginary: Scope._literal,
    cst.SimpleString: Scope._literal, cst.ConcatenatedString: Scope._literal, cst.Ellipsis: Scope._literal,
    cst.Lambda: Scope._literal,
    cst.FormattedString: Scope._fstring,
    cst.Name: Scope._name,
    cst.Attribute: Scope._attribute,
    cst.Call: Scope.call,
    cst.BinaryOperation: Scope._binary,
    cst.UnaryOperation: Scope._unary,
    cst.BooleanOperation: Scope._boolean,
    cst.Comparison: Scope._comparison,
    cst.Subscript: Scope._subscript,
    cst.Tuple: Scope._sequence, cst.List: Scope._sequence, cst.Set: Scope._sequence,
    cst.Dict: Scope._dict,
    cst.ListComp: Scope._comprehension, cst.GeneratorExp: Scope._comprehension, cst.SetComp: Scope._comprehension,
    cst.DictComp: Scope._unknown,
    cst.IfExp: Scope._if_exp,
    cst.NamedExpr: Scope._named,
    cst.StarredElement: Scope._starred,
    cst.Await: Scope._await,
}

# `.step()` without arguments on these is no optimizer step.
_NOT_AN_OPTIMIZER = re.compile(r"sched|warmup|lr|env|ema|swa|prof|bar|writer|meter|timer|counter", re.I)

# Scope.method_call's events, by method name; a handler that returns None
# leaves the call to the rest of method_call.
_EVENT_METHODS = {"step": Scope._step, "zero_grad": Scope._zero_grad}


GRAD_OFF = ("torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad")
GRAD_ON = ("torch.enable_grad", "torch.autograd.enable_grad", "torch.autograd.grad_mode.enable_grad")


def _with_indices(e: cst.Call, f, q) -> bool:
    """`x.max(1)`, `torch.sort(x)`: a call that returns (values, indices)."""
    if isinstance(f, cst.Attribute) and q is None:
        name, dims = f.attr.value, 1
    elif q and q.startswith("torch.") and q.count(".") == 1:
        name, dims = q[6:], 2
    else:
        return False
    if name in WITH_INDICES:
        return True
    return name in WITH_INDICES_DIM and (len(e.args) >= dims and e.args[dims - 1].keyword is None or
                                         any(a.keyword is not None and a.keyword.value == "dim" for a in e.args))


def grad_mode(e, imports) -> int:
    """1: `e` (a `with` item or a decorator) turns gradients off
    (`torch.no_grad()`, `torch.no_grad`, `torch.inference_mode()`,
    `torch.set_grad_enabled(False)`); -1: on (`torch.enable_grad()`,
    `torch.set_grad_enabled(True)`); 0: neither, or cannot tell."""
    call = e.func if isinstance(e, cst.Call) else e
    q = imports.qualify(call)
    first = e.args[0].value if isinstance(e, cst.Call) and e.args else None
    flag = _literal_bool(first) if first is not None else None
    if q == "torch.set_grad_enabled":
        return 0 if flag is None else (-1 if flag else 1)
    if q in GRAD_OFF:
        return 0 if flag is False else 1  # inference_mode(False) changes nothing
    if q in GRAD_ON:
        return -1
    return 0


def decorated_grad(fn, imports) -> int:
    """The grad mode a function's decorators set (`@torch.no_grad()`), as grad_mode."""
    for d in fn.decorators:
        mode = grad_mode(d.decorator, imports)
        if mode:
            return mode
    return 0


def _exits(arm) -> bool:
    if not arm:
        return False
    last = arm[-1]
    body = getattr(last, "body", None)
    if isinstance(last, (cst.SimpleStatementLine, _SuiteLine)) and body:
        return isinstance(body[-1], (cst.Continue, cst.Break, cst.Return, cst.Raise))
    return False


def _constant_index(target: cst.Subscript) -> bool:
    """`d["loss"]`, `buf[0]`: one fixed entry."""
    return len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index) and \
        isinstance(target.slice[0].slice.value, (cst.SimpleString, cst.Integer))


def _uncertain_below(head) -> bool:
    """Does `head` hang from code we cannot see? Not past a value that a
    backward proves to carry a graph (analysis.backwarded)."""
    seen, stack = set(), [head]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.uncertain:
            return True
        if not n.proven:
            stack.extend(n.parents)
    return False


def _literal_bool(e) -> Optional[bool]:
    if isinstance(e, cst.Name) and e.value in ("True", "False"):
        return e.value == "True"
    return None


def _names_in(e) -> set:
    out = set()

    def enter(n):
        if isinstance(n, (cst.Name, cst.Attribute)):
            d = dotted(n)
            if d is not None:
                out.add(d)
                return False
        return None

    walk(e, enter)
    return out


def _declared_outer(fn) -> set:
    """Names a function declares `nonlocal` or `global`: its stores outlive it."""
    return {n.name.value for node in nodes(fn, skip=(cst.FunctionDef, cst.ClassDef))
            if isinstance(node, (cst.Nonlocal, cst.Global)) for n in node.names}


def _assigned_names(fn) -> set:
    out = set()
    for n in nodes(fn, skip=(cst.FunctionDef, cst.ClassDef)):
        if isinstance(n, cst.AssignTarget):
            out.update(_names_in(n.target))
    return out


class _SuiteLine:
    """A one-line suite (`for x in y: a = b`) seen as one statement line."""

    def __init__(self, suite, body) -> None:
        self.suite = suite
        self.body = body


def _none_check(test) -> Optional[tuple]:
    """(name, True) for `name is None`, (name, False) for `name is not None`
    (and their `not` forms); None for any other test."""
    negate = False
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        negate, test = not negate, test.expression
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    target = test.comparisons[0]
    if not (isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
        return None
    if isinstance(target.operator, cst.Is):
        is_none = True
    elif isinstance(target.operator, cst.IsNot):
        is_none = False
    else:
        return None
    key = dotted(test.left) if isinstance(test.left, (cst.Name, cst.Attribute)) else None
    return None if key is None else (key, is_none != negate)


# Calls that hand back the models, optimizers and loaders they are given,
# wrapped for devices and precision (Accelerate, Lightning Fabric, apex,
# DeepSpeed): what they return holds no graph.
_HAND_BACK_METHODS = {"prepare", "prepare_model", "prepare_optimizer", "prepare_data_loader",
                      "prepare_scheduler", "setup_module", "setup_optimizers", "setup_dataloaders"}
_HAND_BACK_CALLS = {"apex.amp.initialize", "deepspeed.initialize"}


def _hands_back(func, qualified) -> bool:
    if qualified in _HAND_BACK_CALLS:
        return True
    if not isinstance(func, cst.Attribute):
        return False
    meth = func.attr.value
    if meth in _HAND_BACK_METHODS:
        return True
    base = dotted(func.value) or ""
    return meth == "setup" and base.split(".")[-1].lower().endswith("fabric")
