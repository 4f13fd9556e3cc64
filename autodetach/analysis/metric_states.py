"""A metric class whose state keeps the graph of the model output a trainer
of another file hands it.

    class Precision(Metric):                      # metrics.py
        def __call__(self, y_pred, y_true):
            if y_pred.size(1) == 1:
                y_pred = y_pred.round()           # keeps the graph (a zero gradient)
            else:
                y_pred = torch.eye(n)[y_pred.argmax(1)]
            self.true_positives += (y_true * y_pred).sum(dim=0)

    class FineTune:                               # trainer.py
        def __init__(self, loss_fn, metric: Optional[Metric]):
            self.metric = metric
        def train(self, model, loader, optimizer):
            for x, y in loader:
                y_pred = model(x)
                loss = self.loss_fn(y_pred, y)
                loss.backward()
                optimizer.step()
                score = self.metric(torch.sigmoid(y_pred), y)

The metric folds every batch's output into `self` state with its graph,
which stays alive until the metric is reset. Meters fed a backwarded loss
are remote_meters' shape; here the value handed over is the model's output
(the loss the loop backwards is computed from it), or an elementwise function
of it (`torch.sigmoid`, `F.softmax`), and the method is the object's
`__call__` or `update`. A method that cuts its argument on one arm of an `if`
and keeps it on another is read arm by arm: the arm that keeps it stores a
graph (the binary arm above).

The caller must be seen: a file of the project that imports the metric's
module and runs a backward, in a loop (or a step function: backward and
`step()`) with gradients on, calling an object that an annotation or a
construction there ties to the class or to a base class of it in the metric's
file, with no `reset()` of that object in the same function (a metric reset
every step keeps one step's graph). What runs behind a base-class annotation
is inferred, and so are the callers out of sight: the fix is unsafe and the
message says so."""
from __future__ import annotations

import ast
import copy
import os
from dataclasses import dataclass
from typing import Optional

from .summaries import _dotted, _Fn, _grad, parse_text
from .summaries import _walk_own as _own

METHODS = ("__call__", "update")
# elementwise functions of the output that keep its graph (`torch.sigmoid(y_pred)`)
ELEMENTWISE = {"sigmoid", "softmax", "log_softmax", "tanh", "exp", "relu", "squeeze", "view", "flatten",
               "float", "reshape"}
_MAX_IFS = 3
_MAX_STORES = 4


@dataclass
class MetricStore:
    cls: str
    meth: str
    line: int  # the store in this file
    param: str
    caller: tuple  # (file, line, argument text, object, type name that ties it)
    callers: int


def metric_state_stores(analysis) -> list:
    memo = analysis.table("_metric_states")
    if "out" not in memo:
        memo["out"] = _stores(analysis)
    return memo["out"]


def _stores(analysis) -> list:
    from .remote_meters import _importers

    path = analysis.ctx.path
    if not path or path == "<string>" or not os.path.isfile(path):
        return []
    text = analysis.ctx.text
    if not any(f"def {meth}(self" in text for meth in METHODS) or "self." not in text:
        return []
    tree = parse_text(text)
    if tree is None:
        return []
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    methods = {name: {m.name: m for m in cls.body if isinstance(m, ast.FunctionDef)} for name, cls in classes.items()}
    candidates = []
    for name, cls in classes.items():
        for meth in METHODS:
            func = methods[name].get(meth)
            if func is not None and len(func.args.args) >= 2 and _self_store(func) and \
                    not any(_calls_backward(m) for m in methods[name].values()):  # a policy training on it
                candidates.append((name, meth, func))
    if not candidates:
        return []
    stem = os.path.splitext(os.path.basename(path))[0]
    importers = _importers(path, stem)
    if not importers:
        return []
    out = []
    for name, meth, func in candidates:
        types = _types(name, classes)
        needles = [t.encode() for t in types]
        callers = [(f, t) for f, t in importers if any(n in t for n in needles)]
        if not callers:
            continue
        for index, line in _accumulated(func, methods, name):
            found = []
            for caller_path, caller_text in callers:
                found += _callers(caller_path, caller_text, stem, types, meth, index)
            if found:
                out.append(MetricStore(name, meth, line, func.args.args[1 + index].arg, found[0], len(found)))
    return out


