"""Networks an evaluation function is handed by its callers.

    # evaluators/loss.py: no torch import, no backward, no .eval()
    def eval_loss(models, dataset):
        model = models[0]
        total = 0
        for batch in dataset:
            loss, acc = model(batch["xs"], batch["ys"])
            total += loss * len(batch["xs"])        # every batch's graph kept
        return total / len(dataset)

    # bin/train.py
    model = Seq2seq(args)                           # a project nn.Module class
    ...
    metric = eval_loss([model.module], dev_set)     # gradients on

Nothing in the evaluation function says that `model` is a network: it is
called on tensors, but outside a training function that alone proves nothing
(roles.py). Its callers do: the argument they pass in that position is a
network in their own file (a name bound to an `nn.Module` class of torch or
of the project, or one whose `.parameters()`, `.train()` or `.eval()` is
called), wrapped or not (`[model]`, `model.module`). Then each call of the
parameter (or of a name unpacked from it: `model = models[0]`) is a forward
that builds a graph while the callers run with gradients on.

The role rests on that reading of other code, so it is recorded in the name
table's `inferred` notes, and a fix that depends on it is unsafe. Every
caller that was found must hand a network in that position (a caller passing
something else, or nothing, leaves the parameter as it was). Remote callers are
read with stdlib `ast` (eval_loops._remote_calls hands their call nodes)."""
from __future__ import annotations

import ast
import os

import libcst as cst

from ..imports import dotted
from .summaries import ast_dotted

_MODULE_USES = {"parameters", "named_parameters", "train", "eval", "modules", "children", "named_modules"}
_WRAPPERS = {"module"}  # `model.module`: the network a DataParallel wrapper holds


def _position(fn: cst.FunctionDef, key: str):
    """(index among positional parameters, keyword) of parameter `key`."""
    params = list(fn.params.params)
    offset = 1 if params and params[0].name.value in ("self", "cls") else 0
    for i, p in enumerate(params):
        if p.name.value == key:
            return i - offset, key
    return None, key


def _called_params(fn: cst.FunctionDef) -> dict:
    """Parameter -> the names that stand for it (itself, names unpacked from it),
    for parameters some of whose names the body calls on arguments (`model(x)`)."""
    from .roles import _unpacked

    params = {p.name.value for p in list(fn.params.params) + list(fn.params.kwonly_params)} - {"self", "cls"}
    unpacked = _unpacked(fn, params)
    called = {n.func.value for n in _walk_cst(fn.body) if type(n) is cst.Call and type(n.func) is cst.Name and n.args}
    out = {}
    for key in params:
        names = {key} | {k for k, v in unpacked.items() if v == key}
        if names & called:
            out[key] = names
    return out


def _walk_cst(node):
    from .walk import nodes

    return nodes(node, skip=(cst.ClassDef, cst.Lambda))


def _ast_arg(call: ast.Call, index, keyword):
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if index is not None and 0 <= index < len(call.args) and \
            not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        return call.args[index]
    return None


def _cst_arg(call: cst.Call, index, keyword):
    positional = []
    for a in call.args:
        if a.keyword is not None:
            if a.keyword.value == keyword:
                return a.value
        elif a.star:
            return None
        else:
            positional.append(a.value)
    if index is not None and 0 <= index < len(positional):
        return positional[index]
    return None


def _ast_root(expr):
    """`model` for `model`, `[model]`, `model.module`, `self.model`'s `self.model`."""
    if isinstance(expr, (ast.List, ast.Tuple)) and len(expr.elts) == 1:
        expr = expr.elts[0]
    while isinstance(expr, ast.Attribute) and expr.attr in _WRAPPERS:
        expr = expr.value
    return ast_dotted(expr)


def _cst_root(expr):
    if type(expr) in (cst.List, cst.Tuple) and len(expr.elements) == 1:
        expr = expr.elements[0].value
    while type(expr) is cst.Attribute and expr.attr.value in _WRAPPERS:
        expr = expr.value
    return dotted(expr)


def network_in_file(path: str, tree, name: str) -> str:
    """How `name` (`model`, `self.net`) is a network in the file `path`, or ""."""
    from .project_modules import is_module_class
    from .roles import looks_like_loss
    from .summaries import _aliases

    imports = _aliases(tree)
    here = os.path.dirname(os.path.abspath(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _MODULE_USES and ast_dotted(node.func.value) == name:
            return f"its `.{node.func.attr}()` is called"
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                any(ast_dotted(t) == name for t in node.targets):
            func = ast_dotted(node.value.func)
            if not func or looks_like_loss(func.rpartition(".")[2]):
                continue
            head, _, rest = func.partition(".")
            qualified = imports.get(head, head) + ("." + rest if rest else "")
            if qualified.startswith("torch.nn.") and qualified.rpartition(".")[2][:1].isupper():
                return f"it is built by `{func}(...)`"
            if "." in qualified and not qualified.startswith("torch") and \
                    is_module_class(here, qualified, layers=False):
                return f"it is built by `{func}(...)`, an nn.Module class of the project"
    return ""


def remote_networks(fn: cst.FunctionDef, remote: list) -> dict:
    """Parameter -> (names, note) for the parameters of `fn` that every call
    in `remote` ((file, line, guarded, backwarded, ast.Call, tree) from
    eval_loops._remote_calls) hands a network."""
    from .callers import tree_of

    out = {}
    if not remote:
        return out
    for key, names in _called_params(fn).items():
        index, keyword = _position(fn, key)
        hows = []
        for f, line, _, _, call, tree in remote:
            arg = _ast_arg(call, index, keyword)
            root = _ast_root(arg) if arg is not None else None
            how = network_in_file(f, tree if tree is not None else tree_of(f)[1], root) if root else ""
            if not how:
                break
            hows.append((f"`{ast.unparse(arg)}` ({os.path.basename(f)} line {line})", f"`{root}` there: {how}"))
        else:
            first, why = hows[0]
            more = f" and {len(hows) - 1} more call(s)" if len(hows) > 1 else ""
            out[key] = (names, f"`{key}` is (or holds) a network: every call found hands it one, {first}{more}; "
                        f"{why}")
    return out


def local_networks(fn: cst.FunctionDef, calls: list, table, line_of) -> dict:
    """The same for the calls of `fn` in its own file ((call, guarded,
    backwarded)): the argument's name has the module role here."""
    out = {}
    if not calls:
        return out
    for key, names in _called_params(fn).items():
        if key in table.modules or key in table.optimizers:
            continue
        index, keyword = _position(fn, key)
        roots = []
        for call, _, _ in calls:
            arg = _cst_arg(call, index, keyword)
            root = _cst_root(arg) if arg is not None else None
            if not root or root not in table.modules or table.modules.get(root) == "paramless":
                break
            roots.append((root, call))
        else:
            where = ", ".join(f"`{r}` (line {line_of(c)})" for r, c in roots[:2])
            out[key] = (names, f"`{key}` is (or holds) a network: every call here hands it one, {where}")
    return out


def give_roles(table, found: dict) -> None:
    """Record the roles found (parameter -> (names, note)) in the name table."""
    for key, (names, note) in found.items():
        for name in sorted(names, key=lambda n: n != key):  # the parameter's own note first
            if name in table.modules or name in table.optimizers or name in table.leaves:
                continue
            table.modules[name] = "param"
            table.inferred[name] = note if name == key else f"`{name}` is unpacked from `{key}`"
            if name != key and key not in table.inferred:
                table.inferred[name] = f"{note}; `{name}` is unpacked from it"
