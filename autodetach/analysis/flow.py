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

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from ..imports import dotted
from . import containers, first_iteration, foreign_backwards, forward_extras, keyed, model_containers, \
    optimizer_wrappers, overrides, phases, rewrapped, same_test, self_resets, self_views
from .bindings import target_names
from .bounded import within_step
from .stepped_kept import stale_step
from .one_call import one_call
from .plain_annotations import plain_annotation
from .self_storage import arg_log_helper, grows_on_self, log_helper, shared_note
from .sibling_evals import evaluation_loop, rebound_sum, trained_modules
from .leaf_homes import local_leaf
from .graph import GNode, closure
from .handed_flags import flag_at_call, handed_flags
from .infeasible import slot_read
from .local_names import local_tensor
from .logged_stats import logged_statistic
from .roles import looks_like_loss as _looks_like_loss
from .summaries import tensor_test
from .tensor_methods import BUILTIN_METHODS
from .trained_inputs import makes_leaf, marks, trained_inputs
from .global_stores import grows_outer
from .passed_meters import meter_helper
from .passed_buffers import buffer_helper
from .quiet_modules import cut_module_args, quiet_names
from .new_tensors import LIKE
from .kept_args import keeps_arguments, record_types
from .duck_cuts import duck_cut, returns_cut
from .walk import bound_argument, is_static, nodes, walk

CUT_METHODS = {"detach", "item", "tolist", "numpy", "data_ptr", "size", "dim", "numel",
               "nelement", "argmax", "argmin", "eq", "ne", "gt", "lt", "ge", "le", "long", "int",
               "bool", "byte", "nonzero", "sign", "round", "floor", "ceil", "isnan", "isinf",
               "argsort", "multinomial", "bernoulli", "isfinite", "count_nonzero", "short", "char"}
_NEW_METHODS = {"new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"}
# The env key of what `.grad` holds after `backward(create_graph=True)` (not a name Python can bind).
GRADS = "<grads>"
CUT_ATTRS = {"data", "grad", "shape", "dtype", "device", "requires_grad", "is_cuda", "ndim", "indices"}
# torch functions whose results never carry a graph: indices, samples, truth values
CUT_FUNCTIONS = {f"torch.{k}" for k in (
    "argmax", "argmin", "argsort", "multinomial", "bernoulli", "poisson", "nonzero", "count_nonzero",
    "searchsorted", "bucketize", "eq", "ne", "gt", "lt", "ge", "le", "isnan", "isinf", "isfinite",
    "randint", "randperm", "sign", "from_numpy", "load")}  # torch.load: a checkpoint's new tensors
# the standard library's `random` draws plain numbers, whatever its arguments hold
# (`random.randrange(env.action_space.n)`); `choice` and `sample` hand back elements, so not those
CUT_FUNCTIONS |= {f"random.{k}" for k in (
    "random", "randrange", "randint", "uniform", "gauss", "normalvariate", "lognormvariate", "expovariate",
    "betavariate", "gammavariate", "triangular", "vonmisesvariate", "paretovariate", "weibullvariate",
    "getrandbits")}
# `.to(torch.long)`, `.type(torch.LongTensor)`: an integer tensor cannot carry a graph
INT_DTYPES = {f"torch.{k}" for k in (
    "long", "int", "int64", "int32", "int16", "int8", "uint8", "short", "bool", "LongTensor", "IntTensor",
    "ByteTensor", "BoolTensor", "cuda.LongTensor", "cuda.IntTensor", "cuda.ByteTensor", "cuda.BoolTensor")}
# (values, indices) pairs: always, or when a dimension is given (`x.max(1)`, not `x.max()`)
WITH_INDICES = {"sort", "topk", "kthvalue", "mode", "cummax", "cummin"}
WITH_INDICES_DIM = {"max", "min", "median", "nanmedian"}
CUT_BUILTINS = {"float", "int", "bool", "len", "str", "repr", "print", "isinstance", "range", "type",
                "enumerate", "zip", "round"}
STATE_METHODS = {"parameters", "named_parameters", "zero_grad", "train", "eval", "state_dict",
                 "load_state_dict", "to", "cuda", "cpu", "apply", "modules", "children",
                 "named_modules", "requires_grad_", "register_forward_hook", "buffers"}
# new tensors of another's shape: no graph comes with them
LIKE_FACTORIES = {f"torch.{name}" for name in LIKE}
ADDITIVE = (cst.Add, cst.Subtract)
CONTAINER_ADD = {"append", "extend", "insert", "add", "appendleft"}
# methods of a `torch.distributions` object (built from tensors, so it holds their graph): what
# they return carries that graph, as a tensor's methods' results do
_DIST_METHODS = frozenset({"log_prob", "rsample", "sample", "sample_n", "entropy", "cdf", "icdf", "perplexity",
                           "enumerate_support", "expand", "log_cdf", "prob", "logp", "kl"})
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
    mapping: bool = False  # a dict literal: tensors inside, never a tensor itself (no `.detach()` of it)
    entries: Optional[dict] = None  # a dict literal with constant string keys: key -> Val (keyed.py)

    def join(self, other: "Val") -> "Val":
        uses = dict(self.uses)
        for head, reads in other.uses.items():
            uses[head] = uses.get(head, []) + reads
        return Val(heads=self.heads | other.heads, ghosts=self.ghosts | other.ghosts,
                   modules=self.modules | other.modules, uses=uses,
                   nontrivial=self.nontrivial or other.nontrivial, unknown=self.unknown or other.unknown,
                   loss=self.loss or other.loss, uncertain=self.uncertain or other.uncertain)

    @property
    def graph(self) -> bool:
        return bool(self.heads) or bool(self.modules)


@dataclass(eq=False)
class Event:
    kind: str  # backward | grad | step | zero | grad_read (a norm over gradients) | ...
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
    # grad: the input nodes in `reach` that the pass only captures (their own grad_fn runs only
    # when it leads to another input), and what lies behind them: nothing of theirs is freed
    captured: frozenset = frozenset()
    inputs: frozenset = frozenset()  # the input nodes among `captured`
    helper: Optional[str] = None  # run inside this project function (its summary says so)
    flag_of: Optional[str] = None  # the helper whose backward retains by this call's `retain_graph=True`
    framework: Optional[str] = None  # run by a framework on what the method returns (analysis.lightning)
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
    # the function walked at its call whose result hangs from the kept chain (an unrolled
    # inner loop): the caller may backward through it, so a cut is not proven harmless
    feeds: Optional[str] = None


