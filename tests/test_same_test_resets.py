"""Branches on one fixed test (same_test.py) and own methods that set state
anew (self_resets.py): each made a carried graph appear where none is."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

PPO = """
import torch
import torch.nn as nn


class Algo:
    def __init__(self, model, flag):
        self.model = model
        self.flag = flag
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def update(self, obs, memories, recurrent):
        {setup}
        for start in range(0, 8, 2):
            total = 0
            if {test}:
                memory = memories[start]
            for i in range(2):
                if {test}:
                    out, memory = self.model(obs[start + i], memory)
                else:
                    out, _ = self.model(obs[start + i], None)
                total += out.pow(2).mean()
            self.opt.zero_grad()
            total.backward()
            self.opt.step()
"""


def _codes(text):
    findings, _, _ = check_source(textwrap.dedent(text), "train.py", all_rules(), Options())
    return sorted(f.code for f in findings if f.code.startswith("AD1"))


@pytest.mark.parametrize("test, setup", [
    ("self.model.recurrent", ""),
    ("self.flag", ""),
    ("recurrent", ""),  # an argument
    ("not plain", "plain = not self.flag"),  # a name bound once, at the top
    ("recurrent and self.flag", ""),
])
def test_same_fixed_test_takes_the_same_arm(test, setup):
    assert _codes(PPO.format(test=test, setup=setup or "pass")) == []


@pytest.mark.parametrize("test, setup", [
    ("i == 0", "i = 0"),  # rebound by the loop
    ("self.model.recurrent", "pass\n        self.model.recurrent = False"),  # rebound in the method
    ("mode", "mode = recurrent\n        if self.flag:\n            mode = False"),  # bound twice
    ("self.ready()", ""),  # a call may answer differently
])
def test_test_that_may_change_is_not_matched(test, setup):
    text = PPO.format(test=test, setup=setup)
    if test == "i == 0":
        text = text.replace("if i == 0:\n                memory", "if start == 0:\n                memory")
    assert _codes(text) != []


def test_different_tests_are_not_matched():
    text = PPO.format(test="recurrent", setup="pass").replace(
        "if recurrent:\n                memory", "if recurrent and start == 0:\n                memory")
    assert _codes(text) != []


LEARNER = """
import torch
import torch.nn as nn


class Learner:
    def __init__(self):
        self.rnn = nn.GRUCell(4, 4)
        self.opt = torch.optim.SGD(self.rnn.parameters(), lr=0.1)
        self.hidden = None

    def init_hidden(self, n):
        {reset}

    def learn(self, obs):
        self.init_hidden(obs.shape[0])
        outs = []
        for t in range(obs.shape[1]):
            self.hidden = self.rnn(obs[:, t], self.hidden)
            outs.append(self.hidden)
        loss = torch.stack(outs).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


learner = Learner()
for step in range(5):
    learner.learn(torch.randn(2, 3, 4))
"""


@pytest.mark.parametrize("reset", [
    "self.hidden = torch.zeros(n, 4)",
    "self.hidden = torch.zeros(n, 4).to('cpu')",
    "self.hidden = None",
    "self.count = 0\n        self.hidden = self.rnn.weight_ih.new_zeros(n, 4)",
])
def test_own_method_setting_state_anew_resets_it(reset):
    assert _codes(LEARNER.format(reset=reset)) == []


@pytest.mark.parametrize("reset", [
    "pass",
    "if n > 1:\n            self.hidden = torch.zeros(n, 4)",  # not on every call
    "self.hidden = torch.zeros(n, 4) if self.hidden is None else self.hidden",
    "self.hidden = self.hidden * 0",  # keeps the graph it multiplies
])
def test_method_that_may_keep_the_state_is_no_reset(reset):
    assert _codes(LEARNER.format(reset=reset)) != []


def _ad104(text):
    findings, _, _ = check_source(textwrap.dedent(text), "train.py", all_rules(), Options())
    return [(f.fix, f.message) for f in findings if f.code == "AD104"]


RETAIN = """
import torch
import torch.nn as nn


class Algo:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def update(self, batches, recurrent):
        for x in batches:
            if recurrent:
                memory = x
            out, memory = self.model(x, memory)
            loss = out.pow(2).mean()
            self.opt.zero_grad()
            loss.backward(retain_graph=True)
            self.opt.step()
"""


def test_retain_judged_through_same_test_is_unsafe():
    # with `recurrent` false the memory carries the graph on: the retain is needed then; that
    # the two tests agree is read from the code, so dropping it is an unsafe fix
    text = RETAIN.replace("            out, memory = self.model(x, memory)",
                          "            if recurrent:\n                out, memory = self.model(x, memory)\n"
                          "            else:\n                out = self.model(x, None)[0]")
    found = _ad104(text)
    assert len(found) == 1 and found[0][0] == "unsafe" and "take the same arm" in found[0][1]



CALLED_STEP = '''
import torch.nn as nn


class Trainer:
    def train(self, batches, cls=False):
        if self.kind == "gan":
            self._train_gan(cls, batches)

    def _train_gan(self, cls, batches):
        criterion = nn.BCELoss()
        for real, wrong in batches:
            real_loss = criterion(self.discriminator(real), real)
            if cls:
                wrong_loss = criterion(self.discriminator(wrong), real)
            d_loss = real_loss
            if {second}:
                d_loss = d_loss + wrong_loss
            d_loss.backward()
            self.optim_d.step()
'''


def test_the_same_test_holds_in_a_step_walked_inline_from_its_caller():
    from autodetach.engine import check_code

    # before: AD101 on `wrong_loss`, read in `train()`'s walk of the step as the previous batch's
    assert not [f for f in check_code(CALLED_STEP.format(second="cls")) if f.code.startswith("AD1")]
