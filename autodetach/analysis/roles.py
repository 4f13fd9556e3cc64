"""Roles from evidence: what a function's parameters are, from annotations
and from how the body uses them.

Training code often receives its model, optimizer and loss as arguments
(`def train(model, loader, optimizer, criterion)`), so no constructor in
the file says what they are. Every role found here that rests on usage or
naming is recorded in `NameTable.inferred` with the reason; rules offer a
fix that depends on it as unsafe and say what was inferred."""
from __future__ import annotations

import re

import libcst as cst

from ..imports import dotted
from .walk import nodes, walk

MODULE_METHODS = {"parameters", "named_parameters", "train", "eval", "state_dict", "load_state_dict",
                  "modules", "children", "named_modules", "apply", "requires_grad_", "buffers"}
OPTIMIZER_METHODS = {"step", "zero_grad"}
BOTH = {"state_dict", "load_state_dict"}  # methods of modules and optimizers alike (checkpoints)
# Methods a tensor has and a module does not: with one of them, `x.requires_grad_()` is a tensor's.
TENSOR_ONLY = {"detach", "detach_", "item", "size", "view", "reshape", "numel", "dim", "squeeze", "unsqueeze",
               "clone", "backward", "sum", "mean", "norm"}
OPTIMIZER_ONLY = {"param_groups", "add_param_group"}
# A loss, or a function computing one, by its name: anywhere in the name, or
# as a whole `_`-separated word (`d_bce`, `l1`, but not `model1`).
_LOSS_PARTS = ("loss", "criterion", "cross_entropy", "kl_div")
_LOSS_WORDS = {"crit", "bce", "mse", "rmse", "nll", "ce", "l1", "kl", "huber", "ctc", "margin"}


def looks_like_loss(name: str) -> bool:
    """`loss`, `d_loss`, `lossD`, `self.criterion`, `bce_fake`,
    `F.cross_entropy`: the last part of a dotted name decides."""
    last = name.rsplit(".", 1)[-1].lower()
    return any(p in last for p in _LOSS_PARTS) or any(w in _LOSS_WORDS for w in last.split("_"))


# Called parameters that are plain functions far more often than modules.
FUNC_NAME = re.compile(r"(^|_)(fn|func|f|callback|cb|hook|transform|metric|fun|collate|closure|sampler|"
                       r"scheduler|log|logger|print|step|lr)($|_)|metric|transform|callback", re.I)
OPT_NAME = re.compile(r"^(opt|optim|optimizer|optimiser)(?=[_A-Z]|$)|(opt|optim|optimizer|optimiser)$", re.I)
SIDES = {"g": "g", "gen": "g", "generator": "g", "netg": "g", "d": "d", "dis": "d", "disc": "d",
         "discriminator": "d", "critic": "d", "netd": "d"}


def _tensor_grad_only(u: set) -> bool:
    """`x.requires_grad_()` and `x.detach()` on one parameter: an input tensor
    whose gradient is wanted (a guide's or an attack's input), not a module."""
    return u & MODULE_METHODS == {"requires_grad_"} and bool(u & TENSOR_ONLY)


def _ann_role(ann, imports):
    if ann is None:
        return None
    qualified = imports.qualify(ann.annotation) or dotted(ann.annotation) or ""
    last = qualified.split(".")[-1]
    if qualified.startswith("torch.optim.") or last in ("Optimizer",):
        return "optimizer"
    if qualified == "torch.nn.Module" or last == "Module":
        return "module"
    return None


def _params(fn: cst.FunctionDef) -> list:
    ps = list(fn.params.params) + list(fn.params.kwonly_params)
    return [p for p in ps if p.name.value not in ("self", "cls")]


