"""Function summaries for project-local imports, from stdlib `ast`.

When `train.py` does `from losses import loss_fn` or `from utils import
repackage_hidden`, the analysis of train.py asks what the callee does with
its arguments. A summary needs no concrete syntax, so the imported file is
parsed with `ast` (much cheaper than libcst) and never enters the rule pass.

A summary says whether the function's result is cut from its arguments'
graph (`repackage_hidden`), carries it (`return F.mse_loss(out, y)`), or
cannot be told; how many values it returns; and whether it runs backward or
steps an optimizer (then the caller's analysis treats it as unseen code)."""
from __future__ import annotations

import ast
import collections
import functools
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Optional

from .handed_back import handed_back
from .handed_flags import ast_flag_param
from .stubs import abstract_stub
from .switches import switch_exits

CUT_METHODS = {"detach", "item", "tolist", "numpy", "detach_", "size", "dim", "numel", "argmax", "argmin",
               "argsort", "multinomial", "bernoulli", "long", "int", "bool", "eq", "ne", "gt", "lt", "ge", "le",
               "nonzero", "count_nonzero", "sign", "isnan", "isinf", "isfinite", "byte", "short", "char",
               "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"}  # x.new_full(...): a new tensor
CUT_FUNCS = {f"torch.{k}" for k in ("argmax", "argmin", "argsort", "nonzero", "count_nonzero", "eq", "ne", "gt",
                                    "lt", "ge", "le", "isnan", "isinf", "isfinite", "sign", "randint", "randperm")}
