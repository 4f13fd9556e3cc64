"""AD109: an optimizer steps parameters whose only path to the loss is cut."""
from __future__ import annotations

from ..findings import NONE
from ..rule import Invalid, Valid
from ._ad1_shared import GraphRule, BACKWARD_TOKENS, code, line
from ..analysis.decide import param_modules
from ..analysis.graph import closure


class DetachBlocksLearning(GraphRule):
    """
    A detach cuts the only path from a model to the loss its optimizer follows.

    ## What it does
    Finds an optimizer step whose parameters receive no gradient from the
    backward calls since its last `zero_grad()`, because the only path from
    those parameters to the loss goes through `.detach()`, `.data` or
    `Variable(x.data)`: `netD(fake.detach())` in the generator step, a
    perceptual loss computed on `Variable(x.data)`.

    ## Why it matters
    Nothing fails: the loop runs, the loss prints, and the model silently
    stops learning. It is what a wrong `.detach()` does, including one
    added by a tool, so autodetach checks its own medicine with it.

    ## Example
    ```python
    g_loss = bce(netD(fake.detach()), ones)
    optG.zero_grad(); g_loss.backward(); optG.step()
    ```

    ## Fix
    Remove the cut on the path the optimizer needs:
    `g_loss = bce(netD(fake), ones)`.

    ## Fix safety
    No automatic fix: whether the cut is a mistake or a deliberate freeze is
    for the author to say.
    """

    code = "AD109"
    name = "detach-blocks-learning"
    summary = "an optimizer steps parameters whose only path to the loss is cut by a detach"
    fix_safety = NONE
    tokens = BACKWARD_TOKENS  # both need a backward after or before the step

    VALID = [
        Valid("""
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            optD = torch.optim.SGD(D.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                optD.zero_grad()
                D(fake.detach()).mean().backward()
                optD.step()
        """, note="the D step: D is reached directly"),
        Valid("""
            import torch
            from torch import nn
            net = nn.Linear(4, 2); target_net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for i in range(3):
                target = target_net(torch.randn(2, 4)).max(1)[0].detach()
                loss = (net(torch.randn(2, 4)).max(1)[0] - target).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, note="DQN target network: not owned by the optimizer"),
    ]
    INVALID = [
        Invalid("""
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            optG = torch.optim.SGD(G.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                g_loss = -D(fake.detach()).mean()
                optG.zero_grad()
                g_loss.backward()
                optG.step()
        """, line=7, column=5),
    ]

    def finish(self) -> None:
        ctx = self.ctx
        a = ctx.analysis
        done = set()
        for sc in a.scopes:
            for s in sc.events:
                if s.kind != "step" or s.call in done:
                    continue
                opt = a.names.optimizers.get(s.opt)
                if opt is None or not opt.owns:
                    continue
                owned = set(opt.owns)
                zeros = [z for z in sc.events if z.kind == "zero" and z.seq < s.seq and z.tag == s.tag
                         and (z.opt == s.opt or (z.modules is not None and owned <= set(z.modules)))]
                if not zeros:
                    continue
                start = zeros[-1].seq
                bws = [b for b in sc.events if b.kind == "backward" and start < b.seq < s.seq and b.tag == s.tag]
                if not bws:
                    continue
                # Modules this step updates that no backward of the iteration
                # reaches directly, but that a cut path does reach.
                direct = set()
                for b in sc.events:
                    if b.kind == "backward" and b.tag == s.tag:
                        direct |= _reached(a, b.reach)
                starved = owned - direct
                if not starved:
                    continue
                cut = None
                for b in bws:
                    for n in closure(b.target.heads | b.target.ghosts):
                        for g in n.ghosts:
                            if starved & _reached(a, closure([g], through_ghosts=True)):
                                cut = (b, n)
                                break
                        if cut:
                            break
                    if cut:
                        break
                if cut is None:
                    continue
                owned = starved
                done.add(s.call)
                b, n = cut
                mods = ", ".join(f"`{m}`" for m in sorted(owned))
                where = n.stmt if n.stmt is not None else b.stmt
                msg = (f"`{code(ctx, s.call)}` (line {line(ctx, s.call)}) updates {mods}, but the loss it follows, "
                       f"`{code(ctx, b.call)}` (line {line(ctx, b.call)}), reaches them only through a cut "
                       f"(`.detach()`, `.data`) at line {line(ctx, where)}: {mods} will not learn from it")
                self.report(where, msg, related=[(s.call, "this step gets no gradient"),
                                                 (b.call, "the backward it follows")])


def _reached(a, nodes) -> set:
    return param_modules(a, nodes)
