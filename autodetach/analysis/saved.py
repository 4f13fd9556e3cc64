"""Does a graph hold a module's weights? An optimizer step between the
forward and a backward changes the parameters in place, and the backward
fails ("modified by an inplace operation") only where a node saved them.

A layer saves what its backward needs (checked under torch 2.x):
`nn.Linear` and `nn.Embedding` save no weight when their input does not
require grad (raw data); convolutions and norm layers save it always; any
parameterised layer fed by a tensor that requires grad saves it. Answers
are True (saves), False (provably not) or None (cannot tell)."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .names import PARAMLESS_PREFIXES
from .walk import class_methods, nodes

NO_SAVE_ON_RAW = {"torch.nn.Linear", "torch.nn.Embedding"}
ALWAYS_SAVE_PREFIXES = ("Conv", "LazyConv", "BatchNorm", "LayerNorm", "GroupNorm", "RNN", "LSTM", "GRU")
SAVES_ON_GRAPH_INPUT = NO_SAVE_ON_RAW | {"torch.nn.Bilinear", "torch.nn.MultiheadAttention",
                                         "torch.nn.PReLU", "torch.nn.EmbeddingBag"}
_WRAPPERS = ("to", "cuda", "cpu", "train", "double", "float", "half")


def saves_weights(analysis, node, module: str) -> Optional[bool]:
    """Does `node` (a value computed through `module`) save `module`'s
    parameters for backward?"""
    held = _held_constructor(analysis, module)
    if held is not None and held_attr(analysis, held) is not None:
        return _output_saved_only(analysis, node, module)
    call = constructor(analysis, module) or given_constructor(analysis, module)
    if call is None:
        return None
    return _layer(analysis, call, _graph_input(analysis, node, module), 0)


# Ops whose backward needs their output only: a step that changes their input in place
# leaves the graph intact (checked under torch 2.x; log, abs, clamp, softplus, pow save it).
_OUTPUT_SAVING = frozenset({"exp", "exp2", "expm1", "sigmoid", "tanh", "relu", "sqrt", "rsqrt", "reciprocal"})


def held_attr(analysis, call: cst.Call) -> Optional[str]:
    """X when `call` builds a module whose forward only hands back `self.X` (a
    learned scalar: `return self.log_alpha`), read in this file or the project's."""
    name = dotted(call.func)
    classes = analysis.ctx.class_defs(name) if name and "." not in name else []
    if classes:
        fwd = class_methods(classes[0]).get("forward")
        if fwd is None or len(fwd.params.params) != 1 or fwd.params.star_arg is not cst.MaybeSentinel.DEFAULT \
                or fwd.params.kwonly_params or fwd.params.star_kwarg is not None:
            return None
        inside = list(nodes(fwd.body))
        returns = [n for n in inside if isinstance(n, cst.Return)]
        attrs = {dotted(n.value) for n in returns}
        if not returns or len(attrs) != 1 or any(isinstance(n, (cst.Call, cst.Yield)) for n in inside):
            return None
        held = attrs.pop()
        return held[5:] if held and held.startswith("self.") and held.count(".") == 1 else None
    qualified = analysis.ctx.imports.qualify(call.func)
    if qualified is None:
        # `from .model import Scalar`: a relatively imported class
        summary = analysis.project.relative_method(name, "forward") if name else None
        return summary.returns_attr if summary is not None else None
    hit = analysis.project.method(qualified, "forward")
    return hit[0].returns_attr if hit is not None else None


def _output_saving(analysis, call) -> bool:
    if not isinstance(call, cst.Call):
        return False
    if isinstance(call.func, cst.Attribute) and not call.args and call.func.attr.value in _OUTPUT_SAVING \
            and not (analysis.ctx.imports.qualify(call.func) or "").startswith("torch."):
        return True  # `m().exp()`: the receiver is the one input
    qualified = analysis.ctx.imports.qualify(call.func) or ""
    return len(call.args) == 1 and qualified.rsplit(".", 1)[-1] in _OUTPUT_SAVING and \
        qualified.rsplit(".", 1)[0] in ("torch", "torch.nn.functional")


def _output_saved_only(analysis, node, module: str) -> Optional[bool]:
    """False when `node` reads the held parameter of `module` only through ops that save
    their output (`log_alpha().exp()`, `torch.exp(log_alpha())`): a step changing the
    parameter in place breaks nothing its backward needs. None otherwise."""
    if node.expr is None:
        return None
    calls = [n for n in nodes(node.expr) if isinstance(n, cst.Call) and dotted(n.func) == module]
    if not calls or any(dotted(n.value) == module for n in nodes(node.expr) if isinstance(n, cst.Arg)):
        return None
    for call in calls:
        parent = analysis.ctx.parent(call)
        if isinstance(parent, cst.Attribute):
            parent = analysis.ctx.parent(parent)  # `m().exp` then its call
        elif isinstance(parent, cst.Arg):
            parent = analysis.ctx.parent(parent)
        if not _output_saving(analysis, parent) or not _holds(parent, call):
            return None
    return False


