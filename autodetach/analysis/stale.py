"""Graphs backwarded after an optimizer step changed the parameters they saved.

`step()` updates parameters in place; a graph built before it saved the old
values, so a backward through it after the step fails on torch >= 1.5
("modified by an inplace operation"). Found per scope from the events: a
step between the building of a graph and its backward, in the same pass of
the loops, or a step in one pass and a backward in the next through a graph
built before the loop."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from ..imports import dotted
from .arms import reaches
from .handed_on import hands_on, note as handed_note
from .graph import closure
from .walk import nodes


@dataclass
class StaleGraph:
    scope: object
    backward: object  # the backward event
    step: object  # the step event before it
    stale: list  # graph nodes built before the step, from parameters it updates
    part: Optional[str]  # inferred: the part of the called model the step updates (`net.encoder`)
    note: Optional[str] = None  # inferred: the order of two phase methods (analysis.phases)
    # inferred: the step's optimizer has no known parameters and is taken to step what this
    # backward (cleared before, stepped after) ran through (analysis.step_owners)
    applied: Optional[object] = None

    @property
    def built(self):
        """The first stale node: where the graph at risk was built."""
        return min(self.stale, key=lambda n: n.seq)


def stale_graphs(analysis) -> list:
    """One StaleGraph per backward call, the first step that makes it stale."""
    from .phases import phase_pairs
    from .step_owners import stepped_by_idiom

    out = []
    done = set()
    for scope in analysis.scopes + phase_pairs(analysis):
        steps = [e for e in scope.events if e.kind in ("step", "reload")]
        for backward in scope.events:
            if backward.kind not in ("backward", "grad") or backward.call in done:
                continue
            for step in steps:
                if step.seq > backward.seq or (step.exits and step.branch != backward.branch[:len(step.branch)]):
                    continue
                if backward.tag[:len(step.tag)] == step.tag and _other_arm(step.branch, backward.branch):
                    continue  # `if ...: step` and `else: backward` never run in one pass (nor its inner loops)
                fits = (_this_pass(backward.tag) if step.tag == backward.tag
                        else _after_inner_loop(step, backward) or _before_inner_loop(step, backward)
                        or _before_loop(scope, step, backward))
                if fits is None:
                    continue
                stale = [n for n in backward.reach if not n.leaf and n.seq < step.seq and fits(n)
                         and any((stepped := _steps(analysis, step, m))
                                 and _may_save(analysis, n, m, stepped, scope)
                                 and not _left_alone(analysis, scope, step, m)
                                 for m in n.modules)
                         and reaches(analysis, backward, n)]
                idiom = None
                if not stale and backward.tag[:len(step.tag)] == step.tag and step.kind == "step":
                    # the optimizer's parameters are unknown: the backward it applies tells
                    for n in sorted(backward.reach, key=lambda x: x.seq):
                        if not n.leaf and n.seq < step.seq and fits(n) and n.modules \
                                and all(_may_save(analysis, n, m, True, scope) for m in n.modules) \
                                and reaches(analysis, backward, n):
                            idiom = stepped_by_idiom(analysis, scope, step, n, backward)
                            if idiom is not None:
                                stale = [n]
                                break
                if not stale:
                    continue
                done.add(backward.call)
                earliest = min(stale, key=lambda x: x.seq)
                part = next((p for m in sorted(earliest.modules) for p in [_steps(analysis, step, m)]
                             if isinstance(p, str)), None)
                helpers = [step.helper] if step.helper else []  # a step run by a helper of another file
                paired = id(step) in analysis.table("multi_step_events")  # analysis.multi_steps
                note = "; ".join(filter(None, [scope.phase_note, scope.driver_note] + [
                    f"`{h}` (read from another file) is taken to backward each loss of the list it is handed "
                    "and step the optimizer paired with it, in turn" if paired else
                    _own_step_note(analysis, h, step.opt) if id(step) in analysis.table("own_step_events") else
                    f"`{h}` (read from another file) is taken to backward the loss and step the optimizer "
                    "it is handed" for h in helpers] + analysis.table("handed_on").get(backward.call, [])
                    + [analysis.table("foreign_backwards").get(backward.call)]  # flow.Scope._foreign_backward
                    + [analysis.table("wrapper_steps").get(id(step))]  # analysis.optimizer_wrappers
                    + sorted({analysis.table("helper_stale_nodes")[n] for n in stale
                              if n in analysis.table("helper_stale_nodes")}))) or None
                out.append(StaleGraph(scope, backward, step, stale, part, note, applied=idiom))
                break
    return out


def _own_step_note(analysis, helper, opt) -> str:
    """A base class's method of another file that steps `self.X` (Summary.self_steps)."""
    note = (f"`{helper}` (read from another file) is taken to backward the loss it builds from its arguments "
            f"and to step `{opt}`, as its code does")
    owners = analysis.names.inferred.get(opt)
    return f"{note}; {owners}" if owners else note


