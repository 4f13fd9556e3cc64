"""Whether a call hands back recurrent state computed by a network from the
state it was given, read from the code of the function or method it calls,
in this file or in the project's other files (stdlib `ast`, never libcst).

    def get_action(state, net, eps, env, hidden):          # a function of the file
        action, hidden = net.get_action(state, hidden)      # a method of some project class
        return action, hidden

    class DRQN(nn.Module):
        def get_action(self, state, hidden):
            q, hidden = self.forward(state, hidden)        # the module runs on the state
            return q.argmax().item(), hidden                # a number, and the new state

A call `f(..., h)` hands back at position `pos` state a network computed from
`h` when every `return` of `f` is a tuple of the caller's length whose element
`pos` is bound only by calls that take `h` and run a network: `self.forward` or
`self(...)` of an `nn.Module` class, an attribute `__init__` builds from a class
(`self.actor = Actor(...)`, `copy.deepcopy(...)`), or, recursively, another such
call. The other elements that are numbers (`.item()`, `.numpy()`, `.tolist()`,
`random`/`np.random`, `env.action_space.sample()`) are named. A method whose
object is not known here is read in every project class that defines a method
of that name, and all must agree: which class runs is inferred. A method that
keeps anything on its object (`self.x = ...`, `.append(...)`) is not such a
call: it may keep a graph for a later backward."""
from __future__ import annotations

import ast
import os
from typing import Optional

from .cut_returns import returns_cut

CUTS = ("item", "numpy", "tolist", "detach")
STORES = {"append", "extend", "insert", "add", "put", "push", "store", "remember", "update"}
DEPTH = 3


def summary(path: str, text: Optional[str], func, args: list, arg_pos, n: int, pos: int,
            known: Optional[str] = None) -> Optional[tuple]:
    """(plain positions, what was inferred) when the call with function `func` (an ast or
    dotted text: "name" or "obj.meth"), whose state argument is `arg_pos` (index or keyword),
    hands back state a network computed from it at `pos` of an `n`-tuple; None otherwise."""
    if "." in func:
        obj, _, meth = func.rpartition(".")
        if obj == "self" or not meth:
            return None
        cands = _methods(path, meth)
        if known is not None:  # `pilot = Pilot()`: the file tells the class
            cands = [c for c in cands if c[0].name == known]
        if not cands:
            return None
        got = _agree(cands, arg_pos, n, pos, 0)
        if got is None:
            return None
        where = ", ".join(sorted({f"`{c.name}` ({os.path.basename(f)})" for c, _m, f, _t in cands})[:3])
        if known is not None:
            return got, (f"`{known}.{meth}` ({where}) is read to run a network on the state it is given and "
                         f"return the new state")
        return got, (f"`{obj}` is taken to be an object of a project class that defines `{meth}` ({where}), "
                     f"whose `{meth}` runs a network on the state it is given and returns the new state")
    tree = _parse(text)
    fn = next((n_ for n_ in (tree.body if tree else []) if isinstance(n_, ast.FunctionDef) and n_.name == func),
              None)
    if fn is None:
        return None
    got = _agree([(None, fn, path, tree)], arg_pos, n, pos, 0)
    if got is None:
        return None
    return got, (f"`{func}` is read to run a network on the state it is given (through the project classes "
                 f"that define the method it calls)")


def _parse(text):
    try:
        return ast.parse(text) if text is not None else None
    except (SyntaxError, ValueError):
        return None


def _methods(path: str, meth: str) -> list:
    from .callers import class_nodes
    from .project_index import classes_with_method

    out = []
    for cls, f, tree in class_nodes(classes_with_method(path, meth) or
                                    classes_with_method(path, meth, whole=True)) or ():
        m = [x for x in cls.body if isinstance(x, ast.FunctionDef) and x.name == meth]
        if len(m) != 1:
            return []
        out.append((cls, m[0], f, tree))
    return out


def _agree(cands, arg_pos, n, pos, depth) -> Optional[set]:
    plain = None
    for cls, fn, f, tree in cands:
        got = _one(cls, fn, f, tree, arg_pos, n, pos, depth)
        if got is None:
            return None
        plain = got if plain is None else plain & got
    return plain


def _param(fn, cls, arg_pos) -> Optional[str]:
    params = [a.arg for a in fn.args.args]
    if cls is not None and params and params[0] in ("self", "cls"):
        params = params[1:]
    if isinstance(arg_pos, str):
        return arg_pos if arg_pos in params else None
    return params[arg_pos] if arg_pos < len(params) else None