class Scope:
    """Walks one function (or the module body)."""

    def __init__(self, analysis, body, params=(), env=None, name="<module>") -> None:
        self.analysis = analysis
        self.names = analysis.names
        self.imports = analysis.ctx.imports
        self.body = body
        self.name = name
        self.env: dict = dict(env or {})
        self.bound: set = set(self.env) | set(params)
        self.params = frozenset(params)
        self.freed: dict = {}
        self.freed_any: set = set()  # freed on some path: a later caller cannot backward it again
        # kept by a `retain_graph=True` backward: a later pass through them would
        # have failed without it (analysis/silenced.py)
        self.retained: dict = {}
        self.events: list = []
        # `return loss_g` of the walked function itself (not of one inlined):
        # (Return, its value, seq, tag, branch), read by analysis.returned_stale
        self.return_sites: list = []
        self.conflicts: list = []
        self.silenced: list = []
        self.leaks: list = []
        self.nodes: list = []
        self.loop_stack: list = []
        self.branch: tuple = ()
        self.no_grad = 0
        self.expr_memo = None  # id(node) -> Val: zip/enumerate arguments a for loop reads twice
        self.part_cuts: dict = {}  # key -> (its value, indices cut in place: `h[0].detach_()`)
        self.seq = 0
        self.walked = 0
        self.inlining: set = set()
        # ids of nodes bound to a local of a function walked at its call: a caller's name that is
        # the same word (`loss += self._step()`, whose body has its own `loss`) is not their key
        self.callee_locals: set = set()
        self.views: dict = {}  # local name -> the `self` state it names a part of (self_views.py)
        self.loops: dict = {}  # id(loop) -> loop node, for the rules' fixes
        self.branch_nodes: dict = {}  # id -> the statement whose arms a node's `branch` names
        self.branch_runs: dict = {}  # id -> [(first seq, last seq)]: each walk of that statement's arms
        self.returns: list = []
        self.inner_returns: list = []  # (function walked at its call, the heads it returned)
        self.step_outputs: list = []  # (return stmt, key, expr, Val, no_grad) per entry a step method returns
        self.dict_vals: dict = {}  # id(value of a dict literal's entry) -> its Val, in a framework's step method
        self.leaf_nodes: dict = {}
        self.free_reads: dict = {}  # self.X read before this scope writes it
        self.for_targets: list = []  # (loop variable, what it iterates), innermost last
        self.local_defs: dict = {}  # nested functions defined so far (closures)
        self.self_class = None  # the class whose method this is, when walked as one
        self.method_class = None  # the class that defines the walked function, if a method
        self.eval_note = None  # an evaluation function walked for its callers (analysis.eval_loops)
        self.declared_globals: frozenset = frozenset()  # the names such a function declares `global`
        self.outliving: list = []  # (key, node) it stores where the call does not end them (outliving_passes)
        self.phase_note = None  # two phase methods whose order was inferred (analysis.phases)
        self.driver_note = None  # the call order read from another file's driver loop (analysis.drivers)
        self.driver_keeps = False  # that driver hands its instance on (returns it, passes it, stores it)
        self.fresh: dict = {}  # id(loop) -> env values rebound at each iteration (a method's arguments)
        self.refreshed: dict = {}  # id(loop) -> `self.X` other code may store between iterations: read afresh
        self.arg_vals: dict = {}  # id(call) -> {argument index: its Val}, from the call's last walk
        self.training_loops: set = set()  # id(loop): loops that call another file's training step
        self.caller_loop = False  # a method walked as the body of a loop its caller runs (Analysis._step_methods)
        self.returned_state: dict = {}  # `self.X` stored by arms of an inlined function that return (inline)
        self.framework = None  # the framework that backwards what this method returns (analysis.lightning)
        self.loop_owner = None  # the framework that runs this method once per batch, in either mode
        self.phase_backward = None  # the framework that backwards what each inlined call returns (optimizer_phases)
        self.phase_owners = {}  # `_optimizer_0` -> (modules, expression): what each phase steps (optimizer_phases)
        self.repeats = False  # a step method walked once: its caller runs it again, per batch
        self.cur_stmt = None  # the statement being walked
        self.distributions: set = set()  # names bound to a torch.distributions object
        self.inline_leaves = False  # `torch.exp(nn.Parameter(x))`: a leaf made inline is a leaf (analysis.init_graphs)
        self.tuple_elems: dict = {}  # id(node of `t = (a, b)`) -> the elements' Vals (a tuple never changes)
        # id(node of `t = [a, b]`) -> its elements' Vals, grown by `t.append(c)` / `t.extend([c, d])`:
        # these only add at the end, so each position keeps what was put there (read by unpacking only)
        self.list_elems: dict = {}
        self.handed: dict = {}  # an inlined callee's parameter -> the caller's optimizer it was given
        # an inlined callee's parameter -> the caller's name it was given (`train_step(..., losses)`),
        # so that `meter.update(loss)` there finds the caller's meter object and stores into it
        self.passed: dict = {}
        self.passed_writes: set = set()  # the caller's names an inlined callee wrote into by index (passed_buffers)
        self.meter_keys: set = set()  # the objects a meter store went into (`_meter_add`, `_setitem_store`)
        self.sum_elts: set = set()  # ids of comprehension elements that add (`[s + b for s, b in zip(...)]`)
        self.unrolled: dict = {}  # a loop variable of an unrolled loop -> its element's expression (unrolled.py)
        self.plain_keys: set = set()  # names annotated `List[str]`, `int`, ... (plain_annotations.py)
        self._leak_candidates: list = []  # (key, store, loop, older stores, outer loops), judged after the walk
        self._leak_keys: dict = {}  # id(loop) -> keys that accumulate across its iterations
        self._switched_off: set = set()  # (id(loop), key): the loop backwards key in an arm a literal argument left out
        self.loop_grad: dict = {}  # id(loop) -> self.no_grad where a loop of this body starts (sibling_evals.py)
        self.eval_loops: set = set()  # id(loop): loops with no backward found keeping graphs (sibling_evals.py)
        self._proven: Optional[tuple] = None  # see `proven`, built on first use
        self.loop_start: dict = {}  # id(loop) -> the walk's seq when it was last entered
        self.same_arms: dict = {}  # same_test.py: test chain -> {name: (joined value, value per arm)}
        self.arm_notes: list = []  # what same_test.py and self_resets.py inferred that dropped a graph
        self.consts: dict = {}  # parameter of an inlined call -> the literal bool it was given (never rebound)
        self.flags: tuple = (None, {})  # the inlined call, its `retain_graph=True` arguments (handed_flags)
        self.forward_runs: dict = {}  # module key -> its last forward call's value (_forward_reads)

    # ---------------------------------------------------------------- helpers
    @property
    def proven(self) -> tuple:
        """Bindings and appends a backward in their loop proves to carry a graph."""
        if self._proven is None:
            self._proven = proven_bindings(self.body)
        return self._proven

    def tag(self) -> tuple:
        return tuple((id(loop), iteration) for loop, iteration in self.loop_stack)

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def new_node(self, name, stmt, expr, val: Val, kind="op", trivial=None) -> GNode:
        node = GNode(name=name, stmt=stmt, expr=expr, iteration=self.tag(),
                     parents=val.heads, modules=val.modules, ghosts=val.ghosts,
                     trivial=(not val.nontrivial) if trivial is None else trivial,
                     uses=val.uses, kind=kind, uncertain=val.uncertain,
                     branch=self.branch, seq=self.next_seq())
        self.nodes.append(node)
        for key, run in self.forward_runs.items():
            if run is val:  # `out = model(x)`: the node the forward's value became (_forward_reads)
                self.forward_runs[key] = Val(heads=frozenset({node}), modules=val.modules, nontrivial=True)
        return node

    def leaf(self, key: str, modules) -> GNode:
        node = self.leaf_nodes.get(key)
        if node is None:
            node = GNode(name=key, stmt=None, expr=None, iteration=(), modules=frozenset(modules),
                         leaf=True, trivial=True, kind="leaf")
            self.leaf_nodes[key] = node
        return node

    # ---------------------------------------------------------------- run
    def run(self) -> "Scope":
        self.block(self.body)
        self.finish_leaks()
        return self

    def block(self, stmts) -> None:
        for stmt in stmts:
            self.statement(stmt)

    def statement(self, stmt) -> None:
        self.cur_stmt = stmt
        self.walked += 1
        if self.walked > BUDGET:
            raise GiveUp()
        if type(stmt) in (cst.SimpleStatementLine, _SuiteLine):
            for small in stmt.body:
                self.small(small, stmt.suite if isinstance(stmt, _SuiteLine) else stmt)
        elif type(stmt) in (cst.For, cst.While):
            self.loop(stmt)
        elif isinstance(stmt, cst.If):
            self.if_(stmt)
        elif isinstance(stmt, cst.With):
            self.with_(stmt)
        elif isinstance(stmt, cst.Try) or type(stmt).__name__ == "TryStar":
            self.block(stmt.body.body)
            for handler in stmt.handlers:
                self.branch_run([handler.body.body], stmt)
            if stmt.orelse is not None:
                self.block(stmt.orelse.body.body)
            if stmt.finalbody is not None:
                self.block(stmt.finalbody.body.body)
        elif isinstance(stmt, cst.FunctionDef):
            self.local_defs[stmt.name.value] = stmt  # walked when passed to optimizer.step(closure)
        elif isinstance(stmt, cst.ClassDef):
            return  # walked as scopes of their own
        elif hasattr(stmt, "body") and isinstance(getattr(stmt, "body"), cst.IndentedBlock):
            self.block(stmt.body.body)

    def _block_of(self, suite) -> list:
        if isinstance(suite, cst.IndentedBlock):
            return list(suite.body)
        if isinstance(suite, cst.SimpleStatementSuite):
            return [_SuiteLine(suite, suite.body)]
        return []

    def loop(self, loop) -> None:
        if isinstance(loop, cst.For):
            from .unrolled import positions

            each = positions(loop)
            if each is not None:
                return self._unrolled(loop, each)
            # _loop_elem reads zip's arguments again: a call among them (`zip(params,
            # autograd.grad(loss, params))`) runs once, so its value is taken as first walked.
            saved_memo, self.expr_memo = self.expr_memo, dict.fromkeys(_zipped_args(loop.iter))
            iterated = self.expr(loop.iter)
            it_elem = self._loop_elem(loop.iter, iterated)
            self.expr_memo = saved_memo
        self.loops[id(loop)] = loop
        self.loop_start[id(loop)] = self.seq  # same_test.other_arms: what this run of the loop made
        if not self.inlining:  # a callee's loop may have other callers, which may backward what it sums
            self.loop_grad.setdefault(id(loop), self.no_grad)
        body = self._block_of(loop.body)
        target = dotted(loop.target) if isinstance(loop, cst.For) else None
        it_key = dotted(loop.iter) if isinstance(loop, cst.For) else None
        for iteration in (1, 2):
            self.env.update(self.fresh.get(id(loop), {}))
            for key in self.refreshed.get(id(loop), ()) if iteration == 2 else ():
                self.env.pop(key, None)
                self.bound.discard(key)
            self.loop_stack.append((loop, iteration))
            if target and it_key:
                self.for_targets.append((target, it_key))
            if isinstance(loop, cst.For):
                own = self._own_elements(loop.iter, iterated, it_elem)
                self.assign_target(loop.target, own if own is not None else it_elem, loop, loop.iter, kind="op")
            else:
                self.expr(loop.test)
            self.block(body)
            if target and it_key:
                self.for_targets.pop()
            self.loop_stack.pop()
        self.find_leaks(loop)
        if loop.orelse is not None:
            self.block(self._block_of(loop.orelse.body))

    def _unrolled(self, loop, each: list) -> None:
        """`for h, v in zip([losses, accs], [loss, acc]): h.append(v)`: the body once
        per position, its loop variables standing for that position's elements."""
        saved = dict(self.unrolled)
        body = self._block_of(loop.body)
        for binding in each:
            for name, element in binding.items():
                self.env[name] = self.expr(element)
                self.bound.add(name)
            self.unrolled.update(binding)
            self.block(body)
        self.unrolled = saved
        if loop.orelse is not None:
            self.block(self._block_of(loop.orelse.body))

    def _own_elements(self, it_expr, iterated: Val, it_elem: Val) -> Optional[Val]:
        """`for loss in losses` (or `zip(losses, opts)`) where `losses` was built
        element by element (`[h(z).mean() for h in heads]`, `[a(x), b(x)]`): each
        iteration binds a graph of its own, sharing only what the elements read
        (the trunk `z`), so backwarding one frees no other. A new node per call;
        `it_elem`: what `_loop_elem` bound, whose zip parts stand for the others
        (only names are looked up again: a call is never walked twice)."""
        if isinstance(it_expr, cst.Call) and isinstance(it_expr.func, cst.Name) and it_expr.func.value == "zip" \
                and it_elem.elems is not None and len(it_elem.elems) == len(it_expr.args):
            parts = [self._own_elements(arg.value, self.expr(arg.value), Val())
                     if isinstance(arg.value, (cst.Name, cst.Attribute)) else None for arg in it_expr.args]
            if all(part is None for part in parts):
                return None
            return _zipped([part if part is not None else kept for part, kept in zip(parts, it_elem.elems)])
        if len(iterated.heads) != 1 or iterated.elems is not None:
            return None
        (built,) = iterated.heads
        if built.leaf or not isinstance(built.expr, (cst.ListComp, cst.List)) or \
                (isinstance(built.expr, cst.List) and len(built.expr.elements) < 2):
            return None
        elem = self.new_node(None, self.cur_stmt, it_expr, Val(heads=built.parents, ghosts=built.ghosts,
                                                              modules=built.modules, uses=built.uses,
                                                              nontrivial=not built.trivial))
        elem.loss = built.loss
        return Val(heads=frozenset({elem}), loss=built.loss)

    def _loop_elem(self, it_expr, iterated: Val) -> Val:
        """What one iteration binds: `zip(outs, ys)` and `enumerate(outs)` hand
        out their arguments' elements position by position."""
        view = _dict_view(it_expr)
        if view == "keys":
            return Val()  # `for key in feats.keys()`: a dict's keys (names, numbers) carry no graph
        if isinstance(it_expr, cst.Call) and isinstance(it_expr.func, cst.Name) and \
                it_expr.func.value in ("zip", "enumerate") and self.imports.qualify(it_expr.func) is None \
                and it_expr.args and not any(arg.star or arg.keyword for arg in it_expr.args):
            parts = [self._loop_elem(arg.value, self.expr(arg.value)) for arg in it_expr.args]
            if it_expr.func.value == "enumerate":
                parts = [Val(), parts[0]] if len(parts) == 1 else None
            if parts is not None:
                return _zipped(parts)
        heads = iterated.heads
        if view == "items":
            # `for key, value in feats.items()`: the key is a name or number, only the value may carry a graph
            return _zipped([Val(), Val(heads=heads, ghosts=iterated.ghosts, unknown=iterated.unknown,
                                       loss=iterated.loss)])
        if iterated.modules and not self.no_grad:
            # `for row in net(x)`: the rows carry the call's graph
            heads = heads | {self.new_node(None, self.cur_stmt, it_expr, iterated, kind="module")}
        # an element of a loss (or of what a step returns beside its loss) is kept as one
        return Val(heads=heads, ghosts=iterated.ghosts, unknown=iterated.unknown, loss=iterated.loss)

    def _keep_returned_state(self, base_env) -> None:
        """An arm of an inlined function that returns: what it stored on `self` or another object
        (`self.log[k] = ... + loss; return loss`) outlives the call, though the code after the `if`
        never sees it. Joined back in when the inline ends."""
        for key, value in self.env.items():
            if "." in key and base_env.get(key) is not value:
                kept = self.returned_state.get(key)
                self.returned_state[key] = value if kept is None else kept.join(value)

    def branch_run(self, arms, node, none_in=()) -> None:
        """Run alternatives; keep the frees common to all (and to 'not taken').
        `none_in`: (arm, name) pairs where a test proved the name None."""
        base_env, base_freed, base_branch = dict(self.env), dict(self.freed), self.branch
        base_retained, retaineds = dict(self.retained), []
        self.branch_nodes[id(node)] = node
        first_seq = self.seq + 1
        envs, freeds, kept = [], [], []
        same = same_test.chain(self, node)  # an earlier `if` on the same fixed test took the same arm
        for i, arm in enumerate(arms):
            self.env, self.freed, self.retained = dict(base_env), dict(base_freed), dict(base_retained)
            if same is not None:
                same_test.restore(self, same, i)
                if self.loop_stack:  # an earlier iteration ran this `if`
                    same_test.other_arms(self, node, same, i)
            for none_arm, key in none_in:
                if none_arm == i and key in self.env:
                    self.env[key] = Val()
            self.branch = base_branch + ((id(node), i),)
            start = len(self.events)
            self.block(arm)
            if _exits(arm):
                for event in self.events[start:]:
                    event.exits = True
                if self.inlining and _exits(arm, (cst.Return,)):
                    self._keep_returned_state(base_env)
                continue
            envs.append(self.env)
            freeds.append(self.freed)
            retaineds.append(self.retained)
            kept.append(i)
        self.branch = base_branch
        self.branch_runs.setdefault(id(node), []).append((first_seq, self.seq))
        if not envs:
            envs, freeds = [dict(base_env)], [dict(base_freed)]
        merged: dict = {}
        for env in envs:
            for name, value in env.items():
                merged[name] = merged[name].join(value) if name in merged and merged[name] is not value else value
        self.env = merged
        if same is not None and kept:
            same_test.record(self, same, kept, envs, merged)
        common = set(base_freed)
        all_freed = [set(freed) for freed in freeds]
        if len(freeds) >= 2 and all_freed:
            both = set.intersection(*all_freed)
            common |= both
        self.freed = {freed_node: (base_freed.get(freed_node) or freeds[0].get(freed_node)) for freed_node in common}
        kept_all = set(base_retained)
        if len(retaineds) >= 2:
            kept_all |= set.intersection(*(set(r) for r in retaineds))
        self.retained = {n: base_retained.get(n) or retaineds[0].get(n) for n in kept_all}

    def if_(self, stmt: cst.If) -> None:
        known = self._known_test(stmt.test)
        if known is not None:
            # `if not join_train:` in a method inlined with `join_train=True`: one arm runs
            if known:
                self.block(self._block_of(stmt.body))
            elif isinstance(stmt.orelse, cst.If):
                self.if_(stmt.orelse)
            elif stmt.orelse is not None:
                self.block(self._block_of(stmt.orelse.body))
            return
        self.expr(stmt.test)
        arms = [self._block_of(stmt.body)]
        none_check = _none_check(stmt.test)
        orelse = stmt.orelse
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
        if len(arms) == 2 and type(stmt.orelse) is not cst.If:
            # `if i > 0:` on a loop's index: its first iteration takes one arm, later ones the other
            taken = first_iteration.arm(self, stmt.test)
            if taken is not None:
                self.block(arms[0] if taken else arms[1])
                return
        none_in = ()
        if none_check is None:
            # `if isinstance(v, (int, float)): out[k] = v`: there `v` is a number, no graph
            none_check = _plain_check(stmt.test)
        if none_check is not None:
            # `if state is not None: state = state.detach()`: where the test
            # says the name is None, it holds no graph (the first iteration)
            key, in_body = none_check
            none_in = tuple((i, key) for i in range(len(arms)) if (i == 0) == in_body)
        self.branch_run(arms, stmt, none_in)

    def with_(self, stmt: cst.With) -> None:
        modes = [grad_mode(item.item, self.imports) for item in stmt.items]
        grad_switch = 0
        for mode in modes:
            grad_switch = mode or grad_switch
        saved = self.no_grad
        self.set_grad(grad_switch)
        for item, mode in zip(stmt.items, modes):
            if item.asname is not None and isinstance(item.asname.name, cst.Name) and not mode:
                # `with amp.scale_loss(loss, opt) as scaled_loss:` (apex): what it yields hangs from `loss`
                self.assign_target(item.asname.name, self.expr(item.item), stmt, item.item)
        self.block(self._block_of(stmt.body))
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
    def small(self, small_stmt, stmt) -> None:
        if type(small_stmt) is cst.Assign:
            val = self.expr(small_stmt.value)
            for target in small_stmt.targets:
                self.assign_target(target.target, val, stmt, small_stmt.value)
        elif type(small_stmt) is cst.AnnAssign:
            key = dotted(small_stmt.target)
            if key is not None and plain_annotation(small_stmt.annotation):
                self.plain_keys.add(key)
            else:
                self.plain_keys.discard(key)
            if small_stmt.value is not None:
                val = self.expr(small_stmt.value)
                if key in self.plain_keys:
                    val = Val(ghosts=val.heads | val.ghosts)
                self.assign_target(small_stmt.target, val, stmt, small_stmt.value)
        elif type(small_stmt) is cst.AugAssign and type(small_stmt.target) is cst.Subscript:
            from .entries import add_entry

            add_entry(self, small_stmt, stmt)  # total[name] += loss
        elif type(small_stmt) is cst.AugAssign:
            key = dotted(small_stmt.target)
            rhs = self.expr(small_stmt.value)
            old = self.lookup_key(key) if key else Val()
            nontrivial = not isinstance(small_stmt.operator, (cst.AddAssign, cst.SubtractAssign))
            val = old.join(rhs)
            if key is not None and (self.no_grad or key in self.names.leaves):
                pass  # an in-place update: same tensor, same place in the graph
            elif type(small_stmt.target) is cst.Attribute and small_stmt.target.attr.value == "data":
                # `p.data -= lr * g` goes through the `.data` setter, which takes the values only:
                # `p` keeps its own history, and the alias that took `g`'s graph is dropped
                self.env.pop(key, None)
            elif key is not None and val.graph and not self.no_grad:
                total = Val(heads=val.heads, ghosts=val.ghosts, modules=rhs.modules, uses=rhs.uses,
                            nontrivial=nontrivial)
                node = self.new_node(key, stmt, small_stmt.value, total, kind="accum")
                node.loss = rhs.loss or old.loss  # `loss /= accum_steps` is still the loss
                node.opaque = rhs.uncertain
                self.env[key] = Val(heads=frozenset({node}), loss=node.loss)
            elif key is not None:
                self.env[key] = Val(unknown=val.unknown)
            self.bound.add(key)
        elif type(small_stmt) is cst.Expr:
            self.expr(small_stmt.value, stmt=stmt)
            value = small_stmt.value
            if makes_leaf(value) and type(value.func.value) is cst.Name and not self.no_grad and \
                    value.func.value.value in trained_inputs(self):
                key = value.func.value.value  # `w.requires_grad_()`, then `Adam([w])`
                self.env[key] = Val(heads=frozenset({self.leaf(key, {key})}))
        elif type(small_stmt) is cst.Return:
            if small_stmt.value is not None:
                val = self._step_output(small_stmt.value, stmt) if self.loop_owner and not self.inlining \
                    else self.expr(small_stmt.value)
                # computed with gradients off, what comes back carries no graph;
                # a name handed back as it is (`return x`) keeps what it holds
                quiet = self.no_grad and not isinstance(small_stmt.value, (cst.Name, cst.Attribute))
                for held in keyed.slots_in(self.env, small_stmt.value):
                    val = val.join(held)  # `return stats`: the caller gets its lists too (and may backward them)
                self.returns.append(self.cut(val, small_stmt.value) if quiet else val)
                if not self.inlining and not quiet:
                    self.return_sites.append((small_stmt, val, self.seq, self.tag(), self.branch))
                if self.framework and not self.inlining or self.phase_backward and len(self.inlining) == 1:
                    self.framework_backward(small_stmt.value, stmt)
        elif type(small_stmt) is cst.Del:
            self.delete(small_stmt.target)
        elif type(small_stmt) is cst.Global or type(small_stmt) is cst.Nonlocal:
            pass

    def delete(self, target) -> None:
        if isinstance(target, cst.Subscript):
            key = dotted(target.value)
            if key is not None:
                self.env[key] = Val()  # del buf[:]
        elif isinstance(target, (cst.Tuple, cst.List)):
            for elem in target.elements:
                self.delete(elem.value)
        else:
            key = dotted(target)
            if key is not None:
                self.env.pop(key, None)

    def assign_target(self, target, val: Val, stmt, expr, kind=None) -> None:
        """Bind `target` to `val`; one handler per target type (`_TARGETS`),
        a name or an attribute by default. `expr` is the value's expression."""
        handler = _TARGETS.get(type(target), Scope._assign_name)
        handler(self, target, val, stmt, expr, kind)

    def _assign_unpack(self, target, val: Val, stmt, expr, kind) -> None:
        elems = [elem.value for elem in target.elements]
        if val.elems is None and val.heads and not any(type(e) is cst.StarredElement for e in elems):
            val = self._known_elems(val, len(elems))
        if val.elems is None and val.graph and not self.no_grad:
            # Outputs of one call share one graph: a node for the call,
            # and a trivial node per target hanging from it.
            call_node = self.new_node(None, stmt, expr, val, kind="module" if val.modules else "op")
            val = Val(heads=frozenset({call_node}))
        # (the backwarded total, the names it adds up) when this unpacking's names are its terms (backwarded.py)
        parts = None if self.no_grad else next(((total, names) for at, total, names in self.proven[4]
                                                 if at == id(stmt)), None)
        summed = parts[1] if parts else ()
        siblings = self._siblings(elems, val, stmt, expr, parts)
        aside = self._aside(elems, val, stmt, expr)
        for index, part in enumerate(elems):
            sub = val
            if val.elems is not None and index < len(val.elems):
                sub = val.elems[index]
            if index in siblings:
                sub = siblings[index]
            self.assign_target(part, sub, stmt, expr, kind=self._state_kind(part, expr) or kind)
            if type(part) is cst.Name and type(expr) is cst.Call and \
                    self.analysis.forward_distribution(dotted(expr.func), index):
                self.distributions.add(part.value)  # `dist, value = net(state)`: its `.sample()` has no graph
            bound = self.env.get(part.value) if summed and type(part) is cst.Name and part.value in summed else None
            if bound is not None and bound.heads and all(head.stmt is stmt for head in bound.heads):
                for head in bound.heads:
                    head.loss = True  # a term of the backwarded loss
                bound.loss = True
            if index in aside:
                for head in self.env.get(aside[index], Val()).heads:
                    head.aside = head.name == aside[index] and head.stmt is stmt

    def _known_elems(self, val: Val, width: int) -> Val:
        """`state, log_prob, reward = self.transition`, bound to `[state, log_prob]` and extended:
        each name gets its own element, not the graph of all of them. Where `val` may be one of
        several such lists (an `if` stored it), each position joins theirs. At least one list stored in
        this pass: one kept only from an earlier iteration is read through its store (where AD101 cuts
        it), and beside one of this pass, an earlier list's positions with a graph are too.
        A list shorter than the targets was grown by code not walked here: growing only adds at the
        end, so the known positions stay, and the others may hold anything the list holds."""
        tag = self.tag()
        if all(head.iteration != tag for head in val.heads):
            return val
        whole = dataclasses.replace(val, elems=None)
        known = []
        for head in val.heads:
            each = self.tuple_elems.get(id(head))
            if each is None:
                each = self.list_elems.get(id(head))
                each = None if each is None else each + [whole] * (width - len(each))
            if each is None or len(each) != width:
                return val
            if head.iteration != tag:
                # an earlier iteration's list, still held where an `if` may not have stored this one's
                # (`if not self.is_test: self.transition = [state, log_prob]`): a position it filled with
                # no graph adds none; the others are read through the whole list, as before
                each = [Val() if _graphless(elem) else whole for elem in each]
            known.append(each)
        joined = list(known[0])
        for each in known[1:]:
            joined = [mine.join(theirs) for mine, theirs in zip(joined, each)]
        return dataclasses.replace(val, elems=joined)

    def _aside(self, elems, val: Val, stmt, expr) -> dict:
        """`loss, dist = criterion(out, y)` with `loss.backward()`, `criterion` a function whose
        code is not read (a parameter, a library, a loss module): the backward shows `loss` a graph; the
        other results may be numbers (Deep_Metric's losses return `.item()`s). Not a module's
        outputs, nor a call whose results are known element-wise. index -> key."""
        if self.no_grad or val.elems is not None or not val.graph or not isinstance(expr, cst.Call):
            return {}
        callee = dotted(expr.func)
        if callee is None or self.names.has_params(callee) or callee in self.names.functions or \
                self._own_method(expr.func) is not None:
            return {}
        from .backwarded import backwarded_keys

        keys = [dotted(target) if type(target) is cst.Name else None for target in elems]
        done = backwarded_keys(self.body)  # `loss` backwarded, even through `loss = reg(loss)` under an `if`
        if not any(key in done for key in keys if key):
            return {}
        return {i: key for i, key in enumerate(keys) if key and key not in done}

    def _assign_starred(self, target: cst.StarredElement, val: Val, stmt, expr, kind) -> None:
        self.assign_target(target.value, val, stmt, expr, kind)

    def _assign_item(self, target: cst.Subscript, val: Val, stmt, expr, kind) -> None:
        """`buf[i] = x`: the container now holds x's graph too."""
        key = dotted(target.value)
        self_views.store(self, target, expr)
        if key in self.passed and "." not in key and self.inlining:
            key = self.passed[key]  # `cur[mask] = d` in a helper given the caller's tensor writes into it
            self.passed_writes.add(key)
        if key is not None:
            keyed.drop_slots(self.env, key, keyed.key_of(target))  # `log["loss"] = []`: a new list
        if key is not None and self._setitem_store(target, self.passed.get(key, key), val, stmt, expr):
            return
        if key is not None and val.graph and not self.no_grad:
            old = self.lookup_key(key)
            heads, kept = old.heads | val.heads, frozenset()
            item = keyed.key_of(target)
            if _constant_index(target):
                # `log["loss"] = loss`: the entry is replaced, so the new value does not
                # hang from the old ones (which stay in the container beside it)
                heads = val.heads
                kept = frozenset(head for head in old.heads if head.name != key or head.stmt is not stmt)
                if item is not None:
                    kept = keyed.others(kept, item)  # the key's earlier entry is gone
            elif self._loop_index(target):
                # `self.losses[t] = ...` in `for t in self.tasks`: one entry per task, replaced
                # each time, never summed with the others (they stay beside it)
                heads, kept = val.heads, old.heads
            # the modules called here stay on the store: `feats[i] = self.proj(x)` reaches `self.proj`
            stored = Val(heads=heads, ghosts=val.ghosts, modules=val.modules, uses=val.uses)
            node = self.new_node(key, stmt, expr, stored, kind="container")
            node.loss = val.loss
            node.item = item
            node.holder = item is not None  # a string key: a dict, never a tensor (no `.item()` of it)
            self.env[key] = Val(heads=frozenset({node}) | kept, loss=val.loss)
        elif key is not None and not val.graph and val.ghosts and key in self.env:
            # `hidden[i] = repackage_hidden(hidden[i])`, `out["loss"] = out["loss"].detach()`:
            # the part that carried the graph is cut; which parts did is not tracked,
            # unless every entry was stored under a constant key: then only this key's is gone
            old = self.env[key]
            item = keyed.key_of(target)
            if item is not None and old.heads and keyed.all_keyed(old.heads):
                gone = old.heads - keyed.others(old.heads, item)
                self.env[key] = Val(heads=keyed.others(old.heads, item), ghosts=old.ghosts | gone | val.ghosts,
                                    loss=old.loss)
                return
            self.env[key] = Val(ghosts=old.heads | old.ghosts | val.ghosts)

    def _setitem_store(self, target: cst.Subscript, key, val: Val, stmt, expr) -> bool:
        """`stat_col["loss"] = loss` where `stat_col` is an object of a project class whose
        `__setitem__` adds its value into `self` state (`self.stats[k].append(value)`):
        a method call that keeps what it is given, as `meter.update(loss)`. True when handled."""
        if self.no_grad or not val.graph:
            return False
        known = self.analysis.object_method(key, "__setitem__")
        if known is None or known[0].events:
            return False
        summary, where, cls = known
        # the value is the second argument after self (index 1), or what `*args` takes past the key
        if not any(index in (1, "*") for index, _line, _whole in summary.accum):
            return False
        line, whole = next((ln, wh) for index, ln, wh in summary.accum if index in (1, "*"))
        old = self.lookup_key(key)
        node = self.new_node(key, stmt, expr, Val(heads=old.heads | val.heads, ghosts=val.ghosts, uses=val.uses),
                             kind="container")
        node.loss = True
        node.meter = (f"{cls}.__setitem__", where, line, whole, dict(summary.guessed).get(line), None)
        self.env[key] = Val(heads=frozenset({node}), loss=True)
        self.meter_keys.add(key)
        return True

    def _loop_index(self, target: cst.Subscript) -> bool:
        """`d[t]` where `t` is the variable of a `for` loop over the parts of one step
        (`for t in self.tasks`): a loop inside another (a step method's calls count as
        one) that runs no backward or step itself. Not `hist[epoch] = loss` in the
        training loop, nor `hist[i]` of a loop over batches: those keep every entry."""
        if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
            return False
        index = target.slice[0].slice.value
        if not isinstance(index, cst.Name):
            return False
        for depth, (loop, _) in enumerate(self.loop_stack):
            if isinstance(loop, cst.For) and any(type(n) is cst.Name and n.value == index.value
                                                 for n in nodes(loop.target)):
                return depth > 0 and not any(
                    type(n) is cst.Call and type(n.func) is cst.Attribute and
                    n.func.attr.value in ("backward", "step", "manual_backward") for n in nodes(loop.body))
        return False

    def _assign_name(self, target, val: Val, stmt, expr, kind) -> None:
        """`x = ...`, `self.x = ...`: a new node for a value with a graph."""
        key = dotted(target)
        if key is None:
            return
        marked = marks(target, expr)
        if marked and not self.no_grad and marked in trained_inputs(self):
            # `w.requires_grad = True` for a tensor this scope's optimizer trains (trained_inputs)
            self.env[marked] = Val(heads=frozenset({self.leaf(marked, {marked})}))
            self.bound.add(marked)
            return
        self_views.bind(self, key, expr)
        self.bound.add(key)
        keyed.drop_slots(self.env, key)  # `log = {"loss": []}`: a new dict, its lists start empty
        if type(expr) is cst.Call and self._distribution(expr):
            self.distributions.add(key)
        else:
            self.distributions.discard(key)
        if (key in self.names.modules and key not in self.names.leaves or key in self.names.optimizers) and \
                not local_tensor(self.analysis.ctx, key, stmt, val):
            self.env.pop(key, None)  # `model = Net()`, `opt = SGD(params)`: an object, not a tensor
            return
        if key in self.names.leaves and (not val.graph or self.inline_leaves and val.heads and all(
                h.leaf and h.name.startswith(INLINE_LEAF) for h in val.heads)) and \
                ("." in key or local_leaf(self.analysis, key, stmt, expr)):
            self.env[key] = Val(heads=frozenset({self.leaf(key, {key})}))  # w = nn.Parameter(...)
            return
        if (self.eval_note is not None or key in trained_inputs(self)) and not val.graph and not self.no_grad and \
                makes_leaf(expr):
            # `z = torch.randn(n, d).requires_grad_()` in an evaluation run with gradients on
            # (eval_loops), or a tensor this scope's optimizer trains: a leaf, in this scope only
            self.env[key] = Val(heads=frozenset({self.leaf(key, {key})}))
            return
        proven = not self.no_grad and (id(stmt), key) in self.proven[0]
        if not proven and (self.no_grad or not val.graph):
            self.env[key] = Val(ghosts=val.ghosts, unknown=val.unknown, elems=val.elems)
            return
        if val.entries is not None and type(expr) is cst.Dict and val.graph and not self.no_grad:
            self._assign_entries(key, val, stmt, expr)
            return
        if not val.heads and self._objects_only(expr):
            # `args = dict(model=model, optim=optim, loader=dl)`: the objects themselves, no tensor
            # computed from them (what calls them later builds its graph then)
            self.env[key] = Val(modules=val.modules, ghosts=val.ghosts)
            return
        kind = kind or self._state_kind(target, expr) or ("module" if val.modules else "op")
        node = self.new_node(key, stmt, expr, val, kind=kind, trivial=True if not val.graph else None)
        node.loss = val.loss or _looks_like_loss(key) or proven
        node.holder = val.mapping  # `output = {"loss": loss}`: what stores it keeps a dict
        if proven and (id(stmt), key) in self.proven[2]:
            # a dict or list whose element is backwarded: it carries graphs but saves nothing itself,
            # and its elements need not share one (no freed-graph conflict through it)
            node.proven, node.holder, node.trivial = True, True, True
            node.loss = val.loss or _looks_like_loss(key)  # by its name: `output` is no loss, `losses` is
            if not val.graph:
                node.ghosts = frozenset()  # a graph we could not follow: no cut is known either (AD109)
            if (id(stmt), key) in self.proven[3]:
                node.summed = f"the entries of `{key}` carry a graph (each is summed into the backwarded loss)"
        elif proven:
            node.proven, node.uncertain = True, False
        if type(expr) in (cst.Tuple, cst.List) and val.elems is not None and len(val.elems) == len(expr.elements) \
                and not any(isinstance(e, cst.StarredElement) for e in expr.elements):
            (self.tuple_elems if type(expr) is cst.Tuple else self.list_elems)[id(node)] = val.elems
        self.env[key] = Val(heads=frozenset({node}), loss=node.loss)
        if self.eval_note is not None and not self.inlining and not self.no_grad and \
                (key in self.declared_globals or key.startswith("self.") and key.count(".") == 1):
            self.outliving.append((key, node))  # judged by analysis.outliving_passes

    def _objects_only(self, expr) -> bool:
        """A dict, list or tuple (display, or `dict(...)`) of names and constants only."""
        if type(expr) is cst.Call:
            if type(expr.func) is not cst.Name or expr.func.value not in ("dict", "list", "tuple") or \
                    self.imports.qualify(expr.func) is not None or any(arg.star for arg in expr.args):
                return False
            values = [arg.value for arg in expr.args]
        elif type(expr) in (cst.Dict, cst.List, cst.Tuple):
            if any(type(e) not in (cst.DictElement, cst.Element) for e in expr.elements):
                return False
            values = [e.value for e in expr.elements]
        else:
            return False
        return bool(values) and all(dotted(v) is not None or isinstance(v, (cst.Integer, cst.Float, cst.SimpleString))
                                    for v in values)

    def _assign_entries(self, key, val: Val, stmt, expr) -> None:
        """`losses = {"total": g_loss, "disc": d_loss}`: one entry per key, as if each were stored by
        `losses["total"] = g_loss`, so that a read of one key sees that entry only (keyed.py)."""
        values = dict(keyed.literal_keys(expr))
        heads = []
        for item, sub in val.entries.items():
            if not sub.graph:
                continue  # `"acc": acc.item()`: nothing to hold
            node = self.new_node(key, stmt, values[item], sub, kind="container")
            node.loss, node.item, node.holder = sub.loss, item, True
            heads.append(node)
        self.env[key] = Val(heads=frozenset(heads), loss=any(n.loss for n in heads))

    def _siblings(self, elems, val: Val, stmt, expr, parts=None) -> dict:
        """`loss, _, coarse = self.completion(data)` with `loss.backward()`:
        the call is a same-file function whose code says which results can
        carry a graph, and a backward proves that this call's do (or `parts`:
        the backwarded total adds up names this call binds); the other
        such results are taken to carry one too (an inference, noted on the node)."""
        if self.no_grad or val.graph or not isinstance(expr, cst.Call):
            return {}
        keys = [dotted(target) for target in elems]
        proven = [key for key in keys if key and (id(stmt), key) in self.proven[0]]
        if not proven and parts is None:
            return {}
        callee = self._own_method(expr.func) or self.names.functions.get(dotted(expr.func) or "")
        shape = self.analysis.returns_elems(callee) if callee is not None else None
        name = callee.name.value if callee is not None else dotted(expr.func)
        if callee is None and name:
            # a function of another file of this project: its summary says which elements can
            summary = self.analysis.project_summary(self.imports.qualify(expr.func), name)
            if summary is not None and not summary.events and summary.arity == len(summary.elems):
                shape = [kind == "graph" for kind in summary.elems]
        if shape is None or len(shape) != len(elems):
            return {}
        out = {}
        for index, (key, graph) in enumerate(zip(keys, shape)):
            if graph and key and key not in proven:
                node = self.new_node(key, stmt, expr, Val(), trivial=True)
                node.sibling = (f"`{key}` comes from the same call as `{proven[0]}` (line "
                                f"{self.analysis.ctx.line_of(stmt)}), which is backwarded, and "
                                f"`{name}` can return a graph there") if proven else \
                    (f"`{key}` comes from a call (line {self.analysis.ctx.line_of(stmt)}) whose results the "
                     f"backwarded `{parts[0]}` adds up, and `{name}` can return a graph there")
                out[index] = Val(heads=frozenset({node}))
        return out

    def _state_kind(self, target, expr) -> Optional[str]:
        """`out, h = rnn(x, h)`: h is recurrent state fed back into the call."""
        key = dotted(target)
        if key is None or type(expr) is not cst.Call:
            return None
        callee = dotted(expr.func)
        if callee is None:
            return None
        if not (self.names.is_module(callee) or callee in self.names.functions or self._stepping_method(expr)):
            return "state" if self._object_method(callee, expr, key) else None
        for arg in expr.args:
            for name in _names_in(arg.value):
                if name == key:
                    return "state"
        return None

    def _stepping_method(self, call: cst.Call) -> bool:
        """`loss, h = self.train_step(x, h)`: a method of this class that
        backwards (walked at the call), read like a function of the file."""
        if type(call.func) is not cst.Attribute or dotted(call.func.value) != "self":
            return False
        own = self._own_method(call.func)
        return own is not None and self.analysis.function_summary(own).has_events

    def _object_method(self, callee, expr, key) -> bool:
        """`loss, h = trainer.loss(x, h)`: a method of an object of another file's
        class, whose summary says its result hangs from the argument `h`
        (not cut inside, as `h = h.detach()` there would)."""
        base, _, meth = callee.rpartition(".")
        if not base or base not in self.names.foreign_instances:
            return False
        found = self.analysis.foreign_method(base, meth)
        flow = found[0].arg_flow if found is not None else None
        if not flow:
            return False
        for i, arg in enumerate(expr.args):
            if type(arg.value) is cst.Name and arg.value.value == key:
                return arg.keyword is None and not arg.star and i < len(flow) and flow[i] == "graph"
        return False

    # ---------------------------------------------------------------- expressions
    def lookup_key(self, key) -> Val:
        if key is None:
            return Val(unknown=True)
        if key in self.env:
            return self.env[key]
        if key in self.names.leaves:
            node = self.leaf(key, {key})
            return Val(heads=frozenset({node}))
        return Val(unknown=key not in self.bound)

    def expr(self, expr, stmt=None) -> Val:
        """What evaluating `e` hands back; one handler per node type below
        (`_EXPR`), anything else is a value we know nothing about."""
        if expr is None:
            return Val()
        handler = _EXPR.get(type(expr))
        if handler is None:
            return Val(unknown=True)
        memo = self.expr_memo
        if memo and id(expr) in memo:
            if memo[id(expr)] is None:
                memo[id(expr)] = handler(self, expr, stmt)
            return memo[id(expr)]
        return handler(self, expr, stmt)

    def _literal(self, expr, stmt) -> Val:
        return Val()

    def _fstring(self, expr: cst.FormattedString, stmt) -> Val:
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringExpression):
                self.expr(part.expression)
        return Val()

    def _name(self, expr: cst.Name, stmt) -> Val:
        if expr.value in ("None", "True", "False"):
            return Val()
        value = self._used(self.lookup_key(expr.value), expr)
        if value.heads:
            value.bare = True
        return value

    def _attribute(self, expr: cst.Attribute, stmt) -> Val:
        held = self.env.get(GRADS) if expr.attr.value == "grad" else None
        if held is not None and held.heads:
            # `p.grad` after `loss.backward(create_graph=True)` (no zero_grad since): a graph built from the loss's
            self.expr(expr.value)
            return Val(heads=held.heads, nontrivial=True)
        if expr.attr.value in CUT_ATTRS:
            return self.cut(self.expr(expr.value), expr.value)
        key = dotted(expr)
        if key is not None and key in self.env:
            return self._used(self.env[key], expr)
        if key is not None and key.startswith("self.") and key not in self.bound:
            self.free_reads.setdefault(key, expr)
            if key.count(".") == 1 and key not in self.names.leaves:
                from .stored_state import stored_node

                held = stored_node(self, key)  # another method keeps a graph there
                if held is not None:
                    return self._used(Val(heads=frozenset({held})), expr)
        base = dotted(expr.value)
        if base is not None and self.names.is_module(base) and key not in self.names.modules \
                and self.names.is_param_attr(expr.attr.value):
            # model.weight: a parameter of `model`.
            return Val(heads=frozenset({self.leaf(base, {base})}))
        if key is not None and key in self.names.leaves:
            return Val(heads=frozenset({self.leaf(key, {key})}))
        if base is not None and base in self.names.foreign_instances and not self.names.is_module(base):
            # `autol.meta_weights` of `autol = AutoLambda(model, ...)` (another file's class, not a module):
            # what the object holds is not followed, and is not the graph of what built it
            return Val(unknown=True)
        value = self.expr(expr.value)
        if (value.heads or value.unknown) and number_attribute(self.analysis, expr.attr.value):
            # `out.loss_value` where every store of `.loss_value` in the project is a number
            return Val(ghosts=value.heads | value.ghosts)
        return value

    def _binary(self, expr: cst.BinaryOperation, stmt) -> Val:
        if type(expr.operator) is cst.Multiply and (type(expr.left) in (cst.List, cst.Tuple) or
                                                    type(expr.right) in (cst.List, cst.Tuple)):
            # `[None] * self.batch_size`: a literal repeated a number of times holds its elements only
            literal, count = (expr.left, expr.right) if isinstance(expr.left, (cst.List, cst.Tuple)) else \
                (expr.right, expr.left)
            times = self.expr(count)
            value = self.expr(literal)
            return dataclasses.replace(value, ghosts=value.ghosts | times.heads | times.ghosts, elems=None)
        value = self.expr(expr.left).join(self.expr(expr.right))
        if type(expr.operator) is cst.Modulo and \
                type(expr.left) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
            return Val(ghosts=value.heads | value.ghosts)  # `'%.4f' % loss` is a string
        value.nontrivial = value.nontrivial or type(expr.operator) not in ADDITIVE
        # `[s + b for s, b in zip(sums, step_stats)]` sums element by element, as `s += b` would:
        # what it adds a loss to is still one; other arithmetic is not
        value.loss = value.loss and isinstance(expr.operator, cst.Add) and id(expr) in self.sum_elts
        return value

    def _unary(self, expr: cst.UnaryOperation, stmt) -> Val:
        value = self.expr(expr.expression)
        if type(expr.operator) is cst.Not:
            return Val(ghosts=value.heads | value.ghosts)
        return value

    def _boolean(self, expr: cst.BooleanOperation, stmt) -> Val:
        value = self.expr(expr.left).join(self.expr(expr.right))
        return Val(ghosts=value.heads | value.ghosts)  # truth values, in practice

    def _comparison(self, expr: cst.Comparison, stmt) -> Val:
        self.expr(expr.left)
        for comparison in expr.comparisons:
            self.expr(comparison.comparator)
        return Val()

    def _subscript(self, expr: cst.Subscript, stmt) -> Val:
        value = self.expr(expr.value)
        slot = keyed.slot(expr)
        if slot in self.env:
            return self.env[slot]  # `stats["loss"]`, appended to since it was stored: that list
        for part in expr.slice:
            if type(part.slice) is cst.Index:
                self.expr(part.slice.value)
        last = containers.last_elem(value, expr)
        if last is not None:
            return last
        one = keyed.entry(value, expr)  # `losses["d_loss"]`: that entry only
        if one is not None:
            return one
        elems = value.elems
        if elems is None and len(value.heads) == 1:
            elems = self.tuple_elems.get(id(next(iter(value.heads))))  # `losses = (g, d)`, then `losses[0]`
        if elems is not None and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index) \
                and isinstance(expr.slice[0].slice.value, cst.Integer):
            index = int(expr.slice[0].slice.value.value)
            if -len(elems) <= index < len(elems):
                return elems[index]
        return Val(heads=value.heads, ghosts=value.ghosts, modules=value.modules, uses=value.uses,
                   nontrivial=value.nontrivial, unknown=value.unknown, loss=value.loss)

    def _sequence(self, expr, stmt) -> Val:
        out = Val()
        elems = []
        for elem in expr.elements:
            sub = self.expr(elem.value)
            elems.append(sub)
            out = out.join(sub)
        out.elems = elems
        return out

    def _dict(self, expr: cst.Dict, stmt) -> Val:
        out = Val()
        vals = []
        for elem in expr.elements:
            if isinstance(elem, cst.DictElement):
                self.expr(elem.key)
            val = self.expr(elem.value)
            vals.append(val)
            if self.loop_owner:
                self.dict_vals[id(elem.value)] = val  # a step output built before its return (lightning_outputs)
            out = out.join(val)
        out.mapping = True
        pairs = keyed.literal_keys(expr)
        if pairs is not None:
            out.entries = {key: val for (key, _), val in zip(pairs, vals)}
        return out

    def _comprehension(self, expr, stmt) -> Val:
        """`[f(a, b) for a, b in zip(xs, ys)]`, and a dict's values (`{k: f(v) for k, v in d.items()}`)."""
        saved = dict(self.env)
        for_in, ghosts, guessed = expr.for_in, frozenset(), False
        while for_in is not None:  # `for a, b in zip(xs, ys)`, then `for c in cs`
            iterated = self.expr(for_in.iter)
            ghosts |= iterated.ghosts
            elem = self._loop_elem(for_in.iter, iterated)
            guessed = self._bind_comp(for_in.target, elem) or guessed
            # `{k: f(v) for k, v in out.items()}`: which entries hold the graph is still not known
            guessed = guessed or (_dict_view(for_in.iter) == "items" and elem.graph)
            for_in = for_in.inner_for_in
        if isinstance(expr, cst.DictComp):
            self.expr(expr.key)
            value = self.expr(expr.value)
        else:
            self.sum_elts.add(id(expr.elt))
            value = self.expr(expr.elt)
        self.env = saved
        out = value.join(Val(ghosts=ghosts))
        if guessed and out.graph:
            out.uncertain = True  # `for k, v in out.items()`: which entries hold the graph is not known
        return out

    def _bind_comp(self, target, elem: Val) -> bool:
        """A comprehension's variable holds one element (no node: nothing is stored);
        a tuple target takes `zip`'s and `enumerate`'s elements position by position.
        True when a tuple target's parts all took the whole value (no elements known)."""
        key = dotted(target) if isinstance(target, (cst.Name, cst.Attribute)) else None
        if key:
            self.env[key] = Val(heads=elem.heads, ghosts=elem.ghosts, unknown=elem.unknown, loss=elem.loss)
            return False
        guessed = False
        if isinstance(target, (cst.Tuple, cst.List)):
            parts = [e.value for e in target.elements]
            known = elem.elems is not None and len(elem.elems) == len(parts)
            guessed = not known and elem.graph
            for i, part in enumerate(parts):
                guessed = self._bind_comp(part, elem.elems[i] if known else elem) or guessed
        return guessed

    def _unknown(self, expr, stmt) -> Val:
        return Val(unknown=True)

    def _if_exp(self, expr: cst.IfExp, stmt) -> Val:
        self.expr(expr.test)
        known = self._known_test(expr.test)
        if known is not None:
            # `self.fake.detach() if detach else self.fake` inlined with `detach=True`: one arm runs, as in `if`
            return self.expr(expr.body if known else expr.orelse)
        body, orelse = self.expr(expr.body), self.expr(expr.orelse)
        plain = _not_tensor_arm(expr, self.imports, self.analysis.ctx.code)
        if plain == "body":
            body = Val(ghosts=body.heads | body.ghosts)
        elif plain == "orelse":
            orelse = Val(ghosts=orelse.heads | orelse.ghosts)
        return body.join(orelse)

    def _named(self, expr: cst.NamedExpr, stmt) -> Val:
        value = self.expr(expr.value)
        self.assign_target(expr.target, value, stmt, expr.value)
        return value

    def _starred(self, expr: cst.StarredElement, stmt) -> Val:
        return self.expr(expr.value)

    def _await(self, expr: cst.Await, stmt) -> Val:
        return self.expr(expr.expression)

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

    def _used(self, value: Val, name_node) -> Val:
        if not value.heads:
            return value
        uses = {head: [name_node] for head in value.heads}
        return Val(heads=value.heads, ghosts=value.ghosts, uses=uses, unknown=value.unknown, loss=value.loss,
                   elems=value.elems)

    def call(self, call: cst.Call, stmt) -> Val:
        """A call, in this order: a backward, a call that hands back what it is
        given, a method with a known meaning (events, containers, cuts), then
        the callee itself."""
        func = call.func
        qualified = self.imports.qualify(func)
        if type(func) is cst.Attribute and func.attr.value in ("backward", "manual_backward") and \
                not _result_bound(call, self.cur_stmt):
            own = self._own_backward_hook(func, call)
            if own is not None:
                return self.inline(own, call, stmt, bound_self=True)  # `self.backward(loss)` of this class
            return self.backward_site(call, stmt)
        if qualified in ("torch.autograd.backward", "torch.autograd.grad"):
            return self.backward_site(call, stmt, qualified=qualified)
        if call.args and (qualified or "").startswith("torch.nn.utils.") and \
                qualified.rsplit(".", 1)[-1] in _NORM_CLIPS or \
                type(func) is cst.Attribute and func.attr.value in _NORM_CLIPS and qualified is None:
            # `clip_grad_norm_(model.parameters(), 1.0)`: one norm over every gradient it is given,
            # so the gradients of each module it reads scale the others' (decide.discarded)
            self.event("grad_read", call, stmt, modules=_parameters_of(call.args[0].value))
        if _hands_back(func, qualified, call) or rewrapped.rewraps(self, call, self.cur_stmt):
            # accelerator.prepare(model, opt, loader): the same objects, wrapped
            # for devices; no tensor comes out of it, so no graph does
            for arg in call.args:
                self.expr(arg.value)
            return Val()
        called = self._called_meter(func)
        if called is not None:
            return self._meter_add(call, stmt, *called)
        if type(func) is cst.Attribute:
            out = self.method_call(call, stmt, func)
            if out is not None:
                return out
        out = self.callee(call, stmt, func, qualified)
        if out.graph and _with_indices(call, func, qualified) and \
                not self.names.is_module(dotted(func.value) if isinstance(func, cst.Attribute) else None):
            # `values, idx = x.max(1)`: the indices are integers, without a graph
            out.elems = [Val(heads=out.heads, ghosts=out.ghosts, modules=out.modules, uses=out.uses,
                             nontrivial=out.nontrivial, unknown=out.unknown, loss=out.loss),
                         Val(ghosts=out.heads | out.ghosts)]
        return out

    def _distribution(self, e) -> bool:
        """Is `e` a `torch.distributions` object (`Categorical(logits=x)`, or a
        name bound to one in this scope)? Its `.sample()` has no graph."""
        if isinstance(e, cst.Call):
            # `Categorical(logits=x)`, or `actor(state)` of a module whose forward returns one
            return (self.imports.qualify(e.func) or "").startswith("torch.distributions.") or \
                self.analysis.forward_distribution(dotted(e.func)) or self._method_distribution(e.func)
        return dotted(e) in self.distributions

    def _method_distribution(self, func) -> bool:
        """`self.policy(s)`, `agent.policy(s)` or `policy(net, s)`: a method of a
        class, or a function, of this file every return of which is a
        torch.distributions object (read from its summary)."""
        if isinstance(func, cst.Name) and func.value in self.names.functions:
            summary = self.analysis.own_summary(func.value)
            return summary is not None and summary.distribution
        if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
            return False
        base = func.value.value
        if base == "self":
            cls = self.self_class or self.method_class or self.analysis.class_of_stmt(self.cur_stmt)
        else:
            cls = self.names.instances.get(base)
        cls = cls if isinstance(cls, str) or cls is None else getattr(getattr(cls, "name", None), "value", None)
        summary = self.analysis.own_summary(f"{cls}.{func.attr.value}") if cls else None
        return summary is not None and summary.distribution

    # ---------------------------------------------------------------- calls: methods
    def method_call(self, call: cst.Call, stmt, func: cst.Attribute) -> Optional[Val]:
        """`base.meth(...)` where the method's name (events, containers, then
        `_named_method`) or the object's class (`_class_method`) says what it
        does; None: treat it as an ordinary callee."""
        base, meth = dotted(func.value) or model_containers.elem_key(func.value, self.names), func.attr.value
        if base in self.unrolled and dotted(self.unrolled[base]):
            base = dotted(self.unrolled[base])  # `h.append(v)` unrolled: `losses.append(v)`
        if base not in self.names.optimizers and (base in self.names.foreign_instances or base in self.names.instances):
            # `sched.step_and_update_lr()`, `sched.zero_grad()` of a wrapper that holds an optimizer
            held = optimizer_wrappers.wrapped(self.analysis, base, meth)
            if held is not None:
                inner, kind, note = held
                if kind == "step":
                    self.event("step", call, stmt, opt=inner)
                else:
                    self._zero_grad(call, stmt, inner)
                self.analysis.table("wrapper_steps")[id(self.events[-1])] = note
                return Val()
        if meth in _NEW_METHODS and (base is None or base not in self.names.instances):
            # `w.new_empty(n)`: a new tensor of `w`'s dtype and device, with no history
            self.expr(func.value)
            for arg in call.args:
                self.expr(arg.value)
            return Val()
        if self.inline_leaves and base == "self" and meth == "register_buffer":
            out = self._register_buffer(call, stmt)
            if out is not None:
                return out
        event = _EVENT_METHODS.get(meth)
        if event is not None:
            out = event(self, call, stmt, self.handed.get(base, base))
            if out is not None:
                return out
        if meth in ("add_", "sub_") and base is not None and call.args and base in self.env:
            return self._inplace_add(call, stmt, base)
        known = None
        if base in self.passed and meth not in CUT_METHODS:
            # `losses.update(loss)` in an inlined helper given the caller's meter: stored into the caller's
            # (first: the parameter may also be known as an instance of the class, analysis.names)
            known = self.analysis.object_method(self.passed[base], meth)
            base = self.passed[base] if known is not None else base
        if known is None and meth not in CUT_METHODS:
            known = self.analysis.object_method(base, meth)
        if known is not None and known[0].accum and not known[0].events:
            return self._meter_add(call, stmt, base, meth, known)
        if base is None and type(func.value) is cst.Subscript and meth not in CUT_METHODS:
            # `stats[key].update(value)`: a meter of a dict (or list) of meters
            holder = dotted(func.value.value)
            held = meter_method(self.analysis, holder, meth) if holder else None
            if held is not None:
                self.expr(func.value)
                return self._meter_add(call, stmt, holder, meth, held)
        if known is None and base is not None and meth not in CUT_METHODS:
            # a star-imported meter class, or one out of sight (analysis.unseen_meters)
            guess = meter_guess(self.analysis, base, meth, self.body)
            if guess is not None:
                return self._meter_add(call, stmt, base, meth, guess[:3], guess[3],
                                       lambda value: strong(self, value))
        if known is None and meth == "update" and base is not None and keyed.dict_update(self, call, base):
            return keyed.update(self, call, base)  # `losses.update(self.loss_fn(x))`: a dict's entries
        if meth in CONTAINER_ADD | CONTAINER_CLEAR and base is None and known is None:
            base = keyed.slot(func.value, self)  # `stats["loss"].append(loss)`: the list under that key
        if meth in CONTAINER_ADD and base is not None and known is None and \
                not (meth == "add" and _result_read(call, stmt)):
            return self._container_add(call, stmt, base, meth)  # not `y = x.add(m)`: a tensor's sum
        out = self._named_method(call, func, base, meth)
        if out is not None:
            return out
        return self._class_method(call, stmt, func, base, meth)

    def _register_buffer(self, call: cst.Call, stmt) -> Optional[Val]:
        """`self.register_buffer("cdf", f(alpha))` in `__init__` (analysis.init_graphs): the module
        keeps the tensor itself, graph and all, as `self.cdf`."""
        args = [a for a in call.args if a.keyword is None]
        if len(args) < 2 or len(call.args) > 3 or type(args[0].value) is not cst.SimpleString:
            return None
        name = args[0].value.evaluated_value
        if not isinstance(name, str) or not name.isidentifier():
            return None
        val = self.expr(args[1].value)
        self.assign_target(cst.Attribute(value=cst.Name("self"), attr=cst.Name(name)), val, stmt, args[1].value)
        return Val()

    def _inplace_add(self, call: cst.Call, stmt, base) -> Val:
        """`total.add_(loss)`: `total += loss` in place; the tensor bound
        before keeps the graph of what is added (an accumulator)."""
        old = self.lookup_key(base)
        rhs = self.expr(call.args[0].value)
        for extra in call.args[1:]:
            self.expr(extra.value)
        if self.no_grad or base in self.names.leaves or not rhs.graph:
            return Val(heads=old.heads, ghosts=old.ghosts)
        val = old.join(rhs)
        total = Val(heads=val.heads, ghosts=val.ghosts, modules=rhs.modules, uses=rhs.uses, nontrivial=False)
        node = self.new_node(base, stmt, call.args[0].value, total, kind="accum")
        node.loss = rhs.loss
        self.env[base] = Val(heads=frozenset({node}), loss=rhs.loss)
        self.bound.add(base)
        return self.env[base]

    def _named_method(self, call: cst.Call, func: cst.Attribute, base, meth: str) -> Optional[Val]:
        """A method whose name says it all: a state reset, `clear`, `detach_`,
        a cut (`x.item()`, `x.long()`), a module's state (`model.train()`)."""
        if meth not in CUT_METHODS and meth not in STATE_METHODS and "." in (dotted(func) or "") and \
                (self.names.foreign_instances or self.names.instances):
            state_key = state_resets(self.analysis).get(dotted(func))
            if state_key is not None:
                self.env[state_key] = Val()  # model.recurrent.reset_state()
                return Val()
        if meth in CONTAINER_CLEAR and base is not None:
            self._object_reset(base, meth)  # `cache.clear()` of a local class's object
            self.env[base] = Val()
            return Val()
        if meth == "detach_" and base is not None:
            return self._detach_in_place(base)
        if meth == "detach_":
            return self._detach_part_in_place(func.value)
        if meth in CUT_METHODS or meth in ("to", "type") and any(
                self.imports.qualify(arg.value) in INT_DTYPES for arg in call.args) or \
                meth == "sample" and self._distribution(func.value):
            inner = self.expr(func.value)
            for arg in call.args:
                self.expr(arg.value)
            return self.cut(inner, func.value)
        if base is not None and self.names.is_module(base) and meth in STATE_METHODS:
            return Val()
        return None

    def _class_method(self, call: cst.Call, stmt, func: cst.Attribute, base, meth: str) -> Optional[Val]:
        """A method of a class we can read: another file's training step, a
        method with events or a forward helper (walked at the call), a module's."""
        found = self.analysis.foreign_method(base, meth)
        if found is not None and (found[0].events or found[0].self_calls and
                                  foreign_backwards.backwarded_params(self.analysis, base, meth, found)):
            return self._foreign_step(call, stmt, base, meth, found)
        method, param_cls = self.names.method(base, meth), None
        if method is None and base in self.params:
            # `def fit(model, n)` called `fit(net, 3)`, `net` a trainer of this file: its method,
            # walked when it backwards or steps, or hands back what such a method is given
            cls = self._param_class(base)
            found = self.names.class_method(cls, meth) if cls else None
            if found is not None and (self.analysis.function_summary(found).has_events or
                                      self._trainer_part(base, found, cls)):
                method, param_cls = found, cls
        made = dotted(func.value.func) if base is None and type(func.value) is cst.Call else None
        if method is None and made in self.names.classes and made not in self.names.module_classes:
            method = self.names.class_method(made, meth)  # `Aux().run(out)`: a method of an object made here
        if method is None and base == "self" and (self.self_class or self.method_class):
            # self.backward_step(loss); `self._update(loss)` of the class whose method is walked
            method = self.names.class_method(self.self_class or self.method_class, meth)
        if method is None and base == "self":
            helper = self.analysis.step_helper(func, self.self_class or self.method_class or
                                               self.analysis.class_of_stmt(self.cur_stmt))
            if helper is not None:
                self.step_helper(call, stmt, helper, meth)  # a base class's take_optimisation_step
                return Val()
        if method is not None and method.name.value not in self.inlining and \
                (self.analysis.function_summary(method).has_events or grows_outer(self, method, True, base)
                 or self._trainer_part(base, method, param_cls)):
            return self.inline(method, call, stmt, bound_self=True)
        if method is not None and base not in (None, "self"):
            self._object_reset(base, meth)  # `self.grads.reset()` that empties its `self.memo`
        own = self.plain_self_method(func, base)
        if own is not None and (model_containers.forward_helper(self, own) or phases.phase_helper(self, own) or
                                log_helper(self, own) or meter_helper(self, own, call, bound_self=True) or
                                buffer_helper(self, own, call, bound_self=True)):
            return self.inline(own, call, stmt, bound_self=True)  # outputs = self.process_batch(inputs)
        if own is not None and arg_log_helper(self, own, call):
            first = len(self.nodes)
            out = self.inline(own, call, stmt, bound_self=True)  # self._update_loss_log(name, loss)
            note = shared_note(self, own)
            if note:
                table = self.analysis.table("override_nodes")  # read by factories.factory_notes
                for node in self.nodes[first:]:
                    table.setdefault(node, note)
            return out
        if own is not None and reads_state(self, own):
            return self.inline(own, call, stmt, bound_self=True)  # a loss over `self.log_probs` (state_readers)
        if base == "self" and not self.no_grad:
            # `loss, out = self.forward_step(mb)` left to subclasses: the file's one override, noted
            cls = self.self_class or self.method_class
            cls = cls if isinstance(cls, str) else getattr(getattr(cls, "name", None), "value", None)
            found = overrides.sole_override(self.names, cls, meth)
            if found is not None and found[1].name.value not in self.inlining and \
                    not self.analysis.function_summary(found[1]).has_events and \
                    model_containers.forward_helper(self, found[1]):
                first = len(self.nodes)
                out = self.inline(found[1], call, stmt, bound_self=True)
                table = self.analysis.table("override_nodes")
                for node in self.nodes[first:]:
                    table[node] = overrides.note(cls, meth, found[0])
                return out
        if own is not None:
            for key in self_resets.reset_keys(self.analysis, own):
                if key in self.env and self.env[key].heads:
                    note = f"`self.{own.name.value}()` sets `{key}` anew (read from its body; an override in " \
                        "a subclass is not followed)"
                    if note not in self.arm_notes:
                        self.arm_notes.append(note)
                self.env[key] = Val()  # self.init_hidden(n): `self.hidden = torch.zeros(...)` there
        if base is not None and self.names.is_module(base) and not meth[:1].isupper() \
                and base not in self.imports.aliases and not self.names.is_module(f"{base}.{meth}") \
                and self.analysis.forward_elems(f"{base}.{meth}") is None:
            # not `self.critic1(x)` where `self` is a module too: that runs the part alone; nor
            # `self.criterion(...)`, an object of a project class whose forward is read (callee)
            return self._module_method(call, func, base)
        return None

    def _param_class(self, param: str):
        """The class of this file whose object every call of the walked function
        in this file hands for `param` (`fit(net, 3)`, `net = Dehazer()`), or None."""
        return param_class(self.analysis, self.name, param)

    def _trainer_part(self, base, method, cls=None) -> bool:
        """`u, d = model.process(x, y)` where `model` (a plain name: an object of
        a class of this file, or a parameter every call hands one) has another
        method that backwards what it is handed (`model.backward(u, d)`): the
        losses `process` returns are walked through the modules it runs
        (`self.dis`), so a step of `self.dis_optimizer` there is seen to touch
        them. Not a method whose class backwards only its own losses (a
        trainer's `step`), nor one reached through `self.learner`."""
        if not base or "." in base or base == "self" or \
                not any(isinstance(n, cst.Return) and n.value is not None
                        for n in nodes(method.body, skip=(cst.FunctionDef, cst.ClassDef))):
            return False
        cls = cls or self.names.instances.get(base)
        if cls is None:
            return False
        takers = set()
        for (c, meth), fn in self.names.methods.items():
            summary = self.analysis.own_summary(f"{c}.{meth}") if c == cls and fn is not method else None
            if summary is not None and summary.backward_params:
                takers.add(meth)
        if not takers:
            return False
        # the walked code hands what this method returns to one that backwards it:
        # `a, b = model.process(x)` ... `model.backward(a, b)`
        made, handed = set(), set()
        body = self.body if isinstance(self.body, (list, tuple)) else [self.body]
        for n in (n for stmt in body for n in nodes(stmt, skip=(cst.FunctionDef, cst.ClassDef))):
            if isinstance(n, cst.Assign) and isinstance(n.value, cst.Call) and isinstance(n.value.func, cst.Attribute) \
                    and dotted(n.value.func) == f"{base}.{method.name.value}":
                made |= {x.value for t in n.targets for x in nodes(t.target) if isinstance(x, cst.Name)}
            elif isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and dotted(n.func.value) == base \
                    and n.func.attr.value in takers:
                handed |= {x.value for a in n.args for x in nodes(a.value) if isinstance(x, cst.Name)}
        return bool(made & handed)

    def _object_reset(self, base: str, meth: str) -> None:
        """`base.meth()` of an object of a local class whose `meth` sets state
        anew or empties it (self_resets.object_resets): that state holds no graph after it."""
        method = self.names.method(base, meth)
        if method is None or base == "self":
            return
        for key in self_resets.object_resets(self.analysis, base, method, self.env):
            if key in self.env:
                self.env[key] = Val()

    def _hand_module(self, param: str, value) -> None:
        """`adapt(net, x)` of `def adapt(model, x)`: the callee's `model` is the
        caller's `net` (read by analysis.reloads)."""
        key = dotted(value)
        if key and self.names.is_module(key) and self.names.is_module(param):
            self.analysis.table("handed_modules").setdefault(param, set()).add(key)

    def _reload(self, call: cst.Call, stmt, base) -> None:
        """`net.load_state_dict(saved)` copies into the parameters in place, as a
        step does (analysis.reloads); the call is then walked as any other."""
        if base is not None and self.names.is_module(base):
            self.event("reload", call, stmt, modules=frozenset({base}))
        return None

    def _step(self, call: cst.Call, stmt, base) -> Optional[Val]:
        if stmt is None:
            stmt = self.cur_stmt  # `loss = opt.step(closure)`: the value of an assignment (and before inlining)
        if call.args and dotted(call.args[0].value) in self.local_defs:
            # optimizer.step(closure): the closure runs the forward and backward first
            closure_fn = self.local_defs[dotted(call.args[0].value)]
            if closure_fn.name.value not in self.inlining:
                ret = self.inline(closure_fn, cst.Call(func=cst.Name(closure_fn.name.value)), stmt)
                self.event("step", call, stmt, opt=base if base in self.names.optimizers else None)
                return ret  # step(closure) returns the closure's loss
        if base in self.names.optimizers:
            self.event("step", call, stmt, opt=base)
            return Val()
        if call.args and dotted(call.args[0].value) in self.names.optimizers:
            self.event("step", call, stmt, opt=dotted(call.args[0].value))  # scaler.step(opt)
            return Val()
        if base is not None and not call.args and not self.names.is_module(base) and \
                not _NOT_AN_OPTIMIZER.search(base.split(".")[-1]):
            # `opt = make_optimizer(G, D)` from another file: it may step anything
            # (decide.discarded then cannot say the gradients are thrown away)
            self.event("unknown_step", call, stmt)
        return None

    def _zero_grad(self, call: cst.Call, stmt, base) -> Val:
        self.env.pop(GRADS, None)  # whichever grads it empties, none is read as a graph after it
        if base in self.names.optimizers:
            owns = self.names.optimizers[base].owns
            self.event("zero", call, stmt, opt=base, modules=owns)
        else:
            self.event("zero", call, stmt, modules=frozenset({base}) if base else None)
        return Val()

    def _container_add(self, call: cst.Call, stmt, base: str, meth: str) -> Val:
        """`losses.append(loss)`: the container now holds the argument's graph."""
        # an unrolled loop's variable stands for its element (`[loss, acc]`): read and fixed there
        exprs = [self.unrolled.get(arg.value.value, arg.value) if type(arg.value) is cst.Name else arg.value
                 for arg in call.args]
        args = [self.expr(expr) for expr in exprs]
        val = Val()
        for arg in args:
            val = val.join(arg)
        if any(expr is not arg.value for expr, arg in zip(exprs, call.args)) and not val.loss:
            # through an unrolled loop only a loss is taken for kept (`[loss, acc]`: `acc` may be a
            # number from code the analysis reads as a graph)
            val = Val(ghosts=val.heads | val.ghosts)
        if base in self.plain_keys:
            val = Val(ghosts=val.heads | val.ghosts)  # `names: List[str]`: it holds no tensor
        proven = id(call) in self.proven[1]
        grown = self._grown_elems(base, meth, exprs, args)
        if (val.graph or proven) and not self.no_grad:
            old = self.lookup_key(base)
            # `meter.append(loss, count=batch_size)`: the argument that brings the graph, not the last
            live = [e for e, a in zip(exprs, args) if a.graph]
            expr = live[-1] if live else exprs[-1] if exprs else None
            elem = containers.append_elem(self, base, meth, val, proven, stmt, expr)
            node = self.new_node(base, stmt, expr, Val(heads=old.heads | elem.heads, ghosts=val.ghosts,
                                                       uses=val.uses), kind="container")
            node.loss = val.loss or proven
            if proven:
                node.proven, node.uncertain = True, False
            if meth == "append":
                node.last = elem
            self.env[base] = Val(heads=frozenset({node}), loss=val.loss)
            if grown is not None:
                self.list_elems[id(node)] = grown[1]
        elif grown is not None:
            self.list_elems[id(grown[0])] = grown[1]  # the same list, longer
        return Val()

    def _grown_elems(self, base: str, meth: str, exprs, args) -> Optional[tuple]:
        """(the list's node, its elements after `base.append(x)` / `base.extend([x, y])`) for a
        list whose elements are known (`list_elems`); None otherwise."""
        old = self.env.get(base)
        if meth not in ("append", "extend") or len(args) != 1 or old is None or len(old.heads) != 1:
            return None
        head = next(iter(old.heads))
        known = self.list_elems.get(id(head))
        if known is None:
            return None
        if meth == "append":
            return head, known + [args[0]]
        if type(exprs[0]) in (cst.List, cst.Tuple) and args[0].elems is not None and \
                not any(type(e) is cst.StarredElement for e in exprs[0].elements):
            return head, known + list(args[0].elems)
        return None

    def _detach_in_place(self, base: str) -> Val:
        # in place: `h.detach_()`, or `for s in state: s.detach_()` cuts `state`
        for key in [base] + [iterated for target, iterated in self.for_targets if target == base]:
            old = self.lookup_key(key)
            self.env[key] = Val(ghosts=old.heads | old.ghosts)
        return Val()

    def _detach_part_in_place(self, target) -> Optional[Val]:
        """`hidden[0].detach_(); hidden[1].detach_()`: both parts of an (h, c)
        pair cut in place cut the pair, as long as `hidden` is still the value
        whose parts were cut (a rebinding in between starts again)."""
        if type(target) is not cst.Subscript or len(target.slice) != 1 or \
                type(target.slice[0].slice) is not cst.Index or type(target.slice[0].slice.value) is not cst.Integer:
            return None
        key = dotted(target.value)
        if key is None:
            return None
        value = self.lookup_key(key)
        held, parts = self.part_cuts.get(key, (None, set()))
        if held is not value:
            parts = set()
        parts = parts | {int(target.slice[0].slice.value.value, 0)}
        self.part_cuts[key] = (value, parts)
        if {0, 1} <= parts:
            return self._detach_in_place(key)
        return Val()

    def _module_method(self, call: cst.Call, func: cst.Attribute, base: str) -> Val:
        """model.encode(x): runs the module's parameters (the parts the
        method runs, when its class is in this file)."""
        out = self._module_call(call, base, method_parts(self.analysis, base, func.attr.value))
        out = self._forward_reads(base, func.attr.value, out)
        own = self._own_method(func)
        if own is None:
            from .quiet_methods import self_cut

            out = self._foreign_cut(call, base, func.attr.value, out)

            if out.graph and not out.heads and out.modules <= {base} and self_cut(self.analysis, base, func.attr.value):
                # `val_loss = model.evaluate(loader, criterion)` handed no graph, whose class's method
                # returns none of the module's own (numbers from `loss.data[0]`)
                return Val(ghosts=out.ghosts)
            if out.graph and not out.heads and out.modules <= {base}:
                from .stub_overrides import concrete_self_cut, record

                note = concrete_self_cut(self.analysis, base, func.attr.value)
                if note is not None:  # `self.model.dataset(arrays)`: bodies past a stub read no parameters
                    record(self.analysis, call, note)
                    return Val(ghosts=out.ghosts)
            return self._quiet_method(out, base, func.attr.value)
        if own.name.value not in self.inlining and \
                not self.analysis.function_summary(own).has_events:
            if self.analysis.returns_graph(own) is False:
                return Val(ghosts=out.heads | out.ghosts)  # `s, a = self.make_batch()` of plain data
            shape = self.analysis.returns_elems(own)
            if shape is not None:
                cut = Val(ghosts=out.heads | out.ghosts)
                out.elems = self._elems(own, call, out, shape, out, cut, 1)
        return out

    def _forward_reads(self, base: str, meth: str, out: Val) -> Val:
        """`loss = model.get_loss(batch)` after `model(batch)` in this iteration, where get_loss reads
        `self.logits` that the forward stores: the loss hangs from that forward's graph too."""
        run = self.forward_runs.get(base)
        if self.no_grad or run is None or not run.heads or any(h.iteration != self.tag() for h in run.heads):
            return out
        cls = self.names.instances.get(base)
        if cls is not None:
            fwd, found = self.analysis._own_summaries.get(f"{cls}.forward"), \
                self.analysis._own_summaries.get(f"{cls}.{meth}")
        else:
            fwd, found = self.analysis.foreign_method(base, "forward"), self.analysis.foreign_method(base, meth)
            fwd, found = fwd and fwd[0], found and found[0]
        if fwd is None or found is None or found.self_attrs is None or \
                not set(found.self_attrs) & (set(fwd.forward_stores) | self._called_stores(base, cls, fwd)):
            return out
        return dataclasses.replace(out, heads=out.heads | run.heads, nontrivial=True)

    def _called_stores(self, base: str, cls, fwd) -> set:
        """X for each `self.X` that a method the forward calls (`self.infer(context)`, and what that
        calls, three deep) fills with a network's output (`self.means = params[:, :k]`)."""
        out: set = set()
        seen = {"forward"}
        todo = [(meth, 1) for meth in fwd.self_calls]
        while todo:
            meth, depth = todo.pop()
            if meth in seen or depth > 3:
                continue
            seen.add(meth)
            if cls is not None:
                found = self.analysis._own_summaries.get(f"{cls}.{meth}")
            else:
                found = self.analysis.foreign_method(base, meth)
                found = found and found[0]
            if found is None:
                continue
            out |= {key[len("self."):] for key in found.stores_graph if key.startswith("self.")}
            todo.extend((m, depth + 1) for m in found.self_calls)
        return out

    def _foreign_cut(self, call: cst.Call, base: str, meth: str, out: Val) -> Val:
        """`model.discriminator_loss(z)` of a module built from another file's class whose
        method (read from its summary, inherited or re-exported) cuts `z`: the result keeps
        the module's parameters, not the cut arguments' graph. Positional arguments only."""
        found = self.analysis.foreign_method(base, meth)
        if found is not None and not found[0].events and returns_cut(found[1], meth):
            # `hidden = helper.repackage_hidden(hidden)` of a known class whose method returns only
            # `h.detach()` or a tuple of its own recursive calls: the result holds no graph at all
            return Val(ghosts=out.heads | out.ghosts)
        each = self.arg_vals.get(id(call))
        if found is None or found[0].events or each is None or \
                any(arg.keyword is not None or arg.star for arg in call.args):
            return out
        cuts = cut_positions(found[1], meth, len(call.args))  # read from the method's text, not arg_flow
        if not cuts:
            return out
        cut = frozenset(h for i in range(len(call.args)) if i in cuts for h in each[i].heads)
        kept = frozenset(h for i in range(len(call.args)) if i not in cuts for h in each[i].heads)
        drop = (cut - kept) & out.heads
        if not drop:
            return out
        return dataclasses.replace(out, heads=out.heads - drop, ghosts=out.ghosts | drop,
                                   uses={h: reads for h, reads in out.uses.items() if h not in drop})

    # ---------------------------------------------------------------- calls: the callee
    def callee(self, call: cst.Call, stmt, func, qualified) -> Val:
        """A call by what is called: a module, a constructor that cuts, a
        helper class, an object of a project class, else a function of a
        value (`_value_call`)."""
        key = dotted(func) or model_containers.elem_key(func, self.names)
        if key is not None and self.names.is_module(key):
            return self._module_call(call, key)
        if key is not None and self._capital_part(key):
            return self._module_call(call, key)  # `self.model.G(z)`: G is a part of the module `self.model`
        if qualified == "torch.autograd.Variable":
            return self._variable(call)
        if self.inline_leaves and qualified == "copy.deepcopy":
            # a tensor with a history cannot be deep-copied (a RuntimeError): the copy is a new leaf
            for arg in call.args:
                self.expr(arg.value)
            return Val()
        if self.inline_leaves and not self.no_grad and _inline_leaf(qualified, call):
            for arg in call.args:
                self.expr(arg.value)
            return Val(heads=frozenset({self.leaf(f"{INLINE_LEAF}{id(call)}", ())}))
        if self.inline_leaves and (qualified or "").startswith("torch.nn.init.") and call.args:
            for arg in call.args[1:]:
                self.expr(arg.value)
            return self.expr(call.args[0].value)  # `init.normal_(nn.Parameter(w))` hands its argument back
        if _new_data(qualified, key):
            args = Val()
            for arg in call.args:
                args = args.join(self.expr(arg.value))
            return Val(ghosts=args.heads | args.ghosts)
        local_class = key is not None and key in self.names.classes and key not in self.names.module_classes
        # `SavedAction = namedtuple(...)`: a record type the module binds by a call, not a class statement
        record = key is not None and type(func) is cst.Name and key not in self.names.classes and \
            key not in self.names.functions and key in record_types(self.analysis)
        if local_class or record:
            held = Val()
            for arg in call.args:
                held = held.join(self.expr(arg.value))
            if held.heads and not self.no_grad and (record or keeps_arguments(self.analysis.ctx, key)):
                # `Wrap(out).t` is `out`; `SavedAction(lp, v)` holds both
                return Val(heads=held.heads, ghosts=held.ghosts, uses=held.uses)
            return Val()  # an object of a local helper class
        made = dotted(func.func) if type(func) is cst.Call else None
        if made in self.names.classes and made not in self.names.module_classes:
            method = self.names.class_method(made, "__call__")  # `Aux()(out)`
            if method is not None and method.name.value not in self.inlining and \
                    self.analysis.function_summary(method).has_events:
                return self.inline(method, call, stmt, bound_self=True)
        if type(func) is cst.Attribute and qualified is None:
            known = object_call(self, call, func)  # an object of a project class that cuts some arguments
            if known is not None:
                known = self._foreign_cut(call, dotted(func.value), func.attr.value, known)
                return self._quiet_method(known, dotted(func.value), func.attr.value)
        if (type(func) is cst.Name or (key or "").startswith("self.") and key.count(".") == 1) and \
                qualified is None and not self.no_grad:
            summary = self.analysis.forward_elems(key)  # `loss_fn(...)`, `self.criterion(...)`
            if summary is not None and not any(arg.star for arg in call.args):
                return self._object_forward(call, summary)
        return self._value_call(call, stmt, func, qualified, key)

    def _value_call(self, call: cst.Call, stmt, func, qualified, key) -> Val:
        """A call whose result hangs from its arguments (and from its object:
        `x.sum()`), unless a summary of the function says otherwise."""
        args, module_args = self._call_args(call, func, qualified)
        if key is not None and key in self.names.functions:
            out = self._local_function(call, stmt, key, args, bool(module_args))
            if out is not None:
                return out
            module_args = set()  # the summary's modules stand for them
        own = self._own_method(func)
        if own is not None and args.graph and own.name.value not in self.inlining and \
                not self.analysis.function_summary(own).has_events:
            if self.analysis.returns_graph(own) is False:
                # `@torch.no_grad()`, `return np.transpose(x)`: no graph, and no cut worth
                # naming (what `args` holds includes the object's own state)
                return Val()
            args = self._own_result(own, call, args)
        if module_args and self._external(func, qualified, key):
            summary = self.analysis.project_summary(qualified, key)
            if summary is not None:  # `dqn_loss(batch, net, target_net)` that runs `target_net` under no_grad
                module_args = module_args - cut_module_args(call, summary, module_args)
        if module_args and not args.heads and qualified and qualified.split(".")[-1][:1].isupper() and \
                self._external(func, qualified, key):
            # `model = ARGVA(encoder, discriminator)` of a class we cannot see: building an object
            # of modules runs none of them (a later method call on it runs them then)
            return Val(ghosts=args.ghosts)
        if module_args:
            args.modules = args.modules | frozenset(module for module in module_args if self.names.has_params(module))
            args.nontrivial = True
        if self._external(func, qualified, key):
            out = self._external_call(call, stmt, args, qualified, key)
            if out is not None:
                return out
        if type(func) is cst.Attribute and qualified is None and own is None and args.graph and \
                dotted(func.value) is not None:
            args = self._foreign_cut(call, dotted(func.value), func.attr.value, args)
            base = dotted(func.value)
            if args.graph and base != "self" and "." not in base and not self.names.is_module(base) and \
                    not self.lookup_key(base).graph and self.analysis.foreign_method(base, func.attr.value) is None:
                # `hidden = helper.repackage_hidden(hidden)` of an object whose class is not known
                note = duck_cut(self.analysis, base, func.attr.value)
                if note is not None:
                    if note not in self.arm_notes:
                        self.arm_notes.append(note)
                    return Val(ghosts=args.heads | args.ghosts)
        if type(func) is cst.Attribute and qualified is None and own is None and args.graph and \
                dotted(func.value) is not None and (not self.lookup_key(dotted(func.value)).graph or
                                                    func.attr.value not in BUILTIN_METHODS):
            # `agent.greedy_option(state)`, `nets.fan.get_heatmap(x)` of an object whose class is
            # in another file; a base that holds a graph is a tensor (`loss.mean()` is never
            # looked up by name) unless the method is none of a tensor's or a container's
            # (`loss_dict.to_float_lossdict()`)
            args = self._quiet_method(args, dotted(func.value), func.attr.value)
            if args.graph and func.attr.value not in BUILTIN_METHODS and func.attr.value not in _DIST_METHODS and \
                    not self._distribution(func.value) and self.lookup_key(dotted(func.value)).graph:
                from .quiet_methods import project_methods

                if project_methods(self.analysis, dotted(func.value), func.attr.value, widen=True) == []:
                    # `loss.get_loss()` where `loss.backward()` took `loss` for a tensor: no tensor has
                    # that method, so `loss` is an object of a class not read, and that what the method
                    # returns carries the graph is an inference (it may be `.item()`): read by
                    # factories.factory_notes
                    node = self.new_node(dotted(func), stmt, call, args)
                    self.analysis.table("override_nodes")[node] = (
                        f"`{dotted(func)}(...)` returns a tensor with a graph (`{dotted(func.value)}` has a "
                        f"method no tensor has: an object whose class is not read; it may return a number)")
                    args = Val(heads=frozenset({node}), modules=args.modules, uses=args.uses, loss=args.loss)
        if args.graph:
            args.nontrivial = True
            args.loss = bool(qualified and _looks_like_loss(qualified)) or bool(key and _looks_like_loss(key))
            if qualified is None:
                # `self.criterion(...)`, a loss object on self
                args = self._handed_back(call, self.analysis.forward_handed_back(key), args)
        return args

    def _call_args(self, call: cst.Call, func, qualified) -> tuple:
        """(what the arguments and the called object hold, the modules passed
        as arguments): a module argument is kept by name, not evaluated."""
        args = Val()
        module_args = set()
        each = self.arg_vals[id(call)] = {}  # index -> what that argument holds (_cut_args)
        for index, arg in enumerate(call.args):
            arg_key = dotted(arg.value)
            if arg_key is not None and self.names.is_module(arg_key):
                module_args.add(arg_key)
                each[index] = Val()
                continue
            each[index] = self.expr(arg.value)
            args = args.join(each[index])
        if type(func) is cst.Attribute and qualified is None:
            # a method on a value: x.sum(), x.view(...), scaler.scale(loss)
            args = self.expr(func.value).join(args)
        elif type(func) not in (cst.Attribute, cst.Name):
            args = self.expr(func).join(args)
        return args, module_args

    def _own_result(self, own: cst.FunctionDef, call: cst.Call, args: Val) -> Val:
        """`self.helper(x)` of this class, without events: its code says which
        results hang from which arguments."""
        shape, from_args = self.analysis.returns_elems(own), self.analysis.returns_elems_from_args(own)
        first = own.params.params[0].name.value if own.params.params else None
        bound = 1 if first in ("self", "cls") else 0  # a @staticmethod's first argument is its own
        if shape is not None and from_args is not None:
            # `e_loss, d_loss = self._calc_loss(out)`: d_loss built on `out.detach()` and
            # the discriminator does not hang from `out`
            args.nontrivial = True
            cut = Val(ghosts=args.heads | args.ghosts)
            args.elems = self._elems(own, call, args, shape, _whole(args, True), cut, bound)
        elif shape is None and self.analysis.returns_from_args(own) is not None and args.heads:
            # `alpha_loss = self._temperature_loss(log_pi)` built on `log_pi.detach()`: the
            # result holds the graph of the arguments it hangs from, and the object's modules
            cut = Val(ghosts=args.heads | args.ghosts)
            one = self._elems(own, call, args, [True], _whole(args, True), cut, bound,
                              from_args=[self.analysis.returns_from_args(own)])[0]
            one.loss = args.loss
            args = one
        return args

    def _variable(self, call: cst.Call) -> Val:
        if call.args and isinstance(call.args[0].value, cst.Attribute) and call.args[0].value.attr.value == "data":
            return self.cut(self.expr(call.args[0].value.value), call.args[0].value.value)
        inner = self.expr(call.args[0].value) if call.args else Val()
        return self.cut(inner, call)  # Variable(x) is a detached alias today

    def _local_function(self, call: cst.Call, stmt, key: str, args: Val, handed: bool) -> Optional[Val]:
        """A function of this file: walked at the call when it has events,
        else read from its summary (`handed`: a module is among the arguments).
        None: `args` now stands for its result."""
        if key in self.inlining:
            return Val(ghosts=args.heads | args.ghosts)  # recursion: assume it cuts
        func = self.names.functions[key]
        if grows_outer(self, func):
            return self.inline(func, call, stmt)  # its stores outlive the call, whatever it returns
        if self.analysis.returns_cut(func):
            return Val(ghosts=args.heads | args.ghosts)
        summary = self.analysis.function_summary(func)
        if summary.has_events or meter_helper(self, func, call, bound_self=False) or \
                buffer_helper(self, func, call, bound_self=False):
            return self.inline(func, call, stmt)
        ret = self.analysis.returns_graph(func)
        if ret is False:
            return Val(ghosts=args.heads | args.ghosts)
        if ret is None:
            args.uncertain = True
        mods = summary.modules - quiet_names(self.analysis, func)  # `target_net` run under no_grad only
        if mods:
            args.modules = args.modules | frozenset(module for module in mods if self.names.has_params(module))
            params = [param.name.value for param in func.params.params]
            for index, arg in enumerate(a for a in call.args if a.keyword is None and not a.star):
                if index < len(params) and params[index] in mods:
                    self._hand_module(params[index], arg.value)
            args.nontrivial = True
            # `discriminator_loss(fake, real)` that runs `disc_net(fake.detach())`: not `fake`'s graph
            own = self.analysis.own_summary(key)
            if own is not None and own.arg_flow is not None and "cut" in own.arg_flow and not own.events:
                narrowed = self._cut_args(call, own, args)  # `args` stands for the result: narrowed in place
                args.heads, args.ghosts, args.uses = narrowed.heads, narrowed.ghosts, narrowed.uses
        handed_nets = self._handed_networks(func, call, summary.modules)
        if handed_nets and not _returns_from_networks(self.analysis.ctx, func):
            # `evaluate(loader, model)` that runs `model(x)` but returns `meter.avg` of numbers read
            # off the outputs (`out.data`): what it returns is built from no network handed in
            handed_nets = frozenset()
        if handed_nets:
            # `feats(content, vgg)` of `def feats(x, model): return model(x)`: the result hangs
            # from `vgg`'s parameters even when `content` carries no graph
            args.modules = args.modules | handed_nets
            args.nontrivial = True
        shape = self.analysis.returns_elems(func)
        if shape is not None:
            # `loss, n_correct, n_word = cal_performance(...)`: only some carry the graph
            if args.graph:
                args.nontrivial = True
            cut = Val(ghosts=args.heads | args.ghosts)
            args.elems = self._elems(func, call, args, shape, _whole(args, args.nontrivial), cut, 0)
        elif args.heads and not mods and self.analysis.returns_from_args(func) is not None and \
                not handed and not self._calls_params(func):
            # `score(pred, labels.data)` that returns `one_hots * labels` with one_hots
            # built on `argmax(pred)`: the result holds only the arguments it hangs from
            cut = Val(ghosts=args.heads | args.ghosts)
            one = self._elems(func, call, args, [True], _whole(args, True), cut, 0,
                              from_args=[self.analysis.returns_from_args(func)])[0]
            if not one.graph:
                return one
        return None

    def _handed_networks(self, func, call: cst.Call, mods) -> frozenset:
        """The caller's networks with parameters that `call` hands to parameters
        `func` calls (`model(x)`) and its summary does not already name."""
        params = [param.name.value for param in func.params.params]
        # names standing for a parameter's layers: `f = model[0]`, `for i, layer in enumerate(model)`
        derived = {name: name for name in params}
        for node in nodes(func.body):
            if isinstance(node, cst.Assign) and len(node.targets) == 1:
                pairs = [(node.targets[0].target, node.value)]
            elif isinstance(node, cst.For):
                pairs = [(node.target, node.iter)]
            else:
                continue
            for target, value in pairs:
                hit = next((derived[r] for r in _roots(value) if r in derived), None)
                if hit is not None:
                    for name in nodes(target):
                        if isinstance(name, cst.Name):
                            derived.setdefault(name.value, hit)
        quiet = {id(n) for w in nodes(func.body) if isinstance(w, cst.With)
                 and any(grad_mode(item.item, self.imports) == 1 for item in w.items) for n in nodes(w.body)}
        called = {derived[r] for node in nodes(func.body) if isinstance(node, cst.Call) and id(node) not in quiet
                  and not (isinstance(node.func, cst.Attribute) and node.func.attr.value in _NOT_FORWARD)
                  for r in _roots(node.func, calls=False) if r in derived}
        out = set()
        for index, arg in enumerate(a for a in call.args if a.keyword is None and not a.star):
            if index < len(params) and params[index] in called and params[index] not in mods:
                out.add(dotted(arg.value))
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in called and arg.keyword.value not in mods:
                out.add(dotted(arg.value))
        return frozenset(k for k in out if k and self.names.is_module(k) and self.names.has_params(k))

    @staticmethod
    def _calls_params(func) -> bool:
        """Does `func` call one of its parameters (`def g_loss(G, D, z)`)? Its
        result then hangs from that module's parameters, which no argument's
        graph shows."""
        params = {param.name.value for param in func.params.params}
        return any(isinstance(node.func, cst.Name) and node.func.value in params
                   for node in nodes(func.body) if isinstance(node, cst.Call))

    def _instance_call(self, key):
        """`VGG(x)` where `VGG = vgg.VGG16()` builds an object of a project class of another
        file: calling it runs its `__call__`, or its `forward` (a module whose layers come from
        a library, so no parameters are seen here); the summary of that method, or None."""
        if key not in self.names.foreign_instances:
            return None
        hit = self.analysis.foreign_method(key, "__call__") or self.analysis.foreign_method(key, "forward")
        if hit is None or hit[0].grad_off:
            return None  # run with gradients off: only an argument handed back as it is could hold a graph
        return hit[0]

    def _external_call(self, call: cst.Call, stmt, args: Val, qualified, key) -> Optional[Val]:
        """A function we cannot see; its project summary, when there is one,
        says whether it runs backward, cuts or passes the graph through."""
        summary = self.analysis.project_summary(qualified, key)
        if summary is None and type(call.func) is cst.Name and not qualified:
            summary = self._instance_call(key)
        if summary is not None and (summary.step_params and summary.backward_params or summary.multi_steps):
            result = self.step_helper(call, stmt, summary, qualified or key)
            if result is not None:
                return result  # what it returns was built before its step
        elif summary is not None and summary.backward_args and args.graph:
            backed = self._live_backwarded(call, summary, args)
            if backed.graph:
                self.helper_backward(call, stmt, backed, summary.backward_retain, qualified or key,
                                     summary.retain_flag)
        if summary is not None and not summary.events:
            if summary.result in ("cut", "const"):
                return Val(ghosts=args.heads | args.ghosts)
            if summary.result == "graph" and args.graph:
                out = self._cut_args(call, summary, self._through(args, summary, qualified or key))
                return self._handed_back(call, summary.handed_back, out)  # `criterion(..., flag)`
            if summary.arity and "graph" in summary.elems and args.graph:
                # `loss, mse, reg = total_loss(...)` from losses.py: the whole is not known
                # to carry the graph, but the elements the summary says hang from it do
                out = self._cut_args(call, summary, self._through(args, summary, qualified or key, known=False))
                return self._handed_back(call, summary.handed_back, out)
        if args.graph:
            args.uncertain = True
            if summary is not None and not summary.events and summary.arg_flow is not None:
                # `model.seq_bleu(out, ref)` that reads `out.data` only: whatever else it returns,
                # not the graph of the arguments it cuts
                narrowed = self._cut_args(call, summary, args)
                if narrowed is not args:
                    notes = self.analysis.table("object_flow_notes")  # read by the rules as an inference
                    cut = [p for p, k in zip(summary.params, summary.arg_flow) if k == "cut"
                           and p in (_bind(call, summary.params) or {})]
                    notes[id(call)] = (f"`{qualified or key}()` is read from its code (another file): it cuts "
                                       + ", ".join(f"`{p}`" for p in cut) + " from its result")
                    return narrowed if narrowed.graph else Val(ghosts=narrowed.heads | narrowed.ghosts)
        return None

    def _live_backwarded(self, call: cst.Call, summary, args: Val) -> Val:
        """What a helper of another file backwards of what it is handed: the arguments its
        backward reads past cuts (summary.live_backward_params). `smoothness_loss(net, x,
        logits)` that backwards `kl_div(net(x + d), logits.detach())` walks none of the graph
        of `logits`, so it frees nothing of it. All of `args` when the call cannot be bound."""
        each = self.arg_vals.get(id(call))
        names = _bind(call, summary.params) if summary.params else None
        if each is None or names is None or any(name not in summary.params for name in names):
            return args
        out = Val()
        if type(call.func) is cst.Attribute:
            base = dotted(call.func.value)
            if base is None:
                return args
            out = self.lookup_key(base)  # `helper.smooth(...)`: what the object holds, as before
        for name, index in names.items():
            if name in summary.live_backward_params and index in each:
                out = out.join(each[index])
        return out if out.graph else Val(ghosts=out.ghosts)

    def _cut_args(self, call: cst.Call, summary, value: Val) -> Val:
        """`errD, ... = d_loss(netD, real, fake, mu)` of another file that detaches `fake`
        and `mu` itself: the result (per element, with `elem_flow`) drops the graph of the
        arguments the summary says it cuts (`arg_flow`). Only arguments given by name are
        told apart; a graph another argument also brings stays."""
        params = summary.params
        bound = _bind(call, params) if params and summary.arg_flow is not None else None
        # `predict(out, y, preds, ys, threshold=t)` of a function with `**kwargs`: the keywords it does
        # not name go there
        kw = next((p for p in params if p.startswith("**")), None) if params else None
        if not bound or len(summary.arg_flow) != len(params) or \
                any(name not in params for name in bound) and kw is None:
            return value
        each = self.arg_vals.get(id(call))
        if each is None:
            return value
        parts = {name: each[index] for name, index in bound.items() if index in each and name in params}
        for name, index in bound.items():
            if name not in params and index in each:
                parts[kw] = parts[kw].join(each[index]) if kw in parts else each[index]

        def narrow(val: Val, flow) -> Val:
            cut = frozenset(head for name, part in parts.items() if flow[params.index(name)] in ("cut", "const")
                            for head in part.heads)
            kept = frozenset(head for name, part in parts.items()
                             if flow[params.index(name)] not in ("cut", "const") for head in part.heads)
            drop = (cut - kept) & val.heads
            if not drop:
                return val
            return dataclasses.replace(val, heads=val.heads - drop, ghosts=val.ghosts | drop,
                                       uses={head: reads for head, reads in val.uses.items() if head not in drop})

        if value.elems is not None and len(summary.elem_flow) == len(value.elems):
            value.elems = [narrow(elem, flow) if len(flow) == len(params) else elem
                           for elem, flow in zip(value.elems, summary.elem_flow)]
        out = narrow(value, summary.arg_flow)
        out.elems = value.elems
        return out

    def _elems(self, func, call, args, shape, whole, cut, skip, from_args=None) -> list:
        """Per returned element: the graph of the arguments it hangs from (its
        parameters, matched to this call's arguments), plus the modules the
        callee runs. `whole` where the match cannot be made."""
        if from_args is None:
            from_args = self.analysis.returns_elems_from_args(func)
        params = [param.name.value for param in func.params.params][skip:]
        if from_args is None or any(call_arg.star for call_arg in call.args):
            return [whole if graph else cut for graph in shape]
        at = _bind(call, params)
        bound = {name: call.args[index].value for name, index in at.items()}
        each = self.arg_vals.get(id(call), {})  # what each argument held when the call was read
        out = []
        for graph, sources in zip(shape, from_args):
            if not graph:
                out.append(cut)
            elif sources is None:
                out.append(whole)
            else:
                value = Val(ghosts=args.heads | args.ghosts, modules=args.modules, nontrivial=True)
                value.uncertain = args.uncertain
                for param in sources:
                    if param in bound:
                        arg = bound[param]
                        # a name read again is free; anything else is not walked twice: the value
                        # _call_args kept (`self.real_patch[i]` holds its element, not every argument)
                        part = self.expr(arg) if isinstance(arg, (cst.Name, cst.Attribute)) else \
                            each.get(at[param], args)
                        value = value.join(Val(heads=part.heads, ghosts=part.ghosts, modules=part.modules,
                                               uses=part.uses, nontrivial=True, unknown=part.unknown))
                value.nontrivial = True
                out.append(value)
        return out

    def _foreign_step(self, call, stmt, base, meth, found) -> Val:
        """`trainer.train_step(x, y)` of a class in another file of the project
        that runs backward and steps inside: the loop around it trains, and a
        result the summary says carries a graph gets a node of its own."""
        summary, path = found
        vals = [self.expr(arg.value) for arg in call.args]
        self.training_loops.update(id(loop) for loop, _ in self.loop_stack)
        self._foreign_backward(call, stmt, base, meth, found, vals)
        if summary.result != "graph" or self.no_grad:
            return Val()
        import os

        self.names.inferred.setdefault(base, (
            f"`{base}.{meth}()` runs backward and returns values that carry their graph (read from "
            f"{os.path.basename(path)})"))
        stmt = self.cur_stmt
        stmt = stmt.suite if isinstance(stmt, _SuiteLine) else stmt
        node = self.new_node(None, stmt, call, Val(nontrivial=True), kind="op", trivial=False)
        # the method backwards what it returns (Summary.returns_loss): a loss, whatever its name
        node.loss = _looks_like_loss(meth) or -1 in summary.returns_loss
        value = Val(heads=frozenset({node}), loss=node.loss)
        if summary.arity:
            # per element where the callee's returns agree (`return loss.item(), out`)
            value.elems = [Val() if summary.elems and summary.elems[index] in ("cut", "const")
                           else Val(heads=frozenset({node}), loss=index in summary.returns_loss)
                           for index in range(summary.arity)]
        return value

    def _foreign_backward(self, call, stmt, base, meth, found, vals) -> None:
        """`balancer.step([loss_a, loss_b])` where the method (read in its file) runs
        `.backward()` on what it is handed: a backward of the caller's graph at the
        call, so a step before it makes that graph stale and a retain before it is needed."""
        backed = foreign_backwards.backwarded_params(self.analysis, base, meth, found)
        if backed is None or self.no_grad:
            return
        summary, path = found
        names = _bind(call, backed[2])
        if names is None:
            return
        target = Val()
        for param in backed[0]:
            if param in names:
                target = target.join(vals[names[param]])
        if target.graph:
            if stmt is None:
                stmt = self.cur_stmt.suite if isinstance(self.cur_stmt, _SuiteLine) else self.cur_stmt
            self.helper_backward(call, stmt, target, backed[1], f"{base}.{meth}")
            import os

            self.analysis.table("foreign_backwards")[call] = (
                f"`{base}.{meth}()` runs `.backward()` on what it is handed (read from {os.path.basename(path)})")

    def _called_meter(self, func):
        """`history(out)` of an object whose class (not a module) defines a
        `__call__` that adds its argument into `self` state: (object, method,
        meter) for `_meter_add`, or None."""
        key = dotted(func)
        if not key or self.names.is_module(key) or key in self.names.modules:
            return None
        key = self.passed.get(key, key)  # the caller's object, in a helper walked at its call
        known = self.analysis.object_method(key, "__call__")
        if known is None or not known[0].accum or known[0].events:
            return None
        return key, "__call__", known

    def _meter_add(self, call, stmt, base, meth, meter, note=None, strong=None) -> Val:
        """`meter.update(loss)`: the method adds its argument into the
        object's state, so the object is a container of what it is given.
        With `note` (what was inferred about the meter), only an argument
        that `strong` accepts counts."""
        summary, where, cls = meter
        vals = [(call_arg, self.expr(call_arg.value)) for call_arg in call.args]
        pos = [(call_arg, value) for call_arg, value in vals if call_arg.keyword is None and not call_arg.star]
        named = {call_arg.keyword.value: (call_arg, value) for call_arg, value in vals if call_arg.keyword}
        by_place: dict = {}  # the accum position -> what this call hands it
        for index, name in enumerate(summary.arg_names):
            if index < len(pos):
                by_place[index] = [pos[index]]
            elif name in named:
                by_place[index] = [named[name]]
        by_place["*"] = pos[len(summary.arg_names):]
        by_place["**"] = [each for key, each in named.items() if key not in summary.arg_names]
        for index, line, whole in summary.accum:
            if self.no_grad:
                continue
            given = by_place.get(index) or ([pos[index]] if isinstance(index, int) and index < len(pos) else [])
            hit = [(arg, val) for arg, val in given if val.graph and (strong is None or strong(arg.value))]
            if not hit:
                continue
            arg, val = hit[0]
            old = self.lookup_key(base)
            node = self.new_node(base, stmt, arg.value, Val(heads=old.heads | val.heads, ghosts=val.ghosts,
                                                            uses=val.uses), kind="container")
            # `memory.add(Transition(s, a, mean))` into a replay memory whose `sample` hands entries
            # back: a value kept for later iterations, not a loss summed for the log (AD101's)
            node.loss = val.loss or _looks_like_loss(dotted(arg.value) or "") or \
                not _replay_class(self.names, cls, meth)
            node.meter = (f"{cls}.{meth}", where, line, whole, dict(summary.guessed).get(line), note)
            self.env[base] = Val(heads=frozenset({node}), loss=node.loss)
            self.meter_keys.add(base)
            break
        return Val()

    def _quiet_method(self, out: Val, base, meth: str) -> Val:
        """`out` is what `base.meth(...)` would hand back; a project class's
        method that returns no graph (`@torch.no_grad()`, `.item()`) cuts it,
        whole or per returned element."""
        if not out.graph:
            return out
        from .quiet_methods import method_results

        known = method_results(self.analysis, base, meth)
        if known == "cut":
            return Val(ghosts=out.heads | out.ghosts)
        if known:
            out.elems = [Val(ghosts=out.heads | out.ghosts) if k == "cut" else
                         Val(heads=out.heads, ghosts=out.ghosts, modules=out.modules, uses=out.uses,
                             nontrivial=True, unknown=out.unknown) for k in known]
        return out

    def plain_self_method(self, func, base):
        """`self.m(...)` of this class with no backward or step of its own,
        not being inlined already, outside no_grad: the methods that
        analysis.model_containers and analysis.phases may walk at the call."""
        if base != "self" or self.no_grad:
            return None
        own = self._own_method(func)
        if own is None or own.name.value in self.inlining or self.analysis.function_summary(own).has_events:
            return None
        return own

    def _own_method(self, func):
        """The FunctionDef of `obj.m(...)` / `self.m(...)` when this file defines it
        (for `self`, the walked class, else the only class with such a method)."""
        if type(func) is not cst.Attribute:
            return None
        base, meth = dotted(func.value), func.attr.value
        method = self.names.method(base, meth)
        if method is None and base == "self":
            if self.self_class:
                return self.names.class_method(self.self_class, meth)
            found = [candidate for (_, name), candidate in self.names.methods.items() if name == meth]
            method = found[0] if len(found) == 1 else None
        return method

    def _through(self, args: Val, summary, name: str, known: bool = True) -> Val:
        """A project-local function that returns its arguments' graph; with
        `known` False, a tuple of which only the elements the summary marks
        `graph` are known to (the whole and the other elements stay uncertain)."""
        args.nontrivial = True
        loss = _looks_like_loss(name)
        if known:
            args.loss = loss
        else:
            args.uncertain = True
        if summary.arity:
            # an element the callee returns cut (`ckpt["step"]` of a torch.load) carries none of it
            kinds = summary.elems or ()
            args.elems = [Val(ghosts=args.heads | args.ghosts) if i < len(kinds) and kinds[i] in ("cut", "const")
                          else Val(heads=args.heads, ghosts=args.ghosts, modules=args.modules, uses=args.uses,
                                   nontrivial=True, unknown=args.unknown, loss=loss,
                                   uncertain=not known and (i >= len(kinds) or kinds[i] != "graph"))
                          for i in range(summary.arity)]
        return args

    def _external(self, func, qualified, key) -> bool:
        """A function whose body we cannot see (imported from elsewhere, a
        parameter, a callback): it might cut the graph."""
        if qualified is not None:
            return qualified.split(".")[0] not in ("torch", "math", "numpy", "builtins")
        if type(func) is cst.Name:
            return func.value not in _BUILTINS and key not in self.names.functions
        return False

    def _capital_part(self, key: str) -> bool:
        """`base.G` with `base` a module of this project (`self.model`): a capitalised
        attribute of a module is a submodule (`G`, `D`, `E`), not a class."""
        base, _, attr = key.rpartition(".")
        return bool(base) and attr[:1].isupper() and self.names.is_module(base) and \
            self.names.has_params(base) and base.split(".")[0] not in self.imports.aliases

    def _module_call(self, call: cst.Call, key: str, parts=None) -> Val:
        args = Val()
        each = []
        for arg in call.args:
            each.append(self.expr(arg.value))
            args = args.join(each[-1])
        self.arg_vals[id(call)] = dict(enumerate(each))  # per argument (_foreign_cut)
        if self.no_grad:
            for attr, _, _ in module_states(self.analysis, key):
                self.env[f"{key}.{attr}"] = Val()  # stored without a graph
            return Val(ghosts=args.heads | args.ghosts)
        mods = frozenset({key}) if self.names.has_params(key) else frozenset()
        if parts is not None and mods:
            mods = frozenset(p for p in parts if self.names.has_params(p))
        value = Val(heads=args.heads, ghosts=args.ghosts, modules=args.modules | mods, uses=args.uses, nontrivial=True,
                    unknown=args.unknown)
        value.loss = not self.names.has_params(key) and _looks_like_loss(key)
        if args.unknown and not value.heads and not mods:
            value.unknown = True
        if key in self.names.wrapped:
            # DataParallel(trainer) of a class we cannot see: which of its
            # results share a graph is unknown (no freed-graph conflicts)
            value.uncertain = True
        if dotted(call.func) not in (key, key + ".forward"):
            return value  # model.encode(x): not the forward that keeps the state
        value = self._module_state(key, value)
        if forward_extras.returns_no_graph(self.analysis, key):
            value = Val(ghosts=value.heads | value.ghosts)  # a policy whose forward returns `.numpy()`
        self.forward_runs[key] = value
        summary = self.analysis.forward_elems(key)
        if summary is not None and not any(arg.star for arg in call.args):
            value.elems = self._forward_elems(call, summary, each, value, mods)
        elif summary is None:
            cuts = forward_extras.cut_positions(self.analysis, key)  # `self.net(x)`: its count, its indices
            if cuts is not None:
                value.elems = [Val(ghosts=value.heads | value.ghosts) if cut else dataclasses.replace(value)
                               for cut in cuts]
            else:
                value = self._handed_back(call, self.analysis.forward_handed_back(key), value)
        return value

    def _handed_back(self, call: cst.Call, found, value: Val) -> Val:
        """`loss, queue, use_queue = self.criterion(..., use_queue=self.use_the_queue)` whose forward
        (read from its code: `found`, Summary.handed_back) returns `use_queue` as it came: that
        element is the caller's own value, with only what the caller passed (not the graph of the
        rest of the result)."""
        each = self.arg_vals.get(id(call))
        if not found or not value.graph or each is None or \
                value.elems is not None and len(value.elems) != len(found[1]):
            return value
        names = _bind(call, found[0])
        if not names or any(name not in found[0] or index not in each for name, index in names.items()):
            return value
        if any(self.names.is_module(dotted(call.args[names[name]].value) or "") for name in found[1] if name in names):
            return value  # a module handed back: its argument's value stands for no run of it
        elems = value.elems or [dataclasses.replace(value) for _ in found[1]]
        value.elems = [dataclasses.replace(each[names[name]]) if name in names else elem
                       for name, elem in zip(found[1], elems)]
        return value

    def _object_forward(self, call: cst.Call, summary) -> Val:
        """`g_loss, d_loss = loss_fn(G, D, real, x)`, `loss_fn` an object of a module class
        whose forward (read from its summary) returns a tuple: what each element hangs from."""
        each = []
        for arg in call.args:
            arg_key = dotted(arg.value)
            if arg_key is not None and self.names.is_module(arg_key):
                mods = frozenset({arg_key}) if self.names.has_params(arg_key) else frozenset()
                each.append(Val(modules=mods, nontrivial=bool(mods)))
            else:
                each.append(self.expr(arg.value))
        whole = Val()
        for val in each:
            whole = whole.join(val)
        whole.nontrivial = whole.graph
        whole.uncertain = whole.graph  # a class read from its summary, as for any call we cannot walk
        whole.loss = whole.graph and _looks_like_loss(dotted(call.func) or "")
        if whole.graph:
            whole.elems = self._forward_elems(call, summary, each, whole, frozenset())
        return whole

    def _forward_elems(self, call: cst.Call, summary, each: list, whole: Val, mods) -> Optional[list]:
        """Per element of `loss_fn(G, D, real, x)`'s tuple: a node per argument for
        what the forward runs on it (shared by the elements built from it, so
        `g_loss` and `d_loss` through one `G(z)` share a graph), the object's
        own run, and only the arguments the forward builds that element from
        (summaries.elem_flow)."""
        names = _bind(call, summary.params)
        if names is None or len(names) != len(call.args) or any(name not in summary.params for name in names):
            return None
        bound = {summary.params.index(name): each[index] for name, index in names.items()}
        stmt = self.cur_stmt
        stmt = stmt.suite if isinstance(stmt, _SuiteLine) else stmt
        state = whole.heads - frozenset(head for val in each for head in val.heads)  # the module's own state
        own = frozenset()
        if mods or state:
            run = Val(heads=state, modules=mods, nontrivial=True, uncertain=whole.uncertain)
            own = frozenset({self.new_node(None, stmt, call, run, kind="module" if mods else "op")})
        runs: dict = {}
        out = []
        # what the forward's code says each element is: a count, an index, a list of numbers hold no graph
        kinds = summary.elems if len(summary.elems) == len(summary.elem_flow) else ()
        for position, flow in enumerate(summary.elem_flow):
            if kinds and kinds[position] in ("cut", "const"):
                out.append(Val(ghosts=whole.heads | whole.ghosts))
                continue
            heads = set(own)
            for index, val in bound.items():
                if not val.graph or index < len(flow) and flow[index] in ("cut", "const"):
                    continue
                if index not in runs:
                    part = Val(heads=val.heads, ghosts=val.ghosts, modules=val.modules, uses=val.uses,
                               nontrivial=True, uncertain=whole.uncertain)
                    runs[index] = self.new_node(None, stmt, call, part, kind="module" if val.modules else "op")
                heads.add(runs[index])
            elem = Val(heads=frozenset(heads), ghosts=whole.heads | whole.ghosts, nontrivial=True,
                       uncertain=whole.uncertain, loss=whole.loss)
            out.append(elem)
        return out

    def _module_state(self, key: str, value: Val) -> Val:
        """`model(x)` whose class keeps recurrent state on itself (read from
        another file): the call reads the state the last call stored and
        stores new state hanging from this call's graph."""
        stmt = self.cur_stmt
        stmt = stmt.suite if isinstance(stmt, _SuiteLine) else stmt
        for attr, path, _ in module_states(self.analysis, key):
            state_key = f"{key}.{attr}"
            old = self.env.get(state_key, Val())
            held = Val(heads=old.heads | value.heads, ghosts=old.ghosts, modules=value.modules, nontrivial=True)
            node = self.new_node(state_key, stmt, None, held, kind="state")
            node.module_state = (key, attr, path)
            node.loss = False
            self.env[state_key] = Val(heads=frozenset({node}))
            self.bound.add(state_key)
            value = Val(heads=value.heads | {node}, ghosts=value.ghosts, modules=value.modules, uses=value.uses,
                        nontrivial=True, unknown=value.unknown, loss=value.loss)
        return value

    def inline(self, func: cst.FunctionDef, call: cst.Call, stmt, bound_self=False) -> Val:
        """Walk a same-file function (or a method of a local class) at its
        call site, one level deep. A method's `self.X` state lives on."""
        saved_env, saved_handed, saved_views = dict(self.env), self.handed, dict(self.views)
        self._prove_inside(func)
        # a @staticmethod called through `self` binds no `self`: its first parameter is the first argument
        bound_self = bound_self and not is_static(func)
        params = [param.name.value for param in func.params.params][1 if bound_self else 0:]
        pos = [arg for arg in call.args if arg.keyword is None]
        given = {param: pos[index].value for index, param in enumerate(params) if index < len(pos)}
        given.update((arg.keyword.value, arg.value) for arg in call.args if arg.keyword is not None)
        self.handed = dict(self.handed)
        saved_passed, self.passed = self.passed, dict(self.passed)
        saved_writes, self.passed_writes = self.passed_writes, set()
        rebound = _rebound_names(func)
        given_keys = {}
        for param, value in given.items():
            self.env[param] = self.expr(value)
            passed = dotted(value) if type(value) in (cst.Name, cst.Attribute) else None
            if passed is not None and param not in rebound:
                self.passed[param] = given_keys[param] = self.passed.get(passed, passed)
            else:
                self.passed.pop(param, None)
            # `take_step(self.critic_opt, loss)`: the callee's `optimizer.step()` steps the caller's
            opt = self.handed.get(dotted(value), dotted(value))
            if opt in self.names.optimizers:
                self.handed[param] = opt
            else:
                self.handed.pop(param, None)
            self._hand_module(param, value)
        self.inlining.add(func.name.value)
        saved_returns, saved_grad, saved_consts, saved_flags = self.returns, self.no_grad, self.consts, self.flags
        saved_plain, self.plain_keys = self.plain_keys, set()  # the callee's annotations are its own
        self.returns = []
        self.consts = _literal_params(func, params, given)
        self.flags = (call, handed_flags(func, call))
        first, events = len(self.nodes), len(self.events)
        saved_state, self.returned_state = self.returned_state, {}
        try:
            self.grad_from(func).block(self._block_of(func.body))
            for key, value in self.returned_state.items():
                self.env[key] = self.env[key].join(value) if key in self.env else value
        finally:
            self.returned_state = saved_state
            self.inlining.discard(func.name.value)
            self.plain_keys = saved_plain
            self.consts = saved_consts
            self.flags = saved_flags
            self.no_grad = saved_grad
            self.handed = saved_handed
            self.passed = saved_passed
            self.views = saved_views
        out = Val()
        for ret in self.returns:
            out = out.join(ret)
        if len(self.returns) == 1:
            out = self.returns[0]
        elif self.returns:
            out.elems = _joined_elems(self.returns)  # `return None, {}, t` and `return out, d, t`
        self.inner_returns.append((func, [head for ret in self.returns for head in ret.heads]))
        _mark_beside(func, self.returns, self.events[events:])
        self.returns = saved_returns
        # Locals of the callee vanish; stores to attributes and globals stay.
        local = set(params) | self._locals_of(func)
        # `train_step(..., losses)` whose parameter is also `losses`: the caller's meter keeps the store
        kept = {key for param, key in given_keys.items() if key == param and key in self.meter_keys}
        kept |= self.passed_writes  # the caller's tensors the callee wrote into by index
        self.passed_writes = saved_writes | self.passed_writes
        # `self.stats["train"] = {}` names `self.stats` among the assigned: state on `self` outlives the call
        self.callee_locals.update(id(node) for node in self.nodes[first:]
                                  if node.name in local and "." not in node.name and node.name not in kept)
        for key in list(self.env):
            if key in local and "." not in key and key not in kept:
                if key in saved_env:
                    self.env[key] = saved_env[key]
                else:
                    del self.env[key]
        return out

    def _known_test(self, test):
        """True or False when the test reads only a parameter given a literal bool."""
        if not self.consts:
            return None
        flip = False
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, flip = test.expression, not flip
        if isinstance(test, cst.Name) and test.value in self.consts:
            return bool(self.consts[test.value]) != flip
        if isinstance(test, cst.BooleanOperation):
            # `optimizer_idx == 0 or optimizer_idx == 1`: known when both sides are; `it > 0 and train`
            # with `train=True`: the side on the loop's index has one answer on each walk (first_iteration)
            left, right = self._known_test(test.left), self._known_test(test.right)
            if (left is None) != (right is None):
                left = first_iteration.arm(self, test.left) if left is None else left
                right = first_iteration.arm(self, test.right) if right is None else right
            if left is None or right is None:
                return None
            both = left or right if isinstance(test.operator, cst.Or) else left and right
            return both != flip
        if isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and len(test.comparisons) == 1 \
                and test.left.value in self.consts and isinstance(test.comparisons[0].comparator, cst.Integer) \
                and isinstance(test.comparisons[0].operator, (cst.Equal, cst.NotEqual)):
            # `if optimizer_idx == 0:` in a method inlined with `optimizer_idx=0` (analysis.optimizer_phases)
            same = self.consts[test.left.value] == int(test.comparisons[0].comparator.value)
            return (same if isinstance(test.comparisons[0].operator, cst.Equal) else not same) != flip
        return None

    def _prove_inside(self, func) -> None:
        """The bindings a backward proves in an inlined function's loops count here too."""
        memo = self.analysis.table("_proven_in")
        if func not in memo:
            memo[func] = proven_bindings(func.body)
        mine = self.proven
        for ours, theirs in zip(mine, memo[func]):
            ours |= theirs

    def _own_backward_hook(self, func, call=None):
        """`self.backward(loss)` where this class (or a base in this file) defines
        `backward(self, loss)` taking no retain_graph: the method decides what its
        backward keeps, so it is walked, not taken for one. Lightning's
        `self.manual_backward(loss)` runs that hook too. *args and **kwargs in the
        hook only when the call passes the loss alone (they are empty then)."""
        if func.attr.value not in ("backward", "manual_backward"):
            return None
        base = dotted(func.value)
        if base != "self":
            # `model.backward(gen_loss, dis_loss)` of an object of a class of this file that defines
            # `backward`: that method runs, not a tensor's backward (the object is no tensor)
            own = self.names.method(base, "backward") if base and func.attr.value == "backward" else None
            if own is None and base in self.params and func.attr.value == "backward":
                cls = self._param_class(base)
                own = self.names.class_method(cls, "backward") if cls else None
            if own is None or own.name.value in self.inlining or len(own.params.params) < 2:
                return None
            # a training phase (it steps an optimizer: `self.dis_optimizer.step()`), not a gradient
            # hook of a multi-task mixin that a walk of its own class reads better
            if not any(isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "step"
                       and dotted(n.func.value) in self.names.optimizers
                       for n in nodes(own.body, skip=(cst.FunctionDef, cst.ClassDef))):
                return None
            return own
        cls = self.self_class or self.method_class or self.analysis.class_of_stmt(self.cur_stmt)
        own = self.names.class_method(cls, "backward") if cls else None
        if own is None or own.name.value in self.inlining or \
                any(p.name.value in ("retain_graph", "retain_variables") for p in own.params.params):
            return None
        star = own.params.star_arg != cst.MaybeSentinel.DEFAULT or own.params.star_kwarg is not None
        alone = call is not None and len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star
        if star and not alone:
            return None
        return own

    def _locals_of(self, func) -> set:
        """The names `fn` assigns and does not declare outer: two walks of
        its body, so once per function and file, not once per inlined call."""
        memo = self.analysis.table("_locals_memo")
        out = memo.get(func)
        if out is None:
            out = memo[func] = _assigned_names(func) - _declared_outer(func)
        return out

    # ---------------------------------------------------------------- events
    def event(self, kind, call, stmt, **fields) -> Event:
        event = Event(kind=kind, stmt=stmt, call=call, tag=self.tag(), branch=self.branch,
                      seq=self.next_seq(), loops=tuple(loop for loop, _ in self.loop_stack), **fields)
        self.events.append(event)
        return event

    def backward_site(self, call: cst.Call, stmt, qualified=None) -> Val:
        """`loss.backward()`, `torch.autograd.grad(...)`: an event that frees
        what it reaches unless retained, after checking it against what is freed."""
        func = call.func
        pos = [arg for arg in call.args if arg.keyword is None and not arg.star]
        kwargs = {arg.keyword.value: arg for arg in call.args if arg.keyword is not None}
        if qualified in ("torch.autograd.backward", "torch.autograd.grad"):
            if not pos and "outputs" not in kwargs and "tensors" not in kwargs:
                return Val()
            target_expr = pos[0].value if pos else (kwargs.get("outputs") or kwargs.get("tensors")).value
            kind = "grad" if qualified.endswith("grad") else "backward"
            retain_pos = 3 if kind == "grad" else 2
            inputs_val = self.expr(pos[1].value) if kind == "grad" and len(pos) > 1 else Val()
        else:
            base_val = self.expr(func.value)
            if base_val.graph or not pos or type(func.value) is cst.Subscript:
                target_expr = func.value  # `self.rep[task].backward(grad)`: an element is a tensor
            else:
                target_expr = pos[0].value  # accelerator.backward(loss)
            kind = "backward"
            retain_pos = 2 if target_expr is func.value else 99
            inputs_val = Val()
        target = self.expr(target_expr)
        for name, arg in kwargs.items():
            if name not in ("retain_graph", "retain_variables", "create_graph"):
                self.expr(arg.value)
        retain, retain_arg, create = _retain_of(pos, kwargs, retain_pos)
        if retain is None and retain_arg is not None and isinstance(retain_arg.value, cst.Name) and \
                isinstance(self.consts.get(retain_arg.value.value), bool) and not create:
            # `loss.backward(retain_graph=retain_graph)` in a method inlined with `retain_graph=False`
            retain = self.consts[retain_arg.value.value]
        at, flag_of = call, None
        if retain is True and retain_arg is not None and type(retain_arg.value) is cst.Name and \
                retain_arg.value.value in self.flags[1]:
            # the caller's `retain_graph=True` decides: judged (and dropped) at its call
            at, flag_of, retain_arg = self.flags[0], dotted(self.flags[0].func), self.flags[1][retain_arg.value.value]
        event = self.event(kind, at, stmt, target=target, target_expr=target_expr, retain=retain,
                           retain_arg=retain_arg, create_graph=create, flag_of=flag_of)
        reach = closure(target.heads)
        captured: set = set()
        if "inputs" in kwargs and kind == "backward":
            # `backward(inputs=[h])` runs `h`'s own node to fill `h.grad`: nothing is captured
            reach = self._toward_inputs(reach, kwargs["inputs"].value, target.modules)
        elif kind == "grad" and (len(pos) > 1 or "inputs" in kwargs):
            # `autograd.grad(D(interp).sum(), interp)` runs only the graph built on its inputs
            reach = self._toward_inputs(reach, pos[1].value if len(pos) > 1 else kwargs["inputs"].value,
                                        target.modules, captured)
        event.reach = frozenset(reach)
        event.captured = frozenset(captured)
        event.inputs = getattr(self, "input_nodes", frozenset()) if captured else frozenset()
        self.input_nodes = frozenset()
        if self.no_grad:
            return Val()
        self.check_conflict(event, target)
        if retain is False:
            for node in reach:
                if not node.leaf:
                    self.freed[node] = event
                    self.freed_any.add(node)
                    self.retained.pop(node, None)
        elif retain is True and kind == "backward" and not create:
            for node in reach:
                if not node.leaf:
                    self.retained.setdefault(node, event)
        if kind == "grad" and create:
            return Val(heads=target.heads | inputs_val.heads, nontrivial=True)
        if create and target.heads:
            held = self.env.get(GRADS)
            self.env[GRADS] = Val(heads=(held.heads if held is not None else frozenset()) | target.heads)
        return Val(ghosts=target.heads)

    def _step_output(self, value, stmt) -> Val:
        """What a framework's step method returns, entry by entry when it is a
        dict (analysis.lightning_outputs: what the framework keeps of it)."""
        from .lightning_outputs import entries

        found = entries(self, value)
        if not found:
            return self.expr(value)
        out = Val()
        for key, expr in found:
            val = self.dict_vals.get(id(expr)) if isinstance(value, cst.Name) else None
            val = self.expr(expr) if val is None else val  # `out = {...}; return out`: the Val it was built with
            self.step_outputs.append((stmt, key, expr, val, bool(self.no_grad)))
            out = out.join(val)
        out.mapping = True
        return out

    def framework_backward(self, value, stmt) -> None:
        """`return loss` (or `{"loss": loss, ...}`) from a LightningModule's
        `training_step`: the framework backwards it once the method returns."""
        from .lightning import returned_loss

        target_expr = returned_loss(value)
        if target_expr is None:
            return
        target = self.expr(target_expr)
        if not target.graph:
            return
        event = self.event("backward", target_expr, stmt, target=target, target_expr=target_expr,
                           framework=self.framework or self.phase_backward)
        event.reach = frozenset(closure(target.heads))
        if self.no_grad:
            return
        self.check_conflict(event, target)
        for node in event.reach:
            if not node.leaf:
                self.freed[node] = event
                self.freed_any.add(node)
                self.retained.pop(node, None)

    def _toward_inputs(self, reach, inputs, direct=frozenset(), captured=None) -> set:
        """`loss.backward(inputs=list(D.parameters()))` runs only the part of the
        graph between the loss and those inputs: the nodes of the named modules
        (or tensors) and those built on them. The whole graph when the inputs
        cannot be told (a name we do not follow)."""
        mods, tensors, unknown = set(), set(), [False]

        def enter(node):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                    node.func.attr.value in ("parameters", "named_parameters"):
                key = dotted(node.func.value)
                if key is not None and self.names.is_module(key):
                    mods.add(key)
                else:
                    unknown[0] = True
                return False
            if isinstance(node, (cst.Name, cst.Attribute)):
                key = dotted(node)
                if key in ("list", "tuple"):
                    return False
                if key is not None and self.names.is_module(key):
                    mods.add(key)
                elif key is not None and self.lookup_key(key).heads:
                    heads = self.lookup_key(key).heads
                    tensors.update(heads)
                    # a parameter read by name (`p = net.weight`): what its module runs is built on it
                    mods.update(m for node in closure(heads) if node.leaf for m in node.modules)
                elif key is not None and "." in key and self.names.is_module(key.rpartition(".")[0]):
                    mods.add(key.rpartition(".")[0])  # `net_g.weight`: the graph of `net_g`'s runs
                else:
                    unknown[0] = True
                return False
            return None

        walk(inputs, enter)
        if unknown[0] or not (mods or tensors):
            return reach
        # an input this graph does not show being used (a parameter read by the caller, which
        # built the graph handed in): where the pass stops cannot be told
        ran = set(direct) | {m for node in reach for m in node.modules}
        if any(node not in reach for node in tensors) or \
                any(not any(m == k or m.startswith(k + ".") for m in ran) for k in mods):
            return reach
        memo: dict = {}

        def runs(node) -> bool:
            if node not in memo:
                memo[node] = False  # a cycle adds nothing
                memo[node] = node in tensors or \
                    any(m == k or m.startswith(k + ".") for m in node.modules for k in mods) or \
                    any(runs(parent) for parent in node.parents if parent in reach)
            return memo[node]

        out = {node for node in reach if runs(node)}
        if captured is not None and tensors and not mods:
            behind = _behind_inputs(out, tensors)
            captured.update(behind)
            self.input_nodes = frozenset(n for n in tensors if n in behind)
        return out

    def step_helper(self, call: cst.Call, stmt, summary, name: str) -> Optional[Val]:
        """`update_params(self.q1_optim, q1_loss)` of another file (or a base class's
        `self.take_optimisation_step(opt, net, loss)`): a backward through the
        arguments it backwards, then a step of the optimizer handed to it."""
        names = _bind(call, summary.params, spread=True)
        spread = [arg.value for arg in call.args if arg.star == "**"]
        if names is None or spread and (summary.multi_steps or not all(
                param in names for param in summary.backward_params + summary.step_params)):
            # `helper(opt, **kw)`: followed only when what it backwards and steps is named
            # at the call (a keyword given twice is a TypeError, so `**kw` cannot hold them)
            return
        bound = {param: call.args[index].value for param, index in names.items()}
        if summary.multi_steps:
            from .multi_steps import expand

            if expand(self, call, stmt, summary, bound, name):
                return
            if not (summary.step_params and summary.backward_params):
                for value in bound.values():
                    self.expr(value)
                self.event("unknown_step", call, stmt, helper=name)
                return
        target = Val()
        for param in summary.backward_params:
            if param in bound:
                target = target.join(self.expr(bound[param]))
        for param, value in bound.items():
            if param not in summary.backward_params:
                self.expr(value)
        rest = Val()
        for value in spread:
            rest = rest.join(self.expr(value))
        self.training_loops.update(id(loop) for loop, _ in self.loop_stack)
        if target.graph:
            self.helper_backward(call, stmt, target, summary.backward_retain, name, summary.retain_flag)
        result, trains = self._stale_returns(call, stmt, summary, bound, rest)
        for param in summary.step_params:
            key = dotted(bound[param]) if param in bound else None
            opt = self.handed.get(key, key)
            if opt in self.names.optimizers:
                self.event("step", call, stmt, opt=opt, helper=name)
            elif opt and trains.get(param):
                # what it steps is read from the helper: the loss it backwards before the step runs them
                event = self.event("step", call, stmt, opt=opt, helper=name)
                self.analysis.table("helper_owns")[id(event)] = trains[param]
            else:
                self.event("unknown_step", call, stmt, helper=name)
        for attr in summary.self_steps:
            # a base class's method stepping `self.optimizer_E` (analysis.base_optimizers says what it owns)
            opt = "self." + attr
            event = self.event("step" if opt in self.names.optimizers else "unknown_step", call, stmt, opt=opt,
                               helper=name)
            self.analysis.table("own_step_events")[id(event)] = True  # its note (analysis.stale)
        return result

    def _stale_returns(self, call, stmt, summary, bound, rest) -> tuple:
        """A step helper's result built before its step (Summary.stale_returns): a node
        per such element, from the modules handed for its module parameter, hanging from
        the arguments' graph (`rest`: what a `**kw` holds), made before the step event.
        (the result or None, and the module keys each stepped optimizer parameter trains)."""
        if not summary.stale_returns or self.no_grad:
            return None, {}
        args = rest
        for value in bound.values():
            args = args.join(self.expr(value))
        nodes: dict = {}
        trains: dict = {}
        where = self.cur_stmt.suite if isinstance(self.cur_stmt, _SuiteLine) else self.cur_stmt
        for index, module, opt in summary.stale_returns:
            key = dotted(bound[module]) if module in bound else None
            if not key or opt not in bound:
                continue
            trains.setdefault(opt, set()).add(key)
            node = self.new_node(None, where, call, Val(heads=args.heads, modules=frozenset({key}), nontrivial=True),
                                 kind="op", trivial=False)
            node.loss = True
            nodes[index] = node
            self.analysis.table("helper_stale_nodes")[node] = (
                f"`{dotted(call.func)}` (read from its code, another file) returns a value it built from `{key}` "
                f"before it steps `{dotted(bound[opt])}` on a loss that runs `{key}`")
        if not nodes:
            return None, {}
        if -1 in nodes:
            return Val(heads=frozenset({nodes[-1]}), loss=True), trains
        return Val(heads=frozenset(nodes.values()), loss=True,
                   elems=[Val(heads=frozenset({nodes[i]}), loss=True) if i in nodes else Val()
                          for i in range(summary.arity)] if summary.arity else None), trains

    def helper_backward(self, call: cst.Call, stmt, args: Val, retain, name: str, flag: tuple = ()) -> None:
        """A project function that runs backward on what it is given
        (`GDPPLoss(phi_real, phi_fake, backward=True)`): a backward through
        the arguments' graph, at the call. Known from its summary only; a
        retain flag it takes (`optimize(loss, opt, retain_graph=True)`) is
        read at the call."""
        retain_arg = None
        if retain is None and flag:
            retain, retain_arg = flag_at_call(call, flag)
        event = self.event("backward", call, stmt, target=args, target_expr=call, retain=retain, helper=name,
                           retain_arg=retain_arg, flag_of=name if retain_arg is not None else None)
        event.reach = frozenset(closure(args.heads))
        if self.no_grad:
            return
        self.check_conflict(event, args)
        if retain is False:
            for node in event.reach:
                if not node.leaf:
                    self.freed[node] = event
                    self.freed_any.add(node)
                    self.retained.pop(node, None)

    def check_conflict(self, event: Event, target: Val) -> None:
        if event.kind == "backward" and self.retained:
            self._walk_conflicts(event, target, self.retained, self.silenced)
        if self.freed:
            self._walk_conflicts(event, target, self.freed, self.conflicts)

    def _walk_conflicts(self, event: Event, target: Val, freed: dict, out: list) -> None:
        # Walk from the root; stop at freed nodes that hold saved tensors.
        # Never through code we cannot see: a freed node counts when some
        # path to it is certain, whichever path the walk meets first.
        # only what the pass runs (`inputs=`: the graph built on them)
        reach = event.reach
        stack = [head for head in target.heads if not head.uncertain and head in reach]
        prev: dict = {head: None for head in stack}
        links = []
        while stack:
            node = stack.pop()
            if node in freed and not node.trivial and not node.leaf:
                links.append(node)
                continue
            for parent in node.parents:
                if parent not in prev and not parent.uncertain and parent in reach:
                    prev[parent] = node
                    stack.append(parent)
        if not links:
            return
        by_first: dict = {}
        for link in links:
            by_first.setdefault(freed[link], []).append(link)
        for first, group in by_first.items():
            path = []
            node = group[0]
            while node is not None:
                path.append(node)
                node = prev.get(node)
            path.reverse()
            out.append(Conflict(first, event, group, path))

    # ---------------------------------------------------------------- leaks
    def find_leaks(self, loop) -> None:
        """Keys whose value in iteration 2 still hangs from iteration 1's
        graph through an earlier value of the same key (it accumulates)."""
        loop_id = id(loop)
        for key, value in self.env.items():
            for head in value.heads:
                if not any(tag == (loop_id, 2) for tag in head.iteration):
                    continue
                older = [parent for parent in closure(head.parents) if parent.name == key and not parent.entry
                         and any(tag == (loop_id, 1) for tag in parent.iteration)
                         and id(parent) not in self.callee_locals]
                if older:
                    if self.consts and _switched_off_backward(self, loop, key):
                        self._switched_off.add((loop_id, key))
                    outer = tuple(enclosing for enclosing, _ in self.loop_stack)
                    self._leak_candidates.append((key, head, loop, older, outer))
                    self._leak_keys.setdefault(loop_id, set()).add(key)

    def _returned_around(self, loop, carried: set) -> Optional[str]:
        """The function walked at its call, with `loop` in its body, whose result hangs
        from what the loop's first iteration carried: its name, else None."""
        loops = self.analysis.table("loops_in_function")
        for func, heads in self.inner_returns:
            if id(func) not in loops:
                loops[id(func)] = {id(n) for n in nodes(func) if type(n) in (cst.For, cst.While)}
            if heads and id(loop) in loops[id(func)] and carried & closure(heads):
                return func.name.value
        return None

    def finish_leaks(self) -> None:
        # Decided at the end: a backward after the loop may consume it.
        returned = closure(root for ret in self.returns for root in ret.heads)
        targets = {root for event in self.events if event.kind == "backward" and event.target is not None
                   for root in event.target.heads}
        evaluates = self.eval_note is not None  # callers seen: no backward, no no_grad
        # the store whose value one simulated pass returns (the last epoch's list): a cut there cuts
        # what is returned whichever pass it is judged in
        returned_stores = {(key, id(head.stmt)) for key, head, *_ in self._leak_candidates
                           if head in returned and head.stmt is not None}
        for key, head, loop, older, outer in self._leak_candidates:
            if (head in returned or (key, id(head.stmt)) in returned_stores) and not evaluates and \
                    not closure([head]) & self.freed_any:
                cls = self.method_class or self.self_class
                if grows_on_self(self.analysis, cls, key):
                    # kept on `self` and never emptied: every call's graphs stay, whatever the caller does
                    head.returned = (f"`{key}` is returned to the caller, which is not followed (it may backward "
                                     f"it), but no method of `{cls}` but `__init__` binds or empties it")
                elif (stale := stale_step(self, loop, older)) is not None:
                    # a backward after the loop would fail: the caller keeps the graphs for the log only
                    head.returned = (f"`{key}` is returned to the caller, which is not followed; that it "
                                     f"backwards none of it: `{stale[0]}.step()` in the loop updates `{stale[1]}` "
                                     f"in place after each kept value is computed through it")
                else:
                    continue  # the caller may backward it; not when a backward here freed its graph
            # `autograd.grad(..., create_graph=True)` right in the loop builds the terms of one loss (a
            # gradient penalty summed over outputs): no step; a loop around it runs such steps
            if not any(loop in event.loops for event in self.events if event.kind == "backward" or
                       event.kind == "grad" and
                       not (event.create_graph and event.loops and event.loops[-1] is loop)) and \
                    id(loop) not in self.training_loops and not evaluates and \
                    not evaluation_loop(self, loop, key, head):
                continue  # not a training loop
            if _uncertain_below(head, trained_modules(self)):
                continue
            if _only_leaves(head):
                continue  # `data.append(torch.randn(n, requires_grad=True))`: leaves, no op's graph to keep
            if any(node.meter is not None and node.name != key for node in closure(head.parents)):
                continue  # read back out of a meter that keeps graphs: reported once, at the meter's update
            if containers.last_consumed(head, self.events):
                continue  # `losses[-1].backward()` frees what the list keeps
            reached = any((head in event.reach or any(old in event.reach for old in older)) and
                          not slot_read(event, key)  # `losses[i - 1].backward()`: the others stay kept
                          for event in self.events if event.kind in ("backward", "grad"))
            if reached and not any(event.retain is not False for event in self.events
                                   if event.kind in ("backward", "grad") and head in event.reach):
                continue  # consumed by a backward (gradient accumulation)
            if not reached and (id(loop), key) in self._switched_off:
                # `if should_train: all_losses.backward()` in a function walked at its call with
                # `should_train=False`: the sum is the meta-loss the other mode backwards, which a cut
                # would break, and this mode only keeps what the author's reset bounds
                continue
            feeds = None
            if not reached and not evaluates and not closure([head]) & self.freed_any and \
                    not grows_on_self(self.analysis, self.method_class or self.self_class, key):
                carried = _carried(loop, older)
                if carried & returned and not head.returned:
                    continue  # what the function returns hangs from the chain: an unrolled loop the caller may backward
                feeds = self._returned_around(loop, carried)
            if within_step(self, key, head, loop, older, outer):
                continue  # summed over one step's sub-iterations, reset each step, every graph freed
            if one_call(self, key, head, loop, older, outer):
                continue  # one per agent (or sub-step), started again at each call
            if not head.loss and (_looks_like_loss(key) or
                                  (head.kind == "accum" and targets & closure(head.parents)) or
                                  (head.kind == "container" and _computed_from(head, key, targets)) or
                                  _metric_total(head, id(loop) in self.eval_loops) or _beside_step(head, key) or
                                  (id(loop) in self.eval_loops and _rebound_loss_sum(head, key)) or
                                  logged_statistic(head, key, loop, _step_reach(self, loop), targets)):
                # named as one, a sum of values computed from what is backwarded, or a running
                # total of a metric (`train_ae += (out - y).abs().sum()`), kept for logging
                head.loss = True
            self.leaks.append(Leak(key, head, loop, reached, feeds))
            for store in _earlier_stores(key, head):
                # `m[PRED, s:e] = prob[:, 1]` then `m[LOSS, s:e] = loss_g`: the slot stored first
                # keeps its graph too, and a cut of the last store leaves it there
                if not _uncertain_below(store):
                    self.leaks.append(Leak(key, store, loop, reached, feeds))


