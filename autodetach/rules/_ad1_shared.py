"""Shared pieces of the AD1xx rules: token sets, fix builders, wording."""
from __future__ import annotations

import libcst as cst

from ..findings import UNSAFE
from ..rule import Rule
from ._helpers import parenthesize_if_needed

BACKWARD_TOKENS = (".backward(", "autograd.grad", "autograd import",  # `from torch.autograd import grad`
                   "autograd.backward", "manual_backward", "backward(",
                   "def training_step",  # Lightning backwards what training_step returns
                   "optimizer_idx")  # and what each optimizer's phase returns (analysis.optimizer_phases)

# said once, after every note, by whichever rule or shared note marks a fix unsafe
UNSAFE_NOTE = " (so the fix is unsafe: check it with --verify)"


def detach(expr: cst.BaseExpression) -> cst.BaseExpression:
    # a dict or list has no .detach(): cut what the comprehension stores, element by element
    if isinstance(expr, cst.DictComp):
        return expr.with_changes(value=detach(expr.value))
    if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return expr.with_changes(elt=detach(expr.elt))
    inner = parenthesize_if_needed(expr)
    return cst.Call(func=cst.Attribute(value=inner, attr=cst.Name("detach")))


def with_retain(call: cst.Call, retain_arg) -> cst.Call:
    true = cst.Name("True")
    if retain_arg is not None:
        args = [a.with_changes(value=true) if a is retain_arg else a for a in call.args]
        if retain_arg.keyword is not None and retain_arg.keyword.value == "retain_variables":
            args = [a.with_changes(keyword=cst.Name("retain_graph")) if a.keyword is retain_arg.keyword
                    else a for a in args]
        return call.with_changes(args=args)
    new = cst.Arg(keyword=cst.Name("retain_graph"), value=true,
                  equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                        whitespace_after=cst.SimpleWhitespace("")))
    args = list(call.args)
    if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    elif args:
        # keep a trailing comma style: `f(a, )` -> `f(a, retain_graph=True, )`
        new = new.with_changes(comma=args[-1].comma)
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=args + [new])


