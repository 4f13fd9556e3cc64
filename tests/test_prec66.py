"""Session 34, prec66: false findings on real code.

- YOLOv6 (FedML): `loss, loss_items = self.compute_loss(...)` of a loss class that is no
  module: its `__call__`'s summary now says which element hangs from which argument, as a
  module's forward's does (`loss_items` is detached), so the running mean of the items on
  `self` is no AD102.
- AgileRL's bandit: the last-iteration retain of a loop in `get_action()` keeps the graph
  until nothing refers to it (the method's locals: until it returns), not "until the next
  step".
- Feature_Critic: a loss bound under `if self.id_dg == 1:` (no else) in a meta loop: the
  test is fixed, so an iteration that takes no arm took none before, and no earlier
  iteration's loss is read (same_test.other_arms).
"""

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

LOSS = '''
import torch


class ComputeLoss:
    def __call__(self, outputs, targets):
        a = (outputs - targets).pow(2).mean()
        b = (outputs - targets).abs().mean()
        return a + b, torch.cat((a.view(1), b.view(1))).detach()
'''

TRAINER = '''
import torch


class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def train(self):
        self.compute_loss = ComputeLoss()
        self.mean_loss = torch.zeros(2)
        for self.step, (x, y) in enumerate(self.loader):
            self.train_in_steps(x, y)
            self.print_details()

    def train_in_steps(self, x, y):
        total_loss, loss_items = self.compute_loss(self.model(x), y)
        self.optimizer.zero_grad()
        total_loss.backward()
        self.optimizer.step()
        self.loss_items = loss_items

    def print_details(self):
        self.mean_loss = (self.mean_loss * self.step + self.loss_items) / (self.step + 1)
        print(self.mean_loss)
'''


def _ad1(path):
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code.startswith("AD1")]


def test_a_loss_class_call_with_detached_items_in_the_same_file(tmp_path):
    (tmp_path / "engine.py").write_text(LOSS + TRAINER)
    assert _ad1(tmp_path / "engine.py") == []


def test_a_loss_class_call_with_detached_items_from_another_file(tmp_path):
    (tmp_path / "loss.py").write_text(LOSS)
    (tmp_path / "engine.py").write_text("from loss import ComputeLoss\n" + TRAINER)
    assert _ad1(tmp_path / "engine.py") == []


def test_items_that_keep_their_graph_are_still_reported(tmp_path):
    (tmp_path / "loss.py").write_text(LOSS.replace(").detach()", ")"))
    (tmp_path / "engine.py").write_text("from loss import ComputeLoss\n" + TRAINER)
    found = _ad1(tmp_path / "engine.py")
    assert [f.code for f in found] == ["AD102"], [(f.code, f.message) for f in found]
    assert "`self.mean_loss` accumulates" in found[0].message


BANDIT = '''
import torch
import torch.nn as nn


class Bandit:
    def __init__(self):
        self.actor = nn.Linear(4, 3)
        self.optimizer = torch.optim.Adam(self.actor.parameters())

    def get_action(self, obs):
        mu = self.actor(obs)
        g = torch.zeros(3, 4)
        for k, fx in enumerate(mu):
            self.optimizer.zero_grad()
            fx.backward(retain_graph=True)
            g[k] = self.actor.weight.grad[k]
        return int(torch.argmax(mu.detach() + g.sum(1)))
'''


def test_a_last_iteration_retain_in_a_method_says_how_long_the_graph_lives(tmp_path):
    (tmp_path / "bandit.py").write_text(BANDIT)
    found = [f for f in _ad1(tmp_path / "bandit.py") if f.code == "AD104"]
    assert found, "the retain of the last iteration is reported"
    for f in found:
        assert "next step" not in f.message, f.message
        assert "locals of `get_action()`" in f.message, f.message


TRAINING = '''
import torch
import torch.nn as nn

net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(3):
    out = net(torch.randn(8, 4)).squeeze(1)
    for k, o in enumerate(out):
        o.backward(retain_graph=True)
    opt.step()
'''


def test_a_last_iteration_retain_inside_a_training_loop_names_that_loop(tmp_path):
    (tmp_path / "t.py").write_text(TRAINING)
    found = [f for f in _ad1(tmp_path / "t.py") if f.code == "AD104"]
    assert found and all("until the next iteration of `for epoch in range(3)` (line 7)" in f.message
                         for f in found), [f.message for f in found]


META = '''
import torch
import torch.nn as nn
from networks import *


class FeatureCritic:
    def __init__(self, kind):
        self.features = feature_net(6, 8)
        self.phi = nn.Linear(8, 3)
        self.omega = Critic(8)
        self.opt_theta = torch.optim.SGD(self.features.parameters(), lr=0.05)
        self.id_dg = {"mlp": 1, "flat": 2}[kind]

    def train(self, batches, n):
        for itr in range(n):
            main_total = 0.0
            dg_total = 0.0
            for x, y in batches:
                feat = self.features(x)
                main_total += nn.functional.cross_entropy(self.phi(feat), y)
                if self.id_dg == 1:
                    loss_dg = self.omega(feat)
                if self.id_dg == 2:
                    loss_dg = self.omega(feat.t() @ feat)
                dg_total += loss_dg
            self.opt_theta.zero_grad()
            main_total.backward(retain_graph=True)
            dg_total.backward(create_graph=True)
            self.opt_theta.step()
'''


def test_a_loss_bound_under_fixed_tests_in_a_meta_loop_is_this_iterations(tmp_path):
    (tmp_path / "model.py").write_text(META)
    assert [f for f in _ad1(tmp_path / "model.py") if f.code == "AD108"] == []


def test_a_test_on_the_loop_variable_still_reads_the_previous_iterations_loss(tmp_path):
    # odd iterations take no arm: `loss_dg` is the previous iteration's, built before the step
    src = META.replace("if self.id_dg == 1:", "if itr % 2 == 0:").replace(
        "                if self.id_dg == 2:\n                    loss_dg = self.omega(feat.t() @ feat)\n", "")
    (tmp_path / "model.py").write_text(src)
    found = [f for f in _ad1(tmp_path / "model.py") if f.code == "AD108"]
    assert found and "in the previous iteration" in found[0].message, [f.message for f in found]