def _mark_beside(func, returns: list, events: list) -> None:
    """A step function walked at its call (`loss.backward(); opt.step(); return loss.item(), metric`):
    what it returns that none of its backwards reached is returned beside the loss, for the log."""
    backwards = [event for event in events if event.kind == "backward" and event.target is not None]
    if not backwards or not any(event.kind == "step" for event in events):
        return
    reached = set().union(*(event.reach for event in backwards))
    for ret in returns:
        for head in ret.heads:
            if head not in reached and not head.loss:
                head.beside = func.name.value


def _step_reach(scope, loop) -> frozenset:
    """What the backwards run in `loop` (the training step) walk."""
    reach = frozenset()
    for event in scope.events:
        if event.kind == "backward" and loop in event.loops:
            reach |= event.reach
    return reach


def _beside_step(head, key: str) -> bool:
    """`total += metric` where every value added is (unpacked from) what a step function
    returned beside the loss it backwards (GNode.beside)."""
    if head.kind != "accum":
        return False
    added = [parent for parent in head.parents if parent.name != key]
    return bool(added) and all(value.beside or value.parents and all(p.beside for p in value.parents)
                               for value in added)


def _switched_off_backward(scope, loop, key: str) -> bool:
    """Does `loop` backward `key` itself (`key.backward()`, `torch.autograd.backward(key)`,
    `autograd.grad(key, ...)`) in an arm this walk left out, because a parameter of the inlined
    call was given a literal that turns it off (`if should_train:` with `should_train=False`)?"""
    ctx = scope.analysis.ctx
    for node in nodes(loop):
        if type(node) is not cst.Call:
            continue
        func = node.func
        if type(func) is cst.Attribute and func.attr.value == "backward" and dotted(func.value) == key:
            pass
        elif (dotted(func) or "").rpartition(".")[2] in ("backward", "grad") and node.args and \
                dotted(node.args[0].value) == key:
            pass
        else:
            continue
        arm = ctx.enclosing(node, cst.If)
        while arm is not None and ctx.encloses(loop, arm):
            known = scope._known_test(arm.test)
            if known is not None and known != ctx.encloses(arm.body, node):
                return True  # the arm holding the backward is the one this walk leaves out
            arm = ctx.enclosing(arm, cst.If)
    return False