def _holds(op, call) -> bool:
    """Is `call` the op's receiver or its one argument?"""
    if isinstance(op.func, cst.Attribute) and op.func.value is call:
        return True
    return len(op.args) == 1 and op.args[0].value is call


def constructor(analysis, key: str) -> Optional[cst.Call]:
    """The one constructor call assigned to `key` in the file (None when
    there is none, or more than one)."""
    cache = analysis.table("_constructors")
    if key in cache:
        return cache[key]
    found = []
    for node in nodes(analysis.ctx.module):
        if isinstance(node, cst.Assign) and any(dotted(t.target) == key for t in node.targets):
            found.append(_unwrap(node.value))
    if not found and key.count(".") == 1:
        found = _class_assigned(analysis, *key.split("."))
    out = found[0] if len(found) == 1 and isinstance(found[0], cst.Call) else None
    cache[key] = out
    return out


def given_constructor(analysis, key: str) -> Optional[cst.Call]:
    """The constructor a class of this file is given for `key` (`self.netG`, or
    `self.models["G"]` of a dict), when `__init__` stores a parameter there and the
    one construction of the class in the file passes a constructor call, or a name
    the file assigns one: `Trainer(G, D)` after `G = nn.Sequential(...)`."""
    from .optimizer_owners import bound_args

    cache = analysis.table("_given_constructors")
    if key not in cache:
        cache[key] = None
        values = list(_stored(analysis.ctx.module, key))
        if len(values) == 1 and isinstance(values[0], cst.Name):
            cache[key] = _passed(analysis, values[0], bound_args)
    return cache[key]


def _stored(module, key: str):
    """The values assigned to `key`: `key = v`, `base["k"] = v`, `base = {"k": v}`."""
    from .keyed import constant, key_of

    for node in nodes(module):
        if not isinstance(node, cst.Assign):
            continue
        for t in node.targets:
            target, base = t.target, dotted(t.target)
            if base == key:
                yield node.value
            elif isinstance(target, cst.Subscript) and dotted(target.value) and key_of(target) is not None and \
                    f"{dotted(target.value)}[{key_of(target)!r}]" == key:
                yield node.value
            elif isinstance(node.value, cst.Dict) and base and key.startswith(base + "["):
                yield from (el.value for el in node.value.elements if isinstance(el, cst.DictElement)
                            and constant(el.key) is not None and f"{base}[{constant(el.key)!r}]" == key)


def _passed(analysis, value: cst.Name, bound_args) -> Optional[cst.Call]:
    ctx = analysis.ctx
    init = ctx.enclosing(value, cst.FunctionDef)
    cls = ctx.enclosing(init, cst.ClassDef) if init is not None else None
    if cls is None or init.name.value != "__init__" or ctx.enclosing(init, cst.FunctionDef) is not None:
        return None
    params = init.params.params
    if not params or value.value not in {p.name.value for p in params[1:]}:
        return None
    sites = [n for n in nodes(ctx.module) if isinstance(n, cst.Call) and dotted(n.func) == cls.name.value]
    if len(sites) != 1 or len(ctx.class_defs(cls.name.value)) != 1:
        return None
    given = bound_args(init.with_changes(params=init.params.with_changes(params=params[1:])), sites[0])
    arg = given.get(value.value)
    arg = _unwrap(arg) if arg is not None else None
    if isinstance(arg, cst.Call):
        return arg
    if isinstance(arg, cst.Name) and ctx.enclosing(sites[0], cst.FunctionDef) is None:
        return constructor(analysis, arg.value)  # a module-level name: its one assignment in the file
    return None


def _held_constructor(analysis, key: str) -> Optional[cst.Call]:
    """The one constructor call assigned to `key`, when the others assign None
    (`self.log_alpha = Scalar(0.0)` in one arm, `= None` in the other)."""
    found = [node.value for node in nodes(analysis.ctx.module) if isinstance(node, cst.Assign)
             and any(dotted(t.target) == key for t in node.targets)
             and not (isinstance(node.value, cst.Name) and node.value.value == "None")]
    return found[0] if len(found) == 1 and isinstance(found[0], cst.Call) else None