def _this_pass(tag):
    """Nodes built in the backward's pass of its loops, inner loops included
    (`for chunk in chunks: feats.append(net(chunk))` before the step)."""
    return lambda n: n.iteration[:len(tag)] == tag


def _after_inner_loop(step, backward):
    """A step in a loop the backward comes after (`for _ in range(n_critic):
    train_d()`, then `loss_g.backward()`): every graph of the backward's pass
    built before the step's last run is at risk. Returns a test, or None."""
    if len(step.tag) <= len(backward.tag) or step.tag[:len(backward.tag)] != backward.tag:
        return None
    return lambda n: n.iteration[:len(backward.tag)] == backward.tag or backward.tag[:len(n.iteration)] == n.iteration


def _before_inner_loop(step, backward):
    """A step before a loop the backward is in (`loss_a.backward(); opt.step()`, then
    `for out in outs: crit(out).backward()`): the graphs of the step's pass built
    before it are at risk. Returns a test, or None."""
    if len(step.tag) >= len(backward.tag) or backward.tag[:len(step.tag)] != step.tag:
        return None
    return lambda n: n.iteration[:len(step.tag)] == step.tag


def _before_loop(scope, step, backward):
    """A step in one pass of a loop and a backward in the next: the graph at
    risk is the one built before the loop (the later pass did not rebuild
    it). Returns a test for such nodes, or None. None too when an earlier
    pass's backward freed a graph built before the loop that this backward
    walks: that is Problem.BUILT_BEFORE_LOOP, not this problem. A graph the
    loop rebuilds (`state = net(obs)` each pass) is carried from the stepping
    pass instead, and is at risk."""
    for i, (step_tag, backward_tag) in enumerate(zip(step.tag, backward.tag)):
        if step_tag == backward_tag:
            continue
        if step_tag[0] != backward_tag[0] or (step_tag[1], backward_tag[1]) != (1, 2):
            return None
        outside, loop = backward.tag[:i], step_tag[0]

        def fits(node):
            return node.iteration[:i] == outside and (len(node.iteration) <= i or node.iteration[i][0] != loop)

        freed = {n for e in scope.events if e.kind in ("backward", "grad") and e.retain is False
                 and len(e.tag) > i and e.tag[i] == step_tag
                 and not (e.tag == step.tag and _other_arm(e.branch, step.branch)) for n in e.reach if not n.leaf}
        # `x = candidates[i]` in `for i in range(n)`: each pass reads its own element, so an
        # earlier pass freed another element's graph, not the one this backward walks
        direct = _not_through_elements(backward, i)
        if any(fits(n) and n in direct for n in freed):
            return None
        # A value the stepping pass built and the next pass reads (a retained graph):
        # not state or a sum carried on purpose (AD106, AD101 say what is wrong there).
        carried = {n for n in backward.reach if n.iteration[:i + 1] == step.tag[:i + 1] and n not in freed}
        if any(fits(n) for n in freed):
            # the loop rebuilds what an earlier pass freed: a carried value is at risk only through links
            # this file shows (not `agent.get_action(state)` of a class of another file, which may cut it)
            carried = {n for n in carried if _seen_link(scope, backward, n)}
        if any(n.kind in ("state", "accum", "container") for n in carried) or _accumulates(backward, carried):
            return fits
        return lambda n: fits(n) or n in carried
    return None


