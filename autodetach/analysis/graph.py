"""Abstract autograd graph nodes.

One node per statement that produces a graph-carrying value (or per call
output for tuple unpacking). A value is the set of nodes it hangs from.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst


_IDS = itertools.count()


def reset_ids() -> None:
    """Number the nodes of one file's analysis from 0 again."""
    global _IDS
    _IDS = itertools.count()


@dataclass(eq=False)
class GNode:
    name: Optional[str]  # the variable (or container/attribute key) it was stored in
    stmt: Optional[cst.CSTNode]  # the statement that created it
    expr: Optional[cst.CSTNode]  # the expression, for fixes
    iteration: tuple  # which simulated iteration of which loops created it
    parents: frozenset = frozenset()
    modules: frozenset = frozenset()  # modules called right here
    leaf: bool = False  # a parameter or requires_grad tensor: nothing to free
    trivial: bool = False  # saves no tensors for backward (unpack, +, -, container)
    # Cut inputs: the graph this value was detached from (for AD109).
    ghosts: frozenset = frozenset()
    # parent node -> the Name nodes through which it was read here
    uses: dict = field(default_factory=dict)
    kind: str = "op"  # op | module | loss | state | container | leaf | grad | accum
    uid: int = field(default_factory=lambda: next(_IDS), repr=False)
    # Set by the interpreter (flow.Scope) as it walks:
    seq: int = 0  # walk order within the scope (0: a leaf or a marker)
    branch: tuple = ()  # the `if` arms it was created in (analysis.arms)
    uncertain: bool = False  # went through code we cannot see (it may cut)
    loss: bool = False  # a loss or a running sum of losses or metrics
    proven: bool = False  # a backward in its loop proves it carries a graph (analysis.backwarded)
    holder: bool = False  # proven through an element (`loss["total"].backward()`): a dict or list, not a tensor
    entry: bool = False  # one appended value, not the list that accumulates (flow.find_leaks)
    last: object = None  # a list's store after an append: the appended value (a Val), read by `key[-1]`
    unseen: Optional[str] = None  # why a graph is assumed where the code cannot show it (AD104)
    meter: Optional[tuple] = None  # (Class.method, file, line, argument) of `meter.update(loss)` (AD102)
    sibling: Optional[str] = None  # "comes from the same call as a proven loss" (AD102's message)
    # `loss, dist = criterion(out, y)` of code not read, `loss` backwarded: `dist` is only assumed
    # to carry a graph (it may be a number); AD102 does not report a store of it alone
    aside: bool = False
    # a store on `self` that a returned value holds but no method empties (self_storage.py): why the
    # caller's use is not known (AD102's message; its fix is then unsafe)
    returned: Optional[str] = None
    # a dict or list proven only because the backwarded loss sums all its entries (backwarded.py):
    # that each entry is a tensor with a graph is inferred (the rules' messages; fixes unsafe)
    summed: Optional[str] = None
    module_state: Optional[tuple] = None  # (module, attribute, path): a module's self state (AD106)
    # an accumulation of a value that came through code not followed (`total += score(out)`): it may
    # be a number, so `.detach()` of it is no proven fix
    opaque: bool = False
    # a container's store under a constant string key (`losses["d_loss"] = d_loss`): the key's
    # value (keyed.py), so that a read of another key does not see this entry
    item: Optional[str] = None
    # uncertain only as to which model's graph an inline loss left in a list (`losses.append(crit(net(x), y))`,
    # no node of its own): no conflict rests on it, but it is a graph all the same (kept: a leak)
    unsplit: bool = False
    # returned by a function walked at its call that backwards another value (`return loss.item(),
    # metric`): the function's name; a running total of it is kept for the log, like a loss total
    beside: Optional[str] = None

    # Sets of nodes are walked in hash order, and the analysis takes the
    # first path or link it meets: an address-based hash made the findings
    # of a file change from one run to the next. Creation order does not.
    def __hash__(self) -> int:
        return self.uid

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"<GNode {self.name} it={self.iteration} kind={self.kind}>"


def closure(heads, through_ghosts: bool = False) -> set:
    seen: set = set()
    stack = list(heads)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        stack.extend(n.parents)
        if through_ghosts:
            stack.extend(n.ghosts)
    return seen