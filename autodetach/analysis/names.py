"""What the names in a file are: modules (nn.Module instances), optimizers
and which modules they own, loss functions, and local Module subclasses.

This is a flat, file-wide table: training scripts bind models and
optimizers once and use them everywhere."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from ..imports import is_torch, dotted
from .model_containers import COLLECTED, Facts, collect, entry_keys, infer_containers
from .optimizer_owners import resolve_owners
from .module_parts import extend_owners, module_parts
from .optimizer_roles import infer_optimizer_attrs
from .bound_optimizers import infer_bound_optimizers
from .handed_classes import find_handed_classes
from .buffer_modules import buffers_only
from .roles import infer_attr_roles, infer_roles
from .self_module import local_func, local_key, self_aliases
from .walk import nodes as walk_nodes, of_types

# Constructors whose instances hold no parameters: their output carries a
# graph only when an input does.
PARAMLESS_PREFIXES = ("Loss", "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Dropout",
                      "MaxPool", "AvgPool", "AdaptiveAvgPool", "AdaptiveMaxPool", "Flatten",
                      "Identity", "Upsample", "LeakyReLU", "ELU", "GELU", "SiLU", "Hardtanh",
                      "Softplus", "PixelShuffle", "ZeroPad2d", "ConstantPad")

RECURRENT = {"torch.nn.RNN": "tensor", "torch.nn.GRU": "tensor", "torch.nn.LSTM": "tuple",
             "torch.nn.RNNCell": "tensor", "torch.nn.GRUCell": "tensor", "torch.nn.LSTMCell": "tuple"}

OPTIMIZER_PREFIX = "torch.optim."
# `trainer = nn.parallel.DataParallel(trainer)`: still a module, called on tensors
WRAPPERS = {"torch.nn.parallel.DataParallel", "torch.nn.parallel.DistributedDataParallel",
            "torch.nn.parallel.data_parallel.DataParallel", "torch.nn.parallel.distributed.DistributedDataParallel"}


@dataclass
class Optimizer:
    name: str
    # Module names whose parameters it owns; None when unknown.
    owns: Optional[frozenset]
    node: Optional[cst.CSTNode] = field(default=None, repr=False)


@dataclass
class NameTable:
    modules: dict = field(default_factory=dict)  # name -> "param" | "paramless" | recurrent kind
    recurrent: dict = field(default_factory=dict)  # name -> "tensor" | "tuple"
    cells: set = field(default_factory=set)  # LSTMCell-like: (h, c) unpacked into tensors
    optimizers: dict = field(default_factory=dict)  # name -> Optimizer
    module_classes: set = field(default_factory=set)  # local nn.Module subclasses
    buffer_classes: set = field(default_factory=set)  # of those, classes that hold buffers only (buffer_modules.py)
    classes: set = field(default_factory=set)  # every local class
    instances: dict = field(default_factory=dict)  # name -> local class it was built from
    foreign_instances: dict = field(default_factory=dict)  # name -> the call's func, for other classes
    # `self.policy = policy(**kw)` of `def __init__(self, policy=EIIE)`: name -> the default's class
    # expression; what the default's forward returns (forward_extras.returns_no_graph), nothing more
    default_instances: dict = field(default_factory=dict)
    built: set = field(default_factory=set)  # modules a constructor call made (`nn.Linear(...)`): their class is named
    methods: dict = field(default_factory=dict)  # (class, method) -> FunctionDef

    bases: dict = field(default_factory=dict)  # local class -> names of its bases

    def method(self, key, meth):
        cls = self.instances.get(key)
        if key == "self" or key is None:
            return None
        return self.class_method(cls, meth) if cls else None

    def class_method(self, cls, meth, depth=0):
        """`cls.meth`, or the one its first local base that defines it has."""
        found = self.methods.get((cls, meth))
        if found is None and depth < 5:
            for b in self.bases.get(cls, ()):
                found = self.class_method(b, meth, depth + 1)
                if found is not None:
                    break
        return found
    leaves: set = field(default_factory=set)  # tensors with requires_grad / Parameters
    leaf_values: dict = field(default_factory=dict)  # leaf key -> the values bound to it that make it one
    wrapped: set = field(default_factory=set)  # modules known only as DataParallel(x): forward unseen
    functions: dict = field(default_factory=dict)  # local function name -> FunctionDef
    entry_of: dict = field(default_factory=dict)  # loop variable -> the module container it runs through
    functions_all: list = field(default_factory=list)  # every FunctionDef, methods included
    inferred: dict = field(default_factory=dict)  # name -> what was inferred about it, and why
    name_aliases: dict = field(default_factory=dict)  # `loss_fn = my_loss`: plain name -> plain name
    parts: dict = field(default_factory=dict)  # module -> modules its constructor was given (module_parts)
    shared: dict = field(default_factory=dict)  # optimizer -> modules a caller gives it part of (caller_owners)
    copies: dict = field(default_factory=dict)  # name -> [copied_modules.Copy]: a module copied from another

    def is_module(self, key: Optional[str]) -> bool:
        return key is not None and key in self.modules

    def is_param_attr(self, attr: str) -> bool:
        if attr.startswith(("weight", "bias")) or attr in ("embedding",):
            return True
        return any(k.split(".")[-1] == attr for k in self.leaves)

    def has_params(self, key: str) -> bool:
        return self.modules.get(key) != "paramless"


# Roots of libraries whose classes are never a project's (`nn.Linear`, `np.RandomState`).
_LIBRARIES = {"torch", "torchvision", "torchaudio", "torchtext", "numpy", "scipy", "sklearn", "transformers",
              "timm", "pytorch_lightning", "lightning", "apex", "gym", "gymnasium", "tensorboardX", "wandb",
              "collections", "pandas", "PIL", "cv2", "tqdm", "logging", "random", "math", "os", "sys", "time",
              "datetime", "itertools", "functools", "argparse", "json", "pathlib", "threading", "multiprocessing"}


def _key(expr) -> Optional[str]:
    return dotted(expr)


class _Collector(cst.CSTVisitor):
    def __init__(self, imports, table: NameTable) -> None:
        super().__init__()
        self.imports = imports
        self.table = table
        self.pending_opts: list = []
        self.aliases: list = []
        self.self_aliases: frozenset = frozenset()  # `d2l = sys.modules[__name__]` (self_module)

    # --- classes and functions -------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.table.classes.add(node.name.value)
        for base in node.bases:
            qualified = self.imports.qualify(base.value)
            bname = _key(base.value)
            if qualified in ("torch.nn.Module",) or (bname in self.table.module_classes):
                self.table.module_classes.add(node.name.value)
                if buffers_only(node, self.imports):
                    self.table.buffer_classes.add(node.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.table.functions.setdefault(node.name.value, node)
        self.table.functions_all.append(node)

    # --- assignments -------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            t, v = target.target, node.value
            if type(t) in (cst.Tuple, cst.List) and type(v) in (cst.Tuple, cst.List) and \
                    len(t.elements) == len(v.elements):
                for te, ve in zip(t.elements, v.elements):  # self.enc, self.gen = enc, gen
                    self._bind(te.value, ve.value)
                continue
            self._bind(t, v)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)

    def _module_class(self, func) -> bool:
        """`utils.Averager`, `logx.EpochLogger`: a class reached through an
        imported module that is not a known library (the project lookup of
        the method decides whether it is one of the project's)."""
        name = _key(func) or ""
        head, dot, last = name.rpartition(".")
        if not dot or not last[:1].isupper():
            return False
        root = head.split(".")[0]
        if root not in self.imports.aliases and root not in self.imports.relative:
            return False
        qualified = self.imports.qualify(func) or name
        return qualified.split(".")[0] not in _LIBRARIES

    def _wrapped_key(self, call) -> Optional[str]:
        """`DataParallel(net, device_ids=...)`: the key of the wrapped module, or None."""
        if type(call) is not cst.Call or not call.args or call.args[0].keyword is not None:
            return None
        if self.imports.qualify(call.func) not in WRAPPERS | {"torch.nn.DataParallel"}:
            return None
        return _key(call.args[0].value) or ""

    def _bind(self, target, value) -> None:
        key = _key(target)
        if key is None:
            return
        src = _key(value)
        if src is None and type(value) is cst.Subscript:
            own = entry_keys(value)  # `self.classifier = self.nets["classifier"]`: that entry, one module
            src = own[0] if len(own) == 2 else None
        if src is not None:
            self.aliases.append((key, src))  # self.model = model
        call = value
        while type(call) is cst.Call and type(call.func) is cst.Attribute and \
                call.func.attr.value in ("to", "cuda", "cpu", "train"):
            call = call.func.value
        inner = self._wrapped_key(call)
        if inner is not None:
            # `self.model = DDP(self.model)`: the wrapper runs the inner module's forward
            for table in (self.table.instances, self.table.foreign_instances):
                if inner in table:
                    table[key] = table[inner]
        elif type(call) is cst.Call and local_func(call.func, self.self_aliases) in self.table.classes:
            self.table.instances[key] = local_func(call.func, self.self_aliases)
        elif type(call) is cst.Call and _key(call.func) is not None and (
                _key(call.func)[:1].isupper() or self._module_class(call.func)):
            self.table.foreign_instances[key] = call.func  # `trainer = Trainer(...)`, Trainer imported
        kind = self.classify(value)
        if kind is None:
            return
        if kind == "optimizer":
            self.pending_opts.append((key, value))
        elif kind == "leaf":
            self.table.leaves.add(key)
            self.table.leaf_values.setdefault(key, []).append(value)
        else:
            if kind == "param" and key not in self.table.modules and self.imports.qualify(call.func) in WRAPPERS \
                    and key not in self.table.instances and key not in self.table.foreign_instances:
                self.table.wrapped.add(key)  # a class we cannot see
            self.table.modules[key] = kind
            if isinstance(call, cst.Call) and self.imports.qualify(call.func) != "copy.deepcopy":
                self.table.built.add(key)
            if kind in ("tensor", "tuple"):
                self.table.recurrent[key] = kind
                qualified = self.imports.qualify(value.func) if isinstance(value, cst.Call) else None
                if qualified and qualified.endswith("Cell"):
                    self.table.cells.add(key)

    def classify(self, value) -> Optional[str]:
        call = value
        # model = Net().to(device) / .cuda() / .train()
        while type(call) is cst.Call and type(call.func) is cst.Attribute and \
                call.func.attr.value in ("to", "cuda", "cpu", "train", "double", "float", "half"):
            call = call.func.value
        if type(call) is not cst.Call:
            return None
        qualified = self.imports.qualify(call.func)
        fname = _key(call.func)
        if qualified is not None:
            if qualified.startswith(OPTIMIZER_PREFIX) and qualified.count(".") == 2 and \
                    qualified.split(".")[-1][:1].isupper():
                return "optimizer"
            if qualified in RECURRENT:
                return RECURRENT[qualified]
            if qualified in WRAPPERS:
                return "param"
            if qualified == "torch.nn.parameter.Parameter":
                return "leaf"  # `from torch.nn.parameter import Parameter`, the class's own module
            if qualified.startswith("torch.nn.") and qualified.count(".") == 2 and \
                    qualified.split(".")[-1][:1].isupper():
                last = qualified.split(".")[-1]
                if last == "Parameter":
                    return "leaf"
                if last.startswith(PARAMLESS_PREFIXES) or last.endswith("Loss"):
                    return "paramless"
                return "param"
            if qualified in ("copy.deepcopy",) and call.args and _key(call.args[0].value) in self.table.modules:
                return self.table.modules[_key(call.args[0].value)]
            if qualified.startswith("torch.") and any(
                arg.keyword and arg.keyword.value == "requires_grad" and
                isinstance(arg.value, cst.Name) and arg.value.value == "True" for arg in call.args):
                return "leaf"
        if local_key(fname, self.self_aliases) in self.table.module_classes:
            return "paramless" if local_key(fname, self.self_aliases) in self.table.buffer_classes else "param"
        positional = [arg for arg in call.args if arg.keyword is None]
        if fname and fname.split(".")[-1][:1].isupper() and not is_torch(qualified or "") and positional and all(
                not arg.star and self.table.modules.get(_key(arg.value) or "") == "param" for arg in positional):
            # `model = ARGVA(encoder, discriminator)` of a class not read here: an object built of
            # modules only holds their parameters (a module itself, as nn.Module wrappers are);
            # not `Trainer(model, optimizer, loader)`
            return "param"
        return None

    # --- usage that reveals a module ------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        registered = _registered(node)
        if registered is not None:
            self._bind(*registered)  # `self.add_module('dis', dis)`: `self.dis` is `dis`
        if type(func) is cst.Attribute and func.attr.value in ("parameters", "named_parameters", "zero_grad"):
            key = _key(func.value)
            if key is not None and key not in self.table.optimizers and key not in self.table.modules:
                if func.attr.value != "zero_grad":
                    self.table.modules[key] = "param"


def _registered(call: cst.Call):
    """`self.add_module("dis", dis)`, `self.register_module("dis", dis)`,
    `setattr(self, "dis", dis)` with a literal name: (the attribute `self.dis`,
    the value), as `self.dis = dis` would bind it; else None."""
    args = [a.value for a in call.args if a.keyword is None]
    func = call.func
    if type(func) is cst.Attribute and func.attr.value in ("add_module", "register_module") and len(args) == 2:
        obj, name, value = func.value, args[0], args[1]
    elif type(func) is cst.Name and func.value == "setattr" and len(args) == 3:
        obj, name, value = args
    else:
        return None
    if type(name) is not cst.SimpleString or _key(obj) is None:
        return None
    attr = name.evaluated_value
    if not isinstance(attr, str) or not attr.isidentifier():
        return None
    return cst.Attribute(value=obj, attr=cst.Name(attr)), value


def _owned(expr, table: NameTable, env: dict, imports=None) -> Optional[set]:
    """Module names whose parameters `expr` (an optimizer's params) covers."""
    if type(expr) is cst.Call:
        func = expr.func
        if type(func) is cst.Attribute and func.attr.value in ("parameters", "named_parameters"):
            key = _key(func.value)
            if key is None and isinstance(func.value, cst.Subscript):
                own = entry_keys(func.value)  # `nets["G"].parameters()`: that entry (not `nets[i]`: which one?)
                key = own[0] if len(own) == 2 else None
            return {key} if key else None
        fname = _key(func)
        if imports is not None and imports.qualify(func) == "itertools.chain":
            fname = "chain"  # from itertools import chain as ichain
        if fname in ("itertools.chain", "chain", "list", "tuple"):
            out: set = set()
            for arg in expr.args:
                sub = _owned(arg.value, table, env, imports)
                if sub is None:
                    return None
                out |= sub
            return out
        if fname == "filter" and len(expr.args) == 2:
            return _owned(expr.args[1].value, table, env, imports)
        return None
    if type(expr) in (cst.ListComp, cst.GeneratorExp) and type(expr.elt) is cst.Name and \
            isinstance(expr.for_in.target, cst.Name) and expr.elt.value == expr.for_in.target.value and \
            expr.for_in.inner_for_in is None:
        return _owned(expr.for_in.iter, table, env, imports)  # [p for p in params if p.requires_grad]
    if type(expr) in (cst.List, cst.Tuple):
        out = set()
        for elem in expr.elements:
            value = elem.value
            if isinstance(value, cst.Dict):
                sub = None
                for entry in value.elements:
                    if isinstance(entry, cst.DictElement) and isinstance(entry.key, cst.SimpleString) and \
                            entry.key.evaluated_value == "params":
                        sub = _owned(entry.value, table, env, imports)
                if sub is None:
                    return None
                out |= sub
            else:
                sub = _owned(value, table, env, imports)
                if sub is None:
                    return None
                out |= sub
        return out
    if type(expr) is cst.BinaryOperation and type(expr.operator) is cst.Add:
        left, right = _owned(expr.left, table, env, imports), _owned(expr.right, table, env, imports)
        return None if left is None or right is None else left | right
    if type(expr) is cst.Name:
        if expr.value in table.leaves:
            return {expr.value}
        if expr.value in env:
            return env[expr.value]
        return None
    if type(expr) is cst.Attribute:
        key = _key(expr)
        if key in table.leaves:
            return {key}
        if env.get(key):
            # `self.params = list(G.parameters())`, then `Adam(self.params)`; not `self.params = []`,
            # grown elsewhere (model_containers._owners)
            return env[key]
    return None


class _ParamLists(cst.CSTVisitor):
    """`params = list(G.parameters()) + list(D.parameters())` and friends."""

    def __init__(self, table: NameTable, imports=None) -> None:
        super().__init__()
        self.table = table
        self.imports = imports
        self.env: dict = {}
        # Plain names bound in more than one place to different (or unknown) parameters: the env is
        # one for the file, so `mana_params` of `split_params` must not stand for the caller's
        # `mana_params, work_params = self.gen.split_params()`: such a name owns nothing known.
        self.mixed: set = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        owned = None
        for target in node.targets:  # `self.params = params = list(...)`: both
            key = _key(target.target)
            if key is not None:
                owned = _owned(node.value, self.table, self.env, self.imports) if owned is None else owned
                if "." not in key and (key in self.mixed or owned is None and key in self.env or
                                       owned is not None and self.env.get(key, owned) != owned):
                    self.mixed.add(key)
                    self.env.pop(key, None)
                elif owned is not None:
                    self.env[key] = owned
            elif isinstance(target.target, (cst.Tuple, cst.List)):
                for el in target.target.elements:  # `a, b = f()`: what they own is not known
                    name = _key(el.value)
                    if name is not None and "." not in name:
                        self.mixed.add(name)
                        self.env.pop(name, None)


# The node types build_names's enter reads, and those model_containers.collect reads.
_READ = frozenset({cst.Call, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.FunctionDef, cst.ClassDef}) | \
    COLLECTED


def build_names(module: cst.Module, imports) -> NameTable:
    table = NameTable()
    # Two passes: classes first so that `Net()` is known wherever it appears.
    col = _Collector(imports, table)
    col.self_aliases = self_aliases(module, imports)
    for stmt in module.body:
        if type(stmt) is cst.ClassDef:
            col.visit_ClassDef(stmt)
            table.bases[stmt.name.value] = [b for b in (_key(arg.value) for arg in stmt.bases) if b]
            for method in stmt.body.body:
                if isinstance(method, cst.FunctionDef):
                    table.methods[(stmt.name.value, method.name.value)] = method
    assigns: list = []
    augs: list = []  # `params += list(m.parameters())`
    calls: list = []  # `train(model, opt)`: call sites of this file's functions
    groups: list = []  # `opt.add_param_group({...})`
    loops: list = []  # `for k, v in net.named_parameters(): params.append(v)`

    facts = Facts()

    def enter(node):
        node_type = type(node)
        collect(facts, node)  # analysis.model_containers
        if node_type is cst.Call:
            col.visit_Call(node)
            if type(node.func) is cst.Name:
                calls.append(node)
            elif type(node.func) is cst.Attribute and node.func.attr.value == "add_param_group":
                groups.append(node)
        elif node_type is cst.Assign:
            col.visit_Assign(node)
            assigns.append(node)
        elif node_type is cst.AnnAssign:
            col.visit_AnnAssign(node)
        elif node_type is cst.AugAssign:
            augs.append(node)
        elif node_type is cst.For:
            loops.append(node)
        elif node_type is cst.FunctionDef:
            col.visit_FunctionDef(node)
        elif node_type is cst.ClassDef:
            col.visit_ClassDef(node)

    for node in of_types(module, _READ):  # every node the two enters look at, in the walk's order
        enter(node)
    for alias in col.self_aliases:  # `d2l.evaluate_loss(...)`: this file's own function
        for stmt in module.body:
            if isinstance(stmt, cst.FunctionDef):
                table.functions.setdefault(f"{alias}.{stmt.name.value}", stmt)
    for _ in range(2):
        for key, src in col.aliases:
            if src not in table.modules and key not in table.modules:
                src = _part_of_module(src, table)
            if src in table.modules and key not in table.modules:
                table.modules[key] = table.modules[src]
            if src in table.instances and key not in table.instances:
                table.instances[key] = table.instances[src]
            if src in table.built:
                table.built.add(key)
    passed = _argument_instances(table, calls)
    _instance_parts(table)
    plists = _ParamLists(table, col.imports)
    for assign in assigns:
        plists.visit_Assign(assign)
    for key, call in col.pending_opts:
        while isinstance(call, cst.Call) and not col.imports.qualify(call.func):
            call = call.func.value if isinstance(call.func, cst.Attribute) else None
        if not isinstance(call, cst.Call) or not call.args:
            table.optimizers[key] = Optimizer(key, None, call)
            continue
        first = call.args[0]
        owned = _owned(first.value, table, plists.env, col.imports)
        for module_key in owned or ():
            if module_key not in table.leaves:
                table.modules.setdefault(module_key, "param")
        table.optimizers[key] = Optimizer(key, frozenset(owned) if owned is not None else None, call)
    for key, src in col.aliases:
        if "." not in key and "." not in src:
            table.name_aliases[key] = src
    find_handed_classes(table)
    infer_roles(module, col.imports, table)
    for key, note in passed.items():  # after the roles: both are said
        table.inferred[key] = f"{table.inferred[key]}; {note}" if key in table.inferred else note
    infer_attr_roles(module, table)
    infer_optimizer_attrs(module, table)
    infer_bound_optimizers(module, table)
    resolve_owners(table, assigns, augs, calls, plists.env, col.aliases, col.imports, loops)
    infer_containers(facts, table, col.imports)
    table.parts = module_parts(assigns, table)
    extend_owners(table, table.parts, groups, plists.env, col.imports)
    _propagate(col.aliases, table)
    return table


def _argument_instances(table: NameTable, calls: list) -> dict:
    """`def run(model, ...)` called as `run(m, ...)` where `m = StatefulLM()`
    and StatefulLM comes from another module: the parameter is an instance
    of that class (what its file says about it is read, as for `m`; a
    finding resting on another file is unsafe) when every call of the
    function in this file passes one of the same class (said in the
    message: the notes are returned). Names are file-wide, so a parameter
    name that several functions share must agree in all of them; only
    parameters nothing else in the file binds."""
    seen: dict = {}  # parameter -> {function: [calls passing it, kinds]}
    counts: dict = {}
    for call in calls:
        fn = table.functions.get(call.func.value)
        if fn is None or any(a.star for a in call.args):
            continue
        name = fn.name.value
        counts[name] = counts.get(name, 0) + 1
        params = [p.name.value for p in fn.params.params]
        bound = {params[i]: a.value for i, a in enumerate(call.args) if a.keyword is None and i < len(params)}
        bound.update({a.keyword.value: a.value for a in call.args if a.keyword is not None})
        for param, arg in bound.items():
            key = _key(arg)
            func = table.foreign_instances.get(key) if key else None
            entry = seen.setdefault(param, {}).setdefault(name, [0, []])
            entry[0] += 1
            own = _plain_instance(table, arg, key)
            entry[1].append((_key(func), func) if func is not None else (own, None) if own else None)
    notes = {}
    for param, by_fn in seen.items():
        kinds = [k for _, ks in by_fn.values() for k in ks]
        if None in kinds or len({k[0] for k in kinds}) != 1 or \
                any(n != counts.get(name) for name, (n, _) in by_fn.items()):
            continue
        if param in table.instances or param in table.foreign_instances or param in table.optimizers or \
                param in table.modules:
            continue
        cls, func = kinds[0]
        if func is None:
            table.instances[param] = cls  # a class of this file
        else:
            table.foreign_instances[param] = func
        fns = " and ".join(f"`{name}()`" for name in sorted(by_fn))
        notes[param] = f"`{param}` is an instance of `{cls}` (every call of {fns} in this file passes one)"
    return notes


def _plain_instance(table: NameTable, arg, key):
    """The class of this file, not a module, whose object `arg` is
    (`History()`, or a name bound to one): `train(..., log)` then reads
    `log`'s methods in `train`. Modules are left to the roles."""
    cls = table.instances.get(key) if key else None
    if cls is None and type(arg) is cst.Call and type(arg.func) is cst.Name and \
            arg.func.value in table.classes:
        cls = arg.func.value
    return cls if cls is not None and cls not in table.module_classes else None


def _instance_parts(table: NameTable) -> None:
    """`model = GAN()` whose class keeps `self.G = nn.Sequential(...)`:
    `model.G(z)` calls a module, part of `model` (an optimizer over
    `model.parameters()` steps it). Only attributes the class's own methods
    (or its local bases') assign."""
    for inst, cls in list(table.instances.items()):
        if cls not in table.module_classes:
            continue
        for attr in _self_attrs(table, cls):
            part = f"self.{attr}"
            if part in table.modules:
                table.modules.setdefault(f"{inst}.{attr}", table.modules[part])


def _self_attrs(table: NameTable, cls: str, depth: int = 0) -> set:
    out: set = set()
    for (owner, _), fn in table.methods.items():
        if owner != cls:
            continue
        for node in walk_nodes(fn):
            if type(node) is cst.AssignTarget:
                key = dotted(node.target)
                if key and key.startswith("self.") and key.count(".") == 1:
                    out.add(key[5:])
    if depth < 5:
        for base in table.bases.get(cls, ()):
            out |= _self_attrs(table, base, depth + 1)
    return out


def _part_of_module(src: str, table: NameTable) -> str:
    """`G, D = model.G, model.D`: `model.G` stands for a module where `model`
    is one and a class of this file keeps a module on `self.G`."""
    head, _, rest = src.partition(".")
    if rest and head in table.modules and f"self.{rest}" in table.modules:
        return f"self.{rest}"
    return src


def _propagate(aliases, table: NameTable) -> None:
    """`self.model = model`, `self.opt = opt`: roles of parameters carry over."""
    for key, src in aliases:
        if src in table.modules and key not in table.modules and key not in table.optimizers:
            _carry_module(table, key, src)
        elif src in table.optimizers and key not in table.optimizers and key not in table.modules:
            optimizer = table.optimizers[src]
            table.optimizers[key] = Optimizer(key, optimizer.owns, optimizer.node)
            _carry_note(table, key, src)
    _alias_parts(aliases, table)


def _carry_module(table: NameTable, key: str, src: str) -> None:
    table.modules[key] = table.modules[src]
    _carry_note(table, key, src)


def _carry_note(table: NameTable, key: str, src: str) -> None:
    """What was inferred about `src` is said of `key`, which names it."""
    if src in table.inferred:
        table.inferred[key] = table.inferred[src].replace(f"`{src}`", f"`{key}`", 1)


def _alias_parts(aliases, table: NameTable) -> None:
    """`self.model = model` where `model.G` is a module (`Adam(model.G.parameters())`
    in `__init__`): `self.model.G` is that module, and an optimizer over it owns
    it under both names, so a step method's `self.model.G(z)` is seen and owned."""
    for key, src in aliases:
        if not key.startswith("self.") or "." in src or src == "self":
            continue
        prefix = src + "."
        for name in [m for m in table.modules if m.startswith(prefix)]:
            part = key + name[len(src):]
            if part not in table.modules and part not in table.optimizers:
                _carry_module(table, part, name)
        for opt_key, opt in list(table.optimizers.items()):
            extra = {key + o[len(src):] for o in opt.owns or () if o.startswith(prefix)}
            if opt.owns is not None and extra - opt.owns:
                table.optimizers[opt_key] = Optimizer(opt.name, opt.owns | extra, opt.node)