def _unpacked(fn: cst.FunctionDef, given: set) -> dict:
    """Names the body unpacks from a parameter, which stand for what the
    caller passed as well as the parameter does: `[encoder, head] = models`,
    `opt_g, opt_d = optimizers`, `model = models[0]`; judged by the same
    evidence as arguments (`snet = nets["snet"]` too). Only a name bound once in the function, by a
    statement at its top level (not in a loop or a branch), so it stands for
    the same element everywhere. Name -> the parameter."""
    found: dict = {}
    seen: dict = {}

    def bind(target, elem, whole):
        if type(target) is cst.Name:
            seen[target.value] = seen.get(target.value, 0) + 1
            if elem:
                found[target.value] = whole

    for stmt in fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ():
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if type(small) is not cst.Assign or len(small.targets) != 1:
                continue
            target, value = small.targets[0].target, small.value
            if type(target) in (cst.Tuple, cst.List) and type(value) is cst.Name and value.value in given:
                for el in target.elements:
                    bind(el.value, not isinstance(el, cst.StarredElement), value.value)
                continue
            pairs = [(target, value)]
            if type(target) in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List) and \
                    len(target.elements) == len(value.elements):
                pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)]  # s, t = n["s"], n["t"]
            for target, value in pairs:
                if type(target) is cst.Name and type(value) is cst.Subscript and type(value.value) is cst.Name \
                        and value.value.value in given and len(value.slice) == 1 \
                        and isinstance(value.slice[0].slice, cst.Index) \
                        and type(value.slice[0].slice.value) in (cst.Integer, cst.SimpleString):
                    bind(target, True, value.value.value)
    counts: dict = {}
    for n in nodes(fn.body):
        t = type(n)
        target = n.target if t in (cst.AssignTarget, cst.For, cst.AugAssign, cst.AnnAssign, cst.NamedExpr) \
            else n.asname.name if t is cst.WithItem and n.asname is not None else None
        for name in (x for x in nodes(target) if type(x) is cst.Name) if target is not None else ():
            counts[name.value] = counts.get(name.value, 0) + 1
    return {k: v for k, v in found.items() if k not in given and counts.get(k) == 1 and seen.get(k) == 1}


def _optimizer_class(default, imports) -> bool:
    qualified = imports.qualify(default) if default is not None else None
    return bool(qualified) and qualified.startswith("torch.optim.") and qualified.count(".") == 2 and \
        qualified.split(".")[-1][:1].isupper()


