"""AD101: a graph-carrying value outlives its iteration."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..analysis.acting_state import acting_states
from ..analysis.cache_slices import kept_slices
from ..analysis.value_caches import value_caches
from ..analysis.threaded_state import threaded_states
from ..analysis.unfollowed_reads import unfollowed_read
from ..analysis.backwarded import holds_element
from ..analysis.buffer_updates import ENTRIES, OWN, buffer_updates, grad_condition
from ..analysis.decide import Problem
from ..findings import SAFE, UNSAFE
from ..analysis.factories import factory_notes
from ..analysis.forward_extras import class_unseen
from ..analysis.graph import closure
from ..analysis.walk import nodes
from ..imports import dotted
from ..rule import Edit, Invalid, Valid
from ..analysis.uses import operands, read_as_mapping
from ..analysis.plain_values import loop_number_why, maybe_plain, not_tensor, partly_plain_read, unseen_method, \
    why as plain_why, unpacked_why
from ._ad1_shared import UNSAFE_NOTE, GraphRule, BACKWARD_TOKENS, backward_text, path_note, code, detach, line, \
    unseen_note


_GRAPH_TOKENS = BACKWARD_TOKENS + ("register_buffer", "nn.Parameter(", "allclose(", "torch.equal(")
# a metric class whose callers, in other files, hand it the model's output (analysis.metric_states)
METRIC_TOKENS = ("def __call__(self", "def update(self")
# a sampling function that threads a handed module's state (`hidden = model.init_hidden(...)`)
# or a step that threads a network's state through a function or a method of a project class (any name,
# but a word of recurrence or of an acting loop in the file: "torch" alone admitted 653 of 762 torch source
# files on benchmarks/prefilter's sample, these words 396, none of them 382)
STATE_TOKENS = ("hidden", "_state(", "_states(", "env.", "rnn", "RNN", "lstm", "LSTM", "gru", "GRU", "ecurrent",
                "emory(", ", state)", ", h)", "hx")


def _graph_code(text: str) -> bool:
    """Is one of the rule's graph tokens in the file's code (not only in comments and docstrings)?
    Without one, only a metric class is looked for (the rest needs a backward in sight)."""
    from ..code_tokens import code_rules

    def among(t, rules):
        return rules if any(tok in t for tok in _GRAPH_TOKENS) else []

    return bool(code_rules(text, lambda t: among(t, [True]), among))


class GraphKeptAcrossIterations(GraphRule):
    """
    A tensor that carries a graph is kept from one iteration to the next.

    ## What it does
    Finds values computed in one iteration of a training loop and read in a
    later one while still attached to their graph: kept in an outer
    variable, appended to a list, stored on an attribute, or folded into a
    running statistic (`ema = 0.9 * ema + 0.1 * out`). It points at the
    tensor, where it is stored, and the backward that reaches it. It also
    finds, with no training loop in sight, a module whose forward updates
    tensor state it keeps (a registered buffer) from this call's graph:
    `self.running_mean.mul_(0.9).add_(0.1 * x.mean(0))`, or
    `self.avg = 0.9 * self.avg + 0.1 * h.mean(0)`, `self.stored_mean[:] = ...`.
    That the input carries a graph is inferred, and only for a module with
    parameters of its own, or one without that a module of the file with
    parameters feeds from them (a batch-norm core handed its owner's gain and
    bias) or an `nn.Sequential` puts after a layer; the module that feeds it
    may live in another project file that imports the class and builds it in
    `__init__` (a statistics module a coupling layer calls on its network's
    output), read there with the same walk. A sum folded in a loop that
    backwards nothing, with gradients on, through a module the training loop
    of the same function or script backwards (a pass over the data after
    training), is reported too: the fix is unsafe when the sum is kept on an
    object after the loop, where code not read may backward it. A reset in a method only
    `__init__` calls (`reset_parameters`) is initialisation, not the caller
    managing recurrent state. And recurrent state kept on `self` (by a
    module's forward, `x, self.hc = self.lstm(x, self.hc)`, or by an agent,
    `out, self.h = self.rnn(obs, self.h)`) that an acting loop grows step
    after step with gradients on: the loop backwards nothing, nor resets the
    state, and the call's outputs leave only as numbers (`q.argmax().item()`),
    so every step's graph hangs from the last until the next reset. The
    same for local state a loop feeds back into the call that returned it
    (`out, state = model(x, state)` in a sampling loop, or
    `a, h = agent.act(obs, h)` where `act` runs a module on `h` and returns
    the new state): no backward, cut or reset in the loop, the state read
    only by that call, the other outputs only as numbers (`model.eval()`
    turns no gradients off). The call may be a function of the file, or a
    method of an object whose class the file does not show (`a, next_h =
    policy.select_action(obs, h)`, then `h = next_h`, the policy built
    elsewhere): its code is read in each project class that defines the
    method, which must run a network on the state and hand the new state
    back (that one of them runs is inferred: the fix is unsafe). Or a
    method of the object whose method runs the loop (`action, hidden =
    self.step(obs, hidden)` in `Runner.episode`), read in that class, in a
    file that may train nothing: reported when a call of the loop's method
    in this file or in one that imports its class runs it outside
    `torch.no_grad()` (`runner.episode(100)` in a test script; no decorator,
    no `with`, and no guarded call of the function that makes it), and
    left alone when every call seen turns gradients off, or none is seen;
    that the network the step runs has trainable parameters is inferred
    (it is built from a class): the fix is unsafe. The same in a file
    that trains nothing for a module with parameters called in a loop of
    the script itself (a sampling script: `logits, h = model(x, h)` with
    no `torch.no_grad()`), or of a function of the file some call of
    which, here or in a file that imports it, runs outside
    `torch.no_grad()` (and none under it); a file that freezes parameters
    or turns gradients off (`requires_grad_(False)`,
    `set_grad_enabled(False)`) is left alone. A reset
    on an `if` arm (`if done: h = policy.initial()`) ends an episode, not
    the chain; a loop that also trains is no bar when nothing but the call
    reads the state (or a buffer whose method keeps it detached). Where a
    buffer keeps the state as it is (`memory.push(obs, h)`), the finding
    has no fix: a backward through a stored state would need the chain.
    Also in a file with no backward, for a
    function handed the module (`def sample(model, n)`) whose state first
    comes from a method of it (`hidden = model.init_hidden(1)`) that only
    `nn.Module` classes of the project define, when no call of the function
    that the project's files show runs it under `torch.no_grad()` or
    backwards its result: that the parameter is such a module is inferred,
    and the fix is unsafe. And a per-step cache on `self` (entries another
    method appends) that a training method joins, trains on in part, and
    stores back as a slice of the join (`log_probs = torch.cat(self._lp)`,
    `self._lp = [log_probs[n:]]`): the slice hangs from the join, trained
    entries included, so each call's graph chains onto the previous ones.
    Reported without a fix: detaching the slice would cut the gradient its
    entries still owe the next loss (keep them as whole items instead). An
    agent that stores a member network's output, computed with gradients on
    and not cut (`values = self.critic(s)`), into a member memory
    (`self.memory.add(values=values)`, its class often in another file), and
    an update that draws from that memory once and, in a loop of epochs,
    backwards a loss that reads what it drew and the same network's output:
    every backward after the first walks the stored graph the first freed.
    Reported without a fix (that the memory hands back what it kept is
    inferred, and a cut changes what a retained backward sends through the
    stored values); one backward per draw (REINFORCE, A2C) is left alone, as
    is a store any caller of the project runs under `torch.no_grad()`. A
    base class's loop that keeps what a method left to subclasses returns
    (`loss, meta = self.forward_step(mb)`, the method raising
    `NotImplementedError` there, then `outputs.append(meta)`) is read
    through the one subclass of the file that defines the method: that this
    override is what runs is an inference the message names (a dict or list
    it returns is reported without a fix).
    A helper with no backward of its own that appends to a list bound
    outside it (`policy.saved_log_probs.append(m.log_prob(a))` in
    `select_action`, `self.log_probs.append(...)` in an agent's `act`) is
    read at each call, so a list the episode's backward sums and nobody
    empties is found (REINFORCE without its `del ...[:]`); not where a
    function the analysis does not walk empties it, nor, for a method, where
    the caller touches the list itself. A stored value that is the helper's
    parameter gets no fix (the caller's tuple has no `.detach()`, and the
    cut would apply to every caller). A namedtuple the module builds keeps
    what it is given.
    A value forward computes once from the module's trained parameters and
    keeps for every later call (`if not hasattr(self, "_w"): self._w =
    torch.linalg.solve(k, self.values)`), with no method that clears it, is
    reported without a fix: the next backward through a prediction walks
    into the memo's freed graph.
    State a method computes from an argument and reuses while a later
    argument has the same values (`if not torch.allclose(cell,
    self._cell): self._vectors = f(cell)`) is reported without a fix: for an
    argument that requires grad, a later call reuses an earlier call's freed
    graph and gets no gradient of its own; that the argument requires grad
    is inferred. An input a function makes require grad and hands to its
    own optimizer (`w.requires_grad = True`, `Adam([w])`: an attack, a style
    transfer) is a leaf of each step's graph, so `best[mask] = adv[mask]`
    into a tensor made before the loop keeps every step's graph.
    A metric class whose `__call__` or `update` adds a tensor computed from
    its argument into `self` state (`self.true_positives += (y_true *
    y_pred).sum(dim=0)`), on some arm of its `if`s (a binary arm that only
    rounds), is reported at the store when a training loop of another file
    of the project hands it the model's output whose loss it backwards (or
    `torch.sigmoid` of it), with gradients on and no `reset()` of the metric
    in that function, through an object annotated or built there as the
    class or a base class of it (`metric: Optional[Metric]`): the fix is
    unsafe, the callers and the object's class being inferred from another
    file. A tensor on `self` made before a loop (`self.emb = torch.zeros(n,
    d)`) and filled slot by slot with an attribute the class's network keeps
    (`self.emb[idx] = self.model.emb[:k].cpu()`), in a loop that runs the
    network with gradients on and backwards nothing (a scoring pass): each
    in-place copy hangs the tensor from that batch's graph and the previous
    copies. The loop runs the network directly or through a method whose
    result another method of the class backwards while stepping an optimizer
    of the network's parameters; that the attribute holds the forward's
    output with its graph is inferred, and the fix is unsafe.
    A value a loop hands to a replay memory of the file (`memory.add(mean)`,
    `memory.push(Transition(s, a, mean))`: a class whose method keeps its
    argument in `self` state and whose `sample` method hands entries back)
    that is not a loss: each stored step keeps its graph for later
    iterations (a loss kept so is AD102's). Fixed with `.detach()` of the
    value (unsafe: what the memory keeps is read from its code, and what
    reads the sampled entries is not followed); a record (a namedtuple) is
    reported without a fix. Where one iteration stores several values into
    slots of one kept tensor (`metrics[PRED, s:e] = prob[:, 1]`, then
    `metrics[LOSS, s:e] = loss`), each store that brings a graph is
    reported, not only the last: detaching the last leaves the others.
    Library code with no training loop in sight: memory a module's forward
    reads into its output and then sets anew from its old value and this
    call's graph (`self.M, self.z = self._update_memory(k, v, self.M,
    self.z)`, a registered buffer) is reported when no code of the project
    cuts it: no method or caller sets it anew or detaches it (an in-place
    `zero_()` keeps the history), and the helper does not hand back
    detached values. That the module is trained with a backward per call is
    inferred: the fix is unsafe, and a tuple from a helper gets none. A dict
    keyed by tensors (`key = (ys, xs)`, `self.Js[key] = Jacobian(ys, xs)`)
    whose entries a `create_graph=True` gradient fills, on an object made
    once at import (`jacobian._fn = Jacobians()`, or a module-level dict),
    and that no code of the file clears, is reported without a fix: a
    tensor hashes by identity, so each training step's new tensors add an
    entry that keeps their graphs (that the callers hand it new tensors
    each step is inferred). An evaluation function that runs with gradients
    on (every call the file shows is outside `torch.no_grad()` and backwards
    nothing it returns) and stores a value built from every iteration of its
    loop where the call does not end it, a module global it declares
    `global` or an attribute of `self` (`best_loss = val_loss` where
    `val_loss` averages every batch's loss), keeps the whole pass's graphs
    alive until a later call rebinds it, through the training that runs in
    between. Not when a backward of the file reads the global or the
    attribute, or a name bound from it (then the graph is wanted); the fix
    (store it detached) rests on the callers' grad mode: unsafe. A file that
    takes torch from a project module that imports it (`from utils._libs_
    import math, torch, nn`) is read as torch code, its `nn`, `F` and `optim`
    as torch's.

    ## Why it matters
    When the kept value reaches a later loss, the next backward walks into
    the previous iteration's graph, which the previous backward already
    freed: "Trying to backward through the graph a second time", although
    the code calls backward once per iteration. When it reaches no loss, it
    keeps every iteration's graph alive and memory grows each step.
    `retain_graph=True` silences the error but makes the growth permanent.

    ## Example
    ```python
    for x in data:
        z = encoder(x)
        history.append(z)
        loss = (z - torch.stack(history).mean(0)).pow(2).mean()
        loss.backward()
    ```

    ## Fix
    ```python
        history.append(z.detach())
    ```

    ## Fix safety
    Safe when the kept value never reaches a backward (a leak: the numbers do
    not change). Unsafe when it reaches a later loss: the cut stops
    gradients from flowing into earlier iterations, which is almost always
    what the author meant but does change the numbers compared with keeping
    every graph (`retain_graph=True`). A buffer of graph tensors that a
    backward consumes and that is cleared before the next one (REINFORCE's
    `saved_log_probs`) is left alone, and so is a sum that a backward
    consumes and that starts again after it (`total.backward(); total = 0`).
    A running loss sum that is itself backwarded with `retain_graph=True`
    every step (`total = total + loss; total.backward(retain_graph=True)`)
    is reported without a fix: detaching the sum leaves nothing to backward,
    and backwarding only the step's loss changes the updates. An acting
    forward that grows recurrent state is run under `torch.no_grad()`, an
    unsafe fix: that no later forward trains through the state the acting
    steps leave is inferred (so is the recurrent call of a loop that feeds
    its state back). A chain that an inner loop keeps and that the value
    its function returns hangs from (an unrolled learned optimizer: `w, h =
    meta(x, w, states[-1]); states.append(h)`, then `return w`) is left
    alone in that function, whose callers may backward through it; where
    the function is walked at its call and the caller hands the result to
    code out of sight, it is reported and the fix is unsafe. So is a value
    whose graph would come only from a module nothing tells the class of (a
    caller's policy, `copy.deepcopy(policy)`) when no backward runs through
    what it returns: its forward may hand back a number or a numpy array
    (`.detach()` of which raises). The fix is unsafe too where code the
    walk does not follow reads the kept value: a `lambda` or a function over
    its name (`penalty = lambda: ema.mean()`), or another method that returns
    what `self.key` keeps (`def summary(self): return self.bank[-1]`); what
    they return may be backwarded, and the detach would cut that gradient.
    """

    code = "AD101"
    kind = Problem.CROSS_ITERATION  # what the analysis calls this problem
    name = "graph-kept-across-iterations"
    summary = "a tensor carrying a graph outlives its iteration (crash on the next backward, or a leak)"
    fix_safety = UNSAFE
    # a module that updates its buffers from its graph, keeps values computed from its parameters,
    # or caches what it computes from an argument by the argument's values
    tokens = _GRAPH_TOKENS + METRIC_TOKENS + STATE_TOKENS

    VALID = [
        Valid("""
            import torch
            from torch import nn


            class Leaky(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(3, 8)
                    self.register_buffer("v", torch.zeros(1, 8))

                def reset_states(self):
                    self.v.zero_().detach_()

                def forward(self, x):
                    self.v = 0.9 * self.v + self.fc(x)
                    return self.v

            layer = Leaky()
            opt = torch.optim.SGD(layer.parameters(), lr=0.1)
            for i in range(3):
                layer.reset_states()
                loss = sum(layer(torch.randn(1, 3)).pow(2).mean() for _ in range(4))
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, note="state a reset method cuts in place (`detach_()`): history within one sequence, by design"),
        Valid("""
            import torch
            from torch import nn
            enc = nn.Linear(4, 4)
            opt = torch.optim.SGD(enc.parameters(), lr=0.1)
            history = []
            for i in range(3):
                z = enc(torch.randn(2, 4))
                history.append(z.detach())
                loss = (z - torch.stack(history).mean(0)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, note="stored detached"),
        Valid("""
            import torch
            from torch import nn

            class Norm(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.weight = nn.Parameter(torch.ones(n))
                    self.register_buffer("running_mean", torch.zeros(n))

                def forward(self, x):
                    with torch.no_grad():
                        self.running_mean.mul_(0.9).add_(0.1 * x.mean(0))
                    return x * self.weight
        """, note="a running statistic updated under no_grad"),
        Valid("""
            import torch
            from torch import nn
            from torch.distributions import Categorical
            policy = nn.Linear(4, 2)
            opt = torch.optim.Adam(policy.parameters())
            saved = []
            for episode in range(3):
                for t in range(5):
                    m = Categorical(logits=policy(torch.randn(4)))
                    a = m.sample()
                    saved.append(m.log_prob(a))
                loss = -torch.stack(saved).sum()
                opt.zero_grad()
                loss.backward()
                opt.step()
                del saved[:]
        """, note="REINFORCE: the buffer is consumed and cleared"),
        Valid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            prev = None
            for i in range(3):
                out = m(torch.randn(2, 4))
                loss = out.pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                prev = out
        """, note="kept one iteration, never accumulated, never backwarded again"),
        Valid("""
            import torch
            from torch import nn
            shared, heads = nn.Linear(4, 2), nn.ModuleList([nn.Linear(2, 1), nn.Linear(2, 1)])
            opt = torch.optim.SGD(list(shared.parameters()) + list(heads.parameters()), lr=0.1)
            losses = {}
            for step in range(3):
                opt.zero_grad()
                rep = shared(torch.randn(8, 4))
                for t in range(2):
                    losses[t] = heads[t](rep).pow(2).mean()
                for t in range(2):
                    losses[t].backward(retain_graph=t == 0)
                opt.step()
        """, note="one entry per task, replaced at each step: nothing is summed"),
    ]
    INVALID = [
        Invalid("""
            import torch
            from torch import nn


            class Smooth(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(4, 4)
                    self.last = None

                def forward(self, x):
                    y = self.lin(x)
                    if self.last is not None:
                        y = y + 0.5 * self.last
                    self.last = y
                    return y

            model = Smooth()
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            for i in range(3):
                loss = model(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, """
            import torch
            from torch import nn


            class Smooth(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(4, 4)
                    self.last = None

                def forward(self, x):
                    y = self.lin(x)
                    if self.last is not None:
                        y = y + 0.5 * self.last
                    self.last = y.detach()
                    return y

            model = Smooth()
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            for i in range(3):
                loss = model(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, unsafe=True, note="a module that keeps its last output", line=15, column=21,
            message="stores a tensor that carries this call's graph"),
        Invalid("""
            import torch
            from torch import nn

            class Norm(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.weight = nn.Parameter(torch.ones(n))
                    self.register_buffer("running_mean", torch.zeros(n))

                def forward(self, x):
                    mean = x.mean(0)
                    self.running_mean.mul_(0.9).add_(0.1 * mean)
                    return (x - mean) * self.weight
        """, """
            import torch
            from torch import nn

            class Norm(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.weight = nn.Parameter(torch.ones(n))
                    self.register_buffer("running_mean", torch.zeros(n))

                def forward(self, x):
                    mean = x.mean(0)
                    self.running_mean.mul_(0.9).add_((0.1 * mean).detach())
                    return (x - mean) * self.weight
        """, unsafe=True, note="a buffer updated in place from the input's graph (inferred)", line=12, column=9,
            message="updates `self.running_mean` in place"),
        Invalid("""
            import torch
            from torch import nn
            enc = nn.Linear(4, 4)
            opt = torch.optim.SGD(enc.parameters(), lr=0.1)
            history = []
            for i in range(3):
                z = enc(torch.randn(2, 4))
                history.append(z)
                loss = (z - torch.stack(history).mean(0)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, """
            import torch
            from torch import nn
            enc = nn.Linear(4, 4)
            opt = torch.optim.SGD(enc.parameters(), lr=0.1)
            history = []
            for i in range(3):
                z = enc(torch.randn(2, 4))
                history.append(z.detach())
                loss = (z - torch.stack(history).mean(0)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, unsafe=True, line=8, column=20),
        Invalid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            prev = torch.zeros(2, 1)
            for i in range(3):
                out = m(torch.randn(2, 4))
                loss = (out - prev).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                prev = out
        """, """
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            prev = torch.zeros(2, 1)
            for i in range(3):
                out = m(torch.randn(2, 4))
                loss = (out - prev).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                prev = out.detach()
        """, unsafe=True, line=12, column=12),
        Invalid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            ema = torch.zeros(())
            for i in range(3):
                out = m(torch.randn(2, 4))
                ema = 0.9 * ema + 0.1 * out.mean()
                loss = out.pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, """
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            ema = torch.zeros(())
            for i in range(3):
                out = m(torch.randn(2, 4))
                ema = (0.9 * ema + 0.1 * out.mean()).detach()
                loss = out.pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """, note="a running statistic that is only kept: a leak, safe fix", line=8, column=11),
    ]

    def finish(self) -> None:
        ctx = self.ctx
        analysis = ctx.analysis
        done = set()
        if not _graph_code(ctx.text):
            self._metric_states(done)
            self._threaded(done)  # a sampling function handed a project module (threaded_state's)
            return
        for diagnosis in analysis.diagnoses_for(self.kind):
            link, conflict = diagnosis.link, diagnosis.conflict
            if link.stmt is None or id(link.stmt) in done:
                continue
            done.add(id(link.stmt))
            src = link.expr
            what = code(ctx, src) if src is not None else link.name
            stored = f"stored in `{link.name}`" if link.name else "kept"
            second = conflict.second.call
            msg = (f"`{what}` is {stored} (line {line(ctx, link.stmt)}) and reaches the loss of a later "
                   f"iteration: {backward_text(ctx, conflict.second)} (line {line(ctx, second)}) walks into "
                   f"the previous iteration's graph, already freed by {backward_text(ctx, conflict.first)}. "
                   f"Detach it where it is stored (this stops gradients flowing into earlier iterations)")
            edit = _store_edit(ctx, src, link)
            unread = _unread_output(ctx, link)
            if unread is not None:
                msg += (f"; inferred: `{link.name or what}` carries a graph (it comes out of "
                        f"`{code(ctx, unread.func)}`, whose forward was not read to tell which outputs carry one)")
            if link.iteration[:len(conflict.second.tag)] == conflict.second.tag:
                # read in the iteration whose loss it feeds (`loss += self.loss_dict[key]`): a
                # .detach() there also cuts this iteration's own terms
                edit = None
                msg = msg.split(". Detach it")[0] + (
                    ". Set it again (or clear it) in every iteration; detaching it here would also cut "
                    "this iteration's own loss, so no fix is offered")
            self.report(src if edit else link.stmt, msg, edits=[edit] if edit else [], fix=UNSAFE if edit else None,
                        fix_title="Store it detached",
                        related=[(second, "this backward reaches the previous iteration")] + path_note(ctx, conflict))
        self._buffer_updates(done)  # first: a cache of a parameter's values gets no .detach()
        for cls, key, store, read in analysis.stateful_attrs:
            if store.stmt is None or id(store.stmt) in done:
                continue
            done.add(id(store.stmt))
            src = store.expr
            msg = (f"`{cls.name.value}.forward` reads `{key}` (line {line(ctx, read)}) and stores a tensor that "
                   f"carries this call's graph in it (line {line(ctx, store.stmt)}): each call links to the "
                   f"previous call's graph, so the second backward walks into a freed graph (or memory grows). "
                   f"Store it detached")
            edit = _store_edit(ctx, src, store)
            self.report(src if edit else store.stmt, msg, edits=[edit] if edit else [], fix=UNSAFE if edit else None,
                        fix_title="Store it detached", related=[(read, "the previous value is read here")])
        self._acting(done)
        self._replayed_members(done)
        self._threaded(done)
        self._kept_slices(done)
        self._value_caches(done)
        self._tensor_keyed(done)
        self._metric_states(done)
        self._network_slots(done)
        self._outliving(done)
        for scope, leak in analysis.leaks:
            node = leak.node
            if (node.loss and not leak.reached) or node.stmt is None or id(node.stmt) in done:
                continue  # a loss kept but never backwarded again is AD102's
            if node.kind not in ("op", "accum", "container", "module"):
                continue
            if leak.reached and _reset_after_backward(ctx, scope, leak):
                continue  # `total.backward(...); total = 0`: gradient accumulation over a window
            done.add(id(node.stmt))
            src = node.expr
            if node.meter is not None:
                self._replayed(leak, node, src)
                continue
            edit = _store_edit(ctx, src, node)
            held = src is not None and holds_element(node, {leak.key, ctx.code(src).strip()})
            if held:
                edit = None  # `outputs.append(output)` where `output["loss"].backward()`: no .detach() of a dict
            if node.loss and getattr(scope, "caller_loop", False) and "." not in leak.key:
                continue  # a local of a step method: each call starts it again
            if node.loss:
                # `total = total + loss; total.backward(retain_graph=True)`: the retain hides the
                # error; detaching the sum would leave nothing to backward, so no fix is offered
                self.report(node.stmt, (
                    f"`{leak.key}` sums every iteration's loss with its graph (line {line(ctx, node.stmt)}) and "
                    f"each backward walks all of it again, retained: the gradient adds every earlier loss at "
                    f"weights that have since changed, and memory and time per step grow. Backward this "
                    f"iteration's loss and keep the sum as a number (`{leak.key} += loss.item()`)"))
                continue
            if leak.reached:
                msg = (f"`{leak.key}` accumulates graph from every iteration (line {line(ctx, node.stmt)}) "
                       f"and each backward walks all of it again: memory and time per step grow. "
                       f"Detach it where it is stored")
                fix = UNSAFE
            else:
                msg = (f"`{leak.key}` keeps every iteration's graph alive (line {line(ctx, node.stmt)}): "
                       f"memory grows each step. Detach it where it is stored")
                fix = SAFE
                if id(leak.loop) in scope.eval_loops:
                    msg += (" (the loop backwards nothing and runs with gradients on, no `torch.no_grad()` around "
                            "it, through a module the training loop backwards")
                    kept = _kept_on_object(scope, leak.key)
                    if kept:
                        fix = UNSAFE
                        msg += (f"); inferred: nothing backwards the sum, though `{kept}` keeps it after the loop "
                                f"and code outside this function, not read, may")
                    else:
                        msg += "; nothing backwards the sum, so the cut changes no update)"
            if edit is not None and (param := _parameter(ctx, src)) is not None:
                # `self.data.append(transition)` of `put_data(self, transition)`: what callers hand it
                # (`(s, a, r, prob)`, a tuple) may have no `.detach()`, and a cut there cuts for every caller
                edit = None
                msg += (f"; `{ctx.code(src).strip()}` is a parameter of `{param}`: what its callers hand it is "
                        f"not known to be a tensor, and a detach there would apply to every caller: no fix is offered")
            if held:
                msg += f" (`{ctx.code(src).strip()}` holds the backwarded loss as an element: detach each tensor in it)"
            elif src is not None and edit is None and not_tensor(ctx, src):
                msg += f"; {unpacked_why(ctx, src, node.stmt, leak.key) or plain_why(ctx, src)}"
            elif src is not None and edit is None and (plain := partly_plain_read(ctx, src)) is not None:
                msg += f" ({loop_number_why(plain)})"
            elif src is not None and edit is None and (why := maybe_plain(ctx, src)) is not None:
                msg += f" ({why}: no fix is offered)"
            notes = factory_notes(ctx.analysis, closure([node])) + \
                sorted({n.summed for n in closure([node]) if n.summed})
            if leak.feeds:
                notes.append(f"what `{leak.feeds}` returns hangs from the chain kept in `{leak.key}`, and the "
                             f"caller may backward through it (a cut there would stop that gradient)")
            if edit is not None and fix is SAFE and node.returned:
                # the kept values go back to a caller not followed: a cut there is judged by what that
                # caller does, which is inferred (it may backward them)
                notes = notes + [node.returned]
            elif (node.uncertain or node.opaque) and edit is not None and fix is SAFE:
                # `bleu_sum += model.seq_bleu(out, ref)`: what comes out of code not followed may be a
                # number, and `.detach()` of a number raises
                notes = notes + [unseen_note(ctx, src)]
            elif edit is not None and fix is SAFE and (method := unseen_method(ctx, src)):
                notes = notes + [method]  # `logs` of `loss, logs = model.train_step(b)`
            elif edit is not None and fix is SAFE and (read := unfollowed_read(ctx, node, leak.key)):
                notes = notes + [read]
            elif edit is not None and fix is SAFE and (unseen := _unseen_modules(ctx, scope, node)):
                notes = notes + [f"{' and '.join(f'`{k}(...)`' for k in unseen)} "
                                 f"{'is' if len(unseen) == 1 else 'are'} taken to return a tensor with a graph "
                                 f"(nothing here tells the class, and no backward runs through what it returns)"]
            if notes:
                msg += "; inferred: " + "; ".join(notes) + UNSAFE_NOTE
                fix = UNSAFE
            self.report(src if edit else node.stmt, msg, edits=[edit] if edit else [],
                        fix=fix if edit else None, fix_title="Store it detached")

    def _replayed(self, leak, node, src) -> None:
        """`memory.add(Transition(s, a, mean))` into a replay memory of the file whose
        `sample` hands its entries back (analysis.flow's `_replay_class`)."""
        ctx = self.ctx
        method, where, store, whole, _callee, _note = node.meter
        cls = method.split(".")[0]
        into = f"({where}, line {store})" if store is not None else "(its code is not read)"
        msg = (f"`{leak.key}` keeps `{code(ctx, src)}` with its graph (line {line(ctx, node.stmt)}): `{method}` "
               f"keeps {'it' if whole else 'its entries'} in the object's state {into}, and `{cls}.sample` "
               f"hands entries back to later iterations, so every step's graph stays alive and memory grows")
        if leak.reached:
            self.report(src, msg + "; a later backward reaches what it keeps, so a cut would change the "
                                   "gradients: keep detached tensors (or recompute them) instead; no fix is offered")
            return
        if not whole or not_tensor(ctx, src) or isinstance(src, (cst.Tuple, cst.List, cst.Dict)):
            self.report(src, msg + "; pass detached tensors instead (it is not one tensor: no fix is offered)")
            return
        msg += (f"; pass `.detach()` instead; inferred: what `{method}` keeps is read from its code, and what "
                f"reads the entries `{cls}.sample` hands back is not followed" + UNSAFE_NOTE)
        self.report(src, msg, edits=[Edit(src, detach(src))], fix=UNSAFE, fix_title="Pass `.detach()`")

    def _acting(self, done: set) -> None:
        """Recurrent state an acting loop grows step after step and never backwards."""
        ctx = self.ctx
        for a in acting_states(ctx.analysis):
            if id(a.stmt) in done:
                continue
            done.add(id(a.stmt))
            reset = f"until `{'`/`'.join(a.resets)}` binds it anew" if a.resets else "as long as the object lives"
            runs = f"calls `{a.via}` (which makes this call)" if a.via else "makes this call"
            msg = (f"`{code(ctx, a.call)}` runs with gradients on, and `{a.keeper}` stores in `{a.key}` "
                   f"recurrent state computed from the previous call's (line {line(ctx, a.store)}): the loop at line "
                   f"{line(ctx, a.loop)} {runs} step after step, backwards nothing and uses the outputs only as "
                   f"numbers, so each step's graph hangs from the last and stays alive {reset} (memory grows "
                   f"with the episode). Run this forward under `torch.no_grad()` (or detach `{a.key}` where it "
                   f"is stored)")
            self._under_no_grad(a.call, a.stmt, msg, f"no later forward trains through the state these steps "
                                f"leave in `{a.key}` (under `torch.no_grad()` it carries no graph)",
                                "Run the acting forward under `torch.no_grad()`")

    def _replayed_members(self, done: set) -> None:
        """A graph stored into a member memory whose draw an update backwards more than once
        (analysis.replayed_members)."""
        from ..analysis.replayed_members import replayed_members

        ctx = self.ctx
        for r in replayed_members(ctx.analysis):
            if id(r.store) in done:
                continue
            done.add(id(r.store))
            msg = (f"`{r.value}` comes out of `{r.producer}` with gradients on and `{r.cls}.{r.storer}` stores it "
                   f"with its graph in `{r.memory}` (`{code(ctx, r.store_call.func)}`, line "
                   f"{line(ctx, r.store_call)}), an object that outlives the step; `{r.updater}` draws from "
                   f"`{r.memory}` once (line {line(ctx, r.draw)}) and the loop at line {line(ctx, r.loop)} "
                   f"backwards a loss that reads what it drew ({code(ctx, r.backward)}, line "
                   f"{line(ctx, r.backward)}) in every pass: each backward after the first walks the stored "
                   f"graph, already freed by the first, and the memory keeps every stored step's graph alive. "
                   f"Store it computed under `torch.no_grad()` (or detached) if nothing should train through "
                   f"it; a cut changes the gradient a retained backward sends through it, so no fix is "
                   f"offered; inferred: `{r.memory}` hands back what `{code(ctx, r.store_call.func)}` kept "
                   f"(its class is not read), and `{r.producer}`'s output carries a graph (the loss the update "
                   f"backwards is built from it)")
            self.report(r.store, msg, related=[(r.backward, "this backward reaches the stored entries")])

    def _outliving(self, done: set) -> None:
        """A value built from every iteration of an evaluation pass run with gradients on, stored
        where the call does not end it (a global, `self`): analysis.outliving_passes."""
        from ..analysis.outliving_passes import outliving_passes

        ctx = self.ctx
        for o in outliving_passes(ctx.analysis):
            node = o.node
            if id(node.stmt) in done:
                continue
            done.add(id(node.stmt))
            src = node.expr
            msg = (f"`{o.key}` ({o.kind}) keeps `{code(ctx, src) if src is not None else o.key}` after the call "
                   f"(line {line(ctx, node.stmt)}): it hangs from the graph of every iteration of the loop at "
                   f"line {line(ctx, o.loop)}, which runs with gradients on and backwards nothing, so the whole "
                   f"pass's graphs stay alive until a later call rebinds it, across whatever runs in between. "
                   f"Store it detached (or run the pass under `torch.no_grad()`)")
            note = o.scope.eval_note() if callable(o.scope.eval_note) else o.scope.eval_note
            edit = _store_edit(ctx, src, node)
            msg += f"; inferred: {note}" + (UNSAFE_NOTE if edit else "; no fix is offered")
            self.report(src if edit else node.stmt, msg, edits=[edit] if edit else [],
                        fix=UNSAFE if edit else None, fix_title="Store it detached")

    def _network_slots(self, done: set) -> None:
        """A tensor on `self` made before a loop that runs a network with gradients on and backwards
        nothing, filled slot by slot with an attribute the network keeps (`self.model.emb[:k].cpu()`)."""
        from ..analysis.network_slots import network_slots

        ctx = self.ctx
        reported = {ctx.line_of(r.node) for r in self.reports if r.node is not None}
        found = network_slots(ctx.analysis)
        if not found:
            return
        values = {}  # (line, column) of a slot store's value -> the store
        for node in nodes(ctx.module):
            if type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Subscript:
                start_line, start_col, _, _ = ctx.position(node.value)
                values[(start_line, start_col - 1)] = node
        for slot in found:
            stmt = values.get((slot.line, slot.col))
            if stmt is None or id(stmt) in done or slot.line in reported:
                continue
            done.add(id(stmt))
            value = stmt.value
            msg = (f"`{slot.func}` copies `{slot.attr}` into slots of `{slot.key}`, made before the loop, with "
                   f"its graph: the loop runs `{slot.net}` with gradients on ({slot.runs}) and "
                   f"backwards nothing, so each in-place copy hangs `{slot.key}` from this batch's graph and "
                   f"from the previous copies: every batch's graph stays alive until `{slot.key}` is dropped and "
                   f"memory grows; store it detached (or run the loop under `torch.no_grad()`); inferred: "
                   f"`{slot.attr}` holds what `{slot.net}`'s forward computed, with its graph (the network's "
                   f"class is not read), and the call runs `{slot.net}`" + UNSAFE_NOTE)
            self.report(value, msg, edits=[Edit(value, detach(value))], fix=UNSAFE, fix_title="Store it detached")

    def _metric_states(self, done: set) -> None:
        """A metric class of this file whose `__call__` / `update` folds a tensor computed from its
        argument into `self` state, called by a training loop of another file with the model's output."""
        import os

        from ..analysis.metric_states import metric_state_stores
        from ..analysis.remote_meters import store_value

        ctx = self.ctx
        reported = {ctx.line_of(r.node) for r in self.reports if r.node is not None}
        for store in metric_state_stores(ctx.analysis):
            value = store_value(ctx, store.cls, store.meth, store.line)
            if value is None or ctx.line_of(value) in reported or any(
                    type(n) is cst.Attribute and n.attr.value in ("detach", "item") for n in nodes(value)):
                continue
            reported.add(ctx.line_of(value))
            caller_file, caller_line, arg, obj, tie = store.caller
            more = f" and {store.callers - 1} more places" if store.callers > 1 else ""
            how = "calls it" if store.meth == "__call__" else f"calls `{obj}.{store.meth}`"
            msg = (f"`{store.cls}.{store.meth}` adds `{ctx.code(value).strip()}`, computed from its argument "
                   f"`{store.param}`, into the object's state with its graph: a training loop in "
                   f"{os.path.basename(caller_file)} (line {caller_line}){more} {how} with `{arg}`, from the "
                   f"model output whose loss it backwards, so every batch's graph stays alive until the state is "
                   f"reset and memory grows; add `.detach()` of it instead; inferred: what the callers pass is "
                   f"read from their code in another file, and `{obj}` there is taken for a `{store.cls}` "
                   f"(annotated or built as {tie})" + UNSAFE_NOTE)
            self.report(value, msg, edits=[Edit(value, detach(value))], fix=UNSAFE, fix_title="Add `.detach()`")

    def _value_caches(self, done: set) -> None:
        """State computed from an argument, reused while a later argument has the same values."""
        ctx = self.ctx
        for c in value_caches(ctx.analysis):
            if id(c.stmt) in done:
                continue
            done.add(id(c.stmt))
            msg = (f"`{c.cls.name.value}.{c.method}` keeps in `{c.key}` what it computes from `{c.arg}` (line "
                   f"{line(ctx, c.stmt)}) and reuses it while `{code(ctx, c.compare)}` holds: the cache is keyed by "
                   f"`{c.arg}`'s values, not by the tensor, so a later call whose `{c.arg}` requires grad reuses "
                   f"an earlier call's graph (freed by that call's backward: the next backward fails) and gets "
                   f"no gradient for its own `{c.arg}`. Recompute it on every call when `{c.arg}` requires grad; "
                   f"detaching the cache would drop those gradients silently, so no fix is offered; inferred: "
                   f"`{c.arg}` may require grad (nothing here shows it does)")
            self.report(c.stmt, msg, related=[(c.compare, "the values decide whether the kept state is reused")])

    def _tensor_keyed(self, done: set) -> None:
        """A cache keyed by tensors, on an object made once at import, that nothing clears."""
        from ..analysis.tensor_keyed import tensor_keyed_caches

        ctx = self.ctx
        for c in tensor_keyed_caches(ctx.analysis):
            if id(c.stmt) in done:
                continue
            done.add(id(c.stmt))
            parts = ", ".join(f"`{p}`" for p in c.parts)
            msg = (f"`{c.where}` keeps in `{c.cache}` (line {line(ctx, c.stmt)}) an entry keyed by {parts}, "
                   f"computed by {c.graph}: a tensor key hashes by identity, so each training step's new "
                   f"tensors add an entry, and the cache (`{c.holder}`, made once at import) is never cleared: "
                   f"every step's tensors and their graphs stay referenced and memory grows step after step. "
                   f"Clear the cache where a step ends (or key it by something that is not a tensor); "
                   f"inferred: its callers hand it new tensors each step, as a training loop does, so no fix "
                   f"is offered")
            self.report(c.stmt, msg)

    def _kept_slices(self, done: set) -> None:
        """A per-step cache a training method joins, trains on in part, and stores back as a slice."""
        ctx = self.ctx
        for k in kept_slices(ctx.analysis):
            if id(k.store) in done:
                continue
            done.add(id(k.store))
            local = k.joined.targets[0].target.value
            msg = (f"`{k.method}` stores in `{k.key}` a slice of `{local}` (line {line(ctx, k.joined)}), which "
                   f"joins every entry `{k.adder}` added: the slice hangs from that join, trained entries "
                   f"included, and the next call joins it again, so each call's graph chains onto the previous "
                   f"ones and stays alive (memory grows call after call), and the next call's "
                   f"`{code(ctx, k.backward)}` walks back into them (freed without a retain; through weights "
                   f"the optimizer has since changed with one). Keep the "
                   f"entries not yet used as they were stored (`{k.key} = {k.key}[n:]`, whole items); "
                   f"detaching the slice would cut the gradient they still owe the next loss, so no fix is "
                   f"offered; inferred: the entries carry a graph (the loss backwarded at line "
                   f"{line(ctx, k.backward)} is built from them and no network runs in `{k.method}`)")
            self.report(k.store, msg, related=[(k.backward, "this backward runs through the joined entries")])

    def _threaded(self, done: set) -> None:
        """Local recurrent state a loop feeds back into the call that returned it, and never backwards."""
        ctx = self.ctx
        for t in threaded_states(ctx.analysis):
            if id(t.stmt) in done:
                continue
            done.add(id(t.stmt))
            how = f"`{t.via}` runs `{t.runner}` on it" if t.via else f"`{t.runner}` has parameters"
            if t.inferred and t.via == t.runner:
                how = f"`{t.runner}` runs a network on it"
            elif t.inferred:
                how = f"`{t.runner}` is taken to be a module with parameters"
            backs = "backwards nothing" if not t.trains else \
                "trains only what reads none of it" if not t.whole else "trains nothing through it that it shows"
            if t.kept:
                kept = sorted({code(ctx, k.func) for k in t.kept})
                backs += " (" + ", ".join(f"`{k}`" for k in kept) + f" keep{'s' if len(kept) == 1 else ''} it cut)"
            msg = (f"`{code(ctx, t.call)}` runs with gradients on and returns `{t.key}` computed from the "
                   f"`{t.key}` it was given ({how}): the loop at line {line(ctx, t.loop)} feeds it back step after "
                   f"step, {backs} and uses the other outputs only as numbers, so each step's graph "
                   f"hangs from the last and all of them stay alive (memory grows with the loop; "
                   f"`model.eval()` does not stop it). Run this call under `torch.no_grad()` (or detach "
                   f"`{t.key}` where it is fed back)")
            if t.whole:
                kept = sorted({code(ctx, k.func) for k in t.whole})
                msg += (f"; {', '.join(f'`{k}`' for k in kept)} also keep{'s' if len(kept) == 1 else ''} the "
                        f"state as it is, so each stored step holds the chain up to it for as long as it is "
                        f"kept, and a backward through a stored state would walk into the whole episode's "
                        f"forwards (whether one does is not followed: no fix is offered); inferred: {t.inferred}")
                self.report(t.call, msg)
                continue
            inferred = f"no later forward trains through what this loop computes (under `torch.no_grad()` " \
                       f"`{t.key}` carries no graph)"
            if t.inferred:
                inferred = f"{t.inferred}; {inferred}"
            self._under_no_grad(t.call, t.stmt, msg, inferred, "Run the recurrent step under `torch.no_grad()`")

    def _under_no_grad(self, call, stmt, msg, inferred, title) -> None:
        """Report a step that grows a graph nobody backwards, with the unsafe fix that runs
        its statement under `torch.no_grad()` (none where the statement cannot be wrapped)."""
        edits = _no_grad_edit(self.ctx, stmt)
        if edits:
            msg += f"; inferred: {inferred}" + UNSAFE_NOTE
        self.report(call, msg, edits=edits, fix=UNSAFE if edits else None, fix_title=title)

    def _buffer_updates(self, done: set) -> None:
        """Tensor state a module's forward updates in place from this call's graph."""
        ctx = self.ctx
        for u in buffer_updates(ctx.analysis):
            if id(u.stmt) in done or u.reset:
                continue
            if u.recurrent and any(store.stmt is u.stmt for _, _, store, _ in ctx.analysis.stateful_attrs):
                continue  # a training loop in sight: stateful_attrs reports it with the read it links to
            done.add(id(u.stmt))
            where = f"`{u.cls.name.value}.{u.method}`" + (" (called from forward)" if u.method not in ENTRIES else "")
            what = ", ".join(f"`{code(ctx, v)}`" for v in u.values)
            if u.reset:
                continue  # a reset that keeps the history: AD106's
            if u.cache:
                self._cache(u, where, what)
                continue
            if u.recurrent:
                self._kept_memory(u, where, what)
                continue
            how = f"sets `{u.key}` to {what}, from its old value and" if u.rebind else \
                f"updates `{u.key}` in place with {what}, which carries"
            msg = (f"{where} {how} this call's graph "
                   f"(line {line(ctx, u.stmt)}): the module keeps the history, each call's update stacks onto "
                   f"the last, so every step's graph stays alive (memory grows) and a loss that reads "
                   f"`{u.key}` walks into freed graphs. Update it from detached values (or under "
                   f"`torch.no_grad()`)")
            if OWN not in u.origins:
                names = ", ".join(f"`{p}`" for p in u.inputs) or "forward's input"
                msg += (f"; inferred: {names} carries a graph (an earlier layer's output, as when this module "
                        f"is part of a trained network)")
                if u.owner:
                    msg += (f", and `{u.cls.name.value}`, without parameters of its own, is such a part: "
                            f"`{u.owner}`, which has parameters, builds it")
            edits = [Edit(v, detach(v)) for v in u.values if not _already_cut(v) and not not_tensor(ctx, v)]
            self.report(u.stmt, msg, edits=edits, fix=UNSAFE if edits else None,
                        fix_title="Update it from detached values")

    def _kept_memory(self, u, where, what) -> None:
        """Memory forward reads and then sets anew from this call's graph, that no code of the
        project cuts (analysis.kept_memory)."""
        ctx = self.ctx
        msg = (f"{where} reads `{u.key}` and then sets it to {what}, from its old value and this call's graph "
               f"(line {line(ctx, u.stmt)}), and no code of the project cuts it: no method or caller sets it "
               f"anew or detaches it (an in-place reset such as `zero_()` keeps the history). The next call's "
               f"output reads the kept memory, so a backward per call walks into the previous call's graph, "
               f"already freed, and every call's graph stays referenced. Keep it detached (or cut it where "
               f"the sequence ends); inferred: the module is trained with a backward per call or per sequence")
        if OWN not in u.origins:
            names = ", ".join(f"`{p}`" for p in u.inputs) or "forward's input"
            msg += f", and {names} carries a graph (an earlier layer's output)"
        split = any(isinstance(small, cst.Assign) and
                    any(isinstance(t.target, (cst.Tuple, cst.List)) for t in small.targets) and
                    not isinstance(small.value, (cst.Tuple, cst.List))
                    for small in getattr(u.stmt, "body", ()))
        edits = [] if split else \
            [Edit(v, detach(v)) for v in u.values if not _already_cut(v) and not not_tensor(ctx, v)]
        self.report(u.stmt, msg, edits=edits, fix=UNSAFE if edits else None,
                    fix_title="Keep the memory detached")

    def _cache(self, u, where, what) -> None:
        ctx = self.ctx
        params = ", ".join(f"`{p}`" for p in u.params) or "the module's parameters"
        if u.memo:
            later, walker = (f"computes it once (under `{u.memo}`), no method clears it, and later calls read "
                             f"the kept tensor"), "backward through a later call's output"
        else:
            later, walker = "returns the kept tensor on later calls", "training step's backward"
        msg = (f"{where} keeps {what}, computed from {params}, in `{u.key}` (line {line(ctx, u.stmt)}) and "
               f"{later}: after the first backward frees its graph, the next {walker} walks into it (and it holds "
               f"the values from before the optimizer step). Do not keep values computed from trained parameters "
               f"across calls (or keep them detached where the parameters are not trained)")
        conditions = sorted({c for p in u.params for c in [grad_condition(ctx, u.cls, p)] if c})
        if conditions:
            msg += "; this holds when " + " and ".join(f"`{c}`" for c in conditions) + " is true (the parameter's "\
                   "requires_grad)"
        self.report(u.stmt, msg)


def _kept_on_object(scope, key: str) -> Optional[str]:
    """`self.total = total` (or `self.stats["t"] = total / n`) in the scope: the attribute that keeps
    what the sum `key` becomes, where code outside the scope may read it."""
    for stmt in scope.body:
        for n in nodes(stmt, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            if type(n) is cst.Assign and any(type(x) is cst.Name and x.value == key for x in nodes(n.value)):
                for t in n.targets:
                    target = t.target.value if type(t.target) is cst.Subscript else t.target
                    name = dotted(target) or ""
                    if "." in name:
                        return name
    return None


def _parameter(ctx, src) -> Optional[str]:
    """The function whose parameter `src` (a bare name) is, where no other binding of
    its function rebinds it."""
    if type(src) is not cst.Name:
        return None
    try:
        _, found = ctx.bindings.lookup(src)
    except (KeyError, AttributeError):
        return None
    if not found or any(b.kind != "param" for b in found):
        return None
    scope = found[0].scope
    node = getattr(scope, "node", None)
    return node.name.value if type(node) is cst.FunctionDef else "its function"


def _no_grad_edit(ctx, stmt) -> list:
    """`q = net(s)` -> `with torch.no_grad(): q = net(s)`, for a statement of its own line."""
    torch = ctx.imports.module_alias("torch")
    if torch is None or not isinstance(stmt, cst.SimpleStatementLine) or \
            not isinstance(ctx.parent(stmt), (cst.IndentedBlock, cst.Module)):
        return []
    body = stmt.with_changes(leading_lines=())
    wrapped = cst.With(items=[cst.WithItem(cst.parse_expression(f"{torch}.no_grad()"))],
                       body=cst.IndentedBlock(body=[body]), leading_lines=stmt.leading_lines)
    return [Edit(stmt, wrapped)]


def _unseen_modules(ctx, scope, node) -> list:
    """The modules the kept graph comes from, when they are its only source and
    nothing tells their class (`copy.deepcopy(policy)` of a caller's policy)
    and no backward proves what they return carries a graph."""
    nodes = closure([node])
    if any(n.leaf or n.proven for n in nodes):
        return []
    calls = {n for n in nodes if n.modules}
    if any(e.kind in ("backward", "grad") and calls & e.reach for e in scope.events):
        return []
    mods = sorted({m for n in calls for m in n.modules})
    if mods and all(class_unseen(ctx.analysis, m) for m in mods):
        return mods
    return []


def _reset_after_backward(ctx, scope, leak) -> bool:
    """Every backward that walks the kept value is followed, in its own block,
    by a statement that binds the key anew without reading it (`total = 0`)."""
    evs = [ev for ev in scope.events if ev.kind in ("backward", "grad") and leak.node in ev.reach]
    if not evs:
        return False
    for ev in evs:
        stmt = ev.stmt.suite if hasattr(ev.stmt, "suite") else ev.stmt
        block = ctx.parent(stmt)
        body = list(getattr(block, "body", ()) or ())
        if stmt not in body:
            return False
        later = body[body.index(stmt) + 1:]
        if not any(_rebinds(s, leak.key) for s in later):
            return False
    return True


def _rebinds(stmt, key) -> bool:
    for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
        if isinstance(small, cst.Assign) and any(dotted(t.target) == key for t in small.targets) and \
                not any(isinstance(n, (cst.Name, cst.Attribute)) and dotted(n) == key for n in nodes(small.value)):
            return True
    return False


def _unread_output(ctx, link):
    """The call the stored value comes straight out of, when the analysis only infers that its
    outputs carry a graph (model.output_unread), else None."""
    for node in [link, *link.parents]:
        if node.kind == "module" and isinstance(node.expr, cst.Call) and ctx.analysis.output_unread(node.expr):
            return node.expr
    return None


def _store_edit(ctx, src, node):
    if src is None or node.kind == "state" or node.name is None:
        return None
    if isinstance(src, (cst.Tuple, cst.List, cst.Integer, cst.Float, cst.Imaginary, cst.BaseString)) \
            or _already_cut(src) or not_tensor(ctx, src):
        return None  # `epoch += 1`, `stats = {...}`: no tensor, `.detach()` of it would raise
    if _unpacked(node.stmt, src):
        return None  # `out, hidden = model(x, hidden)`: most often a tuple, and `.detach()` of a tuple raises
    if partly_plain_read(ctx, src) is not None:
        return None  # `for k, v in [("loss", loss), ("acc", acc)]`: a number on some iterations
    if maybe_plain(ctx, src) is not None:
        return None  # `h_in = hidden` where `hidden = (h0, c0)`: `.detach()` of a tuple raises
    if any(read_as_mapping(ctx, node.stmt, n.value) for n in operands(src)):
        return None  # `tot = tot * 0.5 + info` where `info["loss"] = ...`: a dict class, no `.detach()`
    return Edit(src, detach(src))


def _unpacked(stmt, src) -> bool:
    """`a, b = src`: the stored value is unpacked into several names."""
    for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
        if isinstance(small, cst.Assign) and small.value is src and \
                any(isinstance(t.target, (cst.Tuple, cst.List)) for t in small.targets):
            return True
    return False


def _already_cut(src) -> bool:
    return isinstance(src, cst.Call) and isinstance(src.func, cst.Attribute) and \
        src.func.attr.value in ("detach", "item")