def _carried(loop, older) -> set:
    """What the first iteration of `loop` computed that the kept values hang from (`h` of
    `hs.append(h)` with `cI, h = meta(x, hs[-1])`)."""
    first = (id(loop), 1)
    return {node for node in closure(older) if first in node.iteration}


def _computed_from(head, key: str, targets: set) -> bool:
    """`errors.append(target - q)` after `q.backward(g)`: every appended value is computed from
    a backwarded tensor, neither that tensor nor a dict holding it (`outputs.append(output)` keeps
    more than a loss)."""
    added = [value for parent in head.parents if parent.entry or parent.name != key
             for value in (parent.parents if parent.entry else [parent])]
    return bool(added) and all(value not in targets and not value.holder and targets & closure(value.parents)
                               for value in added)


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
    cst.DictComp: Scope._comprehension,
    cst.IfExp: Scope._if_exp,
    cst.NamedExpr: Scope._named,
    cst.StarredElement: Scope._starred,
    cst.Await: Scope._await,
}

# Scope.assign_target's handlers, by target type; anything else is a name
# or an attribute (Scope._assign_name).
_TARGETS = {
    cst.Tuple: Scope._assign_unpack, cst.List: Scope._assign_unpack,
    cst.StarredElement: Scope._assign_starred,
    cst.Subscript: Scope._assign_item,
}

