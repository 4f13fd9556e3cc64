"""AD102: losses summed or collected across iterations with their graphs."""
from __future__ import annotations

import libcst as cst

from ..analysis.decide import Problem
from ..findings import SAFE, UNSAFE
from ..analysis.containers import last_consumed
from ..analysis.infeasible import slot_read
from ..analysis.factories import factory_notes, library_keeper_note
from ..analysis.opaque_calls import opaque_after
from ..analysis.graph import closure
from ..analysis.keyed import slot_note
from ..analysis.uses import float_ok, operands, read_as_mapping
from ..analysis.walk import nodes
from ..imports import dotted
from ..rule import Edit, Invalid, Valid
from ..analysis.backwarded import holds_element
from ..analysis.plain_values import loop_number_why, maybe_plain, not_tensor, partly_plain_read, unseen_method, \
    why as plain_why
from ._ad1_shared import UNSAFE_NOTE, GraphRule, BACKWARD_TOKENS, code, detach, line, unseen_note
from ._helpers import method_call, parenthesize_if_needed


class LossAccumulatedWithGraph(GraphRule):
    """
    A running loss total (or a list of losses) that keeps every graph alive.

    ## What it does
    Finds `total_loss += loss`, `total = total + loss` and
    `losses.append(loss)` in a loop, where the loss carries its graph and the
    accumulator is never backwarded, the loss computed inline too
    (`val_history.append(criterion(net(x_val), y_val))`). With no loop in sight, a step function
    that backwards its loss and adds it in place into a tensor reached
    through an argument or `self` (`stats.device_stat("loss").add_(loss)`):
    the tensor outlives the call, an inference the report states. Likewise a
    function that appends its backwarded loss, outside its loops, to a list
    handed in as an argument (`train_losses.append(loss)` after the batch
    loop, the caller handing the same list to every epoch): the list is
    inferred to outlive the call; not when a backward there retains the graph,
    nor when every call of the file hands it a new list (`kept = []` just
    before the call).

    Not reported: sums over the sub-iterations of one optimizer step
    (`for sub_i in range(iter_size)`, no step inside), reset by every step,
    where each summed loss is backwarded in its sub-iteration: the saved
    tensors are freed and the sum is dropped at the next step, so nothing
    grows.

    Also found: a sum of what a method of the class returns after its own
    backward and step (`loss += self._step(x)` over several steps), even
    where the method's local has the same name as the sum. Likewise what a
    function or a method of another file of the project hands back, as it
    is, after backwarding it (`err.backward(); opt.step(); return err, acc`):
    the backward proves a loss with its graph, whatever the names
    (`hist.append(model.fit_batch(x)[0])`), in a file that may hold no
    backward of its own (but a word of training: a loss, an optimizer, a
    step, train, fit or learn); a value rebound after the backward
    (`err = err.item()`) is not one.

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
    `.item()` only when the accumulated value is provably a one-element
    tensor (a full reduction, a loss without `reduction="none"`) and every
    use of the accumulator in the file works the same with Python floats:
    printed or formatted, arithmetic and comparisons with numbers,
    `float()`, `sum()`, `len()`, `min()`/`max()`, `math`, `numpy` and
    `statistics` functions, logging calls, also inside a same-file function
    it is passed to. `.detach()` as soon as one use needs
    a tensor (`losses[-1].item()`, `torch.stack(losses)`, `.to()`) or cannot
    be seen (returned, passed to an unknown function, stored on an object, a
    function's parameter).

    Also found: state a PyTorch Lightning `training_step` keeps on `self`
    (`self.epoch_loss += loss`, `self.training_step_outputs.append(loss)`):
    Lightning runs the method once per batch and backwards what it returns.
    Also: a loss that only its own `.backward()` shows to carry a
    graph (built by code that cannot be seen); `meter.update(loss)` into a
    class of the file or the project whose method folds its argument into
    `self` state (`self.sum += val * n`, a mean written out as
    `self.v = (self.v * self.n + x) / (self.n + 1)`), the meter kept in a
    name, on `self` or in a dict of meters, fixed by passing `.detach()`; such a meter
    class whose callers live in other files and pass a value that a backward
    there proves (reported at the store in the meter, where one `.detach()`
    serves every caller); per-name totals (`total[name] += loss`); a list
    held in a dict under a constant key (`history["loss"].append(loss)`),
    followed as a list of its own until the dict or that key is bound again,
    fixed with `.detach()` (unsafe unless the dict is a local never handed
    on: what else reads its lists is not followed):
    a dict on `self` only when no method but `__init__` binds or empties it,
    a module-level or local one only when no other function stores into it
    and no call is handed it but `print`/`len`/`dump`/`save`, a function
    named as one that writes or draws (`save_pickle(hist, path)`,
    `plot_history(hist)`) or a function of the file that neither binds,
    empties nor appends to its lists; a list of
    values computed from a backwarded tensor (`q.backward(g)`, then
    `errors.append(target - q)`), kept for the log like a list of losses; what a
    training step of a class chosen at run time returns
    (`getattr(algos, name)(...)`, `REGISTRY[name](...)`, a factory), looked
    up among the project's classes that define the step; the loop of an
    evaluation function whose calls in this file run outside
    `torch.no_grad()`; a loss sum in a loop with no backward beside the
    training loop of the same function or script (a validation pass run with
    gradients on, in no `with` of the project's own), through a module that
    training loop backwards, the sum neither backwarded nor handed to a call
    other than a reader or logger, also written out (`score = score +
    (out - y).pow(2).mean()`, whatever its name, when each term is a loss or
    a whole reduction of an error) and also where the term went through a
    call that cannot be seen (`head(act_fn(body(x)))`) when a module the
    optimizer steps and the training backward walks is applied after it:
    that module's output carries its own parameters' graph;
    the entries besides `"loss"` of the dict a Lightning
    `training_step` returns, when the module overrides
    `training_epoch_end(self, outputs)`: Lightning 1.x keeps every step's
    output for that hook until the epoch ends and detaches only `"loss"`
    (fixed by returning the entry detached). A meter whose class comes through
    `from utils import *` (read there), or from code out of sight (a library, a
    package the import search does not reach), given a name the same loop
    backwards: the second is inferred to keep what `update` / `add` / `append` /
    `accumulate` / `push` / `record` / `log` is given, as meters do, when the
    object's state is read (`losses.avg`, printed, handed on); known metric and
    logging libraries are left alone. A list kept through a loop over literal
    lists (`for hist, v in zip([losses, accs], [loss, acc]): hist.append(v)`),
    walked once per position and fixed at the element (`[loss.detach(), acc]`).
    What a step method returns beside the loss it backwards (`return loss,
    policy_loss, value_loss`), summed over backward batches and kept in lists
    rebuilt element by element (`sums = [s + b for s, b in zip(sums, stats)]`,
    then `hist = [h + [s] for h, s in zip(hist, sums)]`), or the returned
    tuple appended whole: reported without a fix (a list or tuple has no
    `.detach()`; the step's return is where to detach).
    A dict or list whose every entry the backwarded loss sums (`loss =
    sum(parts.values())`) and that is kept whole or rebuilt into epoch totals
    (that its entries carry a graph is inferred from the sum). A running error of
    a network's output (`train_ae += (out - y).abs().sum()`: a whole reduction of
    a difference), kept for the log like a loss total, and a running total of
    what a function walked at its call returns beside the loss it backwards and
    steps (`return loss.item(), dice.sum()`, then `running_metric += metric_b`).
    Likewise any statistic of the step kept for the log: one number (a
    reduction with no dim, `records["kl"].append((logp - old).pow(2).mean())`,
    `entropy_total += ent.mean()`, also through a name bound to one in the
    loop) computed from the output of a module that the step's backward walks:
    the backward frees what it walks, not the statistic's own graph.
    A list on `self` that only
    `__init__` makes and no method empties, returned by the method that appends
    each step's loss (every call adds to what earlier calls kept, whatever the
    caller does with it). A list of losses (or a dict's list) that a function
    returns, when an optimizer step in the same loop updates in place a module
    each kept loss went through after it was computed (`history.append(epoch_loss)`
    after `opt.step()`): a backward of them by the caller, not followed, would run
    through graphs of parameters updated since, so the caller is inferred to keep
    them for the log. A dict of lists handed to `monitor.check(history)` of an
    object of no known class, followed when every `check` of the file's classes
    only reads it. A loss kept on `self` by the step (`self.batch_loss =
    loss`) and added into `self` state by another method the step calls
    (`self.end_of_batch_log()`), also through a nested entry or a local name
    for that state (`stat = self.statistics[split]`, then
    `stat["loss"]["values"] += [self.batch_loss]`). A helper that stores the loss it returns
    into an object its caller hands it (`stat_col["loss"] = loss`,
    `meter.update(loss)`), called in a loop (or a step function) from other
    files of the project, whose callers backward what it returns and hand it
    an object of a project class whose `__setitem__` (or the method the
    helper calls) adds its argument into its state: reported at the store,
    where one `.detach()` serves every caller. A list filled one slot per
    iteration (`losses[it] = loss`, `it += 1`) whose previous slot each
    iteration backwards (`losses[it - 1].backward()`): every slot is
    backwarded once and then kept with its graph; reported without a fix (a
    detached slot could not be backwarded). A loss summed through an object
    of a project module class built here and called on tensors (`features =
    nets.Features()`, then `features(generated.add(mean))`), whose forward is
    read in its file: that its output keeps its input's graph is inferred.
    A dict of a loss's parts that a method returns beside their sum, for the
    log (`status = loss_dict.copy()`, `return loss, status`), whose callers
    in other project files backward the loss in a loop and hand each entry
    to `.update(v, n)` of a project meter that adds it into its state
    (`loss, stats = self.actor(data)`, the object's `__call__` reached
    through an attribute its class name ends with): reported at the dict,
    without a fix (its entries may be numbers too); that the entries carry a
    graph is inferred from the backwarded sum, what the callers do from
    their code.

    Not reported: a value that is not a loss handed to a replay memory of
    the file (its class has a `sample` method that hands entries back):
    AD101 reports it, as a value kept for later iterations. Nor a meter
    whose `self.tracks[k] += v` runs the `__iadd__` of objects of classes of
    its file that keep `float(value)` or `value.detach()`: what those keep
    decides, not the `+=`.

    ## Fix safety
    Safe: the accumulated numbers are the same; only the graphs are dropped.
    Never offered when the accumulated value is backwarded (gradient
    accumulation). Unsafe where the finding rests on an inference, which the
    message names: what a meter's method keeps, results of the same call as
    the backwarded loss, an evaluation function's callers in other files,
    what a meter's callers in other files pass, what a meter out of sight
    keeps, what `append` of an object of a library class keeps
    (`run_loss = CumulativeAverage()`; it may detach) or of an object no
    container of this file (`avg = meters.averager()` of code not read, a
    name bound nowhere in the file), what a method no tensor has returns
    (`loss.get_loss()` after `loss.backward()`, of an object whose class is
    not read; read in the classes of the file's package, a method that
    returns `.item()` cuts), a loss object built by
    another file's factory, the candidate classes of an object whose class
    is chosen at run time (no fix at all when some of them return numbers),
    the entries of a container summed into the loss, what the caller of a
    method does with the list on `self` it returns, what the caller of a
    function does with the history it returns after steps that update the
    module its losses went through, that an object whose
    `.forward(x)` a training method calls on tensors is a module, what the
    callers of a helper in other files hand it and backward, that a later
    call the walk cannot see into (`hooks[0](kept)`, a function handed on
    with it: `map(f, [kept])`) does not backward what was accumulated.
    """

    code = "AD102"
    kind = Problem.LOSS_KEPT  # what the analysis calls this problem
    name = "loss-accumulated-with-graph"
    summary = "a loss kept across iterations with its graph (for logging); use `.item()`"
    fix_safety = SAFE
    # a running loss total whose backward is in another file (`trainer.train_step(...)`)
    # a meter of losses, fed by another file; a list of losses a step method of another file returns
    # a helper storing the loss it returns into a caller's collector (`stat_col["loss"] = loss`, `meter.update(loss)`)
    # a dict of the loss's parts returned beside the loss, fed to meters by callers in other files
    # a logger of another file's values kept per name (`self._log_data[name][0].append(value)`, fed a loss)
    # what a function or method of another file returns after its own backward (`model.fit_batch(x)`), kept
    # in a list or a total under any name: the file itself may hold no backward, nor a word of a loss, but
    # it holds a word of training (a loss, an optimizer, a step, train/fit/learn: also_tokens)
    # what admitted a file before `.append(` and ` += `: the reports made in a meter's or a helper's own file
    # for callers elsewhere keep to it (a meter file with none of them is reported at its callers' update)
    remote_tokens = BACKWARD_TOKENS + ("loss += ", "+= loss", "losses.append(", "] = loss", ".update(loss",
                                       "= sum(", "].append(value)")
    tokens = remote_tokens + (".append(", " += ")
    # `.append(` and ` += ` alone admit nearly every file (469 of 762 torch source files against 365 before,
    # benchmarks/prefilter's sample); every other token holds one of these words, so it admits as before
    also_tokens = (BACKWARD_TOKENS + ("loss", "Loss", "optim", ".step(", "train", "fit", "learn", "= sum(",
                                     "].append(value)"),)

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
        Valid("""
            import torch
            import pytorch_lightning as pl

            class Model(pl.LightningModule):
                def __init__(self):
                    super().__init__()
                    self.net = torch.nn.Linear(4, 1)
                    self.outputs = []

                def training_step(self, batch, batch_idx):
                    loss = self.net(batch).pow(2).mean()
                    self.log("loss", loss)
                    self.outputs.append(loss.detach())
                    return loss

                def validation_step(self, batch, batch_idx):
                    self.outputs.append(self.net(batch).pow(2).mean())
        """, note="Lightning: a detached step output; validation_step runs without gradients"),
        Valid("""
            import torch
            from torch import nn
            critics = [nn.Linear(4, 1) for _ in range(3)]
            opts = [torch.optim.SGD(c.parameters(), lr=0.1) for c in critics]

            def update(x):
                c_loss = []
                for agent in range(len(critics)):
                    opts[agent].zero_grad()
                    loss = critics[agent](x).pow(2).mean()
                    loss.backward()
                    opts[agent].step()
                    c_loss.append(loss)
                return c_loss

            for step in range(5):
                print([l.item() for l in update(torch.randn(2, 4))])
        """, note="one loss per agent, in a list made again at every call"),
        Valid("""
            import torch
            from torch import nn

            class Learner:
                def __init__(self, net):
                    self.net = net
                    self.losses = []

                def __call__(self, x, retain):
                    self.losses = []
                    for i in range(3):
                        loss = self.net(x).pow(2).mean()
                        loss.backward(retain_graph=retain)
                        self.losses.append(loss)
                    return self.losses
        """, note="a list on self started again at every call and returned: the caller decides"),
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
        """, line=11, column=19, message="accumulates `loss` with its graph"),
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
        """, note="used as tensors later: detach", line=11, column=19),
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
            print(f"{sum(losses) / len(losses):.4f} last {losses[-1].item():.4f}")
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
            print(f"{sum(losses) / len(losses):.4f} last {losses[-1].item():.4f}")
        """, note="an element read with .item() after the loop: a float would fail there", line=11, column=19),
        Invalid("""
            import torch
            from torch import nn
            from plotting import plot_curve
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            losses = []
            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss)
            plot_curve(losses)
        """, """
            import torch
            from torch import nn
            from plotting import plot_curve
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            losses = []
            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.detach())
            plot_curve(losses)
        """, note="passed to a function we cannot see: keep tensors", line=12, column=19),
        Invalid("""
            import torch
            from torch import nn

            def summary(values):
                best = min(values)
                return "best %.4f mean %.4f" % (best, sum(values) / len(values))

            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            losses = []
            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss)
            print(summary(losses))
        """, """
            import torch
            from torch import nn

            def summary(values):
                best = min(values)
                return "best %.4f mean %.4f" % (best, sum(values) / len(values))

            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            losses = []
            for i in range(3):
                loss = m(torch.randn(2, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.item())
            print(summary(losses))
        """, note="a same-file helper reads the list only as numbers: floats", line=16, column=19),
        Invalid("""
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
                total += loss
            avg = total / 3
            print(avg.to("cpu"))
        """, """
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
            avg = total / 3
            print(avg.to("cpu"))
        """, note="a value computed from the total is used as a tensor", line=11, column=14),
        Invalid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            history = []
            for i in range(3):
                out = m(torch.randn(2, 4))
                loss = out.pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                history.append((i, loss, out.mean()))
            print(len(history))
        """, """
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            history = []
            for i in range(3):
                out = m(torch.randn(2, 4))
                loss = out.pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                history.append((i, loss.detach(), out.mean().detach()))
            print(len(history))
        """, note="a tuple record: detach the tensors inside it, never the tuple", line=12, column=21),
        Invalid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            crit = nn.MSELoss(reduction="none")
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            per_sample = []
            for i in range(3):
                loss = crit(m(torch.randn(2, 4)), torch.zeros(2, 1))
                opt.zero_grad()
                loss.mean().backward()
                opt.step()
                per_sample.append(loss)
            print(len(per_sample))
        """, """
            import torch
            from torch import nn
            m = nn.Linear(4, 1)
            crit = nn.MSELoss(reduction="none")
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            per_sample = []
            for i in range(3):
                loss = crit(m(torch.randn(2, 4)), torch.zeros(2, 1))
                opt.zero_grad()
                loss.mean().backward()
                opt.step()
                per_sample.append(loss.detach())
            print(len(per_sample))
        """, note="per-sample losses (reduction='none'): .item() would fail on them", line=12, column=23),
        Invalid("""
            import torch
            import lightning as L

            class Model(L.LightningModule):
                def __init__(self):
                    super().__init__()
                    self.net = torch.nn.Linear(4, 1)
                    self.outputs = []

                def training_step(self, batch, batch_idx):
                    loss = self.net(batch).pow(2).mean()
                    self.outputs.append(loss)
                    return {"loss": loss}
        """, """
            import torch
            import lightning as L

            class Model(L.LightningModule):
                def __init__(self):
                    super().__init__()
                    self.net = torch.nn.Linear(4, 1)
                    self.outputs = []

                def training_step(self, batch, batch_idx):
                    loss = self.net(batch).pow(2).mean()
                    self.outputs.append(loss.detach())
                    return {"loss": loss}
        """, note="Lightning backwards what training_step returns, once per batch", line=12, column=29,
            message="Lightning runs `training_step` once per batch"),
        Invalid("""
            import torch
            from torch import nn
            m = nn.Linear(4, 2)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            train_ae = torch.tensor(0.0)
            for i in range(3):
                x, y = torch.randn(2, 4), torch.randn(2, 2)
                out = m(x)
                loss = (out - y).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                train_ae += (out - y).abs().sum()
            print(train_ae / 3)
        """, """
            import torch
            from torch import nn
            m = nn.Linear(4, 2)
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            train_ae = torch.tensor(0.0)
            for i in range(3):
                x, y = torch.randn(2, 4), torch.randn(2, 2)
                out = m(x)
                loss = (out - y).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                train_ae += (out - y).abs().sum().item()
            print(train_ae / 3)
        """, note="a running error of the network's output, kept for the log", line=13, column=17),
        Invalid("""
            import torch
            from torch import nn

            class Learner:
                def __init__(self, net):
                    self.net = net
                    self.losses = []

                def __call__(self, x, retain):
                    for i in range(3):
                        loss = self.net(x).pow(2).mean()
                        loss.backward(retain_graph=retain)
                        self.losses.append(loss)
                    return self.losses
        """, """
            import torch
            from torch import nn

            class Learner:
                def __init__(self, net):
                    self.net = net
                    self.losses = []

                def __call__(self, x, retain):
                    for i in range(3):
                        loss = self.net(x).pow(2).mean()
                        loss.backward(retain_graph=retain)
                        self.losses.append(loss.detach())
                    return self.losses
        """, unsafe=True, note="a list on self that only __init__ makes: returned, but every call adds to it",
            message="no method of `Learner` but `__init__` binds or empties it"),
    ]

    def finish(self) -> None:
        remote = _remote_admitted(self.ctx.text, self.remote_tokens)
        if remote:
            self._remote_meters()
        ctx = self.ctx
        done = set()
        for scope, leak in ctx.analysis.diagnoses_for(self.kind):
            node = leak.node
            if id(node.stmt) in done:
                continue
            src = node.expr
            if src is None or _already_cut(src):
                continue
            if _aside_only(node):
                continue  # only an unread call's extra result, beside its backwarded loss
            done.add(id(node.stmt))
            guesses = _sibling_notes(node) + factory_notes(ctx.analysis, closure([node]))
            if not node.meter and (kept := library_keeper_note(ctx.analysis, leak.key, node.stmt)) is not None:
                guesses.append(kept)
            held = slot_note(ctx, leak.key, node.stmt)
            if held:
                guesses.append(held)  # a dict-held list: its readers elsewhere are not followed
            if node.uncertain or node.opaque:
                # `epoch_loss += utils.to_scalar(loss)` of a module not in the run: it may return a number
                guesses.append(unseen_note(ctx, src))
            elif method := unseen_method(ctx, src):
                guesses.append(method)  # `total += model.score(x)`: a float, perhaps
            guesses += opaque_after(ctx.analysis, scope, node.stmt, [leak.loop] if leak.loop is not None else [],
                                    {n for n in scope.nodes if n.stmt is node.stmt},  # every walk's
                                    f"it may backward what `{leak.key}` keeps, which a cut would stop")
            if node.meter:
                self._meter(leak, node, src, guesses)
                continue
            msg = (f"`{leak.key}` accumulates `{ctx.code(src).strip()}` with its graph "
                   f"(line {line(ctx, node.stmt)}): every iteration's graph stays alive and memory grows; ")
            if id(leak.loop) in scope.eval_loops:
                msg += ("the loop backwards nothing and runs with gradients on (no `torch.no_grad()` around it), "
                        "through a module the training loop backwards; ")
            if last_consumed(node, scope.events) is False:
                # `losses[-1].backward(...)`: a detached entry could not be backwarded
                self.report(src, msg + f"keep `.detach()` in `{leak.key}` and backward the loss itself, "
                                       f"not `{leak.key}[-1]`")
                continue
            slot = next((ev for ev in scope.events if ev.kind in ("backward", "grad") and slot_read(ev, leak.key)),
                        None)
            if slot is not None:
                # `losses[i - 1].backward()` reads the slot back: a detached entry could not be backwarded
                self.report(src, msg + f"`{ctx.code(slot.call.func.value)}` is backwarded once, in the next "
                                       f"iteration, and the others stay in the list with their graphs. Keep "
                                       f"numbers (`.item()`) in `{leak.key}` and backward the loss itself")
                continue
            if isinstance(src, LITERALS):
                # `hist.append((loss, acc))`: cut the tensors inside, never the tuple
                plain = partly_plain_read(ctx, src)
                if plain is not None:
                    self.report(src, msg + f"keep `.detach()` of the tensors in it instead ({loop_number_why(plain)})")
                    continue
                new = _detach_inside(ctx, src, _graph_reads(node))
                if new is None:
                    self.report(src, msg + "keep `.detach()` of the tensors in it instead")
                    continue
                msg += "keep `.detach()` of the tensors in it instead"
                if guesses:
                    msg += "; inferred: " + "; ".join(guesses) + UNSAFE_NOTE
                self.report(src, msg, edits=[Edit(src, new)], fix=UNSAFE if guesses else None,
                            fix_title="Accumulate `.detach()`")
                continue
            if holds_element(node, {leak.key, ctx.code(src).strip()}):
                # `epoch_loss.append(loss)` where `loss["total"].backward()`: a dict or list, no .detach()
                self.report(src, msg + f"keep detached tensors instead (`{ctx.code(src).strip()}` holds the "
                                       "backwarded loss as an element: detach each tensor in it)" + _inferred(guesses))
                continue
            if isinstance(src, cst.Name) and read_as_mapping(ctx, node.stmt, src.value):
                # `history.append(losses)` where `losses["kl"]` is read: a dict has no `.detach()`
                self.report(src, msg + f"keep detached tensors instead (`{src.value}` is read as a dict: "
                                       "detach each tensor in it)")
                continue
            mapped = next((n for n in operands(src) if read_as_mapping(ctx, node.stmt, n.value)), None)
            if mapped is not None:
                # `tot = tot + info` where `info["loss"] = ...`: a metrics dict that defines `+`, no `.detach()`
                self.report(src, msg + f"keep detached tensors instead (`{mapped.value}` is used as a dict, and "
                                       f"the sum is one too: detach each tensor in it; no fix is offered)")
                continue
            if isinstance(src, (cst.DictComp, cst.ListComp, cst.SetComp)):
                # `totals = {k: totals[k] + losses[k] for k in totals}`: a dict has no `.detach()`
                self.report(src, msg + "keep detached values instead (`.detach()` of each value it builds: "
                                       "no fix is offered)" + _inferred(guesses))
                continue
            if not_tensor(ctx, src):
                self.report(src, msg + f"keep detached values instead; {plain_why(ctx, src)}")
                continue
            if _mixed(ctx, node.stmt):
                self.report(src, msg + "keep a number instead (the value may already be one: no fix is offered)")
                continue
            if (plain := partly_plain_read(ctx, src)) is not None:
                self.report(src, msg + f"keep detached values instead ({loop_number_why(plain)})")
                continue
            if (why := maybe_plain(ctx, src)) is not None:
                # `adv = 0.0; if step > start: adv += ...; hist.append(adv)`: a float before the `if` runs
                self.report(src, msg + f"keep detached values instead ({why}: no fix is offered)")
                continue
            # `.item()` needs a one-element tensor and a float-only accumulator
            as_tensor = not (_scalar(ctx, src, node, 0) and float_ok(ctx, leak.key, node.kind, node.stmt))
            new = detach(src) if as_tensor else method_call(parenthesize_if_needed(src), "item")
            how = "`.detach()`" if as_tensor else "`.item()`"
            msg += f"keep {how} instead"
            if guesses:
                msg += "; inferred: " + "; ".join(guesses)
            rep = self.report(src, msg, edits=[Edit(src, new)], fix=UNSAFE if guesses else None,
                              fix_title=f"Accumulate {how}")
            if guesses and not rep.message.endswith(UNSAFE_NOTE):
                rep.message += UNSAFE_NOTE
        self._step_accumulators(done)
        self._kept_outputs(done)
        if remote:
            self._remote_helpers()
        self._returned_stats()

    def _kept_outputs(self, done: set) -> None:
        """Entries of a Lightning `training_step` output that Lightning 1.x keeps
        for `training_epoch_end(outputs)` with their graph (analysis.lightning_outputs)."""
        from ..analysis.lightning_outputs import kept_outputs

        ctx = self.ctx
        for kept in kept_outputs(ctx.analysis):
            if id(kept.expr) in done or _already_cut(kept.expr) or not_tensor(ctx, kept.expr):
                continue
            done.add(id(kept.expr))
            src = code(ctx, kept.expr)
            msg = (f"`training_step` returns `{src}` as `\"{kept.key}\"` with its graph (line {line(ctx, kept.stmt)}), "
                   f"and `{kept.cls}` overrides `{kept.hook}(outputs)`, so Lightning (1.x; 2.0 removed the hook) "
                   f"keeps every step's output until the epoch ends, detaching only `\"loss\"`: every batch's graph "
                   f"stays alive and memory grows; return `.detach()` of it instead")
            fix = SAFE
            notes = factory_notes(ctx.analysis, closure(kept.heads))
            if kept.uncertain:
                notes.append("its graph comes through code that cannot be seen")
            if notes:
                msg += "; inferred: " + "; ".join(notes) + UNSAFE_NOTE
                fix = UNSAFE
            self.report(kept.expr, msg, edits=[Edit(kept.expr, detach(kept.expr))], fix=fix,
                        fix_title="Return `.detach()`")

    def _step_accumulators(self, done: set) -> None:
        """A step function adding its backwarded loss in place into a tensor it
        reaches through an argument (or `self`): no loop in sight."""
        from ..analysis.step_accumulators import step_accumulators

        ctx = self.ctx
        for acc in step_accumulators(ctx.analysis):
            if id(acc.stmt) in done or _already_cut(acc.value) or not_tensor(ctx, acc.value):
                continue
            done.add(id(acc.stmt))
            whose = "the object" if acc.root == "self" else f"the argument `{acc.root}`"
            if acc.appended:
                msg = (f"`{code(ctx, acc.target)}` keeps `{code(ctx, acc.value)}` with its graph "
                       f"(line {line(ctx, acc.stmt)}; `{acc.loss}` is backwarded here): the list is reached through "
                       f"{whose}, so it outlives this call and every call keeps one more graph alive, and memory "
                       f"grows; ")
                if (why := maybe_plain(ctx, acc.value)) is not None:
                    self.report(acc.value, msg + f"append detached values instead ({why}: no fix is offered)")
                    continue
                msg += ("append `.detach()` of it instead; inferred: the caller hands the same list to every "
                        "call, and never backwards what it keeps" + UNSAFE_NOTE)
                self.report(acc.value, msg, edits=[Edit(acc.value, detach(acc.value))], fix=UNSAFE,
                            fix_title="Append `.detach()`")
                continue
            msg = (f"`{code(ctx, acc.target)}` adds `{code(ctx, acc.value)}` in place with its graph "
                   f"(line {line(ctx, acc.stmt)}; `{acc.loss}` is backwarded here): it is reached through {whose}, "
                   f"so it outlives this step and keeps every step's graph alive until it is reset, and memory "
                   f"grows; add `.detach()` of it instead; inferred: the accumulator lives across calls of this "
                   f"function, and is never backwarded itself" + UNSAFE_NOTE)
            self.report(acc.value, msg, edits=[Edit(acc.value, detach(acc.value))], fix=UNSAFE,
                        fix_title="Add `.detach()`")

    def _remote_meters(self) -> None:
        """A meter class of this file whose callers, in other files, feed it
        values that a backward there shows to carry a graph: reported at the
        store, where one `.detach()` serves every caller."""
        import os

        from ..analysis.remote_meters import remote_meter_stores, store_value

        ctx = self.ctx
        for store in remote_meter_stores(ctx.analysis):
            value = store_value(ctx, store.cls, store.meth, store.line)
            if value is None or _already_cut(value):
                continue
            caller_file, caller_line, arg = store.callers[0]
            more = f" and {len(store.callers) - 1} more places" if len(store.callers) > 1 else ""
            what = "its argument" if store.whole else "the entries of its argument"
            msg = (f"`{store.cls}.{store.meth}` adds {what} into the object's state with their graph "
                   f"(`{ctx.code(value).strip()}`): it is called in a loop from "
                   f"{os.path.basename(caller_file)} (line {caller_line}){more} "
                   f"with `{arg}`, which a backward there shows to carry a graph, so every iteration's graph "
                   f"stays alive and memory grows; add `.detach()` of it instead; inferred: what the callers pass "
                   f"is read from their code in another file" +
                   (f"; `{store.callee}(...)`, out of sight, keeps the graph of what it is given" if store.callee
                    else "") + UNSAFE_NOTE)
            self.report(value, msg, edits=[Edit(value, detach(value))], fix=UNSAFE, fix_title="Add `.detach()`")

    def _remote_helpers(self) -> None:
        """A helper of this file that stores what it returns into the object a caller
        in another file hands it: reported at the store, as a meter's own store is."""
        import os

        from ..analysis.remote_helpers import helper_stores

        ctx = self.ctx
        # a helper with callers in this file too may be reported already, walked at such a call
        reported = {ctx.line_of(r.node) for r in self.reports if r.node is not None}
        for store in helper_stores(ctx.analysis):
            value = store.value
            if ctx.line_of(value) in reported:
                continue
            caller_file, caller_line, arg = store.caller
            more = f" and {store.callers - 1} more places" if store.callers > 1 else ""
            how = "`obj[key] = value` calls it" if store.meth == "__setitem__" else "the helper calls it"
            msg = (f"`{store.func}` stores `{value.value}` with its graph into an object its caller hands it: "
                   f"it is called once per step from {os.path.basename(caller_file)} (line {caller_line}){more} "
                   f"with `{arg}`, a `{store.cls}` whose `{store.meth}` ({how}) adds its argument into the "
                   f"object's state ({os.path.basename(store.cls_file)}), and the caller backwards the "
                   f"`{value.value}` it returns, so every iteration's graph stays alive and memory grows; "
                   f"store `.detach()` instead; inferred: what the callers pass and backward is read from "
                   f"their code in another file" + UNSAFE_NOTE)
            self.report(value, msg, edits=[Edit(value, detach(value))], fix=UNSAFE, fix_title="Store `.detach()`")

    def _returned_stats(self) -> None:
        """A dict of the loss's parts returned beside the loss, whose callers in other
        files feed its entries to meters (analysis.returned_stats): reported without a fix."""
        import os

        from ..analysis.returned_stats import returned_stats

        ctx = self.ctx
        reported = {ctx.line_of(r.node) for r in self.reports if r.node is not None}
        for found in returned_stats(ctx.analysis):
            if ctx.line_of(found.value) in reported:
                continue
            caller_file, caller_line, meter, meter_file = found.caller
            bound = ctx.code(found.value).strip()
            bound = f" (`{bound}`)" if bound != found.name else ""
            msg = (f"`{found.cls}.{found.meth}` returns `{found.name}`{bound} beside "
                   f"`{found.loss}`, which sums its entries: {os.path.basename(caller_file)} (line {caller_line}) "
                   f"backwards the loss in a loop and hands each entry of the dict to `{meter}.update` "
                   f"({os.path.basename(meter_file)}), which adds it into the meter's state, so every "
                   f"iteration's graph stays alive and memory grows; keep detached tensors (or `.item()`) in "
                   f"`{found.name}` instead (no fix is offered: its entries may be numbers too); inferred: that "
                   f"the entries carry a graph, from the backwarded sum, and what the callers do, from their code "
                   f"in another file")
            self.report(found.value, msg)

    def _meter(self, leak, node, src, guesses) -> None:
        """`meter.update(loss)` into a method that sums what it is given."""
        ctx = self.ctx
        method, where, store, whole, callee, note = node.meter
        if callee:
            guesses = guesses + [f"`{callee}(...)`, out of sight, keeps the graph of what it is given"]
        if note:
            guesses = [note] + guesses
        what = "its argument" if whole else "the entries of its argument"
        if method.endswith(".__setitem__"):
            what = "the value stored (`obj[key] = value` calls it)" if whole else "the entries of the value stored"
        into = f"({where}, line {store})" if store is not None else "(its code is not read)"
        msg = (f"`{leak.key}` keeps `{ctx.code(src).strip()}` with its graph (line {line(ctx, node.stmt)}): "
               f"`{method}` adds {what} into the object's state {into}, so every "
               f"iteration's graph stays alive and memory grows; pass ")
        if isinstance(src, LITERALS):
            new = _detach_inside(ctx, src, _graph_reads(node))
        else:
            new = detach(src) if whole and not not_tensor(ctx, src) else None  # `.detach()` of a dict would fail
        if new is None:
            self.report(src, msg + "detached tensors instead")
            return
        kept = f"what `{method}` keeps is read from its code" if store is not None else guesses.pop(0)
        msg += (f"`.detach()` instead; inferred: {kept}, and the object's "
                f"later uses are not followed" + "".join("; " + g for g in guesses))
        rep = self.report(src, msg, edits=[Edit(src, new)], fix=UNSAFE, fix_title="Pass `.detach()`")
        if not rep.message.endswith(UNSAFE_NOTE):
            rep.message += UNSAFE_NOTE