# (values, indices) pairs, as flow.py reads them: always, or when a dimension is given
WITH_INDICES = {"sort", "topk", "kthvalue", "mode", "cummax", "cummin"}
WITH_INDICES_DIM = {"max", "min", "median", "nanmedian"}
CUT_ATTRS = {"data", "grad", "shape", "dtype", "device"}
# (a checkpoint's tensors, read back by torch.load, are new: no graph)
CUT_CALLS = {"float", "int", "bool", "len", "str", "round", "range", "torch.load"}
# Calls that pass their arguments' graph through.
SAFE_PREFIXES = ("torch.", "F.", "nn.functional.", "functional.", "th.", "autograd.", "nn.parallel.")
LAYER_PREFIXES = ("nn.", "torch.nn.")
NUMPY = ("np.", "numpy.")
RANDOM_NUMBERS = {f"random.{f}" for f in ("random", "randrange", "randint", "uniform", "gauss")}
EVENTS = {"backward", "manual_backward", "step", "zero_grad"}
GRAD_OFF = {"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "no_grad", "inference_mode"}
GRAD_ON = {"torch.enable_grad", "torch.autograd.enable_grad", "enable_grad"}


@dataclass(frozen=True)
class Summary:
    result: str  # "cut" | "graph" | "unknown"
    arity: int = 0  # values in a returned tuple (0: not a tuple)
    events: bool = False  # runs backward / steps an optimizer inside
    stores_self: bool = False
    # A method that adds an argument into `self` state (`self.sum += val * n`,
    # `self.history.append(loss)`): (position after self, store line, whole) per such
    # argument; whole is False when only its elements are added (`self.sums[k] += losses[k]`).
    accum: tuple = ()  # the position is "*" / "**" for what `*args` / `**kwargs` take
    arg_names: tuple = ()  # with accum: the parameters after self, to place keyword arguments
    # `loss.backward()` on a value computed from the arguments (GDPPLoss(...,
    # backward=True)): a backward through the caller's graph; its retain_graph
    backward_args: bool = False
    backward_retain: Optional[bool] = False
    # with backward_retain None: (parameter, position) the caller's retain_graph comes in by
    # (`def optimize(loss, opt, retain_graph=False)`), read nowhere else (handed_flags.py)
    retain_flag: tuple = ()
    elems: tuple = ()  # kind per element of the returned tuples, when they agree in length
    state: tuple = ()  # forward: `self.X` fed back into a recurrent layer and stored again (state.py)
    self_calls: tuple = ()  # `self.m(...)` called in the method (a step that trains in a helper method)
    # Per parameter after `self`: does the result hang from it (graph | cut | const | unknown)?
    # Worked out for methods that cut something (`net(fake.detach())`), else all "graph"; None: *args.
    arg_flow: Optional[tuple] = None
    # `self.X` that a method other than `__init__` stores a graph in (`self.fake = self.netG(x)`).
    stores_graph: tuple = ()
    # No value it returns carries a graph: each is a number, an index, or computed
    # with gradients off (`@torch.no_grad()`, a return inside `with torch.no_grad():`).
    no_graph: bool = False
    grad_off: bool = False  # the whole body runs with gradients off (a decorator)
    # with accum: (store line, callee) where the value added comes through an imported
    # function out of sight (`hvd.allreduce(val)`), taken to keep the argument's graph
    guessed: tuple = ()
    # Per element of the returned tuples, as arg_flow per parameter (`return g_loss, d_loss`
    # where d_loss is built on `fake.detach()`); with `params`, the parameter names. () when unknown.
    elem_flow: tuple = ()
    params: tuple = ()
    # A step helper (`update_params(optim, loss)`, `take_optimisation_step(self, opt, net, loss)`):
    # the parameters it runs `.backward()` on (or on values computed from them), in order, and the
    # parameters it calls `.step()` on (`opt.step()`, `scaler.step(opt)`). Names, self left out.
    backward_params: tuple = ()
    step_params: tuple = ()
    # with backward_args: the parameters whose graph the backward walks, read past cuts
    # (`kl_div(net(x + d), logits.detach()).backward()` walks no graph of `logits`): in order
    live_backward_params: tuple = ()
    # with backward_params, a method's `self.X.step()` (X, in order): a base class's
    # `update_encoding(self, z)` that backwards a loss on z and steps `self.optimizer_E`
    self_steps: tuple = ()
    # with step_params: (element index, or -1 for the whole result, module parameter, optimizer parameter)
    # for a returned value computed from `P(...)` before the helper's `opt.step()`, where the loss it
    # backwards before that step also runs P (FactorVAE's `vae_tc_loss` from `PermD(z)`, then
    # `optim_PermD.step()`): the caller's later backward of it walks P's weights saved before the step
    stale_returns: tuple = ()
    # `self.X` the method reads or calls (X); None when `self` escapes (`f(self)`, `super()`, getattr)
    self_attrs: Optional[tuple] = None
    # A helper stepping optimizers in turn (`for opt, loss in zip(opts, losses): loss.backward(); opt.step()`):
    # (optimizers parameter, losses parameter, retain, zeroes) per such loop, where retain is True, False,
    # None (not a literal) or "last" (`retain_graph=i < len(opts) - 1`: all but the last), and zeroes says
    # that `opt.zero_grad()` comes before the backward.
    multi_steps: tuple = ()
    # The kind of the result when only `self` (its parameters, its state) carries a graph and no
    # argument does: "cut" for `evaluate(...)` that returns `np.sum([loss.data[0] ...])`. None: not worked out.
    self_flow: Optional[str] = None
    # forward that only hands back `self.X` (a learned scalar's parameter), calling nothing: X
    returns_attr: Optional[str] = None
    # an abstract method (`raise NotImplementedError`): an override out of sight runs instead (stubs.py)
    abstract: bool = False
    # every return is a torch.distributions object (`return Normal(mu, std)`): its `.sample()` has no graph
    distribution: bool = False
    # positions of the returned tuples that are such an object in every one (`return Categorical(p), v`)
    distribution_elems: tuple = ()
    # forward: (parameter names, per element of the returned tuples the parameter handed back
    # untouched there or ""): `return loss, queue, use_queue`, `use_queue` only read (handed_back.py)
    handed_back: tuple = ()
    # forward: `self.X` it stores a value in that is not cut (`self.out = h`, `self.logits["a"] = o`): what a
    # method reading X later hangs from (flow.Scope._forward_reads)
    forward_stores: tuple = ()
    # where every return hands back, as it is, a local the body backwards (`loss.backward(); opt.step();
    # return loss, acc`): -1 for the whole result, else the tuple's positions. The backward proves that
    # the value carries a graph, and a caller that keeps it keeps that graph (a kept loss: analysis.returned_losses)
    returns_loss: tuple = ()


def ast_dotted(node) -> Optional[str]:
    """`a.b.c` of an ast Name/Attribute chain; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


_dotted = ast_dotted


class _Fn:
    def __init__(self, func, module_funcs: dict, classes=None, cls=None, attrs=None, flows=None,
                 dists=frozenset(), helpers=None, instances=None) -> None:
        self.fn = func
        # class name of this file -> does calling an instance of it (its `__call__`) return no graph?
        self.instances = instances
        self.helpers = {} if helpers is None else helpers  # name -> no return of it carries a graph
        self.dists = dists  # names the file binds to torch.distributions or its classes
        # (id(method), class) -> its arg_flow, shared by the delegations of one
        # file: without it, methods that hand work to each other are re-walked
        # exponentially (minutes on torch/_dynamo/variables/tensor.py)
        self.flows = {} if flows is None else flows
        self.attrs = attrs or {}  # `self.X` -> kind of every value the class stores there
        self.funcs = module_funcs
        self.classes = classes or {}  # class name -> {method name: FunctionDef}, for delegation
        self.cls = cls  # the class of this method
        self.delegates = False  # per-argument mode: follow `self.m(...)` / `Base.m(self, ...)`
        self.own = False  # self_flow: `self` is the one source of a graph
        self.params = {arg.arg for arg in func.args.args + func.args.kwonlyargs + func.args.posonlyargs}
        self.assigned: dict = {}  # local name -> value expressions
        self.appended: dict = {}  # name -> what `name.append(x)` / `.extend(x)` adds (read per argument)
        self._appending: set = set()
        self.memo: dict = {}  # local name -> kind, once decided
        self.others: set = set()
        self.guessed: dict = {}  # store line -> an imported callee taken to keep the graph (accumulated)
        self.off = _fn_grad(func) > 0
        self.quiet = _quiet_nodes(func, self.off)  # ids of nodes that run with gradients off
        self.backwarded: set = set()  # names the body calls .backward() on (summary)
        self.rebound = _rebound(func, self.params)
        self.loop_reads: dict = {}  # id of a read -> the loop value it sees (`dr = dr.float()` atop the body)

    @functools.cached_property
    def bound(self) -> set:
        """Names the body binds (loop and `with` targets too): any other name it
        reads is a global. Asked only when delegating: worked out then."""
        return {node.id for node in ast.walk(self.fn) if isinstance(node, ast.Name) and
                isinstance(node.ctx, (ast.Store, ast.Del))} | self.params

    @functools.cached_property
    def plain_reads(self) -> frozenset:
        """Ids of name reads in a branch that only a number or string takes: the body of
        `if isinstance(v, (int, float)):` / `if not torch.is_tensor(v):`, the else of
        `if isinstance(v, torch.Tensor):` (`out[k] = v` there holds no graph)."""
        out = set()
        for node in _own_nodes(self.fn):
            if isinstance(node, (ast.If, ast.IfExp)):
                found = _plain_branch(node)
                if found is not None:
                    name, branch = found
                    out.update(id(n) for stmt in branch for n in ast.walk(stmt)
                               if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load))
        return frozenset(out)

    def _param(self, expr: ast.Name) -> bool:
        """Does this read of a parameter see the value the caller handed in? Not
        after `fake = fake.detach()` at the top of the body (the reassigned value decides)."""
        reads = self.rebound.get(expr.id)
        return reads is None or id(expr) in reads

    def kind(self, expr, depth=0) -> str:
        """cut | graph | const | unknown, for one expression."""
        if depth > 20:
            return "unknown"
        if isinstance(expr, ast.Constant):
            return "const"
        if isinstance(expr, ast.Name) and self.delegates and expr.id in self.appended and \
                id(expr) not in self._appending:
            # per argument: a list handed in holds what the function appends to it
            self._appending.add(id(expr))
            try:
                base = self.kind(expr, depth)
            finally:
                self._appending.discard(id(expr))
            return _join([base] + [self.kind(value, depth + 1) for value in self.appended[expr.id]])
        if isinstance(expr, ast.Name):
            if id(expr) in self.plain_reads:
                return "const"
            if id(expr) in self.loop_reads:
                return self.kind(self.loop_reads[id(expr)], depth + 1)
            if expr.id in self.params and self._param(expr):
                return "graph"
            if expr.id in self.others and self._param(expr):
                if expr.id in self.assigned and expr.id not in self.rebound:
                    # `queue = torch.cat((embedding, queue))` further down: this read may see that value
                    # (a graph it brings; a cut of its own is no cut of the caller's value)
                    found = self._name_kind(expr.id, depth)
                    return found if found in ("graph", "unknown") else "const"
                return "const"
            found = self._name_kind(expr.id, depth)
            values = self.assigned.get(expr.id, ())
            if found == "unknown" and not self.delegates and expr.id in self.backwarded and \
                    not any(self.kind(value, depth + 1) in ("cut", "const") for value in values):
                return "graph"  # not when a value bound to it is a number (`loss = loss.item()` after it)
            return found
        if isinstance(expr, ast.Attribute):
            if expr.attr in CUT_ATTRS:
                return "cut"
            key = _dotted(expr)
            if key is not None and key.startswith("self.") and key in self.assigned:
                return self._name_kind(key, depth)  # `self.loss = a + b; return self.loss`
            if key in self.attrs and self.attrs[key] in ("cut", "const"):
                return self.attrs[key]  # `self.count = 0`, `self.lr = lr.item()`: never a graph
            return self.kind(expr.value, depth + 1)
        if isinstance(expr, (ast.Tuple, ast.List)):
            return _join([self.kind(elem, depth + 1) for elem in expr.elts]) if expr.elts else "const"
        if isinstance(expr, (ast.BinOp,)):
            return _join([self.kind(expr.left, depth + 1), self.kind(expr.right, depth + 1)])
        if isinstance(expr, ast.IfExp):
            return _join([self.kind(expr.body, depth + 1), self.kind(expr.orelse, depth + 1)])
        if isinstance(expr, ast.UnaryOp):
            return self.kind(expr.operand, depth + 1)
        if isinstance(expr, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            out = self.kind(expr.elt, depth + 1) if not _is_loop_var(expr) else self._comp(expr, depth)
            if out in ("cut", "const"):
                return out
            bound = self._comp_bound(expr, depth)
            return bound if bound in ("cut", "const") else out
        if isinstance(expr, ast.Dict):
            # {"loss": loss, "acc": acc.item()}: the values decide (`**other` is not followed)
            if not expr.values or any(key is None for key in expr.keys):
                return "unknown" if expr.values else "const"
            return _join([self.kind(value, depth + 1) for value in expr.values])
        if isinstance(expr, ast.DictComp):
            # {k: detach(v) for k, v in x.items()}: the values decide; a bare loop value passes its graph
            if isinstance(expr.value, ast.Name):
                return "graph"
            out = self.kind(expr.value, depth + 1)
            if out in ("cut", "const"):
                return out
            bound = self._comp_bound(_AsElt(expr), depth)  # `{k: f(n, 2 ** i) for i in range(3)}`
            return bound if bound in ("cut", "const") else out
        if isinstance(expr, ast.Subscript):
            return self.kind(expr.value, depth + 1)
        if isinstance(expr, ast.Call):
            return self.call(expr, depth)
        if isinstance(expr, (ast.Compare, ast.BoolOp)):
            return "cut"
        return "unknown"

    def _name_kind(self, key: str, depth) -> str:
        vals = self.assigned.get(key)
        if not vals and self.delegates and key not in self.bound:
            return "const"  # per parameter: a global (an imported module, a constant) holds no graph of it
        if not vals:
            return "unknown"  # a loop variable, a global: not followed
        memo = self.memo.get(key)
        if memo is not None:
            return memo
        self.memo[key] = "const"  # a cycle (`y = y + x`) adds nothing new
        out = _join([self.kind(value, depth + 1) for value in vals])
        self.memo[key] = out
        return out

    def _comp(self, expr, depth) -> str:
        # tuple(repackage_hidden(v) for v in h): the element decides.
        return self.kind(expr.elt, depth + 1) if not isinstance(expr.elt, ast.Name) else "graph"

    def _comp_bound(self, expr, depth) -> str:
        """`[x[0] for x in batches]`: the element with each comprehension name bound
        to an element of what it walks (`batches`, a local list of detached pairs)."""
        for gen in expr.generators:
            root = gen.iter.func.value if isinstance(gen.iter, ast.Call) and \
                isinstance(gen.iter.func, ast.Attribute) else gen.iter
            if isinstance(root, ast.Name) and not any(_filled(v) for v in self.assigned.get(root.id, ())):
                return "unknown"  # `d = {}` filled by calls not followed (`d.update(...)`): its entries are not known
        binds = [pair for gen in expr.generators for pair in _loop_binds(gen.target, gen.iter)]
        names = {name for name, _ in binds}
        saved = {name: (self.assigned.get(name), self.memo.pop(name, None)) for name in names}
        try:
            for name in names:
                self.assigned[name] = [value for key, value in binds if key == name]
            return self.kind(expr.elt, depth + 1)
        finally:
            for name, (values, memo) in saved.items():
                self.memo.pop(name, None)
                if values is None:
                    self.assigned.pop(name, None)
                else:
                    self.assigned[name] = values
                if memo is not None:
                    self.memo[name] = memo

    def _instance_cut(self, func) -> bool:
        """`get = Saver(model, layer); get(x)` or `Saver(model, layer)(x)`: an instance
        of a class of this file whose `__call__` returns no graph (`.detach()`, `.data`)."""
        if self.instances is None:
            return False
        if isinstance(func, ast.Name) and func.id not in self.params:
            values = self.assigned.get(func.id)
        else:
            values = [func]
        return bool(values) and all(isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and
                                    self.instances(v.func.id) for v in values)

    def call(self, call: ast.Call, depth) -> str:
        func = call.func
        name = _dotted(func)
        if isinstance(func, (ast.Name, ast.Call)) and self._instance_cut(func):
            return "cut"
        if isinstance(func, ast.Attribute) and func.attr in CUT_METHODS:
            return "cut"
        if name in CUT_CALLS or name in CUT_FUNCS or (name or "").startswith(NUMPY):
            return "cut"  # a numpy array never carries a graph
        if name in RANDOM_NUMBERS:
            return "const"  # `random.randrange(n)`: a Python number
        if (name or "").split(".")[-1] == "Variable":
            return "cut"  # Variable(x) is a detached alias today, as flow.py takes it (repackage_hidden of 0.3)
        args = [self.kind(arg, depth + 1) for arg in call.args] + \
            [self.kind(keyword.value, depth + 1) for keyword in call.keywords]
        if name == self.fn.name:
            return "cut"  # recursion: decided by the other returns
        if (name or "").startswith(("torch.", "th.")) and name.endswith("_like"):
            return "cut"  # torch.ones_like(pred): a new tensor of its shape
        if self.own and (name or "").split(".")[0] == "self":
            return "graph"  # the module's own run, asked about in self_flow
        if self.own and isinstance(func, ast.Attribute) and _self_rooted(func.value) and \
                self._selfless(func.attr):
            # `self.blocks[k].out_lengths(n)`: a submodule's method that never reads its `self`
            return _join(args) if args else "const"
        if self.delegates:
            hit = self._delegate(call, name, depth)
            if hit is None:
                hit = self._file_delegate(call, name, depth)
            if hit is not None:
                return hit
            root = func
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in self.params and root is func:
                return "graph"  # the parameter asked about is the network called
            if isinstance(root, ast.Name) and root.id in self.others:
                # `net(x)`, `self.criterion(x, y)`: the callee holds no graph of the parameter asked about
                return _join(args) if args else "const"
            if isinstance(func, ast.Call):
                # `nn.BCELoss()(logits, labels)`: a callable built here from values that hold none of the
                # parameter asked about; its result hangs from them and the arguments only
                built = self.kind(func, depth + 1)
                if built != "unknown":
                    return _join([built] + args)
            if isinstance(root, ast.Name) and all(kind in ("cut", "const") for kind in args) and \
                    self.kind(root, depth + 1) in ("cut", "const"):
                # `score(tokens, ref)`, `utils.calc_bleu(seq, ref)` on values that hold none of the
                # parameter asked about: whatever the callee does, its result holds none of it either
                return _join(args) if args else "const"
        if name in ("tuple", "list", "sum", "max", "min") and call.args:
            return _join(args)
        if self._distribution(call):
            return _join(args) if args else "const"  # `Categorical(probs)` holds its parameters' graph
        if isinstance(func, ast.Attribute) and func.attr == "sample" and self._distribution(func.value):
            return "cut"  # Distribution.sample() draws without gradient (rsample does not)
        if isinstance(func, ast.Name) and func.id in self.params and not self.delegates:
            return _join(["graph"] + args)  # `out = model(inputs)`: the network the caller hands in
        if isinstance(func, ast.Attribute) and func.attr == "__class__" or \
                isinstance(func, ast.Call) and _dotted(func.func) == "type":
            # x.__class__(**{...}), type(x)(...): a new object built from the arguments only
            return _join(args) if args else "const"
        if isinstance(func, ast.Name) and self._is_layer(func.id):
            if self.delegates:
                # per parameter: a layer built here holds no graph of the parameter asked about
                return _join(args) if args else "const"
            return "graph"  # `crit = nn.MSELoss(); crit(out, y)`, `fc = nn.Linear(..); fc(x)`
        if name in self.funcs and name != self.fn.name:
            # another helper of this file: followed only when none of its returns can carry a graph
            return "cut" if self._helper_cut(name) else "unknown"
        if isinstance(func, ast.Attribute) and not (name or "").startswith(SAFE_PREFIXES):
            # a method on a value: x.sum(), out.view(...); model.forward is unknown
            base = self.kind(func.value, depth + 1)
            return _join([base] + args) if base != "unknown" else "unknown"
        if name is not None and name.startswith(SAFE_PREFIXES):
            return _join(args)
        return "unknown"

    def _selfless(self, meth: str) -> bool:
        """Does every class of this file that defines `meth` (one at least)
        define it without reading `self`? Then it returns no module's graph. This
        very method (a module holding blocks of its own class) is the recursion,
        decided by the others."""
        found = [methods[meth] for methods in self.classes.values() if meth in methods and methods[meth] is not self.fn]
        return bool(found) and meth not in ("forward", "__call__") and not any(_reads_self(m) for m in found)

    def _helper_cut(self, name: str) -> bool:
        """Does every return of the file's function `name` hold no graph, whatever its
        arguments (`return float(tp) / (float(tp + fn) + 1e-6)`)?"""
        if name not in self.helpers:
            self.helpers[name] = False  # in progress: a cycle of helpers is not followed
            walker = _Fn(self.funcs[name], self.funcs, dists=self.dists, helpers=self.helpers,
                         instances=self.instances)
            walker._collect()
            returns = walker._returns
            self.helpers[name] = bool(returns) and all(ret is not None for ret in returns) and \
                all(walker.kind(ret) in ("cut", "const") for ret in returns)
        return self.helpers[name]

    def _distribution(self, expr) -> bool:
        """Is `expr` a torch.distributions object: `Categorical(p)` with the class
        imported from torch.distributions, or a local name bound only to such calls?"""
        if isinstance(expr, ast.Name) and expr.id not in self.params:
            vals = self.assigned.get(expr.id)
            return bool(vals) and all(isinstance(v, ast.Call) and self._distribution(v) for v in vals)
        if not isinstance(expr, ast.Call):
            return False
        name = _dotted(expr.func) or ""
        return name.startswith("torch.distributions.") or name.split(".")[0] in self.dists

    def _delegate(self, call: ast.Call, name, depth) -> Optional[str]:
        """`self.get_loss(net, fake, real)` or `Base.get_loss(self, net, fake, real)`
        of a class of this file: the callee's flow per argument decides."""
        head, _, meth = (name or "").partition(".")
        args = list(call.args)
        if head == "self" and self.cls in self.classes:
            callee = self.classes[self.cls].get(meth)
        elif head in self.classes and args and isinstance(args[0], ast.Name) and args[0].id == "self":
            callee, args = self.classes[head].get(meth), args[1:]
        else:
            return None
        if callee is None or callee is self.fn or call.keywords or depth > 10 or \
                any(isinstance(arg, ast.Starred) for arg in args):
            return None
        owner = head if head != "self" else self.cls
        key = (id(callee), owner)
        if key not in self.flows:
            self.flows[key] = None  # in progress: a cycle of delegations is not followed
            self.flows[key] = _Fn(callee, {}, self.classes, owner, flows=self.flows,
                                  dists=self.dists).arg_flow(depth + 1)
        flow = self.flows[key]
        if flow is None or len(args) > len(flow):
            return "unknown"
        parts = []
        for arg, passes in zip(args, flow):
            kind = self.kind(arg, depth + 1)
            # an argument that carries no graph passes none, whatever the callee does with it
            if kind in ("cut", "const") or passes == "graph":
                parts.append(kind)
            else:
                parts.append("unknown" if passes == "unknown" else "const")
        return _join(parts) if parts else "const"

    def _file_delegate(self, call: ast.Call, name, depth) -> Optional[str]:
        """`all_preds, all_labels = ce_inference(outputs, labels, all_preds, all_labels, **kwargs)`, a
        function of this file: the callee's flow per argument decides (a keyword it does not name, and
        a `**` spread, go to its `**kwargs`)."""
        callee = self.funcs.get(name) if name and "." not in name else None
        if callee is None or callee is self.fn or depth > 10 or callee.args.vararg or callee.args.kwonlyargs or \
                callee.args.posonlyargs or any(isinstance(arg, ast.Starred) for arg in call.args):
            return None
        key = (id(callee), None)
        if key not in self.flows:
            self.flows[key] = None  # in progress: a cycle of helpers is not followed
            self.flows[key] = _Fn(callee, self.funcs, dists=self.dists, flows=self.flows, helpers=self.helpers,
                                  instances=self.instances).arg_flow(depth + 1, kwarg=True)
        flow = self.flows[key]
        params = [arg.arg for arg in callee.args.args]
        kw = callee.args.kwarg.arg if callee.args.kwarg is not None else None
        if flow is None or len(call.args) > len(params) or len(flow) != len(params) + (1 if kw else 0):
            return None
        pairs = list(zip(call.args, flow))
        for keyword in call.keywords:
            if keyword.arg in params:
                pairs.append((keyword.value, flow[params.index(keyword.arg)]))
            elif kw is not None:
                pairs.append((keyword.value, flow[-1]))
            else:
                return None
        parts = []
        for arg, passes in pairs:
            kind = self.kind(arg, depth + 1)
            if kind in ("cut", "const") or passes == "graph":
                parts.append(kind)
            else:
                parts.append("unknown" if passes == "unknown" else "const")
        return _join(parts) if parts else "const"

    def arg_flow(self, depth=0, kwarg=False) -> Optional[tuple]:
        """Per parameter after `self`: the kind of the result when only that
        parameter carries a graph (the other parameters, `self` and state it
        does not assign here count as constants). With `kwarg`, a `**kwargs`
        parameter is asked about too, last."""
        args = [arg.arg for arg in self.fn.args.args]
        skip = 1 if args[:1] == ["self"] else 0
        if self.fn.args.vararg or self.fn.args.kwarg and not kwarg or depth > 10:
            return None
        if self.fn.args.kwarg is not None:
            args.append(self.fn.args.kwarg.arg)
        if not hasattr(self, "_returns"):
            self._collect()
        returns = [ret for ret in self._returns if ret is not None]
        switch = switch_exits(self.fn, args[skip:]) if skip else {}
        saved, self.delegates = self.params, True
        out = []
        try:
            for name in args[skip:]:
                self.params, self.others = {name}, set(args) - {name}
                self.memo.clear()
                kind = _join([self.kind(ret, depth) for ret in returns]) if returns else "const"
                seen = [ret for ret in returns if switch.get(id(ret)) != name]
                if seen and len(seen) < len(returns):
                    # `if self.pool_size == 0: return images`, the setting taken to be on (switches.py),
                    # where the other returns are seen to cut it (not only built of what the summary misses)
                    rest = _join([self.kind(ret, depth) for ret in seen])
                    kind = rest if rest == "cut" else kind
                out.append(kind)
        finally:
            self.params, self.others, self.delegates = saved, set(), False
            self.memo.clear()
        return tuple(out)

    def self_flow(self) -> Optional[str]:
        """The kind of the result when `self` alone carries a graph: any call on
        `self` (`self.forward(x)`, `self.net(x)`) is taken to return its graph."""
        args = [arg.arg for arg in self.fn.args.args]
        if args[:1] != ["self"] or self.fn.args.vararg or self.fn.args.kwarg:
            return None
        if not hasattr(self, "_returns"):
            self._collect()
        returns = [ret for ret in self._returns if ret is not None]
        saved, self.delegates, self.own = self.params, True, True
        try:
            self.params, self.others = {"self"}, set(args[1:])
            self.memo.clear()
            return _join([self.kind(ret) for ret in returns]) if returns else "const"
        finally:
            self.params, self.others, self.delegates, self.own = saved, set(), False, False
            self.memo.clear()

    def elem_flow(self, depth=0, kwarg=False) -> tuple:
        """Per element of the returned tuples (all of one length): per parameter
        after `self`, the kind of that element when only that parameter carries
        a graph. () when the returns are not such tuples."""
        if not hasattr(self, "_returns"):
            self._collect()
        returns = [ret for ret in self._returns if ret is not None]
        if not returns or not all(isinstance(ret, ast.Tuple) for ret in returns) or \
                len({len(ret.elts) for ret in returns}) != 1 or any(isinstance(elt, ast.Starred) for ret in returns
                                                                     for elt in ret.elts):
            return ()
        saved = self._returns
        out = []
        try:
            for index in range(len(returns[0].elts)):
                self._returns = [ret.elts[index] for ret in returns]
                flow = self.arg_flow(depth, kwarg)
                if flow is None:
                    return ()
                out.append(flow)
        finally:
            self._returns = saved
        return tuple(out)

    def _collect(self) -> None:
        self._returns = []
        for node in _own_nodes(self.fn):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._assign(target, self._value(node))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self.assigned.setdefault(node.target.id, []).append(self._value(node))
            elif isinstance(node, ast.For):
                self._loop(node)
            elif isinstance(node, ast.Return):
                self._returns.append(self._value(node))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("append", "extend", "insert", "appendleft", "add") and \
                    isinstance(node.func.value, ast.Name) and node.args:
                self.appended.setdefault(node.func.value.id, []).append(node.args[-1])

    def _loop(self, node: ast.For) -> None:
        """What a `for` binds: an element of what it iterates (`for dr, dg in zip(real, fake)`: an
        element of the argument). A name rebound atop the body (`dr = dr.float()`) holds the loop's
        value only in that statement's reads."""
        if _over_parameters(node.iter):
            for name in _names(node.target):
                self.assigned.setdefault(name, []).append(node.iter)
            return
        for name, value in _loop_binds(node.target, node.iter):
            reads = _top_rebind(node.body, name)
            if reads is None:
                self.assigned.setdefault(name, []).append(value)
            else:
                self.loop_reads.update(dict.fromkeys(reads, value))

    def _assign(self, target, value) -> None:
        """What each name of `target` is bound to: the whole value, or, for a
        tuple target, the matching element (`a, b = x.detach(), y`) and the
        indices of a (values, indices) call (`_, pred = out.topk(1)`), which
        never carry a graph."""
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and \
                target.value.id in _numpy_names(self.fn):
            return  # `ssim = np.zeros(n)`, then `ssim[i] = f(x)`: a numpy array holds no graph
        for name, part in _pairs(target, value):
            self.assigned.setdefault(name, []).append(part)
        for name in _self_keys(target):
            self.assigned.setdefault(name, []).append(value)

    def _is_layer(self, name: str) -> bool:
        vals = self.assigned.get(name) or []
        return bool(vals) and all(isinstance(value, ast.Call) and (_dotted(value.func) or "").startswith(LAYER_PREFIXES)
                                  for value in vals)

    def _depends(self, expr, seen=None, live=False, fresh=False) -> bool:
        """Is `e` computed (by name) from an argument? With `live`, not through
        a cut (`.detach()`, `.data`, `.item()`); with `fresh`, not through a new
        tensor built from its data (`torch.tensor(np.float32(state))`)."""
        seen = set() if seen is None else seen
        for node in (_live_nodes(expr) if live else _fresh_nodes(expr) if fresh else ast.walk(expr)):
            if isinstance(node, ast.Name) and node.id not in seen:
                seen.add(node.id)
                if node.id in self.params or \
                        any(self._depends(value, seen, live, fresh) for value in self.assigned.get(node.id, ())):
                    return True
        return False

    def _reaches(self, backward: ast.Call, live: bool) -> bool:
        """Does what `backward` backwards depend on the parameter asked about (`self.params`)?
        In a straight body, a name is read as its last binding at the top before the backward's
        statement (`state = torch.tensor(np.float32(state))` after `state, action = buf.sample(n)`),
        and a new tensor made from data depends on nothing (_fresh_nodes)."""
        body = self.fn.body
        at = next((i for i, stmt in enumerate(body) if any(n is backward for n in ast.walk(stmt))), None)
        if at is None:
            return self._depends(backward.func.value, live=live)
        return self._reaches_at(backward.func.value, at, live, set())

    def _reaches_at(self, expr, at: int, live: bool, seen: set) -> bool:
        body = self.fn.body
        for node in (_live_nodes(expr) if live else _fresh_nodes(expr)):
            if not isinstance(node, ast.Name) or (node.id, at) in seen:
                continue
            seen.add((node.id, at))
            if node.id in self.params:
                if not any(_binds(stmt, node.id) for stmt in body[:at]):
                    return True
            last = None
            for i in range(at - 1, -1, -1):
                if _binds(body[i], node.id):
                    last = i
                    break
            if last is not None and isinstance(body[last], ast.Assign):
                if self._reaches_at(body[last].value, last, live, seen):
                    return True
                continue
            if node.id in self.params or \
                    any(self._depends(value, set(), live, fresh=True) for value in self.assigned.get(node.id, ())):
                return True
        return False

    def _stale_returns(self, stepped, arg_backwards) -> tuple:
        """Summary.stale_returns: returned values built from a module parameter's
        call before the step of an optimizer parameter that trains it."""
        steps = [node for node in _own_nodes(self.fn) if isinstance(node, ast.Call) and
                 isinstance(node.func, ast.Attribute) and node.func.attr == "step" and not node.args and
                 isinstance(node.func.value, ast.Name) and node.func.value.id in stepped]
        if len(steps) != 1 or any(isinstance(node, (ast.For, ast.While)) for node in _own_nodes(self.fn)):
            return ()  # one step, no loop: the order of the lines is the order they run
        step = steps[0]
        called = {node.func.id for node in _own_nodes(self.fn) if isinstance(node, ast.Call) and
                  isinstance(node.func, ast.Name) and node.func.id in self.params} - set(stepped)
        before: dict = {}
        after: set = set()
        for node in _own_nodes(self.fn):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in _names(target):
                        if node.lineno < step.lineno:
                            before.setdefault(name, []).append(node.value)
                        else:
                            after.add(name)
        saved_assigned, saved_params = self.assigned, self.params
        out = []
        try:
            self.assigned = before
            for module in sorted(called):
                self.params = {module}
                trained = [b for b in arg_backwards
                           if b.lineno < step.lineno and self._depends(b.func.value, live=True)]
                if not trained:
                    continue  # the step applies no backward through this module
                for ret in self._returns:
                    if ret is None or ret.lineno < step.lineno:
                        continue
                    elts = list(enumerate(ret.elts)) if isinstance(ret, ast.Tuple) else [(-1, ret)]
                    for index, elt in elts:
                        names = {n.id for n in ast.walk(elt) if isinstance(n, ast.Name)}
                        direct = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == module
                                     for n in ast.walk(elt))
                        if not direct and not names & after and self._depends(elt, live=True) and \
                                (index, module, step.func.value.id) not in out:
                            out.append((index, module, step.func.value.id))
        finally:
            self.assigned, self.params = saved_assigned, saved_params
        return tuple(out)

    def summary(self) -> Summary:
        returns, events, stores = [], False, False
        backwards = []
        for node in _own_nodes(self.fn):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._assign(target, self._value(node))
                    if isinstance(target, ast.Attribute) and _dotted(target.value) == "self":
                        stores = True
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self.assigned.setdefault(node.target.id, []).append(self._value(node))
            elif isinstance(node, ast.For):
                self._loop(node)
            elif isinstance(node, ast.Return):
                returns.append(self._value(node))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in EVENTS \
                    and not _env_step(node) and not (node.func.attr == "backward" and _bound_backward(self.fn, node)):
                events = True
                if node.func.attr == "backward":
                    backwards.append(node)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _FILLS:
                # `out.append(h)`, `d.update(loss=l)`, `d.setdefault(k, []).append(h)`: the container holds them
                root = _filled_root(node.func.value)
                if root is not None:
                    self.assigned.setdefault(root, []).extend(_fill_values(node))
        self._returns = returns
        # `loss.backward()` here proves that `loss` carries a graph, whatever computed it
        self.backwarded = _backwarded_names(self.fn)  # scaler.scale(loss).backward() and the like too
        from .returned_losses import returned_losses

        arg_backwards = [backward for backward in backwards if self._depends(backward.func.value)]
        retain = {_retain(backward) for backward in arg_backwards}
        extra = dict(backward_args=bool(arg_backwards), backward_retain=retain.pop() if len(retain) == 1 else None,
                     grad_off=self.off, returns_loss=returned_losses(self.fn, self.backwarded))
        if arg_backwards and extra["backward_retain"] is None:
            extra["retain_flag"] = ast_flag_param(self.fn, arg_backwards)
        if arg_backwards:
            extra.update(self._step_helper(arg_backwards))
        multi = _multi_steps(self.fn)
        if multi:
            extra["multi_steps"] = multi
            extra.setdefault("params", tuple(arg.arg for arg in self.fn.args.args if arg.arg != "self"))
        accum = self.accumulated()
        if accum:
            extra["arg_names"] = tuple(arg.arg for arg in self.fn.args.args[1:])
            if self.guessed:
                extra["guessed"] = tuple(sorted(self.guessed.items()))
        if not returns or all(ret is None for ret in returns):
            return Summary("const", 0, events, stores, accum, **extra)
        tuples = [ret for ret in returns if isinstance(ret, ast.Tuple)]
        elems: tuple = ()
        if tuples and len({len(ret.elts) for ret in tuples}) == 1:
            elems = tuple(_join([self.kind(ret.elts[index]) for ret in tuples]) for index in range(len(tuples[0].elts)))
        kinds = [self.kind(ret) if ret is not None else "const" for ret in returns]
        arity = {len(ret.elts) if isinstance(ret, ast.Tuple) else 0 for ret in returns if ret is not None}
        bare = [ret for ret in returns if isinstance(ret, ast.Name) and ret.id in self.params]
        # strict: a parameter handed back as it is may be a tensor with its graph
        extra["no_graph"] = all(kind in ("cut", "const") for kind in kinds) and any(ret is not None for ret in returns)
        extra["distribution"] = all(ret is not None and self._distribution(ret) for ret in returns)
        if tuples and len(tuples) == len(returns) and len({len(ret.elts) for ret in tuples}) == 1:
            extra["distribution_elems"] = tuple(index for index in range(len(tuples[0].elts))
                                                if all(self._distribution(ret.elts[index]) for ret in tuples))
        if "cut" in kinds and all(kind in ("cut", "const") or ret in bare for kind, ret in zip(kinds, returns)):
            result = "cut"  # `return h.detach()` / `return h` only for what is not a tensor
        elif "unknown" in kinds:
            result = "unknown"
        elif "graph" in kinds:
            result = "graph"
        else:
            result = "const"
        return Summary(result, arity.pop() if len(arity) == 1 else 0, events, stores, accum, elems=elems, **extra)

    def _step_helper(self, arg_backwards) -> dict:
        """backward_params and step_params of a function that backwards what it
        is given and steps an optimizer it is given."""
        names = [arg.arg for arg in self.fn.args.args + self.fn.args.kwonlyargs if arg.arg != "self"]
        stepped, own = [], []
        for node in _own_nodes(self.fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step":
                target = node.func.value if not node.args else node.args[0]  # opt.step() / scaler.step(opt)
                if isinstance(target, ast.Name) and target.id in names and target.id not in stepped:
                    stepped.append(target.id)
                key = _dotted(target) or ""
                if key.startswith("self.") and key.count(".") == 1 and key[5:] not in own and \
                        self.fn.args.args and self.fn.args.args[0].arg == "self":
                    own.append(key[5:])
        saved = self.params
        backed, live_backed = [], []
        # only `self.X.step()`: what it backwards is read past cuts (`D(x.detach())` backwards no graph of x)
        live = bool(own and not stepped)
        try:
            for name in names:
                self.params = {name}
                # a backward reaches no graph of what the function copies into new tensors
                # (`state = torch.tensor(np.float32(state))` of `buffer.sample()`): its own forward
                if any(self._reaches(backward, live) for backward in arg_backwards):
                    backed.append(name)
                if any(self._reaches(backward, True) for backward in arg_backwards):
                    live_backed.append(name)
        finally:
            self.params = saved
        stale = self._stale_returns(stepped, arg_backwards) if stepped else ()
        return {"backward_params": tuple(backed), "step_params": tuple(stepped), "self_steps": tuple(own),
                "live_backward_params": tuple(live_backed),
                "stale_returns": stale,
                "params": tuple(arg.arg for arg in self.fn.args.args if arg.arg != "self")}

    def _value(self, node):
        """The value an assignment or return stores; with gradients off, as
        _no_graph rewrites it, so that every reading of it sees the cut."""
        return _no_graph(node.value) if id(node) in self.quiet else node.value

    def accumulated(self) -> tuple:
        """Arguments added into `self` state without a cut: `self.sum += val * n`,
        `self._sum[i] += v` for `v` in the argument, `self.losses.append(loss)`."""
        args = [arg.arg for arg in self.fn.args.args]
        if args[:1] != ["self"]:
            return ()
        for node in _own_nodes(self.fn):
            # `for idx, v in enumerate(values)`: the elements carry what the argument does
            if isinstance(node, ast.For):
                iterated = node.iter
                if isinstance(iterated, ast.Call) and _dotted(iterated.func) in ("enumerate", "zip") and iterated.args:
                    iterated = iterated.args[-1] if _dotted(iterated.func) == "enumerate" else iterated.args[0]
                if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute) and \
                        iterated.func.attr in ("items", "values"):
                    iterated = iterated.func.value
                for loop_name in _names(node.target):
                    if not _cut_atop(self, node.body, loop_name):
                        self.assigned.setdefault(loop_name, []).append(iterated)
        self.memo.clear()
        out = []
        for index, name in enumerate(args[1:]):
            found = self._adds(name)
            if found:
                out.append((index, *found))
        # `def store(self, **kwargs)`: what the keywords no parameter takes; `*vals`: the positions past them
        for index, extra in (("*", self.fn.args.vararg), ("**", self.fn.args.kwarg)):
            found = self._adds(extra.arg) if extra is not None else None
            if found:
                out.append((index, found[0], True))  # each value it takes is kept as it is
        return tuple(out)

    def _unseen_call(self, value, name: str):
        """The name of an imported function `value` calls on the argument
        (`hvd.allreduce(val.cpu(), ...)`), whose result this file cannot show."""
        if not isinstance(value, ast.Call):
            return None
        callee = _dotted(value.func)
        root = (callee or "").split(".")[0]
        if not callee or root in ("self", "super") or root in self.params or root in self.others or \
                callee in self.funcs or callee.startswith(SAFE_PREFIXES + NUMPY + ("math.", "statistics.")) or \
                callee in CUT_CALLS or "." not in callee or \
                any(w in callee.rsplit(".", 1)[-1].lower() for w in ("item", "scalar", "float", "numpy", "list")):
            return None  # a method of the object, a local helper, torch (followed), a builtin
        if any(self.kind(arg) == "graph" and _mentions(arg, name, self.assigned) for arg in value.args):
            return callee
        return None

    def _iadd_cuts(self, target) -> bool:
        """Does the `+=` on `target` run `__iadd__` methods of the file's classes
        (analysis.iadd_stores), none of which adds its argument into its state?"""
        from .iadd_stores import iadd_classes

        found = iadd_classes(self.classes, self.cls, target)
        if not found or any(name == self.cls for name in found):
            return False
        for name in found:
            walker = _Fn(self.classes[name]["__iadd__"], {}, self.classes, name, flows=self.flows)
            walker._collect()
            if walker.accumulated():
                return False
        return True

    def _adds(self, name: str):
        """(line, whole) where argument `name` is added into `self` state:
        whole when the argument itself is added, not its elements; else None."""
        saved = self.params
        self.params = {name}
        self.others = saved - {name}  # numbers in the sum (`val * n`)
        try:
            if any(self.kind(assigned_value) == "cut" for assigned_value in self.assigned.get(name, ())):
                return None  # `val = val.detach().item()` first
            for node in _own_nodes(self.fn):
                value, target = None, None
                if isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)):
                    value, target = node.value, node.target
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                        node.func.attr in ("append", "extend", "insert") and node.args:
                    value, target = node.args[-1], node.func.value
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                        node.func.attr in ("add_", "sub_") and node.args:
                    value, target = node.args[0], node.func.value  # `self.sum.add_(val)`: `+=` in place
                elif isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                        (_rebuilt(node) or _grown(node) or _slot_store(node, self.fn) and
                         _dotted(node.targets[0].value) not in _array_attrs(self.classes.get(self.cls) or {})):
                    # `self.avg[k] = self.avg[k] * n + val`, `self.ema = 0.99 * self.ema + 0.01 * val`,
                    # `self.buf = torch.cat([self.buf, val])`, `self.memory[self.position] = val`
                    value, target = node.value, node.targets[0]
                if value is None or id(node) in self.quiet:
                    continue
                if isinstance(node, ast.AugAssign) and self._iadd_cuts(target):
                    continue  # `self.tracks[k] += v` runs a tracker's `__iadd__`, which keeps no graph
                base = target.value if isinstance(target, ast.Subscript) else target
                if isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute) and \
                        base.func.attr == "setdefault":
                    base = base.func.value  # `self.hist.setdefault(k, []).append(v)`: a list kept in `self.hist`
                while isinstance(base, ast.Subscript) and not isinstance(node, ast.AugAssign):
                    base = base.value  # `self._log_data[name][0].append(v)`: a list inside `self._log_data`
                if not (_dotted(base) or "").startswith("self."):
                    continue
                self.memo.clear()
                if self.kind(value) == "graph" and _mentions(value, name, self.assigned):
                    return node.lineno, _whole(value, name)
                callee = self._unseen_call(value, name)
                if callee:
                    # `self.sum += hvd.allreduce(val.cpu())`: a library call out of sight, taken to
                    # keep its argument's graph (collectives, gathers are differentiable): an inference
                    self.guessed[node.lineno] = callee
                    return node.lineno, _whole(value, name)
            return None
        finally:
            self.params, self.others = saved, set()
            self.memo.clear()