# `.step()` without arguments on these is no optimizer step.
_NOT_AN_OPTIMIZER = re.compile(r"sched|warmup|lr|env|ema|swa|prof|bar|writer|meter|timer|counter", re.I)

# Scope.method_call's events, by method name; a handler that returns None
# leaves the call to the rest of method_call.
_EVENT_METHODS = {"step": Scope._step, "zero_grad": Scope._zero_grad, "load_state_dict": Scope._reload}


GRAD_OFF = ("torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad")
GRAD_ON = ("torch.enable_grad", "torch.autograd.enable_grad", "torch.autograd.grad_mode.enable_grad")


def _bind(call: cst.Call, params, spread=False) -> Optional[dict]:
    """Parameter name -> index in `call.args`: positional arguments by place
    (those past `params` are dropped), keywords by name. None with a `*`, and
    with a `**` unless `spread` (it moves no positional argument; what it binds
    is left out)."""
    if any(arg.star == "*" or arg.star and not spread for arg in call.args):
        return None
    out = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            continue
        if arg.keyword is not None:
            out[arg.keyword.value] = index
        elif index < len(params):
            out[params[index]] = index
    return out


TENSOR_ATTRS = frozenset({"item", "detach", "backward", "grad_fn", "requires_grad", "numpy"})


