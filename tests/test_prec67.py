"""Session 35, prec67: two precision fixes of the shared analysis.

1. analysis/global_stores: the "reset" guard that keeps a method growing `self.X` unwalked
   is per class. A reset of `self.X` in a method of an unrelated class of the file, or of
   `obj.X` where `obj` only ever holds an instance of such a class, empties that object's
   list, not the grower's; an object of unknown class may be the grower's, so its reset
   still counts.
2. analysis/flow: an accumulator that its loop backwards in an arm switched off by a literal
   argument of the inlined call (`if train: meta_loss.backward()` walked for `train=False`)
   is the meta-loss of the other mode: not reported (main offered a SAFE detach that cut it).
"""
from autodetach import check_code

LEARNER = """
import torch
import torch.nn as nn
from torch.distributions import Normal


class Learner:
    def __init__(self):
        self.mu = nn.Linear(3, 1)
        self.opt = torch.optim.SGD(self.mu.parameters(), lr=1e-2)
        self.log_probs = []

    def observe(self, obs):
        dist = Normal(self.mu(obs), 1.0)
        action = dist.sample()
        self.log_probs.append(dist.log_prob(action).sum())
        return action

    def update(self, ret):
        loss = -ret * torch.stack(self.log_probs).sum()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

OTHER
"""

DRIVER = """
learner, side = Learner(), SIDE
for episode in range(3):
    RESET
    for t in range(3):
        learner.observe(torch.randn(3))
    learner.update(1.0)
"""


def _found(src, select=None):
    return [(f.code, f.fix) for f in check_code(src, select=select)]


def _learner(other: str, side: str, reset: str) -> str:
    return LEARNER.replace("OTHER", other) + DRIVER.replace("SIDE", side).replace("RESET", reset)


RECORDER = """
class Recorder:
    def __init__(self):
        self.log_probs = []

    def new_episode(self):
        self.log_probs = []
"""

HOLDER = """
class Memory:
    def __init__(self):
        self.log_probs = []


class Logger:
    def __init__(self):
        self.memory = Memory()

    def new_episode(self):
        self.memory.log_probs = []
"""


def test_a_reset_of_the_same_attribute_in_an_unrelated_class_does_not_hide_the_growth():
    src = _learner(RECORDER, "Recorder()", "side.new_episode()")
    assert ("AD101", "none") in _found(src, ["AD101"])


def test_a_reset_through_an_attribute_holding_an_unrelated_class_does_not_hide_it():
    src = _learner(HOLDER, "Logger()", "side.new_episode()")
    assert ("AD101", "none") in _found(src, ["AD101"])


def test_a_reset_by_a_subclass_of_the_grower_still_counts():
    sub = """
class Replayer(Learner):
    def new_episode(self):
        self.log_probs = []
"""
    src = _learner(sub, "Replayer()", "side.new_episode()")
    assert _found(src, ["AD101"]) == []


def test_a_reset_through_an_attribute_holding_the_grower_still_counts():
    owner = """
class Trainer:
    def __init__(self, learner):
        self.learner = learner

    def end_episode(self):
        self.learner.log_probs.clear()
"""
    src = _learner(owner, "Trainer(learner)", "side.end_episode()")
    assert _found(src, ["AD101"]) == []


def test_a_reset_of_an_object_of_unknown_class_still_counts():
    free = """
def forget(agent):
    agent.log_probs = []
"""
    src = _learner(free, "None", "forget(learner)")
    assert _found(src, ["AD101"]) == []


META = """
import torch
import torch.nn as nn

meta = nn.Linear(1, 1)
meta_opt = torch.optim.Adam(meta.parameters(), lr=1e-3)
x = torch.randn(8, 3)


class MetaTrainer:
    def unroll(self, window, steps, learn=True):
        if not learn:
            window = 1
        window_loss = 0
        w = torch.randn(1, 3, requires_grad=True)
        for it in range(1, steps + 1):
            loss = (x @ w.t()).pow(2).mean()
            window_loss = window_loss + loss
            w.retain_grad()
            loss.backward(retain_graph=learn)
            new_w = w + meta(w.grad.detach().clone().view(-1, 1)).view(1, -1) * 0.1
            if it % window == 0:
                if learn:
                    meta_opt.zero_grad()
                    BACKWARD
                    meta_opt.step()
                window_loss = 0
                w = new_w.detach().requires_grad_()
            else:
                w = new_w
        return loss.item()


trainer = MetaTrainer()
for epoch in range(3):
    trainer.unroll(5, 10)
    trainer.unroll(5, 10, learn=False)
"""


def test_a_meta_loss_backwarded_only_in_the_training_mode_is_not_reported():
    assert _found(META.replace("BACKWARD", "window_loss.backward()")) == []


def test_the_functional_backward_form_counts_too():
    assert _found(META.replace("BACKWARD", "torch.autograd.backward(window_loss)")) == []


def test_a_sum_that_no_mode_backwards_is_still_reported():
    # the training arm backwards the last loss, not the window's sum: the sum is kept for nothing
    found = _found(META.replace("BACKWARD", "(loss * 0).backward()"))
    assert any(code in ("AD101", "AD102") for code, _ in found)


REPLAY = """
import torch
import torch.nn as nn


class Replay:
    def __init__(self):
        self.items = []

    def push(self, feats, target):
        self.items.append([feats, target])

    def learn(self, net, optimizer):
        for feats, target in self.items:
            loss = (net(feats) - target).pow(2).mean()
            optimizer.zero_grad()
            loss.backward(retain_graph=True)
            optimizer.step()


class Trainer:
    def __init__(self):
        self.encoder = nn.Linear(4, 8)
        self.head = nn.Linear(8, 1)
        self.opt = torch.optim.SGD(self.head.parameters(), lr=0.1)
        self.buffer = Replay()

    def run_batch(self, x, y):
        feats = self.encoder(x)
        self.buffer.push(feats, y)
        self.buffer.learn(self.head, self.opt)


trainer = Trainer()
for batch in range(3):
    trainer.run_batch(torch.randn(2, 4), torch.randn(2, 1))
"""


def test_a_replay_buffer_filled_by_its_callers_needs_the_retain():
    # every call of learn() backwards the stored features' encoder graph again (main: unsafe AD104)
    assert "AD104" not in [c for c, _ in _found(REPLAY)]


def test_the_same_from_a_module_level_loop():
    driver = ("trainer = Trainer()\nfor batch in range(3):\n"
              "    trainer.run_batch(torch.randn(2, 4), torch.randn(2, 1))\n")
    src = REPLAY.replace(driver,
                         "buffer = Replay()\nhead = nn.Linear(8, 1)\nopt = torch.optim.SGD(head.parameters(), lr=0.1)\n"
                         "for batch in range(3):\n    buffer.push(torch.randn(2, 8), torch.randn(2, 1))\n"
                         "    buffer.learn(head, opt)\n")
    assert "buffer.learn(head, opt)" in src
    assert "AD104" not in [c for c, _ in _found(src)]


def test_a_buffer_emptied_after_the_replay_still_gets_ad104():
    src = REPLAY.replace("            optimizer.step()\n", "            optimizer.step()\n        self.items = []\n")
    assert "AD104" in [c for c, _ in _found(src)]
