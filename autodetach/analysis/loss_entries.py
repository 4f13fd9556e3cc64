"""Entries of one dict of losses that a project model's method returns, built
there from graphs that share nothing.

    losses, fake = trainer(x, mask, gt)          # train.py; trainer = Trainer(config)
    losses['d'] = losses['d_real'] + losses['d_fake']
    losses['d'].backward(retain_graph=True)
    losses['g'] = losses['l1'] + losses['g_adv']
    losses['g'].backward()

    def forward(self, x, mask, gt):              # Trainer, another file
        fake = self.netG(x, mask)
        real_p, fake_p = self.dis(gt, fake.detach())   # the D part's own forward
        losses['d_real'] = ...real_p...
        real_p, fake_p = self.dis(gt, fake)            # the G part runs D again
        losses['g_adv'] = ...fake_p...

The walk of train.py sees one dict, so both backwards share its graph. The
method that fills it shows which calls each entry hangs from: every call is a
graph of its own, a cut (`.detach()`, `.item()`, a `torch.no_grad()` block)
hangs from nothing. When the entries the two losses read hang from no common
call, the later backward walks none of the retained graph. What they may
still share is inferred: the method's arguments (the caller's batch) and
`self` attributes stored only in `__init__`. Read with stdlib `ast`."""
from __future__ import annotations

import ast

import libcst as cst

from ..imports import dotted
from .imported_classes import class_of
from .summaries import ast_dotted as _dotted
from .walk import nodes

_WRAPPERS = ("DataParallel", "DistributedDataParallel")
_CUTS = {"detach", "item", "tolist", "numpy", "size", "dim", "numel", "cpu_numpy"}
_CUT_ATTRS = {"data", "shape", "dtype", "device"}


def disjoint_entries(analysis, scope, ev, later, shared) -> list:
    """Notes when the only graph the loss `D["a"]` of `ev` shares with the later
    backward's `D["b"]` is the dict D a project method returned, whose entries
    hang from separate calls there; [] otherwise."""
    ctx = analysis.ctx
    d1, k1 = _entry(ev.target_expr)
    d2, k2 = _entry(later.target_expr)
    if d1 is None or d1 != d2 or k1 == k2:
        return []
    fn = ctx.enclosing(ev.call, cst.FunctionDef)
    body = fn.body if fn is not None else ctx.module
    producers = [s for s in nodes(body) if isinstance(s, cst.Assign) and isinstance(s.value, cst.Call)
                 and any(d1 in _names(t.target) for t in s.targets)]
    binds = [s for s in nodes(body) if isinstance(s, (cst.Assign, cst.AugAssign, cst.AnnAssign))
             and any(d1 in _names(t.target) for t in _targets(s))]
    if len(producers) != 1 or len(binds) != 1 or len(producers[0].targets) != 1:
        return []
    prod = producers[0]
    writes = _writes(body, d1)
    if writes is None or not _plain_uses(ctx, body, d1, prod):
        return []
    prod_line = ctx.parent(prod)
    for n in shared:
        if n.stmt is not prod_line and n.stmt is not prod and not (n.name == d1 and id(n.stmt) in writes[1]):
            return []
    first = _sources(k1, writes[0], set())
    second = _sources(k2, writes[0], set())
    if first is None or second is None or first & second:
        return []
    target = prod.targets[0].target
    index = None
    if isinstance(target, cst.Tuple):
        names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
        if d1 not in names:
            return []
        index = names.index(d1)
    method, where, cls = _callee(analysis, body, prod.value)
    if method is None:
        return []
    found = _entry_origins(method, cls, index)
    if found is None:
        return []
    entries, shared_ok = found
    if not (first | second) <= set(entries):
        return []
    a = set().union(*(entries[k] for k in first))
    b = set().union(*(entries[k] for k in second))
    common = a & b
    if any(not shared_ok(atom) for atom in common):
        return []
    args = sorted(atom[4:] for atom in common if atom.startswith("arg:"))
    attrs = sorted(atom for atom in common if atom.startswith("self."))
    both = ", ".join(f"`{x}`" for x in args + attrs)
    note = (f"`{_code(prod.value)}` runs `{method.name}()` of {where}, which builds the entries "
            f"{_keys(first)} and {_keys(second)} from separate calls")
    if both:
        note += f"; that what both read ({both}) carries no graph of its own is inferred"
    return [note]


def _entry(expr):
    """`losses['d']` -> ('losses', 'd')."""
    if type(expr) is cst.Subscript and type(expr.value) is cst.Name and len(expr.slice) == 1:
        key = expr.slice[0].slice
        if isinstance(key, cst.Index) and isinstance(key.value, cst.SimpleString):
            return expr.value.value, key.value.evaluated_value
    return None, None


