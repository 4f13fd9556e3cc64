"""Is `net.attr` read only where a number goes: an index, a slice bound, a size, a test?

    def convert_to_windows(data, model):
        w_size = model.n_window                 # `self.n_window = feats` in the model's __init__
        for i, g in enumerate(data):
            w = data[i - w_size:i] if i >= w_size else torch.cat([data[0].repeat(w_size - i, 1), data[0:i]])

Whatever `model.n_window` holds, what the function builds from it hangs from no
graph of the model: an index or a slice bound picks entries of `data` (the
gradient flows to `data` alone), a size (`x.repeat(n, 1)`, `x.view(n, -1)`,
`torch.zeros(n)`, `range(n)`) shapes a tensor, and a comparison gives a bool.
So naming the model there runs none of its parameters, whatever stores the
attribute (a literal, or a constructor's argument: `plain_attributes` asks the
first). The read counts when the attribute itself sits in such a place, or when
it is the whole value of the only binding of a local name that the function reads
nowhere else (arithmetic on the way, `i - w_size`, changes nothing). A property
(or method) of that name anywhere in the project's files that name it, or a store
by name (`setattr`), may compute anything: then it does not count."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes

# tensor methods whose arguments are sizes or dimensions: the result hangs from the
# tensor alone (`x.repeat(n, 1)`, `x.view(n, -1)`, `x.new_zeros(n)`)
SIZE_METHODS = frozenset({"repeat", "view", "reshape", "expand", "narrow", "unfold", "new_zeros", "new_ones",
                          "new_empty", "size", "flatten", "unflatten", "permute", "transpose", "squeeze",
                          "unsqueeze", "chunk", "split", "roll"})
# calls that make a new tensor (or a number, a range) from sizes: nothing of the argument's graph
NEW_CALLS = frozenset({"range", "int", "torch.zeros", "torch.ones", "torch.empty", "torch.arange", "torch.randn",
                       "torch.rand", "torch.randint", "torch.eye", "np.zeros", "np.ones", "np.arange",
                       "numpy.zeros", "numpy.ones", "numpy.arange"})
_ARITH = (cst.BinaryOperation, cst.UnaryOperation)


def read_as_size(analysis, attr: cst.Attribute) -> bool:
    """Is the read `attr` (`model.n_window`, not called) used only where a number
    goes, directly or through the one local name it is bound to (module doc)?"""
    ctx = analysis.ctx
    if size_place(ctx, attr):
        return _no_property(analysis, attr.attr.value)
    up = ctx.parent(attr)
    if type(up) is not cst.Assign or up.value is not attr or len(up.targets) != 1 or \
            type(up.targets[0].target) is not cst.Name:
        return False
    name = up.targets[0].target.value
    scope = ctx.enclosing(up, cst.FunctionDef)
    if scope is None:
        return False  # a script's global may be read by any function: not followed
    binds = reads = 0
    for node in nodes(scope.body):
        if type(node) is cst.FunctionDef or type(node) is cst.Lambda:
            if any(type(n) is cst.Name and n.value == name for n in nodes(node)):
                return False  # a nested function reads or binds it: not followed
        if type(node) is not cst.Name or node.value != name:
            continue
        parent = ctx.parent(node)
        if type(parent) is cst.AssignTarget or type(parent) in (cst.AugAssign, cst.AnnAssign) and \
                parent.target is node:
            binds += 1
            continue
        if type(parent) in (cst.Global, cst.Nonlocal, cst.NameItem, cst.For, cst.CompFor, cst.AsName,
                            cst.Param, cst.Tuple, cst.List, cst.Element, cst.StarredElement) and \
                not size_place(ctx, node):
            return False  # bound another way, or handed on in a container
        if type(parent) is cst.Attribute and parent.attr is node:
            continue  # `x.w_size`: another object's attribute, not this name
        if not size_place(ctx, node):
            return False
        reads += 1
    return binds == 1 and reads > 0 and _no_property(analysis, attr.attr.value)


def size_place(ctx, node) -> bool:
    """Does the value of `node` reach, through arithmetic only, an index or slice bound,
    a comparison, or a size argument (module doc)?"""
    cur = node
    while True:
        up = ctx.parent(cur)
        if up is None:
            return False
        if isinstance(up, _ARITH):
            cur = up
            continue
        if type(up) in (cst.Index, cst.Slice):
            return True  # `data[i - w:i]`: picks entries; the gradient flows to `data` alone
        if type(up) is cst.Comparison or type(up) is cst.ComparisonTarget:
            return True  # a bool
        if type(up) is cst.Arg and up.value is cur:
            call = ctx.parent(up)
            if type(call) is not cst.Call:
                return False
            func = call.func
            if type(func) is cst.Attribute and func.attr.value in SIZE_METHODS and func.value is not cur and \
                    not any(cur is n for n in nodes(func.value)):
                return True
            return (dotted(func) or "") in NEW_CALLS
        return False


def _no_property(analysis, attr: str) -> bool:
    """No `def attr(` (a property computing it) and no store by name in the project's files that name it."""
    memo = analysis.table("size_reads")
    if attr not in memo:
        from .plain_attributes import by_name_or_property

        memo[attr] = not by_name_or_property(analysis.ctx, attr)
    return memo[attr]