def _remote_admitted(text: str, tokens) -> bool:
    """One of `tokens` in the file's code (comments and docstrings left out, as the pre-filter does)."""
    from ..code_tokens import code_rules

    def admitted(t):
        return [True] if any(token in t for token in tokens) else []

    return bool(code_rules(text, admitted, lambda t, rules: admitted(t)))


def _mixed(ctx, stmt) -> bool:
    """Does the store use an object of a class chosen at run time, some of whose
    candidate classes return numbers (analysis.runtime_classes)? Then neither
    `.item()` nor `.detach()` works for every candidate."""
    from ._ad1_shared import inferred_notes

    mixed = ctx.analysis.mixed_results
    return bool(mixed) and bool(inferred_notes(ctx, {k: k for k in mixed}, [stmt]))


def _aside_only(node) -> bool:
    """The store adds only values that `flow._aside` marked (`dist` of `loss, dist = criterion(...)`,
    code not read, `loss` backwarded): that they carry a graph is not shown."""
    added = [p for p in node.parents if p.name != node.name]
    return bool(added) and all(p.aside for p in added)


def _sibling_notes(node) -> list:
    """What `flow._siblings` inferred about the values the store hangs from."""
    from ..analysis.graph import closure

    return sorted({n.sibling for n in closure([node]) if n.sibling} | {n.summed for n in closure([node]) if n.summed} |
                  ({node.returned} if node.returned else set()))


