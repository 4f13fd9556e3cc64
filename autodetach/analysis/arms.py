"""Branches that test the same thing take the same arm.

    for phase in ("labeled", "unlabeled"):
        if phase == "labeled":   out = model(x); loss = f(out)
        elif phase == "unlabeled": loss = g(out)      # `out` of the last pass
        ...
        if phase == "labeled":   loss.backward(retain_graph=True); opt[0].step()
        elif phase == "unlabeled": loss.backward()

The flow walk joins both arms of the first `if`, so the backward in the
labeled arm of the second seems to reach the unlabeled loss too. Within one
pass, a chain of tests written the same way (`if`/`elif` with the same test
text) takes the same arm both times, so a graph node built in one arm of
the first is not reached from another arm of the second.
"""
from __future__ import annotations

import libcst as cst

from .walk import nodes


def _chains(analysis) -> dict:
    """id(If) -> the text of its test chain (the `if` and its `elif`s)."""
    return analysis.memo("_if_chains", lambda: _find_chains(analysis.ctx))


def _find_chains(ctx) -> dict:
    out = {}
    for n in nodes(ctx.module):
        if isinstance(n, cst.If):
            tests, cur = [], n
            while isinstance(cur, cst.If):
                tests.append(ctx.code(cur.test).strip())
                cur = cur.orelse
            out[id(n)] = tuple(tests) + (("else",) if cur is not None else ())
    return out


def clash(analysis, x: tuple, y: tuple) -> bool:
    """Do two branch paths of one pass sit in different arms of the same test?"""
    chains = _chains(analysis)
    for ix, ax in x:
        for iy, ay in y:
            if ax != ay and (ix == iy or (chains.get(ix) is not None and chains.get(ix) == chains.get(iy))):
                return True
    return False


def reaches(analysis, ev, target) -> bool:
    """Does the backward `ev` reach `target` through nodes of its own pass
    whose arms agree with its own?"""
    memo = analysis.table("_arm_reach")
    got = memo.get(id(ev))
    if got is None or got[0] is not ev:
        got = memo[id(ev)] = (ev, _reach(analysis, ev))
    return target in got[1]


def _reach(analysis, ev) -> set:
    seen, stack = set(), list(ev.target.heads if ev.target is not None else ())
    out = set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.iteration == ev.tag and clash(analysis, n.branch, ev.branch):
            continue
        out.add(n)
        stack.extend(n.parents)
    return out
