"""Optimizer wrappers (analysis/optimizer_wrappers.py): a class that stores an
optimizer argument and steps it in a method, read where it is defined, so
that AD108 sees `sched_g.step_and_update_lr()` as `opt_g.step()`. Also the
two readings that kept a SAC update and a patch GAN apart: an optimizer
parameter paired by name with a parameter already known as a module, and a
helper's result read per argument when an argument is a list element."""
import os
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

WRAPPER = """
class Sched:
    def __init__(self, optimizer, lr):
        self._opt = optimizer
        self.lr = lr

    def zero_grad(self):
        self._opt.zero_grad()

    def _set_lr(self):
        for group in self._opt.param_groups:
            group["lr"] = self.lr

    def update_lr(self):
        self._set_lr()

    def step_and_update_lr(self):
        self._set_lr()
        self._opt.step()

    def train_step(self, loss):
        loss.backward()
        self._opt.step()
"""

TRAIN = """
import torch
from torch import nn
from sched import Sched


def train(G, D, batches):
    opt_g = torch.optim.Adam(G.parameters())
    opt_d = torch.optim.Adam(D.parameters())
    sched_g = Sched(opt_g, 1e-3)
    sched_d = Sched(opt_d, 1e-3)
    for real in batches:
        fake = G(torch.randn(4, 2))
        g_loss = -D(fake).mean()
        sched_g.zero_grad()
        g_loss.backward(retain_graph=True)
        {call}
        d_loss = D(fake).mean() - D(real).mean()
        sched_d.zero_grad()
        d_loss.backward()
        sched_d.step_and_update_lr()
"""


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    os.utime(path, ns=(1, 1))


def _found(tmp_path, train, wrapper=WRAPPER, code="AD108"):
    _write(tmp_path / "sched.py", wrapper)
    _write(tmp_path / "train.py", train)
    text = (tmp_path / "train.py").read_text()
    found, _, _ = check_source(text, str(tmp_path / "train.py"), all_rules(), Options())
    return [(f.line, f.message) for f in found if f.code == code]


def test_a_wrapper_method_that_steps_is_the_step(tmp_path):
    found = _found(tmp_path, TRAIN.replace("{call}", "sched_g.step_and_update_lr()"))
    assert [line for line, _ in found] == [20]
    assert "`sched_g.step_and_update_lr()` steps `opt_g`: `Sched` (sched.py) stores it as `self._opt`" \
        in found[0][1]


def test_a_wrapper_method_that_does_not_step_is_no_step(tmp_path):
    assert _found(tmp_path, TRAIN.replace("{call}", "sched_g.update_lr()")) == []


def test_a_wrapper_method_that_also_backwards_is_not_taken_for_a_step(tmp_path):
    # `train_step(loss)` trains by itself: not a bare step of the optimizer it holds
    found = _found(tmp_path, TRAIN.replace("{call}", "sched_g.train_step(g_loss)"))
    assert all("stores it as" not in message for _, message in found)


def test_a_wrapper_bound_twice_is_not_read(tmp_path):
    train = TRAIN.replace("{call}", "sched_g.step_and_update_lr()").replace(
        "    for real in batches:", "    sched_g = Sched(opt_d, 1e-3)\n    for real in batches:")
    assert _found(tmp_path, train) == []


def test_the_wrapper_in_this_file(tmp_path):
    train = TRAIN.replace("{call}", "sched_g.step_and_update_lr()").replace("from sched import Sched\n", WRAPPER)
    found = _found(tmp_path, train)
    assert len(found) == 1 and "`Sched` (this file)" in found[0][1]


SAC = """
import torch
import torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_


def sac_update(actor, critic, states, actions, targets, actor_optimiser, critic_optimiser):
    new_actions = actor(states)
    policy_loss = -critic(states, new_actions).mean()
    value_loss = F.mse_loss(critic(states, actions), targets)
    critic_optimiser.zero_grad()
    value_loss.backward()
    clip_grad_norm_(critic.parameters(), 1.0)
    critic_optimiser.step()
    actor_optimiser.zero_grad()
    policy_loss.backward()
    clip_grad_norm_(actor.parameters(), 1.0)
    actor_optimiser.step()
"""


def test_an_optimizer_parameter_pairs_with_a_parameter_known_as_a_module(tmp_path):
    found = _found(tmp_path, SAC)
    assert [line for line, _ in found] == [16]
    assert "it steps `critic` (paired by name)" in found[0][1]


def test_the_policy_loss_built_after_the_critic_step_is_left_alone(tmp_path):
    train = SAC.replace("    policy_loss = -critic(states, new_actions).mean()\n", "").replace(
        "    actor_optimiser.zero_grad()\n",
        "    policy_loss = -critic(states, new_actions).mean()\n    actor_optimiser.zero_grad()\n")
    assert _found(tmp_path, train) == []


PATCHES = """
import torch
from torch import nn


class Model:
    def __init__(self):
        self.netG = nn.Linear(4, 4)
        self.netD = nn.Linear(4, 1)
        self.optimizer_G = torch.optim.Adam(self.netG.parameters())
        self.optimizer_D = torch.optim.Adam(self.netD.parameters())

    def forward(self, x):
        self.fake = self.netG(x)
        self.real = x * 2
        self.fakes = [self.fake[:, :2], self.fake[:, 2:]]
        self.reals = [self.real[:, :2], self.real[:, 2:]]

    def d_basic(self, netD, real, fake):
        pred_real = netD(real)
        pred_fake = netD({fake})
        return pred_fake.mean() - pred_real.mean()

    def backward_G(self):
        self.loss_G = -self.netD(self.fake).mean()
        self.loss_G.backward()

    def backward_D(self):
        loss_D = self.d_basic(self.netD, self.real, self.fake)
        for i in range(2):
            loss_D += self.d_basic(self.netD, self.reals[i], self.fakes[i])
        self.loss_D = loss_D
        self.loss_D.backward()

    def optimize_parameters(self, x):
        self.forward(x)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
"""


def test_a_list_element_argument_brings_only_its_own_graph(tmp_path):
    # `d_basic` detaches `fake`: its result hangs from `real` (no graph) and D only
    assert _found(tmp_path, PATCHES.replace("{fake}", "fake.detach()")) == []
    assert [line for line, _ in _found(tmp_path, PATCHES.replace("{fake}", "fake"))] == [33]
