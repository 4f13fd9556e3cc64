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
from dataclasses import dataclass, replace
from typing import Optional

CUT_METHODS = {"detach", "item", "tolist", "numpy", "detach_", "size", "dim", "numel", "argmax", "argmin"}
CUT_ATTRS = {"data", "grad", "shape", "dtype", "device"}
CUT_CALLS = {"float", "int", "bool", "len", "str", "round"}
# Calls that pass their arguments' graph through.
SAFE_PREFIXES = ("torch.", "F.", "nn.functional.", "functional.", "th.")
LAYER_PREFIXES = ("nn.", "torch.nn.")
EVENTS = {"backward", "manual_backward", "step", "zero_grad"}


@dataclass(frozen=True)
class Summary:
    result: str  # "cut" | "graph" | "unknown"
    arity: int = 0  # values in a returned tuple (0: not a tuple)
    events: bool = False  # runs backward / steps an optimizer inside
    stores_self: bool = False
    # A method that adds an argument into `self` state (`self.sum += val * n`,
    # `self.history.append(loss)`): (position after self, store line, whole) per such
    # argument; whole is False when only its elements are added (`self.sums[k] += losses[k]`).
    accum: tuple = ()
    # `loss.backward()` on a value computed from the arguments (GDPPLoss(...,
    # backward=True)): a backward through the caller's graph; its retain_graph
    backward_args: bool = False
    backward_retain: Optional[bool] = False
    elems: tuple = ()  # kind per element of the returned tuples, when they agree in length
    state: tuple = ()  # forward: `self.X` fed back into a recurrent layer and stored again (state.py)
    self_calls: tuple = ()  # `self.m(...)` called in the method (a step that trains in a helper method)