def infer_roles(module: cst.Module, imports, table) -> None:
    """Add parameter roles to `table` (modules, optimizers, loss functions)."""
    from .names import Optimizer

    for fn in table.functions_all:
        params = _params(fn)
        unpacked = _unpacked(fn, {p.name.value for p in params})
        params = params + [cst.Param(cst.Name(key)) for key in unpacked]
        if not params:
            continue
        names = {p.name.value for p in params}
        use: dict = {n: set() for n in names}
        backward = [False]

        def enter(n):
            if type(n) is cst.Call:
                f = n.func
                if type(f) is cst.Name and f.value in names:
                    use[f.value] |= {"()", "call"}
                    if n.args:
                        use[f.value].add("(x)")  # called on something: `get_params()` alone builds values
                elif type(f) is cst.Attribute:
                    if f.attr.value in ("backward", "manual_backward"):
                        backward[0] = True
                    if type(f.value) is cst.Name and f.value.value in names:
                        use[f.value.value].add(f.attr.value)
                        if f.attr.value == "forward" and n.args:
                            use[f.value.value] |= {"()", "(x)"}  # `model.forward(x)` runs the module as `model(x)`
            elif type(n) is cst.Attribute and type(n.value) is cst.Name and n.value.value in names \
                    and n.attr.value in OPTIMIZER_ONLY:
                use[n.value.value].add(n.attr.value)
            return None

        walk(fn.body, enter, skip=(cst.ClassDef,))  # closures see the parameters too
        local_opts, local_mods, known_mods = [], [], []
        for p in params:
            key = p.name.value
            if key in table.modules or key in table.optimizers or key in table.leaves:
                if table.modules.get(key) == "param" and key not in unpacked:
                    # `clip_grad_norm_(critic.parameters(), 1)` made it a module already: it still
                    # has a name an optimizer parameter can be paired with (`critic_optimiser`)
                    known_mods.append(key)
                continue
            role = _ann_role(p.annotation, imports)
            u = use[key]
            if "()" in u and _optimizer_class(p.default, imports):
                # `def fit(..., optimizer=torch.optim.Adam)`, then `optimizer = optimizer(params)`
                table.optimizers[key] = Optimizer(key, None, None)
                table.inferred[key] = (f"`{key}` is an optimizer (its default is an optimizer class, "
                                       "called to build one)")
                continue
            if key in unpacked:
                role = None
            if role == "optimizer" or (u & OPTIMIZER_ONLY) or (
                    "step" in u and "zero_grad" in u and not u & (MODULE_METHODS - BOTH) and "()" not in u):
                local_opts.append(key)
                if role != "optimizer":
                    table.inferred[key] = f"`{key}` is an optimizer (it calls .step() and .zero_grad())"
            elif role == "module" or (u & (MODULE_METHODS - {"step"}) and not _tensor_grad_only(u)):
                table.modules[key] = "param"
                local_mods.append(key)
                if role != "module":
                    table.inferred[key] = f"`{key}` is a module (it calls .{sorted(u & MODULE_METHODS)[0]}())"
            elif "()" in u and looks_like_loss(key):
                table.modules[key] = "paramless"
                table.inferred[key] = f"`{key}` is a loss function (by its name)"
            elif "(x)" in u and not FUNC_NAME.search(key):
                # decided below: needs a training context; a parameter only ever called with no
                # arguments (`params = get_params()`) is a factory, not a network run on tensors
                local_mods.append(key)
        trains = bool(local_opts) or backward[0]
        for key in list(local_mods):
            if key not in table.modules:
                if not trains:
                    local_mods.remove(key)
                    continue
                table.modules[key] = "param"
                how = "called" if "call" in use[key] else "its .forward() is called"
                table.inferred[key] = f"`{key}` is a module ({how} on tensors in a training function)"
        for key in local_opts:
            # only by name (a side) among the known ones: not "the only module it is used with"
            owns = pair(key, local_mods + known_mods) if side(key) else pair(key, local_mods)
            table.optimizers[key] = Optimizer(key, frozenset(owns) if owns else None, None)
            if owns:
                what = ", ".join(f"`{m}`" for m in sorted(owns))
                how = "paired by name" if side(key) else "the only module it is used with"
                extra = f"; it steps {what} ({how})"
                table.inferred[key] = table.inferred.get(key, f"`{key}` is an optimizer") + extra
        for key, whole in unpacked.items():
            if key in table.inferred and "unpacked from" not in table.inferred[key]:
                table.inferred[key] += f"; unpacked from the argument `{whole}`"