def _class_assigned(analysis, base: str, attr: str) -> list:
    """What the class of `base` (a class of this file) assigns to `self.attr`:
    `model.gen` is the layer `GAN.__init__` builds as `self.gen`."""
    cls_name = analysis.names.instances.get(base)
    classes = analysis.ctx.class_defs(cls_name)
    return [_unwrap(n.value) for n in nodes(classes[0]) if isinstance(n, cst.Assign)
            and any(dotted(t.target) == "self." + attr for t in n.targets)] if classes else []


def _unwrap(value):
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
            value.func.attr.value in _WRAPPERS:
        value = value.func.value
    return value


# Calls that make new tensors without a graph (requires_grad is not passed on).
_FRESH = frozenset(f"torch.{f}" for f in ("randn", "rand", "randint", "zeros", "ones", "empty", "full", "arange",
                                          "linspace", "eye"))


def _graph_input(analysis, node, module: str) -> Optional[bool]:
    """True: the module is fed a tensor that requires grad. False: provably
    raw data. None: cannot tell."""
    if node.expr is None:
        return True if node.parents else None
    inside = nodes(node.expr)
    calls = [n for n in inside if isinstance(n, cst.Call) and dotted(n.func) == module]
    if len(calls) != 1:
        return None  # called through a function, or more than once
    if any(p not in node.uses for p in node.parents):
        return None  # a graph input we cannot place
    reads = {id(r) for names in node.uses.values() for r in names}
    if not reads <= {id(n) for n in inside}:
        return None  # read inside an inlined function: cannot place
    others = {m for m in node.modules if m != module and analysis.names.has_params(m)}
    fn = analysis.ctx.enclosing(node.expr, cst.FunctionDef)
    params = set()
    if fn is not None:
        params = {p.name.value for p in fn.params.params + fn.params.kwonly_params}
    raw: Optional[bool] = False
    for arg in calls[0].args:
        fresh = {id(x) for n in nodes(arg.value) if isinstance(n, cst.Call)
                 and analysis.ctx.imports.qualify(n.func) in _FRESH for x in nodes(n)}
        for n in nodes(arg.value):
            if id(n) in fresh and id(n) not in reads:
                continue  # `torch.randn(batch.size(0), 4)`: new data, whatever its sizes are read from
            if id(n) in reads or (isinstance(n, cst.Call) and dotted(n.func) in others):
                return True  # `D(fake)`, `m2(m1(x))`
            if isinstance(n, cst.Name) and (n.value in params or n.value in _grad_marked(analysis)):
                raw = None  # a caller's tensor, or one marked requires_grad
    return raw


def _grad_marked(analysis) -> set:
    """Names turned into requires_grad tensors after they were made:
    `x.requires_grad_()`, `x.requires_grad = True`."""
    return analysis.memo("_grad_marked", lambda: _find_grad_marked(analysis))


def _find_grad_marked(analysis) -> set:
    out = set()
    for node in nodes(analysis.ctx.module):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                node.func.attr.value == "requires_grad_":
            out.add(dotted(node.func.value))
        elif isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Attribute) and target.target.attr.value == "requires_grad":
                    out.add(dotted(target.target.value))
    out.discard(None)
    return out


def _layer(analysis, call: cst.Call, graph_input: Optional[bool], depth: int) -> Optional[bool]:
    qualified = analysis.ctx.imports.qualify(call.func) or ""
    last = qualified.rsplit(".", 1)[-1]
    if qualified.startswith("torch.nn.") and qualified.count(".") == 2:
        if qualified in NO_SAVE_ON_RAW:
            return graph_input
        if last.startswith(ALWAYS_SAVE_PREFIXES):
            return not _no_affine(call)
        if qualified == "torch.nn.Sequential" and depth < 4:
            return _sequential(analysis, call, graph_input, depth)
        if last.startswith(PARAMLESS_PREFIXES) or last.endswith("Loss"):
            return False
        if qualified in SAVES_ON_GRAPH_INPUT:
            return True if graph_input else None
        return None
    name = dotted(call.func)
    if graph_input and name in analysis.names.module_classes and _builds_saving_layer(analysis, name):
        return True
    return None


def _no_affine(call) -> bool:
    """`nn.LayerNorm(n, elementwise_affine=False)`: no parameters at all."""
    return any(arg.keyword is not None and arg.keyword.value in ("affine", "elementwise_affine")
               and isinstance(arg.value, cst.Name) and arg.value.value == "False" for arg in call.args)


