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
which model is then unknown; when every one is built on an entry of one
list of models, `opts.append(Adam(nets[i].parameters()))` or
`opts = [Adam(n.parameters()) for n in nets]`, any entry is
taken to step any of those models, an inference the message states), or
when it is a tuple of optimizer
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
    if type(expr) is not cst.Subscript:
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
        self.comps: list = []  # (key, list comprehension) assignments
        self.keyed: dict = {}  # base -> {string key: [values assigned to that entry]}
        self.bound: set = set()  # plain names bound by `=` or as parameters


# The node types collect reads: names.build_names hands it only nodes of these types.
COLLECTED = frozenset({cst.Assign, cst.Call, cst.CompFor, cst.Param, cst.For})


def collect(facts: Facts, node) -> None:
    """Called by names.build_names for every node of COLLECTED types in its one walk of the file."""
    node_type = type(node)
    if node_type is cst.Assign:
        _assign(facts, node)
    elif node_type is cst.Call:
        func = node.func
        if type(func) is cst.Name:
            facts.name_calls.append(node)
        elif type(func) is cst.Subscript and entry_keys(func):
            facts.elem_uses.setdefault(entry_keys(func)[0], set()).add("()")
        elif type(func) is cst.Attribute:
            owner = func.value
            if func.attr.value == "append" and len(node.args) == 1 and dotted(owner) is not None:
                facts.appended.setdefault(dotted(owner), []).append(node.args[0].value)
            elif type(owner) is cst.Subscript and entry_keys(owner):
                facts.elem_uses.setdefault(entry_keys(owner)[0], set()).add(func.attr.value)
    elif node_type is cst.CompFor and isinstance(node.target, cst.Name) and dotted(node.iter) is not None:
        # `[critic(x) for critic in self.critics]`: the variable is an entry
        facts.entry_loops.append((dotted(node.iter), node.target.value, False, node))
    elif node_type is cst.Param:
        facts.bound.add(node.name.value)
    elif node_type is cst.For and isinstance(node.target, (cst.Name, cst.Tuple)):
        entry = _entry_loop(node)
        if entry is not None:
            facts.entry_loops.append(entry + (node,))
        iterable = node.iter
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and not iterable.args and \
                iterable.func.attr.value in ("keys", "items"):
            iterable = iterable.func.value
        base = dotted(iterable)
        target = node.target
        if isinstance(target, cst.Tuple) and target.elements:
            target = target.elements[0].value
        if base is not None and isinstance(target, cst.Name):
            facts.key_loops.append((base, target.value, node))
    if node_type is cst.For or node_type is cst.CompFor:
        facts.entry_loops.extend(base_var + (False, node) for base_var in _zipped(node))


def _assign(facts: Facts, node: cst.Assign) -> None:
    facts.bound.update(t.target.value for t in node.targets if type(t.target) is cst.Name)
    if len(node.targets) == 1 and type(node.value) is cst.ListComp and dotted(node.targets[0].target) is not None:
        facts.comps.append((dotted(node.targets[0].target), node.value))
    if len(node.targets) == 1 and type(node.value) in (cst.List, cst.Tuple) and node.value.elements:
        facts.literals.append(node)
        key = dotted(node.targets[0].target)
        if key is not None:  # `models = [G(), D()]`: what the list is given
            facts.assigned.setdefault(key, []).extend(e.value for e in node.value.elements)
    if len(node.targets) == 1 and type(node.value) is cst.Dict and node.value.elements and \
            dotted(node.targets[0].target) is not None and \
            all(type(e) is cst.DictElement for e in node.value.elements):
        # `self.optims = {"G": Adam(...)}` is `self.optims["G"] = Adam(...)` per entry: an optimizer
        # stepped as `self.optims["G"].step()` is then one (a `**spread` keeps it unknown, as before)
        base = dotted(node.targets[0].target)
        for e in node.value.elements:
            _store_entry(facts, base, e.key, e.value)
    for tgt in node.targets:
        stored = tgt.target
        if type(stored) is cst.Subscript and dotted(stored.value) is not None and len(stored.slice) == 1 \
                and isinstance(stored.slice[0].slice, cst.Index):
            _store_entry(facts, dotted(stored.value), stored.slice[0].slice.value, node.value)