def _names(target) -> set:
    return {x.value for x in nodes(target) if isinstance(x, cst.Name)} if isinstance(target, (cst.Name, cst.Tuple)) \
        else set()


def _targets(stmt):
    if isinstance(stmt, cst.Assign):
        return stmt.targets
    return [stmt]


def _writes(body, d):
    """(key -> keys of D its value reads, ids of the statements writing D[...]) for
    `D['k'] = f(D['a'], D['b'])`; a write `D[k] = f(D[k])` keeps each entry's
    sources. None when D is written any other way."""
    deps: dict = {}
    ids = set()
    for s in nodes(body):
        if not isinstance(s, cst.SimpleStatementLine):
            continue
        for small in s.body:
            if not isinstance(small, cst.Assign):
                continue
            subs = [t.target for t in small.targets if isinstance(t.target, cst.Subscript)
                    and isinstance(t.target.value, cst.Name) and t.target.value.value == d]
            if not subs:
                continue
            if len(small.targets) != 1:
                return None
            ids.add(id(s))
            _, key = _entry(subs[0])
            reads = [x for x in nodes(small.value) if isinstance(x, cst.Name) and x.value == d]
            got = [_entry(x)[1] for x in nodes(small.value) if isinstance(x, cst.Subscript) and _entry(x)[0] == d]
            if key is None:
                # `D[k] = torch.mean(D[k])`: the same entry, transformed
                if len(reads) != 1 or _code(subs[0].slice[0].slice) not in _code(small.value):
                    return None
                continue
            if any(g is None for g in got) or len(got) != len(reads) or key in deps:
                return None
            deps[key] = set(got)
    return deps, ids


def _plain_uses(ctx, body, d, prod) -> bool:
    """Is D only read or written entry by entry (`D["k"]`, `D.items()`) after the
    call binds it? Handed to a call (`D.update(...)`, `log(D)`) it may change."""
    for x in nodes(body):
        if not isinstance(x, cst.Name) or x.value != d:
            continue
        up = ctx.parent(x)
        if isinstance(up, cst.Subscript) and up.value is x:
            continue
        if isinstance(up, cst.Attribute) and up.value is x and up.attr.value in ("keys", "items", "values"):
            continue
        if ctx.enclosing(x, cst.Assign) is prod and any(y is x for t in prod.targets for y in nodes(t.target)):
            continue
        return False
    return True


def _sources(key, deps, seen):
    if key in seen:
        return None
    if key not in deps:
        return {key}
    out: set = set()
    for k in deps[key]:
        got = _sources(k, deps, seen | {key})
        if got is None:
            return None
        out |= got
    return out


def _callee(analysis, body, call):
    """The ast method a call runs: `obj(...)` (forward) or `obj.meth(...)`, with
    `obj` bound in this function only to a project class's instance (or to one
    wrapped by `DataParallel`), and where it was read."""
    func = call.func
    if isinstance(func, cst.Name):
        obj, meth = func.value, "forward"
    elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        obj, meth = func.value.value, func.attr.value
    else:
        return None, None, None
    cls = None
    for s in nodes(body):
        if not isinstance(s, cst.Assign) or not any(isinstance(t.target, cst.Name) and t.target.value == obj
                                                    for t in s.targets):
            continue
        value = s.value
        if not isinstance(value, cst.Call):
            return None, None, None
        name = dotted(value.func) or ""
        if name.split(".")[-1] in _WRAPPERS and value.args and dotted(value.args[0].value) == obj:
            continue
        if cls is not None:
            return None, None, None
        cls, where = class_of(analysis, value.func)
        if cls is None:
            return None, None, None
    if cls is None:
        return None, None, None
    methods = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == meth]
    return (methods[0], where, cls) if len(methods) == 1 else (None, None, None)


