"""AD109: an optimizer steps parameters whose only path to the loss is cut."""
from __future__ import annotations

from ..analysis.decide import Problem
from ..findings import NONE
from ..rule import Invalid, Valid
from ._ad1_shared import GraphRule, BACKWARD_TOKENS, code, line


class DetachBlocksLearning(GraphRule):
    """
    A detach cuts the only path from a model to the loss its optimizer follows.

    ## What it does
    Finds an optimizer step whose parameters receive no gradient from the
    backward calls since its last `zero_grad()`, because the only path from
    those parameters to the loss goes through `.detach()`, `.data` or
    `Variable(x.data)`: `netD(fake.detach())` in the generator step, a
    perceptual loss computed on `Variable(x.data)`. Also a partial cut: one
    term of the loss runs another model on a value cut from the stepped ones
    (`bce(netD(fake.detach()), ones) + l1(fake, real)` in the generator
    step, written inline or through a name): the other terms still train
    the generator, the adversarial one sends it nothing. And a whole term of the loss cut from the trained
    graph: `criterion(student, teacher).detach() * beta` or
    `beta * torch.tensor(step_terms).mean()` added to the loss, or a term
    computed from cut values alone (`w * F.cross_entropy(logits.detach(),
    labels)` with `labels` from the same cut logits, or a critic's
    `adv.pow(2)` with `adv = returns - values.detach()`, inside
    `(actor + critic).mean()` too) is a constant that
    teaches nothing (in a forward that returns `loss`, the caller's
    backward is inferred from the name). A cut that shifts a value on purpose
    (`task + reg - reg.detach()`, a straight-through estimator) or a constant
    from a model the loss does not train (a teacher) is left alone, and so
    is a loss whose path is not known: one hanging uncut from `self` state
    another method fills out of the walk's sight (`obs, log_prob =
    self.memory`), one in a function that reads a name nothing binds (a
    notebook's `u`, assigned in no cell), or results unpacked from a helper
    call that does not itself run the model (`tau, expected =
    project(dist, ...)`: `tau` from `dist.data`, `expected` from a target
    network, is not that network run on the cut value). And a
    cut argument of a method that steps: `self.update_critic(obs.detach(), ...)`
    where `update_critic` (of this class or a base class in another file)
    zeroes and steps `self.encoder_opt` around a backward whose loss reaches
    `self.encoder` only through `obs`. In a Lightning `training_step` that
    branches on `optimizer_idx`, each phase's optimizer is the one
    `configure_optimizers` returns at that position (inferred from the arms).
    And a loss computed with a copy of the stepped model (`fast =
    copy.deepcopy(model)`, a `clone()` method of its class that builds a new
    object and loads the state dict, or a helper that returns such a copy of
    its argument): the copy's parameters are new leaves, so the step over
    the original gets nothing (MAML written with a copy instead of a
    functional call). Gradients handed over by hand (`p.grad = q.grad`,
    first-order MAML, Reptile) are left alone; a `clone()` found by its name
    in the one class that defines it is an inference, said.

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
    kind = Problem.CUT_BLOCKS_LEARNING  # what the analysis calls this problem
    name = "detach-blocks-learning"
    summary = "an optimizer steps parameters whose only path to the loss is cut by a detach"
    fix_safety = NONE
    # a backward near the step, a loss returned with a cut term (`return out, loss` in a forward),
    # or a cut argument of a base class's step method (`self.update_critic(obs.detach(), ...)`)
    tokens = BACKWARD_TOKENS + (".detach()", ".item()", ".data", "torch.tensor(", "as_tensor(", "from_numpy(")
    also_tokens = (("backward", "loss", "training_step", ".detach()"),)

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
        Valid("""
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            optG = torch.optim.SGD(G.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                g_loss = -D(fake).mean() + (fake - torch.randn(2, 4)).abs().mean()
                optG.zero_grad()
                g_loss.backward()
                optG.step()
        """, note="both terms reach G"),
        Valid("""
            import torch
            from torch import nn
            q = nn.Linear(4, 2)
            opt = torch.optim.SGD(q.parameters(), lr=0.1)
            for i in range(3):
                target = 1.0 + 0.9 * q(torch.randn(2, 4)).max(1)[0].detach()
                loss = (q(torch.randn(2, 4)).max(1)[0] - target).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, note="a TD target cut from the stepped model on purpose: no other model runs on it"),
        Valid("""
            import torch
            from torch import nn
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for i in range(3):
                task = net(torch.randn(2, 4)).pow(2).mean()
                reg = net.weight.pow(2).sum()
                loss = task + reg - reg.detach()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, note="a whole term cut on purpose: the regulariser's gradient without its value"),
    ]
    INVALID = [
        Invalid("""
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            optG = torch.optim.SGD(G.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                adv = -D(fake.detach()).mean()
                g_loss = adv + (fake - torch.randn(2, 4)).abs().mean()
                optG.zero_grad()
                g_loss.backward()
                optG.step()
        """, line=7, column=5, message="sends them no gradient"),
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
        """, line=7, column=5, message="reaches them only"),
        Invalid("""
            import torch
            from torch import nn
            student = nn.Linear(4, 4); teacher = nn.Linear(4, 4)
            opt = torch.optim.SGD(student.parameters(), lr=0.1)
            for i in range(3):
                x = torch.randn(2, 4)
                out_s, out_t = student(x), teacher(x)
                distill = (out_s - out_t).pow(2).mean().detach() * 0.5
                loss = out_s.pow(2).mean() + distill
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, line=8, column=15, message="as a whole term"),
    ]

    def finish(self) -> None:
        ctx = self.ctx
        for found in ctx.analysis.diagnoses_for(self.kind):
            if hasattr(found, "runs"):
                self._cut_input(found)
                continue
            if hasattr(found, "term"):
                self._dead_term(found)
                continue
            if hasattr(found, "param"):
                self._cut_argument(found)
                continue
            if hasattr(found, "submodule"):
                self._cut_submodule(found)
                continue
            if hasattr(found, "copy"):
                self._copied(found)
                continue
            backward, cut = found.backward, found.cut
            # a Lightning phase's step is Lightning's: shown as its optimizer in configure_optimizers
            step = found.shown if found.shown is not None else found.step.call
            stepper = f"the optimizer `{code(ctx, step)}`" if found.shown is not None else f"`{code(ctx, step)}`"
            note = f"; inferred: {found.note}" if found.note else ""
            mods = ", ".join(f"`{m}`" for m in sorted(found.modules))
            where = cut.stmt if cut.stmt is not None else backward.stmt
            if found.partial:
                msg = (f"this term of the loss `{code(ctx, backward.call)}` (line {line(ctx, backward.call)}) "
                       f"runs a model on a value cut (`.detach()`, `.data`) from {mods}, which "
                       f"{stepper} (line {line(ctx, step)}) updates: the term sends them no "
                       f"gradient, only the loss's other terms do{note}")
                self.report(where, msg, related=[(step, "this step gets no gradient from the term"),
                                                 (backward.call, "the backward it follows")])
                continue
            msg = (f"{stepper} (line {line(ctx, step)}) updates {mods}, but the loss it follows, "
                   f"`{code(ctx, backward.call)}` (line {line(ctx, backward.call)}), reaches them only through a cut "
                   f"(`.detach()`, `.data`) at line {line(ctx, where)}: {mods} will not learn from it{note}")
            self.report(where, msg, related=[(step, "this step gets no gradient"),
                                             (backward.call, "the backward it follows")])

    def _dead_term(self, found) -> None:
        """A whole term of the loss cut from its graph (analysis.dead_terms)."""
        ctx = self.ctx
        cut = f"`{code(ctx, found.cut)}`"
        if found.returned:
            where = (f"the loss `{found.loss}` returned at line {line(ctx, found.site)} (its caller backwards it: "
                     "inferred from its name)")
        else:
            where = f"the loss `{found.loss}` backwarded at line {line(ctx, found.site)}"
        if found.via:
            msg = (f"{where} adds `{found.via}`, a term computed from {cut} and values with no graph alone: "
                   f"a constant that sends no gradient")
        else:
            msg = f"{where} adds {cut} as a whole term: cut from its graph it is a constant and sends no gradient"
        if found.lost:
            msg += f" to {_names(found.lost)}, which the loss's other terms train"
        if found.only:
            one = len(found.only) == 1
            msg += f"; {_names(found.only)} reach{'es' if one else ''} the loss only through it " \
                f"and never learn{'s' if one else ''}"
        msg += ". Cut inside the term only what must not learn (a teacher's output, a target)"
        self.report(found.cut, msg, related=[(found.site, "the loss it adds a constant to")])

    def _cut_input(self, found) -> None:
        """A model run inline on a value cut from the stepped ones (analysis.cut_inputs)."""
        ctx = self.ctx
        msg = (f"this term of the loss backwarded at line {line(ctx, found.site)} runs `{code(ctx, found.runs.func)}` "
               f"on `{code(ctx, found.cut)}`, cut from {_names(found.lost)}, which the step after that backward "
               "updates: the term sends them no gradient, only the loss's other terms do")
        self.report(found.cut, msg, related=[(found.site, "the backward it follows")])

    def _cut_argument(self, found) -> None:
        """A cut argument of a method that steps what only it reaches (analysis.cut_arguments)."""
        ctx = self.ctx
        where = f" (defined in {found.where}: read from there, an inference)" if found.where else ""
        msg = (f"`self.{found.method}`{where} zeroes and steps `{found.opt}`, which updates {_names(found.modules)}, "
               f"around a backward whose loss reaches them only through its argument `{found.param}`; "
               f"`{code(ctx, found.arg)}` hands it in cut, so {_names(found.modules)} "
               f"get{'s' if len(found.modules) == 1 else ''} no gradient from that loss. Pass the value uncut "
               f"where {_names(found.modules)} should learn from it")
        self.report(found.arg, msg, related=[(found.call, "the call whose step gets no gradient")])

    def _copied(self, found) -> None:
        """The loss reaches only a copy of the stepped modules (analysis.copied_modules)."""
        ctx = self.ctx
        copy, step, backward = found.copy, found.step, found.backward
        mods, one = _names(found.modules), "s" if len(found.modules) == 1 else ""
        msg = (f"`{code(ctx, step.call)}` (line {line(ctx, step.call)}) updates {mods}, but the loss it follows, "
               f"`{code(ctx, backward.call)}` (line {line(ctx, backward.call)}), runs `{copy.name}`, a copy of "
               f"`{copy.source}` made here by {copy.how}: a copy's parameters are new leaves with no edge back, "
               f"so {mods} get{one} no gradient from it and never learn{one}. "
               f"Compute the loss from {mods}'s own parameters (a functional call on tensors derived from them)")
        if copy.note:
            msg += f"; inferred: {copy.note}"
        self.report(copy.stmt, msg, related=[(step.call, "this step gets no gradient"),
                                             (backward.call, "the backward it follows")])

    def _cut_submodule(self, found) -> None:
        """A layer its class's forward cuts from every output (analysis.cut_submodules)."""
        ctx = self.ctx
        msg = (f"`{found.cls}.forward` runs `{found.submodule}` but cuts every path from it to what it returns "
               f"(`{code(ctx, found.cut)}`, line {line(ctx, found.cut)}), while `{found.method}` (line "
               f"{line(ctx, found.group)}) hands `{found.submodule}.parameters()` to an optimizer: they get no "
               f"gradient and never learn. Drop the cut where `{found.submodule}` should learn; inferred: read "
               f"from the class alone, not from the loop that trains it")
        self.report(found.cut, msg, related=[(found.group, "its parameters go to an optimizer here")])


def _names(modules) -> str:
    return ", ".join(f"`{m}`" for m in sorted(modules))