def _store_entry(facts: Facts, base: str, idx, value) -> None:
    """`base[idx] = value`: a string key is kept with its values; any other makes the keys unknown."""
    keys = facts.keys.setdefault(base, set())
    if isinstance(idx, cst.SimpleString) and keys is not None:
        keys.add(idx.evaluated_value)
        facts.keyed.setdefault(base, {}).setdefault(idx.evaluated_value, []).append(value)
    else:
        facts.keys[base] = None
    facts.assigned.setdefault(base, []).append(value)


def _zipped(loop) -> list:
    """[(base, name)] for `for loss, opt, net in zip(losses, self.opts, self.nets)`."""
    target, it = loop.target, loop.iter
    if not (isinstance(target, cst.Tuple) and isinstance(it, cst.Call) and dotted(it.func) == "zip" and
            len(it.args) == len(target.elements) and all(a.keyword is None and not a.star for a in it.args)):
        return []
    return [(dotted(a.value), e.value.value) for a, e in zip(it.args, target.elements)
            if dotted(a.value) is not None and isinstance(e.value, cst.Name)]


def _entry_loop(loop):
    """(base, name, plain) for `for name in base` (plain: a dict's keys),
    `for name in base.values()`, `for _, name in base.items()`."""
    iterable, target = loop.iter, loop.target
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and not iterable.args:
        if iterable.func.attr.value == "values" and isinstance(target, cst.Name):
            return (dotted(iterable.func.value), target.value, False) if dotted(iterable.func.value) else None
        if iterable.func.attr.value == "items" and isinstance(target, cst.Tuple) and len(target.elements) == 2 and \
                isinstance(target.elements[1].value, cst.Name):
            base = dotted(iterable.func.value)
            return (base, target.elements[1].value.value, False) if base else None
        return None
    if isinstance(target, cst.Name) and dotted(iterable) is not None:
        return dotted(iterable), target.value, True
    return None


def infer_containers(facts: Facts, table, imports) -> None:
    """Add container entries to the name table (modules, optimizers, owners)."""
    from .names import Optimizer

    opt_lists: list = []
    for base in sorted(set(facts.appended) | set(facts.assigned)):
        given = facts.appended.get(base, []) + facts.assigned.get(base, [])
        given_keys = [dotted(v) for v in given]
        if all(k in table.optimizers or _is_optimizer(v, imports) for k, v in zip(given_keys, given)):
            # which entry steps which model is not followed: the owner stays unknown
            table.optimizers.setdefault(base + ANY, Optimizer(base + ANY, None, None))
            opt_lists.append((base, given))
        elif all(k in table.modules and table.has_params(k) for k in given_keys) or \
                all(_builds_module(v, table, imports) for v in given):
            _add_modules(table, base, facts.keys.get(base))
    for key, uses in facts.elem_uses.items():
        # `self.models[key].parameters()`: the entries read there are modules
        if uses & ELEM_MODULE_METHODS and "step" not in uses and key not in table.optimizers:
            if key.endswith(ANY):
                _add_modules(table, key[:-len(ANY)], facts.keys.get(key[:-len(ANY)]))
            else:
                table.modules.setdefault(key, "param")
    _owners(facts, table)
    for base, given in opt_lists:
        _entry_owners(table, base, given, imports)
        _keyed_owners(facts, table, base, imports)
    _optimizer_tuples(facts, table, imports)
    for key, comp in facts.comps:
        _optimizer_comp(table, key, comp, imports)
    for base, var, plain, _ in facts.entry_loops:
        # `for opt in self.optimizers: opt.step()`: the loop variable is an entry
        if var in table.modules or var in table.optimizers or (plain and base in facts.keys):
            continue
        if base + ANY in table.optimizers:
            # an entry steps what the list's entries step, when that is known (an inference: said)
            owns = table.optimizers[base + ANY].owns
            table.optimizers[var] = Optimizer(var, owns, None)
            if owns and base + ANY in table.inferred:
                table.inferred.setdefault(var, table.inferred[base + ANY])
        elif table.modules.get(base + ANY) == "param":
            table.modules[var] = "param"
    _entries(facts, table)
    _entry_aliases(facts, table)


