"""AD102: losses summed or collected across iterations with their graphs."""
from __future__ import annotations

import libcst as cst

from ..findings import SAFE
from ..imports import dotted
from ..analysis.walk import nodes
from ..rule import Edit, Invalid, Rule, Valid
from ._graph import GraphRule, BACKWARD_TOKENS, detach, line
from ._helpers import method_call, parenthesize_if_needed

TENSOR_USES = {"item", "cpu", "numpy", "backward", "detach", "to", "cuda", "tolist", "mean", "sum",
               "clone", "view", "reshape", "float", "double", "std", "max", "min", "unsqueeze"}


class LossAccumulatedWithGraph(GraphRule):
    """
    A running loss total (or a list of losses) that keeps every graph alive.

    ## What it does
    Finds `total_loss += loss`, `total = total + loss` and
    `losses.append(loss)` in a loop, where the loss carries its graph and the
    accumulator is never backwarded.

    ## Why it matters
    It does not raise, but every iteration's graph stays reachable from the
    accumulator: memory grows each step until the loop ends (a classic cause
    of running out of memory during validation or long epochs).

    ## Example
    ```python
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        total_loss += loss
    print(total_loss / len(loader))
    ```

    ## Fix
    ```python
        total_loss += loss.item()
    ```
    `.item()` when the accumulator is only used as a number (printed,
    formatted, divided); `.detach()` when it is used as a tensor later
    (`total.item()`, `torch.stack(losses)`).

    ## Fix safety
    Safe: the accumulated numbers are the same; only the graphs are dropped.
    Never offered when the accumulated value is backwarded (gradient
    accumulation).
    """

    code = "AD102"
    name = "loss-accumulated-with-graph"
    summary = "a loss kept across iterations with its graph (for logging); use `.item()`"
    fix_safety = SAFE
    tokens = BACKWARD_TOKENS

    VALID = [
        Valid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            losses = []
            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.item())
        """),
        Valid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            for step in range(3):
                acc = 0
                for k in range(4):
                    acc = acc + m(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                acc.backward()
                opt.step()
        """, note="gradient accumulation: the sum is backwarded"),
        Valid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            total = 0.0
            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += loss.detach()
        """),
    ]
    INVALID = [
        Invalid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            total_loss = 0.0
            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                total_loss += loss
            print(total_loss / 3)
        """, """
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            total_loss = 0.0
            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                total_loss += loss.item()
            print(total_loss / 3)
        """),
        Invalid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            losses = []
            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss)
            print(torch.stack(losses).mean())
        """, """
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            losses = []
            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.detach())
            print(torch.stack(losses).mean())
        """, note="used as tensors later: detach"),
    ]

    def finish(self) -> None:
        ctx = self.ctx
        done = set()
        for scope, leak in ctx.analysis.leaks:
            node = leak.node
            if not node.loss or node.stmt is None or id(node.stmt) in done or leak.reached:
                continue
            src = node.expr
            if src is None or _already_cut(src):
                continue
            done.add(id(node.stmt))
            as_tensor = _used_as_tensor(ctx, leak.key, node.kind)
            new = detach(src) if as_tensor else method_call(parenthesize_if_needed(src), "item")
            how = "`.detach()`" if as_tensor else "`.item()`"
            msg = (f"`{leak.key}` accumulates `{ctx.code(src).strip()}` with its graph "
                   f"(line {line(ctx, node.stmt)}): every iteration's graph stays alive and memory grows; "
                   f"keep {how} instead")
            self.report(src, msg, edits=[Edit(src, new)], fix_title=f"Accumulate {how}")


def _already_cut(src) -> bool:
    return isinstance(src, cst.Call) and isinstance(src.func, cst.Attribute) and \
        src.func.attr.value in ("detach", "item", "tolist")


def _used_as_tensor(ctx, key: str, kind: str) -> bool:
    """Is the accumulator used as a tensor anywhere (a method call on it, or
    passed to a torch function)?"""
    imports = ctx.imports
    for node in nodes(ctx.module):
        if isinstance(node, cst.Attribute):
            if node.attr.value in TENSOR_USES and dotted(node.value) == key:
                return True
        elif isinstance(node, cst.Call):
            q = imports.qualify(node.func)
            if q and q.startswith("torch.") and any(dotted(a.value) == key for a in node.args):
                return True
    return False