def _grad(expr) -> int:
    """1: `expr` turns gradients off (`torch.no_grad()`, `torch.no_grad`,
    `torch.inference_mode()`, `torch.set_grad_enabled(False)`); -1: on
    (`torch.enable_grad()`); 0: neither."""
    call = expr.func if isinstance(expr, ast.Call) else expr
    name = _dotted(call) or ""
    last = name.rsplit(".", 1)[-1]
    first = expr.args[0] if isinstance(expr, ast.Call) and expr.args else None
    if last == "set_grad_enabled" and isinstance(first, ast.Constant):
        return -1 if first.value else 1
    if last == "inference_mode" and isinstance(first, ast.Constant) and not first.value:
        return 0
    if name in GRAD_OFF or name.endswith((".no_grad", ".inference_mode")):
        return 1
    if name in GRAD_ON or name.endswith(".enable_grad"):
        return -1
    return 0


def _fn_grad(fn) -> int:
    """The grad mode a function's decorators set (`@torch.no_grad()`)."""
    for deco in fn.decorator_list:
        mode = _grad(deco)
        if mode:
            return mode
    return 0


def _quiet_nodes(fn, off: bool) -> set:
    """ids of the nodes of `fn` (outside nested functions) that run with
    gradients off: all of them under `@torch.no_grad()`, else those inside
    `with torch.no_grad():` (and not inside a `with torch.enable_grad():` there)."""
    out: set = set()
    stack = [(n, off) for n in fn.body]
    while stack:
        n, quiet = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(n, (ast.With, ast.AsyncWith)):
            for item in n.items:
                mode = _grad(item.context_expr)
                quiet = mode > 0 if mode else quiet
        if quiet:
            out.add(id(n))
            stack.extend((child, True) for child in ast.iter_child_nodes(n))
        else:  # only a `with` statement turns gradients off: expressions hold none
            stack.extend((child, False) for child in ast.iter_child_nodes(n) if isinstance(child, _BODIES))
    return out