def _entry_aliases(facts: Facts, table) -> None:
    """`self.models = {"G": G}` (or `self.models["G"] = G`) where an optimizer
    was built from `G.parameters()`: the entry is the same module, so the
    optimizer owns it under both names (and any entry, `self.models[k]`).
    Without it a step method's `self.models["G"](z)` looks unowned and its
    gradients discarded."""
    from .names import Optimizer

    names: dict = {}  # module name -> entry keys naming it
    for base, keyed in facts.keyed.items():
        for key, values in keyed.items():
            for value in values:
                if dotted(value) is not None:
                    names.setdefault(dotted(value), set()).update({f"{base}[{key!r}]", base + ANY})
    if not names:
        return
    for opt_key, opt in list(table.optimizers.items()):
        extra = {e + owned[len(src):] for owned in opt.owns or () for src, entries in names.items()
                 if owned == src or owned.startswith(src + ".") for e in entries}
        if extra - (opt.owns or frozenset()):
            table.optimizers[opt_key] = Optimizer(opt.name, opt.owns | extra, opt.node)


def _entries(facts: Facts, table) -> None:
    """`for critic in self.critics: critic(x)` (or a comprehension): calling
    the variable runs an entry of `self.critics`, so an optimizer of
    `self.critics` steps what it saved. Only for a name that every loop of
    the file binds to the same container of modules and nothing else binds."""
    seen: dict = {}
    for base, var, plain, _ in facts.entry_loops:
        whole = base + ANY if table.modules.get(base + ANY) == "param" else base
        if (plain and base in facts.keys) or table.modules.get(whole) != "param":
            seen[var] = None
        elif seen.setdefault(var, whole) != whole:
            seen[var] = None
    table.entry_of = {var: whole for var, whole in seen.items() if whole and var not in facts.bound}
    called = {c.func.value for c in facts.name_calls}
    for var in table.entry_of:
        if var in called:  # `critic(x)`: a module (an entry of an nn.ModuleList is one too)
            table.modules.setdefault(var, "param")


def _entry_owners(table, base, given, imports) -> None:
    """`opts.append(Adam(nets[i].parameters()))` for every entry: the entries
    of `opts` step entries of `nets`. Which entry steps which is not followed,
    so a step of any entry counts as a step of any entry of `nets` (said in
    the message: the pairing was not checked)."""
    from .names import Optimizer

    owned: set = set()
    for value in given:
        first = value.args[0].value if _is_optimizer(value, imports) and value.args and \
            value.args[0].keyword is None else None
        func = first.func if isinstance(first, cst.Call) else None
        if not (isinstance(func, cst.Attribute) and func.attr.value == "parameters" and not first.args and
                isinstance(func.value, cst.Subscript) and entry_keys(func.value)):
            return
        key = entry_keys(func.value)[-1]
        if table.modules.get(key) != "param":
            return
        owned.add(key)
    if not owned or table.optimizers[base + ANY].owns is not None:
        return
    table.optimizers[base + ANY] = Optimizer(base + ANY, frozenset(owned), None)
    what = ", ".join(f"`{m}`" for m in sorted(owned))
    table.inferred.setdefault(base + ANY, f"the entries of `{base}` step {what} (built from its entries' "
                                          "parameters; which entry steps which is not followed)")


def _keyed_owners(facts: Facts, table, base, imports) -> None:
    """`self.optims = {"G": Adam(G.parameters()), ...}` (or `self.optims["G"] = ...`):
    entry 'G' steps what its one constructor is given; unknown when the key is
    assigned twice, when any other key is, or when the parameters are not followed."""
    from .names import Optimizer, _owned

    if facts.keys.get(base) is None:
        return
    for key, values in sorted(facts.keyed.get(base, {}).items()):
        owned = None
        value = values[0]
        if len(values) == 1 and _is_optimizer(value, imports) and value.args and value.args[0].keyword is None:
            owned = _owned(value.args[0].value, table, {}, imports)
        table.optimizers[f"{base}[{key!r}]"] = Optimizer(f"{base}[{key!r}]", frozenset(owned) if owned else None,
                                                         None)


