"""AD104: retain_graph=True where nothing traverses the graph again."""
from __future__ import annotations

import libcst as cst

from ..analysis.cache_slices import kept_slices
from ..analysis.decide import Problem
from ..analysis.handed_state import handed_state
from ..findings import SAFE, UNSAFE
from ..rule import Edit, Invalid, Valid
from ._ad1_shared import UNSAFE_NOTE, GraphRule, code, without_arg


class RetainGraphUnneeded(GraphRule):
    """
    `retain_graph=True` on a backward after which nothing uses that graph.

    ## What it does
    Finds `backward(retain_graph=True)` and `autograd.grad(...,
    retain_graph=True)` where no later backward, in this iteration or a
    later one, reaches any part of the retained graph.

    ## Why it matters
    Retaining keeps every saved tensor of the graph alive until the next
    iteration replaces it; practitioners who pass it to every call "to be
    safe" report growing memory and slower iterations. Only the calls before
    the last one that shares the graph need it.

    ## Example
    ```python
    loss_a.backward(retain_graph=True)
    loss_b.backward(retain_graph=True)   # the last one sharing the graph
    ```

    ## Fix
    ```python
    loss_a.backward(retain_graph=True)
    loss_b.backward()
    ```

    A call spanning lines is reported where its `retain_graph=True` is.

    ## Fix safety
    Safe: nothing reads the graph afterwards, so the gradients and the
    parameter updates are identical; only memory is freed sooner. Not
    reported when a later backward reuses part of the graph (a tensor built
    from parameters before the loop, a GAN's D step whose `fake` the G step
    reuses; in a loop, a gradient asked for tensors that only values from
    before the loop reach, when those come from a tensor argument: the next
    iteration walks that part again), with `create_graph=True`, or when the graph escapes the
    function (returned, stored on `self` and still held there, or stored on an object the
    caller handed in: `ctx.g = g` in an autograd Function's `forward`, whose `backward`
    differentiates `ctx.g` again; a cut copy, `ctx.g = g.detach()`, keeps nothing). Unsafe when
    the loss comes from a module of this file whose methods hand an object
    it keeps (`self.device = Device(n)`, not torch's) to code that is not
    read (`rotate(self.device, self.angles)`): that code may leave this
    call's graph in the object for the next call (a simulator's state that
    is never reset), which the retain then keeps walkable. Unsafe when
    the loss is built from attributes of `self` that other code fills and
    this method empties after the only backward in the file
    (`loss = torch.cat(self.losses).sum()` ... `self.losses = []`): that
    nothing else keeps the graph is inferred. Unsafe too when the verdict
    rests on a loss object built by another file (`self.disc_loss =
    init_loss(opt)`) whose project classes cut an argument
    (`net(fake.detach())`), or on a loss kept on `self` that the file reads
    only through `.item()`, or when this loss and a later one are both
    built from values in which the analysis sees no graph (networks built
    out of sight, such as a class of another file: they may share one; a
    name also bound to 0 or None, in the arm that skips the backward, still
    names the one value it runs on: a number has no backward), or when the
    loss comes from a method the project defines only as an abstract stub
    (`loss, _ = self.learner.compute_model(batch, w)` where the base class
    raises `NotImplementedError`): the override that runs is out of sight and
    is taken to build its result anew on each call (the same for any call
    whose graph the analysis cannot see into, `loss = self.compute_loss(b)`
    of an abstract method of the class itself), or
    when the loss reads a tensor argument of its function (`def
    enc_update(self, out)`): the caller built that graph and may backward
    through it again after the call. Not reported when a later backward of
    the same iteration reads what the unpacking of this unseen loss also
    bound (`d_loss, fake = out`, then a loss on `fake`), or when a call of that
    function in the project's files hands in a value that the caller's own
    backward reaches afterwards (`z = self.enc(x)`,
    `self.update_encoding(z)`, then a loss on `self.dec(z)` backwarded).
    An optimizer closure that returns its loss is judged where
    `optimizer.step(closure)` runs it, in the functions of this file that
    call the one returning the closure; unsafe when the closure reads that
    function's values (the optimizer may call it more than once) or when
    other files may call it, and not reported when its graph reaches
    values built outside the closure. Not reported either when the loss
    reaches a module whose state the code cuts only outside the loop
    (`net.detach_hidden()` after the frames of a sequence): the next frame's
    forward reads state hanging from this graph (AD106 when the loop steps in
    between); only the last frame's retain may then be unneeded, when the cut
    follows the loop. Not reported either when the loss comes from a method
    of an object `self` holds, out of sight or of a class not known
    (`kl_div = self.agent.compute_kl_div()`), and a later backward of the
    pass reads a value that object's call gave (`task_z = self.agent(obs,
    ctx)`): the method may read state that call kept with its graph (a
    posterior the KL term and the critic share). A value another method keeps on `self`
    (`self.fake_B = self.netG(self.real_A)` in `forward()`) counts as a graph
    other backwards share, so a loss that reaches it keeps its retain.
    Data a project helper caches before the loop (`inps, outs =
    save_inp_oup_data(model, layer, data)` of another file) carries no graph
    when that helper's code shows it: what it gathers comes from an object of
    its file whose `__call__` returns only cut values (`.detach()`, `.data`).
    A loop rebuilding its graph from that data each iteration retains for
    nothing. So do targets a script computes once before its loop from a
    network whose parameters it switched off first (`for p in
    vgg.parameters(): p.requires_grad_(False)`, then `content_features =
    get_features(content, vgg, layers)`, as in style transfer), when nothing
    in the file switches them on again or hands them to an optimizer: they
    carry no graph for the next iteration to walk. Unsafe: that the call
    computes nothing else with gradients is inferred.
    So does data a model whose class the file does not know (built by a
    factory, handed in) packs before the loop with a method of its own
    (`data = self.model.dataset(old.detach(), returns)`), when the project's
    methods of that name, in the file's folder or its package (a sibling
    package holds the model classes), read nothing of `self` that carries a
    graph, abstract stubs (`raise NotImplementedError`) aside: the
    minibatches carry only what the arguments bring. Unsafe: which class
    runs is inferred from the method's name.
    A method that backwards what another one stored on `self` (`def
    backward_D(self): self.D_loss.backward(retain_graph=True)`) is judged
    where the methods of its file that call it run it (`self.forward_D();
    self.backward_D()`), when it returns nothing and no other project file
    calls it; a read of `self.X` (or of an entry, `self.loss["g"]`) that
    follows a new store of it in the same function reads a new graph, not
    the kept one, and so does a chain of calls ending in a cut
    (`self.logit.mean().item()`). Unsafe: that no other file reads those
    attributes is inferred.

    In a loop whose iterations share a graph (per-task gradients for
    gradient surgery: `for i in range(n): losses[i].backward(retain_graph=True)`),
    every iteration but the last needs the retain. When the last one retains
    too (no test, or a test that is always true, such as `if i < n:` with a
    dead `else`) and nothing after the loop backwards the graph, the finding
    says so (a later gradient of the function whose target is built, name by name,
    from the losses handed in backwards it: `torch.autograd.grad(g, x, v)` after a
    Neumann series of products through `g`; values read through `.item()`,
    `.detach()` or a gradient taken without `create_graph` carry none of it; not
    when only locals of the function around the loop hold the
    graph, read elsewhere only through cuts such as `.detach()`, and no loop
    of that function encloses this one: it is freed when the function
    returns); the fix retains only while `i < n - 1`, rewriting the test when
    the two arms differ only in the retain, or else the retain's value. It
    is unsafe when the losses are handed in (the caller may backward them
    again) or when the fix reads `len()` of what `enumerate` walks. A step
    method (`_train_step`) that returns its retained loss is judged by its
    callers: when every call in the project drops the result (a bare call,
    `_ = ...`, a name read only through `.item()` or `.data`), the retain is unneeded,
    as an inference (callers out of sight may backward it: unsafe). A caller
    that unpacks the result (`c_loss, w_dist = gan.train_critic(x, z)`) and
    only prints or logs each name (`print`, string formatting,
    `writer.add_scalar("c", c_loss, step)`, `wandb.log({...})`, an entry
    `out["loss"].item()`) drops it too.
    A function that backwards, once, a forward it builds itself and hands
    the graph out only by its return (a Grad-CAM class's `forward` returning
    `saliency_map, logit`) is judged by who receives it: the project's calls
    of a free function, or of the instances of a plain class (not an
    `nn.Module`) the project builds (`cam = GradCAM(net)`, then `cam(x)`
    through a `__call__` that hands on to the method). Unneeded when each
    reads the result only as numbers (`.item()`, `.detach()`, `.data`, a
    chain ending in one, a comparison, a log), or when the project calls it
    nowhere (library code); not when that backward is in a loop of the
    function and its loss reads a tensor argument (each iteration walks
    that graph again). A helper that backwards a value it is handed
    (`def backward_on_target(self, output, target)`) is judged at its
    project calls: unneeded when after each one the caller runs no backward,
    grad or second call of the helper and reads what the argument hangs from
    only as numbers; not reported when no call is found or the caller hands on
    its own argument. Unsafe: that code out of sight does not backward those
    graphs again is inferred.
    A method whose loss comes, on its own walk, from no graph the analysis
    sees (`tapped, scores = self.tap.run(image)`, a helper object of this
    file, then the only `scores.backward(gradient=one_hot,
    retain_graph=True)` of a Grad-CAM) is judged by its walk as one call of
    a loop its caller runs, with its arguments taken for graphs: unneeded
    when nothing after the backward reads the graph and the method returns
    none of it, and every helper object it takes values from is of a class
    of this file that stores on `self` only in `__init__` or in gradient
    hooks (a helper keeping a value for the next call, or a forward hook
    keeping activations, may hand a later backward this graph). A model
    handed in (`self.model`, stored only by `__init__`) and run inline
    (`for pos, module in self.model.features._modules.items()`) is taken to
    keep nothing between calls when the method steps no optimizer (a
    recurrent model in a training step may keep its state with its graph),
    and no forward hook of its class keeps activations on `self`.
    Unsafe: what the helpers and the model compute is inferred, not walked.
    A helper that backwards `self` state (`def _backward(self, who):
    self._losses[who].backward(retain_graph=True)`, the losses filled by a
    subclass's `calculate_losses` out of sight) is unneeded, unsafe, when
    every project call of it (`self._backward(who=name)`) follows, in its own
    block and with no other call between, a new store of that state (`self._losses
    = self.calculate_losses(x, who=name)`, or `= {}` then a fill) from values of
    that iteration, and no other backward of the file reads it (one in the
    other arm of an `if` of the helper does not run with it); that the new
    values share no graph with the old ones is inferred.
    Two backwards that share only a dict of losses a project model's method
    returns (`losses, fake = trainer(x, mask, gt)`; `losses["d"] =
    losses["d_real"] + losses["d_fake"]` backwarded with the retain, then
    `losses["g"]`) are judged by that method: when it builds the entries each
    loss reads from separate calls (the critic run on `fake.detach()` for the
    critic's terms and again on `fake` for the generator's), the later backward
    walks none of the retained graph. Unsafe: what both read (the method's
    arguments, `self` state only `__init__` stores) is taken to carry no graph.
    Not reported when the entries share a call, a `self` value another method
    stores, or a helper method that reads `self`, when the method branches or
    loops, or when the script hands the dict to a call.
    A helper that takes the retain flag from its callers and hands it to its
    backward (`def update(self, opt, loss, retain_graph=False)`, `optimize(loss,
    opt, retain_graph=True)` of another file) is judged at each call that
    passes `retain_graph=True` by keyword, as that call's backward; the fix
    drops the keyword there (the default retains nothing). Only a parameter
    whose default is `False` or `None` and that the helper reads nowhere but as
    its backwards' `retain_graph=` counts, and only when each of those backwards
    runs on a parameter the helper never rebinds (`loss.backward(...)`): a loss
    the helper builds itself (`d_loss = self.compute_D_loss()`) may walk graphs
    the call's walk does not see. Safe when the helper is in this file
    (the walk inlines it); unsafe when it is of another file, whose code is
    summarised, not walked.
    A backward whose only later backward on the graph is in the other arm of
    the same `if`, in the same pass, needs no retain: the two never run one
    after the other on that graph (a later iteration's is judged as such).
    `torch.autograd.grad(c, x, retain_graph=True)` for tensors its function
    makes anew on each call (`x = s.detach().clone().requires_grad_(True)`,
    `x = a.reshape(n)`) walks only what the call built from them since, even
    when the analysis sees no graph in `c` (`c = event_fn(t, x)` of a function
    handed in): unneeded when no later backward or grad of the function reads
    what `c` hangs from, and nothing of it is returned, stored or handed to a
    call out of sight. Unsafe when a call out
    of sight builds `c`: that it keeps none of its graph is inferred.
    In a loop of the function (the inner loop of first-order meta-learning:
    `fast = [p + 0. for p in params]`, then on each step `grads =
    torch.autograd.grad(loss, fast, retain_graph=True)` and `fast[i] = fast[i]
    - lr * grads[i]`), the same holds when every binding of the inputs, element
    stores included, makes new tensors (none is an argument or is stored in
    place), the loss is bound anew before the grad on every iteration, and
    nothing carries it, or what it was built from, to a later walk, to the next
    iteration or out of the call. A grad stops at its inputs: what lies behind
    them (the earlier steps, the meta-parameters the caller backwards later) is
    not walked, and a walk in the other arm of the `if` around the grad
    (`create_graph=True` when not first-order) does not run with it. Unsafe
    when a call out of sight builds the loss or is handed the inputs (it may
    store in them a tensor built before), or when the verdict rests on a grad
    stopping at the tensors a list holds: that none of them is built on
    another (the grad would walk on into it) is inferred.
    A running total backwarded every few steps and started again in the same
    block (`total.backward(retain_graph=True)`, `opt.step()`, `total = 0`, a
    minibatch of meta-learning tasks) retains for nothing when every binding of
    the total in its function is a number or a sum of itself (`total = total +
    loss`, `total += loss`, `total = total / n`) and the later backwards reach
    this graph only through reads of it (or of a helper's own running total,
    which each call starts anew) made after the reset: on the path where the
    backward ran the total was reset, so what they reach was added on a path
    that skipped it. A copy kept under another name (`previous = total`) keeps
    the retain. A helper that reads only a setting of the model it is handed
    (`size = model.n_window`, every store of that attribute in the project's
    files a literal, no property or `setattr` of that name) runs nothing of the
    model: data it prepares before the loop carries no graph. So does one that
    reads the attribute, whatever stores it (`self.n_window = feats`), only
    where a number goes: an index or a slice bound (`data[i - size:i]`), a size
    (`x.repeat(size - i, 1)`, `range(size)`) or a comparison, directly or
    through the one local name bound to it; an attribute tested there
    (`"TranAD" in args.model`) reads no variable `model`.
    A recurrent state cut by a method of an object whose class the function
    does not know (`hidden = helper.repackage_hidden(hidden)`, `helper` handed
    in) is taken for the project's methods of that name when each of them
    returns only cut values (`h.detach()`, a tuple of its own recursive calls):
    unsafe, the class is inferred. A caller that only compares the returned
    loss with a number (`if loss < 1e-4: break`) drops it.
    An explainer's last walk (`out[:, k].sum().backward(retain_graph=True)` in
    a method, an `nn.Module`'s `forward` included, that runs a fresh forward of
    a model it holds) retains for nothing when the method runs no backward or
    grad after it, reads the graph afterwards only through cuts (`.detach()`,
    `.data`, an `argmax`, a comparison), returns, stores and hands on none of
    it, and keeps it only in attributes its forward hooks fill (`self.acts =
    output`), which each call replaces (a list the hook appends to: which the
    method empties first) and which no other method, no script and no other
    file of the project reads (`cam.acts`); not in a class that steps an
    optimizer, nor when the loss reads other `self` state or a call out of
    sight. Unsafe: that the model handed in keeps nothing between calls, and
    that the arguments carry no graph the caller walks again, is inferred.
    A store of part of the graph into an object the caller handed in (`debug["action"]
    = action`) keeps nothing of it when the store and the backward sit under tests
    that contradict each other on a name the function never rebinds (`if not
    learn:`, then `if learn and step % k == 0:`): they never run in one call.
    A function of a notebook that backwards once and returns part of that graph
    (a C&W attack returning its best adversarial image) retains for nothing when
    the notebook runs no other backward or grad: unsafe, a cell run by hand later
    is not seen. A step method that returns its losses (`return d_real, d_fake,
    d_loss`) is judged by the walks of this file's methods that call it as
    `self.<name>(...)` and bind the result to plain names (`d_real, d_fake, d =
    self._train_discriminator(x, y)`), when no other project file calls it: those
    walks see what reads the losses afterwards (`float(d)`, a G step on a new fake).
    """

    code = "AD104"
    kind = Problem.RETAIN_UNNEEDED  # what the analysis calls this problem
    name = "retain-graph-unneeded"
    summary = "retain_graph=True on the last backward that uses a graph keeps it alive for nothing"
    fix_safety = SAFE
    tokens = ("retain_graph", "retain_variables")  # the analysis reads the 0.3 name too

    VALID = [
        Valid("""
            import torch
            from torch import nn
            trunk = nn.Linear(4, 4); actor = nn.Linear(4, 2); critic = nn.Linear(4, 1)
            opt = torch.optim.SGD([*trunk.parameters(), *actor.parameters(), *critic.parameters()], lr=0.1)
            for i in range(3):
                h = trunk(torch.randn(2, 4))
                opt.zero_grad()
                actor(h).mean().backward(retain_graph=True)
                critic(h).mean().backward()
                opt.step()
        """, note="the second backward reuses the trunk's graph"),
        Valid("""
            import torch
            weight = torch.nn.Parameter(torch.randn(4, 1))
            opt = torch.optim.SGD([weight], lr=0.1)
            w = weight / weight.norm()
            for i in range(3):
                loss = (torch.randn(2, 4) @ w).pow(2).mean()
                opt.zero_grad()
                loss.backward(retain_graph=True)
                opt.step()
        """, note="the graph built before the loop is reused by every iteration"),
        Valid("""
            import torch
            from torch import nn
            D = nn.Linear(4, 1)
            opt = torch.optim.SGD(D.parameters(), lr=0.1)
            for i in range(3):
                x = torch.randn(2, 4, requires_grad=True)
                out = D(x)
                g = torch.autograd.grad(out.sum(), x, create_graph=True, retain_graph=True)[0]
                loss = out.mean() + g.pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, note="gradient penalty: the loss backwards through the retained graph"),
        Valid("""
            def step(loss):
                loss.backward(retain_graph=True)
        """, note="the graph comes from outside: unknown"),
        Valid("""
            import torch
            from torch import nn
            trunk = nn.Linear(4, 4); heads = nn.ModuleList([nn.Linear(4, 1) for _ in range(3)])
            opt = torch.optim.SGD([*trunk.parameters(), *heads.parameters()], lr=0.1)
            for step in range(3):
                h = trunk(torch.randn(2, 4))
                losses = [head(h).mean() for head in heads]
                opt.zero_grad()
                for i in range(len(losses)):
                    if i < len(losses) - 1:
                        losses[i].backward(retain_graph=True)
                    else:
                        losses[i].backward()
                opt.step()
        """, note="per-task backwards: the last task's backward frees the shared graph"),
    ]
    INVALID = [
        Invalid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward(retain_graph=True)
                opt.step()
        """, """
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, line=8, column=5, message="retains a graph that no later backward uses"),
        Invalid("""
            import torch
            from torch import nn
            trunk = nn.Linear(4, 4); actor = nn.Linear(4, 2); critic = nn.Linear(4, 1)
            opt = torch.optim.SGD([*trunk.parameters(), *actor.parameters(), *critic.parameters()], lr=0.1)
            for i in range(3):
                h = trunk(torch.randn(2, 4))
                opt.zero_grad()
                actor(h).mean().backward(retain_graph=True)
                critic(h).mean().backward(retain_graph=True)
                opt.step()
        """, """
            import torch
            from torch import nn
            trunk = nn.Linear(4, 4); actor = nn.Linear(4, 2); critic = nn.Linear(4, 1)
            opt = torch.optim.SGD([*trunk.parameters(), *actor.parameters(), *critic.parameters()], lr=0.1)
            for i in range(3):
                h = trunk(torch.randn(2, 4))
                opt.zero_grad()
                actor(h).mean().backward(retain_graph=True)
                critic(h).mean().backward()
                opt.step()
        """, note="retain_graph everywhere: only the last is dropped", line=9, column=5),
        Invalid("""
            import torch


            class Trainer:
                def __init__(self, enc, dec):
                    self.enc, self.dec = enc, dec
                    self.opt = torch.optim.SGD([*enc.parameters(), *dec.parameters()], lr=0.1)

                def enc_update(self, out):
                    self.opt.zero_grad()
                    loss = self.enc(out).mean()
                    loss.backward(retain_graph=True)
                    self.opt.step()
        """, """
            import torch


            class Trainer:
                def __init__(self, enc, dec):
                    self.enc, self.dec = enc, dec
                    self.opt = torch.optim.SGD([*enc.parameters(), *dec.parameters()], lr=0.1)

                def enc_update(self, out):
                    self.opt.zero_grad()
                    loss = self.enc(out).mean()
                    loss.backward()
                    self.opt.step()
        """, unsafe=True, line=12, column=9, message="an argument of `enc_update()`",
            note="`out` may be a decoder's output the caller backwards again (`dec_update(out)`): unsafe"),
    ]

    INVALID += [
        Invalid("""
            import torch
            from torch import nn
            trunk = nn.Linear(4, 4); heads = nn.ModuleList([nn.Linear(4, 1) for _ in range(3)])
            opt = torch.optim.SGD([*trunk.parameters(), *heads.parameters()], lr=0.1)
            for step in range(3):
                h = trunk(torch.randn(2, 4))
                losses = [head(h).mean() for head in heads]
                opt.zero_grad()
                for i in range(3):
                    if i < 3:
                        losses[i].backward(retain_graph=True)
                    else:
                        losses[i].backward()
                opt.step()
        """, """
            import torch
            from torch import nn
            trunk = nn.Linear(4, 4); heads = nn.ModuleList([nn.Linear(4, 1) for _ in range(3)])
            opt = torch.optim.SGD([*trunk.parameters(), *heads.parameters()], lr=0.1)
            for step in range(3):
                h = trunk(torch.randn(2, 4))
                losses = [head(h).mean() for head in heads]
                opt.zero_grad()
                for i in range(3):
                    if i < 2:
                        losses[i].backward(retain_graph=True)
                    else:
                        losses[i].backward()
                opt.step()
        """, note="the test is always true: the last task retains too", line=11, column=13,
            message="on the last iteration"),
        Invalid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)


            def update(loss, retain_graph=False):
                opt.zero_grad()
                loss.backward(retain_graph=retain_graph)
                opt.step()


            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                update(loss, retain_graph=True)
        """, """
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)


            def update(loss, retain_graph=False):
                opt.zero_grad()
                loss.backward(retain_graph=retain_graph)
                opt.step()


            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                update(loss)
        """, note="the helper hands the caller's flag to its backward: judged and dropped at the call",
            line=15, column=5, message="retains a graph that no later backward uses"),
    ]

    def finish(self) -> None:
        ctx = self.ctx
        for found in ctx.analysis.diagnoses_for(self.kind):
            if found.last is not None:
                self._last(found)
                continue
            ev = found.event
            call = ev.call
            if any(k.backward is call for k in kept_slices(ctx.analysis)):
                continue  # the next call backwards again through a slice this one stores (AD101)
            # outside a loop nothing replaces it: it lives as long as the loss or an output is referenced
            until = "the next iteration replaces it" if ev.loops else "nothing refers to the loss or its outputs"
            msg = (f"`{code(ctx, call)}` retains a graph that no later backward uses: it stays in "
                   f"memory until {until}; drop `retain_graph=True`")
            unseen = sorted({n.unseen for n in ev.reach if n.unseen})
            inferred = []
            if found.emptied:
                names = ", ".join(f"`{k}`" for k in found.emptied)
                inferred.append(f"the loss comes from {names}, filled by other code and emptied after this "
                                f"backward, which is the only one in the file")
            else:
                if unseen:
                    # what the loss hangs from is out of sight: it may share a graph built before the loop
                    inferred.append(f"{unseen[0]}, and code out of sight built it, so a graph it shares "
                                    "with later iterations would not be seen")
                inferred.extend(found.inferred)
            for n in ev.reach:
                note = handed_state(ctx.analysis, n.expr) if n.kind == "module" else None
                if note and note not in inferred:
                    inferred.append(note)  # the module may keep this call's graph for the next (a simulator)
            extra = {"fix": UNSAFE} if inferred else {}
            if inferred:
                msg += "; inferred: " + "; ".join(inferred)
            rep = self.report(self._at(call, ev.retain_arg), msg, edits=[Edit(call, without_arg(call, ev.retain_arg))],
                              fix_title="Drop `retain_graph=True`", **extra)
            if inferred and not rep.message.endswith(UNSAFE_NOTE):
                rep.message += UNSAFE_NOTE

    def _at(self, call, arg):
        """Where the finding points: the call, or, when the call spans lines, its
        `retain_graph=True` (the text the fix removes, maybe lines below the call's start)."""
        ctx = self.ctx
        if arg is not None and ctx.line_of(arg) != ctx.line_of(call):
            return arg
        return call

    def _kept_until(self, ev, loop) -> str:
        """How long the retained graph lives after the loop: until a loop around it in the
        same function runs again (a training step's), else until nothing refers to it (a
        function's locals: when it returns; AgileRL's `get_action()` has no next step)."""
        ctx = self.ctx
        fn = ctx.enclosing(ev.call, cst.FunctionDef)
        outer = [lp for lp in ev.loops if lp is not loop and ctx.encloses(lp, loop) and
                 (fn is None or ctx.encloses(fn, lp))]
        if outer:
            around = outer[-1]
            head = f"for {code(ctx, around.target)} in {code(ctx, around.iter)}" \
                if isinstance(around, cst.For) else f"while {code(ctx, around.test)}"
            return f"until the next iteration of `{head}` (line {ctx.line_of(around)}) rebinds what holds it"
        if fn is not None:
            return (f"until nothing refers to the loss or its outputs (where only locals of `{fn.name.value}()` "
                    "do, until it returns)")
        return "until nothing refers to the loss or its outputs"

    def _last(self, found) -> None:
        """Every iteration of the loop but the last needs the retain (the
        next one walks the graph again); the last keeps it for nothing."""
        ctx, ev, last = self.ctx, found.event, found.last
        call = ev.call
        loop = f"`for {code(ctx, last.loop.target)} in {code(ctx, last.loop.iter)}`"
        when = f" ({last.why} when `{last.index}` is `{last.last}`)" if last.why else ""
        msg = (f"`{code(ctx, call)}` retains the graph on the last iteration of {loop} too{when}: the "
               f"earlier iterations need it for the next one's backward, but nothing after the loop "
               f"backwards that graph, which stays in memory {self._kept_until(ev, last.loop)}")
        if last.not_last:
            msg += f"; retain only while `{last.not_last}`"
        else:
            msg += "; retain on every iteration but the last (loop with `enumerate` to know which)"
        extra = {"fix": UNSAFE} if found.inferred else {}
        if found.inferred:
            msg += "; inferred: " + "; ".join(found.inferred)
        edits = []
        if last.edit is not None:
            node, text = last.edit
            new = cst.parse_expression(text)
            edits = [Edit(node, new.with_changes(lpar=node.lpar, rpar=node.rpar) if node.lpar else new)]
        rep = self.report(call, msg, edits=edits, fix_title="Retain on every iteration but the last", **extra)
        if found.inferred and edits and not rep.message.endswith(UNSAFE_NOTE):
            rep.message += UNSAFE_NOTE


