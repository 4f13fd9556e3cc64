"""AD103: a graph shared by two backward passes, where one pass's gradients
into the shared part are thrown away: detach on that pass."""
from __future__ import annotations

from ..analysis.decide import Problem
from ..findings import SAFE, UNSAFE
from ..rule import Invalid, Valid
from ..analysis.plain_values import not_tensor
from ._ad1_shared import GraphRule, BACKWARD_TOKENS, helper_note, path_note, code, detach, line


class SharedGraphNeedsDetach(GraphRule):
    """
    Two backward passes share a subgraph, and one of them only wastes work in it.

    ## What it does
    Finds two backward calls in one iteration whose graphs share a tensor
    (the GAN's `fake = G(z)`, or `a = model1(x)` in `model2(model1(x))`),
    where the first call frees the shared part and the second then fails
    with "Trying to backward through the graph a second time". It reports
    only when the gradients that one of the two passes puts into the
    upstream modules are provably discarded: those modules are zeroed
    (`optG.zero_grad()`, `G.zero_grad()`) before any optimizer that owns
    them steps.

    The same pair is found when the first call's `retain_graph=True` is
    what lets the second run (the usual advice, taken): no error, but the
    discarded pass still walks the shared graph, and the retain keeps it
    alive for that. Here the gradients must be seen zeroed before anything
    steps or reads them (a gradient norm clipped over both models, `.grad`
    copied to another model, a pass that would reach no parameters once
    cut, run for what its hooks record: no finding). After the detach, AD104
    offers to drop the retain when nothing else needs it.

    It also finds a learned multiplier's ascent pass (a Lagrange multiplier
    or temperature, `log_alpha`) that backwards the negation of a term
    (`(-penalty.mean()).backward(retain_graph=True)`, then its optimizer
    steps) while another loss adds the same term (`td_loss + penalty.sum()`,
    backwarded later or returned as the loss) with no `zero_grad()` between:
    the ascent pass puts -d(penalty) into the modules the term was computed
    from, and their step applies it with the other loss's +d(penalty), so
    the two cancel (d3rlpy's CQL and BEAR). That finding has no fix (the
    multiplier's loss must be rebuilt on the detached rest of the term), and
    says what it inferred: a term computed by code this file does not show,
    or a loss returned to a caller that backwards it.

    And a critic's pass that walks the kept graph into the model it judges
    (VQGAN's trainer): both losses are built on one score of the model's
    output (`disc_fake = D(recon)`), the model's loss is backwarded with
    `retain_graph=True`, the critic's `zero_grad()` then clears what it put
    into the critic, and the critic's loss is backwarded through the score
    into the model, whose optimizer steps with no `zero_grad()` between: the
    critic's objective trains the model. The roles come from where the
    zero_grad() calls stand (inferred, said in the message); no fix, since
    the cut (score the detached output for the critic's loss) changes what
    the model learns. A first pass whose gradients into the critic are not
    cleared (two heads on one encoder) is left alone.

    ## Why it matters
    The common advice, `retain_graph=True`, silences the error but keeps a
    graph alive and runs a backward through G that nobody uses. Cutting the
    shared tensor on the pass whose gradients are discarded is the fix the
    DCGAN reference uses: `netD(fake.detach())` in the discriminator step.

    ## Example
    ```python
    fake = netG(z)
    d_loss = bce(netD(fake), zeros)
    optD.zero_grad(); d_loss.backward(); optD.step()
    g_loss = bce(netD(fake), ones)
    optG.zero_grad(); g_loss.backward(); optG.step()
    ```

    ## Fix
    ```python
    d_loss = bce(netD(fake.detach()), zeros)
    ```

    ## Fix safety
    Safe. The rule fires only when the cut gradients are discarded, so the
    parameter updates equal those of the original run with
    `retain_graph=True` on every backward. When one optimizer owns both
    models, the gradients through the chain are used and a detach would
    silently stop the upstream model from learning: that case is AD105
    (`retain_graph=True`), never this rule.
    When the roles it rests on are inferred (a model or optimizer that is a
    function's argument, paired by name, or a trainer method taken to run
    once per iteration), the finding says what was inferred and the fix is
    unsafe: `--verify` decides.
    """

    code = "AD103"
    kind = Problem.SHARED_DISCARDED  # what the analysis calls this problem
    name = "shared-graph-needs-detach"
    summary = "a backward frees a subgraph another backward needs; detach where its gradients are discarded"
    fix_safety = SAFE
    tokens = BACKWARD_TOKENS

    VALID = [
        Valid("""
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            optG = torch.optim.SGD(G.parameters(), lr=0.1)
            optD = torch.optim.SGD(D.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                d_loss = D(fake.detach()).mean()
                optD.zero_grad()
                d_loss.backward()
                optD.step()
                g_loss = -D(fake).mean()
                optG.zero_grad()
                g_loss.backward()
                optG.step()
        """, note="already detached in the D step"),
        Valid("""
            import torch
            from torch import nn
            m1 = nn.Linear(4, 4); m2 = nn.Linear(4, 1)
            opt = torch.optim.SGD(list(m1.parameters()) + list(m2.parameters()), lr=0.1)
            for i in range(3):
                a = m1(torch.randn(2, 4))
                b = m2(a)
                opt.zero_grad()
                a.pow(2).mean().backward()
                b.pow(2).mean().backward()
                opt.step()
        """, note="one optimizer owns both models: the gradients are used (AD105, not a detach)"),
        Valid("""
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            opt = torch.optim.SGD(D.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                opt.zero_grad()
                (D(fake).mean() - D(fake).pow(2).mean()).backward()
                opt.step()
        """, note="one backward"),
        Valid("""
            import torch
            from torch import nn
            critic = nn.Linear(4, 1); log_alpha = nn.Parameter(torch.zeros(1))
            opt_c = torch.optim.SGD(critic.parameters(), lr=0.1)
            opt_a = torch.optim.SGD([log_alpha], lr=0.1)
            for i in range(3):
                q = critic(torch.randn(8, 4))
                gap = q.logsumexp(0) - q.mean() - 1.0
                opt_c.zero_grad()
                opt_a.zero_grad()
                (-(log_alpha.exp() * gap.detach()).mean()).backward()
                opt_a.step()
                (q.pow(2).mean() + (log_alpha.exp().detach() * gap).sum()).backward()
                opt_c.step()
        """, note="the multiplier's pass is built on the detached gap: it reaches only log_alpha"),
        Valid("""
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            opt = torch.optim.SGD(list(G.parameters()) + list(D.parameters()), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                opt.zero_grad()
                D(fake).mean().backward(retain_graph=True)
                (-D(fake).mean()).backward()
                opt.step()
        """, note="retain_graph=True with one optimizer over both: D's gradients into G are used"),
    ]
    INVALID = [
        Invalid("""
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            optG = torch.optim.SGD(G.parameters(), lr=0.1)
            optD = torch.optim.SGD(D.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                d_loss = D(fake).mean()
                optD.zero_grad()
                d_loss.backward()
                optD.step()
                g_loss = -D(fake).mean()
                optG.zero_grad()
                g_loss.backward()
                optG.step()
        """, """
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            optG = torch.optim.SGD(G.parameters(), lr=0.1)
            optD = torch.optim.SGD(D.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                d_loss = D(fake.detach()).mean()
                optD.zero_grad()
                d_loss.backward()
                optD.step()
                g_loss = -D(fake).mean()
                optG.zero_grad()
                g_loss.backward()
                optG.step()
        """, line=8, column=16, message="is shared by two backward passes"),
        Invalid("""
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            optG = torch.optim.SGD(G.parameters(), lr=0.1)
            optD = torch.optim.SGD(D.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                g_loss = -D(fake).mean()
                optG.zero_grad()
                g_loss.backward()
                optG.step()
                d_loss = D(fake).mean()
                optD.zero_grad()
                d_loss.backward()
                optD.step()
        """, """
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            optG = torch.optim.SGD(G.parameters(), lr=0.1)
            optD = torch.optim.SGD(D.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                g_loss = -D(fake).mean()
                optG.zero_grad()
                g_loss.backward()
                optG.step()
                d_loss = D(fake.detach()).mean()
                optD.zero_grad()
                d_loss.backward()
                optD.step()
        """, note="generator step first: the cut goes on the later (D) pass", line=12, column=16),
        Invalid("""
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            optG = torch.optim.SGD(G.parameters(), lr=0.1)
            optD = torch.optim.SGD(D.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                d_loss = D(fake).mean()
                optD.zero_grad()
                d_loss.backward(retain_graph=True)
                optD.step()
                g_loss = -D(fake).mean()
                optG.zero_grad()
                g_loss.backward()
                optG.step()
        """, """
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            optG = torch.optim.SGD(G.parameters(), lr=0.1)
            optD = torch.optim.SGD(D.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                d_loss = D(fake.detach()).mean()
                optD.zero_grad()
                d_loss.backward(retain_graph=True)
                optD.step()
                g_loss = -D(fake).mean()
                optG.zero_grad()
                g_loss.backward()
                optG.step()
        """, note="`retain_graph=True` silences the error; D's pass still walks G's graph for nothing",
                line=8, column=16, message="keeps its graph (`retain_graph=True`) only so that"),
        Invalid("""
            import torch
            from torch import nn
            critic = nn.Linear(4, 1); log_alpha = nn.Parameter(torch.zeros(1))
            opt_c = torch.optim.SGD(critic.parameters(), lr=0.1)
            opt_a = torch.optim.SGD([log_alpha], lr=0.1)
            for i in range(3):
                q = critic(torch.randn(8, 4))
                penalty = log_alpha.exp() * (q.logsumexp(0) - q.mean() - 1.0)
                opt_c.zero_grad()
                opt_a.zero_grad()
                alpha_loss = -penalty.mean()
                alpha_loss.backward(retain_graph=True)
                opt_a.step()
                (q.pow(2).mean() + penalty.sum()).backward()
                opt_c.step()
        """, note="the multiplier's ascent pass cancels the penalty's gradient into the critic (no fix)",
                line=12, column=5, message="so the two cancel"),
    ]

    def finish(self) -> None:
        analysis = self.ctx.analysis
        done = set()
        from ..analysis.silenced import silenced_discarded

        found = [(d, False) for d in analysis.diagnoses_for(self.kind)]
        found += [(d, True) for d in silenced_discarded(analysis)]
        for diagnosis, silenced in found:
            names = [n for n in diagnosis.detach_at if n not in done]
            if not names:
                continue
            done.update(names)
            conflict = diagnosis.conflict
            first, second = conflict.first, conflict.second
            ctx = self.ctx
            cut_on, other = diagnosis.detach_event, (second if diagnosis.detach_event is first else first)
            link = diagnosis.link
            mods = ", ".join(f"`{m}`" for m in sorted(_upstream(analysis, link))) or "the upstream modules"
            where = f"line {line(ctx, link.stmt)}" if link.stmt is not None else "earlier"
            how = ("keeps its graph (`retain_graph=True`) only so that" if silenced else "frees its graph and")
            msg = (f"`{link.name or code(ctx, link.expr)}` ({where}) is shared by two backward passes: "
                   f"`{code(ctx, first.call)}` (line {line(ctx, first.call)}) {how} "
                   f"`{code(ctx, second.call)}` (line {line(ctx, second.call)}) {'can walk' if silenced else 'needs'} "
                   f"it again. The gradients `{code(ctx, cut_on.call)}` puts into {mods} are zeroed before any "
                   f"optimizer steps them, so detach it on that pass")
            if silenced:
                msg += " (that pass then no longer walks the shared graph, and the retain may be unneeded)"
            edits = []
            from ..rule import Edit
            for target in names:
                if not not_tensor(ctx, target):  # a number or container has no .detach()
                    edits.append(Edit(target, detach(target)))
            helper = helper_note(first, second)
            if helper:
                msg += f"; {helper} (so the fix is unsafe)"
            self.report(names[0], msg, edits=edits, fix=(UNSAFE if helper else SAFE) if edits else None,
                        fix_title=f"Use `{code(ctx, names[0])}.detach()` there",
                        related=[(link.stmt, "the shared tensor is computed here"),
                                 (other.call, "this backward needs the shared graph")]
                        + path_note(ctx, conflict, "the retained graph" if silenced else "the freed graph"))
        self._negated_terms()
        self._leaked_passes()

    def _leaked_passes(self) -> None:
        """A critic's pass that walks the kept graph into the model it judges (analysis.leaked_passes)."""
        from ..analysis.leaked_passes import leaked_passes

        ctx = self.ctx
        for record in leaked_passes(ctx.analysis):
            leaking, other = record.leaking, record.other
            trained, judge = _names(record.trained), _names(record.judge)
            module, step = record.steps[0]
            link = record.link
            via = f"`{link.name or code(ctx, link.expr)}`"
            if link.stmt is not None:
                via += f" (line {line(ctx, link.stmt)})"
            msg = (f"`{code(ctx, leaking.call)}` walks the graph that `{code(ctx, other.call)}` (line "
                   f"{line(ctx, other.call)}) keeps, through {via}, into {trained}, and nothing clears those "
                   f"gradients before `{code(ctx, step.call)}` (line {line(ctx, step.call)}) steps them: "
                   f"the critic's loss trains the model it judges, against that model's own loss. The roles "
                   f"come from `{code(ctx, record.zero.call)}` (line {line(ctx, record.zero.call)}): it clears "
                   f"what `{code(ctx, other.call)}` puts into {judge} and keeps this pass's, so this is "
                   f"{judge}'s loss. Build it on the model's output detached (run {judge} again on it), "
                   f"then the retain is unneeded. Not fixed: the cut changes what {trained} learns")
            notes = ["which pass is the critic's, from where its optimizer's zero_grad() stands"] + record.notes
            msg += "; inferred: " + "; ".join(notes)
            related = [(other.call, "the pass whose graph it walks"), (step.call, "the step that applies it")]
            if link.stmt is not None:
                related.insert(0, (link.stmt, "the shared tensor"))
            self.report(leaking.call, msg, related=related)

    def _negated_terms(self) -> None:
        """A multiplier's ascent pass on a term another loss adds (analysis.negated_terms)."""
        from ..analysis.negated_terms import negated_terms, term_modules

        ctx = self.ctx
        for record in negated_terms(ctx.analysis):
            mods = term_modules(ctx.analysis, record)
            if mods is None:
                continue  # the term is computed from the multiplier alone: its pass reaches nothing else
            mods = sorted(mods)
            where = ", ".join(f"`{m}`" for m in mods) if mods else "the modules it was computed from"
            notes = list(record.notes)
            if not mods:
                notes.insert(0, f"`{record.term}` is taken to be computed from parameters besides the multiplier's "
                             "(its code is not read here)")
            msg = (f"`{code(ctx, record.backward)}` backwards the negation of `{record.term}` (a multiplier's "
                   f"ascent pass) without detaching it: it also puts -d(`{record.term}`) into {where}, and "
                   f"`{code(ctx, record.added)}` (line {line(ctx, record.added)}) adds the same tensor to the loss "
                   f"whose backward puts +d(`{record.term}`) there before their optimizer steps, so the two cancel. "
                   "Build the multiplier's loss from the multiplier times the rest of the term detached, so that "
                   "only the multiplier learns from it. Not fixed: that loss must be rebuilt")
            if notes:
                msg += "; inferred: " + "; ".join(notes)
            related = [(record.added, "the term is added to another loss here")]
            if record.via is not None:
                related.append((record.via, "the term is handed to the multiplier's pass here"))
            self.report(record.backward, msg, related=related)


def _names(modules) -> str:
    return ", ".join(f"`{m}`" for m in sorted(modules))


def _upstream(analysis, link):
    from ..analysis.decide import param_modules
    from ..analysis.graph import closure

    return param_modules(analysis, closure([link]))
