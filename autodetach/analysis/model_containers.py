"""Models and optimizers kept in containers.

    self.models["decoder"] = Decoder(...)
    for key in self.models.keys():
        if "discr" in key:
            self.params_d += list(self.models[key].parameters())
        else:
            self.params += list(self.models[key].parameters())
    self.opt = optim.Adam(self.params)
    ...
    out = self.models["decoder"](x)
    optimizer[0].step()

An entry of a container is a key of its own in the name table:
`self.models['decoder']` for a string key, `self.models[]` for any entry.
A container is one of modules when its entries' `.parameters()` (or
`.train()`, `.eval()`, ...) are read, or when what it is given are modules;
one of optimizers when what it is given are optimizers (which entry steps
which model is then unknown), or when it is a tuple of optimizer
constructors (entry i steps what constructor i is given; a function called
with it gets the same, mapped through the call's arguments). Which entries a parameter list
grown over a dict of models holds is resolved by evaluating string tests on
the key (`"discr" in key`, `key == "D"`, `key.startswith(...)`) for every
string key the file assigns; anything else leaves the owner unknown.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .optimizer_owners import bound_args
from .walk import nodes

ELEM_MODULE_METHODS = {"parameters", "named_parameters", "train", "eval", "state_dict", "load_state_dict",
                       "modules", "children", "named_modules", "requires_grad_", "buffers"}
ANY = "[]"


def elem_key(expr, table) -> Optional[str]:
    """The name-table key of `base["k"]` / `base[i]` when the table knows it."""
    if not isinstance(expr, cst.Subscript):
        return None
    found = next((k for k in entry_keys(expr) if k in table.modules or k in table.optimizers), None)
    base = dotted(expr.value)
    if found is None and table.modules.get(base) == "param":
        return base  # `self.blocks[i](x)` of an nn.ModuleList: part of `self.blocks`
    return found


def entry_keys(expr) -> list:
    """The keys an entry read may have in the name table: its own, then any entry's."""
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index) or dotted(expr.value) is None:
        return []
    base, idx = dotted(expr.value), expr.slice[0].slice.value
    own = []
    if isinstance(idx, cst.SimpleString):
        own = [f"{base}[{idx.evaluated_value!r}]"]
    elif isinstance(idx, cst.Integer):
        own = [f"{base}[{int(idx.value, 0)}]"]
    return own + [base + ANY]


class Facts:
    def __init__(self) -> None:
        self.keys: dict = {}  # base -> set of string keys assigned, None if any other key
        self.assigned: dict = {}  # base -> [values assigned to its entries]
        self.appended: dict = {}  # base -> [appended expressions]
        self.elem_uses: dict = {}  # entry key -> method names called on it ("()": called)
        self.key_loops: list = []  # (base, loop variable, loop): the variable is a key
        self.entry_loops: list = []  # (base, loop variable, loop): the variable is an entry
        self.literals: list = []  # `x = (a, b)` / `x = [a, b]` assignments
        self.name_calls: list = []  # `f(...)` calls of plain names


def collect(f: Facts, n) -> None:
    """Called by names.build_names for every node of its one walk of the file."""
    t = type(n)
    if t is cst.Assign:
        _assign(f, n)
    elif t is cst.Call:
        func = n.func
        if type(func) is cst.Name:
            f.name_calls.append(n)
        elif type(func) is cst.Subscript and entry_keys(func):
            f.elem_uses.setdefault(entry_keys(func)[0], set()).add("()")
        elif type(func) is cst.Attribute:
            owner = func.value
            if func.attr.value == "append" and len(n.args) == 1 and dotted(owner) is not None:
                f.appended.setdefault(dotted(owner), []).append(n.args[0].value)
            elif type(owner) is cst.Subscript and entry_keys(owner):
                f.elem_uses.setdefault(entry_keys(owner)[0], set()).add(func.attr.value)
    elif t is cst.For and isinstance(n.target, (cst.Name, cst.Tuple)):
        entry = _entry_loop(n)
        if entry is not None:
            f.entry_loops.append(entry + (n,))
        it = n.iter
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and not it.args and \
                it.func.attr.value in ("keys", "items"):
            it = it.func.value
        base = dotted(it)
        tgt = n.target.elements[0].value if isinstance(n.target, cst.Tuple) and n.target.elements else n.target
        if base is not None and isinstance(tgt, cst.Name):
            f.key_loops.append((base, tgt.value, n))


