"""The per-file analysis every AD1xx rule asks: built lazily, once."""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from functools import cached_property

import libcst as cst

from ..imports import dotted
from .bindings import target_names
from .decide import find
from .drivers import driver_walks
from .optimizer_phases import phase_walks
from .plain_attributes import plain_attribute
from .size_reads import read_as_size, size_place
from .runtime_classes import runtime_method
from .flow import INLINE_LEAF, GiveUp, Scope
from .graph import reset_ids
from .names import build_names
from .walk import bound_argument, class_methods, last_node, nodes

BACKWARD_ATTRS = {"backward", "manual_backward"}


@dataclass
class FunctionSummary:
    has_events: bool  # backward, step or zero_grad inside
    has_backward: bool
    modules: frozenset  # module names it uses


class _Sites:
    """One walk: which functions hold backward sites or optimizer events,
    the module names each uses, every function, and the calls made inside
    loops (per function; None for the module body)."""

    def __init__(self, analysis) -> None:
        self.analysis = analysis
        self.stack: list = []
        self.depth: list = [0]
        self.backward_in: set = set()
        self.events_in: set = set()
        self.events_here: set = set()  # functions whose own body (not a nested def) holds an event
        self.module_level_backward = False
        self.uses: dict = {}
        self.functions: list = []
        self.loop_calls: dict = {None: []}
        self.plain_calls: dict = {None: []}  # the same outside loops (two helper backwards in a row)
        self.calls: dict = {}  # function -> `self.m` / `f` it calls itself (events_through)
        self.bound: set = set()  # ids of calls whose result is assigned
        # The pass's shared pre-order list, not a walk of its own: enter only
        # the five types read, and leave a def or loop after its last node.
        closers: list = []  # (last node below, def or loop), innermost last
        enter = self.enter
        self.called: set = set()  # ids of the `func` of each call met so far (pre-order: before the func)
        self.settings: set = set()  # ids of module names read only for a plain setting (`model.n_window`)
        for n in nodes(analysis.ctx.module):
            t = type(n)
            if t is cst.Attribute:
                if size_place(analysis.ctx, n):
                    # `"TranAD" in args.model`: a test of an attribute, not a read of the variable `model`
                    self.settings.add(id(n.attr))
                if type(n.value) is cst.Name and id(n) not in self.called and \
                        analysis.names.is_module(n.value.value) and (plain_attribute(analysis, n.attr.value) or
                                                                     read_as_size(analysis, n)):
                    self.settings.add(id(n.value))  # a number or string of the module: runs nothing
            elif t is cst.Param:
                self.settings.add(id(n.name))  # `def f(data, model)`: naming a parameter runs nothing
            elif t is cst.Name or t is cst.Call:
                enter(n)
            elif (t is cst.Assign or t is cst.AugAssign or t is cst.AnnAssign) and type(n.value) is cst.Call:
                self.bound.add(id(n.value))  # `z, ld = flow.backward(z)`: not autograd's (it returns None)
            elif t is cst.FunctionDef or t is cst.For or t is cst.While:
                enter(n)
                closers.append((last_node(n), n))
            while closers and closers[-1][0] is n:
                self.leave(closers.pop()[1])

    def enter(self, node):
        node_type = type(node)
        if node_type is cst.FunctionDef:
            self.stack.append(node)
            self.depth.append(0)
            self.uses[node] = set()
            self.functions.append(node)
            self.loop_calls[node] = []
            self.plain_calls[node] = []
        elif node_type is cst.For or node_type is cst.While:
            self.depth[-1] += 1
        elif node_type is cst.Name:
            if self.stack and id(node) not in self.settings and self.analysis.names.is_module(node.value):
                self.uses[self.stack[-1]].add(node.value)
        elif node_type is cst.Call:
            self.call(node)
        return None

    def leave(self, node):
        node_type = type(node)
        if node_type is cst.FunctionDef:
            self.stack.pop()
            self.depth.pop()
        elif node_type is cst.For or node_type is cst.While:
            self.depth[-1] -= 1

    def call(self, node: cst.Call) -> None:
        func = node.func
        self.called.add(id(func))
        key = dotted(func)
        if key is not None:
            if self.depth[-1]:
                self.loop_calls[self.stack[-1] if self.stack else None].append(key)
            else:
                self.plain_calls[self.stack[-1] if self.stack else None].append((key, node))
        if self.stack and (type(func) is cst.Name or type(func) is cst.Attribute and type(func.value) is cst.Name
                           and func.value.value == "self"):
            self.calls.setdefault(self.stack[-1], set()).add(key)
        is_bw = type(func) is cst.Attribute and func.attr.value in BACKWARD_ATTRS and id(node) not in self.bound
        if not is_bw:
            qualified = self.analysis.ctx.imports.qualify(func)
            is_bw = qualified in ("torch.autograd.backward", "torch.autograd.grad")
        is_ev = type(func) is cst.Attribute and func.attr.value in ("step", "zero_grad")
        if not (is_bw or is_ev) and self.stack and (type(func) is cst.Name and func.value in
                                                   self.analysis.ctx.imports.aliases or
                                                   type(func) is cst.Attribute and dotted(func.value) == "self"):
            # a step helper of another file: `update_params(opt, loss)`, a base class's method
            cls = self.analysis._method_class.get(self.stack[0])
            is_bw = self.analysis.step_helper(func, cls) is not None
        if is_bw or is_ev:
            if self.stack:
                self.events_here.add(self.stack[-1])
                for fn in self.stack:
                    self.events_in.add(fn)
                    if is_bw:
                        self.backward_in.add(fn)
            elif is_bw:
                self.module_level_backward = True