_BODIES = (ast.stmt, ast.excepthandler, getattr(ast, "match_case", ast.stmt))  # what can hold a statement


def statements(tree):
    """Every statement of `tree`, nested ones included, in ast.walk's order,
    without entering expressions (where no statement can be): a def or an
    import is found at a fraction of ast.walk's cost."""
    queue = collections.deque(tree.body)
    while queue:
        node = queue.popleft()
        if isinstance(node, ast.stmt):
            yield node
        for field in node._fields:
            if field in _STMT_FIELDS:
                queue.extend(getattr(node, field))


_STMT_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def _no_graph(e):
    """`e` evaluated with gradients off: what it computes carries no graph (its
    `.data`, element by element so that a tuple keeps its shape), while a name
    or attribute read as it is (`return x`) still holds what it held."""
    if e is None or isinstance(e, (ast.Name, ast.Attribute)):
        return e
    if isinstance(e, (ast.Tuple, ast.List)):
        return type(e)(elts=[_no_graph(x) for x in e.elts], ctx=ast.Load())
    return ast.Attribute(value=e, attr="data", ctx=ast.Load())


def _whole(expr, name: str) -> bool:
    """Is `name` itself read in `e` (`val * n`), not only its elements (`loss[key]`)?"""
    inside = {id(node.value) for node in ast.walk(expr) if isinstance(node, ast.Subscript)}
    return any(isinstance(node, ast.Name) and node.id == name and id(node) not in inside for node in ast.walk(expr))