def _assign(f: Facts, n: cst.Assign) -> None:
    if len(n.targets) == 1 and isinstance(n.value, (cst.List, cst.Tuple)) and n.value.elements:
        f.literals.append(n)
        key = dotted(n.targets[0].target)
        if key is not None:  # `models = [G(), D()]`: what the list is given
            f.assigned.setdefault(key, []).extend(e.value for e in n.value.elements)
    for tgt in n.targets:
        s = tgt.target
        if isinstance(s, cst.Subscript) and dotted(s.value) is not None and len(s.slice) == 1 \
                and isinstance(s.slice[0].slice, cst.Index):
            base, idx = dotted(s.value), s.slice[0].slice.value
            keys = f.keys.setdefault(base, set())
            if isinstance(idx, cst.SimpleString) and keys is not None:
                keys.add(idx.evaluated_value)
            else:
                f.keys[base] = None
            f.assigned.setdefault(base, []).append(n.value)


def _entry_loop(loop):
    """(base, name, plain) for `for name in base` (plain: a dict's keys),
    `for name in base.values()`, `for _, name in base.items()`."""
    it, tgt = loop.iter, loop.target
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and not it.args:
        if it.func.attr.value == "values" and isinstance(tgt, cst.Name):
            return (dotted(it.func.value), tgt.value, False) if dotted(it.func.value) else None
        if it.func.attr.value == "items" and isinstance(tgt, cst.Tuple) and len(tgt.elements) == 2 and \
                isinstance(tgt.elements[1].value, cst.Name):
            return (dotted(it.func.value), tgt.elements[1].value.value, False) if dotted(it.func.value) else None
        return None
    if isinstance(tgt, cst.Name) and dotted(it) is not None:
        return dotted(it), tgt.value, True
    return None


def infer_containers(f: Facts, table, imports) -> None:
    """Add container entries to the name table (modules, optimizers, owners)."""
    from .names import Optimizer

    for base in set(f.appended) | set(f.assigned):
        given = f.appended.get(base, []) + f.assigned.get(base, [])
        given_keys = [dotted(v) for v in given]
        if all(k in table.optimizers or _is_optimizer(v, imports) for k, v in zip(given_keys, given)):
            # which entry steps which model is not followed: the owner stays unknown
            table.optimizers.setdefault(base + ANY, Optimizer(base + ANY, None, None))
        elif all(k in table.modules and table.has_params(k) for k in given_keys) or \
                all(_builds_module(v, table, imports) for v in given):
            _add_modules(table, base, f.keys.get(base))
    for key, uses in f.elem_uses.items():
        # `self.models[key].parameters()`: the entries read there are modules
        if uses & ELEM_MODULE_METHODS and "step" not in uses and key not in table.optimizers:
            if key.endswith(ANY):
                _add_modules(table, key[:-len(ANY)], f.keys.get(key[:-len(ANY)]))
            else:
                table.modules.setdefault(key, "param")
    _owners(f, table)
    _optimizer_tuples(f, table, imports)
    for base, var, plain, _ in f.entry_loops:
        # `for opt in self.optimizers: opt.step()`: the loop variable is an entry
        if var in table.modules or var in table.optimizers or (plain and base in f.keys):
            continue
        if base + ANY in table.optimizers:
            table.optimizers[var] = Optimizer(var, None, None)
        elif table.modules.get(base + ANY) == "param":
            table.modules[var] = "param"