def _inferred(guesses) -> str:
    return "; inferred: " + "; ".join(guesses) if guesses else ""


def _already_cut(src) -> bool:
    return isinstance(src, cst.Call) and isinstance(src.func, cst.Attribute) and \
        src.func.attr.value in ("detach", "item", "tolist")


LITERALS = (cst.Tuple, cst.List, cst.Dict, cst.Set)


def _graph_reads(node) -> set:
    return {id(n) for names in node.uses.values() for n in names}


def _detach_inside(ctx, src, reads):
    """The literal with `.detach()` on each element that carries a graph (a
    graph tensor read, or a module call); None when there is none or an
    element cannot be cut alone (`*rest`)."""
    names = ctx.analysis.names
    changed = False
    out = []
    elements = src.elements
    for el in elements:
        if isinstance(el, (cst.StarredElement, cst.StarredDictElement)):
            return None
        value = el.value
        if isinstance(value, LITERALS):
            new = _detach_inside(ctx, value, reads)
        elif _already_cut(value) or not_tensor(ctx, value) or not any(
                id(n) in reads or (isinstance(n, cst.Call) and names.is_module(dotted(n.func)) and
                                   names.has_params(dotted(n.func))) for n in nodes(value)):
            new = None
        else:
            new = detach(value)
        if new is not None:
            changed = True
            el = el.with_changes(value=new)
        out.append(el)
    return src.with_changes(elements=out) if changed else None