def infer_attr_roles(module: cst.Module, table, base_set=None) -> None:
    """`self.G = G` in `__init__`, then `self.G(z)` in a training method;
    `opt_g, opt_d = self.optimizers()` (PyTorch Lightning). `base_set`: class
    name -> the `self.X` attributes a base class of another file sets in its
    `__init__` (analysis.base_attrs); given, only those classes are read
    again, with those attributes counted as set by the class."""
    from .lightning_optimizers import configured_owners
    from .names import Optimizer

    for cls in module.body:
        if type(cls) is not cst.ClassDef or base_set is not None and cls.name.value not in base_set:
            continue
        use: dict = {}
        trains = [False]
        lightning_opts: list = []
        unpacked_at: dict = {}  # `opt_g, opt_d = self.optimizers()`: key -> (position, count)
        assigned: set = set()  # only attributes the class sets: not its methods (self.log)
        callables: set = set()  # attributes the class sets to a lambda: functions, not networks

        def enter(n):
            t = type(n)
            if t is cst.Call:
                f = n.func
                key = dotted(f)
                if key is not None and key.startswith("self.") and key.count(".") == 1 and n.args:
                    # called on something: `self.steps_gen()` with no argument runs no network
                    use.setdefault(key, set()).update(("()", "call"))
                if type(f) is cst.Attribute:
                    if f.attr.value in ("backward", "manual_backward", "step"):
                        trains[0] = True
                    base = dotted(f.value)
                    if base is not None and base.startswith("self.") and base.count(".") == 1:
                        use.setdefault(base, set()).add(f.attr.value)
                        if f.attr.value == "forward" and n.args:
                            use[base].add("()")  # `self.model.forward(x)`: the module run on tensors
            if t is cst.Assign and type(n.value) is cst.Lambda:
                callables.update(dotted(tgt.target) for tgt in n.targets)  # `self.f = lambda: ...`
            if t is cst.AssignTarget:
                targets = n.target.elements if type(n.target) in (cst.Tuple, cst.List) else (n.target,)
                for tgt in targets:  # `self.G, self.D = G, D` sets both
                    k = dotted(tgt.value if isinstance(tgt, cst.BaseElement) else tgt)
                    if k is not None:
                        assigned.add(k)
            elif t is cst.Assign and isinstance(n.value, cst.Call) and dotted(n.value.func) == "self.optimizers":
                for tgt in n.targets:
                    els = tgt.target.elements if isinstance(tgt.target, (cst.Tuple, cst.List)) else [tgt.target]
                    for pos, el in enumerate(els):
                        # a tuple's cst.Element holds the target; a bare cst.Name's .value is its text
                        k = dotted(el.value if isinstance(el, cst.Element) else el)
                        if k is not None:
                            lightning_opts.append(k)
                            if isinstance(el, cst.Element):
                                unpacked_at[k] = (pos, len(els))
            return None

        walk(cls.body, enter, skip=(cst.ClassDef,))
        if base_set is not None:
            assigned |= base_set[cls.name.value]
            lightning_opts = []
        if not trains[0] and not lightning_opts:
            continue
        mods, self_opts = [], []
        for key, u in use.items():
            if key not in assigned or key in callables:
                continue
            if key in table.modules or key in table.optimizers or key in table.leaves:
                if table.modules.get(key) == "param":
                    mods.append(key)
                continue
            if "step" in u and "zero_grad" in u and "()" not in u:
                table.optimizers[key] = Optimizer(key, None, None)
                table.inferred[key] = f"`{key}` is an optimizer (it calls .step() and .zero_grad())"
                self_opts.append(key)
            elif "()" in u and not looks_like_loss(key) and not FUNC_NAME.search(key.split(".")[-1]) \
                    and not u & {"step", "zero_grad"}:
                table.modules[key] = "param"
                how = "called" if "call" in u else "its .forward() is called"
                table.inferred[key] = f"`{key}` is a module ({how} on tensors in a training class)"
                mods.append(key)
        for key in self_opts:
            # `self.critic1_optim` handed to __init__ beside `self.critic1`: paired by name only
            # (a name with no side, `self.optimizer`, is not paired with the class's only network)
            owns = pair(key, mods) if side(key) else set()
            if owns and table.optimizers[key].owns is None:
                table.optimizers[key] = Optimizer(key, frozenset(owns), None)
                table.inferred[key] += "; it steps " + ", ".join(f"`{m}`" for m in sorted(owns)) + " (paired by name)"
        configured = configured_owners(cls, table) if unpacked_at else None
        for key in lightning_opts:
            pos, count = unpacked_at.get(key, (None, None))
            if configured is not None and count == len(configured) and configured[pos]:
                # the order `configure_optimizers` returns them in: Lightning's contract, not a guess
                table.optimizers[key] = Optimizer(key, configured[pos], None)
                table.inferred.pop(key, None)
                continue
            if key in table.optimizers:
                continue
            owns = pair(key, mods)
            table.optimizers[key] = Optimizer(key, frozenset(owns) if owns else None, None)
            note = f"`{key}` is an optimizer (from self.optimizers())"
            if owns:
                note += "; it steps " + ", ".join(f"`{m}`" for m in sorted(owns)) + " (paired by name)"
            table.inferred[key] = note


def side(name: str) -> str:
    """`opt_d` -> d, `optimizerG` -> g, `netD` -> d, `encoder_opt` -> encoder."""
    last = name.split(".")[-1]
    low = re.sub(r"^(opt|optim|optimizer|optimiser)(?=[_A-Z]|$)", "", last)
    low = re.sub(r"(_?)(opt|optim|optimizer|optimiser)$", "", low)
    low = low.strip("_").lower()
    low = re.sub(r"^(net|model)_?", "", low) or low
    return SIDES.get(low, low)


def pair(opt: str, modules: list) -> set:
    """The modules an optimizer probably owns, by name; empty when unclear."""
    s = side(opt)
    if s:
        hits = {m for m in modules if side(m) == s}
        return hits if len(hits) == 1 else set()
    return set(modules) if len(modules) == 1 else set()