def _not_tensor_arm(expr: cst.IfExp, imports, code) -> Optional[str]:
    """The arm of `x.item() if hasattr(x, "item") else x` (or `isinstance(x, torch.Tensor)`,
    or a `not` of either) that runs only when `x` is no tensor and is `x` itself: "body",
    "orelse" or None. A loss that is `0` when a term is off is read back as a number there."""
    test, negated = expr.test, False
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, negated = test.expression, True
    if not isinstance(test, cst.Call) or len(test.args) != 2 or any(a.keyword or a.star for a in test.args) or \
            not isinstance(test.func, cst.Name) or imports.qualify(test.func) is not None:
        return None
    second = test.args[1].value
    if test.func.value == "hasattr":
        ok = isinstance(second, cst.SimpleString) and second.evaluated_value in TENSOR_ATTRS
    elif test.func.value == "isinstance":
        ok = imports.qualify(second) == "torch.Tensor"
    else:
        return None
    if not ok:
        return None
    arm = "body" if negated else "orelse"
    return arm if code(getattr(expr, arm)) == code(test.args[0].value) else None


_NORM_CLIPS = {"clip_grad_norm_", "clip_grad_norm", "get_total_norm"}


def _parameters_of(arg) -> Optional[frozenset]:
    """`G.parameters()` -> {"G"}; anything else: None (unknown parameters)."""
    if isinstance(arg, cst.Call) and isinstance(arg.func, cst.Attribute) and \
            arg.func.attr.value in ("parameters", "named_parameters"):
        base = dotted(arg.func.value)
        return frozenset({base}) if base else None
    return None