def _entry_origins(method, cls, index):
    """(key -> calls and inputs the entry hangs from, a test of which shared
    ones are allowed) for the dict the method returns (at `index` of a returned
    tuple); None when it is not read plainly."""
    returns = [n for n in ast.walk(method) if isinstance(n, ast.Return)]
    if len(returns) != 1 or returns[0] is not method.body[-1]:
        return None
    value = returns[0].value
    if index is not None:
        if not isinstance(value, ast.Tuple) or index >= len(value.elts):
            return None
        value = value.elts[index]
    if not isinstance(value, ast.Name):
        return None
    dname = value.id
    args = method.args
    params = [a.arg for a in args.posonlyargs + args.args][1:] + [a.arg for a in args.kwonlyargs] + \
        [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    env = {p: {"arg:" + p} for p in params}
    entries: dict = {}
    stored: list = []
    methods = {fn.name: fn for fn in cls.body if isinstance(fn, ast.FunctionDef)}
    env["__methods__"] = methods
    if not _run(method.body, env, entries, dname, stored, False):
        return None
    if any(stored_set & set().union(*entries.values()) for stored_set in stored if entries):
        return None  # the method keeps part of an entry's graph on `self`
    late = _stored_late(cls)
    return entries, lambda atom: atom.startswith("arg:") or atom.startswith("self.") and not atom.endswith("()") \
        and atom not in late


def _run(body, env, entries, dname, stored, cut) -> bool:
    for stmt in body:
        if isinstance(stmt, ast.Assign):
            origins = set() if cut else _origins(stmt.value, env)
            for target in stmt.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                        and target.value.id == dname:
                    key = target.slice.value if isinstance(target.slice, ast.Constant) else None
                    if not isinstance(key, str) or key in entries:
                        return False
                    entries[key] = origins
                elif isinstance(target, ast.Name) and target.id == dname:
                    if not (isinstance(stmt.value, ast.Dict) and not stmt.value.keys) or entries:
                        return False
                elif isinstance(target, (ast.Name, ast.Tuple)):
                    for x in ast.walk(target):
                        if isinstance(x, ast.Name):
                            env[x.id] = origins
                        elif isinstance(x, (ast.Attribute, ast.Subscript)):
                            stored.append(origins)
                elif isinstance(target, ast.Attribute):
                    stored.append(origins)
                else:
                    return False
        elif isinstance(stmt, ast.With):
            no_grad = any(isinstance(i.context_expr, ast.Call) and
                          (_dotted(i.context_expr.func) or "").endswith("no_grad") for i in stmt.items)
            if not _run(stmt.body, env, entries, dname, stored, cut or no_grad):
                return False
        elif isinstance(stmt, ast.Expr):
            if any(isinstance(x, ast.Name) and x.id == dname for x in ast.walk(stmt)):
                return False  # `losses.update(...)`
            if isinstance(stmt.value, ast.Call) and not cut:
                # `self.fakes.append(fake)`: what a call is handed may be kept
                stored.append(set().union(*(_origins(a, env) for a in stmt.value.args), set()))
        elif isinstance(stmt, (ast.Return, ast.Pass, ast.Assert)):
            continue
        else:
            return False  # branches and loops: which binding an entry reads is not plain
    return True


def _origins(expr, env) -> set:
    """Calls (by position) and inputs a value hangs from; a cut hangs from none."""
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in _CUTS:
            return set()
        out = {f"call:{expr.lineno}:{expr.col_offset}"}
        own = _dotted(func) or ""
        if own.startswith("self.") and own.count(".") == 1:
            helper = env["__methods__"].get(own[5:])
            if helper is None:
                out.add(own)  # a module or object kept on `self`: shared only when `__init__` alone stores it
            elif any(isinstance(x, ast.Name) and x.id == "self" for stmt in helper.body for x in ast.walk(stmt)):
                out.add(own + "()")  # a method reading `self` state may hand back a graph kept there
        for part in [func.value if isinstance(func, ast.Attribute) else func, *expr.args,
                     *(k.value for k in expr.keywords)]:
            out |= _origins(part, env)
        return out
    if isinstance(expr, ast.Attribute):
        if expr.attr in _CUT_ATTRS:
            return set()
        key = _dotted(expr)
        if key and key.startswith("self.") and key.count(".") == 1:
            return {key}
        return _origins(expr.value, env)
    if isinstance(expr, ast.Name):
        return set(env.get(expr.id, ())) if expr.id != "__methods__" else set()
    out: set = set()
    for child in ast.iter_child_nodes(expr):
        out |= _origins(child, env)
    return out


def _stored_late(cls) -> set:
    """`self.X` that a method other than `__init__` stores (a graph of an earlier call may
    be kept there); those stored only by `__init__` (a module, a config) may be shared."""
    out = set()
    for fn in cls.body:
        if isinstance(fn, ast.FunctionDef) and fn.name != "__init__":
            for n in ast.walk(fn):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target] \
                    if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else []
                out |= {_dotted(t) for t in targets if isinstance(t, ast.Attribute)}
    return out


def _keys(keys) -> str:
    return ", ".join(f"`{k}`" for k in sorted(keys))


def _code(node) -> str:
    return cst.Module([]).code_for_node(node).strip()
