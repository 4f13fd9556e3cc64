"""Stores under `if self.flag:` that no iteration changes (analysis/invariant.py):
a store made after the backward that reads it next time, and a store in a method
the loop calls. Each next to the variant whose arms can alternate, still reported."""
import textwrap

import autodetach

AFTER_STEP = """
import torch
class Agent:
    def __init__(self):
        self.actor = torch.nn.Linear(3, 1)
        self.opt = torch.optim.SGD(self.actor.parameters(), lr=0.1)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.autotune = True
        self.alpha = torch.tensor(0.2)

    def update(self, obs):
        for i in range(3):
            loss = (self.alpha * self.actor(obs)).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if {test}:
                self.alpha = self.log_alpha.exp()
            {extra}

    def train(self):
        for _ in range(5):
            self.update(torch.randn(4, 3))
"""

ACTING = """
import torch
class Agent:
    def __init__(self):
        self.actor = torch.nn.Linear(3, 2)
        self.opt = torch.optim.SGD(self.actor.parameters(), lr=0.1)
        self.is_test = False

    def act(self, state, keep=True):
        dist = torch.distributions.Categorical(logits=self.actor(state))
        action = dist.sample()
        if {test}:
            self.log_prob = dist.log_prob(action)
        return action

    def train(self):
        for i in range(3):
            self.act(torch.randn(3){arg})
            loss = -self.log_prob
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            {extra}
"""


def codes(src):
    return sorted(f.code for f in autodetach.check_code(textwrap.dedent(src), select=["AD1"]))


def test_store_after_the_step_under_a_fixed_flag_is_not_reported():
    assert codes(AFTER_STEP.format(test="self.autotune", extra="")) == []


def test_store_after_the_step_under_a_changing_test_is_reported():
    assert codes(AFTER_STEP.format(test="i % 2 == 0", extra="")) == ["AD101"]
    flipped = AFTER_STEP.format(test="self.autotune", extra="self.autotune = not self.autotune")
    assert codes(flipped) == ["AD101"]


def test_store_after_the_step_skipped_by_continue_is_reported():
    # the second iteration reads the first one's value and skips the store: the third reads it again
    skip = "            if i == 1:\n                continue\n"
    src = AFTER_STEP.format(test="self.autotune", extra="").replace("            if self.autotune:",
                                                                    skip + "            if self.autotune:")
    assert codes(src) == ["AD101"]


def test_store_in_a_called_method_under_a_fixed_flag_is_not_reported():
    assert codes(ACTING.format(test="not self.is_test", arg="", extra="")) == []


def test_store_in_a_called_method_under_a_changing_test_is_reported():
    # the caller's argument may differ per call; the loop flips the flag
    assert codes(ACTING.format(test="keep", arg=", keep=i % 2 == 0", extra="")) == ["AD101"]
    assert codes(ACTING.format(test="not self.is_test", arg="", extra="self.is_test = i == 1")) == ["AD101"]


def gated(test):
    """AFTER_STEP with the loop under `if self.step % 2 == 0:`, the caller setting self.step."""
    src = AFTER_STEP.format(test=test, extra="")
    gate = "        if self.step % 2 == 0:\n          for i in range(3):\n"
    src = src.replace("        for i in range(3):\n", gate)
    call = "            self.update(torch.randn(4, 3))"
    loop = "        for step in range(5):\n            self.step = step\n"
    return src.replace("        for _ in range(5):\n" + call, loop + call)


def test_store_under_a_fixed_flag_inside_a_gated_loop_is_not_reported():
    # the gate around the loop holds for the whole run of the loop the two stores are in
    assert codes(gated("self.autotune")) == []


def test_store_under_a_changing_test_inside_a_gated_loop_is_reported():
    assert codes(gated("i % 2 == 0")) == ["AD101"]
