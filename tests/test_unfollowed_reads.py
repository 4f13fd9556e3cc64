"""AD101's detach of a kept value is not safe when code the walk does not follow
reads it: a lambda or a free-variable function over the name, or another method
that returns what `self.key` keeps (the caller may backward it)."""
import pytest

from autodetach.engine import Options, check_source
from autodetach.findings import SAFE, UNSAFE
from autodetach.registry import select_rules

LOOP = """
import torch

model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ema = torch.zeros(8, 1)
for step in range(3):
    out = model(torch.randn(8, 3))
    ema = 0.9 * ema + 0.1 * out
    loss = (out ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
{after}
"""

TRAINER = """
import torch


class Trainer:
    def __init__(self):
        self.model = torch.nn.Linear(3, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.history = []

    def step(self, x):
        out = self.model(x)
        self.history.append(out)
        loss = (out ** 2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
{method}

trainer = Trainer()
for i in range(3):
    trainer.step(torch.randn(8, 3))
"""


def _ad101(src):
    findings, _, _ = check_source(src, "t.py", select_rules(select=["AD101"]), Options())
    return [f for f in findings if f.code == "AD101"]


@pytest.mark.parametrize("after", [
    "penalty = lambda: ema.mean()\npenalty().backward()",
    "def penalty():\n    return ema.mean()\n\n\npenalty().backward()",
])
def test_read_by_closure_is_unsafe(after):
    found = _ad101(LOOP.format(after=after))
    assert len(found) == 1 and found[0].fix == UNSAFE and "the walk does not follow" in found[0].message


@pytest.mark.parametrize("after", ["print(ema.sum().item())", "def show(ema):\n    return ema.sum()\n"])
def test_plain_read_stays_safe(after):
    found = _ad101(LOOP.format(after=after))
    assert len(found) == 1 and found[0].fix == SAFE


def test_returned_by_other_method_is_unsafe():
    found = _ad101(TRAINER.format(method="\n    def report(self):\n        return self.history[-1]\n"))
    assert len(found) == 1 and found[0].fix == UNSAFE and "`Trainer.report` returns" in found[0].message


def test_not_returned_stays_safe():
    found = _ad101(TRAINER.format(method="\n    def report(self):\n        print(len(self.history))\n"))
    assert len(found) == 1 and found[0].fix == SAFE