def _optimizer_tuples(f: Facts, table, imports) -> None:
    """`opts = (optim.Adam(model.parameters()), optim.SGD(model.parameters()))`:
    entry i steps what its constructor is given; a function of this file
    called with `opts` for its parameter `optimizer` gets the same entries,
    mapped to the parameter names the modules are passed as."""
    from .names import Optimizer, _owned

    def owners(value):
        els = [e.value for e in value.elements] if isinstance(value, (cst.Tuple, cst.List)) else []
        if not els or any(not _is_optimizer(e, imports) for e in els):
            return None
        out = []
        for e in els:
            o = _owned(e.args[0].value, table, {}, imports) if e.args and e.args[0].keyword is None else None
            out.append(frozenset(o) if o else None)
        return out

    built: dict = {}
    for n in f.literals:
        key, owns = dotted(n.targets[0].target), owners(n.value)
        if key is None or owns is None:
            continue
        built[key] = owns
        for i, o in enumerate(owns):
            table.optimizers[f"{key}[{i}]"] = Optimizer(f"{key}[{i}]", o, None)
        table.optimizers[key + ANY] = Optimizer(key + ANY, None, None)
    seen: dict = {}
    for call in f.name_calls:
        fn = table.functions.get(call.func.value)
        if fn is None:
            continue
        args, given = {}, {}
        for name, value in bound_args(fn, call).items():
            args[name] = dotted(value)
            owns = built.get(args[name]) if args[name] else owners(value)  # f(net, (Adam(...), SGD(...)))
            if owns is not None:
                given[name] = owns
        back = {src: p for p, src in args.items() if src is not None}
        for p, owns in given.items():
            mapped = tuple(frozenset(back[m] for m in o) if o and all(m in back for m in o) else None
                           for o in owns)
            if seen.get(p, mapped) != mapped:
                mapped = tuple(None for _ in mapped)
            seen[p] = mapped
    for p, mapped in seen.items():
        for i, o in enumerate(mapped):
            table.optimizers[f"{p}[{i}]"] = Optimizer(f"{p}[{i}]", o, None)
            if o:
                what = ", ".join(f"`{m}`" for m in sorted(o))
                table.inferred.setdefault(f"{p}[{i}]", f"`{p}[{i}]` steps {what} (every call of this file "
                                                        "passes optimizers built on them)")
        table.optimizers.setdefault(p + ANY, Optimizer(p + ANY, None, None))


def _is_optimizer(e, imports) -> bool:
    if not isinstance(e, cst.Call):
        return False
    q = imports.qualify(e.func) or ""
    return q.startswith("torch.optim.") and q.count(".") == 2 and q.split(".")[-1][:1].isupper()


def _builds_module(value, table, imports) -> bool:
    call = value
    while isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and \
            call.func.attr.value in ("to", "cuda", "cpu", "train"):
        call = call.func.value
    if not isinstance(call, cst.Call):
        return False
    q = imports.qualify(call.func) or ""
    last = q.split(".")[-1]
    if q.startswith("torch.nn.") and q.count(".") == 2 and last[:1].isupper() and not last.endswith("Loss"):
        return True
    return dotted(call.func) in table.module_classes


def _add_modules(table, base, keys) -> None:
    if base + ANY in table.modules:
        return
    table.modules[base + ANY] = "param"
    for k in sorted(keys or ()):
        table.modules.setdefault(f"{base}[{k!r}]", "param")


def _owners(f: Facts, table) -> None:
    """Parameter lists grown in a loop over a dict of models, split by tests
    on the key: which entries each list holds, for every string key."""
    from .names import Optimizer

    grown: dict = {}
    for base, var, loop in f.key_loops:
        keys = f.keys.get(base)
        if not keys or base + ANY not in table.modules:
            continue
        for k in sorted(keys):
            for target in _adds(loop.body, base, var, {var: k}):
                if target is None:
                    return
                grown.setdefault(target, set()).add(f"{base}[{k!r}]")
    if not grown:
        return
    for key, o in list(table.optimizers.items()):
        if o.owns is not None or not isinstance(o.node, cst.Call) or not o.node.args:
            continue
        src = dotted(o.node.args[0].value)
        if src in grown:
            table.optimizers[key] = Optimizer(key, frozenset(grown[src]), o.node)
            what = ", ".join(f"`{m}`" for m in sorted(grown[src]))
            table.inferred.setdefault(key, f"`{key}` steps {what} (the entries whose keys, as this file "
                                           f"assigns them, pass the tests that fill `{src}`)")