class Analysis:
    def __init__(self, ctx) -> None:
        reset_ids()  # the same file gives the same node hashes in any process
        self.ctx = ctx
        self._summaries: dict = {}
        # names of objects of a class chosen at run time whose candidate
        # classes return a graph in some and a number in others (runtime_classes)
        self.mixed_results: set = set()
        # id(statement) -> the assumption a finding there rests on (_unique marks
        # them; GraphRule.report words them): a loop in the caller, an eval function
        self.caller_loop_stmts: dict = {}
        self.eval_stmts: dict = {}
        self.driver_stmts: dict = {}  # statements of a finding seen only in a driver's order (analysis.drivers)
        self.framework_stmts: dict = {}  # the same, for a loop a framework runs (analysis.lightning): no assumption
        # the analysis modules' per-file answers, by table name (see table, memo)
        self.tables: dict = {}

    def table(self, name: str) -> dict:
        """The memo table `name` of one analysis module (key -> answer), empty
        on first use; it lives as long as this file's analysis."""
        return self.tables.setdefault(name, {})

    def memo(self, name: str, build):
        """A per-file answer worked out once: `build()` on first use."""
        if name not in self.tables:
            self.tables[name] = build()
        return self.tables[name]

    @cached_property
    def names(self):
        from .caller_owners import widen
        from .base_attrs import add_base_attr_roles
        from .base_optimizers import add_base_optimizers
        from .factory_optimizers import add_factory_optimizers
        from .plain_classes import mark_plain
        from .returned_optimizers import add_returned_optimizers
        from .copied_modules import mark_copies
        from .project_modules import mark

        table = build_names(self.ctx.module, self.ctx.imports)
        mark(table, self)  # objects of another file's nn.Module classes
        mark_plain(table, self)  # the same, built by a lower-case or star-imported name
        add_base_optimizers(table, self)  # `self.opt_E` a base class of another file builds
        add_base_attr_roles(table, self)  # `self.discriminator_optimizer` it sets from an argument
        add_factory_optimizers(table, self)  # `self.opt = self._get_optimizer(kind, self.policy, lr)`
        add_returned_optimizers(table)  # `self.opt_g, self.opt_d = self.configure_optimizers(args)`
        mark_copies(table, self)  # `fast = copy.deepcopy(model)`: a module with parameters of its own
        widen(table, self)
        return table

    @cached_property
    def project(self):
        from .project import Project

        return Project(self.ctx.path, self.ctx.module)

    def project_summary(self, qualified, key):
        """Summary of a function imported from a file of this project, or None."""
        if not qualified and key in self.names.name_aliases:
            # `loss_fn = my_loss` where `from loss import my_loss`
            src = self.names.name_aliases[key]
            qualified = self.ctx.imports.aliases.get(src)
            key = src
        if not qualified:
            from .project import find
            from .star_imports import star_file

            path = star_file(self, key)  # `from evaluation import *`
            if path is not None:
                return find(path, key)[0]
        return self.project.lookup(qualified, None if qualified else key)

    def foreign_method(self, base, meth):
        """`trainer.train_step(...)` where `trainer = Trainer(...)` and Trainer
        is imported from a file of this project: (summary, file) or None."""
        func = self.names.foreign_instances.get(base) if base else None
        cache = self.table("_foreign")
        key = (base, meth)
        if key not in cache:
            if func is not None:
                # (a class through `from utils import *` is not followed: its meters then judged the
                # `n` of `update(val, n)` by a module output's elements, all taken to carry a graph)
                cache[key] = self.project.method(self.ctx.imports.qualify(func), meth)
            else:
                cache[key] = runtime_method(self, base, meth) if base else None
        return cache[key]

    def object_method(self, base, meth):
        """`meter.update(loss)` where `meter` is an object of a class of this
        file or of the project: (summary, file name, class name) of the
        method, or None. The summary says whether it adds its argument into
        `self` state (`accum`)."""
        if not base:
            return None
        cls = self.names.instances.get(base)
        if cls is not None:
            table = self._own_summaries
            where = os.path.basename(self.ctx.path) if self.ctx.path else "this file"
        else:
            func = self.names.foreign_instances.get(base)
            if func is not None:
                hit = self.foreign_method(base, meth)
            else:
                func = self._lower_class(base) if meth in ("add", "update") else None
                hit = self.project.method(self.ctx.imports.qualify(func), meth) if func is not None else None
            if hit is None:
                return None
            from .project import summaries_of

            table, where = summaries_of(hit[1]), os.path.basename(hit[1])
            cls = (dotted(func) or "").split(".")[-1]
        found = table.get(f"{cls}.{meth}")
        if found is None:
            return None
        if found.accum and any(k.startswith(cls + ".") and v.events for k, v in table.items()):
            # a policy that stores its log-probs and trains on them in another method
            found = dataclasses.replace(found, accum=())
        return found, where, cls

    def _lower_class(self, base):
        """`loss_avg = utils.averager()` at module level: a call of a
        lower-case name through an imported module (a class of the project,
        or not: the project lookup decides). Its func, or None. Asked only
        for a meter's `add`/`update`, which would otherwise pass for a set's."""
        if "." in base:
            return None
        found = self.ctx.bindings.module.names.get(base) or []
        calls = [b.value for b in found if b.kind == "assign" and isinstance(b.value, cst.Call)]
        if not calls or len(calls) != len(found) or len({dotted(call.func) for call in calls}) != 1:
            return None
        func = calls[0].func
        return func if isinstance(func, cst.Attribute) else None

    def step_helper(self, func, cls=None):
        """`update_params(self.q1_optim, q1_loss)` imported from another file of the
        project, or `self.take_optimisation_step(opt, net, loss)` of a base class
        defined there: the callee's summary when it backwards an argument and
        steps an optimizer argument, else None."""
        memo = self.table("_step_helpers")
        key = (dotted(func), cls)
        if key not in memo:
            memo[key] = self._step_helper(func, cls)
        return memo[key]

    def _step_helper(self, func, cls):
        found = None
        if isinstance(func, cst.Name) and func.value not in self.names.functions:
            qualified = self.ctx.imports.qualify(func)
            if qualified and not qualified.startswith(("torch.", "numpy.", "builtins.")):
                found = self.project_summary(qualified, func.value)
        elif isinstance(func, cst.Attribute) and dotted(func.value) == "self" and cls and \
                self.names.class_method(cls, func.attr.value) is None:
            found = self._foreign_base_method(cls, func.attr.value)
        return found if found is not None and ((found.step_params or found.self_steps) and found.backward_params
                                               or found.multi_steps) else None

    def _foreign_base_method(self, cls, meth, depth=0):
        """Summary of `meth` in a base class of `cls` imported from another file of the project."""
        for base in self.names.bases.get(cls, ()) if depth < 5 else ():
            if (base, meth) in self.names.methods or any(owner == base for owner, _ in self.names.methods):
                found = self._foreign_base_method(base, meth, depth + 1)  # a local base: its own bases
            else:
                head, _, rest = base.partition(".")
                full = self.ctx.imports.aliases.get(head)
                hit = self.project.method(full + ("." + rest if rest else ""), meth) if full else None
                found = hit[0] if hit is not None else None
            if found is not None:
                return found
        return None

    def class_of_stmt(self, stmt):
        """The class whose method holds `stmt` (for `self` in a method walked
        where it is called), or None."""
        stmt = getattr(stmt, "suite", stmt)  # flow's _SuiteLine
        return self.memo("_stmt_class", lambda: {id(n): cls for (cls, _), fn in self.names.methods.items()
                                                 for n in nodes(fn)}).get(id(stmt))

    def forward_elems(self, key):
        """`loss_fn(G, D, real, x)` where `loss_fn` is an object of a module class
        of this file or of the project whose forward returns a tuple: the
        forward's summary when it says which parameters each element hangs
        from (`Summary.elem_flow`), else None."""
        found = self._object_forward_summary(key)
        return found if found is not None and found.elem_flow else None

    def forward_handed_back(self, key):
        """`loss, queue, flag = self.criterion(..., use_queue=flag)`: the forward's (params,
        per-element handed-back parameter) of the object `key` (handed_back.py), else None."""
        found = self._object_forward_summary(key)
        return found.handed_back if found is not None and found.handed_back else None

    def _object_forward_summary(self, key):
        """The forward's summary of the object `key` (a plain name, or `self.X`) when it runs no
        backward or step; None for `self.netd`, whose forward runs its own layers (`self.m(...)`):
        a model, read as one (AD109's runs)."""
        found = self._forward_summary(key) if key and ("." not in key or _self_attr(key)) else None
        if found is None or found.events or _self_attr(key) and found.self_calls:
            return None
        return found

    def forward_distribution(self, key, index=None) -> bool:
        """`dist = actor(state)` (or, with `index`, `dist, value = net(state)`)
        where `actor` is an object of a module class of this file or of the
        project whose forward returns only torch.distributions objects there
        (`return Normal(mu, std)`): its `.sample()` has no graph."""
        found = self._forward_summary(key) if key else None
        if found is None or found.events:
            return False
        return found.distribution if index is None else index in found.distribution_elems

    def output_unread(self, call) -> bool:
        """`ret = para_model(x, *mems)` of a project object whose forward's summary cannot say
        whether its result carries a graph, or `model['rep'](x, mask)` of an entry of a container
        no module is known in: that its outputs carry a graph is inferred, not read."""
        if not isinstance(call, cst.Call):
            return False
        key = dotted(call.func)
        if key is None:
            root = call.func.value if isinstance(call.func, cst.Subscript) else None
            root_key = dotted(root) if root is not None else None
            return root_key is not None and root_key not in self.names.modules and \
                root_key not in self.names.instances and root_key not in self.names.foreign_instances
        found = self._forward_summary(key)
        return found is not None and found.result == "unknown"

    def _forward_summary(self, key):
        """The forward's summary of the class `key` is an object of (this file's or the project's)."""
        # a class that is no module is called through its `__call__` (YOLOv6's `ComputeLoss`,
        # whose `__call__` returns the loss and its detached parts)
        if key in self.names.instances:
            cls = self.names.instances[key]
            found = self._own_summaries.get(f"{cls}.forward")
            return found if found is not None else self._own_summaries.get(f"{cls}.__call__")
        if key in self.names.foreign_instances:
            hit = self.foreign_method(key, "forward") or self.foreign_method(key, "__call__")
            return hit[0] if hit is not None else None
        return None

    @cached_property
    def own_tree(self):
        """This file's stdlib `ast` (None when it does not parse), parsed once a pass
        for the readers that work on `ast` (cut_arguments' class chains, caller_owners)."""
        from .summaries import parse_text

        return parse_text(self.ctx.text or self.ctx.module.code)

    def own_summary(self, name: str):
        """The summary (summaries.Summary) of this file's function `name` or method `C.m`."""
        return self._own_summaries.get(name)

    @cached_property
    def _own_summaries(self):
        # Computed as asked: a lookup of `C.m` summarises the classes up to C only.
        from .summaries import OwnSummaries

        return OwnSummaries(self.ctx.text or self.ctx.module.code)

    @cached_property
    def sites(self) -> _Sites:
        return _Sites(self)

    def function_summary(self, fn) -> FunctionSummary:
        summary = self._summaries.get(fn)
        if summary is None:
            sites = self.sites
            summary = FunctionSummary(fn in sites.events_in or fn in self._events_through, fn in sites.backward_in,
                                frozenset(sites.uses.get(fn, ())))
            self._summaries[fn] = summary
        return summary

    def returns_cut(self, fn) -> bool:
        """Does `fn` return its arguments cut from their graph
        (`repackage_hidden`, `_detach_state`)? Recursion is assumed to."""
        cache = self.table("_cut_cache")
        if fn in cache:
            return cache[fn]
        cache[fn] = True  # optimistic for recursive calls
        from .flow import Val
        from .graph import GNode

        marker = GNode(name="<arg>", stmt=None, expr=None, iteration=())
        params = [p.name.value for p in fn.params.params]
        env = {p: Val(heads=frozenset({marker})) for p in params}
        result = False
        if params:
            try:
                scope = Scope(self, _body(fn), params=params, env=env, name=fn.name.value).grad_from(fn)
                scope.inlining.add(fn.name.value)
                scope.run()
                # A cut return carries no graph at all: `return loss / n` over a
                # model's output is not cut just because `n` came from an argument.
                cut = [r for r in scope.returns if not r.graph]
                leaks = [r for r in scope.returns if r.graph]
                # `return state` for non-tensors falls through unchanged.
                result = bool(cut) and any(r.ghosts for r in cut) and all(
                    r.heads == frozenset({marker}) and r.bare for r in leaks)
            except (GiveUp, RecursionError):
                result = False
        cache[fn] = result
        return result

    def returns_graph(self, fn):
        """Can `fn` (no backward inside) return a graph-carrying value?
        True, False, or None (cannot tell)."""
        cache = self.table("_ret_cache")
        if fn in cache:
            return cache[fn]
        cache[fn] = None
        params = [p.name.value for p in fn.params.params] + [p.name.value for p in fn.params.kwonly_params]
        from .flow import Val
        from .graph import GNode, closure

        # One marker per parameter: which arguments each returned element hangs from.
        markers = {p: GNode(name="<arg>", stmt=None, expr=None, iteration=(), leaf=True,
                            modules=frozenset({"<arg>"}))
                   for p in params if not self.names.is_module(p) and p != "self"}
        env = {p: Val(heads=frozenset({m})) for p, m in markers.items()}
        if params[:1] == ["self"]:
            # a method: what it reads from `self` (parameters, stored tensors) may carry a graph
            env["self"] = Val(heads=frozenset({GNode(name="<self>", stmt=None, expr=None, iteration=(), leaf=True,
                                               modules=frozenset({"<self>"}))}))
        try:
            scope = Scope(self, _body(fn), params=params, env=env, name=fn.name.value).grad_from(fn)
            scope.inlining.add(fn.name.value)
            scope.run()
        except (GiveUp, RecursionError):
            return None
        # `return x.detach().numpy()` in one branch, a tuple in the others: unpacking the
        # graph-free value gives graph-free elements, so only the tuples say what each element holds
        returns = [r for r in scope.returns if r.elems is not None or r.graph or r.unknown or r.uncertain] \
            if any(r.elems is not None for r in scope.returns) else scope.returns
        if returns and all(r.elems is not None and len(r.elems) == len(returns[0].elems) for r in returns):
            self.table("_elems_cache")[fn] = [
                any(r.elems[i].graph or r.elems[i].unknown or r.elems[i].uncertain for r in returns)
                for i in range(len(returns[0].elems))]
            # Which elements hang from the arguments' graph: `d_loss` built on
            # `fake.detach()` and the function's own modules does not.
            # None where it cannot be told.
            out = []
            for i in range(len(returns[0].elems)):
                if any(r.elems[i].unknown or r.elems[i].uncertain for r in returns):
                    out.append(None)
                    continue
                reach = closure(h for r in returns for h in r.elems[i].heads)
                out.append(frozenset(p for p, m in markers.items() if m in reach))
            self.table("_elems_args")[fn] = out
        elif returns and not any(r.elems is not None or r.unknown or r.uncertain for r in returns):
            # One value: the parameters it hangs from (`alpha_loss` built on `log_pi.detach()`).
            reach = closure(h for r in returns for h in r.heads)
            self.table("_whole_args")[fn] = frozenset(p for p, m in markers.items() if m in reach)
        if any(r.unknown and not r.graph for r in scope.returns) or any(r.graph and r.uncertain for r in scope.returns):
            result = None
        else:
            result = any(r.graph for r in scope.returns)
        cache[fn] = result
        return result

    def returns_elems(self, fn):
        """For a function that returns a tuple literal: which elements can
        carry a graph (list of bools), else None."""
        self.returns_graph(fn)
        return self.table("_elems_cache").get(fn)

    def returns_from_args(self, fn):
        """For a function that returns one value (no tuple literal): the
        parameters it can hang from, or None when that cannot be told."""
        self.returns_graph(fn)
        return self.table("_whole_args").get(fn)

    def returns_elems_from_args(self, fn):
        """For a function that returns a tuple literal: for each element, the
        parameters it can hang from (None: cannot tell), else None."""
        self.returns_graph(fn)
        return self.table("_elems_args").get(fn)

    @cached_property
    def scopes(self) -> list:
        """Walked scopes: the module body and each function with a backward,
        plus functions whose loops call such a function."""
        out = []
        sites = self.sites
        module_env = {}
        if sites.module_level_backward or self._calls_event_function(None):
            out.append(self._walk(self.ctx.module.body, (), "<module>"))
        for fn in sites.functions:
            if fn in sites.backward_in or self._calls_event_function(fn):
                params = [p.name.value for p in fn.params.params] + \
                         [p.name.value for p in fn.params.kwonly_params]
                out.append(self._walk(_body(fn), params, fn.name.value, module_env, self._owner_class(fn), fn))
        out.extend(self._step_methods())
        out.extend(driver_walks(self))  # another file's loop calls a trainer class's methods in order
        out.extend(phase_walks(self))  # Lightning calls a method once per optimizer (optimizer_idx 0, then 1)
        out.extend(self._eval_functions(module_env))
        return [s for s in out if s is not None]

    def _eval_functions(self, env) -> list:
        """Functions with no backward whose calls here run with gradients on
        (analysis.eval_loops): walked so that their accumulations are seen."""
        from .eval_loops import unguarded_evals

        out = []
        for fn, note in unguarded_evals(self).items():
            params = [p.name.value for p in fn.params.params] + [p.name.value for p in fn.params.kwonly_params]
            try:
                scope = Scope(self, _body(fn), params=params, env=env, name=fn.name.value).grad_from(fn)
                scope.eval_note = note
                scope.declared_globals = frozenset(
                    name.name.value for g in nodes(fn.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda))
                    if type(g) is cst.Global for name in g.names)
                out.append(scope.run())
            except (GiveUp, RecursionError):
                continue
        return out

    @cached_property
    def step_methods(self) -> dict:
        """Methods without a loop of their own that run a backward (directly or
        through another method of `self`): `Trainer.train_step`. The loop that
        calls them is elsewhere, so a value stored on `self` in one call and
        read in the next is a link across iterations. FunctionDef -> class name."""
        from .lightning import framework_steps

        out = dict(framework_steps(self))  # the framework backwards what they return
        sites = self.sites
        for cls in self.ctx.module.body:
            if type(cls) is not cst.ClassDef:
                continue
            methods = class_methods(cls)
            reachable = {**self._inherited(cls.name.value), **methods}  # a base's `take_step()` runs here too
            for name, m in methods.items():
                if name.startswith("__") or not m.params.params or m.params.params[0].name.value != "self":
                    continue
                if not (m in sites.backward_in or _reaches_backward(m, reachable, sites.backward_in)):
                    continue  # asked first: most methods run no backward, and the loop test walks them again
                if any(isinstance(n, (cst.For, cst.While)) and _trains_inside(n) for n in nodes(m)):
                    continue  # its own loop trains; a loop that only prepares data does not count
                out[m] = cls.name.value
        return out

    def _inherited(self, cls: str, depth: int = 0) -> dict:
        """Methods of the class's bases defined in this file, nearest first."""
        out: dict = {}
        for base in self.names.bases.get(cls, ()) if depth < 5 else ():
            for name, m in self._inherited(base, depth + 1).items():
                out.setdefault(name, m)
            for (owner, name), m in self.names.methods.items():
                if owner == base:
                    out[name] = m
        return out

    def _step_methods(self) -> list:
        from .flow import Val
        from .lightning import FRAMEWORK, framework_steps, lightning_steps
        from .phases import sibling_stores

        out = []
        for method in self.step_methods:
            if not isinstance(method.body, cst.IndentedBlock):
                continue
            params = [p.name.value for p in method.params.params] + [p.name.value for p in method.params.kwonly_params]
            # One call per iteration of a loop the caller runs: the body is the loop's body.
            loop = cst.For(target=cst.Name("_"), iter=cst.Name("_calls"), body=method.body)
            try:
                scope = Scope(self, [], params=params, name=method.name.value).grad_from(method)
                scope.self_class = self.step_methods[method]
                scope.caller_loop = True
                scope.framework = framework_steps(self).get(method) and FRAMEWORK
                scope.loop_owner = lightning_steps(self).get(method) and FRAMEWORK
                # each call starts without the last call's locals: a name bound only in an `if`
                # (`dec_flipped = ...` under `if lambda_dis:`) never reaches the next call
                scope.fresh[id(loop)] = {**{name: Val() for name in _locals(method)},
                                         **{p: Val(unknown=True) for p in params if p != "self"}}
                # `self.fake` that a sibling step method (`update_D` calling `self.forward()`) stores too:
                # the next call may read the sibling's value, not this call's (analysis.phases)
                scope.refreshed[id(loop)] = sibling_stores(self, method, self.step_methods[method])
                scope.body = [loop]
                out.append(scope.run())
            except (GiveUp, RecursionError):
                continue
        return out

    def _walk(self, body, params, name, env=None, cls=None, fn=None, inline_leaves=False):
        try:
            scope = Scope(self, body, params=params, env=env, name=name)
            scope.inline_leaves = inline_leaves
            if fn is not None:
                scope.grad_from(fn)
            scope.self_class = cls
            scope.method_class = self._method_class.get(fn) if fn is not None else None
            scope.repeats = fn is not None and fn in self.step_methods
            return scope.run()
        except (GiveUp, RecursionError):
            return None

    @cached_property
    def _events_through(self) -> set:
        """Functions whose events lie in a function of this file they call
        (`self.vae_base(...)` calling `self.loss_fn(...)`, whose helper steps):
        walked at their call like those that step themselves."""
        sites, out = self.sites, set()
        changed = True
        while changed:
            changed = False
            for fn, keys in sites.calls.items():
                if fn in out or fn in sites.events_in:
                    continue
                cls = self._method_class.get(fn)
                for key in keys:
                    if key.startswith("self."):
                        callee = self.names.class_method(cls, key[5:]) if cls else None
                    else:
                        callee = self.names.functions.get(key)
                    if callee is not None and callee is not fn and (callee in sites.events_in or callee in out):
                        out.add(fn)
                        changed = True
                        break
        return out

    @cached_property
    def _method_class(self) -> dict:
        """FunctionDef -> class name, for the methods of this file's top-level classes."""
        return {m: cls for (cls, _), m in self.names.methods.items()}

    def _owner_class(self, fn):
        """The class of a method whose loop calls `self.train_one_batch(...)`, a
        method of the same class with a backward: walked with that class so
        the call is inlined (None for anything else, as before)."""
        cls = self._method_class.get(fn)
        if cls is None or fn in self.sites.backward_in:
            return None
        return cls if self._self_event_call(fn, cls) else None

    def _self_event_call(self, owner, cls) -> bool:
        methods = None
        for key in self.sites.loop_calls.get(owner, ()):
            if key.startswith("self.") and key.count(".") == 1:
                method = self.names.class_method(cls, key[5:])
                if method is None:
                    continue
                if method in self.sites.backward_in:
                    return True
                if methods is None:
                    methods = {**self._inherited(cls), **{name: m for (owner_cls, name), m in
                                                          self.names.methods.items() if owner_cls == cls}}
                # `self.enforce_encoding(...)`, whose `self.__train(loss)` backwards: the loop trains too
                if _reaches_backward(method, methods, self.sites.backward_in):
                    return True
        return False

    def _calls_event_function(self, owner) -> bool:
        """A loop in `owner` (a function, or None: the module body) calls a
        same-file function or method that does backward, or two such calls
        follow each other outside loops (`update(opt_a, loss); update(opt_c,
        loss)`: the second backwards what the first freed)."""
        if any(self._event_call(key) or owner is not None and self._param_event_call(owner, key)
               for key in self.sites.loop_calls.get(owner, ())):
            return True
        handed = [arg for key, call in self.sites.plain_calls.get(owner, ()) for arg in self._backwarded(key, call)]
        if len(handed) > len(set(handed)):
            return True
        cls = self._method_class.get(owner) if owner is not None else None
        return cls is not None and self._self_event_call(owner, cls)

    def _backwarded(self, key: str, call) -> list:
        """The values (their code) `call` hands to a function or method of this
        file or the project that backwards them (`update_model(opt, loss)`),
        modules and optimizers left out: two calls handed one value backward
        one graph twice. A training function handed the same model twice
        (pretrain, then finetune) is not such a pair."""
        found = None
        if key in self.names.functions:
            found = self.own_summary(key)
        elif "." in key:
            base, _, meth = key.rpartition(".")
            cls = self.names.instances.get(base)
            if cls is not None:
                found = self.own_summary(f"{cls}.{meth}")
            else:
                hit = self.foreign_method(base, meth)
                found = hit[0] if hit is not None else None
        if found is None or not found.backward_args or not found.params:
            return []
        out = []
        for name in found.backward_params:
            value = bound_argument(call, list(found.params), name)
            if value is None:
                continue
            text = self.ctx.code(value).strip()
            if self.names.is_module(text):
                return []  # a training function that builds its loss on the model it is given
            if text not in self.names.optimizers:
                out.append(text)
        return out

    def _param_event_call(self, owner, key: str) -> bool:
        """`model.backward(a, b)` in `def fit(model, n)`, whose calls in this file
        hand an object of a class of this file whose `backward` backwards or steps."""
        from .flow import param_class

        base, dot, meth = key.rpartition(".")
        if not dot or "." in base or not isinstance(owner, cst.FunctionDef):
            return False
        cls = param_class(self, owner.name.value, base)
        method = self.names.class_method(cls, meth) if cls else None
        return method is not None and method in self.sites.backward_in

    def _event_call(self, key: str) -> bool:
        funcs = self.names.functions
        if key in funcs and funcs[key] in self.sites.backward_in:
            return True
        if "." in key:
            base, _, meth = key.rpartition(".")
            method = self.names.method(base, meth)
            if method is not None and method in self.sites.backward_in:
                return True
            found = self.foreign_method(base, meth)
            if found is not None and found[0].events:
                return True
        elif key not in funcs and key in self.ctx.imports.aliases:
            # `fit_batch(net, opt, x, y)` imported from a file of the project that backwards and steps
            found = self.project_summary(self.ctx.imports.aliases[key], key)
            if found is not None and found.events and found.backward_args:
                return True
        return False

    # ---------------------------------------------------------------- queries
    def _unique(self, attr, key) -> list:
        """(scope, item) over all scopes, once per key: both simulated
        iterations, and inlined calls, find the same thing again."""
        seen, out = set(), []
        for scope in self.scopes:
            for item in getattr(scope, attr):
                k = key(item)
                if k not in seen:
                    seen.add(k)
                    out.append((scope, item))
                    if scope.loop_owner:
                        self._framework_step(item, scope)
                    elif scope.caller_loop:
                        self._mark_caller_loop(item, scope.name)
                    if scope.eval_note is not None:
                        self._mark(item, self.eval_stmts, scope.eval_note())
                    if scope.driver_note is not None:
                        self._mark(item, self.driver_stmts, scope.driver_note)
                        for ev in (getattr(item, "first", None), getattr(item, "second", None)):
                            if ev is not None:  # the two backwards of a conflict, where AD105 reports
                                self.driver_stmts[id(ev.stmt)] = scope.driver_note
        return out

    def _framework_step(self, item, scope) -> None:
        """A finding in a method the framework runs once per batch: a fact,
        noted as such, unless another method of the class backwards too (it
        may read what the step keeps on `self`): then an assumption."""
        from .lightning import other_backward

        if other_backward(self, scope.self_class):
            self._mark_caller_loop(item, scope.name)
        else:
            self._mark(item, self.framework_stmts, f"{scope.loop_owner} runs `{scope.name}` once per batch and "
                                                   "keeps `self` between batches")

    def _mark_caller_loop(self, item, method: str) -> None:
        """Remember the statements of a finding that exists only if the
        caller runs the method in a loop (an assumption the report states)."""
        self._mark(item, self.caller_loop_stmts, method)

    def _mark(self, item, marks: dict, value) -> None:
        stmts = [getattr(item, "node", None)] + list(getattr(item, "path", []) or []) + \
            list(getattr(item, "links", []) or [])
        for node in stmts:
            if node is not None and node.stmt is not None:
                marks[id(node.stmt)] = value

    @cached_property
    def conflicts(self) -> list:
        return self._unique("conflicts", lambda conflict: (id(conflict.first.call), id(conflict.second.call),
                                                           tuple(id(link.stmt) for link in conflict.links)))

    @cached_property
    def leaks(self) -> list:
        return self._unique("leaks", lambda lk: (lk.key, id(lk.node.stmt)))

    @cached_property
    def diagnoses(self) -> list:
        from .decide import diagnose

        return [diagnose(self, scope, conflict) for scope, conflict in self.conflicts
                if self.real_conflict(scope, conflict)]

    def real_conflict(self, scope, conflict) -> bool:
        """Can the second pass of `conflict` really meet what the first freed
        (or retained)? Not when the linking value is rebuilt every iteration,
        the path is infeasible, or the two are entries a method builds apart."""
        from .infeasible import infeasible
        from .invariant import replaced_each_iteration
        from .iterated_sources import data_source
        from .loss_entries import disjoint_entries

        # two entries of a returned dict that its method builds apart share no graph (what AD104 rests on)
        from .frozen import proven_frozen

        return not replaced_each_iteration(scope, conflict) and not infeasible(self, scope, conflict) \
            and not data_source(self, conflict) and not proven_frozen(self, conflict) \
            and not disjoint_entries(self, scope, conflict.first, conflict.second,
                                     {n for n in conflict.first.reach if not n.leaf} & conflict.second.reach)

    @cached_property
    def forward_walks(self) -> list:
        """(class, its methods, the scope of its `forward` walked with every input
        carrying a graph) for the Module classes of this file that a trained
        module feeds or that have parameters (analysis.buffer_updates.graph_inputs)."""
        from .buffer_updates import graph_inputs
        from .flow import Val
        from .graph import GNode

        out = []
        for cls in self.ctx.module.body:
            if type(cls) is not cst.ClassDef or cls.name.value not in self.names.module_classes:
                continue
            if not graph_inputs(self, cls):
                continue  # no parameters, no parts, fed by no trained module: raw data (an input normaliser)
            methods = class_methods(cls)
            fwd = methods.get("forward")
            if fwd is None:
                continue
            params = [p.name.value for p in fwd.params.params][1:]
            marker = GNode(name="<input>", stmt=None, expr=None, iteration=())
            env = {p: Val(heads=frozenset({marker})) for p in params}
            scope = self._walk(_body(fwd), ["self"] + params, "forward", env)
            if scope is not None:
                out.append((cls, methods, scope))
        return out

    @cached_property
    def stateful_attrs(self) -> list:
        """(class, key, store GNode, read node) for Module classes whose
        forward reads `self.X` and then stores a graph-carrying value in it:
        each call links to the previous call's graph."""
        if not self.sites.backward_in and not self.sites.module_level_backward:
            return []
        out = []
        for cls, methods, scope in self.forward_walks:
            others = [m for n, m in methods.items() if n not in ("forward", "__init__")]
            for key, read in scope.free_reads.items():
                val = scope.env.get(key)
                if val is None or not val.heads or key in self.names.modules:
                    continue
                if any(_assigns(m, key) or _cuts_in_place(m, key) for m in others):
                    continue  # a reset method exists: the caller manages the state
                store = next(iter(val.heads))
                out.append((cls, key, store, read))
        return out

    @cached_property
    def init_graphs(self) -> list:
        """(class, key, node, read, inline) for Module classes that compute a
        tensor from their parameters in `__init__` and read it in `forward`:
        the first backward frees that graph for every later call. `inline`:
        it hangs from a leaf made in the expression (`torch.exp(nn.Parameter(x))`),
        which the module does not keep, so no optimizer sees it."""
        if not self.sites.backward_in and not self.sites.module_level_backward:
            return []
        out = []
        for cls in self.ctx.module.body:
            if type(cls) is not cst.ClassDef or cls.name.value not in self.names.module_classes:
                continue
            methods = class_methods(cls)
            init, fwd = methods.get("__init__"), methods.get("forward")
            if init is None or fwd is None:
                continue
            sc_init = self._walk(_body(init), [p.name.value for p in init.params.params], "__init__",
                                 inline_leaves=True)
            params = [p.name.value for p in fwd.params.params]
            sc_fwd = self._walk(_body(fwd), params, "forward")
            if sc_init is None or sc_fwd is None:
                continue
            for key, val in sc_init.env.items():
                if not key.startswith("self.") or key in self.names.modules or key in self.names.leaves:
                    continue
                nodes = [n for n in val.heads if not n.leaf and not n.trivial and n.stmt is not None]
                if nodes and key in sc_fwd.free_reads and not any(_assigns(m, key) for n2, m in methods.items()
                                                                   if n2 not in ("__init__",)):
                    out.append((cls, key, nodes[0], sc_fwd.free_reads[key], _inline_leaf_below(nodes[0])))
        return out

    @cached_property
    def init_own_graphs(self) -> list:
        """(class, key, node, read, method) for Module classes whose `__init__`
        keeps on self (`self.k = ...`, `register_buffer("k", ...)`) a tensor
        computed from a parameter it makes itself (`self.w = nn.Parameter(...)`),
        read by another method (`method`): the class is trained by design, so
        the backward that frees that graph is inferred, wherever it runs. Not
        those init_graphs reports."""
        seen = {(id(c), k) for c, k, *_ in self.init_graphs}
        out = []
        for cls in self.ctx.module.body:
            if type(cls) is not cst.ClassDef:  # its base may be a Module of another file
                continue
            methods = class_methods(cls)
            init = methods.get("__init__")
            if init is None or not any(type(n) is cst.Call and dotted(n.func) in _PARAMETER_CALLS
                                       for n in nodes(init)):
                continue
            sc_init = self._walk(_body(init), [p.name.value for p in init.params.params], "__init__",
                                 inline_leaves=True)
            if sc_init is None:
                continue
            others = [(n, m) for n, m in methods.items() if n != "__init__"]
            for key, val in sc_init.env.items():
                if not key.startswith("self.") or key in self.names.modules or key in self.names.leaves or \
                        (id(cls), key) in seen or any(_assigns(m, key) for _, m in others):
                    continue
                found = [n for n in val.heads if not n.leaf and not n.trivial and n.stmt is not None and
                         _own_leaf_below(n, self.names.leaves)]
                reads = [(n2, r) for n2, m in others for r in nodes(m) if type(r) is cst.Attribute and
                         dotted(r) == key]
                if found and reads and all(_stepper_read(self.ctx, r) for _, r in reads):
                    continue  # `self.opt, self.lr_scheduler = make_opt(self.parameters(), ...)`: no tensor
                if found and reads:
                    reads.sort(key=lambda nr: nr[0] != "forward")
                    out.append((cls, key, found[0], reads[0][1], reads[0][0]))
        return out

    def diagnoses_for(self, kind) -> list:
        """What the analysis finds of one kind of problem (decide.Problem)."""
        return find(self, kind)

    def loop_node(self, scope, loop_id):
        return scope.loops.get(loop_id)

    def owner_uses(self, opt: str, module: str):
        """True/False/None: does optimizer `opt` step `module`'s parameters?"""
        optimizer = self.names.optimizers.get(opt)
        if optimizer is None or optimizer.owns is None:
            return None
        root, dot, rest = module.partition(".")
        if root in self.names.entry_of:  # `critic` of `for critic in self.critics` (model_containers)
            module = self.names.entry_of[root] + dot + rest
        for owned in optimizer.owns:
            if module == owned or module.startswith(owned + "."):
                return True
            if owned.startswith(module + "."):
                return None  # owns part of it
        return False


