"""AD214: the unsafe fix for a legacy Function that keeps state set in `__init__`.

`Scale(k)(x)` with `__init__(self, k): self.k = k` becomes `Scale.apply(x, k)`:
the `__init__` parameters become trailing `forward` parameters, their
assignments move to the top of `forward` (on `ctx`), and `backward` returns
one `None` gradient per added parameter. Anything outside that shape gives a
reason instead of edits.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..rule import Edit

Plan = tuple  # (edits, None) or (None, why)


def _names(node: cst.CSTNode) -> set:
    found = set()

    class V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.add(n.value)

    node.visit(V())
    return found


def _plain_params(fn: cst.FunctionDef, defaults_ok: bool) -> Optional[list]:
    """Parameter nodes after `self`, or None if any is not a plain one."""
    p = fn.params
    if p.posonly_params or p.kwonly_params or p.star_arg is not cst.MaybeSentinel.DEFAULT \
            or p.star_kwarg is not None or not p.params:
        return None
    rest = list(p.params[1:])
    if any(a.annotation is not None or (a.default is not None and not defaults_ok) for a in rest):
        return None
    return rest


def _is_super_init(stmt) -> bool:
    """`super().__init__()`, `super(C, self).__init__()`, `Function.__init__(self)`."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, cst.Call)):
        return False
    func = stmt.body[0].value.func
    return isinstance(func, cst.Attribute) and func.attr.value == "__init__"


def _init_state(init: cst.FunctionDef, is_doc):
    """([(attr, value expr, statement)], params) of `self.attr = value` lines, or a reason."""
    params = _plain_params(init, defaults_ok=True)
    if params is None:
        return None, "`__init__` has an unusual signature"
    state = []
    for stmt in init.body.body:
        if is_doc(stmt) or _is_super_init(stmt):
            continue
        ok = (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
              and isinstance(stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1)
        tgt = stmt.body[0].targets[0].target if ok else None
        if not (ok and isinstance(tgt, cst.Attribute) and isinstance(tgt.value, cst.Name)
                and tgt.value.value == "self" and "self" not in _names(stmt.body[0].value)):
            return None, "`__init__` does more than store its arguments on `self`"
        state.append((tgt.attr.value, stmt.body[0].value, stmt))
    return (state, params), None


def _returns(fn: cst.FunctionDef) -> list:
    """`return` statements of fn itself (not of nested functions or lambdas)."""
    out = []

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, n) -> bool:
            return n is fn

        def visit_ClassDef(self, n) -> bool:
            return False

        def visit_Return(self, n: cst.Return) -> None:
            out.append(n)

    fn.visit(V())
    return out


def _with_nones(ret: cst.Return, extra: int, n_inputs: int) -> Optional[cst.Return]:
    nones = [cst.Element(cst.Name("None")) for _ in range(extra)]
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    val = ret.value
    if isinstance(val, cst.Tuple) and val.elements:
        els = list(val.elements)
        els[-1] = els[-1].with_changes(comma=comma)
        new = els + [e.with_changes(comma=comma) for e in nones[:-1]] + [nones[-1]]
        return ret.with_changes(value=val.with_changes(elements=new))
    if val is None or n_inputs != 1:
        return None  # a name may hold a tuple of several gradients: unknown
    first = cst.Element(val, comma=comma)
    rest = [e.with_changes(comma=comma) for e in nones[:-1]] + [nones[-1]]
    return ret.with_changes(value=cst.Tuple([first] + rest, lpar=[], rpar=[]))


