"""Statistics a step method returns beside its backwarded loss, kept by the caller
in lists rebuilt element by element (`stats = [st + [b] for st, b in zip(stats, s)]`,
the torchtune PPO recipe's shape) or appended as the returned tuple: AD102, and no
`.detach()` of a list or a tuple (it would raise)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

RECIPE = """
import torch
from torch import nn


class Recipe:
    def __init__(self, loss_fn):
        self.model = nn.Linear(4, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.loss_fn = loss_fn
        self.accum = 2

    def _step(self, x):
        out = self.model(x)
        loss, aux = self.loss_fn(out)
        loss /= self.accum
        loss.backward()
        return {ret}

    def train(self, batches):
        stats = [[]] * 2
        for x in batches:
            sums = [0] * 2
            for j in range(self.accum):
                step_stats = self._step(x)
                sums = [s + b for s, b in zip(sums, step_stats)]
            stats = [st + [b] for st, b in zip(stats, sums)]
            self.opt.step()
            self.opt.zero_grad()
        return stats
"""

APPENDED = """
import torch
from torch import nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


class Trainer:
    def step(self, x):
        out = model(x)
        loss = out.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss, out.mean()

    def fit(self, data):
        history = []
        for x in data:
            result = self.step(x)
            history.append(result)
        return history
"""

OUTPUTS = """
import torch
from torch import nn

model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
hist = [[], []]
for i in range(3):
    out = model(torch.randn(3, 4))
    outs = [out[:, 0], out[:, 1]]
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    hist = [h + [o] for h, o in zip(hist, outs)]
print(hist)
"""


def _found(tmp_path, text):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(text))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [(f.code, f.line, f.fix) for f in findings if f.code in ("AD101", "AD102")]


def test_step_stats_summed_and_listed_are_kept_losses(tmp_path):
    # the list per statistic (line 27) is a loss kept for the log: AD102, with no fix
    # (`(st + [b]).detach()` would raise: a list has no `.detach()`)
    assert _found(tmp_path, RECIPE.format(ret="loss, aux")) == [("AD102", 27, "none")]


def test_step_stats_returned_detached_are_not_reported(tmp_path):
    assert _found(tmp_path, RECIPE.format(ret="loss.detach(), aux.detach()")) == []


def test_a_returned_tuple_appended_gets_no_detach(tmp_path):
    assert _found(tmp_path, APPENDED) == [("AD102", 22, "none")]


def test_outputs_listed_element_by_element_get_no_detach_of_a_list(tmp_path):
    assert _found(tmp_path, OUTPUTS) == [("AD101", 15, "none")]