def _dotted(node) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class _Fn:
    def __init__(self, fn, module_funcs: dict) -> None:
        self.fn = fn
        self.funcs = module_funcs
        self.params = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
        self.assigned: dict = {}  # local name -> value expressions
        self.memo: dict = {}  # local name -> kind, once decided
        self.others: set = set()

    def kind(self, expr, depth=0) -> str:
        """cut | graph | const | unknown, for one expression."""
        if depth > 20:
            return "unknown"
        if isinstance(expr, ast.Constant):
            return "const"
        if isinstance(expr, ast.Name):
            if expr.id in self.params:
                return "graph"
            if expr.id in self.others:
                return "const"
            vals = self.assigned.get(expr.id)
            if not vals:
                return "unknown"  # a loop variable, a global: not followed
            memo = self.memo.get(expr.id)
            if memo is not None:
                return memo
            self.memo[expr.id] = "const"  # a cycle (`y = y + x`) adds nothing new
            out = _join([self.kind(v, depth + 1) for v in vals])
            self.memo[expr.id] = out
            return out
        if isinstance(expr, ast.Attribute):
            if expr.attr in CUT_ATTRS:
                return "cut"
            return self.kind(expr.value, depth + 1)
        if isinstance(expr, (ast.Tuple, ast.List)):
            return _join([self.kind(x, depth + 1) for x in expr.elts]) if expr.elts else "const"
        if isinstance(expr, (ast.BinOp,)):
            return _join([self.kind(expr.left, depth + 1), self.kind(expr.right, depth + 1)])
        if isinstance(expr, ast.IfExp):
            return _join([self.kind(expr.body, depth + 1), self.kind(expr.orelse, depth + 1)])
        if isinstance(expr, ast.UnaryOp):
            return self.kind(expr.operand, depth + 1)
        if isinstance(expr, (ast.GeneratorExp, ast.ListComp)):
            return self.kind(expr.elt, depth + 1) if not _is_loop_var(expr) else self._comp(expr, depth)
        if isinstance(expr, ast.Subscript):
            return self.kind(expr.value, depth + 1)
        if isinstance(expr, ast.Call):
            return self.call(expr, depth)
        if isinstance(expr, (ast.Compare, ast.BoolOp)):
            return "cut"
        return "unknown"

    def _comp(self, expr, depth) -> str:
        # tuple(repackage_hidden(v) for v in h): the element decides.
        return self.kind(expr.elt, depth + 1) if not isinstance(expr.elt, ast.Name) else "graph"

    def call(self, expr: ast.Call, depth) -> str:
        func = expr.func
        name = _dotted(func)
        if isinstance(func, ast.Attribute) and func.attr in CUT_METHODS:
            return "cut"
        if name in CUT_CALLS:
            return "cut"
        args = [self.kind(a, depth + 1) for a in expr.args] + [self.kind(k.value, depth + 1) for k in expr.keywords]
        if name == self.fn.name:
            return "cut"  # recursion: decided by the other returns
        if name in ("tuple", "list", "sum", "max", "min") and expr.args:
            return _join(args)
        if isinstance(func, ast.Name) and self._is_layer(func.id):
            return "graph"  # `crit = nn.MSELoss(); crit(out, y)`, `fc = nn.Linear(..); fc(x)`
        if name in self.funcs and name != self.fn.name:
            return "unknown"  # another helper: not followed
        if isinstance(func, ast.Attribute) and not (name or "").startswith(SAFE_PREFIXES):
            # a method on a value: x.sum(), out.view(...); model.forward is unknown
            base = self.kind(func.value, depth + 1)
            return _join([base] + args) if base != "unknown" else "unknown"
        if name is not None and name.startswith(SAFE_PREFIXES):
            return _join(args)
        return "unknown"

    def _is_layer(self, name: str) -> bool:
        vals = self.assigned.get(name) or []
        return bool(vals) and all(isinstance(v, ast.Call) and (_dotted(v.func) or "").startswith(LAYER_PREFIXES)
                                  for v in vals)

    def _depends(self, expr, seen=None) -> bool:
        """Is `e` computed (by name) from an argument?"""
        seen = set() if seen is None else seen
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and node.id not in seen:
                seen.add(node.id)
                if node.id in self.params or any(self._depends(v, seen) for v in self.assigned.get(node.id, ())):
                    return True
        return False

    def summary(self) -> Summary:
        returns, events, stores = [], False, False
        backwards = []
        for node in _own_nodes(self.fn):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    for n in _names(target):
                        self.assigned.setdefault(n, []).append(node.value)
                    if isinstance(target, ast.Attribute) and _dotted(target.value) == "self":
                        stores = True
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self.assigned.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, ast.Return):
                returns.append(node.value)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in EVENTS:
                events = True
                if node.func.attr == "backward":
                    backwards.append(node)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args and \
                    node.func.attr in ("append", "extend", "insert") and isinstance(node.func.value, ast.Name):
                # `out.append(h)`: the list holds what is appended
                self.assigned.setdefault(node.func.value.id, []).append(node.args[-1])
        backwarded = [b for b in backwards if self._depends(b.func.value)]
        retain = {_retain(b) for b in backwarded}
        extra = dict(backward_args=bool(backwarded), backward_retain=retain.pop() if len(retain) == 1 else None)
        accum = self.accumulated()
        if not returns or all(r is None for r in returns):
            return Summary("const", 0, events, stores, accum, **extra)
        tuples = [r for r in returns if isinstance(r, ast.Tuple)]
        elems: tuple = ()
        if tuples and len({len(r.elts) for r in tuples}) == 1:
            elems = tuple(_join([self.kind(r.elts[i]) for r in tuples]) for i in range(len(tuples[0].elts)))
        kinds = [self.kind(r) if r is not None else "const" for r in returns]
        arity = {len(r.elts) if isinstance(r, ast.Tuple) else 0 for r in returns if r is not None}
        bare = [r for r in returns if isinstance(r, ast.Name) and r.id in self.params]
        if "cut" in kinds and all(k in ("cut", "const") or r in bare for k, r in zip(kinds, returns)):
            result = "cut"  # `return h.detach()` / `return h` only for what is not a tensor
        elif "unknown" in kinds:
            result = "unknown"
        elif "graph" in kinds:
            result = "graph"
        else:
            result = "const"
        return Summary(result, arity.pop() if len(arity) == 1 else 0, events, stores, accum, elems=elems, **extra)

    def accumulated(self) -> tuple:
        """Arguments added into `self` state without a cut: `self.sum += val * n`,
        `self._sum[i] += v` for `v` in the argument, `self.losses.append(loss)`."""
        args = [a.arg for a in self.fn.args.args]
        if args[:1] != ["self"]:
            return ()
        for node in _own_nodes(self.fn):
            # `for idx, v in enumerate(values)`: the elements carry what the argument does
            if isinstance(node, ast.For):
                iterable = node.iter
                if isinstance(iterable, ast.Call) and _dotted(iterable.func) in ("enumerate", "zip") and iterable.args:
                    iterable = iterable.args[-1] if _dotted(iterable.func) == "enumerate" else iterable.args[0]
                if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and \
                        iterable.func.attr in ("items", "values"):
                    iterable = iterable.func.value
                for name_node in _names(node.target):
                    self.assigned.setdefault(name_node, []).append(iterable)
        self.memo.clear()
        out = []
        for i, name in enumerate(args[1:]):
            found = self._adds(name)
            if found:
                out.append((i, *found))
        return tuple(out)

    def _adds(self, name: str):
        """(line, whole) where argument `name` is added into `self` state:
        whole when the argument itself is added, not its elements; else None."""
        saved = self.params
        self.params = {name}
        self.others = saved - {name}  # numbers in the sum (`val * n`)
        try:
            if any(self.kind(v) == "cut" for v in self.assigned.get(name, ())):
                return None  # `val = val.detach().item()` first
            for node in _own_nodes(self.fn):
                value, target = None, None
                if isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)):
                    value, target = node.value, node.target
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                        node.func.attr in ("append", "extend", "insert") and node.args:
                    value, target = node.args[-1], node.func.value
                if value is None:
                    continue
                base = target.value if isinstance(target, ast.Subscript) else target
                if not (_dotted(base) or "").startswith("self."):
                    continue
                self.memo.clear()
                if self.kind(value) == "graph" and _mentions(value, name, self.assigned):
                    return node.lineno, _whole(value, name)
            return None
        finally:
            self.params, self.others = saved, set()
            self.memo.clear()


