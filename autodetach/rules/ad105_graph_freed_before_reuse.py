"""AD105: a graph backwarded twice whose gradients are all used:
retain_graph=True on every call but the last."""
from __future__ import annotations

from ..analysis.decide import Problem
from ..findings import SAFE, UNSAFE
from ..rule import Invalid, Valid
from ._ad1_shared import GraphRule, BACKWARD_TOKENS, backward_text, helper_note, path_note, code, line, with_retain


class GraphFreedBeforeReuse(GraphRule):
    """
    A backward frees a graph that a later backward in the same iteration needs.

    ## What it does
    Finds `loss.backward()` called twice, `torch.autograd.grad(loss, ...)`
    followed by `loss.backward()`, and two losses that share part of a graph
    (a shared trunk, `model2(model1(x))` under one optimizer) backwarded one
    after the other, where the gradients of both passes are used. That
    includes one loss handed to two helpers that each backward and step
    (`actor.update_model(loss); critic.update_model(loss)`), in a loop or
    one after the other, and a loss a loop sums that both passes backward
    after the loop has ended (one graph, not a link across iterations).

    A method that Lightning (before 2.0) runs once per optimizer takes
    `optimizer_idx` (`training_step(self, batch, batch_idx, optimizer_idx)`,
    or a model's `loss_function(*args, **kwargs)` reading
    `kwargs["optimizer_idx"]`) and branches on `optimizer_idx == 0` and
    `== 1`: the framework backwards the first phase's loss before it calls
    the second. A graph the first phase keeps on `self`
    (`self.D_z_reserve = self.discriminator(z)`) and the second phase
    backwards again is reported at the second phase's loss, without a fix;
    the order is inferred from the arms, and the message says so.

    It also finds a module whose `forward` updates part of itself with its
    own optimizer (an in-place codebook update: `((quantize - x) **
    2).mean().backward()`, then `self.codebook_opt.step()`) on a loss that
    reads a tensor built by layers that optimizer does not step (`x =
    self.project_in(x)`), and then returns a value that still hangs from
    that tensor (`x + (quantize - x).detach()`): the caller's backward
    through the output walks the freed graph. That the caller backwards a
    loss built on the output is inferred, and the message says so. Left
    alone: a forward that leaves the step to its caller, or clears the
    optimizer's gradients before its backward (a whole training step, whose
    returned losses and images are logged), and values built on the inner
    loss.

    ## Why it matters
    The first call frees the saved tensors, so the second raises "Trying to
    backward through the graph a second time". Here both passes' gradients
    reach an optimizer step, so cutting the graph with `.detach()` would
    silently stop the upstream model learning from the second loss. The
    author meant both gradients: keep the graph alive for the second pass.

    ## Example
    ```python
    opt = SGD(list(model1.parameters()) + list(model2.parameters()), lr=0.1)
    a = model1(x)
    b = model2(a)
    opt.zero_grad()
    loss1(a).backward()
    loss2(b).backward()
    opt.step()
    ```

    ## Fix
    ```python
    loss1(a).backward(retain_graph=True)
    ```
    When the backward calls are adjacent, summing the losses and calling
    backward once gives the same gradients with one pass.

    ## Fix safety
    Safe: with `retain_graph=True` on every call but the last, the run is
    exactly the reference (the original with `retain_graph=True` on every
    backward), with the last graph freed as usual, as long as the reference
    itself runs. It does not when an optimizer step before the second
    backward changes, in place, weights that the second graph saved (a GAN
    whose generator loss went through D before `optD.step()`): the retained
    run then fails with "modified by an inplace operation", so the rule
    reports without a fix and says where to compute the loss again. A layer
    saves only what its backward needs: an `nn.Linear` or `nn.Embedding`
    fed raw data (no graph, no `requires_grad`) saves no weight, so a step
    on it in between is harmless; convolutions and norm layers always save
    their weights, and every layer fed by a graph tensor does. Where the
    analysis cannot tell (a module built by a function, a parameter used
    directly, an optimizer whose parameters are unknown), the fix is
    offered as unsafe: check it with `--verify`. So is it when the second
    backward runs inside a function of another project file
    (`diversity_loss(phi_real, phi_fake, backward=True)`), known only from
    that file's summary, and when the two losses meet only in what a
    module call returns, each reading its own elements (`outputs[0]`,
    `outputs[1]`) with nothing shared before the call: two heads on one
    input share no graph, so that they do is inferred and the message
    says so. So is a conflict that one of the two passes reaches only
    through what a call of code not read returns (a loss object picked at
    run time, `d_loss, g_loss = self.adv_loss(D, fake, real)`, or
    `self.algo.critic_loss(...)` of a class out of sight): the callee may
    build that result on `fake.detach()` or under `torch.no_grad()`, and a
    loss-like name proves nothing. A helper of another file that backwards
    a loss built on `logits.detach()` frees nothing of the caller's
    `logits` and is no first backward. The fix for a forward's inner update is always
    unsafe: retaining keeps both passes' gradients in the layers before the
    update (the reference's updates), while the author may have meant to
    build the inner loss from the detached tensor; the message names both.
    """

    code = "AD105"
    kind = Problem.SHARED_FREED  # what the analysis calls this problem
    name = "graph-freed-before-reuse"
    summary = "a backward frees a graph that a later backward needs and whose gradients are used"
    fix_safety = SAFE
    tokens = BACKWARD_TOKENS

    VALID = [
        Valid("""
            import torch
            from torch import nn


            class Quantizer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.project_in = nn.Linear(4, 4)
                    self.embed = nn.Parameter(torch.randn(8, 4))
                    self.opt = torch.optim.SGD([self.embed], lr=0.1)

                def forward(self, x):
                    x = self.project_in(x)
                    q = self.embed[torch.cdist(x, self.embed).argmin(-1)]
                    ((q - x.detach()) ** 2).mean().backward()
                    self.opt.step()
                    self.opt.zero_grad()
                    return x + (q - x).detach()
        """, note="a forward's inner update on the detached input reaches only the codebook"),
        Valid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            out = m(torch.randn(2, 4))
            loss = out.pow(2).mean()
            loss.backward(retain_graph=True)
            loss.backward()
        """, note="already retained"),
        Valid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            l1 = m(torch.randn(2, 4)).mean()
            l2 = m(torch.randn(2, 4)).mean()
            l1.backward()
            l2.backward()
        """, note="separate graphs"),
        Valid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 4)
            h = m(torch.randn(2, 4))
            (h.mean() + h.pow(2).mean()).backward()
        """, note="losses summed into one backward"),
    ]
    INVALID = [
        Invalid("""
            import torch
            from torch import nn


            class Quantizer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.project_in = nn.Linear(4, 4)
                    self.embed = nn.Parameter(torch.randn(8, 4))
                    self.opt = torch.optim.SGD([self.embed], lr=0.1)

                def forward(self, x):
                    x = self.project_in(x)
                    q = self.embed[torch.cdist(x, self.embed).argmin(-1)]
                    ((q - x) ** 2).mean().backward()
                    self.opt.step()
                    self.opt.zero_grad()
                    return x + (q - x).detach()
        """, """
            import torch
            from torch import nn


            class Quantizer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.project_in = nn.Linear(4, 4)
                    self.embed = nn.Parameter(torch.randn(8, 4))
                    self.opt = torch.optim.SGD([self.embed], lr=0.1)

                def forward(self, x):
                    x = self.project_in(x)
                    q = self.embed[torch.cdist(x, self.embed).argmin(-1)]
                    ((q - x) ** 2).mean().backward(retain_graph=True)
                    self.opt.step()
                    self.opt.zero_grad()
                    return x + (q - x).detach()
        """, unsafe=True, note="a forward's inner update frees the projection's graph its output hangs from",
                line=15, column=9, message="inferred: that the caller backwards"),
        Invalid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            loss = m(torch.randn(2, 4)).pow(2).mean()
            loss.backward()
            loss.backward()
        """, """
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            loss = m(torch.randn(2, 4)).pow(2).mean()
            loss.backward(retain_graph=True)
            loss.backward()
        """, line=5, column=1, message="frees the graph of `loss`"),
        Invalid("""
            import torch
            from torch import nn
            m1 = nn.Linear(4, 4); m2 = nn.Linear(4, 1)
            opt = torch.optim.SGD(list(m1.parameters()) + list(m2.parameters()), lr=0.1)
            for i in range(3):
                a = m1(torch.randn(2, 4))
                b = m2(a)
                loss1 = a.pow(2).mean()
                loss2 = b.pow(2).mean()
                opt.zero_grad()
                loss1.backward()
                loss2.backward()
                opt.step()
        """, """
            import torch
            from torch import nn
            m1 = nn.Linear(4, 4); m2 = nn.Linear(4, 1)
            opt = torch.optim.SGD(list(m1.parameters()) + list(m2.parameters()), lr=0.1)
            for i in range(3):
                a = m1(torch.randn(2, 4))
                b = m2(a)
                loss1 = a.pow(2).mean()
                loss2 = b.pow(2).mean()
                opt.zero_grad()
                loss1.backward(retain_graph=True)
                loss2.backward()
                opt.step()
        """, note="two models, one optimizer: retain_graph, never detach", line=11, column=5),
        Invalid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            loss = m(torch.randn(2, 4)).pow(2).mean()
            g = torch.autograd.grad(loss, list(m.parameters()))
            loss.backward()
        """, """
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            loss = m(torch.randn(2, 4)).pow(2).mean()
            g = torch.autograd.grad(loss, list(m.parameters()), retain_graph=True)
            loss.backward()
        """, line=5, column=5),
        Invalid("""
            import torch
            from torch import nn
            G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
            D = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
            opt_g = torch.optim.Adam(G.parameters())
            opt_d = torch.optim.Adam(D.parameters())
            for i in range(3):
                fake = G(torch.randn(4, 4))
                d_loss = D(torch.randn(4, 2)).mean() - D(fake).mean()
                g_loss = D(fake).mean()
                opt_g.zero_grad()
                opt_d.zero_grad()
                d_loss.backward()
                opt_d.step()
                g_loss.backward()
                opt_g.step()
        """, None, note="g_loss saved D's weights before opt_d.step(): retain would fail too, no fix",
            line=13, column=5),
        Invalid("""
            import torch
            from torch import nn
            m1 = nn.Linear(6, 8)
            m2 = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
            opt = torch.optim.SGD(list(m1.parameters()) + list(m2.parameters()), lr=0.1)
            opt1 = torch.optim.SGD(m1.parameters(), lr=0.01)
            for i in range(3):
                a = m1(torch.randn(5, 6))
                loss1 = a.pow(2).mean()
                loss2 = m2(a).pow(2).mean()
                opt.zero_grad()
                loss1.backward()
                opt1.step()
                loss2.backward()
                opt.step()
        """, """
            import torch
            from torch import nn
            m1 = nn.Linear(6, 8)
            m2 = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
            opt = torch.optim.SGD(list(m1.parameters()) + list(m2.parameters()), lr=0.1)
            opt1 = torch.optim.SGD(m1.parameters(), lr=0.01)
            for i in range(3):
                a = m1(torch.randn(5, 6))
                loss1 = a.pow(2).mean()
                loss2 = m2(a).pow(2).mean()
                opt.zero_grad()
                loss1.backward(retain_graph=True)
                opt1.step()
                loss2.backward()
                opt.step()
        """, note="the step in between changes m1, a Linear on raw data: no weight saved, retain works",
            line=12, column=5),
        Invalid("""
            import torch
            from torch import nn
            m1 = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 8))
            m2 = nn.Linear(8, 1)
            opt = torch.optim.SGD(list(m1.parameters()) + list(m2.parameters()), lr=0.1)
            opt1 = torch.optim.SGD(m1.parameters(), lr=0.01)
            for i in range(3):
                a = m1(torch.randn(5, 6))
                loss1 = a.pow(2).mean()
                loss2 = m2(a).pow(2).mean()
                opt.zero_grad()
                loss1.backward()
                opt1.step()
                loss2.backward()
                opt.step()
        """, None, note="m1's second Linear is fed a graph tensor: it saved its weight, no fix", line=12, column=5),
        Invalid("""
            import torch
            from torch import nn
            from models import build_encoder
            enc = build_encoder()
            head = nn.Linear(8, 1)
            opt = torch.optim.SGD(list(enc.parameters()) + list(head.parameters()), lr=0.1)
            opt_enc = torch.optim.SGD(enc.parameters(), lr=0.01)
            for i in range(3):
                h = enc(torch.randn(5, 6))
                loss1 = h.pow(2).mean()
                loss2 = head(h).pow(2).mean()
                opt.zero_grad()
                loss1.backward()
                opt_enc.step()
                loss2.backward()
                opt.step()
        """, """
            import torch
            from torch import nn
            from models import build_encoder
            enc = build_encoder()
            head = nn.Linear(8, 1)
            opt = torch.optim.SGD(list(enc.parameters()) + list(head.parameters()), lr=0.1)
            opt_enc = torch.optim.SGD(enc.parameters(), lr=0.01)
            for i in range(3):
                h = enc(torch.randn(5, 6))
                loss1 = h.pow(2).mean()
                loss2 = head(h).pow(2).mean()
                opt.zero_grad()
                loss1.backward(retain_graph=True)
                opt_enc.step()
                loss2.backward()
                opt.step()
        """, unsafe=True, note="what enc saved is unknown: retain offered as unsafe", line=13, column=5),
    ]

    def finish(self) -> None:
        ctx = self.ctx
        done = set()
        for diagnosis in ctx.analysis.diagnoses_for(self.kind):
            conflict = diagnosis.conflict
            first, second = conflict.first, conflict.second
            if first.call in done:
                continue
            done.add(first.call)
            link = diagnosis.link
            where = f"line {line(ctx, link.stmt)}" if link.stmt is not None else "earlier"
            freed = _freed_text(ctx, link)
            msg = (f"`{code(ctx, first.call)}` frees the graph of {freed} ({where}), "
                   f"which {backward_text(ctx, second)} (line {line(ctx, second.call)}) needs again; "
                   f"the gradients of both passes are used")
            if getattr(diagnosis.scope, "phase_backward", None):
                # one method run per optimizer (analysis.optimizer_phases): the later phase reuses the graph
                self.report(second.call, f"{backward_text(ctx, second)} (line {line(ctx, second.call)}) needs the "
                            f"graph of {freed} ({where}), which {first.framework}'s backward of "
                            f"`{code(ctx, first.call)}` (line {line(ctx, first.call)}), in the phase before, "
                            "freed; no automatic fix: compute it again in this phase (from detached inputs where "
                            "the earlier networks are not trained here)",
                            related=[(first.call, "the earlier phase's backward frees it")])
                continue
            if first.framework:
                diagnosis.blocked = diagnosis.blocked or f"{first.framework} runs the first backward"
            elif second.framework:
                diagnosis.blocked = diagnosis.blocked or (
                    f"{second.framework} backwards what `training_step` returns, so one graph is backwarded "
                    "twice: drop the call, or optimise manually (`self.automatic_optimization = False`, "
                    "`self.manual_backward(loss)`)")
            if diagnosis.blocked:
                self.report(first.call, msg + f"; no automatic fix: {diagnosis.blocked}",
                            related=[(second.call, "the second backward")])
                continue
            if diagnosis.reason:
                msg += f" (or may be: {diagnosis.reason})"
            msg += ". Pass retain_graph=True to the first"
            related = [(second.call, "this backward needs the freed graph")] + path_note(ctx, conflict)
            summed = _summed(ctx, first, second)
            if summed:
                msg += f", or sum the losses and call backward once: `{summed}`"
                related.append((first.stmt, f"unsafe alternative: `{summed}` gives the same gradients with one "
                                            "backward pass, but changes what runs between the two calls"))
            if diagnosis.unsafe:
                msg += f" (unsafe: {diagnosis.unsafe})"
            helper = helper_note(first, second)
            if helper:
                msg += f"; {helper} (so the fix is unsafe)"
            self.report(first.call, msg, replacement=with_retain(first.call, first.retain_arg),
                        fix=UNSAFE if diagnosis.unsafe or helper else SAFE, fix_title="Add `retain_graph=True`",
                        related=related)
        self._forward_frees(done)

    def _forward_frees(self, done) -> None:
        """A forward that backwards a loss, then returns a value built on the graph it freed
        (analysis/forward_frees.py)."""
        from ..analysis.forward_frees import forward_frees

        ctx = self.ctx
        for found in forward_frees(ctx.analysis):
            event, node = found.event, found.node
            if event.call in done:
                continue
            done.add(event.call)
            what = node.name or code(ctx, node.expr)
            msg = (f"`{code(ctx, event.call)}` runs inside `{found.cls.name.value}.forward` and frees the graph of "
                   f"`{what}` (line {line(ctx, node.stmt)}), which the value `forward` returns still hangs from: "
                   f"the caller's backward through that output walks the freed graph and fails (\"Trying to "
                   f"backward through the graph a second time\"). Pass retain_graph=True here (both passes then "
                   f"put gradients into what produced `{what}`), or build this loss from `{what}.detach()` when "
                   f"only the module's own parameters should learn from it; inferred: that the caller backwards a "
                   f"loss built on the output (so the fix is unsafe)")
            self.report(event.call, msg, replacement=with_retain(event.call, event.retain_arg), fix=UNSAFE,
                        fix_title="Add `retain_graph=True`",
                        related=[(node.stmt, "the freed graph the output still hangs from")])


def _freed_text(ctx, link) -> str:
    """The freed value as the message names it: its variable, else what the call that made it
    returns (`what `self.algo.critic_loss(...)` returns`), else its code."""
    import libcst as cst

    from ..imports import dotted

    if link.name:
        return f"`{link.name}`"
    if isinstance(link.expr, cst.Call):
        func = dotted(link.expr.func)
        return f"what `{func}(...)` returns" if func else f"what `{ctx.snippet(link.expr)}` returns"
    if link.expr is not None:
        return f"`{ctx.snippet(link.expr)}`"
    return "the value the first loss is built on"


def _summed(ctx, first, second):
    """`(l1 + l2).backward()` when the two calls are adjacent plain
    `.backward()` statements on different losses."""
    import libcst as cst

    if first.framework or second.framework:
        return None  # `return loss` from training_step: no call to sum into
    if first.kind != "backward" or second.kind != "backward" or first.call.args or second.call.args:
        return None
    if not (isinstance(first.call.func, cst.Attribute) and isinstance(second.call.func, cst.Attribute)):
        return None
    if first.call.func.attr.value != "backward" or second.call.func.attr.value != "backward":
        return None
    if ctx.line_of(second.stmt) - ctx.line_of(first.stmt) != 1:
        return None
    first_loss, second_loss = ctx.code(first.call.func.value).strip(), ctx.code(second.call.func.value).strip()
    if first_loss == second_loss:
        return None
    return f"({first_loss} + {second_loss}).backward()"