def plan(ctx, cls: cst.ClassDef, methods: dict, to_static, is_doc) -> Plan:
    """Edits for the whole rewrite (methods and call sites), or (None, why)."""
    name = cls.name.value
    got, why = _init_state(methods["__init__"], is_doc)
    if why:
        return None, why
    state, init_params = got
    fwd, bwd = methods["forward"], methods.get("backward")
    inputs = _plain_params(fwd, defaults_ok=False)
    if inputs is None or bwd is None:
        return None, "`forward` has an unusual signature, or there is no `backward`"
    added = [p.name.value for p in init_params]
    taken = {p.name.value for p in inputs} | _names(fwd.body)
    used_in_values = set().union(*(_names(v) for _, v, _ in state)) if state else set()
    if set(added) & ({p.name.value for p in inputs} | (_names(fwd.body) - used_in_values)) \
            or (used_in_values - set(added)) & taken:
        return None, "an `__init__` argument's name is also used in `forward`"
    calls = _calls(ctx, name, init_params, len(inputs), methods["__init__"])
    if isinstance(calls, str):
        return None, calls
    # forward(ctx, inputs..., added...), with ctx.attr = value first.
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    new_params = [p.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT) for p in init_params]
    all_params = list(fwd.params.params) + new_params
    all_params = [p.with_changes(comma=comma) for p in all_params[:-1]] + \
                 [all_params[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    body = list(fwd.body.body)
    at = 1 if body and is_doc(body[0]) else 0
    # Each keeps its comments (the line's own and those above it).
    sets = [cst.parse_statement(f"self.{attr} = {ctx.code(value)}\n").with_changes(
        leading_lines=stmt.leading_lines, trailing_whitespace=stmt.trailing_whitespace)
        for attr, value, stmt in state]
    body_stmts = list(cls.body.body)
    i = body_stmts.index(methods["__init__"])
    lead = {}
    if i + 1 < len(body_stmts) and body_stmts[i + 1] is fwd:
        # the class's layout, and the comment lines above `forward`
        lead = {"leading_lines": list(methods["__init__"].leading_lines) +
                [ln for ln in fwd.leading_lines if ln.comment is not None]}
    new_fwd = fwd.with_changes(**lead, params=fwd.params.with_changes(params=all_params),
                               body=fwd.body.with_changes(body=body[:at] + sets + body[at:]))
    # backward: one None per added argument.
    repl = {}
    for ret in _returns(bwd):
        new = _with_nones(ret, len(added), len(inputs))
        if new is None:
            return None, "`backward` returns something other than a tuple of gradients"
        repl[ret] = new

    class Swap(cst.CSTTransformer):
        def leave_Return(self, original, updated):
            return repl.get(original, updated)

    new_bwd = bwd.visit(Swap())
    edits = [Edit(methods["__init__"], cst.RemovalSentinel.REMOVE), Edit(fwd, to_static(new_fwd)),
             Edit(bwd, to_static(new_bwd))]
    for outer, args in calls:
        edits.append(Edit(outer, cst.Call(
            func=cst.Attribute(value=cst.Name(name), attr=cst.Name("apply")),
            args=[a.with_changes(comma=comma) for a in args[:-1]] +
                 [args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)],
            whitespace_before_args=outer.whitespace_before_args)))
    return edits, None


def _calls(ctx, name: str, init_params: list, n_inputs: int, init: cst.FunctionDef):
    """[(outer call, apply args)] for every `Name(init args)(inputs)`, or a reason."""
    out, bad = [], []

    class Find(cst.CSTVisitor):
        def visit_FunctionDef(self, node) -> bool:
            return node is not init  # `super(Name, self)` goes with `__init__`

        def visit_Name(self, node: cst.Name) -> None:
            if node.value != name:
                return
            parent = ctx.parent(node)
            if isinstance(parent, cst.ClassDef) and parent.name is node:
                return
            outer = ctx.parent(parent) if isinstance(parent, cst.Call) else None
            if not (isinstance(parent, cst.Call) and parent.func is node
                    and isinstance(outer, cst.Call) and outer.func is parent):
                bad.append(f"`{name}` is used other than as `{name}(...)(...)` (line {ctx.line_of(node)})")
                return
            inputs = list(outer.args)
            if len(inputs) != n_inputs or any(a.keyword is not None or a.star for a in inputs):
                bad.append(f"a call passes other arguments than `forward` takes (line {ctx.line_of(node)})")
                return
            extra = _bind(ctx, parent, init_params)
            if extra is None:
                bad.append(f"the `__init__` arguments at line {ctx.line_of(node)} cannot be matched")
                return
            out.append((outer, inputs + extra))

    ctx.module.visit(Find())
    return bad[0] if bad else out


def _bind(ctx, call: cst.Call, params: list) -> Optional[list]:
    """The constructor call's arguments in `__init__`'s order (defaults filled in)."""
    if any(a.star for a in call.args):
        return None
    pos = [a for a in call.args if a.keyword is None]
    kws = {a.keyword.value: a for a in call.args if a.keyword is not None}
    if len(pos) > len(params) or set(kws) - {p.name.value for p in params}:
        return None
    out = []
    for i, p in enumerate(params):
        a = pos[i] if i < len(pos) else kws.get(p.name.value)
        if a is not None:
            out.append(cst.Arg(value=a.value))
        elif p.default is not None and isinstance(p.default, (cst.Integer, cst.Float, cst.Name, cst.SimpleString)) \
                and (not isinstance(p.default, cst.Name) or p.default.value in ("None", "True", "False")):
            out.append(cst.Arg(value=p.default))  # a literal default: same value at the call
        else:
            return None
    return out