def _rebuilt(node: ast.Assign) -> bool:
    """Does the assignment store, into `self` state, arithmetic that reads that
    same state (a running total or average written out: `s = s * n + v`,
    `v = (v * n + x) / (n + 1)`)?"""
    target = node.targets[0]
    if not isinstance(target, (ast.Attribute, ast.Subscript)):
        return False
    want = _dotted(target.value if isinstance(target, ast.Subscript) else target)
    if not want or not want.startswith("self.") or not isinstance(node.value, ast.BinOp) or \
            not isinstance(node.value.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        return False
    return any(isinstance(n, ast.Attribute) and _dotted(n) == want for n in ast.walk(node.value))


JOINS = {"cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "column_stack"}


def _grown(node: ast.Assign) -> bool:
    """`self.buf = torch.cat([self.buf, val])`: the state joined with what is
    given, so every call's value stays in it (a join's result hangs from all
    its inputs)."""
    target, value = node.targets[0], node.value
    want = _dotted(target) if isinstance(target, ast.Attribute) else None
    if not want or not want.startswith("self.") or not isinstance(value, ast.Call) or not value.args:
        return False
    callee = _dotted(value.func) or ""
    if not callee.startswith("torch.") or callee.rsplit(".", 1)[-1] not in JOINS:
        return False
    parts = value.args[0]
    return isinstance(parts, (ast.List, ast.Tuple)) and any(_dotted(elt) == want for elt in parts.elts)


def _array_attrs(methods: dict) -> set:
    """The `self.X` a class binds to a numpy array (`self.obs_buf = np.zeros(...)`):
    a store into one of its slots copies numbers (spinningup's replay buffers)."""
    out = set()
    for method in methods.values():
        for node in ast.walk(method):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                    (_dotted(node.value.func) or "").split(".")[0] in ("np", "numpy"):
                out.update(d for t in node.targets for d in [_dotted(t)] if d and d.startswith("self."))
    return out


def _slot_store(node: ast.Assign, fn) -> bool:
    """`self.memory[self.position] = val`, `self.buf[len(self.buf) % n] = val`:
    a store into a slot of `self` state chosen by that state (a ring or replay
    buffer, a growing dict), so earlier calls' values stay in the other slots.
    A constant key (`self.stats["loss"] = v`) or a parameter's (`self.d[k] = v`)
    may rewrite one slot each call: not taken."""
    target = node.targets[0]
    if not isinstance(target, ast.Subscript) or not (_dotted(target.value) or "").startswith("self."):
        return False
    key = target.slice
    params = {arg.arg for arg in fn.args.args} - {"self"}
    names = [n for n in ast.walk(key) if isinstance(n, ast.Name)]
    if any(n.id in params for n in names):
        return False
    return any(isinstance(n, ast.Attribute) and (_dotted(n) or "").startswith("self.") for n in ast.walk(key)) or \
        any(isinstance(n, ast.Call) and _dotted(n.func) == "len" for n in ast.walk(key))


def _mentions(expr, name: str, assigned: dict, depth=0) -> bool:
    """Does `e` read `name`, directly or through local names bound from it?"""
    if depth > 8:
        return False
    for node in ast.walk(expr):
        if isinstance(node, ast.Name):
            if node.id == name:
                return True
            if any(_mentions(value, name, assigned, depth + 1)
                   for value in assigned.get(node.id, ()) if value is not expr):
                return True
    return False


def _multi_steps(fn) -> tuple:
    """(optimizers, losses, retain) for each `for [i,] (opt, loss) in [enumerate(]zip(opts, losses)[)]:`
    of `fn` over two of its parameters whose body backwards `loss` and then steps `opt`."""
    names = [arg.arg for arg in fn.args.args + fn.args.kwonlyargs]
    out = []
    for node in _own_nodes(fn):
        if not isinstance(node, ast.For):
            continue
        it, target, index = node.iter, node.target, None
        if isinstance(it, ast.Call) and _dotted(it.func) == "enumerate" and len(it.args) == 1 and \
                isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name):
            it, index, target = it.args[0], target.elts[0].id, target.elts[1]
        if not (isinstance(it, ast.Call) and _dotted(it.func) == "zip" and len(it.args) == 2 and
                all(isinstance(a, ast.Name) and a.id in names for a in it.args) and
                isinstance(target, ast.Tuple) and len(target.elts) == 2 and
                all(isinstance(e, ast.Name) for e in target.elts)):
            continue
        bound = {e.id: a.id for e, a in zip(target.elts, it.args)}
        backward = step = zero = None
        for sub in ast.walk(node):
            if not (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and
                    isinstance(sub.func.value, ast.Name) and sub.func.value.id in bound):
                continue
            if sub.func.attr == "backward" and backward is None:
                backward = sub
            elif sub.func.attr == "step" and step is None:
                step = sub
            elif sub.func.attr == "zero_grad" and zero is None:
                zero = sub
        if backward is None or step is None or backward.func.value.id == step.func.value.id or \
                (backward.lineno, backward.col_offset) > (step.lineno, step.col_offset):
            continue
        retain = _retain(backward)
        if retain is None and index is not None and _all_but_last(backward, index):
            retain = "last"
        zeroes = zero is not None and zero.func.value.id == step.func.value.id and \
            (zero.lineno, zero.col_offset) < (backward.lineno, backward.col_offset)
        out.append((bound[step.func.value.id], bound[backward.func.value.id], retain, zeroes))
    return tuple(out)


def _all_but_last(call, index) -> bool:
    """`retain_graph=i < len(x) - 1` (or `True if i < len(x) - 1 else False`, `i != len(x) - 1`)."""
    value = next((k.value for k in call.keywords if k.arg in ("retain_graph", "retain_variables")), None)
    if isinstance(value, ast.IfExp) and isinstance(value.body, ast.Constant) and value.body.value is True and \
            isinstance(value.orelse, ast.Constant) and value.orelse.value is False:
        value = value.test
    if not (isinstance(value, ast.Compare) and len(value.ops) == 1 and isinstance(value.left, ast.Name) and
            value.left.id == index):
        return False
    right = value.comparators[0]
    minus_one = isinstance(right, ast.BinOp) and isinstance(right.op, ast.Sub) and \
        isinstance(right.right, ast.Constant) and right.right.value == 1 and isinstance(right.left, ast.Call) and \
        _dotted(right.left.func) == "len"
    return minus_one and isinstance(value.ops[0], (ast.Lt, ast.NotEq))


def _retain(call) -> Optional[bool]:
    for keyword in call.keywords:
        if keyword.arg in ("retain_graph", "retain_variables"):
            value = keyword.value
            return value.value if isinstance(value, ast.Constant) and isinstance(value.value, bool) else None
    if len(call.args) >= 2:
        return None
    return False


_FILLS = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "appendleft", "extendleft"})


def _filled_root(expr):
    """The local name a fill call's receiver belongs to: `d`, `d[k]`, `d.setdefault(k, [])`; else None."""
    while True:
        if isinstance(expr, ast.Name):
            return expr.id
        if isinstance(expr, ast.Subscript):
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
                expr.func.attr in ("setdefault", "get"):
            expr = expr.func.value
        else:
            return None


def _fill_values(call: ast.Call) -> list:
    """What a fill call puts into its container (not `insert`'s index or `setdefault`'s key)."""
    attr = call.func.attr
    if attr in ("append", "extend", "insert", "add", "appendleft", "extendleft"):
        return call.args[-1:]
    if attr == "setdefault":
        return call.args[1:]
    return list(call.args) + [kw.value for kw in call.keywords]  # update


def _filled(value) -> bool:
    """Is a value bound to a container more than an empty literal (`[]`, `{}`, `dict()`)?"""
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return bool(value.elts)
    if isinstance(value, ast.Dict):
        return bool(value.keys)
    return not (isinstance(value, ast.Call) and _dotted(value.func) in ("list", "dict", "set", "tuple")
                and not value.args and not value.keywords)


def _is_loop_var(expr) -> bool:
    return isinstance(expr.elt, ast.Name) and any(
        isinstance(generator.target, ast.Name) and generator.target.id == expr.elt.id for generator in expr.generators)


def _self_attrs(method) -> Optional[tuple]:
    """The `self.X` a method uses, or None when `self` escapes it."""
    out = set()
    for node in _own_nodes(method):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            out.add(node.attr)
        elif isinstance(node, ast.Call) and (_dotted(node.func) in ("super", "getattr", "vars") or any(
                isinstance(arg, ast.Name) and arg.id == "self" for arg in node.args)):
            return None
    return tuple(sorted(out))


def _returned_attr(method) -> Optional[str]:
    """X when the method takes only self, calls nothing and every return is `self.X`."""
    if len(method.args.args) != 1 or method.args.vararg or method.args.kwarg or method.args.kwonlyargs:
        return None
    own = list(_own_nodes(method))
    returns = [n for n in own if isinstance(n, ast.Return)]
    if not returns or any(isinstance(n, (ast.Call, ast.Yield, ast.YieldFrom)) for n in own):
        return None
    attrs = {n.value.attr for n in returns if isinstance(n.value, ast.Attribute)
             and isinstance(n.value.value, ast.Name) and n.value.value.id == "self"}
    return attrs.pop() if len(attrs) == 1 and all(isinstance(n.value, ast.Attribute) for n in returns) else None


def _env_step(call: ast.Call) -> bool:
    """`self._env.step(action)`, `env.step(a)`: a step handed a value that is no
    optimizer and no closure (`opt.step()`, `scaler.step(opt)`, `opt.step(closure)`
    are optimizer steps) is an environment's, not a training event."""
    if call.func.attr != "step" or len(call.args) != 1 or call.keywords:
        return False
    arg = call.args[0]
    if isinstance(arg, ast.Lambda):
        return False
    name = (_dotted(arg) or "").rsplit(".", 1)[-1].lower()
    receiver = (_dotted(call.func.value) or "").rsplit(".", 1)[-1].lower()
    return not any(word in name for word in ("opt", "closure")) and \
        not any(word in receiver for word in ("scaler", "accelerator", "opt"))


