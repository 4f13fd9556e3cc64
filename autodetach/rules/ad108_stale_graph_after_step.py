"""AD108: a loss built before optimizer.step() is backwarded after it."""
from __future__ import annotations

import libcst as cst

from ..findings import UNSAFE
from ..rule import Edit, Invalid, Valid
from ..analysis.argument_losses import generator_after_critic_step
from ..analysis.decide import Problem
from ..analysis.loss_loop_steps import steps_between_loss_backwards
from ..analysis.returned_stale import stale_returns
from ..analysis.stored_graphs import per_sample_steps
from ..imports import dotted
from ._ad1_shared import GraphRule, BACKWARD_TOKENS, code, line


class StaleGraphAfterStep(GraphRule):
    """
    A loss computed before `optimizer.step()` is backwarded after it.

    ## What it does
    Finds a backward whose graph was built before an optimizer step that
    updates parameters used in that graph (for example a GAN computing the
    generator loss up front, then `optD.step()`, then `g_loss.backward()`).

    The order is followed across the methods of a trainer class:
    `optimize_parameters()` calling `self.forward()`, `self.backward_D()`,
    `self.optimizer_D.step()`, `self.backward_G()`, phases that keep their
    outputs and losses on `self`, and two phase methods driven from another
    file, where the second reads a `self.X` that only the first stores (an
    order the message says was inferred).

    Two shapes are reported without a fix, because what the step updates is
    inferred: an optimizer whose parameters are not known in the file (built
    by the caller, unpacked from a list argument, or bound to a plain name
    by a call of another file: `opt, opt_D = model.get_optimizer(lr)`) is
    taken to step what the backward it applies ran through
    (`opt.zero_grad(); loss.backward(); opt.step()`, or `model.zero_grad()`
    clearing the model that graph runs, with the optimizer over
    `model.grouped_parameters()`), when a later backward walks that same
    graph; and a loop
    over the losses of one forward (`for opt, loss in zip(opts, losses)`)
    that backwards with `retain_graph` and steps inside the loop, before the
    next loss's backward through the shared graph. Such a loop in a helper
    of another file (a base class's `optimize_multi(opts, losses)`) is
    followed at its call, `self.optimize_multi(self.gen_opt, [mana_loss,
    work_loss])`, pair by pair, when the call shows the lists' elements.

    A value carried from one iteration into the next through a method of a
    class of another file (`action, logp = agent.get_action(state)`) links
    the loss to the graph built before the step only when that method's code
    keeps the argument's graph in what it returns (a `Categorical` built
    from it, no `.detach()` or `.data`); the message says it was read there.

    `net.load_state_dict(saved)` copies into the parameters in place as a
    step does: meta-learning code that sums each task's query loss, restores
    the weights before the next task and backwards the sum after the loop is
    reported, without a fix (each task's gradients must be taken before the
    reload). A helper walked at its call (`def adapt(model, opt, x)`, called
    `adapt(net, inner, x)`) steps the caller's module when the file hands
    that parameter only one. When the backward sits in a step helper that
    several methods call (`self._update(loss)`) and a loop hands it a graph
    built before the loop (`self.enforce(x, encoded=enc)` in `for x in
    others:`), the call in the loop is reported too: the helper's own line
    does not say which caller is wrong.

    A trainer whose base class lives in another file is read there: the
    optimizers its `__init__` builds on `self` and what they own
    (`self.optimizer_E = Adam(Q_params)`, `Q_params` a list of the encoder's
    parameters), and a base method such as `self.update_encoding(z)` that
    backwards a loss on its argument and steps `self.optimizer_E`; the
    message says what was read there. Attributes such a base class's
    `__init__` sets from its arguments (`self.critic_optimizer =
    optimizers["critic"]`, `self.critic = critic`) are data, not methods:
    stepped and zeroed, one is an optimizer, paired by name with the network
    this class calls on tensors (`self.critic(fake)`); the message names the
    base class and says the pairing was inferred. A model built by a lower-case or
    star-imported class of the project (`genmodel = styletransfer()`) is a
    module too. A loss function of another file that trains a discriminator
    inside (`factorvae_loss_fn(w, PermD, optim_PermD, ..., z=z)` steps
    `optim_PermD` after building the term it returns from `PermD(z)`) makes
    the caller's backward of that term stale; the order is read from its
    code, and reported without a fix. It is followed when the caller hands
    its keywords on (`factorvae_loss_fn(w, PermD, optim_PermD, **kwargs)`,
    the modules and optimizer named at the call), from a method that
    calls the method calling it (`self.vae_base()` calling `self.loss_fn()`),
    and into a dict of losses that merges what it returns
    (`losses.update(self.loss_fn(...))`). A dict or tuple of losses is read
    entry by entry: `losses["total"].backward()` beside a discriminator loss
    built before its step walks the total only.

    An optimizer wrapper (a class of this file or of the project that stores
    its optimizer argument on `self` and steps it in a method, such as a
    warmup schedule's `sched_g.step_and_update_lr()`) steps the optimizer
    the call that builds it hands over; the class is read where it is
    defined, and the message names it. A function's optimizer parameter is
    paired by name with a parameter of the same side (`critic_optimiser`
    with `critic`), also when the body already shows that parameter is a
    module (`clip_grad_norm_(critic.parameters(), 1)`); the message says so.

    An optimizer built by a method of the class or of a base class in
    another file whose name says it makes one (`self._get_optimizer(kind,
    self.policy, lr)`, the optimizer class chosen at run time) and whose
    every return is built from `model.parameters()` of one of its
    parameters is taken to step the module handed for it; a comprehension
    of such calls over `self.critics` gives a list whose entries step the
    critics. A loss helper that reduces a comprehension over a container of
    models (`torch.min(*[critic(s, a) for critic in self.critics])`) is
    walked at its call, so its loss carries the critics' graph, and a step
    helper called in a list comprehension over `zip(losses, self.critic_opts,
    self.critics)` steps them. Both inferences are said in the message.

    A method of a class of another file that runs `.backward()` on what it
    is handed (a gradient balancer's `balancer.step([loss_a, loss_b])`,
    itself or through one more method of its class) backwards the caller's
    graph at the call; the message says it was read there.

    A step right after `opt.zero_grad()` leaves alone a module that no
    backward since the clear reached: torch >= 2.0 sets cleared gradients
    to None and torch.optim's optimizers skip such parameters. One optimizer
    over G and D whose D step backwards `D(fake.detach())` therefore does not
    make `fake`'s graph stale; with `zero_grad(set_to_none=False)` the zeros
    are applied in place (Adam's running averages move the weights), and it
    is reported.

    A function that trains the discriminator inside and returns the other
    network's loss is read at its return: a relativistic GAN's loss module
    that steps `self.optimizer` after `loss_d.backward(retain_graph=True)`,
    then builds the generator loss from a new forward on the fakes and the
    `d_real` kept from before the step, hands its caller a graph the step
    made stale. It is reported where that output is read (without a fix)
    when the returned value also runs the stepped network again after the
    step (a loss built for the next update, not outputs or a metric handed
    back for logging); that the
    caller backwards it is inferred, and the message says so. Networks
    registered by `self.add_module("dis", dis)`, `register_module` or
    `setattr(self, "dis", dis)` are `self.dis`, so an optimizer built over
    the local `dis` steps it; and `model.backward(gen_loss, dis_loss)` of a
    class of this file that defines `backward` runs that method (also in a
    function whose calls hand it the object: `def fit(model, n)`, called
    `fit(net, 3)`), with the losses that `model.process(...)` returned
    walked through the modules it runs.

    A learned scalar held by a module whose forward returns its parameter
    (`self.log_alpha()`, a SAC temperature) and read only through an op that
    saves its output (`self.log_alpha().exp()`, `torch.exp(...)`, `sigmoid`,
    `tanh`) is not at risk: the step changes the parameter, not what the
    graph saved.

    ## Why it matters
    `step()` updates the parameters in place, and the graph saved the old
    values: since PyTorch 1.5 the backward raises "one of the variables
    needed for gradient computation has been modified by an inplace
    operation". Before 1.5 it silently computed gradients from a mix of old
    and new weights. It is the most common failure when 2018 GAN or
    actor-critic code meets a current PyTorch.

    ## Example
    ```python
    g_loss = bce(netD(fake), ones)
    optD.zero_grad(); d_loss.backward(); optD.step()
    optG.zero_grad(); g_loss.backward(); optG.step()
    ```

    ## Fix
    ```python
    optD.zero_grad(); d_loss.backward(); optD.step()
    optG.zero_grad()
    g_loss = bce(netD(fake), ones)
    g_loss.backward(); optG.step()
    ```

    ## Fix safety
    Unsafe: the forward pass is recomputed after the step, with the updated
    parameters. That is what current PyTorch requires and what the code
    computed on old releases only approximately. Offered only when the loss
    is computed by one statement in the same block as its backward, or, when
    the loss is computed after the step from values computed before it (the
    discriminator outputs of a Softmax GAN), when each of those values is one
    `name = ...` statement in that block: they are computed again just
    before the loss (a module that draws random numbers or updates running
    statistics then does so twice).
    """

    code = "AD108"
    kind = Problem.STALE_AFTER_STEP  # what the analysis calls this problem
    name = "stale-graph-after-step"
    summary = "a loss built before optimizer.step() is backwarded after the step modified its parameters"
    fix_safety = UNSAFE
    # a backward after or before the step; or a step helper of another file handed an
    # optimizer attribute (`update_params(self.q1_optim, q1_loss)`), which runs both, or
    # a list of them (`self.optimize_multi(self.opts, [loss_a, loss_b])`)
    tokens = BACKWARD_TOKENS + ("_optim,", "_optimizer,", "_opt,", "opts,", "optimizers,")

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
        """, note="the G loss is computed after the D step"),
        Valid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            other = nn.Linear(4, 1)
            opt = torch.optim.SGD(other.parameters(), lr=0.1)
            for i in range(3):
                loss = m(torch.randn(2, 4)).mean()
                opt.step()
                loss.backward()
        """, note="the step does not own the loss's parameters"),
        Valid("""
            import torch
            from torch import nn
            class Model:
                def __init__(self):
                    self.netG = nn.Linear(4, 4); self.netD = nn.Linear(4, 1)
                    self.optimizer_G = torch.optim.SGD(self.netG.parameters(), lr=0.1)
                    self.optimizer_D = torch.optim.SGD(self.netD.parameters(), lr=0.1)
                def forward(self):
                    self.fake_B = self.netG(torch.randn(2, 4))
                def backward_D(self):
                    self.loss_D = self.netD(self.fake_B.detach()).mean()
                    self.loss_D.backward()
                def backward_G(self):
                    self.loss_G = -self.netD(self.fake_B).mean()
                    self.loss_G.backward()
                def optimize_parameters(self):
                    self.forward()
                    self.optimizer_D.zero_grad(); self.backward_D(); self.optimizer_D.step()
                    self.optimizer_G.zero_grad(); self.backward_G(); self.optimizer_G.step()
        """, note="phase methods: the G loss is built in backward_G, after the D step"),
    ]
    INVALID = [
        Invalid("""
            import torch
            from torch import nn
            class Model:
                def __init__(self):
                    self.netG = nn.Linear(4, 4); self.netD = nn.Linear(4, 1)
                    self.optimizer_G = torch.optim.SGD(self.netG.parameters(), lr=0.1)
                    self.optimizer_D = torch.optim.SGD(self.netD.parameters(), lr=0.1)
                def forward(self):
                    self.fake_B = self.netG(torch.randn(2, 4))
                    self.loss_G = -self.netD(self.fake_B).mean()
                def backward_D(self):
                    self.loss_D = self.netD(self.fake_B.detach()).mean()
                    self.loss_D.backward()
                def optimize_parameters(self):
                    self.forward()
                    self.optimizer_D.zero_grad(); self.backward_D(); self.optimizer_D.step()
                    self.optimizer_G.zero_grad(); self.loss_G.backward(); self.optimizer_G.step()
        """, None, line=17, note="phase methods: forward() builds the G loss before the D step",
            message="backwards through a graph built at line 10"),
        Invalid("""
            import torch
            from torch import nn
            G = nn.Linear(4, 4); D = nn.Linear(4, 1)
            optG = torch.optim.SGD(G.parameters(), lr=0.1)
            optD = torch.optim.SGD(D.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                d_loss = D(fake.detach()).mean()
                g_loss = -D(fake).mean()
                optD.zero_grad()
                d_loss.backward()
                optD.step()
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
                optG.zero_grad()
                g_loss = -D(fake).mean()
                g_loss.backward()
                optG.step()
        """, unsafe=True, line=14, column=5),
        Invalid("""
            def update(losses, optimizers):
                for i, (opt, loss) in enumerate(zip(optimizers, losses)):
                    opt.zero_grad()
                    loss.backward(retain_graph=i < len(losses) - 1)
                    opt.step()
        """, None, line=4, note="losses of one forward: the step inside the loop runs before the next backward",
            message="backward every loss first"),
        Invalid("""
            import torch.nn.functional as F

            def train(models, optimizers, batches):
                encoder, regressor, head = models
                optimizer, optimizer_conf = optimizers
                for x, y, d in batches:
                    optimizer.zero_grad()
                    features = encoder(x)
                    F.mse_loss(regressor(features), y).backward(retain_graph=True)
                    optimizer.step()
                    optimizer_conf.zero_grad()
                    F.mse_loss(head(features), d).backward()
                    optimizer_conf.step()
        """, None, line=12, note="optimizers from the caller: what `optimizer` steps is inferred from its backward",
            message="it is taken to step `encoder`"),
        Invalid("""
            import torch
            from torch import nn


            class AdaptNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.f, self.D = nn.Linear(4, 4), nn.Linear(4, 1)

                def forward(self, x):
                    return self.f(x)

                def get_optimizers(self, lr):
                    return torch.optim.SGD(self.f.parameters(), lr=lr), torch.optim.SGD(self.D.parameters(), lr=lr)


            model = AdaptNet()
            opt, opt_D = model.get_optimizers(0.1)
            for x in [torch.randn(2, 4)] * 3:
                feat = model(x)
                d_loss = model.D(feat).mean()
                f_loss = -model.D(feat).mean() + feat.pow(2).mean()
                opt_D.zero_grad()
                d_loss.backward(retain_graph=True)
                opt_D.step()
                opt.zero_grad()
                f_loss.backward()
                opt.step()
        """, None, line=27, note="optimizers a method builds: what `opt_D` steps is inferred from its backward",
            message="the parameters of `opt_D` are not known here"),
    ]

    def finish(self) -> None:
        ctx = self.ctx
        analysis = ctx.analysis
        done = set()
        for found in analysis.diagnoses_for(self.kind):
            backward, opt_step, built, part = found.backward, found.step, found.built, found.part
            done.add(backward.call)
            done.add((opt_step.call, built.stmt))  # the caller's backward is in sight: not its return too
            msg = (f"`{code(ctx, backward.call)}` (line {line(ctx, backward.call)}) backwards through a graph built at "
                   f"line {line(ctx, built.stmt)}, before `{code(ctx, opt_step.call)}` (line {line(ctx, opt_step.call)}"
                   f"{_when(opt_step, backward)}) "
                   f"updated those parameters in place: recompute the forward after the step"
                   + (f"; inferred: the call at line {line(ctx, built.stmt)} runs `{part}`, which "
                      f"`{opt_step.opt}` steps" if part else "")
                   + ((", " if part else "; inferred: ") + found.note if found.note else ""))
            if opt_step.kind == "reload":
                # a reload is no training step: recomputing after it is rarely what was meant
                msg = (f"`{code(ctx, backward.call)}` (line {line(ctx, backward.call)}) backwards through a graph "
                       f"built at line {line(ctx, built.stmt)}, before `{code(ctx, opt_step.call)}` (line "
                       f"{line(ctx, opt_step.call)}{_when(opt_step, backward)}) copied saved values into those "
                       "parameters in place: backward the loss (or take its gradients) before the reload. Not fixed: "
                       "the order of the updates must change" + (f"; inferred: {found.note}" if found.note else ""))
                self.report(backward.call, msg,
                            related=[(opt_step.call, "this reload overwrites the parameters"),
                                     (built.stmt, "the graph was built here")])
                continue
            if found.applied is not None:
                # what the step updates is inferred, and a recompute changes the numbers: no fix
                mods = ", ".join(f"`{m}`" for m in sorted(built.modules))
                msg += ((", " if part or found.note else "; inferred: ") +
                        f"the parameters of `{opt_step.opt}` are not known here; it is taken to step {mods}, "
                        f"because it applies the gradients of `{code(ctx, found.applied.call)}` (line "
                        f"{line(ctx, found.applied.call)}), whose graph runs through it. Not fixed: the fix depends "
                        "on what it owns (backward this loss before the step, or recompute it after)")
                self.report(backward.call, msg,
                            related=[(opt_step.call, "this step modifies the parameters"),
                                     (built.stmt, "the graph was built here")])
                continue
            edits = self._move(analysis, backward, found.stale) or self._recompute(backward, opt_step, found.stale)
            self.report(backward.call, msg, edits=edits, fix_title="Recompute the loss after the step",
                        related=[(opt_step.call, "this step modifies the parameters"),
                                 (built.stmt, "the graph was built here")])
            self._call_site(found, done)

        for fn in analysis.names.functions_all:
            for call, step, arg in generator_after_critic_step(fn, analysis.names.optimizers):
                if call in done:
                    continue
                done.add(call)
                self.report(call, f"`{code(ctx, call)}` (line {line(ctx, call)}) backwards `{arg}`, an argument whose "
                                  f"graph the caller built before `{code(ctx, step)}` (line {line(ctx, step)}) updated "
                                  "its parameters in place: backward it before the step, or build it after; inferred: "
                                  f"a generator loss (`{arg}`, by its name) goes through the discriminator that "
                                  f"`{dotted(step.func.value)}` steps (by its name)",
                            related=[(step, "this step modifies the parameters")])

        for found in stale_returns(analysis):
            read = found.read
            if read in done or (found.step.call, found.stale.stmt) in done:
                continue
            done.add(read)
            fn = ctx.enclosing(found.ret, (cst.FunctionDef,))
            where = f"`{fn.name.value}`" if fn is not None else "this function"
            what = (f"`{code(ctx, read)}` (line {line(ctx, read)}) hands back a value built from " if read is found.ret
                    else f"`{code(ctx, read)}` (line {line(ctx, read)}) builds what {where} returns (line "
                    f"{line(ctx, found.ret)}) from ")
            self.report(read, what + f"`{found.stale.name or code(ctx, found.stale.stmt)}`, "
                              f"computed at line {line(ctx, found.stale.stmt)} before `{code(ctx, found.step.call)}` "
                              f"(line {line(ctx, found.step.call)}) updated the parameters it saved in place: a "
                              "backward of the returned value fails ('modified by an inplace operation'); recompute "
                              "that output after the step; inferred: the caller backwards what is returned (it is "
                              f"built after the step through a new forward, line {line(ctx, found.fresh)})"
                              + (f"; the parameters of `{found.step.opt}` are not known here; it is taken to step "
                                 + ", ".join(f"`{m}`" for m in sorted(found.stale.modules))
                                 + f", because it applies the gradients of `{code(ctx, found.applied.call)}` (line "
                                 f"{line(ctx, found.applied.call)}), whose graph runs through it"
                                 if found.applied is not None else "")
                              + ". Not fixed: recomputing changes the gradients",
                        related=[(found.step.call, "this step modifies the parameters"),
                                 (found.stale.stmt, "the graph was built here")])

        for call, step, loss, loop in per_sample_steps(ctx.module, analysis.names, ctx.imports):
            if call in done:
                continue
            done.add(call)
            source = code(ctx, loop.iter)
            self.report(call, f"`{code(ctx, call)}` (line {line(ctx, call)}) walks a graph built before the loop: "
                              f"`{loss}` is computed only from the elements of `{source}`, with no forward pass in the "
                              f"loop, and `{code(ctx, step)}` (line {line(ctx, step)}) updated parameters in place "
                              "in the previous iteration: backward every element, then step once after the loop; "
                              f"inferred: the stored values in `{source}` were computed with the parameters that "
                              f"`{dotted(step.func.value)}` steps",
                        related=[(step, "this step modifies the parameters")])

        for found in steps_between_loss_backwards(ctx.module, analysis.names):
            if found.backward in done:
                continue
            done.add(found.backward)
            self.report(found.backward,
                        f"`{code(ctx, found.backward)}` (line {line(ctx, found.backward)}) keeps the graph that the "
                        f"loop's next loss backwards through again, and `{code(ctx, found.step)}` (line "
                        f"{line(ctx, found.step)}) updates parameters in place before that backward: backward "
                        "every loss first, then step after the loop; inferred: the losses share the graph (the "
                        "retain_graph says so) and that shared part saved weights the step updates. Not fixed: "
                        "the steps must move out of the loop",
                        related=[(found.step, "this step modifies the parameters")])

    def _call_site(self, found, done) -> None:
        """The call in the loop that hands a shared helper the stale graph
        (analysis/loop_call_sites.py), reported there too: the helper's own
        line does not say which of its callers is wrong."""
        from ..analysis.loop_call_sites import loop_call_site

        ctx = self.ctx
        backward = found.backward
        if {t[0] for t in found.built.iteration} & {t[0] for t in backward.tag}:
            return  # built in the loop's own iteration (inside the helper): the helper's line is the place
        site = loop_call_site(ctx, backward.loops[-1] if backward.loops else None, backward.stmt)
        if site is None or site in done:
            return
        done.add(site)
        helper = ctx.enclosing(backward.stmt, (cst.FunctionDef,)).name.value
        self.report(site, f"`{code(ctx, site)}` (line {line(ctx, site)}) runs `{code(ctx, backward.call)}` (line "
                          f"{line(ctx, backward.call)}, in `{helper}`, which other code calls too) on a graph built "
                          f"before this loop (line {line(ctx, found.built.stmt)}), after "
                          f"`{code(ctx, found.step.call)}` (line {line(ctx, found.step.call)}) updated those "
                          f"parameters in place in the previous iteration: build what it is handed inside the "
                          f"loop, or backward every loss before the first step. Not fixed here (see line "
                          f"{line(ctx, backward.call)})",
                    related=[(backward.call, "the backward"), (found.built.stmt, "the graph was built here")])

    def _move(self, analysis, backward, stale) -> list:
        if any(n.iteration != backward.tag for n in stale):
            return []  # built before the loop: moving it is not the fix
        ctx = self.ctx
        heads = list(backward.target.heads)
        if len(heads) != 1 or set(stale) != {heads[0]}:
            return []
        root = heads[0]
        stmt = root.stmt
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return []
        if not isinstance(backward.stmt, cst.SimpleStatementLine) or ctx.parent(stmt) is not ctx.parent(backward.stmt):
            return []
        if _read_between(ctx, stmt, backward.stmt):
            return []  # `losses = trainer(x)` read by `losses["d"].backward()` before: moving breaks it
        moved = stmt.with_changes(leading_lines=[])
        return [Edit(stmt, cst.RemovalSentinel.REMOVE),
                Edit(backward.stmt, cst.FlattenSentinel([moved, backward.stmt]))]

    def _recompute(self, backward, step, stale) -> list:
        """The loss is built after the step from values built before it
        (softmax_gan: `d_real`, `d_fake`, `Z`, then `optD.step()`, then
        `g_loss = f(d_real, d_fake, Z)`): the statements that built those
        values run again just before the loss, each a plain `name = ...` in
        the loss's block."""
        ctx = self.ctx
        heads = list(backward.target.heads)
        if len(heads) != 1 or heads[0] in stale or heads[0].seq < step.seq:
            return []
        head = heads[0].stmt
        redo = []
        for node in sorted((n for n in backward.reach if not n.leaf and n.seq < step.seq), key=lambda x: x.seq):
            if node in stale or any(p in redo for p in node.parents):
                redo.append(node)
        # a value built after the step from one redone here (`recon = P(z)` between the step and
        # `loss = f(recon)`) would keep the old graph: copying `z = Q(x)` before the loss fixes nothing
        tainted = set(redo)
        for node in sorted((n for n in backward.reach if not n.leaf and n.seq > step.seq and n is not heads[0]),
                           key=lambda x: x.seq):
            if any(p in tainted for p in node.parents):
                return []
        block = ctx.parent(head)
        for node in redo:
            stmt = node.stmt
            if (node.iteration != backward.tag or not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1
                    or not isinstance(stmt.body[0], cst.Assign) or len(stmt.body[0].targets) != 1
                    or not isinstance(stmt.body[0].targets[0].target, cst.Name) or ctx.parent(stmt) is not block):
                return []
        copies = [n.stmt.with_changes(leading_lines=[]) for n in redo]
        copies[0] = copies[0].with_changes(leading_lines=head.leading_lines)
        return [Edit(head, cst.FlattenSentinel([*copies, head.with_changes(leading_lines=[])]))]


def _when(step, backward) -> str:
    """Where the step ran, seen from the backward."""
    if step.tag == backward.tag or backward.tag[:len(step.tag)] == step.tag:
        return ""  # the same pass, or before the loop the backward is in
    if len(step.tag) > len(backward.tag) and step.tag[:len(backward.tag)] == backward.tag:
        return ", in the loop before it"
    return ", in the previous iteration"


def _read_between(ctx, stmt, later) -> bool:
    """Does a statement between `stmt` and `later` (same block) read a name
    that `stmt` binds?"""
    from ..analysis.walk import nodes

    body = list(ctx.parent(stmt).body) if hasattr(ctx.parent(stmt), "body") else []
    if stmt not in body or later not in body:
        return True
    bound = {n.value for t in getattr(stmt.body[0], "targets", ()) for n in nodes(t.target)
             if isinstance(n, cst.Name)}
    if not bound:
        return True
    between = body[body.index(stmt) + 1:body.index(later)]
    return any(isinstance(n, cst.Name) and n.value in bound for s in between for n in nodes(s))