def _whole(expr, name: str) -> bool:
    """Is `name` itself read in `e` (`val * n`), not only its elements (`loss[key]`)?"""
    inside = {id(n.value) for n in ast.walk(expr) if isinstance(n, ast.Subscript)}
    return any(isinstance(n, ast.Name) and n.id == name and id(n) not in inside for n in ast.walk(expr))


def _mentions(expr, name: str, assigned: dict, depth=0) -> bool:
    """Does `e` read `name`, directly or through local names bound from it?"""
    if depth > 8:
        return False
    for node in ast.walk(expr):
        if isinstance(node, ast.Name):
            if node.id == name:
                return True
            if any(_mentions(v, name, assigned, depth + 1) for v in assigned.get(node.id, ()) if v is not expr):
                return True
    return False


def _retain(call) -> Optional[bool]:
    for k in call.keywords:
        if k.arg in ("retain_graph", "retain_variables"):
            return k.value.value if isinstance(k.value, ast.Constant) and isinstance(k.value.value, bool) else None
    if len(call.args) >= 2:
        return None
    return False


def _is_loop_var(expr) -> bool:
    return isinstance(expr.elt, ast.Name) and any(isinstance(g.target, ast.Name) and g.target.id == expr.elt.id
                                               for g in expr.generators)


def _join(kinds) -> str:
    if "unknown" in kinds:
        return "unknown"
    if "graph" in kinds:
        return "graph"
    if "cut" in kinds:
        return "cut"
    return "const"


def _names(target) -> list:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for x in target.elts for n in _names(x)]
    return []


