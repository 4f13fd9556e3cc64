"""Precision on real code (prec65): bounded loops over collections, per-episode lists.

- A loop over a dict of optimizers or models (`for name in self.optimizers.keys()` with
  `self.optimizers[name].step()`, `for key, _ in self.discs.items()` with
  `self.discs[key].forward(x)`) runs the parts of one step: a sum started before it holds one
  call's graphs (pytorch-golden-template's GAN strategy, Amphion's validation sums).
- A REINFORCE agent keeps its episode's log-probabilities on `self`; a method of the class builds
  the loss from the list and another backwards it; a reset method empties it. The backward
  needs the kept graphs (p-christ's REINFORCE): no AD101, no AD102.
- `self.critic.forward(s, a)` in a helper runs the module (the `.forward()` helper of 5fc7a4e).
"""
import os
import textwrap

import pytest

import autodetach
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

CORPUS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "corpus")


def _text(code, name):
    with open(os.path.join(CORPUS, code, name), encoding="utf-8") as fh:
        return fh.read()


def _found(src):
    return [(f.code, f.line, f.fix) for f in autodetach.check_code(textwrap.dedent(src), select=["AD1"])]


def _codes(src):
    return {code for code, _, _ in _found(src)}


# ---------------------------------------------------------------- bounded loops over collections
def test_gan_substeps_over_a_dict_of_optimizers_hold_one_step():
    assert _found(_text("AD102", "ok_gan_substeps_over_optimizer_dict.py")) == []


def test_the_same_substeps_summed_over_the_epoch_still_grow():
    found = _found(_text("AD102", "gan_substeps_epoch_sum.py"))
    assert [(code, line) for code, line, _ in found] == [("AD102", 54)]


def test_validation_sums_over_a_dict_of_discriminators_hold_one_step():
    assert _found(_text("AD102", "ok_valid_sum_over_discriminator_dict.py")) == []


STEP = """\
import torch
from torch import nn

class Trainer:
    def __init__(self):
        self.models = {"a": nn.Linear(4, 1), "b": nn.Linear(4, 1)}
        self.optimizers = {k: torch.optim.SGD(m.parameters(), lr=0.1) for k, m in self.models.items()}

    def step(self, x):
        total = 0
        for name in self.optimizers:
            self.optimizers[name].zero_grad()
            loss = self.models[name](x).pow(2).mean()
            loss.backward()
            self.optimizers[name].step()
            total += loss
        return total

trainer = Trainer()
for it in range(10):
    print(trainer.step(torch.randn(8, 4)).item())
"""


def test_a_loop_over_the_dict_itself_picks_its_entries_too():
    assert _found(STEP) == []


def test_a_sum_carried_by_the_enclosing_batch_loop_is_reported():
    # started once, before the loop over batches that calls the step: every batch's graphs stay
    src = STEP.replace("        total = 0\n", "").replace("        return total\n", "        return loss\n")
    src = src.replace("            total += loss\n", "            self.total += loss\n")
    src = src.replace("        self.optimizers = {", "        self.total = 0\n        self.optimizers = {")
    found = _found(src)
    assert [code for code, _, _ in found] == ["AD102"], found


DATA_KEYS = """\
import torch
from torch import nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
batches = {i: torch.randn(8, 4) for i in range(10)}
total = 0
for key in batches.keys():
    opt.zero_grad()
    loss = model(batches[key]).pow(2).mean()
    loss.backward()
    opt.step()
    total += loss
print(total.item())
"""


def test_a_key_that_picks_data_not_a_part_is_still_a_data_loop():
    # `batches[key]` is not called and has no optimizer's methods: every batch's graph is kept
    assert [code for code, _, _ in _found(DATA_KEYS)] == ["AD102"]


# ---------------------------------------------------------------- per-episode lists
def test_reinforce_lists_read_by_a_loss_helper_and_cleared_in_reset_are_needed():
    assert _found(_text("AD101", "ok_reinforce_lists_cleared_in_reset.py")) == []


def test_a_log_no_loss_reads_and_no_reset_empties_is_still_reported():
    found = _found(_text("AD101", "reinforce_entropy_log_kept.py"))
    assert [(code, line) for code, line, _ in found] == [("AD101", 68)]
    assert found[0][2] == "safe"


def test_the_loss_built_inline_from_the_list_needs_it_too():
    # the episode step is no evaluation function: its backward runs in `self.actor_learn()`
    src = _text("AD101", "ok_reinforce_lists_cleared_in_reset.py").replace(
        "        loss = self.policy_loss_on_episode(self.discounted_return())\n",
        "        total_return = self.discounted_return()\n"
        "        loss = torch.cat([-lp * total_return for lp in self.episode_log_probs]).sum()\n")
    assert "policy_loss_on_episode(self.discounted" not in src
    assert _found(src) == []


BASE = """\
import torch


class Base_Agent:
    def __init__(self):
        self.episode_number = 0

    def run_n_episodes(self, num_episodes):
        while self.episode_number < num_episodes:
            self.reset_game()
            self.step()

    def take_optimisation_step(self, optimizer, loss):
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""

AGENT = """\
import torch
from torch import nn
from torch.distributions import Categorical

from base_agent import Base_Agent


