"""Does `obj.meth(x)` of a class of another project file hand `x`'s graph on
to what it returns?

`action, logp, entropy = agent.get_action(state, option)` where `get_action`
lives in another file: the flow takes the call to hang its result from its
arguments, but a method may cut one (`state.data @ W`), so a link through it
is not shown by this file. The project's summaries say, per parameter, whether
the result hangs from it (`Summary.arg_flow`) and, per element of a returned
tuple, whether it can carry a graph at all (`Summary.elems`). Every class that
may run the method must agree (analysis.quiet_methods.project_methods). A
method whose body cuts nothing is taken to pass each argument on: an inference,
worded by `note`."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import nodes


def hands_on(analysis, call: cst.Call, name: str, child) -> Optional[bool]:
    """For `base.meth(...)` in the statement of graph node `child`: True when
    the element of the result that `child` binds hangs from every argument
    that reads `name`, in every project class that may run `meth`; False when
    one cuts it; None when not known (a keyword or starred argument reads it,
    no class is found, a method steps or backwards)."""
    from .quiet_methods import project_methods

    if type(call.func) is not cst.Attribute:
        return None
    found = project_methods(analysis, dotted(call.func.value), call.func.attr.value)
    if not found or any(s.events for s in found):
        return None
    at = [i for i, arg in enumerate(call.args) if _reads(arg.value, name)]
    if not at or any(call.args[i].keyword is not None or call.args[i].star for i in at):
        return None
    elem = _element(child)
    for s in found:
        if s.arg_flow is None or any(i >= len(s.arg_flow) for i in at):
            return None
        if any(s.arg_flow[i] in ("cut", "const") for i in at):
            return False
        if any(s.arg_flow[i] != "graph" for i in at):
            return None
        if elem is not None and s.arity and len(s.elems) == s.arity and elem < s.arity \
                and s.elems[elem] in ("cut", "const"):
            return False
    return True


def note(call: cst.Call, name: str) -> str:
    code = cst.Module([]).code_for_node(call.func)
    return (f"`{code}()` (read from another file) is taken to hand `{name}`'s graph on to what it returns "
            "(its code there does not cut that argument)")


def _reads(expr, name: str) -> bool:
    return any(type(n) is cst.Name and n.value == name for n in nodes(expr))


def _element(child) -> Optional[int]:
    """The index `child` takes in `a, b, c = obj.meth(...)`, or None."""
    stmt = child.stmt
    body = getattr(stmt, "body", None)
    if not isinstance(body, (list, tuple)) or len(body) != 1 or type(body[0]) is not cst.Assign:
        return None
    targets = body[0].targets
    if len(targets) != 1 or type(targets[0].target) not in (cst.Tuple, cst.List):
        return None
    for i, el in enumerate(targets[0].target.elements):
        if type(el.value) is cst.Name and el.value.value == child.name:
            return i
    return None