def _self_store(func) -> bool:
    """Does the method add into `self` state (`self.x += v`, `self.xs.append(v)`, `self.s.add_(v)`,
    `self.x = self.x + v`)? A cheap test before the walks."""
    for node in ast.walk(func):
        if isinstance(node, ast.AugAssign) and (_dotted(node.target) or "").startswith("self."):
            return True
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript) and \
                (_dotted(node.target.value) or "").startswith("self."):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("append", "extend", "add_") and (_dotted(node.func.value) or "").startswith("self."):
            return True
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                (_dotted(node.targets[0]) or "").startswith("self.") and \
                any(_dotted(n) == _dotted(node.targets[0]) for n in ast.walk(node.value)):
            return True
    return False


def _calls_backward(func) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "backward"
               for n in ast.walk(func))


def _types(name: str, classes: dict) -> dict:
    """The class and its bases of the file, each with how it ties to the class."""
    out = {name: name}
    stack = [name]
    while stack:
        cls = classes.get(stack.pop())
        for base in cls.bases if cls is not None else ():
            base_name = _dotted(base)
            if base_name in classes and base_name not in out:
                out[base_name] = f"{base_name}, a base class of `{name}`"
                stack.append(base_name)
    return out


def _accumulated(func, methods: dict, cls: str) -> list:
    """(parameter index, store line) where a parameter is added into `self` state with its graph,
    on some arm of the method's `if`s that rebind a parameter."""
    found = set()
    for variant in _variants(func):
        for param in range(len(func.args.args) - 1):
            current = variant
            for _ in range(_MAX_STORES):  # the walker names one store per parameter: drop it, ask again
                walker = _Fn(current, {}, methods, cls)
                walker._collect()
                lines = {line for index, line, _whole in walker.accumulated() if index == param}
                if not lines:
                    break
                found |= {(param, line) for line in lines}
                current = _Drop(lines).visit(_copy(current))
    return sorted(found)


class _Drop(ast.NodeTransformer):
    """Replace the statements at `lines` by `pass`."""

    def __init__(self, lines: set) -> None:
        self.lines = lines

    def generic_visit(self, node):
        if isinstance(node, ast.stmt) and not isinstance(node, ast.FunctionDef) and node.lineno in self.lines:
            return ast.copy_location(ast.Pass(), node)
        return super().generic_visit(node)


def _variants(func) -> list:
    """The method, and copies of it with each `if` that rebinds a parameter replaced by one
    of its arms (at most _MAX_IFS such `if`s: 2**n copies)."""
    params = {arg.arg for arg in func.args.args[1:]}
    ifs = [node for node in ast.walk(func) if isinstance(node, ast.If) and _rebinds(node, params)][:_MAX_IFS]
    out = [func]
    for choice in range(2 ** len(ifs)) if ifs else ():
        picks = {(node.lineno, node.col_offset): bool(choice >> i & 1) for i, node in enumerate(ifs)}
        out.append(_Pick(picks).visit(_copy(func)))
    return out


def _copy(func):
    """A deep copy of `func` without the facts summaries keeps on its nodes (they name the original's nodes)."""
    out = copy.deepcopy(func)
    for node in ast.walk(out):
        for key in [k for k in node.__dict__ if k.startswith("_autodetach")]:
            del node.__dict__[key]
    return out


def _rebinds(node: ast.If, params: set) -> bool:
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in params
               for stmt in node.body + node.orelse for n in ast.walk(stmt))


class _Pick(ast.NodeTransformer):
    """Replace each chosen `if` by its body (True) or its else (False)."""

    def __init__(self, picks: dict) -> None:
        self.picks = picks

    def visit_If(self, node):
        self.generic_visit(node)
        pick = self.picks.get((node.lineno, node.col_offset))
        if pick is None:
            return node
        arm = node.body if pick else node.orelse
        return arm or ast.copy_location(ast.Pass(), node)