def _adds(block, base, var, env) -> list:
    """Targets that `P += list(base[var].parameters())` adds to when the loop
    variable is the key in `env`; None in the list where a test is not understood."""
    out = []
    for stmt in _stmts(block):
        if isinstance(stmt, cst.If):
            out += _adds_if(stmt, base, var, env)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                target = _param_add(small, base, var)
                if target:
                    out.append(target)
        elif any(_reads_entry(n, base, var) for n in nodes(stmt)):
            return [None]
    return out


def _adds_if(stmt: cst.If, base, var, env) -> list:
    arm = _test(stmt.test, env)
    if arm is None:
        return [None] if any(_reads_entry(n, base, var) for n in nodes(stmt)) else []
    if arm:
        return _adds(stmt.body, base, var, env)
    if stmt.orelse is None:
        return []
    if isinstance(stmt.orelse, cst.If):
        return _adds_if(stmt.orelse, base, var, env)
    return _adds(stmt.orelse.body, base, var, env)


def _stmts(block):
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    if isinstance(block, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=block.body)]
    return []


def _reads_entry(n, base, var) -> bool:
    return isinstance(n, cst.Subscript) and dotted(n.value) == base and len(n.slice) == 1 and \
        isinstance(n.slice[0].slice, cst.Index) and dotted(n.slice[0].slice.value) == var


def _param_add(small, base, var) -> Optional[str]:
    """`P += list(base[var].parameters())`, `P.extend(base[var].parameters())`: P."""
    if isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.AddAssign):
        target, value = dotted(small.target), small.value
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and \
            isinstance(small.value.func, cst.Attribute) and small.value.func.attr.value == "extend" and \
            len(small.value.args) == 1:
        target, value = dotted(small.value.func.value), small.value.args[0].value
    else:
        return None
    if isinstance(value, cst.Call) and dotted(value.func) in ("list", "tuple") and len(value.args) == 1:
        value = value.args[0].value
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
            value.func.attr.value == "parameters" and _reads_entry(value.func.value, base, var):
        return target
    return None


def _test(test, env) -> Optional[bool]:
    """Evaluate a string test on the loop variable; None if not understood."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        v = _test(test.expression, env)
        return None if v is None else not v
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        op, right = test.comparisons[0].operator, test.comparisons[0].comparator
        left = test.left
        lv, rv = _str(left, env), _str(right, env)
        if isinstance(op, (cst.In, cst.NotIn)):
            if isinstance(right, (cst.Tuple, cst.List, cst.Set)) and lv is not None:
                items = [_str(e.value, {}) for e in right.elements]
                if None in items:
                    return None
                hit = lv in items
            elif lv is not None and rv is not None:
                hit = lv in rv
            else:
                return None
            return hit if isinstance(op, cst.In) else not hit
        if isinstance(op, (cst.Equal, cst.NotEqual)) and lv is not None and rv is not None:
            return (lv == rv) if isinstance(op, cst.Equal) else (lv != rv)
        return None
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) and \
            test.func.attr.value in ("startswith", "endswith") and len(test.args) == 1:
        s, arg = _str(test.func.value, env), _str(test.args[0].value, {})
        if s is None or arg is None:
            return None
        return s.startswith(arg) if test.func.attr.value == "startswith" else s.endswith(arg)
    return None


def _str(e, env) -> Optional[str]:
    if isinstance(e, cst.SimpleString):
        v = e.evaluated_value
        return v if isinstance(v, str) else None
    if isinstance(e, cst.Name):
        return env.get(e.value)
    return None


def forward_helper(scope, func, base):
    """`outputs, losses = self.process_batch(inputs)`: a method of this class,
    with no backward or step, that runs entries of a container of models on
    what it is given. Walked at the call (like a method that trains), so that
    its results carry the graph of the entries it calls."""
    if base != "self" or scope.no_grad:
        return None
    own = scope._own_method(func)
    if own is None or own.name.value in scope.inlining or scope.a.function_summary(own).has_events:
        return None
    memo = scope.a.__dict__.setdefault("_runs_entries", {})
    hit = memo.get(own)
    if hit is None:
        table = scope.names
        hit = memo[own] = any(isinstance(n, cst.Call) and elem_key(n.func, table) in table.modules
                              for n in nodes(own))
    return own if hit else None