def _sequential(analysis, call, graph_input, depth) -> Optional[bool]:
    """Layer by layer: after the first parameterised layer its output
    requires grad, so every later parameterised layer saves its weights."""
    verdict: Optional[bool] = False
    for arg in call.args:
        if arg.star or not isinstance(arg.value, cst.Call):
            return None
        qualified = analysis.ctx.imports.qualify(arg.value.func) or ""
        last = qualified.rsplit(".", 1)[-1]
        if qualified.startswith("torch.nn.") and (last.startswith(PARAMLESS_PREFIXES) or last.endswith("Loss")):
            continue
        layer_saves = _layer(analysis, arg.value, graph_input, depth + 1)
        if layer_saves is True:
            return True
        if layer_saves is None:
            verdict = None
        graph_input = True  # a parameterised layer's output requires grad
    return verdict


def _builds_saving_layer(analysis, cls_name: str) -> bool:
    """A local Module class whose body builds a layer that saves its weights
    when fed a tensor that requires grad."""
    for cls in analysis.ctx.class_defs(cls_name):
        for node in nodes(cls):
            if isinstance(node, cst.Call):
                qualified = analysis.ctx.imports.qualify(node.func) or ""
                last = qualified.rsplit(".", 1)[-1]
                if qualified in SAVES_ON_GRAPH_INPUT or (qualified.startswith("torch.nn.") and
                                                 last.startswith(ALWAYS_SAVE_PREFIXES)):
                    return True
    return False


def part_saves(analysis, node, module: str, part: str) -> Optional[bool]:
    """Does `node`, computed by calling `module` (an instance of a class of
    this file), save the weights of `part` (`module.attr`), a layer the
    class builds in `__init__` and calls in `forward`? A `nn.Sequential`
    saves the weights of every parameterised layer after its first."""
    cls = analysis.names.instances.get(module)
    attr = part[len(module) + 1:] if part.startswith(module + ".") else ""
    if cls is None or not attr or "." in attr:
        return None
    call = _class_attr(analysis, cls, attr)
    if call is None:
        return None
    return _layer(analysis, call, _graph_input(analysis, node, module), 0)


def _class_attr(analysis, cls_name: str, attr: str) -> Optional[cst.Call]:
    """The one `self.attr = Layer(...)` of the class, when `forward` calls `self.attr`."""
    key = "self." + attr
    for cls in analysis.ctx.class_defs(cls_name):
        methods = class_methods(cls)
        fwd = methods.get("forward")
        if fwd is None or not any(isinstance(n, cst.Call) and dotted(n.func) == key for n in nodes(fwd)):
            return None
        found = [_unwrap(n.value) for n in nodes(cls) if isinstance(n, cst.Assign)
                 and any(dotted(t.target) == key for t in n.targets)]
        return found[0] if len(found) == 1 and isinstance(found[0], cst.Call) else None
    return None


def forward_runs(analysis, cls_name: str, attr: str, depth: int = 3, meth: str = "forward") -> Optional[bool]:
    """Does `forward` (or `meth`) of class `cls_name` (of this file) touch `self.attr`,
    directly or through the `self.m(...)` helpers it calls? False only when every
    method on the way is seen and none hands `self` on (`super()`, `f(self)`)."""
    names = analysis.names
    todo, seen = [names.class_method(cls_name, meth)], set()
    while todo:
        fn = todo.pop()
        if fn is None:
            return None
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        for n in nodes(fn):
            if isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name) and n.value.value == "self":
                if n.attr.value == attr:
                    return True
            elif isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "super":
                return None
            elif isinstance(n, cst.Arg) and isinstance(n.value, cst.Name) and n.value.value == "self":
                return None
            elif isinstance(n, cst.Call) and (dotted(n.func) or "").startswith("self.") and \
                    (dotted(n.func) or "").count(".") == 1:
                meth = dotted(n.func)[5:]
                if meth != attr and names.class_method(cls_name, meth) is not None:
                    if len(seen) > 4 * depth:
                        return None
                    todo.append(names.class_method(cls_name, meth))
    return False


def method_runs(analysis, module: str, meth: str, attr: str) -> Optional[bool]:
    """Does `module.meth(...)` touch `module.attr`? Read from the class of this
    file or of another file of the project that built `module`; None when unknown."""
    cls = analysis.names.instances.get(module)
    if cls is not None:
        return forward_runs(analysis, cls, attr, meth=meth)
    hit = analysis.foreign_method(module, meth) if module in analysis.names.foreign_instances else None
    if hit is None:
        return None
    from .project import summaries_of

    table = summaries_of(hit[1])
    name = (dotted(analysis.names.foreign_instances[module]) or "").split(".")[-1]
    todo, seen, attrs = [meth], set(), set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        found = table.get(f"{name}.{current}")
        if found is None or found.self_attrs is None or len(seen) > 12:
            return None
        attrs.update(found.self_attrs)
        todo.extend(callee for callee in found.self_calls if f"{name}.{callee}" in table)
    return attr in attrs