def _one(cls, fn, f, tree, arg_pos, n, pos, depth) -> Optional[set]:
    param = _param(fn, cls, arg_pos)
    if param is None or _keeps(fn) or _quiet(fn):
        return None
    returns = []
    for node in ast.walk(fn):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and node is not fn:
            return None
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(node, ast.Return):
            if node.value is None:
                return None
            elems = _flat(node.value)
            if len(elems) != n:
                return None
            returns.append(elems)
    if not returns:
        return None
    binds = _bindings(fn)
    plain = set(range(n)) - {pos}
    for elems in returns:
        new = elems[pos]
        if not isinstance(new, ast.Name) or not binds.get(new.id) or None in binds[new.id]:
            return None  # bound some other way too (a for target, `+=`, `with ... as`): not followed
        for value, n2, j in binds[new.id]:
            if not _runs_network(cls, fn, f, tree, value, param, n2, j, depth):
                return None
        plain = {i for i in plain if _plain(cls, f, tree, elems[i], binds, depth)}
    return plain


def _quiet(fn) -> bool:
    """Gradients may be off in it: a `no_grad` / `inference_mode` decorator or block, `set_grad_enabled`."""
    return any(isinstance(n, ast.Attribute) and n.attr in ("no_grad", "inference_mode", "set_grad_enabled") or
               isinstance(n, ast.Name) and n.id in ("no_grad", "inference_mode", "set_grad_enabled")
               for n in ast.walk(fn))


def _keeps(fn) -> bool:
    for node in ast.walk(fn):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            for x in ast.walk(t):
                if isinstance(x, ast.Attribute) and isinstance(x.value, ast.Name) and x.value.id == "self" and \
                        isinstance(x.ctx, ast.Store):
                    return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in STORES:
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return True
    return False


def _flat(expr) -> list:
    if isinstance(expr, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in expr.elts):
        return [x for e in expr.elts for x in _flat(e)]
    return [expr]


def _bindings(fn) -> dict:
    """name -> [(value, length of the flat target, position in it)] for each `Assign` in `fn`;
    a name bound any other way (a for target, an augmented assignment) maps to [None]."""
    out: dict = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                flat = _flat(t)
                for j, e in enumerate(flat):
                    if isinstance(e, ast.Name):
                        out.setdefault(e.id, []).append((node.value, len(flat), j))
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith,
                               ast.NamedExpr)):
            targets = [i.optional_vars for i in node.items if i.optional_vars is not None] \
                if isinstance(node, (ast.With, ast.AsyncWith)) else [node.target]
            for x in (y for tgt in targets for y in ast.walk(tgt)):
                if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store):
                    out.setdefault(x.id, []).append(None)
    return out


def _arg_names(expr) -> set:
    if isinstance(expr, (ast.Tuple, ast.List)):
        return set().union(*[_arg_names(e) for e in expr.elts]) if expr.elts else set()
    return {expr.id} if isinstance(expr, ast.Name) else set()


def _state_arg(call, param):
    """The position (or keyword) at which `call` hands `param` over as it is."""
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            return None
        if param in _arg_names(a):
            return i
    for k in call.keywords:
        if k.arg is not None and param in _arg_names(k.value):
            return k.arg
    return None


def _is_module_class(cls) -> bool:
    return cls is not None and any(ast.unparse(b).split(".")[-1] == "Module" for b in cls.bases)


def _built_network(cls, attr) -> bool:
    """`self.<attr>` is built from a class (`Actor(...)`, `nn.LSTM(...)`) or a deep copy in a method of `cls`."""
    found = False
    for node in ast.walk(cls):
        if not isinstance(node, ast.Assign):
            continue
        for t in node.targets:
            if isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and \
                    t.value.id == "self":
                v = node.value
                while isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "to":
                    v = v.func.value
                if not isinstance(v, ast.Call):
                    return False
                name = ast.unparse(v.func).split(".")[-1]
                if not (name[:1].isupper() or name == "deepcopy"):
                    return False
                found = True
    return found


def _built_cuts(cls, attr, tree, n2, j) -> bool:
    """`self.<attr>` is built from a class of this file whose `forward` hands back at `j` of `n2`
    state it cut or built under `no_grad` (cut_returns)."""
    made = {ast.unparse(node.value.func).split(".")[-1] for node in ast.walk(cls) if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call) and any(isinstance(t, ast.Attribute) and t.attr == attr and
                                                         isinstance(t.value, ast.Name) and t.value.id == "self"
                                                         for t in node.targets)}
    if len(made) != 1 or tree is None:
        return False
    name = made.pop()
    found = [c for c in tree.body if isinstance(c, ast.ClassDef) and c.name == name]
    return len(found) == 1 and returns_cut(found[0], "forward", n2, j)