class REINFORCE(Base_Agent):
    def __init__(self, env):
        Base_Agent.__init__(self)
        self.environment = env
        self.policy = nn.Sequential(nn.Linear(4, 2), nn.Softmax(dim=1))
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=1e-2)
        self.episode_rewards = []
        self.episode_log_probabilities = []

    def reset_game(self):
        self.state = self.environment.reset()
        self.done = False
        self.episode_rewards = []
        self.episode_log_probabilities = []

    def step(self):
        while not self.done:
            state = torch.from_numpy(self.state).float().unsqueeze(0)
            dist = Categorical(self.policy.forward(state).cpu())
            action = dist.sample()
            self.store_log_probabilities(dist.log_prob(action))
            self.state, reward, self.done = self.environment.act(action.item())
            self.episode_rewards.append(reward)
            if self.time_to_learn():
                self.actor_learn()
        self.episode_number += 1

    def store_log_probabilities(self, log_probabilities):
        self.episode_log_probabilities.append(log_probabilities)

    def time_to_learn(self):
        return self.done

    def actor_learn(self):
        policy_loss = self.calculate_policy_loss_on_episode(sum(self.episode_rewards))
        self.optimizer.zero_grad()
        policy_loss.backward()
        self.optimizer.step()

    def calculate_policy_loss_on_episode(self, total_discounted_reward):
        policy_loss = []
        for log_prob in self.episode_log_probabilities:
            policy_loss.append(-log_prob * total_discounted_reward)
        policy_loss = torch.cat(policy_loss).sum()
        return policy_loss
"""


def _project(tmp_path, files, main):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    path = tmp_path / main
    rules = [rule for rule in all_rules() if rule.code.startswith("AD1")]
    found, _, _ = check_source(path.read_text(encoding="utf-8"), str(path), rules, Options())
    return [(f.code, f.line, f.fix) for f in found]


@pytest.mark.parametrize("run", ["self.policy.forward(state)", "self.policy(state)"])
def test_reinforce_whose_episode_loop_and_reset_call_live_in_another_file(tmp_path, run):
    # p-christ's shape: Base_Agent.run_n_episodes calls reset_game() and step()
    agent = AGENT.replace("self.policy.forward(state)", run)
    assert _project(tmp_path, {"base_agent.py": BASE, "reinforce.py": agent}, "reinforce.py") == []


# ---------------------------------------------------------------- `.forward()` helpers
def test_forward_call_helpers_run_their_modules():
    found = _found(_text("AD108", "flag_forward_call_helpers.py"))
    assert [(code, fix) for code, _, fix in found] == [("AD108", "none")]
    assert _found(_text("AD108", "ok_forward_call_helpers.py")) == []


# ---------------------------------------------------------------- found by the sweep on this change
PHASES = """\
import torch
from torch import nn


class GAN:
    def __init__(self):
        self.G = nn.Linear(4, 6)
        self.D = nn.Linear(6, 1)
        self.optim_G = torch.optim.Adam(self.G.parameters())
        self.optim_D = torch.optim.Adam(self.D.parameters())

    def compute_G_loss(self):
        return -self.d_fake.mean()

    def compute_D_loss(self):
        return self.d_fake.mean() - self.d_real.mean()

    def forward_D(self, z, real, detach=True):
        self.fake = self.G(z)
        self.d_real = self.D(real)
        self.d_fake = self.D(self.fake.detach() if detach else self.fake)

    def forward_G(self):
        self.d_fake = self.D(self.fake)

    def backward_D(self):
        d_loss = self.compute_D_loss()
        d_loss.backward()
        self.optim_D.step()

    def backward_G(self):
        g_loss = self.compute_G_loss()
        g_loss.backward()
        self.optim_G.step()

    def train(self):
        for it in range(10):
            self.optim_D.zero_grad()
            self.forward_D(torch.randn(8, 4), torch.randn(8, 6), detach=True)
            self.backward_D()
            self.optim_G.zero_grad()
            self.forward_G()
            self.backward_G()


GAN().train()
"""


def test_a_conditional_detach_inlined_with_a_literal_flag_takes_one_arm():
    # progressive_growing_of_gans: `self.fake.detach() if detach else self.fake` with `detach=True`; the loss
    # helpers read `self.d_fake` (state_readers walks them), which the D pass computed from the cut arm only
    assert _found(PHASES) == []


def test_the_other_arm_shares_the_generator_graph():
    call = "torch.randn(8, 6), detach="
    found = _found(PHASES.replace(call + "True)", call + "False)"))
    assert found and {code for code, _, _ in found} <= {"AD103", "AD105"}, found


REG = """\
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)
        self.emb = nn.Linear(4, 4)
        self.reg_loss = 1e-3 * torch.norm(self.fc.weight)
        self.add_regularization_loss(self.emb.weight, 1e-3)

    def add_regularization_loss(self, w, weight_decay):
        self.reg_loss = self.reg_loss + weight_decay * torch.norm(w)

    def fit(self, x, y, opt):
        for it in range(10):
            loss = (self.fc(x) - y).pow(2).mean()
            total_loss = loss + self.reg_loss
            opt.zero_grad()
            total_loss.backward(retain_graph=True)
            opt.step()
"""


def test_a_graph_kept_on_self_names_the_helper_that_stores_it():
    # DeepCTR's shape: the helper `__init__` calls reads the graph stored before (state_readers walks it there)
    found = [f for f in autodetach.check_code(REG, select=["AD107"])]
    assert len(found) == 1 and "by `Model.add_regularization_loss` (line 14)" in found[0].message, found