def _seen_link(scope, backward, target) -> bool:
    """Does the backward reach `target` along a path whose values are not
    computed by a method of a module whose code this file does not hold?"""
    names = scope.analysis.names
    prev: dict = {}
    stack = [h for h in (backward.target.heads if backward.target is not None else ())]
    seen = set(stack)
    while stack:
        n = stack.pop()
        if n is target:
            break
        for p in n.parents:
            if p not in seen:
                seen.add(p)
                prev[p] = n
                stack.append(p)
    else:
        return False
    parent, node = target, prev.get(target)
    notes = []
    while node is not None:
        for call in (x for x in nodes(node.expr) if type(x) is cst.Call) if node.expr is not None else ():
            base = dotted(call.func.value) if type(call.func) is cst.Attribute else None
            if base and names.is_module(base) and base != "self" and names.method(base, call.func.attr.value) is None \
                    and call.func.attr.value not in ("forward", "__call__"):
                # a method of another file's class: its summary may show it hands the value on
                if not (parent.name and hands_on(scope.analysis, call, parent.name, node)):
                    return False
                notes.append(handed_note(call, parent.name))
        parent, node = node, prev.get(node)
    if notes:
        kept = scope.analysis.table("handed_on").setdefault(backward.call, [])
        kept.extend(x for x in notes if x not in kept)
    return True


def _not_through_elements(backward, i) -> set:
    """What `backward` reaches without passing through a read of one element
    of a container built before the loop at depth `i`: `c[k]` with `k` the
    loop's variable, or the loop's own `for x in c`."""
    loop = backward.loops[i] if len(backward.loops) > i else None
    if not isinstance(loop, cst.For):
        return set(backward.reach)
    targets = {n.value for n in nodes(loop.target) if type(n) is cst.Name}
    here = backward.tag[:i + 1]

    def element(n) -> bool:
        if n.iteration[:i + 1] != here or not n.parents or any(p.kind != "container" for p in n.parents):
            return False
        e = n.expr
        if e is loop.iter:
            return True
        return type(e) is cst.Subscript and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Index) \
            and type(e.slice[0].slice.value) is cst.Name and e.slice[0].slice.value.value in targets

    seen, stack = set(), list(backward.target.heads if backward.target is not None else ())
    while stack:
        n = stack.pop()
        if n in seen or element(n):
            continue
        seen.add(n)
        stack.extend(n.parents)
    return seen


def _accumulates(backward, carried) -> bool:
    """`total = total + loss`: a name of this pass hangs from its value of the
    last pass (a sum kept across iterations, AD101/AD102's finding)."""
    names = {n.name for n in carried if n.name}
    for node in backward.reach:
        if node.iteration == backward.tag and node.name in names and \
                any(p in carried and p.name == node.name for p in closure(node.parents)):
            return True
    return False


def _other_arm(x: tuple, y: tuple) -> bool:
    """Are two branch paths in different arms of one `if`?"""
    return any(left[0] == right[0] and left[1] != right[1] for left, right in zip(x, y))


def _may_save(analysis, node, module, part, scope=None) -> bool:
    """Can `node` hold the weights of `module` (or of its stepped `part`)?
    Not when the layer provably saves none: `nn.Linear` on raw data saves
    only its input, so a step changes nothing the backward reads; nor when
    the module's `forward`, read in this file, never runs that part
    (`self(batch)` of a policy whose forward runs only `self.actor`)."""
    from .saved import forward_runs, method_runs, part_saves, saves_weights

    if isinstance(part, str):
        cls = (scope.self_class or scope.method_class or analysis.class_of_stmt(node.stmt)
               if scope is not None else None) if module == "self" else analysis.names.instances.get(module)
        path = part[len(module) + 1:].split(".")
        attr = path[1] if path[0] == "module" and len(path) > 1 else path[0]  # DDP(model).module.generator
        if cls and attr and forward_runs(analysis, cls, attr) is False:
            return False
        if attr and node.expr is not None:
            # `self.net.embed(x)` whose class's `embed` runs only `self.encoder`: every call of the
            # module in the node's expression is a method that never touches the stepped part
            calls = [n for n in nodes(node.expr) if isinstance(n, cst.Call) and dotted(n.func) and
                     (dotted(n.func) == module or dotted(n.func).rsplit(".", 1)[0] == module)]
            if calls and all(isinstance(call.func, cst.Attribute) and dotted(call.func.value) == module and
                             method_runs(analysis, module, call.func.attr.value, attr) is False for call in calls) and \
                    not any(dotted(n.value) == module for n in nodes(node.expr) if isinstance(n, cst.Arg)):
                return False
        return part_saves(analysis, node, module, part) is not False
    return saves_weights(analysis, node, module) is not False