def _own_nodes(fn):
    """Nodes of `fn` outside nested functions and classes."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


CALLS = " calls"  # key of the table of calls that pass a backwarded value (no function has this name)


def passed_graphs(body) -> dict:
    """meth -> ((line, position, name), ...) for calls `x.meth(..., name, ...)`
    in a loop of `body` (statements of one function, or of the module) that
    pass a name which `name.backward()` / `name[k].backward()` there shows to
    carry a graph, outside `torch.no_grad()`: how a meter of another file
    is fed."""
    backwarded = set()
    for n in _walk_own(body):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "backward":
            value = n.func.value
            while isinstance(value, ast.Subscript):
                value = value.value
            if isinstance(value, ast.Name):
                backwarded.add(value.id)
    if not backwarded:
        return {}
    out: dict = {}

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

    visit(list(body), False, False)
    return {k: tuple(v) for k, v in out.items()}


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


def _stores(fn, attr) -> list:
    return [n for n in ast.walk(fn) if isinstance(n, ast.Assign)
            and any(_self_attr(x) == attr for t in n.targets for x in ast.walk(t))]


def class_state(cls, aliases) -> tuple:
    """((attr, resets), ...): `self.X` that forward feeds into a recurrent
    layer of the module (`_, self.h = self.gru(x, self.h)`) and stores again,
    with nothing in the class cutting it; `resets` are the other methods that
    assign it (`reset_state`)."""
    methods = {m.name: m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
    fwd = methods.get("forward")
    if fwd is None:
        return ()
    layers = set()
    for method in methods.values():
        for node in ast.walk(method):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                    _qualify(node.value.func, aliases) in RECURRENT_LAYERS:
                layers.update(a for t in node.targets for a in [_self_attr(t)] if a)

    def layer_call(value) -> bool:
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
            _self_attr(value.func) in layers

    fed = []
    for node in ast.walk(fwd):
        if isinstance(node, ast.Assign) and layer_call(node.value):
            reads = {_self_attr(x) for a in node.value.args + [k.value for k in node.value.keywords]
                     for x in ast.walk(a)} - {None}
            fed += [a for t in node.targets for x in ast.walk(t) for a in [_self_attr(x)] if a in reads]
    out = []
    for attr in dict.fromkeys(fed):
        if any(not layer_call(s.value) for s in _stores(fwd, attr)):
            continue  # forward resets or detaches it itself
        if any(isinstance(n, ast.Attribute) and n.attr in ("detach_", "detach") and
               any(_self_attr(x) == attr for x in ast.walk(n.value)) for n in ast.walk(cls)):
            continue
        resets = tuple(sorted(name for name, m in methods.items()
                              if name not in ("__init__", "forward") and _stores(m, attr)))
        out.append((attr, resets))
    return tuple(out)


def summarize(text: str) -> dict:
    """name -> Summary for the module's functions (`f`) and methods (`C.m`);
    under IMPORTS, local name -> (level, module, name) of its `from` imports
    (a package's `__init__` re-exports)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    funcs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    out: dict = {IMPORTS: {a.asname or a.name: (n.level, n.module or "", a.name)
                           for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}}
    for name, function in funcs.items():
        out[name] = _Fn(function, funcs).summary()
    calls: dict = {}
    bodies = [tree.body] + [f.body for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for body in bodies:
        for meth, sites in passed_graphs(body).items():
            calls[meth] = calls.get(meth, ()) + sites
    out[CALLS] = calls
    aliases = None
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef):
            for member in cls.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[f"{cls.name}.{member.name}"] = _Fn(member, {}).summary()
                    calls = tuple(sorted({n.func.attr for n in _own_nodes(member) if isinstance(n, ast.Call) and
                                          isinstance(n.func, ast.Attribute) and _dotted(n.func.value) == "self"}))
                    if calls:
                        out[f"{cls.name}.{member.name}"] = replace(out[f"{cls.name}.{member.name}"], self_calls=calls)
            if f"{cls.name}.forward" in out:
                aliases = _aliases(tree) if aliases is None else aliases
                state = class_state(cls, aliases)
                if state:
                    out[f"{cls.name}.forward"] = replace(out[f"{cls.name}.forward"], state=state)
    return out
