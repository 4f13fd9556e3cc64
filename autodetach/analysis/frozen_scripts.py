"""Values a script computes once, before its loop, from a network it has frozen.

    model_vgg = models.vgg19(pretrained=True).features.eval()
    for param in model_vgg.parameters():
        param.requires_grad_(False)
    content_features = get_features(con_tensor, model_vgg, layers)   # no graph: nothing requires grad
    for epoch in range(n):
        input_features = get_features(input_tensor, model_vgg, layers)
        loss = content_loss(input_features, content_features) + ...
        loss.backward(retain_graph=True)                            # the next epoch walks nothing of this one

The walk gives `content_features` the graph of a module call, built before
the loop, so each epoch's backward looks as if it shared it with the next
one. When the script switches every parameter of that network off before
the call (a `for p in net.parameters()` loop setting `requires_grad` to
False, or `net.requires_grad_(False)`) and never on again, and the call's
inputs carry no graph the walk sees, the value has no graph at all. Read
from the module's top-level statements only (a script, a notebook's cells in
order); that the call computes nothing else with gradients is inferred (the
note says so)."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes


def frozen_before(analysis, node) -> Optional[str]:
    """A note when `node`, built outside any loop by a call of the script's top level, reads
    as modules only networks the script froze before it; None otherwise."""
    ctx = analysis.ctx
    if node.iteration or node.parents or not node.modules or node.stmt is None or node.expr is None:
        return None
    if ctx.parent(node.stmt) is not ctx.module:
        return None  # a script's statement, not a function's
    call = node.expr
    if type(call) is not cst.Call:
        return None
    nets = _networks(ctx, call, node.modules)
    if not nets:
        return None
    line = ctx.line_of(node.stmt)
    frozen = _frozen(ctx)
    for net in nets:
        at = frozen.get(net)
        if at is None or at >= line:
            return None
    listed = ", ".join(f"`{n}` (line {frozen[n]})" for n in sorted(set(nets)))
    return (f"`{node.name or ctx.snippet(call)}` is computed before the loop from {listed}, whose parameters "
            f"the script switches off first: taken to carry no graph")


def _networks(ctx, call, modules) -> Optional[list]:
    """The script's networks behind each module the walk saw the call run: the called name
    itself (`net(x)`), or, for a function of this file (`get_features(x, model_vgg, layers)`), the
    argument its parameter takes (`model` -> `model_vgg`). None when one is not found."""
    func = call.func.value if type(call.func) is cst.Name else None
    fn = next((s for s in ctx.module.body if type(s) is cst.FunctionDef and s.name.value == func), None)
    order = [p.name.value for p in fn.params.params] if fn is not None else []
    out = []
    for m in modules:
        if m == func:
            out.append(m)
            continue
        if m not in order or any(a.star for a in call.args):
            return None
        pos = order.index(m)
        arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == m), None)
        if arg is None:
            plain = [a for a in call.args if a.keyword is None]
            arg = plain[pos] if pos < len(plain) else None
        net = dotted(arg.value) if arg is not None else None
        if net is None:
            return None
        out.append(net)
    return out


def _frozen(ctx) -> dict:
    """{network: the line of the statement switching all its parameters off} for the module's
    top-level freezes, leaving out networks whose gradients anything in the file switches on
    again or hands to an optimizer."""
    memo = getattr(ctx, "_frozen_scripts", None)
    if memo is not None:
        return memo
    out: dict = {}
    for stmt in ctx.module.body:
        net = _freeze(stmt)
        if net and net not in out:
            out[net] = ctx.line_of(stmt)
    for x in nodes(ctx.module):
        if not out:
            break
        if type(x) is cst.Call:
            func = dotted(x.func) or ""
            if func.endswith(".requires_grad_") and not _false_arg(x):
                out.pop(func[:-len(".requires_grad_")], None)
            if func.endswith(".parameters") and _handed_to_optimizer(ctx, x):
                out.pop(func[:-len(".parameters")], None)
        elif type(x) is cst.Assign and any(dotted(t.target) and dotted(t.target).endswith(".requires_grad")
                                           for t in x.targets) and dotted(x.value) != "False":
            out = {}  # `p.requires_grad = flag` somewhere: not followed
    try:
        ctx._frozen_scripts = out
    except AttributeError:  # pragma: no cover - a context without a dict
        pass
    return out


def _freeze(stmt) -> Optional[str]:
    """The network a top-level statement freezes: `for p in net.parameters(): p.requires_grad_(False)`
    (or `p.requires_grad = False`), `net.requires_grad_(False)`."""
    if type(stmt) is cst.For:
        it = stmt.iter
        if type(stmt.target) is not cst.Name or type(it) is not cst.Call or it.args or \
                not isinstance(it.func, cst.Attribute) or it.func.attr.value != "parameters":
            return None
        net = dotted(it.func.value)
        p = stmt.target.value
        body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else []
        for line in body:
            for small in getattr(line, "body", ()):
                if type(small) is cst.Expr and type(small.value) is cst.Call and \
                        dotted(small.value.func) == f"{p}.requires_grad_" and _false_arg(small.value):
                    return net
                if type(small) is cst.Assign and len(small.targets) == 1 and \
                        dotted(small.targets[0].target) == f"{p}.requires_grad" and dotted(small.value) == "False":
                    return net
        return None
    for small in getattr(stmt, "body", ()) if type(stmt) is cst.SimpleStatementLine else ():
        if type(small) is cst.Expr and type(small.value) is cst.Call:
            func = dotted(small.value.func) or ""
            if func.endswith(".requires_grad_") and _false_arg(small.value):
                return func[:-len(".requires_grad_")]
    return None


def _false_arg(call) -> bool:
    return len(call.args) == 1 and dotted(call.args[0].value) == "False"


def _handed_to_optimizer(ctx, call) -> bool:
    """`Adam(net.parameters())`: the network is trained after all."""
    up = ctx.parent(call)
    while up is not None and type(up) in (cst.Arg, cst.List, cst.Tuple, cst.Element, cst.StarredElement,
                                          cst.Call) and not (type(up) is cst.Call and up is not call):
        up = ctx.parent(up)
    if type(up) is not cst.Call:
        return False
    qual = ctx.imports.qualify(up.func) or dotted(up.func) or ""
    return "optim" in qual