def _left_alone(analysis, scope, step, module) -> bool:
    """Does the step leave `module` as it is? Since torch 2.0 `zero_grad()` sets the
    gradients to None, and torch.optim's optimizers skip a parameter without one: after
    `opt.zero_grad()` in the step's pass, a step whose backwards since then never reached
    `module` does not touch it (one optimizer over G and D, the D step on `fake.detach()`)."""
    if step.kind != "step":
        return False
    optimizer = analysis.names.optimizers.get(step.opt)
    built = optimizer.node if optimizer is not None else None
    if not isinstance(built, cst.Call) or not optimizer.owns or \
            not (analysis.ctx.imports.qualify(built.func) or "").startswith("torch.optim."):
        return False  # another optimizer may update a parameter without a gradient
    clears = [e for e in scope.events if e.kind == "zero" and e.seq < step.seq and e.tag == step.tag
              and step.branch[:len(e.branch)] == e.branch and _clears(e, step.opt, module)]
    if not clears:
        return False
    zero = max(clears, key=lambda e: e.seq)
    if any(arg.keyword is None or arg.keyword.value != "set_to_none" or dotted(arg.value) != "True"
           for arg in zero.call.args):
        return False  # `zero_grad(set_to_none=False)` keeps zeros, which a step applies in place
    for e in scope.events:
        if not zero.seq < e.seq < step.seq:
            continue
        if e.kind == "unknown_step" or e.kind in ("backward", "grad") and (
                e.helper or e.framework or not e.reach or e.target is None or e.target.uncertain or
                e.target.unknown or any(_touches(n, module, optimizer.owns) for n in e.reach)):
            return False  # what the backward ran through is not known
    return True


def _clears(zero, opt, module) -> bool:
    """Does the `zero_grad()` event clear the gradients of `module`?"""
    if zero.opt is not None:
        return zero.opt == opt
    from .decide import covers

    return bool(zero.modules) and covers(zero.modules, module)


def _touches(node, module, owns) -> bool:
    """Can a backward through `node` put a gradient into `module`? Also when it runs a
    module that none of the optimizer's is known to be (a helper's `model`, which may be it)."""
    return node.uncertain or any(_related(m, module) or not any(_related(m, o) for o in owns)
                                 for m in node.modules)


def _related(a, b) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _steps(analysis, step, module):
    """Does the step's optimizer step parameters that `module` uses? True, or
    the part of `module` it steps (`net.encoder` of `net`: calling a model is
    assumed to run its parts), or None. A reload (`net.load_state_dict(...)`)
    overwrites its module's parameters. A helper's parameter stands for the
    module its callers hand it (analysis.reloads.callers_module)."""
    from .reloads import callers_module, reloads

    if step.kind == "reload":
        return True if reloads(analysis, step, module) else None
    opt = step.opt
    if analysis.owner_uses(opt, module) is True:
        return True
    owns = analysis.table("helper_owns").get(id(step))
    if owns and any(module == m or module.startswith(m + ".") for m in owns):
        return True  # read from the helper that steps it (flow.Scope._stale_returns)
    if any(analysis.owner_uses(opt, m) is True for m in callers_module(analysis, module)):
        return True
    optimizer = analysis.names.optimizers.get(opt)
    parts = sorted(m for m in (optimizer.owns or ()) if m.startswith(module + ".")) if optimizer else []
    return parts[0] if parts else None

