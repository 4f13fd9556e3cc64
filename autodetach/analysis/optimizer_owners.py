"""What an optimizer steps, where its constructor is not `torch.optim`.

`self.qf1_optimizer = optimizer_class(self.qf1.parameters(), lr=lr)` (the
class is an argument) and `optimizer = make_optimizer(model.parameters())`
leave the optimizer's parameters unknown to the name table, though the
call's first argument says which modules they come from. And
`g_optim = Adam(g_module.parameters())` after `g_module = model.module.generator`
steps a part of `model`: the alias's source is owned too, so that a graph
built by calling `model` is seen to hold what `g_optim` steps."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted


def resolve_owners(table, assigns: list, augs: list, calls: list, env: dict, aliases: list, imports,
                   loops=()) -> None:
    from .names import Optimizer, _owned

    made = _built_lists(table, assigns) if table.optimizers else {}
    grown = _grown_lists(table, augs, env, imports)
    grown.update(_appended_lists(loops, env, grown))
    over = {**env, **grown, **{k: v for k, (v, _) in made.items()}}
    for node in assigns:
        if len(node.targets) != 1 or type(node.value) is not cst.Call or not node.value.args:
            continue
        key = dotted(node.targets[0].target)
        optimizer = table.optimizers.get(key) if key else None
        first = node.value.args[0]
        if optimizer is None or (first.keyword is not None and first.keyword.value not in ("params", "parameters")):
            continue
        used = _names(first.value)
        via = sorted({fn for name, (_, fn) in made.items() if name in used})
        if optimizer.owns is not None and not via and not used & set(grown):
            continue
        # lists filled by `+=` or by a function of this file (the flat env saw only their `[]`)
        owned = _owned(first.value, table, over, imports)
        if owned is None and used & set(grown):
            table.optimizers[key] = Optimizer(key, None, optimizer.node)  # not "nothing": unknown
            continue
        if not owned:
            continue
        table.optimizers[key] = Optimizer(key, frozenset(owned), node.value)
        note = table.inferred.get(key)
        if note is None and not via and optimizer.owns is not None:
            continue  # a torch.optim constructor over `+=` lists: proven
        what = ", ".join(f"`{m}`" for m in sorted(owned))
        note = (note + "; it steps " if note else f"`{key}` steps ") + f"{what} (the parameters it is built from)"
        if via:
            note += " (" + ", ".join(f"`{f}`" for f in via) + " may return only some of them)"
        table.inferred[key] = note
    _from_call_sites(table, calls)
    sources: dict = {}
    for key, src in aliases:
        if "." in src and src not in table.optimizers:
            sources.setdefault(key, set()).add(src)
    _on_wrapped_module(table, sources)
    for key, optimizer in list(table.optimizers.items()):
        if not optimizer.owns:
            continue
        extra = {s for m in optimizer.owns for s in sources.get(m, ()) if s not in optimizer.owns}
        # `self.enc = enc` where the optimizer was built from `enc.parameters()`:
        # the attribute is the same module
        extra |= {k for k, s in aliases if s in optimizer.owns and k.startswith("self.") and k not in optimizer.owns}
        # `self.G = model.G`, `G, D = model.G, model.D` where the optimizer
        # was built from `model.parameters()`: a part of what it steps
        extra |= {k for k, s in aliases if k not in optimizer.owns and "." in s
                  and any(s.startswith(m + ".") for m in optimizer.owns)}
        if extra:
            table.optimizers[key] = Optimizer(key, optimizer.owns | frozenset(extra), optimizer.node)


def _names(expr) -> set:
    out = set()

    def enter(node):
        if isinstance(node, cst.Name):
            out.add(node.value)

    from .walk import walk

    walk(expr, enter)
    return out


def _built_lists(table, assigns: list) -> dict:
    """`model_params, ft_params = self.split_model_parameters()` where that
    function of this file collects from `self.model.named_parameters()`:
    name -> ({module keys}, function name). A superset: it may filter."""
    out: dict = {}
    reads: dict = {}  # function -> the bases of its .parameters() calls, read once
    for node in assigns:
        call = node.value
        if len(node.targets) != 1 or not isinstance(call, cst.Call):
            continue
        fname = dotted(call.func)
        if fname is None:
            continue
        fn = table.functions.get(fname)
        if fn is None and fname.startswith("self.") and fname.count(".") == 1:
            hits = [m for (cls, n), m in table.methods.items() if n == fname[5:]]
            fn = hits[0] if len(hits) == 1 else None
        if fn is None:
            continue
        if fn not in reads:
            reads[fn] = _param_reads(fn)
        bases = _param_sources(fn, call, reads[fn])
        if not bases:
            continue
        target = node.targets[0].target
        elems = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
        for elem in elems:
            if isinstance(elem, cst.Name):
                out[elem.value] = (bases, fname.split(".")[-1])
    return out


def _param_reads(fn) -> list:
    """The bases of `X.parameters()` / `X.named_parameters()` in `fn` (None: not a name)."""
    from .walk import nodes

    return [dotted(n.func.value) for n in nodes(fn)
            if type(n) is cst.Call and isinstance(n.func, cst.Attribute)
            and n.func.attr.value in ("parameters", "named_parameters")]


def _param_sources(fn, call, reads: list) -> set:
    """Modules whose `.parameters()` / `.named_parameters()` the body reads,
    with the function's parameters replaced by the call's arguments."""
    params = [p.name.value for p in fn.params.params]
    if params[:1] == ["self"]:
        params = params[1:]
    args = {p: dotted(arg.value) for p, arg in zip(params, call.args) if arg.keyword is None}
    out = set()
    for base in reads:
        if base is None:
            return set()
        head, _, rest = base.partition(".")
        if head in args:
            if args[head] is None:
                return set()
            base = args[head] + ("." + rest if rest else "")
        elif head != "self":
            return set()
        out.add(base)
    return out


def _grown_lists(table, augs: list, env: dict, imports) -> dict:
    """`params = []` then `params += list(m.parameters())`: name -> modules,
    or None where one addition is not understood."""
    from .names import _owned

    out: dict = {}
    for node in augs:
        key = dotted(node.target)
        if key is None or not isinstance(node.operator, cst.AddAssign):
            continue
        owned = _owned(node.value, table, env, imports)
        prev = out.get(key, env.get(key, set()))
        out[key] = None if owned is None or prev is None else prev | owned
    return out


def _appended_lists(loops, env: dict, grown: dict) -> dict:
    """`params = []` then `for k, v in net.named_parameters(): params.append(v)`
    (a filter in between keeps it a superset): name -> modules. A list of
    `env` (built empty) that gets any other append is unknown (None), not empty."""
    from .walk import nodes

    out: dict = {}
    for loop in loops:
        var, src = _param_loop(loop)
        for node in nodes(loop.body):
            if not (type(node) is cst.Call and type(node.func) is cst.Attribute and
                    node.func.attr.value in ("append", "extend") and len(node.args) == 1):
                continue
            key = dotted(node.func.value)
            if key is None or env.get(key) != set() or key in grown:
                continue
            ok = src is not None and node.func.attr.value == "append" and dotted(node.args[0].value) == var
            out[key] = None if not ok or out.get(key, set()) is None else out.get(key, set()) | {src}
    return out


def _param_loop(loop):
    """(variable, module) for `for p in net.parameters()` / `for k, v in net.named_parameters()`."""
    it = loop.iter
    if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and dotted(it.func.value)):
        return None, None
    meth, target = it.func.attr.value, loop.target
    if meth == "parameters" and isinstance(target, cst.Name):
        return target.value, dotted(it.func.value)
    if meth == "named_parameters" and isinstance(target, cst.Tuple) and len(target.elements) == 2 and \
            isinstance(target.elements[1].value, cst.Name):
        return target.elements[1].value.value, dotted(it.func.value)
    return None, None


def _from_call_sites(table, calls: list) -> None:
    """`def train(model, opt)` called as `train(net, optimizer)` where
    `optimizer` steps `net`: `opt` steps `model`. Every call site must agree."""
    from .names import Optimizer

    found: dict = {}
    for call in calls:
        fn = table.functions.get(call.func.value)
        if fn is None:
            continue
        args = {name: dotted(value) for name, value in bound_args(fn, call).items()}
        for param, src in args.items():
            optimizer = table.optimizers.get(param)
            src_optimizer = table.optimizers.get(src) if src else None
            if optimizer is None or optimizer.owns is not None or src_optimizer is None or not src_optimizer.owns:
                continue
            mapped = frozenset(other for other, passed in args.items()
                               if passed is not None and passed in src_optimizer.owns and other != param)
            key = (fn.name.value, param)
            if key in found and found[key][0] != mapped:
                found[key] = (None, src, call)
            elif key not in found:
                found[key] = (mapped, src, call)
    for (fname, param), (mapped, src, call) in found.items():
        if not mapped:
            continue
        table.optimizers[param] = Optimizer(param, mapped, None)
        what = ", ".join(f"`{m}`" for m in sorted(mapped))
        note = table.inferred.get(param, f"`{param}` is an optimizer")
        table.inferred[param] = note + f"; it steps {what} (`{fname}` is called with `{src}`, which steps them)"


def _on_wrapped_module(table, sources: dict) -> None:
    """`trainer_module.optimizer_d` where `trainer_module = trainer.module`
    and `trainer` is a module (a DataParallel wrapper called on tensors): the
    optimizer steps part of what `trainer(...)` runs. An inference."""
    from .names import Optimizer

    for key, optimizer in list(table.optimizers.items()):
        if optimizer.owns is not None or "." not in key:
            continue
        holder = key.rsplit(".", 1)[0]
        parts = sorted(s for s in sources.get(holder, ()) if s.endswith(".module") and s[:-7] in table.modules)
        if len(parts) != 1:
            continue
        table.optimizers[key] = Optimizer(key, frozenset(parts), optimizer.node)
        note = table.inferred.get(key, f"`{key}` is an optimizer")
        table.inferred[key] = note + f"; it steps part of `{parts[0][:-7]}` (it is kept on `{holder}`, " \
                                     f"which is `{parts[0]}`)"


def bound_args(fn: cst.FunctionDef, call: cst.Call) -> dict:
    """Parameter name -> the argument expression a call of `fn` binds to it
    (positional and keyword; nothing after a `*args`/`**kw`)."""
    params = [p.name.value for p in list(fn.params.params) + list(fn.params.kwonly_params)]
    out: dict = {}
    for i, arg in enumerate(call.args):
        if arg.star:
            break
        name = arg.keyword.value if arg.keyword is not None else (params[i] if i < len(params) else None)
        if name is not None:
            out[name] = arg.value
    return out