def _join(kinds) -> str:
    if "unknown" in kinds:
        return "unknown"
    if "graph" in kinds:
        return "graph"
    if "cut" in kinds:
        return "cut"
    return "const"


class _AsElt:
    """A dict comprehension seen as one over its values, for _comp_bound."""

    def __init__(self, comp: ast.DictComp) -> None:
        self.elt, self.generators = comp.value, comp.generators


def _self_rooted(expr) -> bool:
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return isinstance(expr, ast.Name) and expr.id == "self"


def _reads_self(method) -> bool:
    args = method.args.posonlyargs + method.args.args
    if not args or args[0].arg != "self" or any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                                                for d in method.decorator_list):
        return True  # not a plain method: assume it does
    return any(isinstance(n, ast.Name) and n.id == "self" for n in ast.walk(method))


def _class_facts(walker: _Fn, method, methods: dict) -> dict:
    """arg_flow (for a method that cuts something, or hands its work to
    another method) and stores_graph, for one method of a class."""
    out = {}
    own = list(_own_nodes(method))
    if method.name not in ("forward", "__call__") and not _reads_self(method):
        out["self_flow"] = "const"  # `def out_lengths(self, n)` that never reads self: no module's graph
    if walker.quiet or any(isinstance(node, ast.Attribute) and (node.attr in CUT_METHODS or node.attr in CUT_ATTRS) or
           isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
           (_dotted(node.func.value) == "self" or
            node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "self")
           for node in own):
        out["arg_flow"] = walker.arg_flow()
        out.setdefault("self_flow", walker.self_flow())
        if method.name in ("forward", "__call__"):
            # `g_loss, d_loss = loss_fn(G, D, real, x)`: which arguments each element hangs from
            # (a loss class's `__call__` too: YOLOv6's `loss, loss_items = self.compute_loss(...)`)
            out["elem_flow"] = walker.elem_flow()
            if out["elem_flow"]:
                out["params"] = tuple(arg.arg for arg in method.args.args[1:])
    elif not (method.args.vararg or method.args.kwarg):
        if "self_flow" not in out and any(
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
                _self_rooted(node.func.value) and walker._selfless(node.func.attr) for node in own):
            out["self_flow"] = walker.self_flow()  # it hands its work to a submodule's selfless method
        # nothing cut here: each argument is taken to pass its graph
        out["arg_flow"] = ("graph",) * max(0, len(method.args.args) - (1 if method.args.args[:1] and
                                                                   method.args.args[0].arg == "self" else 0))
    if method.name == "forward":
        out["handed_back"] = handed_back(method)
        out["forward_stores"] = _forward_stores(walker, own)
    if method.name != "__init__":
        keys = []
        for node in own:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    for key in _self_keys(target):
                        if key not in keys and id(node) not in walker.quiet and \
                                walker.kind(node.value) not in ("cut", "const") and \
                                _runs_network(node.value, walker.assigned, methods):
                            keys.append(key)
        out["stores_graph"] = tuple(keys)
    return out


def _forward_stores(walker: _Fn, own: list) -> tuple:
    """X for each `self.X = v` or `self.X[k] = v` of a forward, v not cut nor constant."""
    keys = []
    for node in own:
        if not isinstance(node, ast.Assign) or id(node) in walker.quiet or walker.kind(node.value) in ("cut", "const"):
            continue
        for target in node.targets:
            for part in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
                part = part.value if isinstance(part, ast.Subscript) else part
                if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and part.value.id == "self" \
                        and part.attr not in keys:
                    keys.append(part.attr)
    return tuple(keys)


PLAIN_TYPES = frozenset({"float", "int", "str", "bool", "None", "complex", "bytes"})
PLAIN_GENERICS = frozenset({"Dict", "dict", "List", "list", "Tuple", "tuple", "Set", "set", "Sequence",
                            "Mapping", "Optional", "Union", "Iterable"})


def _plain_type(node, plain_classes: frozenset) -> bool:
    """Does the annotation name a type that holds no tensor: `float`, `Dict[str, float]`,
    `List[Tuple[int, str]]`, `Optional[float]`, a class of the file subclassing one?"""
    if isinstance(node, ast.Constant):
        return node.value is None or node.value is Ellipsis
    if isinstance(node, ast.Name):
        return node.id in PLAIN_TYPES or node.id in plain_classes
    if isinstance(node, ast.Attribute):  # typing.Dict without arguments holds anything
        return False
    if isinstance(node, ast.Subscript):
        head = _dotted(node.value) or ""
        if head.split(".")[-1] not in PLAIN_GENERICS:
            return False
        inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return all(_plain_type(x, plain_classes) for x in inner)
    return False


def _plain_result(summary: Summary, fn, plain_classes: frozenset) -> Summary:
    """A function annotated to return plain values (`-> float`, `-> FloatLossDict` where
    `class FloatLossDict(Dict[str, float])`) returns no graph when its body cannot tell: the
    annotation is believed only there (`-> float` on a function returning a loss tensor is common)."""
    if summary.events or fn.returns is None or summary.result != "unknown" or \
            not _plain_type(fn.returns, plain_classes):
        return summary
    return replace(summary, result="cut", no_graph=True, arity=0, elems=())


def _function_summary(walker: _Fn) -> Summary:
    """A module-level function's summary; for one that cuts something
    (`cond = conditions.detach()`), which parameters the result and each
    element of a returned tuple hang from (arg_flow, elem_flow, params)."""
    out = walker.summary()
    fn = walker.fn
    if out.events or fn.args.vararg or fn.args.kwonlyargs or fn.args.args[:1] and \
            fn.args.args[0].arg in ("self", "cls"):
        return out
    if not (walker.quiet or any(isinstance(node, ast.Attribute) and (node.attr in CUT_METHODS or node.attr in CUT_ATTRS)
                                for node in _own_nodes(fn)) or _calls_cutting_helper(walker)):
        return out
    flow = walker.arg_flow(kwarg=True)
    if flow is None:
        return out
    kw = ("**" + fn.args.kwarg.arg,) if fn.args.kwarg is not None else ()
    return replace(out, arg_flow=flow, elem_flow=walker.elem_flow(kwarg=True) if out.arity else (),
                   params=tuple(arg.arg for arg in fn.args.args) + kw)


def _calls_cutting_helper(walker, depth=0) -> bool:
    """`fn` hands its arguments to a function of its file that cuts something (`.data`, `.item()`,
    `.detach()`), itself or through another such call: its flow per argument is worth reading."""
    for node in _own_nodes(walker.fn):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        callee = walker.funcs.get(node.func.id)
        if callee is None or callee is walker.fn:
            continue
        if any(isinstance(n, ast.Attribute) and (n.attr in CUT_METHODS or n.attr in CUT_ATTRS)
               for n in _own_nodes(callee)):
            return True
    return False


NETS = " nets"  # key, in a class's method table, of the attributes that may hold networks


def _nets(classes: dict, methods: dict) -> frozenset:
    every = {method for table in classes.values() for method in table}
    return frozenset(key for method in methods.values() if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
                     for node in _own_nodes(method) if isinstance(node, ast.Assign)
                     for target in node.targets for key in _self_keys(target) if key[5:] not in every)


def _attr_kinds(methods: dict) -> dict:
    """`self.X` -> the join of the kinds of every value the class's methods
    store there, `self` itself not counting as a graph (so `self.n = 0`
    and `self.lr = float(lr)` are constants, and `self.h = self.rnn(x)`
    is not)."""
    out: dict = {}
    for method in methods.values():
        walker = None
        for node in _own_nodes(method):
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                keys = [kind for target in targets for kind in _self_keys(target)]
                if not keys:
                    continue
                if walker is None:
                    walker = _Fn(method, {})
                    walker.params = walker.params - {"self"}
                    walker._collect()
                kind = walker.kind(node.value) if not isinstance(node, ast.AugAssign) else "unknown"
                for key in keys:
                    out[key] = _join([out[key], kind]) if key in out else kind
    return out


def _runs_network(expr, assigned: dict, methods: dict) -> bool:
    """Does `e` call a network held on `self` (`self.netG(x)`,
    `self.netG.forward(x)`), directly or through local names (up to 6
    deep)? A network is an attribute the class assigns and no class of the
    file defines as a method (`self.run_CG(...)` of a base class is not one)."""
    # Breadth first, each value once: following every path through names that
    # feed each other was exponential (minutes on image2reverb's model.py).
    seen = {id(expr)}
    level = [expr]
    for _ in range(7):
        following = []
        for value in level:
            for node in ast.walk(value):
                if isinstance(node, ast.Call):
                    parts = (_dotted(node.func) or "").split(".")
                    if parts[0] == "self" and len(parts) in (2, 3) and f"self.{parts[1]}" in methods.get(NETS, ()) \
                            and (len(parts) == 2 or parts[2] == "forward"):
                        return True
                elif isinstance(node, ast.Name):
                    for source in assigned.get(node.id, ()):
                        if id(source) not in seen:
                            seen.add(id(source))
                            following.append(source)
        level = following
        if not level:
            break
    return False


def _self_keys(target) -> list:
    """`self.X` targets of an assignment (`self.a, self.b = f()` too)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [elem_key for elem in target.elts for elem_key in _self_keys(elem)]
    key = _dotted(target) if isinstance(target, ast.Attribute) else None
    return [key] if key and key.count(".") == 1 and key.startswith("self.") else []


def _backwarded_names(fn) -> set:
    """Local names the body runs a backward on: `loss.backward()`,
    `scaler.scale(loss).backward()`, `accelerator.backward(loss)`, `self.manual_backward(loss)`."""
    out = set()
    for node in _own_nodes(fn):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in ("backward", "manual_backward") or _bound_backward(fn, node):
            continue
        targets = []
        if node.func.attr == "backward":
            target = node.func.value
            if isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute) and \
                    target.func.attr == "scale" and len(target.args) == 1:
                target = target.args[0]
            targets.append(target)
        if node.args and (node.func.attr == "manual_backward" or not _grad_like(node.args[0])):
            targets.append(node.args[0])  # accelerator.backward(loss); not out.backward(grad_out)
        out.update(target.id for target in targets if isinstance(target, ast.Name))
    return out


def _grad_like(expr) -> bool:
    name = (_dotted(expr) or "").split(".")[-1].lower()
    return not name or "grad" in name or name in ("gradient", "ones", "g")


def _over_parameters(expr) -> bool:
    """`for p in model.parameters()`: every element is a leaf that requires grad,
    so what is computed from it carries a graph (an L2 penalty summed from 0)."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
        expr.func.attr in ("parameters", "named_parameters")


def _loop_binds(target, it) -> list:
    """(name, value) pairs a `for` binds: `zip(a, b)` hands out a's and b's elements position by
    position, `enumerate(a)` and `d.items()` a's (d's) as the second name; otherwise each name holds
    an element of what is iterated (the kind of a container is that of its elements)."""
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(it, ast.Call) and not it.keywords and \
            not any(isinstance(arg, ast.Starred) for arg in it.args):
        name = _dotted(it.func)
        if name == "zip" and len(it.args) == len(target.elts):
            return [pair for elt, arg in zip(target.elts, it.args) for pair in _loop_binds(elt, arg)]
        if name == "enumerate" and len(it.args) == 1 and len(target.elts) == 2:
            return _loop_binds(target.elts[1], it.args[0])
        if isinstance(it.func, ast.Attribute) and it.func.attr == "items" and not it.args and len(target.elts) == 2:
            return _loop_binds(target.elts[1], it.func.value)
    return [(name, it) for name in _names(target)]


def _top_rebind(body, name: str):
    """Ids of the reads of `name` in the first statement of a loop body that mentions it, when that
    statement is `name = ...` (`dr = dr.float()`): later reads see the rebound value only. None
    when the first mention is anything else."""
    for stmt in body:
        hits = [node for node in ast.walk(stmt) if isinstance(node, ast.Name) and node.id == name]
        if not hits:
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id == name:
            return {id(node) for node in ast.walk(stmt.value) if isinstance(node, ast.Name) and node.id == name}
        return None
    return None