def without_arg(call: cst.Call, arg) -> cst.Call:
    args = [a for a in call.args if a is not arg]
    if args:
        last = call.args[-1]
        args[-1] = args[-1].with_changes(comma=last.comma if last is not arg else cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def code(ctx, node) -> str:
    text = ctx.code(node).strip()
    return text if len(text) <= 60 else text[:57] + "..."


def line(ctx, node) -> int:
    return ctx.line_of(node)


def body_child(ctx, node, block_owner):
    """The ancestor of `node` that is a direct child of `block_owner`'s body."""
    body = block_owner.body
    cur = node
    while cur is not None:
        parent = ctx.parent(cur)
        if parent is body:
            return cur
        cur = parent
    return None


def path_note(ctx, conflict, what="the freed graph"):
    """`g_loss` (line 16) <- `fake` (line 9): how the second backward reaches
    the freed graph, as one related note on the first node."""
    parts = []
    for node in conflict.path:
        if node.stmt is None:
            continue
        name = node.name or code(ctx, node.expr) if node.expr is not None else node.name
        if not name:
            continue
        label = f"`{name}` (line {ctx.line_of(node.stmt)})"
        if not parts or parts[-1] != label:
            parts.append(label)
    if len(parts) < 2:
        return []
    anchor = conflict.second.call
    return [(anchor, f"path from this backward to {what}: " + " <- ".join(parts))]


def backward_text(ctx, ev) -> str:
    """How a message names a backward: its call, or the framework's backward
    of what `training_step` returns."""
    text = f"`{code(ctx, ev.call)}`"
    return f"{ev.framework}'s backward of {text}" if getattr(ev, "framework", None) else text


def unseen_note(ctx, src) -> str:
    """The inference behind a `.detach()` of a value out of code not followed
    (`utils.to_scalar(loss)`): it may be a number, whose `.detach()` raises."""
    return f"`{ctx.code(src).strip()}` is a tensor with a graph (it comes through code that was not followed)"


def helper_note(*events) -> str:
    """What was inferred when a backward runs inside a project function
    (`GDPPLoss(..., backward=True)`), known from its summary only."""
    names = sorted({e.helper for e in events if e.helper})
    if not names:
        return ""
    return "inferred: " + ", ".join(f"`{n}`" for n in names) + \
        " runs backward on its arguments (its code, in another file, calls .backward() on a value computed from them)"


class GraphRule(Rule):
    """An AD1xx rule. A finding that rests on roles inferred from usage or
    naming (`analysis.roles`) says so, and its fix becomes unsafe. Only the
    inferences its fix rests on count: a rule whose fix does not depend on
    which parameters an optimizer steps (`owners = False`: a dropped retain,
    judged by the backwards that follow) leaves out what was inferred about
    optimizers."""

    owners = True  # does the fix rest on what each optimizer steps?

    def report(self, node, message, *args, **kw):
        rep = super().report(node, message, *args, **kw)
        analysis = self.ctx.analysis
        inferred = analysis.names.inferred
        if not self.owners and inferred:
            opts = analysis.names.optimizers
            inferred = {k: v for k, v in inferred.items() if k not in opts}
        marks = analysis.caller_loop_stmts
        evals = analysis.eval_stmts
        framework = analysis.framework_stmts
        drivers = analysis.driver_stmts
        if (not inferred and not marks and not evals and not framework and not drivers) or node is None:
            return rep
        around = [node] + [n for n, _ in rep.related if n is not None]
        facts = sorted({framework[id(s)] for s in _statements(self.ctx, around) if id(s) in framework})
        if facts:
            rep.message += " (" + "; ".join(facts) + ")"
        notes = [n for n in (inferred_notes(self.ctx, inferred, around) if inferred else []) if n not in rep.message]
        methods = {marks[id(n)] for n in _statements(self.ctx, around) if id(n) in marks}
        if methods:
            notes.append("the loop is in the caller: " + ", ".join(f"`{m}`" for m in sorted(methods)) +
                         " is taken to run once per iteration of a loop, keeping `self` between calls")
        notes.extend(sorted({evals[id(s)] for s in _statements(self.ctx, around) if id(s) in evals}))
        notes.extend(sorted({drivers[id(s)] for s in _statements(self.ctx, around) if id(s) in drivers}))
        if notes:
            # the rule may have said the fix is unsafe already: say it once, after every note
            rep.message = rep.message.replace(UNSAFE_NOTE, "")
            rep.message += ("; " if "; inferred: " in rep.message else "; inferred: ") + "; ".join(notes)
            if rep.edits:
                rep.fix = UNSAFE
                rep.message += UNSAFE_NOTE
        return rep


def _statements(ctx, nodes) -> list:
    """The nodes and the nodes holding them, up to their statements."""
    out = []
    for node in nodes:
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
            out.append(node)
            if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                break
            node = ctx.parent(node)
    return out


def inferred_notes(ctx, inferred: dict, nodes) -> list:
    """The inferences about names used in the functions holding `nodes`."""
    from ..analysis.model_containers import entry_keys
    from ..analysis.walk import walk
    from ..imports import dotted

    fns = []
    module_level = False
    for node in nodes:
        cur, top = node, node
        while cur is not None and not isinstance(cur, cst.FunctionDef):
            top, cur = cur, ctx.parent(cur)
            if isinstance(cur, cst.Module):
                cur = top  # module-level code: the top-level statement holding it
                break
        if cur is not None and cur not in fns:
            fns.append(cur)
        module_level = module_level or cur is None
    used: set = set()

    def enter(part):
        if isinstance(part, (cst.Name, cst.Attribute)):
            key = dotted(part)
            if key is not None and key in inferred:
                used.add(key)
        elif isinstance(part, cst.Subscript):
            used.update(k for k in entry_keys(part) if k in inferred)  # `optimizer[0]`, `self.models["D"]`
        return None

    for fn in fns:
        walk(fn, enter)
    if module_level:  # a finding in the script's body: the names used there
        walk(ctx.module, enter, skip=(cst.FunctionDef, cst.ClassDef))
    return [inferred[k] for k in sorted(used)]