def _new_data(qualified, key) -> bool:
    """`torch.tensor(x)`, `np.array(x)`, `zeros_like(x)`, `float(x)`: new data,
    without the arguments' graph."""
    # `nn.Parameter(ema * decay + dw)` makes a new leaf from the data: no graph comes with it
    return qualified in ("torch.tensor", "torch.as_tensor", "numpy.array", "numpy.asarray", "torch.nn.Parameter",
                         "torch.nn.parameter.Parameter") or \
        qualified in LIKE_FACTORIES or qualified in CUT_FUNCTIONS or (qualified or "").startswith("numpy.") or \
        (key in CUT_BUILTINS and qualified is None)


def _whole(value: Val, nontrivial: bool) -> Val:
    """`value` as a call's whole result: its graph and flags, no elements."""
    return dataclasses.replace(value, nontrivial=nontrivial, elems=None, bare=False)


def _with_indices(call: cst.Call, func, qualified) -> bool:
    """`x.max(1)`, `torch.sort(x)`: a call that returns (values, indices)."""
    if type(func) is cst.Attribute and qualified is None:
        name, dims = func.attr.value, 1
    elif qualified and qualified.startswith("torch.") and qualified.count(".") == 1:
        name, dims = qualified[6:], 2
    else:
        return False
    if name in WITH_INDICES:
        return True
    return name in WITH_INDICES_DIM and (len(call.args) >= dims and call.args[dims - 1].keyword is None or
                                         any(arg.keyword is not None and arg.keyword.value == "dim"
                                             for arg in call.args))