def _trains_inside(loop) -> bool:
    return any(isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and
               (n.func.attr.value in BACKWARD_ATTRS or n.func.attr.value == "step" or
                (dotted(n.func.value) == "self" and not n.func.attr.value.startswith("_")
                 and n.func.attr.value not in ("to", "cuda")))
               for n in nodes(loop))


def _reaches_backward(fn, methods, backward_in, depth=3) -> bool:
    """Does `fn` run a backward through `self.m()` calls, up to `depth` deep
    (`optimize_parameters` -> `update_G` -> `backward_G`)?"""
    calls = {key[5:] for n in nodes(fn) if type(n) is cst.Call
             for key in [dotted(n.func)] if key and key.startswith("self.") and key.count(".") == 1}
    found = [methods[callee] for callee in calls if callee in methods and methods[callee] is not fn]
    if any(m in backward_in for m in found):
        return True
    return depth > 1 and any(_reaches_backward(m, methods, backward_in, depth - 1) for m in found)


_PARAMETER_CALLS = ("nn.Parameter", "torch.nn.Parameter", "Parameter", "torch.nn.parameter.Parameter")


def _own_leaf_below(node, leaves) -> bool:
    """`node` hangs from a parameter kept on self (`self.w`, a leaf of this file)."""
    seen, stack = set(), [node]
    while stack:
        n = stack.pop()
        if n.leaf and (n.name or "").startswith("self.") and n.name in leaves:
            return True
        if n.uid not in seen:
            seen.add(n.uid)
            stack.extend(n.parents)
    return False