def _runs_network(cls, fn, f, tree, value, param, n2, j, depth) -> bool:
    if value is None or not isinstance(value, ast.Call):
        return False
    arg = _state_arg(value, param)
    if arg is None:
        return False
    func = value.func
    if isinstance(func, ast.Name) and func.id == "self" or \
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" and \
            func.attr == "forward":
        return _is_module_class(cls) and not returns_cut(cls, "forward", n2, j)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        if cls is None:
            return False
        if _built_network(cls, func.attr):
            return not _built_cuts(cls, func.attr, tree, n2, j)
        own = [x for x in cls.body if isinstance(x, ast.FunctionDef) and x.name == func.attr]
        if len(own) == 1 and depth < DEPTH:
            return _one(cls, own[0], f, tree, arg, n2, j, depth + 1) is not None
        return False
    if depth >= DEPTH:
        return False
    if isinstance(func, ast.Attribute):
        base = func.value
        if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id == "self":
            if cls is None or not _built_network(cls, base.attr):
                return False
        elif not (isinstance(base, ast.Name) and base.id in {a.arg for a in fn.args.args}):
            return False
        cands = _methods(f, func.attr)
        return bool(cands) and _agree(cands, arg, n2, j, depth + 1) is not None
    if isinstance(func, ast.Name) and tree is not None:
        own = [x for x in tree.body if isinstance(x, ast.FunctionDef) and x.name == func.id]
        return len(own) == 1 and _one(None, own[0], f, tree, arg, n2, j, depth + 1) is not None
    return False


def _plain(cls, f, tree, expr, binds, depth, seen=None) -> bool:
    """A number or array: `x.item()`, `q.argmax().numpy()[0]`, `np.random.randint(n)`, or a name
    every binding of which is one (or a plain position of a call read here)."""
    seen = seen or set()
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.Subscript):
        return _plain(cls, f, tree, expr.value, binds, depth, seen)
    if isinstance(expr, ast.BinOp):
        return _plain(cls, f, tree, expr.left, binds, depth, seen) and \
            _plain(cls, f, tree, expr.right, binds, depth, seen)
    if isinstance(expr, ast.Call):
        text = ast.unparse(expr.func)
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in ("item", "numpy", "tolist"):
            return True
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in ("flatten", "squeeze", "reshape", "astype"):
            return _plain(cls, f, tree, expr.func.value, binds, depth, seen)
        if text in ("int", "float") or text.startswith(("random.", "np.random.", "numpy.random.")):
            return True
        return text.endswith("action_space.sample")
    if isinstance(expr, ast.Name) and expr.id not in seen:
        seen.add(expr.id)
        values = binds.get(expr.id)
        if not values or any(v is None for v in values):
            return False
        for value, n2, j in values:
            if n2 == 1:
                if not _plain(cls, f, tree, value, binds, depth, seen):
                    return False
                continue
            if not _call_plain(value, n2, j, f, depth):
                return False
        return True
    return False


def _call_plain(value, n2, j, f, depth) -> bool:
    """`action, hidden = net.get_action(state, hidden)`: position `j` of what a project method
    returns is a number in every class that defines it."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute) or depth >= DEPTH:
        return False
    cands = _methods(f, value.func.attr)
    if not cands:
        return False
    for cls, fn, f2, tree in cands:
        if _keeps(fn):
            return False
        binds = _bindings(fn)
        for node in ast.walk(fn):
            if isinstance(node, ast.Return):
                elems = _flat(node.value) if node.value is not None else []
                if len(elems) != n2 or not _plain(cls, f2, tree, elems[j], binds, depth + 1):
                    return False
    return True


def store_cuts(path: str, meth: str, arg_pos) -> Optional[str]:
    """`buffer.add(s, a, hidden)`: the class (one of the project's) whose `meth` cuts what it is handed
    at `arg_pos` before keeping it (`self.h[i] = h.detach().cpu()`); None when any does not."""
    cands = _methods(path, meth)
    if not cands:
        return None
    for cls, fn, _f, _tree in cands:
        param = _param(fn, cls, arg_pos)
        if param is None:
            return None
        names = {param}
        for node in ast.walk(fn):  # `h, c = hiddens`
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in names:
                for t in node.targets:
                    names |= {e.id for e in _flat(t) if isinstance(e, ast.Name)}
        parents = {id(c): p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
        for node in ast.walk(fn):
            if not isinstance(node, ast.Name) or node.id not in names or not isinstance(node.ctx, ast.Load):
                continue
            parent = parents.get(id(node))
            if isinstance(parent, ast.Assign) and parent.value is node:
                continue  # the unpacking above
            if isinstance(parent, ast.Attribute) and parent.attr in ("detach", "item", "tolist", "numpy", "data"):
                continue
            if isinstance(parent, ast.Compare) or isinstance(parent, ast.Call) and parent.func is node:
                continue
            return None
    return ", ".join(sorted({c.name for c, _m, _f, _t in cands}))