def _cut_atop(walker, body, name: str) -> bool:
    """`for image in images: image = torch.unsqueeze(image.data, 0)`: the loop
    value is cut first thing, so no later statement sees the argument's graph."""
    if _top_rebind(body, name) is None:
        return False
    first = next(stmt for stmt in body if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(stmt)))
    return walker.kind(first.value) in ("cut", "const")


_INDICES = ast.Constant(value=0)  # what the indices of a (values, indices) call hold: no graph


def _with_indices(call) -> bool:
    """`x.topk(k)`, `x.max(1)`, `torch.sort(x)`: a call that returns (values, indices)."""
    if not isinstance(call, ast.Call):
        return False
    name = _dotted(call.func) or ""
    if name.startswith(("torch.", "th.")) and name.count(".") == 1:
        meth, dims = name.split(".")[1], 2
    elif isinstance(call.func, ast.Attribute):
        meth, dims = call.func.attr, 1
    else:
        return False
    if meth in WITH_INDICES:
        return True
    return meth in WITH_INDICES_DIM and (len(call.args) >= dims or any(k.arg == "dim" for k in call.keywords))


def _pairs(target, value) -> list:
    """(name, the expression it is bound to) for an assignment's target."""
    if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) and \
                not any(isinstance(e, ast.Starred) for e in value.elts):
            return [pair for t, v in zip(target.elts, value.elts) for pair in _pairs(t, v)]
        if len(target.elts) == 2 and _with_indices(value):
            return _pairs(target.elts[0], value) + [(name, _INDICES) for name in _names(target.elts[1])]
    return [(name, value) for name in _names(target)]


def _names(target) -> list:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for elem in target.elts for name in _names(elem)]
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        return [target.value.id]  # `preds[:, t] = out`: the container holds what is stored in it
    return []


def _rebound(func, params) -> dict:
    """Parameters a statement of the body's top level assigns before anything
    else reads them (`fake = fake.detach()`): name -> ids of the reads, in that
    assignment's value, that still see the argument."""
    out: dict = {}
    seen: set = set()
    for stmt in func.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            if name in params and name not in seen and name not in out:
                out[name] = {id(node) for node in ast.walk(stmt.value)
                           if isinstance(node, ast.Name) and node.id == name}
        seen.update(node.id for node in ast.walk(stmt) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load))
        if params <= seen:  # every parameter read: no later statement adds one
            break
    return out


def _numpy_names(func) -> frozenset:
    """Names every plain assignment of `func` binds to a numpy call (`ssim = np.zeros(n)`)."""
    out = func.__dict__.get(_NUMPY_NAMES)
    if out is None:
        plain: dict = {}
        for node in _own_nodes(func):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        plain.setdefault(target.id, []).append(node.value)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)) and isinstance(node.target, ast.Name):
                plain.setdefault(node.target.id, []).append(None)
        out = func.__dict__[_NUMPY_NAMES] = frozenset(
            name for name, values in plain.items()
            if all(isinstance(v, ast.Call) and (_dotted(v.func) or "").startswith(NUMPY) for v in values))
    return out


_NUMPY_NAMES = "_autodetach_numpy_names"


def _binds(stmt, name: str) -> bool:
    """Does `stmt` (anywhere in it) bind `name`?"""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(stmt))


# constructors that copy their argument's data into a new tensor (a leaf: no graph of the argument)
FRESH = {f"torch.{k}" for k in ("tensor", "LongTensor", "FloatTensor", "DoubleTensor", "IntTensor", "BoolTensor",
                                "ByteTensor", "from_numpy")}


def _fresh_nodes(expr):
    """The nodes of `expr`, less those under a new tensor made from data (`torch.tensor(x)`,
    `torch.FloatTensor(x)`, `torch.from_numpy(a)`) or a numpy call (`np.float32(s)`, `np.array(s)`)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and ((_dotted(node.func) or "") in FRESH or
                                           (_dotted(node.func) or "").startswith(NUMPY)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _live_nodes(expr):
    """The nodes of `expr`, less those under a cut: `.detach()`, `.data`, `.item()`."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("detach", "item", "tolist", "numpy"):
            continue
        if isinstance(node, ast.Attribute) and node.attr == "data":
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _own_nodes(func) -> list:
    """Nodes of `fn` outside nested functions and classes, less the `else` of
    `if isinstance(v, Variable):`, which no tensor reaches (every tensor is a
    Variable since PyTorch 0.4). A shared list: do not change it."""
    # Kept on the node: a method's summary asks for its nodes about eight times.
    out = func.__dict__.get(_OWN)
    if out is None:
        out = func.__dict__[_OWN] = list(_walk_own_nodes(func))
    return out


_OWN = "_autodetach_own_nodes"  # not one of the ast fields, so no walk or dump sees it


def _bound_backward(fn, call) -> bool:
    """`z, ld = flow.backward(z)`: a `.backward(...)` whose result is assigned
    is a method of the object's own (a flow's inverse pass), not autograd's,
    which returns None."""
    bound = fn.__dict__.get(_BOUND)
    if bound is None:
        bound = fn.__dict__[_BOUND] = {id(n.value) for n in _own_nodes(fn)
                                       if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))}
    return id(call) in bound


_BOUND = "_autodetach_bound_calls"


def _walk_own_nodes(func):
    stack = list(func.body)
    while stack:
        node = stack.pop()
        yield node
        dead = node.orelse if isinstance(node, ast.If) and _is_variable_check(node.test) else ()
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)) \
                    and not any(child is stmt for stmt in dead):
                stack.append(child)


PLAIN_TYPES = {"int", "float", "bool", "str", "complex", "numbers.Number", "Number", "numbers.Real"}
TENSOR_TYPES = {"torch.Tensor", "Tensor", "torch.FloatTensor"}


def tensor_test(func: Optional[str], types: Optional[set]) -> Optional[bool]:
    """For a test `func(v, ...)`: True when it holds for tensors only (`isinstance(v, torch.Tensor)`,
    `torch.is_tensor(v)`), False when for numbers or strings only (`isinstance(v, (int, float))`,
    `types` the dotted names of the classes); None otherwise. Shared by flow.py (libcst)."""
    if func == "isinstance" and types:
        return False if types <= PLAIN_TYPES else True if types <= TENSOR_TYPES else None
    return True if func in ("torch.is_tensor", "is_tensor") else None


def _plain_branch(node):
    """(name, statements) where `node` (an `if` or `a if test else b`) proves
    `name` is no tensor: the body of an `isinstance` test against numbers/strings
    or of a negated tensor test, the else of a tensor test (`x.detach() if
    torch.is_tensor(x) else x`). None when it proves nothing."""
    test, negated = node.test, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    if not isinstance(test, ast.Call) or not test.args or not isinstance(test.args[0], ast.Name):
        return None
    func = _dotted(test.func)
    types = None
    if func == "isinstance" and len(test.args) == 2:
        types = {_dotted(t) for t in (test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]])}
    tensor = tensor_test(func, types)
    if tensor is None:
        return None
    plain = (not tensor) != negated  # the body is the plain branch
    branch = node.body if plain else node.orelse
    if isinstance(node, ast.IfExp):
        branch = [branch]
    return (test.args[0].id, branch) if branch else None


def _is_variable_check(test) -> bool:
    """`isinstance(v, Variable)` (or `torch.autograd.Variable`)."""
    return isinstance(test, ast.Call) and _dotted(test.func) == "isinstance" and len(test.args) == 2 and \
        (_dotted(test.args[1]) or "").split(".")[-1] == "Variable"


_BACKWARD_CALL = re.compile(r"\.\s*backward\s*\(")


def calls_backward(text: str) -> bool:
    """Can the code call `x.backward(...)`? False proves it does not (no parse)."""
    return "backward" in text and _BACKWARD_CALL.search(text) is not None


CALLS = " calls"  # key of the table of calls that pass a backwarded value (no function has this name)


def passed_graphs(body) -> dict:
    """meth -> ((line, position, name), ...) for calls `x.meth(..., name, ...)`
    in a loop of `body` (statements of one function, or of the module) that
    pass a name which `name.backward()` / `name[k].backward()` there shows to
    carry a graph, outside `torch.no_grad()`: how a meter of another file
    is fed."""
    backwarded = set()
    for node in _walk_own(body):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "backward":
            value = node.func.value
            while isinstance(value, ast.Subscript):
                value = value.value
            if isinstance(value, ast.Name):
                backwarded.add(value.id)
    if not backwarded:
        return {}
    out: dict = {}
    # a training step (`loss.backward()`, then `self._optimizer.step()`): its caller runs it once per batch,
    # so a call anywhere in it is repeated as in a loop
    step = any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step" and
               not node.args and not node.keywords for node in _walk_own(body))

    def visit(nodes, loop, guarded):
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(node, ast.With) and any("no_grad" in (_dotted(i.context_expr.func) or "")
                                                  for i in node.items if isinstance(i.context_expr, ast.Call)):
                guarded_here = True
            else:
                guarded_here = guarded
            if loop and not guarded_here and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                for i, arg in enumerate(node.args):
                    if isinstance(arg, ast.Name) and arg.id in backwarded:
                        out.setdefault(node.func.attr, []).append((node.lineno, i, arg.id))
            visit(list(ast.iter_child_nodes(node)), loop or isinstance(node, (ast.For, ast.While)), guarded_here)

    visit(list(body), step, False)
    return {meth: tuple(value) for meth, value in out.items()}


def _walk_own(body):
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


RECURRENT_LAYERS = {"torch.nn.RNN", "torch.nn.GRU", "torch.nn.LSTM"}  # cells run per step: left out
IMPORTS = " from"  # key of the re-export table (no function has this name)


def _aliases(tree) -> dict:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                out[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                out[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return out


def _dist_names(tree) -> frozenset:
    """Names the file binds to torch.distributions (`import torch.distributions
    as D`, `from torch import distributions`) or to its classes (`from
    torch.distributions import Categorical`)."""
    out = set()
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.Import):
            out.update(a.asname for a in node.names if a.asname and a.name.startswith("torch.distributions"))
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module == "torch.distributions" or node.module.startswith("torch.distributions."):
                out.update(a.asname or a.name for a in node.names if a.name != "*")
            elif node.module == "torch":
                out.update(a.asname or a.name for a in node.names if a.name == "distributions")
    return frozenset(out)


def _qualify(node, aliases) -> Optional[str]:
    name = _dotted(node)
    if name is None:
        return None
    head, _, rest = name.partition(".")
    full = aliases.get(head)
    return (full + ("." + rest if rest else "")) if full else None


def _self_attr(target) -> Optional[str]:
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return target.attr
    return None


def _stores(func, attr) -> list:
    return [node for node in ast.walk(func) if isinstance(node, ast.Assign)
            and any(_self_attr(part) == attr for target in node.targets for part in ast.walk(target))]


def class_state(cls, aliases) -> tuple:
    """((attr, resets), ...): `self.X` that forward feeds into a recurrent
    layer of the module (`_, self.h = self.gru(x, self.h)`) and stores again,
    with nothing in the class cutting it; `resets` are the other methods that
    assign it (`reset_state`)."""
    methods = {method.name: method for method in cls.body
               if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))}
    fwd = methods.get("forward")
    if fwd is None:
        return ()
    layers = set()
    for method in methods.values():
        for node in ast.walk(method):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                    _qualify(node.value.func, aliases) in RECURRENT_LAYERS:
                layers.update(stored for target in node.targets for stored in [_self_attr(target)] if stored)

    def layer_call(value) -> bool:
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
            _self_attr(value.func) in layers

    fed = []
    for node in ast.walk(fwd):
        if isinstance(node, ast.Assign) and layer_call(node.value):
            reads = {_self_attr(part) for stored in node.value.args + [keyword.value for keyword in node.value.keywords]
                     for part in ast.walk(stored)} - {None}
            fed += [stored for target in node.targets for part in ast.walk(target)
                    for stored in [_self_attr(part)] if stored in reads]
    out = []
    for attr in dict.fromkeys(fed):
        if any(not layer_call(store.value) for store in _stores(fwd, attr)):
            continue  # forward resets or detaches it itself
        if any(isinstance(node, ast.Attribute) and node.attr in ("detach_", "detach") and
               any(_self_attr(part) == attr for part in ast.walk(node.value)) for node in ast.walk(cls)):
            continue
        resets = tuple(sorted(name for name, method in methods.items()
                              if name not in ("__init__", "forward") and _stores(method, attr)))
        out.append((attr, resets))
    return tuple(out)