REDUCTIONS = {"mean", "sum", "norm", "std", "var", "prod", "amax", "amin", "logsumexp"}
FUNCTIONAL_LOSSES = {"cross_entropy", "nll_loss", "kl_div", "binary_cross_entropy",
                     "binary_cross_entropy_with_logits", "poisson_nll_loss", "gaussian_nll_loss"}


def _scalar(ctx, expr, node, depth) -> bool:
    """Is `expr` provably a one-element tensor (or a number)? A full
    reduction, a loss function or loss module without reduction="none", or a
    name whose value was one of those; arithmetic of such values."""
    if depth > 4:
        return False
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.BinaryOperation):
        return _scalar(ctx, expr.left, node, depth + 1) and _scalar(ctx, expr.right, node, depth + 1)
    if isinstance(expr, cst.UnaryOperation):
        return _scalar(ctx, expr.expression, node, depth + 1)
    if isinstance(expr, cst.Name):
        if expr.value.isupper():
            return True  # ACCUM_STEPS: a constant
        parent = next((p for p, names in node.uses.items() if any(n is expr for n in names)), None)
        return parent is not None and parent.expr is not None and parent.kind != "accum" and \
            _scalar(ctx, parent.expr, parent, depth + 1)
    if not isinstance(expr, cst.Call):
        return False
    func = expr.func
    qualified = ctx.imports.qualify(func) or ""
    if isinstance(func, cst.Attribute) and not qualified and func.attr.value in REDUCTIONS:
        return not any(arg.keyword is None or arg.keyword.value == "dim" for arg in expr.args)
    if qualified.startswith("torch.") and qualified.rsplit(".", 1)[-1] in REDUCTIONS:
        return len(expr.args) == 1 and expr.args[0].keyword is None
    if qualified.startswith("torch.nn.functional."):
        last = qualified.rsplit(".", 1)[-1]
        return (last.endswith("_loss") or last in FUNCTIONAL_LOSSES) and _reduces(expr)
    key = dotted(func)
    names = ctx.analysis.names
    if key is not None and names.is_module(key) and not names.has_params(key):
        from ..analysis.saved import constructor

        built = constructor(ctx.analysis, key)
        if built is None:
            return False
        built_qualified = ctx.imports.qualify(built.func) or ""
        return built_qualified.startswith("torch.nn.") and built_qualified.endswith("Loss") and _reduces(built)
    return False


def _reduces(call) -> bool:
    """No `reduction="none"` (nor the legacy `reduce=False`)."""
    for arg in call.args:
        if arg.keyword is None:
            if isinstance(arg.value, cst.SimpleString) and arg.value.evaluated_value == "none":
                return False
            continue
        if arg.keyword.value == "reduction":
            return isinstance(arg.value, cst.SimpleString) and arg.value.evaluated_value in ("mean", "sum",
                                                                                          "batchmean")
        if arg.keyword.value == "reduce":
            return isinstance(arg.value, cst.Name) and arg.value.value == "True"
    return True