def grad_mode(e, imports, helpers: bool = True) -> int:
    """1: `e` (a `with` item or a decorator) turns gradients off
    (`torch.no_grad()`, `torch.no_grad`, `torch.inference_mode()`,
    `torch.set_grad_enabled(False)`, a call of a module function that
    returns one: grad_helpers); -1: on (`torch.enable_grad()`,
    `torch.set_grad_enabled(True)`); 0: neither, or cannot tell."""
    call = e.func if isinstance(e, cst.Call) else e
    qualified = imports.qualify(call)
    first = e.args[0].value if isinstance(e, cst.Call) and e.args else None
    flag = _literal_bool(first) if first is not None else None
    if qualified == "torch.set_grad_enabled":
        return 0 if flag is None else (-1 if flag else 1)
    if qualified in GRAD_OFF:
        return 0 if flag is False else 1  # inference_mode(False) changes nothing
    if qualified in GRAD_ON:
        return -1
    if helpers and isinstance(e, cst.Call) and not e.args and isinstance(e.func, cst.Name) and \
            e.func.value not in imports.aliases and e.func.value in imports.no_grad_helpers():
        return 1
    return 0


def decorated_grad(fn, imports) -> int:
    """The grad mode a function's decorators set (`@torch.no_grad()`), as grad_mode."""
    for deco in fn.decorators:
        mode = grad_mode(deco.decorator, imports)
        if mode:
            return mode
    return 0


def _exits(arm, how=(cst.Continue, cst.Break, cst.Return, cst.Raise)) -> bool:
    if not arm:
        return False
    last = arm[-1]
    body = getattr(last, "body", None)
    if type(last) in (cst.SimpleStatementLine, _SuiteLine) and body:
        return type(body[-1]) in how
    return False


def _graphless(val: Val) -> bool:
    """A list's element known to carry no graph (`torch.FloatTensor(state)`), through no unseen code."""
    return not (val.graph or val.ghosts or val.unknown or val.uncertain or val.loss)


def _constant_index(target: cst.Subscript) -> bool:
    """`d["loss"]`, `buf[0]`: one fixed entry."""
    return len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index) and \
        isinstance(target.slice[0].slice.value, (cst.SimpleString, cst.Integer))


_REDUCTIONS = {"sum", "mean"}


def _rebound_loss_sum(head, key: str) -> bool:
    """`err_sum = err_sum + err` with `err` a loss (`F.mse_loss(...)`, a criterion's output): a
    running loss total written out, as `err_sum += err` is; the sum's own name does not decide.
    Asked of evaluation loops only (sibling_evals): in a training loop such a sum of what is not
    named a loss (`total_acc = total_acc + stats["acc"]`) stays AD101's."""
    if not rebound_sum(head, key):
        return False
    return any(parent.loss and parent.name != key for parent in head.parents)


def _metric_total(head, written_out: bool = False) -> bool:
    """`total += (out - y).abs().sum()`: a `+=` of a whole reduction (no dim: one number per step)
    of an error, a difference between what a network computed and something else: a running
    error kept for its value, like a loss total (`act += hidden.pow(2).mean()` is no error; it is a
    statistic of the step when the step's backward walks `hidden`: logged_stats.py)."""
    expr, stmt = head.expr, head.stmt
    if head.kind != "accum" and written_out and rebound_sum(head, head.name or ""):
        # `total = total + (out - y).abs().sum()` in an evaluation loop: the same total written out
        value = getattr(stmt, "body", (None,))[0].value
        expr = value.right if dotted(value.left) == head.name else value.left
    elif head.kind != "accum":
        return False
    else:
        small = getattr(stmt, "body", (None,))[0]
        if not isinstance(small, cst.AugAssign) or not isinstance(small.operator, cst.AddAssign):
            return False
    if not isinstance(expr, cst.Call) or not head.modules and \
            not any(parent.kind == "module" or parent.modules for parent in closure(head.parents)):
        return False
    func = expr.func
    name = dotted(func) or ""
    if name in {"torch." + r for r in _REDUCTIONS}:
        reduced_args = expr.args[1:]  # torch.sum(x): the first argument is what is reduced
    elif isinstance(func, cst.Attribute) and func.attr.value in _REDUCTIONS:
        reduced_args = expr.args  # x.sum()
    else:
        return False
    return not reduced_args and any(isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Subtract)
                                    for n in nodes(expr))


def _dict_view(expr) -> Optional[str]:
    """'keys' or 'items' for `d.keys()` / `d.items()`, else None."""
    if type(expr) is cst.Call and type(expr.func) is cst.Attribute and not expr.args and \
            expr.func.attr.value in ("keys", "items"):
        return expr.func.attr.value
    return None


def _zipped_args(it_expr) -> list:
    """ids of the arguments of `zip(...)`/`enumerate(...)` (nested too) that
    Flow._loop_elem reads again."""
    out = []
    if isinstance(it_expr, cst.Call) and isinstance(it_expr.func, cst.Name) and \
            it_expr.func.value in ("zip", "enumerate"):
        for arg in it_expr.args:
            out.append(id(arg.value))
            out += _zipped_args(arg.value)
    return out


def _zipped(parts: list) -> Val:
    """What one iteration of `zip(a, b)` binds: the join of its parts, element by element."""
    out = Val()
    for part in parts:
        out = out.join(part)
    out.elems = parts
    return out


def _behind_inputs(ran, inputs) -> set:
    """The nodes of `ran` a pass toward tensor `inputs` does not run: the inputs themselves and
    what lies behind them (a list's earlier stores), when no input is built on another (then its
    own node runs too). The pass stops at its inputs, so their saved tensors stay (`grads =
    grad(loss, q_params)`, then `q_params[i] = q_params[i] - lr * grads[i]` reads them again)."""
    for node in inputs:
        if node.kind == "container":
            continue
        todo, seen = [p for p in node.parents if p in ran], set()
        while todo:
            cur = todo.pop()
            if cur in seen:
                continue
            if cur in inputs and cur.kind != "container":
                return set()  # `grad(loss, [x, f(x)])`: the pass runs `f(x)` toward `x`
            seen.add(cur)
            todo.extend(p for p in cur.parents if p in ran)
    heads = [n for n in ran if not any(n in p.parents for p in ran)]  # the target's own nodes
    walked: set = set()
    todo = [h for h in heads if h not in inputs]
    while todo:
        cur = todo.pop()
        if cur in walked or cur in inputs:
            continue
        walked.add(cur)
        todo.extend(p for p in cur.parents if p in ran)
    return set(ran) - walked


def _joined_elems(returns: list) -> Optional[list]:
    """Element-wise join of tuple results of one width; None when any return
    is not such a tuple or the widths differ."""
    widths = {len(r.elems) if r.elems is not None else None for r in returns}
    if len(widths) != 1 or None in widths:
        return None
    out = [Val() for _ in returns[0].elems]
    for ret in returns:
        out = [acc.join(elem) for acc, elem in zip(out, ret.elems)]
    return out


def _replay_class(names, cls: str, meth: str) -> bool:
    """Is `cls` (a class of this file) a replay memory: besides the `meth` that stores,
    a `sample` method that hands back what the object keeps on `self`?"""
    sample = names.class_method(cls, "sample") if cls and meth != "sample" else None
    if sample is None:
        return False
    return any(type(n) is cst.Attribute and type(n.value) is cst.Name and n.value.value == "self"
               for n in nodes(sample))


def _earlier_stores(key: str, head) -> list:
    """The stores into slots of the container `key` (`m[i, s:e] = x`) that come before
    `head` in the same iteration and bring a non-loss value of their own with a graph: one
    leak each, since a cut at `head` leaves what they keep (a loss among them is
    summed with the rest; only its last store is reported, as before)."""
    if head.kind != "container" or type(head.stmt) is not cst.SimpleStatementLine or \
            not _slot_store(head.stmt):
        return []
    out, seen, stack = [], set(), list(head.parents)
    while stack:
        node = stack.pop()
        if node in seen or node.name != key:
            continue
        seen.add(node)
        stack.extend(node.parents)
        if node.kind != "container" or node.iteration != head.iteration or node.stmt is None or \
                node.stmt is head.stmt or node.loss or node.meter is not None or node.expr is None or \
                not _slot_store(node.stmt, lossless=True):
            continue
        if any(p.name != key and not p.leaf for p in node.parents):
            out.append(node)
    return sorted(out, key=lambda n: n.seq)


def _slot_store(stmt, lossless: bool = False) -> bool:
    """`m[ROW, s:e] = value`: one assignment into a slice of a tensor (under a parameter's
    name in a function walked at its call). Not a dict's entry (`log[name] = ...`, one
    key: a running total per name, AD102's); with `lossless`, not a value named as a loss."""
    if len(stmt.body) != 1 or type(stmt.body[0]) is not cst.Assign or len(stmt.body[0].targets) != 1:
        return False
    target = stmt.body[0].targets[0].target
    if type(target) is not cst.Subscript or dotted(target.value) is None:
        return False
    if len(target.slice) < 2 and not any(type(e.slice) is cst.Slice for e in target.slice):
        return False
    return not lossless or not any(type(n) is cst.Name and _looks_like_loss(n.value) for n in nodes(stmt.body[0].value))


def _only_leaves(head) -> bool:
    """Does the list `head` hold only leaves (requires_grad tensors, parameters)
    appended as they are? They have no graph behind them: keeping them frees
    nothing later, and a .detach() there would cut what the optimizer learns."""
    seen, stack, found = set(), list(head.parents), False
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node.leaf and node.kind == "leaf":
            found = True  # not a `self.X` read back (kind "stored"): that may hold a graph
        elif node.kind == "container" or node.entry:
            stack.extend(node.parents)
        else:
            return False
    return found and head.kind == "container"


INLINE_LEAF = "<leaf made inline at "


def _inline_leaf(qualified, call) -> bool:
    """`nn.Parameter(x)`, `torch.tensor(x, requires_grad=True)`: a new leaf that requires grad."""
    if qualified in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
        flag = call.args[1].value if len(call.args) > 1 else None  # `Parameter(x, requires_grad=False)`
        return flag is None or type(flag) is cst.Name and flag.value == "True"
    return (qualified or "").startswith("torch.") and any(
        a.keyword and a.keyword.value == "requires_grad" and type(a.value) is cst.Name and a.value.value == "True"
        for a in call.args)


def _uncertain_below(head, trained=frozenset()) -> bool:
    """Does `head` hang from code we cannot see? Not past a value that a
    backward proves to carry a graph (analysis.backwarded), and not when it
    holds such a value through seen code: a dict of losses from an unseen
    helper, its `loss["loss"]` backwarded, keeps that graph whatever the rest holds.
    Nor past the output of a call of a module in `trained` (one the scope's
    optimizers step and its backward walks): its parameters carry the graph,
    whatever its input came through (`dense(unseen_lstm(x))`)."""
    seen, stack, uncertain = set(), [head], False
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node.proven and node is not head:
            return False
        if node.modules & trained and not node.uncertain:
            return False  # the module's output: through an unseen call, its own parameters' graph
        if node.uncertain and not node.unsplit:
            uncertain = True
            if node is not head:
                continue  # what an unseen call returns may be cut: not followed
        if not node.proven:
            stack.extend(node.parents)
    return uncertain


def _smalls(stmt) -> tuple:
    """The small statements of a simple statement line; none for a compound
    statement (an `if` whose test holds the call: its body is a block)."""
    body = getattr(stmt, "body", ())
    return tuple(small for small in body if isinstance(small, cst.BaseSmallStatement)) \
        if isinstance(body, (list, tuple)) else ()


def _result_read(call, stmt) -> bool:
    """Is the call's result read (`y = x.add(m)`, `f(x.add(m))`)? `set.add` returns None,
    so only a statement of its own (`seen.add(k)`) is a container's add."""
    return not any(type(small) is cst.Expr and small.value is call
                   for small in _smalls(stmt))


def _result_bound(call, stmt) -> bool:
    """`z, ld = flow.backward(z)`: a call whose result is assigned is not
    autograd's backward (that returns None): an inverse pass of a flow model."""
    return any(type(small) in (cst.Assign, cst.AnnAssign, cst.AugAssign) and small.value is call
               for small in _smalls(stmt))


def _retain_of(pos, kwargs, retain_pos) -> tuple:
    """(retain, retain_arg, create_graph) of a backward call, from literals
    (retain None: not a literal); create_graph=True retains unless told."""
    retain: Optional[bool] = False
    retain_arg, create = None, False
    if "retain_graph" in kwargs or "retain_variables" in kwargs:
        retain_arg = kwargs.get("retain_graph") or kwargs.get("retain_variables")
        retain = _literal_bool(retain_arg.value)
    elif len(pos) >= retain_pos:
        retain_arg = pos[retain_pos - 1]
        retain = _literal_bool(retain_arg.value)
    if "create_graph" in kwargs:
        create_value = _literal_bool(kwargs["create_graph"].value)
        create = create_value is not False
        if retain_arg is None and create_value is not False:
            retain = True if create_value else None
    return retain, retain_arg, create


def _literal_bool(expr) -> Optional[bool]:
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return expr.value == "True"
    return None


def _rebound_names(func) -> set:
    """Names `func` binds anew (`meter = Meter()`, `for meter in ...`), not
    those it only stores into (`meter["k"] = v`)."""
    out = set()
    for node in nodes(func.body, skip=(cst.FunctionDef, cst.ClassDef)):
        targets = ()
        if type(node) is cst.AssignTarget or type(node) is cst.AugAssign:
            targets = (node.target,)
        elif type(node) is cst.AnnAssign or type(node) is cst.For or type(node) is cst.CompFor:
            targets = (node.target,)
        elif type(node) is cst.WithItem and node.asname is not None:
            targets = (node.asname.name,)
        for target in targets:
            out.update(target_names(target))
    return out


def _names_in(expr) -> set:
    out = set()

    def enter(node):
        if type(node) is cst.Name or type(node) is cst.Attribute:
            key = dotted(node)
            if key is not None:
                out.add(key)
                return False
        return None

    walk(expr, enter)
    return out


def _declared_outer(func) -> set:
    """Names a function declares `nonlocal` or `global`: its stores outlive it."""
    return {declared.name.value for node in nodes(func, skip=(cst.FunctionDef, cst.ClassDef))
            if type(node) is cst.Nonlocal or type(node) is cst.Global for declared in node.names}


def _assigned_names(func) -> set:
    out = set()
    for node in nodes(func, skip=(cst.FunctionDef, cst.ClassDef)):
        if type(node) is cst.AssignTarget:
            out.update(_names_in(node.target))
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
    while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
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


def _plain_check(test) -> Optional[tuple]:
    """(name, True) when the body of `if test:` sees `name` as no tensor
    (`isinstance(v, (int, float))`, `not torch.is_tensor(v)`), (name, False)
    when its other arms do (`isinstance(v, torch.Tensor)`); else None."""
    negate = False
    while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        negate, test = not negate, test.expression
    if type(test) is not cst.Call or not test.args or test.args[0].keyword is not None:
        return None
    key = dotted(test.args[0].value) if isinstance(test.args[0].value, (cst.Name, cst.Attribute)) else None
    func = dotted(test.func)
    if key is None:
        return None
    types = None
    if func == "isinstance" and len(test.args) == 2:
        kinds = test.args[1].value
        types = {dotted(e.value) for e in kinds.elements} if isinstance(kinds, cst.Tuple) else {dotted(kinds)}
    tensor = tensor_test(func, types)
    return None if tensor is None else (key, tensor == negate)


# Calls that hand back the models, optimizers and loaders they are given,
# wrapped for devices and precision (Accelerate, Lightning Fabric, apex,
# DeepSpeed): what they return holds no graph.
_HAND_BACK_METHODS = {"prepare", "prepare_model", "prepare_optimizer", "prepare_data_loader",
                      "prepare_scheduler", "setup_module", "setup_optimizers", "setup_dataloaders"}
_HAND_BACK_CALLS = {"apex.amp.initialize", "deepspeed.initialize"}
_LOADERS = {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}


def _hands_back(func, qualified, call=None) -> bool:
    if qualified in _HAND_BACK_CALLS:
        return True
    if qualified in _LOADERS and call is not None:
        # batches collated in worker processes, which cannot even receive a tensor
        # with a graph: none of what built the dataset (with no workers they may)
        return any(arg.keyword is not None and arg.keyword.value == "num_workers" and
                   type(arg.value) is cst.Integer and arg.value.evaluated_value > 0 for arg in call.args)
    if type(func) is not cst.Attribute:
        return False
    meth = func.attr.value
    if meth in _HAND_BACK_METHODS:
        return True
    base = dotted(func.value) or ""
    return meth == "setup" and base.split(".")[-1].lower().endswith("fabric")


_BOOLS = {"True": True, "False": False, "None": False}


def _kwarg_read(value, kwargs: str, name: str) -> bool:
    if isinstance(value, cst.Subscript) and dotted(value.value) == kwargs and len(value.slice) == 1 and \
            isinstance(value.slice[0].slice, cst.Index) and isinstance(value.slice[0].slice.value, cst.SimpleString):
        return value.slice[0].slice.value.evaluated_value == name
    if isinstance(value, cst.Call) and dotted(value.func) == f"{kwargs}.get" and value.args and \
            isinstance(value.args[0].value, cst.SimpleString):
        return value.args[0].value.evaluated_value == name
    return False


def _literal_params(func, params, given) -> dict:
    """Parameters of an inlined call bound to `True`, `False` or `None` (given, or
    the default when not given) that the function never rebinds."""
    out = {}
    defaults = {p.name.value: p.default for p in func.params.params + func.params.kwonly_params
                if p.default is not None}
    for name in params + [p.name.value for p in func.params.kwonly_params]:
        value = given.get(name, defaults.get(name) if name not in given else None)
        if isinstance(value, cst.Name) and value.value in _BOOLS:
            out[name] = _BOOLS[value.value]
        elif isinstance(value, cst.Integer) and name == "optimizer_idx":
            out[name] = int(value.value)  # Lightning's phase index (analysis.optimizer_phases)
    kwargs = func.params.star_kwarg.name.value if isinstance(func.params.star_kwarg, cst.Param) else None
    read = {}  # `optimizer_idx = kwargs["optimizer_idx"]`: the keyword given, read out of **kwargs
    if kwargs is not None and isinstance(given.get("optimizer_idx"), cst.Integer) and "optimizer_idx" not in params:
        read["optimizer_idx"] = int(given["optimizer_idx"].value)
        out.update(read)
    if out:
        reads = {id(a.targets[0]) for a in nodes(func.body) if read and type(a) is cst.Assign and len(a.targets) == 1
                 and type(a.targets[0].target) is cst.Name and a.targets[0].target.value in read
                 and _kwarg_read(a.value, kwargs, a.targets[0].target.value)}
        for node in nodes(func.body):
            if id(node) in reads:
                continue
            if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.WithItem,
                                 cst.NamedExpr)):
                target = getattr(node, "target", None) or getattr(node, "asname", None)
                for x in nodes(target) if target is not None else ():
                    if isinstance(x, cst.Name):
                        out.pop(x.value, None)
            elif isinstance(node, (cst.Global, cst.Nonlocal)):
                return {}
    return out


# Imported at the end, not in the methods that use them: a relative import
# costs microseconds each time it runs, and these run hundreds of times a
# pass. (stored_state imports this module.)
from .backwarded import proven_bindings  # noqa: E402
from .meter_containers import meter_method  # noqa: E402
from .method_cuts import cut_positions  # noqa: E402
from .method_parts import method_parts  # noqa: E402
from .number_attributes import number_attribute  # noqa: E402
from .module_state import module_states, state_resets  # noqa: E402
from .state_readers import reads_state  # noqa: E402
from .stored_state import object_call  # noqa: E402
from .unseen_meters import meter_guess, strong  # noqa: E402


_SEQUENCE_CALLS = {"enumerate", "reversed", "list", "iter", "zip", "tuple"}
# methods of a network that run no forward (`sum(p.numel() for p in model.parameters())`)
_NOT_FORWARD = {"parameters", "named_parameters", "children", "named_children", "modules", "named_modules",
                "buffers", "named_buffers", "state_dict", "load_state_dict", "to", "cuda", "cpu", "eval", "train",
                "zero_grad", "apply", "requires_grad_", "half", "float", "double", "type", "register_buffer",
                "register_forward_hook", "register_backward_hook", "register_full_backward_hook", "keys", "values",
                "items", "size", "dim", "numel", "item", "detach", "tolist", "numpy", "__len__"}


def _roots(expr, calls: bool = True) -> set:
    """The names an expression reads its object from: `model` for `model[0]`,
    `model.encoder`, `enumerate(model)`, `model.children()` (`calls`)."""
    while isinstance(expr, (cst.Subscript, cst.Attribute)):
        expr = expr.value
    if isinstance(expr, cst.Name):
        return {expr.value}
    if calls and isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Name) and expr.func.value in _SEQUENCE_CALLS:
            return {r for arg in expr.args for r in _roots(arg.value)}
        return _roots(expr.func, calls=True)
    return set()


def param_class(analysis, fname: str, param: str):
    """The class of this file whose object every call of function `fname` in
    this file hands for its parameter `param` (`def fit(model, n)` called
    `fit(net, 3)`, `net = Dehazer()`), or None (no call, or calls that differ)."""
    memo = analysis.table("_param_classes")
    key = (fname, param)
    if key not in memo:
        memo[key] = None
        names = analysis.names
        fns = [f for f in names.functions_all if f.name.value == fname]
        params = [p.name.value for p in fns[0].params.params] if len(fns) == 1 else []
        if param in params:
            found = set()
            for call in nodes(analysis.ctx.module):
                if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == fname:
                    value = bound_argument(call, params, param)
                    found.add(names.instances.get(dotted(value)) if value is not None else None)
            memo[key] = found.pop() if len(found) == 1 and None not in found else None
    return memo[key]


def _returns_from_networks(ctx, func) -> bool:
    """Can what `func` returns be built, name by name (not through a cut: `.data`, `.item()`,
    `.detach()`), from a parameter it calls as a network (`model(x)`, `model[0](x)`, `layer(x)`
    of `for layer in model`)?"""
    from .retained import _live_names, _name_feeds

    params = {p.name.value for p in func.params.params}
    feeds = _name_feeds(ctx, func)
    roots: dict = {p: p for p in params}  # a name -> the parameter it stands for a part of
    for node in nodes(func.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        pairs = [(node.target, node.iter)] if isinstance(node, cst.For) else \
            [(t.target, node.value) for t in node.targets] if isinstance(node, cst.Assign) and \
            not isinstance(node.value, cst.Call) else []
        for target, value in pairs:
            read = [x.value for x in nodes(value) if isinstance(x, cst.Name) and x.value in roots]
            if read:
                for x in nodes(target):
                    if isinstance(x, cst.Name):
                        roots.setdefault(x.value, roots[read[0]])
    nets = set()
    for node in nodes(func.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if isinstance(node, cst.Call):
            head = node.func.value if isinstance(node.func, cst.Subscript) else node.func
            if isinstance(head, cst.Name) and head.value in roots:
                nets.add(roots[head.value])
    if not nets:
        return True  # no network called by name here: not this function's question
    wanted = {name for name, root in roots.items() if root in nets}
    seen: set = set()
    todo = [n for r in nodes(func.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda))
            if isinstance(r, cst.Return) and r.value is not None for n in _live_names(r.value)]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in wanted:
            return True
        todo.extend(feeds.get(name, ()))
    return False