def methods_named(table, meth: str) -> list:
    """(key, summary) of every `C.meth` of a summary table, in its order
    (of an OwnSummaries: summarising the classes up to the last of them)."""
    if isinstance(table, OwnSummaries):
        return table.methods_named(meth)
    return [(key, s) for key, s in table.items() if "." in key and key.partition(".")[2] == meth]


def summarize(text: str) -> dict:
    """name -> Summary for the module's functions (`f`) and methods (`C.m`);
    under IMPORTS, local name -> (level, module, name) of its `from` imports
    (a package's `__init__` re-exports)."""
    return OwnSummaries(text)._whole()


_TREES: dict = {}  # text -> its ast.Module (None: does not parse), oldest first
TREE_CHARS = 2_000_000  # about 80 MB of trees
_trees_lock = threading.Lock()


def parse_text(text: str):
    """ast.parse(text), None when it does not parse. A file's text is read by
    several readers in one run (its own analysis, the summaries another file
    looks up, the callers' scans): they share one tree, which none of them
    changes (the caches hung on function nodes are pure functions of them)."""
    if isinstance(text, bytes):  # a caller file's bytes (metric_states._callers)
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            return None
    if not isinstance(text, str):  # summarize() handed a tree
        return ast.parse(text)
    hit = _TREES.get(text, _TREES)
    if hit is not _TREES:
        return hit
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        tree = None
    with _trees_lock:
        _TREES[text] = tree
        total = sum(map(len, _TREES))
        while total > TREE_CHARS and len(_TREES) > 1:
            oldest = next(iter(_TREES))
            total -= len(oldest)
            del _TREES[oldest]
    return tree


def may_declare(text: str, kind: str, name: str) -> bool:
    """Could `text` hold `class name` / `def name` (kind "class" or "def")?
    False proves it does not, with no parse; a nested or quoted one still says True."""
    prefix = r"(?:async[ \t]+)?def" if kind == "def" else "class"
    return re.search(rf"^[ \t\f]*{prefix}[ \t]+{re.escape(name)}\b", text, re.M) is not None


class OwnSummaries(Mapping):
    """summarize(text) as a read-only mapping computed on demand. The class
    methods are summarised in file order, as summarize does (they share
    per-argument flows, so the order matters), and only as far as a lookup
    needs: `C.m` runs up to the last method `m` of a class named C (to the
    end of that class for `forward`, whose state is set there); a method no
    class C defines (`model.cuda()`) runs nothing. The functions and the
    call table wait for a lookup of their own. A file's analysis asks for a
    few methods of its own classes, once per fix pass."""

    def __init__(self, text: str) -> None:
        # The project memo shares a table between the files that look it up
        # (and a caller's threads): one lookup runs the steps at a time.
        self._lock = threading.RLock()
        self._text = text
        self._tree = None
        self._parsed = False
        self._funcs: Optional[dict] = None
        self._calls: Optional[dict] = None
        self._classes: dict = {}  # "C.m" -> Summary, for the steps done so far
        self._steps: list = []  # (class, method or None for the class's end), in file order
        self._done = 0  # steps run
        self._until: dict = {}  # "C.m" -> number of steps that settle its summary
        self._flows: dict = {}
        self._aliases = None
        self._dists: Optional[frozenset] = None
        self._all: Optional[dict] = None
        self._targets: dict = {}
        self._declared: dict = {}  # (kind, name) -> declares()

    def _parse(self):
        with self._lock:
            return self._parse_locked()

    def _parse_locked(self):
        if not self._parsed:
            self._parsed = True
            self._tree = parse_text(self._text)
            classes = [] if self._tree is None else [cls for cls in self._tree.body if isinstance(cls, ast.ClassDef)]
            defs = (ast.FunctionDef, ast.AsyncFunctionDef)
            self._methods = {cls.name: {m.name: m for m in cls.body if isinstance(m, defs)} for cls in classes}
            for cls in classes:
                for m in cls.body:
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self._steps.append((cls, m))
                        self._until[f"{cls.name}.{m.name}"] = len(self._steps)
                self._steps.append((cls, None))
                if f"{cls.name}.forward" in self._until:
                    self._until[f"{cls.name}.forward"] = len(self._steps)
        return self._tree

    def _functions(self, upto: Optional[str] = None) -> dict:
        """The summaries of the file's functions, in file order; with `upto`,
        only as far as that function. A function's summary depends on the
        ones before it alone (the `helpers` memo they fill, cycles cut where
        they started): summarised in order, up to a name, each comes out as
        in the whole table (`_backwarded` asks for one of every call's)."""
        if self._funcs is None:
            tree = self._parse()
            funcs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            self._funcs = {}
            self._fn_steps = (funcs, _dist_names(tree), {}, list(funcs.items()))
        funcs, dists, helpers, todo = self._fn_steps
        out = self._funcs
        while len(out) < len(todo) and (upto is None or upto not in out):
            name, fn = todo[len(out)]
            out[name] = _plain_result(_function_summary(_Fn(fn, funcs, dists=dists, helpers=helpers,
                                                            instances=self._instance_cut)), fn,
                                      self._plain_classes())
        return out

    def _call_table(self) -> dict:
        if self._calls is None:
            calls: dict = {}
            # passed_graphs needs a `.backward` call in the body: a file, or a
            # function, whose text never says "backward" has none to look at
            text = self._text if isinstance(self._text, str) else None
            tree = self._parse() if text is None or calls_backward(text) else None
            if tree is not None:
                lines = text.splitlines() if text is not None else None
                bodies = [tree.body] + [f.body for f in statements(tree)
                                        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and
                                        (lines is None or calls_backward("\n".join(lines[f.lineno - 1:f.end_lineno])))]
                for body in bodies:
                    for meth, sites in passed_graphs(body).items():
                        calls[meth] = calls.get(meth, ()) + sites
            self._calls = calls
        return self._calls

    def _run(self, end: int) -> None:
        """Run the steps before `end`."""
        out = self._classes
        while self._done < end:
            cls, m = self._steps[self._done]
            self._done += 1
            methods = self._methods[cls.name]
            if m is None:  # the class's end
                if f"{cls.name}.forward" in out:
                    if self._aliases is None:
                        self._aliases = _aliases(self._tree)
                    state = class_state(cls, self._aliases)
                    if state:
                        out[f"{cls.name}.forward"] = replace(out[f"{cls.name}.forward"], state=state)
                continue
            if self._facts is None or self._facts[0] is not cls:
                self._facts = (cls, _attr_kinds(methods), _nets(self._methods, methods))
            _, attrs, nets = self._facts
            if self._dists is None:
                self._dists = _dist_names(self._tree)
            fn = _Fn(m, {}, self._methods, cls.name, attrs, self._flows, dists=self._dists)
            key = f"{cls.name}.{m.name}"
            out[key] = replace(fn.summary(), **_class_facts(fn, m, {**methods, NETS: nets}))
            calls = tuple(sorted({n.func.attr for n in _own_nodes(m) if isinstance(n, ast.Call) and
                                  isinstance(n.func, ast.Attribute) and _dotted(n.func.value) == "self"}))
            if calls:
                out[key] = replace(out[key], self_calls=calls)
            out[key] = replace(out[key], self_attrs=_self_attrs(m))
            if m.name == "forward":
                out[key] = replace(out[key], returns_attr=_returned_attr(m))
            if abstract_stub(m):
                # an override out of sight runs instead: what it returns is not known
                out[key] = replace(out[key], result="unknown", no_graph=False, self_flow=None, arity=0, elems=(),
                                   elem_flow=(), abstract=True)
            out[key] = _plain_result(out[key], m, self._plain_classes())

    def _instance_cut(self, cls: str) -> bool:
        """Does `cls(...)(x)` return no graph: a class of this file whose `__call__`
        returns only cut values?"""
        key = f"{cls}.__call__"
        return key in self._until and self[key].no_graph

    _facts = None  # (class, its attribute kinds, its nets), for the class being summarised
    _plain: Optional[frozenset] = None

    def _plain_classes(self) -> frozenset:
        """Classes of the file that subclass a container of plain values (`class
        FloatLossDict(Dict[str, float])`): an object of one holds no tensor."""
        if self._plain is None:
            tree = self._parse()
            self._plain = frozenset(cls.name for cls in (tree.body if tree is not None else ())
                                    if isinstance(cls, ast.ClassDef) and cls.bases and
                                    all(_plain_type(base, frozenset()) for base in cls.bases))
        return self._plain

    def _whole(self) -> dict:
        with self._lock:
            return self._whole_locked()

    def _whole_locked(self) -> dict:
        if self._all is None:
            tree = self._parse()
            if tree is None:
                self._all = {}
            else:
                out: dict = {IMPORTS: self._imports()}
                out.update(self._functions())
                out[CALLS] = self._call_table()
                self._run(len(self._steps))
                out.update(self._classes)
                self._all = out
        return self._all

    def _imports(self) -> dict:
        if self._imps is None:
            self._imps = {alias.asname or alias.name: (n.level, n.module or "", alias.name)
                          for n in self._parse().body if isinstance(n, ast.ImportFrom) for alias in n.names}
        return self._imps

    _imps: Optional[dict] = None

    def class_keys(self) -> list:
        """The `C.m` keys, in the order the whole table lists them; nothing is summarised."""
        return [] if self._parse() is None else list(self._until)

    def of_class(self, cls: str) -> dict:
        """`C.m` -> Summary for the keys under `cls`, summarising the classes up to it only."""
        if not self.declares("class", cls):
            return {}
        return {key: self[key] for key in self.class_keys() if key.startswith(cls + ".")}

    def self_targets(self, cls: str) -> frozenset:
        """`self.X` assigned in a method of `cls` other than `__init__`: the
        keys `stores_graph` can name (a bound found without summarising)."""
        memo = self._targets
        if cls not in memo and not self.declares("class", cls):
            memo[cls] = frozenset()
        if cls not in memo:
            memo[cls] = frozenset() if self._parse() is None else frozenset(
                key for c, m in self._steps if m is not None and m.name != "__init__" and
                f"{c.name}.{m.name}".startswith(cls + ".")
                for node in _own_nodes(m) if isinstance(node, ast.Assign)
                for target in node.targets for key in _self_keys(target))
        return memo[cls]

    def __getitem__(self, key):
        with self._lock:
            return self._get(key)

    def declares(self, kind: str, name: str) -> bool:
        """Could the text hold `class name` / `def name` (kind "class" or
        "def")? False proves it does not, with no parse; a nested or quoted
        one still says True."""
        key = (kind, name)
        hit = self._declared.get(key)
        if hit is None and not isinstance(self._text, str):  # built from a tree: no text to read
            return True
        if hit is None:
            hit = self._declared[key] = may_declare(self._text, kind, name)
        return hit

    def mentions(self, word: str) -> bool:
        """Does `word` occur in the text as a whole word (an import of it must)?"""
        return not isinstance(self._text, str) or re.search(rf"\b{re.escape(word)}\b", self._text) is not None

    def _get(self, key):
        if self._all is None and isinstance(key, str):
            is_name = not key.startswith(" ")  # not the re-exports or the call table
            if is_name:
                # most lookups name what the file does not define (`model.cuda`, a
                # re-exported name): the text says so without parsing the file
                cls, dot, meth = key.partition(".")
                if not self.declares("class" if dot else "def", cls) or dot and not self.declares("def", meth):
                    raise KeyError(key)
            if self._parse() is None:
                raise KeyError(key)
            if is_name and "." in key:
                end = self._until.get(key)
                if end is None:
                    raise KeyError(key)
                self._run(end)
                return self._classes[key]
            # a function, the re-exports or the call table: no class is summarised
            if key == IMPORTS:
                return self._imports()
            if key == CALLS:
                return self._call_table()
            if "." not in key:
                return self._functions(key)[key]
        return self._whole()[key]

    def methods_named(self, meth: str) -> list:
        """(key, summary) of every `C.meth`, in the table's order, summarising
        the classes up to the last of them only."""
        if not self.declares("def", meth):
            return []
        return [(key, self[key]) for key in self.class_keys() if key.partition(".")[2] == meth]

    def __iter__(self):
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())