def _inline_leaf_below(node) -> bool:
    seen, stack = set(), [node]
    while stack:
        n = stack.pop()
        if n.leaf and (n.name or "").startswith(INLINE_LEAF):
            return True
        if n.uid not in seen:
            seen.add(n.uid)
            stack.extend(n.parents)
    return False


def _assigns(fn, key) -> bool:
    return any(isinstance(n, cst.AssignTarget) and dotted(n.target) == key for n in nodes(fn))


def _cuts_in_place(fn, key) -> bool:
    """`fn` cuts `key`'s history in place: `self.h.detach_()`, `self.h.zero_().detach_()`."""
    for n in nodes(fn):
        if type(n) is cst.Call and type(n.func) is cst.Attribute and n.func.attr.value == "detach_":
            receiver = n.func.value
            while type(receiver) is cst.Call and type(receiver.func) is cst.Attribute:
                receiver = receiver.func.value  # the in-place calls before it: `.zero_()`
            if dotted(receiver) == key:
                return True
    return False


def _body(fn) -> list:
    return list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []


def _locals(method) -> set:
    """Plain names a method binds in its own body (no `global`/`nonlocal` ones)."""
    out, shared = set(), set()
    for node in nodes(method.body):
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            shared.update(item.name.value for item in node.names)
        elif isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.AsName, cst.NamedExpr)):
            out.update(target_names(node.name if isinstance(node, cst.AsName) else node.target))
    return out - shared


def _self_attr(key: str) -> bool:
    """`self.criterion`: an object the class keeps on itself."""
    return key.startswith("self.") and key.count(".") == 1


# what an optimizer or a scheduler is read for (a tensor has none of these)
_STEPPER_API = frozenset({"step", "zero_grad", "get_last_lr", "get_lr", "param_groups", "state_dict",
                          "load_state_dict", "add_param_group"})


def _stepper_read(ctx, read) -> bool:
    """Is `self.k` read here only as an optimizer or a scheduler (`self.k.step()`)?"""
    parent = ctx.parent(read)
    return isinstance(parent, cst.Attribute) and parent.value is read and parent.attr.value in _STEPPER_API