def _optimizer_comp(table, key, comp, imports) -> None:
    """`opts = [Adam(net.parameters()) for net in self.nets]`: the entries of
    `opts` step entries of `self.nets` (which entry steps which is not
    followed, as for `opts.append(...)` in a loop; said in the message)."""
    from .names import Optimizer

    loop, elt = comp.for_in, comp.elt
    if loop.inner_for_in is not None or comp.for_in.ifs or not isinstance(loop.target, cst.Name) or \
            not _is_optimizer(elt, imports) or not elt.args or elt.args[0].keyword is not None:
        return
    first, base = elt.args[0].value, dotted(loop.iter)
    func = first.func if isinstance(first, cst.Call) else None
    if base is None or key in table.optimizers or key + ANY in table.optimizers or \
            not (isinstance(func, cst.Attribute) and func.attr.value in ("parameters", "named_parameters") and
                 not first.args and isinstance(func.value, cst.Name) and func.value.value == loop.target.value):
        return
    if table.modules.get(base + ANY) == "param":
        owned = base + ANY
    elif table.modules.get(base) == "param":
        owned = base  # an nn.ModuleList: its entries are parts of it
    else:
        return
    table.optimizers[key + ANY] = Optimizer(key + ANY, frozenset({owned}), None)
    table.inferred.setdefault(key + ANY, f"the entries of `{key}` step `{owned}` (built by a comprehension over "
                                         f"`{base}`; which entry steps which is not followed)")


def _optimizer_tuples(facts: Facts, table, imports) -> None:
    """`opts = (optim.Adam(model.parameters()), optim.SGD(model.parameters()))`:
    entry i steps what its constructor is given; a function of this file
    called with `opts` for its parameter `optimizer` gets the same entries,
    mapped to the parameter names the modules are passed as."""
    from .names import Optimizer, _owned

    def owners(value):
        elems = [e.value for e in value.elements] if isinstance(value, (cst.Tuple, cst.List)) else []
        if not elems or any(not _is_optimizer(e, imports) for e in elems):
            return None
        out = []
        for elem in elems:
            first_arg = elem.args[0].value if elem.args and elem.args[0].keyword is None else None
            owned = _owned(first_arg, table, {}, imports) if first_arg is not None else None
            out.append(frozenset(owned) if owned else None)
        return out

    built: dict = {}
    for literal in facts.literals:
        key, owns = dotted(literal.targets[0].target), owners(literal.value)
        if key is None or owns is None:
            continue
        built[key] = owns
        for i, o in enumerate(owns):
            table.optimizers[f"{key}[{i}]"] = Optimizer(f"{key}[{i}]", o, None)
        table.optimizers[key + ANY] = Optimizer(key + ANY, None, None)
    seen: dict = {}
    for call in facts.name_calls:
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
        for param, owns in given.items():
            mapped = tuple(frozenset(back[m] for m in o) if o and all(m in back for m in o) else None
                           for o in owns)
            if seen.get(param, mapped) != mapped:
                mapped = tuple(None for _ in mapped)
            seen[param] = mapped
    for param, mapped in seen.items():
        for i, o in enumerate(mapped):
            table.optimizers[f"{param}[{i}]"] = Optimizer(f"{param}[{i}]", o, None)
            if o:
                what = ", ".join(f"`{m}`" for m in sorted(o))
                table.inferred.setdefault(f"{param}[{i}]", f"`{param}[{i}]` steps {what} (every call of this file "
                                                        "passes optimizers built on them)")
        table.optimizers.setdefault(param + ANY, Optimizer(param + ANY, None, None))


def _is_optimizer(expr, imports) -> bool:
    if not isinstance(expr, cst.Call):
        return False
    qualified = imports.qualify(expr.func) or ""
    return qualified.startswith("torch.optim.") and qualified.count(".") == 2 and qualified.split(".")[-1][:1].isupper()


def _builds_module(value, table, imports) -> bool:
    call = value
    while isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and \
            call.func.attr.value in ("to", "cuda", "cpu", "train"):
        call = call.func.value
    if not isinstance(call, cst.Call):
        return False
    qualified = imports.qualify(call.func) or ""
    last = qualified.split(".")[-1]
    if qualified.startswith("torch.nn.") and qualified.count(".") == 2 and last[:1].isupper() and \
            not last.endswith("Loss"):
        return True
    return dotted(call.func) in table.module_classes


def _add_modules(table, base, keys) -> None:
    if base + ANY in table.modules:
        return
    table.modules[base + ANY] = "param"
    for k in sorted(keys or ()):
        table.modules.setdefault(f"{base}[{k!r}]", "param")


def _owners(facts: Facts, table) -> None:
    """Parameter lists grown in a loop over a dict of models, split by tests
    on the key: which entries each list holds, for every string key."""
    from .names import Optimizer

    grown: dict = {}
    for base, var, loop in facts.key_loops:
        keys = facts.keys.get(base)
        if not keys or base + ANY not in table.modules:
            continue
        for k in sorted(keys):
            for target in _adds(loop.body, base, var, {var: k}):
                if target is None:
                    return
                grown.setdefault(target, set()).add(f"{base}[{k!r}]")
    if not grown:
        return
    for key, optimizer in list(table.optimizers.items()):
        if optimizer.owns is not None or not isinstance(optimizer.node, cst.Call) or not optimizer.node.args:
            continue
        src = dotted(optimizer.node.args[0].value)
        if src in grown:
            table.optimizers[key] = Optimizer(key, frozenset(grown[src]), optimizer.node)
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