def _callers(path: str, text: str, stem: str, types: dict, meth: str, index: int) -> list:
    tree = parse_text(text)
    if tree is None:
        return []
    imported = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == stem:
            for alias in node.names:
                if alias.name in types:
                    imported[alias.asname or alias.name] = types[alias.name]
    if not imported:
        return []
    objects = _typed_objects(tree, imported)
    if not objects:
        return []
    out = []
    for func in ast.walk(tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out += _calls_in(path, func, objects, meth, index)
    return out


def _typed_objects(tree, imported: dict) -> dict:
    """`self.metric` / `metric` -> the type name that ties it to the class: bound from a
    parameter annotated with it (`metric: Optional[Metric]`, then `self.metric = metric`) or
    from a construction (`self.metric = Precision()`)."""
    out = {}
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        annotated = {}
        for arg in func.args.args + func.args.kwonlyargs:
            names = _annotation_names(arg.annotation)
            tied = [imported[n] for n in sorted(names) if n in imported]
            if tied:
                annotated[arg.arg] = tied[0]
                out[arg.arg] = tied[0]
        for node in ast.walk(func):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            key = _dotted(node.targets[0])
            if key is None:
                continue
            value = node.value
            if isinstance(value, ast.Name) and value.id in annotated:
                out[key] = annotated[value.id]
            elif isinstance(value, ast.Call) and _dotted(value.func) in imported:
                out[key] = imported[_dotted(value.func)]
    return out


def _annotation_names(annotation) -> set:
    """The names an annotation mentions (`Optional[Union[Metric, MultipleMetrics]]`, `"Metric"`)."""
    if annotation is None:
        return set()
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        annotation = parse_text(annotation.value)
        if annotation is None:
            return set()
    return {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)}


def _calls_in(path: str, func, objects: dict, meth: str, index: int) -> list:
    """Calls of a typed object in `func` that hand it the model's output whose loss `func` backwards."""
    own = list(_own(func.body))
    backwarded = {n.func.value.id for n in own if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
                  n.func.attr == "backward" and isinstance(n.func.value, ast.Name)}
    if not backwarded:
        return []
    step = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "step" for n in own)
    assigned: dict = {}
    for n in own:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            assigned.setdefault(n.targets[0].id, []).append(n.value)
    # outputs: names bound from a call (a forward) that a backwarded loss is computed from, handed to
    # a call there (`loss = self.loss_fn(y_pred, y)`); not a term of the loss (`loss = rec + kld`: a loss
    # of its own, which meters of losses keep)
    outputs = set()
    for loss in backwarded:
        for value in assigned.get(loss, ()):
            for call in ast.walk(value):
                if not isinstance(call, ast.Call):
                    continue
                for n in call.args:
                    if isinstance(n, ast.Name) and n.id not in backwarded and "loss" not in n.id.lower() and \
                            assigned.get(n.id) and \
                            all(isinstance(v, ast.Call) and not _cut(v) for v in assigned.get(n.id, ())):
                        outputs.add(n.id)
    if not outputs:
        return []
    reset = {_dotted(n.func.value) for n in own if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
             n.func.attr == "reset"}
    out = []

    def visit(nodes, loop, quiet):
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            quiet_here = quiet or isinstance(node, ast.With) and any(_grad(i.context_expr) > 0 for i in node.items)
            if loop and not quiet_here and isinstance(node, ast.Call):
                found = _handed(node, objects, meth, index, outputs, reset)
                if found is not None:
                    out.append((path, node.lineno, *found))
            visit(list(ast.iter_child_nodes(node)), loop or isinstance(node, (ast.For, ast.While)), quiet_here)

    visit(list(func.body), step, False)
    return out


def _handed(call: ast.Call, objects: dict, meth: str, index: int, outputs: set, reset: set) -> Optional[tuple]:
    if meth == "__call__":
        obj = _dotted(call.func)
    elif isinstance(call.func, ast.Attribute) and call.func.attr == meth:
        obj = _dotted(call.func.value)
    else:
        return None
    if obj is None or obj not in objects or obj in reset or index >= len(call.args):
        return None
    arg = call.args[index]
    if _output_of(arg, outputs):
        return ast.unparse(arg), obj, objects[obj]
    return None


def _output_of(arg, outputs: set) -> bool:
    """The output itself, or an elementwise function of it (`torch.sigmoid(y_pred)`, `y_pred.sigmoid()`)."""
    if isinstance(arg, ast.Name):
        return arg.id in outputs
    if isinstance(arg, ast.Call):
        func = arg.func
        last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if last not in ELEMENTWISE:
            return False
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in outputs:
            return True  # `y_pred.sigmoid()`
        return bool(arg.args) and isinstance(arg.args[0], ast.Name) and arg.args[0].id in outputs
    return False


def _cut(call: ast.Call) -> bool:
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr in ("detach", "item", "numpy", "tolist")
