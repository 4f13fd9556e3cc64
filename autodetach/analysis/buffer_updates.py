"""Tensor state on a module updated in place, in forward, from this call's graph.

    class BatchNorm(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(n))
            self.register_buffer("running_mean", torch.zeros(n))

        def forward(self, x):
            mean = x.mean(0)
            self.running_mean.mul_(0.9).add_(0.1 * mean)   # the buffer gains mean's graph
            return (x - mean) * self.weight

An in-place update (`add_`, `copy_`, `buf[...] = v`, `buf += v`) of a tensor
kept on the module, with a value that carries a graph, gives the buffer a
history: the next call's update stacks onto it, so every training step's
graph stays referenced for as long as the module lives (memory grows), and
a loss that reads the buffer (in eval mode, or a later forward) walks into
graphs already freed. The same holds for `self.buf = f(self.buf, value)`.

Where the value comes from: the module's own parameters (`self.weight`,
`self.layer(x)`: certain in training) or forward's inputs, which carry a
graph when an earlier layer has parameters: an inference the finding names.
Inputs count only for a module that has trainable parameters of its own, or
that a module with parameters holds as a part and feeds a value from its own
layers (a custom batch norm whose gain and bias live in the module around it,
a statistics module a coupling layer calls on its network's output): a part of
a trained network, not an observation normaliser fed raw data. The owner may be
a class of this file or of a project file that imports the class
(`from util import BatchNormStats2d`, read there with the same walk). A method that `__init__`
calls (`reset_parameters`) runs before any forward: its in-place reset is
initialisation, not the caller managing recurrent state.
Nothing here needs a training loop in the file: the module is the bug.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import libcst as cst

from ..imports import dotted
from .flow import grad_mode
from .kept_memory import cut_anywhere, returns_cut
from .memo_stores import memo_guard
from .new_tensors import makes_new_tensor
from .project import text_of
from .project_index import files_mentioning, package_root
from .walk import class_methods, nodes

IN_PLACE = {"add_", "sub_", "mul_", "div_", "copy_", "lerp_", "addcmul_", "addcdiv_", "fill_", "mean_",
            "clamp_", "pow_", "sqrt_", "exp_", "set_", "index_add_", "scatter_add_", "masked_fill_",
            "index_copy_", "scatter_"}
CUT_METHODS = {"detach", "item", "tolist", "numpy", "size", "dim", "numel", "argmax", "argmin", "eq", "ne",
               "gt", "lt", "ge", "le", "long", "int", "bool", "byte", "nonzero", "sign", "round", "floor",
               "ceil", "isnan", "isinf", "isfinite", "argsort", "multinomial", "bernoulli", "zeros_like",
               "new_zeros", "new_ones", "new_empty", "new_full", "detach_"}
CUT_ATTRS = {"data", "grad", "shape", "dtype", "device", "requires_grad", "is_cuda", "ndim", "training"}
CUT_CALLS = {"float", "int", "bool", "len", "str", "isinstance", "range", "type", "print", "getattr", "hasattr"}
CASTS = {"to", "type_as", "type", "cuda", "cpu", "float", "double", "half", "contiguous", "view_as", "expand_as",
         "reshape_as"}
# torch functions whose results are integers (or not tensors): no graph
INTEGER_RESULTS = {"randint", "randperm", "no_grad", "one_hot", "argmax", "argmin", "argsort", "nonzero",
                   "bucketize", "searchsorted", "multinomial", "bernoulli", "eq", "ne", "gt", "lt", "ge", "le",
                   "isnan", "isinf", "isfinite"}
ENTRIES = ("forward", "__call__")
INPUT, OWN = "input", "param"


@dataclass
class BufferUpdate:
    cls: cst.ClassDef
    method: str  # the method that updates it (forward or a helper forward calls)
    stmt: cst.CSTNode  # the statement
    key: str  # `self.running_mean`
    values: list  # the argument expressions that carry the graph (to detach)
    origins: frozenset  # INPUT and/or OWN
    inputs: tuple  # forward's parameters the value comes from (INPUT)
    rebind: bool = False  # `self.avg = m * self.avg + (1 - m) * x`, not in place
    cache: bool = False  # a value from the parameters kept and returned by later calls (no fix)
    params: tuple = ()  # the module's parameters the value reads (`self.freqs`)
    reset: bool = False  # `self.h.zero_()` in another method: values is [the reset call]
    owner: str = ""  # a module of this file with parameters that holds this one as a part (inferred)
    memo: str = ""  # the test under which a cache is computed once (`not hasattr(self, "_c")`), see memo_stores
    recurrent: bool = False  # memory forward read, then set anew, that no code of the project cuts (kept_memory)


def buffer_updates(analysis) -> list:
    return analysis.memo("_buffer_updates", lambda: _find(analysis))


def _find(analysis) -> list:
    ctx = analysis.ctx
    out = []
    classes = [c for c in ctx.module.body if type(c) is cst.ClassDef]
    owners = _owners(ctx, classes)
    for cls in classes:
        name = cls.name.value
        out += _class_updates(ctx, cls, owners.get(name, ""), lambda: _project_owner(ctx, name))
    return out


def _project_owner(ctx, name) -> str:
    """A module class of another project file, with parameters, that imports class
    `name` from this file (or its package), builds it as a part in `__init__` and
    feeds it a value from its own layers (`_owners`, run on that file):
    `CouplingLayer (coupling_layer.py)`; "" when none does."""
    path = ctx.path
    if not path or path == "<string>" or not os.path.isfile(path):
        return ""
    stem = os.path.splitext(os.path.basename(path))[0]
    package = os.path.basename(os.path.dirname(os.path.abspath(path)))
    for other in files_mentioning(os.path.join(package_root(path), "_"), name.encode(), up=False):
        if os.path.realpath(other) == os.path.realpath(path):
            continue
        text = text_of(other)
        if text is None or "class " not in text:
            continue
        try:
            module = cst.parse_module(text)
        except Exception:  # noqa: BLE001 - a file that does not parse builds nothing
            continue
        from ..context import FileContext

        octx = FileContext(module, other, text)
        local = _imported_as(octx, name, stem, package)
        if not local:
            continue
        classes = [c for c in module.body if type(c) is cst.ClassDef]
        if any(c.name.value == name for c in classes):
            continue
        owners = _owners(octx, classes, {n: name for n in local})
        if name in owners:
            return f"{owners[name]}` in `{os.path.basename(other)}"
    return ""


def _imported_as(ctx, name, stem, package) -> set:
    """The local spellings under which `ctx`'s file calls class `name` imported from
    the module `stem` or its package `package` (`BatchNormStats2d`, `norm_util.BatchNormStats2d`)."""
    imports = ctx.imports
    out = set()
    for local, full in imports.aliases.items():
        mods = full.split(".")
        if mods[-1] == name and len(mods) > 1 and mods[-2] in (stem, package):
            out.add(local)
        elif mods[-1] == stem and len(mods) >= 1:
            out.add(f"{local}.{name}")
    for local, (level, mod, got) in imports.relative.items():
        mods = [m for m in mod.split(".") if m]
        if got == name and (not mods and level == 1 or mods and mods[-1] in (stem, package)):
            out.add(local)
        elif got == stem:
            out.add(f"{local}.{name}")
    return out


def graph_inputs(analysis, cls) -> bool:
    """Do the inputs of module class `cls` (a ClassDef of this file) carry a graph,
    as far as this file tells: it has trainable parameters of its own, or a module
    with parameters feeds it (`_owners`)? A module without either is taken to be
    fed raw data."""
    ctx = analysis.ctx

    def build():
        classes = [c for c in ctx.module.body if type(c) is cst.ClassDef]
        owned = _owners(ctx, classes)
        out = set(owned)
        for c in classes:
            methods = class_methods(c)
            if _state(ctx, c, methods)[1] or _builds_parts(ctx, methods.get("__init__")):
                out.add(c.name.value)
        return out

    return cls.name.value in analysis.memo("_graph_input_classes", build)


def _builds_parts(ctx, init) -> bool:
    """Does `__init__` keep on `self` something built by a call that is not a
    tensor constructor (a module of the project, a layer: parameters may be in it)?"""
    return bool(_built_parts(ctx, init))


def _built_parts(ctx, init) -> set:
    """The `self.X` that `__init__` builds by a call that is not a tensor
    constructor (`self.st_net = ResNet(...)`, `nn.utils.weight_norm(Scalar())`)."""
    out = set()
    for n in nodes(init) if init is not None else ():
        if isinstance(n, cst.Assign) and isinstance(n.value, cst.Call):
            q = ctx.imports.qualify(n.value.func) or dotted(n.value.func) or ""
            if makes_new_tensor(q) or \
                    q.split(".")[-1] in CUT_CALLS | {"list", "dict", "set", "tuple", "deque", "defaultdict"}:
                continue
            out |= {k for t in n.targets for k in [dotted(t.target) or ""]
                    if k.startswith("self.") and k.count(".") == 1}
    return out


def _owners(ctx, classes, foreign=None) -> dict:
    """Class name -> where a module of this file with trainable parameters feeds it
    values that carry their graph (a part of a trained network): a class whose
    forward calls it (`self.bn(x, gain=self.gain.view(...))`, an argument from its
    own parameters or layers), or an `nn.Sequential` that puts it after a layer.
    A part fed only its owner's raw input (an observation normaliser at the front
    of a policy) does not count. `foreign`: how this file spells classes imported
    from another file (`norm_util.BatchNormStats2d` -> `BatchNormStats2d`)."""
    names = {c.name.value: c.name.value for c in classes}
    names.update(foreign or {})
    out: dict = {}
    for cls in classes:
        methods = class_methods(cls)
        buffers, params = _state(ctx, cls, methods)
        init = methods.get("__init__")
        parts = {}
        for n in nodes(init) if init is not None else ():
            if type(n) is cst.Assign and len(n.targets) == 1 and isinstance(n.value, cst.Call) and \
                    names.get(dotted(n.value.func)) not in (None, cls.name.value):
                key = dotted(n.targets[0].target)
                if key is not None and key.startswith("self.") and key.count(".") == 1:
                    parts[key] = names[dotted(n.value.func)]
        entry = next((methods[m] for m in ENTRIES if m in methods), None)
        if foreign and parts:
            # a file that imports the part: its own project modules are out of this walk's sight,
            # so what `__init__` builds (`self.st_net = ResNet(...)`) is taken to have parameters
            params = params | {k for k in _built_parts(ctx, init) if parts.get(k) not in foreign.values()}
        if not parts or not params or entry is None:
            continue
        walker = _Walk(ctx, cls, entry.name.value, buffers, params | set(parts),
                       {p.name.value: frozenset({INPUT}) for p in entry.params.params[1:]}, methods)
        walker.parts = set(parts)
        walker.block(entry.body, quiet=False)
        for key in walker.fed:
            out.setdefault(parts[key], cls.name.value)
    for call in nodes(ctx.module):
        if not (type(call) is cst.Call and (ctx.imports.qualify(call.func) or "") == "torch.nn.Sequential"):
            continue
        layer = ""
        for arg in call.args:
            value = arg.value
            func = value.func if isinstance(value, cst.Call) else None
            if func is not None and dotted(func) in names:
                if layer:
                    out.setdefault(names[dotted(func)], layer)
                continue
            q = (ctx.imports.qualify(func) or "") if func is not None else ""
            if _is_layer(q) and q.split(".")[-1] not in NO_WEIGHTS:
                layer = "nn.Sequential after `" + q.split(".")[-1] + "`"
    return out


def _is_layer(q: str) -> bool:
    """`torch.nn.Linear`: a layer whose call runs weights of its own."""
    last = q.split(".")[-1]
    return q.startswith("torch.nn.") and last[:1].isupper() and q.count(".") == 2 and not last.endswith("Loss") \
        and last not in ("Identity", "Dropout", "ReLU", "Tanh", "Sigmoid")


# layers without weights, for what comes before a part in an nn.Sequential
NO_WEIGHTS = {"Flatten", "GELU", "LeakyReLU", "ELU", "SiLU", "Softmax", "LogSoftmax", "MaxPool1d", "MaxPool2d",
              "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool2d", "Upsample", "Unflatten"}


def _init_called(methods) -> set:
    """Methods only `__init__` calls (`self.reset_parameters()`): they run before
    any forward. One that another method calls too resets state between steps."""
    def called(m):
        return {n.func.attr.value for n in nodes(m) if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
                and dotted(n.func.value) == "self"}

    init = methods.get("__init__")
    if init is None:
        return set()
    out = called(init)
    for name, m in methods.items():
        if name != "__init__":
            out -= called(m) - {name}
    return out


def _class_updates(ctx, cls, owner="", remote=None) -> list:
    methods = class_methods(cls)
    buffers, params = _state(ctx, cls, methods)
    for base in _file_bases(ctx, cls):
        # a mixin of this file (`class SNConv2d(nn.Conv2d, SN)`): its methods and state, where not overridden
        inherited = class_methods(base)
        more, more_params = _state(ctx, base, inherited)
        buffers, params = buffers | more, params | more_params
        methods = {**inherited, **methods}
    buffers -= params
    if not buffers and not params:
        return []
    entry = next((methods[n] for n in ENTRIES if n in methods), None)
    if entry is None:
        return []
    out: list = []
    # (method name, tainted parameter -> origins), forward first, then the helpers it feeds
    todo = [(entry.name.value, {p.name.value: frozenset({INPUT}) for p in entry.params.params[1:]})]
    seen = set()
    stored: dict = {}  # `self.X` that forward (or a helper) stores a graph in -> origins
    walked = set()
    while todo:
        name, env = todo.pop(0)
        sig = (name, tuple(sorted((k, tuple(sorted(v))) for k, v in env.items())))
        if sig in seen or len(seen) > 20:
            continue
        seen.add(sig)
        walker = _Walk(ctx, cls, name, buffers, params, env, methods)
        fn = methods[name]
        walker.block(fn.body, quiet=any(grad_mode(d.decorator, ctx.imports) == 1 for d in fn.decorators))
        out += walker.found
        todo += walker.calls
        for key, got in walker.env.items():
            if key.startswith("self.") and got:
                stored[key] = stored.get(key, frozenset()) | got
                walked.add(name)
    # inputs count only for a part of a trained network
    if not params and not owner and remote is not None and any(OWN not in u.origins for u in out):
        owner = remote()
    if not params and not owner:
        out = [u for u in out if OWN in u.origins]
        stored = {k: v for k, v in stored.items() if OWN in v}
    elif not params:
        for u in out:
            u.owner = owner
    out += _resets(ctx, cls, methods, stored, walked)
    done, unique = set(), []
    for u in out:
        if id(u.stmt) not in done:
            done.add(id(u.stmt))
            unique.append(u)
    return unique


RESETS = {"zero_", "fill_", "uniform_", "normal_"}  # values of their own, no graph


def _resets(ctx, cls, methods, stored, walked) -> list:
    """`self.h.zero_()` in a reset method, for state forward stores a graph in:
    the in-place reset keeps the tensor's history (zeros with a grad_fn), so
    the next forward that reads it links into the freed graph of the last
    batch. `for b in self.buffers(): b.zero_()` resets every buffer."""
    out = []
    if not stored:
        return out
    init = _init_called(methods)
    for name, m in methods.items():
        if name in ENTRIES or name == "__init__" or name in walked or name in init:
            continue
        every = {n.target.value for n in nodes(m) if isinstance(n, cst.For) and isinstance(n.target, cst.Name)
                 and isinstance(n.iter, cst.Call) and dotted(n.iter.func) == "self.buffers"}
        cut = {dotted(n.func.value) for n in nodes(m) if isinstance(n, cst.Call) and
               isinstance(n.func, cst.Attribute) and n.func.attr.value in ("detach_", "requires_grad_")}
        for n in nodes(m):
            if not isinstance(n, cst.SimpleStatementLine):
                continue
            for small in n.body:
                call = small.value if isinstance(small, cst.Expr) else None
                if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and
                        call.func.attr.value in RESETS) or \
                        any(not isinstance(a.value, (cst.Integer, cst.Float, cst.UnaryOperation)) for a in call.args):
                    continue
                base = dotted(call.func.value)
                keys = [base] if base in stored else sorted(stored) if base in every else []
                if not keys or base in cut:
                    continue
                got = frozenset().union(*(stored[k] for k in keys))
                out.append(BufferUpdate(cls, name, n, keys[0], [call], got, (), reset=True))
    return out


def _file_bases(ctx, cls) -> list:
    """The classes of this file that `cls` derives from (directly), in order."""
    here = {c.name.value: c for c in ctx.module.body if type(c) is cst.ClassDef}
    return [here[b.value.value] for b in cls.bases
            if isinstance(b.value, cst.Name) and b.value.value in here and b.value.value != cls.name.value]


def _name_prefix(arg):
    """`'sv%d' % i`, `f"sv{i}"`: the literal start of a buffer name built per index."""
    if isinstance(arg, cst.BinaryOperation) and isinstance(arg.operator, cst.Modulo) and \
            isinstance(arg.left, cst.SimpleString):
        text = arg.left.evaluated_value
        return text.split("%")[0] or None
    if isinstance(arg, cst.FormattedString) and arg.parts and isinstance(arg.parts[0], cst.FormattedStringText):
        return arg.parts[0].value or None
    return None


def _indexed_buffers(methods, prefixes) -> set:
    """`self.sv`, a property returning the buffers registered as `'sv%d' % i`
    (`[getattr(self, 'sv%d' % i) for i in range(n)]`)."""
    out = set()
    for name, m in methods.items():
        if not any(dotted(d.decorator) == "property" for d in m.decorators):
            continue
        for n in nodes(m):
            if isinstance(n, cst.Call) and dotted(n.func) == "getattr" and len(n.args) >= 2 and \
                    dotted(n.args[0].value) == "self" and _name_prefix(n.args[1].value) in prefixes:
                out.add("self." + name)
    return out


def _state(ctx, cls, methods) -> tuple:
    """(tensor state keys kept on the module, its own parameters and layers)."""
    buffers, params = set(), set()
    prefixes = set()
    imports = ctx.imports
    for base in cls.bases:
        q = imports.qualify(base.value) or ""
        if q.startswith("torch.nn.") and q.split(".")[-1] not in ("Module", "ModuleList", "ModuleDict", "Sequential"):
            params |= {"self.weight", "self.bias"}  # `class SNLinear(nn.Linear)`
    for m in methods.values():
        for n in nodes(m):
            if type(n) is not cst.Call:  # exact type: isinstance on libcst's ABCs is slow here
                continue
            if dotted(n.func) == "self.register_buffer" and n.args and \
                    isinstance(n.args[0].value, cst.SimpleString):
                buffers.add("self." + n.args[0].value.evaluated_value)
            elif dotted(n.func) == "self.register_buffer" and n.args and _name_prefix(n.args[0].value):
                prefixes.add(_name_prefix(n.args[0].value))
            elif dotted(n.func) == "self.register_parameter" and n.args and \
                    isinstance(n.args[0].value, cst.SimpleString):
                params.add("self." + n.args[0].value.evaluated_value)
        if m.name.value != "__init__":
            continue
        for n in nodes(m):
            if type(n) is not cst.Assign or len(n.targets) != 1:
                continue
            key = dotted(n.targets[0].target)
            if key is None or not key.startswith("self.") or not isinstance(n.value, cst.Call):
                continue
            call = n.value
            while isinstance(call.func, cst.Attribute) and call.func.attr.value in ("to", "cuda", "float", "double") \
                    and isinstance(call.func.value, cst.Call):
                call = call.func.value
            q = imports.qualify(call.func) or ""
            if q in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
                flag = _grad_flag(call)
                if not (isinstance(flag, cst.Name) and flag.value == "False"):
                    params.add(key)
            elif _is_layer(q):
                params.add(key)  # a layer: calling it uses its weights
            elif makes_new_tensor(q) and not _requires_grad(call):
                buffers.add(key)
    if prefixes:
        buffers |= _indexed_buffers(methods, prefixes)
    return buffers - params, params


def _grad_flag(call):
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "requires_grad"), None)


def grad_condition(ctx, cls, key):
    """The `requires_grad=` expression of `self.key = nn.Parameter(..., requires_grad=expr)` in
    `__init__` when it is not the literal True (the parameter is trained only when it holds)."""
    for m in cls.body.body:
        if not (isinstance(m, cst.FunctionDef) and m.name.value == "__init__"):
            continue
        for n in nodes(m):
            if isinstance(n, cst.Assign) and len(n.targets) == 1 and dotted(n.targets[0].target) == key and \
                    isinstance(n.value, cst.Call):
                flag = _grad_flag(n.value)
                if flag is not None and not (isinstance(flag, cst.Name) and flag.value == "True"):
                    return ctx.code(flag).strip()
    return None


def _requires_grad(call) -> bool:
    return any(a.keyword is not None and a.keyword.value == "requires_grad" for a in call.args)


class _Walk:
    """One method's statements in order, with which names carry a graph."""

    def __init__(self, ctx, cls, name, buffers, params, env, methods):
        self.ctx, self.cls, self.name = ctx, cls, name
        self.buffers, self.params, self.methods = buffers, params, methods
        self.env = dict(env)  # name -> origins
        self.inputs = {k: (k,) for k in env}  # name -> forward parameters it comes from
        self.found: list = []
        self.calls: list = []
        self.reads: set = set()  # state read by the statements walked so far
        self.puse: dict = {}  # name -> the module parameters it is computed from
        self.returned: set = set()  # `self.X` (or `self.X[k]`) returned by the statements walked so far
        self.guards: list = []  # the tests of the `if`/`while` statements around the one walked
        self.defs: dict = {}  # local name -> the value last assigned to it
        self.parts: set = set()  # `self.X` holding a module of this file (see _owners)
        self.fed: set = set()  # those of them called with an argument from the parameters

    # --- what an expression carries ---------------------------------------
    def carries(self, e) -> frozenset:
        if e is None:
            return frozenset()
        if type(e) is cst.Name:
            return self.env.get(e.value, frozenset())
        if type(e) is cst.Attribute:
            key = dotted(e)
            if e.attr.value in CUT_ATTRS:
                return frozenset()
            if key is not None and key.startswith("self.") and key.count(".") == 1:
                if key in self.env:
                    return self.env[key]
                return frozenset({OWN}) if key in self.params else frozenset()
            return self.carries(e.value)
        if isinstance(e, cst.Call):
            func = e.func
            key = dotted(func) or ""
            if isinstance(func, cst.Attribute) and func.attr.value in CUT_METHODS:
                return frozenset()
            if isinstance(func, cst.Attribute) and func.attr.value in CASTS:
                return self.carries(func.value)  # `x.to(other)`: other gives a dtype or device only
            if key in CUT_CALLS:
                return frozenset()
            q = self.ctx.imports.qualify(func) or ""
            if makes_new_tensor(q) or q.startswith("torch.") and q.split(".")[-1] in INTEGER_RESULTS:
                return frozenset()
            if q == "torch.autograd.grad" and not any(a.keyword is not None and a.keyword.value == "create_graph"
                                                      for a in e.args):
                return frozenset()  # gradients without create_graph hold no graph
            got = frozenset()
            if key in self.params:
                got |= {OWN}  # `self.linear(x)`
            if isinstance(func, cst.Attribute) and (not key.startswith("self.") or key.count(".") > 1):
                got |= self.carries(func.value)  # `x.mean(0)`, `self.gain.view(-1)`
            for a in e.args:
                got |= self.carries(a.value)
            return got
        if type(e) in (cst.Comparison, cst.SimpleString, cst.Integer, cst.Float, cst.Lambda):
            return frozenset()
        if isinstance(e, cst.Subscript):
            return self.carries(e.value)
        if isinstance(e, cst.IfExp):  # the test picks a branch; its own value is not the result
            return self.carries(e.body) | self.carries(e.orelse)
        got = frozenset()
        for child in _exprs(e):
            got |= self.carries(child)
        return got

    def param_sources(self, e) -> set:
        out = set()
        for n in nodes(e):
            if type(n) is cst.Attribute and dotted(n) in self.params:
                out.add(dotted(n))
            elif type(n) is cst.Name:
                out |= self.puse.get(n.value, set())
        return out

    def sources(self, e) -> tuple:
        return tuple(sorted({p for n in nodes(e) if type(n) is cst.Name for p in self.inputs.get(n.value, ())}))

    # --- statements ---------------------------------------------------------
    def block(self, block, quiet: bool) -> None:
        for stmt in getattr(block, "body", ()):
            self.stmt(stmt, quiet)

    def stmt(self, stmt, quiet: bool) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self.small(stmt, small, quiet)
            return
        if isinstance(stmt, cst.With):
            off = quiet or any(grad_mode(item.item, self.ctx.imports) == 1 for item in stmt.items)
            self.block(stmt.body, off)
            return
        if isinstance(stmt, cst.For):
            got = self.carries(stmt.iter)
            for n in nodes(stmt.target):
                if isinstance(n, cst.Name):
                    self._bind(n.value, got, stmt.iter)
            self.block(stmt.body, quiet)
            return
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return
        test = getattr(stmt, "test", None)
        if test is not None:
            self.guards.append(test)
        try:
            self._parts(stmt, quiet)
        finally:
            if test is not None:
                self.guards.pop()

    def _parts(self, stmt, quiet) -> None:
        for field in ("body", "orelse", "handlers", "finalbody"):
            part = getattr(stmt, field, None)
            if part is None:
                continue
            for sub in part if isinstance(part, (list, tuple)) else [part]:
                if isinstance(sub, (cst.If, cst.Else, cst.ExceptHandler, cst.Finally)):
                    self.stmt(sub, quiet) if isinstance(sub, cst.If) else self.block(sub.body, quiet)
                else:
                    self.block(sub, quiet)

    def _bind(self, name, got, expr) -> None:
        if got:
            self.env[name] = got
            self.inputs[name] = self.sources(expr) if expr is not None else ()
            self.puse[name] = self.param_sources(expr) if expr is not None else set()
        else:
            self.env.pop(name, None)

    def small(self, stmt, small, quiet) -> None:
        if isinstance(small, cst.Return) and small.value is not None:
            for n in nodes(small.value):
                key = dotted(n.value if isinstance(n, cst.Subscript) else n) \
                    if type(n) in (cst.Attribute, cst.Subscript) else None
                if key is not None and key.startswith("self.") and key.count(".") == 1 and key not in self.params:
                    self.returned.add(key)  # an early return of kept state: a cache
        if isinstance(small, cst.Assign):
            for target in small.targets:
                self.assign(stmt, target.target, small.value, quiet)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self.assign(stmt, small.target, small.value, quiet)
        elif isinstance(small, cst.AugAssign):
            key = self._state_key(small.target)
            got = frozenset() if quiet else self.carries(small.value)
            if key is not None and got and not self._reset(key, rebinds_only=True):
                self.report(stmt, key, [small.value], got)
            elif isinstance(small.target, cst.Name) and got:
                self.env[small.target.value] = self.env.get(small.target.value, frozenset()) | got
                self.inputs[small.target.value] = self.sources(small.value)
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and not quiet:
            self.in_place(stmt, small.value)
            self.re_register(stmt, small.value)
        for n in nodes(small):
            if type(n) is cst.Call and type(n.func) is cst.Attribute and \
                    dotted(n.func.value) == "self" and n.func.attr.value in self.methods:
                self.helper(n, quiet)
            if type(n) is cst.Attribute and dotted(n) in self.buffers:
                self.reads.add(dotted(n))
            if self.parts and isinstance(n, cst.Call) and dotted(n.func) in self.parts and not quiet and \
                    any(OWN in self.carries(a.value) for a in n.args):
                self.fed.add(dotted(n.func))

    def assign(self, stmt, target, value, quiet) -> None:
        got = frozenset() if quiet else self.carries(value)
        base = target.value if isinstance(target, cst.Subscript) else target
        if OWN in got and dotted(base) in self.returned and dotted(base) not in self.buffers and \
                not self._grad_guarded(value):
            # `if key in self.cache: return self.cache[key]` ... `self.cache[key] = f(self.freqs)`
            self.report(stmt, dotted(base), [value], frozenset({OWN}), cache=True)
            return
        # a parameter or layer itself (`self.fc_src = self.fc`) is no value computed from it
        guard = memo_guard(self.ctx, self.guards, dotted(target) or "", value, self.methods) \
            if OWN in got and dotted(target) not in self.buffers and dotted(value) not in self.params else None
        if guard:
            # `if not hasattr(self, "_c"): self._c = f(self.weight)`: computed once, read by every later call
            self.report(stmt, dotted(target), [value], frozenset({OWN}), cache=True)
            self.found[-1].memo = guard
            return
        if isinstance(target, cst.Subscript):
            key = self._state_key(target)
            if key is not None and got and not self._reset(key, rebinds_only=True):
                self.report(stmt, key, [value], got)  # `self.buf[:] = v`
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            values = value.elements if isinstance(value, (cst.Tuple, cst.List)) and \
                len(value.elements) == len(target.elements) else None
            for i, el in enumerate(target.elements):
                sub = values[i].value if values else value
                self.assign(stmt, el.value, sub, quiet)
            return
        key = dotted(target)
        if key is None:
            return
        if key in self.buffers and got and key not in self.env and key not in self.reads and not self._reset(key) and \
                any(dotted(n) == key for n in nodes(value) if isinstance(n, cst.Attribute)):
            # `self.avg = m * self.avg + (1 - m) * x`; not recurrent state stepped within this call,
            # nor state another method resets (the caller manages it, as for an LSTM's), nor state this
            # call read before (memory that feeds the output: recurrent state)
            self.report(stmt, key, [value], got, rebind=True)
        elif key in self.buffers and got and key not in self.env and key in self.reads and \
                not self._reset(key) and any(dotted(n) == key for n in nodes(value) if isinstance(n, cst.Attribute)) \
                and not returns_cut(self.ctx, self.methods, value) and not cut_anywhere(self.ctx, self.cls, key):
            # memory this call read, set anew from its old value and this call's graph, that nothing cuts
            self.report(stmt, key, [value], got, rebind=True)
            self.found[-1].recurrent = True
        if isinstance(target, cst.Name) or key.startswith("self."):
            self._bind(key, got, value)
            self.defs[key] = value

    def _grad_guarded(self, value) -> bool:
        """The store runs only when the parameters it reads are not trained
        (`if not self.learned_freq`, `if not self.freqs.requires_grad`)."""
        flags = {"requires_grad"}
        for p in self.param_sources(value):
            cond = grad_condition(self.ctx, self.cls, p)
            if cond:
                flags |= {n.value for n in nodes(cst.parse_expression(cond)) if isinstance(n, cst.Name)}
        words = set()
        for test in self.guards:
            for n in nodes(test):
                if isinstance(n, cst.Name):
                    words.add(n.value)
                    if n.value in self.defs:
                        words |= {x.value for x in nodes(self.defs[n.value]) if isinstance(x, cst.Name)}
                elif isinstance(n, cst.Attribute):
                    words.add(n.attr.value)
        return bool(words & flags)

    def _reset(self, key, rebinds_only=False) -> bool:
        """Another method sets `key` anew (the caller manages the state, once per
        step or epoch); unless rebinds_only, resetting it in place counts too
        (`zero_()` keeps the history, but the state is then recurrent, the
        caller's to cut)."""
        init = _init_called(self.methods)
        for name, m in self.methods.items():
            if name in ("__init__", self.name) or name in ENTRIES or name in init:
                continue
            for n in nodes(m):
                if isinstance(n, cst.AssignTarget) and dotted(n.target) == key:
                    return True
                if not rebinds_only and isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and \
                        n.func.attr.value in ("zero_", "fill_", "detach_", "copy_") and dotted(n.func.value) == key:
                    return True
        return False

    def in_place(self, stmt, call) -> None:
        """`self.buf.mul_(m).add_(v)`, `self.buf[i].copy_(v)`: the chain's arguments."""
        args, cur = [], call
        while isinstance(cur, cst.Call) and isinstance(cur.func, cst.Attribute) and \
                cur.func.attr.value in IN_PLACE:
            args += [a.value for a in cur.args if a.keyword is None or a.keyword.value in ("other", "src", "value")]
            cur = cur.func.value
        if cur is call:
            return
        key = self._state_key(cur)
        if key is None:
            return
        values = [a for a in args if self.carries(a)]
        got = frozenset().union(*(self.carries(a) for a in values)) if values else frozenset()
        if got and not self._reset(key, rebinds_only=True):
            self.report(stmt, key, values, got)

    def re_register(self, stmt, call) -> None:
        """`self.register_buffer(name, old * decay + new * (1 - decay))` (or `setattr(self, name, ...)`)
        outside `__init__`, where `old` is that buffer's current value (`getattr(self, name)`): the
        rebind form of a running average, whose value hangs from every earlier call's."""
        func = dotted(call.func)
        args = [a.value for a in call.args if a.keyword is None]
        if func == "setattr" and args and dotted(args[0]) == "self":
            args = args[1:]
        elif func != "self.register_buffer":
            return
        if self.name == "__init__" or len(args) < 2:
            return
        name, value = args[0], args[1]
        got = self.carries(value)
        if not got or not self._reads_own(value, name, 3):
            return
        key = "self." + name.evaluated_value if isinstance(name, cst.SimpleString) else \
            f"getattr(self, {self.ctx.code(name).strip()})"
        self.report(stmt, key, [value], got, rebind=True)

    def _reads_own(self, e, name, depth) -> bool:
        """Does `e` read the buffer `name` names (through local names bound to it, `depth` deep)?"""
        text = self.ctx.code(name).strip()
        lit = name.evaluated_value if isinstance(name, cst.SimpleString) else None
        for n in nodes(e):
            if isinstance(n, cst.Attribute) and lit is not None and dotted(n) == "self." + lit:
                return True
            if isinstance(n, cst.Call) and dotted(n.func) == "getattr" and len(n.args) >= 2 and \
                    dotted(n.args[0].value) == "self" and self.ctx.code(n.args[1].value).strip() == text:
                return True
            if isinstance(n, cst.Name) and depth > 0 and n.value in self.defs and self.defs[n.value] is not e and \
                    self._reads_own(self.defs[n.value], name, depth - 1):
                return True
        return False

    def _state_key(self, e):
        while isinstance(e, cst.Subscript):
            e = e.value
        key = dotted(e)
        return key if key in self.buffers else None

    def helper(self, call, quiet) -> None:
        fn = self.methods[call.func.attr.value]
        params = [p.name.value for p in fn.params.params][1:]
        env = {}
        for i, a in enumerate(call.args):
            name = a.keyword.value if a.keyword is not None else (params[i] if i < len(params) else None)
            got = frozenset() if quiet else self.carries(a.value)
            if name in params and got:
                env[name] = got
        self.calls.append((fn.name.value, env))

    def report(self, stmt, key, values, got, rebind=False, cache=False) -> None:
        inputs = tuple(sorted({p for v in values for p in self.sources(v)}))
        used = tuple(sorted({p for v in values for p in self.param_sources(v)}))
        self.found.append(BufferUpdate(self.cls, self.name, stmt, key, values, got, inputs, rebind, cache, used))


def _exprs(e) -> list:
    """The direct sub-expressions of `e` (operands, elements, arguments)."""
    out = []
    for n in nodes(e):
        if n is e:
            continue
        if isinstance(n, cst.BaseExpression):
            out.append(n)
    # only the top level: nodes() is a pre-order walk; keep those whose parent is e
    top, skip = [], set()
    for n in out:
        if id(n) in skip:
            continue
        top.append(n)
        skip |= {id(x) for x in nodes(n) if x is not n}
    return top