def _reads_entry(node, base, var) -> bool:
    return isinstance(node, cst.Subscript) and dotted(node.value) == base and len(node.slice) == 1 and \
        isinstance(node.slice[0].slice, cst.Index) and dotted(node.slice[0].slice.value) == var


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
        verdict = _test(test.expression, env)
        return None if verdict is None else not verdict
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        operator, right = test.comparisons[0].operator, test.comparisons[0].comparator
        left = test.left
        left_str, right_str = _str(left, env), _str(right, env)
        if isinstance(operator, (cst.In, cst.NotIn)):
            if isinstance(right, (cst.Tuple, cst.List, cst.Set)) and left_str is not None:
                items = [_str(e.value, {}) for e in right.elements]
                if None in items:
                    return None
                hit = left_str in items
            elif left_str is not None and right_str is not None:
                hit = left_str in right_str
            else:
                return None
            return hit if isinstance(operator, cst.In) else not hit
        if isinstance(operator, (cst.Equal, cst.NotEqual)) and left_str is not None and right_str is not None:
            return (left_str == right_str) if isinstance(operator, cst.Equal) else (left_str != right_str)
        return None
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) and \
            test.func.attr.value in ("startswith", "endswith") and len(test.args) == 1:
        text, arg = _str(test.func.value, env), _str(test.args[0].value, {})
        if text is None or arg is None:
            return None
        return text.startswith(arg) if test.func.attr.value == "startswith" else text.endswith(arg)
    return None


def _str(expr, env) -> Optional[str]:
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(expr, cst.Name):
        return env.get(expr.value)
    return None


def forward_helper(scope, own) -> bool:
    """`outputs, losses = self.process_batch(inputs)`: `own` (a method of
    this class with no backward or step, `Scope.plain_self_method`) runs
    entries of a container of models on what it is given. Walked at the call
    (like a method that trains), so that its results carry the graph of the
    entries it calls."""
    memo = scope.analysis.table("_runs_entries")
    hit = memo.get(own)
    if hit is None:
        table = scope.names
        hit = memo[own] = any(isinstance(n, cst.Call) and (elem_key(_called(n.func), table) in table.modules
                                                           or _self_module(_called(n.func), table, own))
                              or isinstance(n, cst.Arg) and _reduces_entries(n.value, table)
                              for n in nodes(own))
    return hit


def _called(func):
    """The module a call runs: `self.critic_local` for `self.critic_local.forward(s, a)` too."""
    if isinstance(func, cst.Attribute) and func.attr.value == "forward" and isinstance(func.value, cst.Attribute):
        return func.value
    return func


def _self_module(func, table, own) -> bool:
    """`self.critic(x)` in a loss helper (`def actor_loss(self, s)`): the
    helper runs this object's models, so its result carries their graph."""
    key = dotted(func)
    if key is not None and "." in key and not key.startswith("self.") and table.is_module(key) and \
            table.has_params(key) and _self_alias(own, key.split(".")[0]):
        return True  # `model = self.agent.model` in the helper, then `model.reward_model(feat)`
    return key is not None and key.startswith("self.") and key.count(".") == 1 and table.has_params(key) \
        and table.is_module(key)


def _reduces_entries(expr, table) -> bool:
    """`torch.min(*[critic(s, a) for critic in self.critics])` in a loss helper:
    one value from every entry of this object's container of models
    (`_entries`). Not a list of per-entry results: each entry's graph is its own,
    and which one a caller's loop backwards is not followed."""
    if not isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
        return False
    return any(type(n) is cst.Call and type(n.func) is cst.Name and
               table.entry_of.get(n.func.value, "").startswith("self.") for n in nodes(expr.elt))


def _self_alias(own, name) -> bool:
    """Does `own` bind `name` to an attribute of `self` (`model = self.agent.model`)?"""
    return any(isinstance(n, cst.Assign) and len(n.targets) == 1 and dotted(n.targets[0].target) == name
               and (dotted(n.value) or "").startswith("self.") for n in nodes(own))
