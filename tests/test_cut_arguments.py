"""AD109 through a method that steps (analysis.cut_arguments): a cut argument
handed to `self.update_critic(...)`, whose optimizer steps modules the loss
reaches only through that argument. Next to the calls that must stay silent."""
import textwrap

import autodetach
from autodetach.engine import Options, check_source
from autodetach.registry import by_code

AGENT = """
import torch
from torch import nn

class Base:
    def __init__(self):
        self.encoder = nn.Linear(4, 4)
        self.critic = nn.Linear(4, 1)
        self.actor = nn.Linear(4, 1)
        self.encoder_opt = torch.optim.Adam(self.encoder.parameters())
        self.critic_opt = torch.optim.Adam(self.critic.parameters())
        self.actor_opt = torch.optim.Adam(self.actor.parameters())

    def encode(self, obs):
        return self.encoder(obs)

    def update_critic(self, obs, target):
        loss = (self.critic(obs) - target).pow(2).mean()
        self.encoder_opt.zero_grad()
        self.critic_opt.zero_grad()
        loss.backward()
        self.critic_opt.step()
        self.encoder_opt.step()

    def update_actor(self, obs):
        loss = -self.critic(obs + self.actor(obs)).mean()
        self.actor_opt.zero_grad()
        loss.backward()
        self.actor_opt.step()

class Agent(Base):
    def update(self, obs, target):
        obs = self.encode(obs)
        {call}
"""


def found(call):
    src = textwrap.dedent(AGENT).replace("{call}", call)
    return [(f.code, f.line) for f in autodetach.check_code(src, select=["AD109"])]


def test_cut_observation_to_a_step_of_the_encoder_is_reported():
    # in one file the call is walked into: the step's own finding, once
    assert found("self.update_critic(obs.detach(), target)") == [("AD109", 18)]


def test_cut_observation_to_a_base_class_of_another_file_is_reported(tmp_path):
    base, sub = textwrap.dedent(AGENT).split("class Agent(Base):")
    (tmp_path / "base.py").write_text(base)
    text = "from base import Base\n\nclass Agent(Base):" + sub.replace("{call}", "self.update_critic(obs.detach(), t)")
    (tmp_path / "train.py").write_text(text)
    findings, _, _ = check_source(text, str(tmp_path / "train.py"), [by_code()["AD109"]], Options())
    assert [(f.code, f.line) for f in findings] == [("AD109", 6)]
    assert "defined in base.py" in findings[0].message and "`self.encoder` gets no gradient" in findings[0].message


def test_live_observation_is_not_reported():
    assert found("self.update_critic(obs, target)") == []


def test_cut_observation_to_a_step_of_other_modules_is_not_reported():
    # update_actor steps the actor, which its loss reaches directly
    assert found("self.update_actor(obs.detach())") == []


def test_cut_of_a_value_not_from_the_encoder_is_not_reported():
    assert found("self.update_critic(target.detach(), target)") == []


def test_loss_through_a_helper_that_uses_the_encoder_is_not_reported():
    src = AGENT.replace("loss = (self.critic(obs) - target).pow(2).mean()",
                        "loss = self.critic_loss(obs, target)").replace(
        "    def update_actor(self, obs):",
        "    def critic_loss(self, obs, target):\n"
        "        return (self.critic(self.encoder(obs)) - target).pow(2).mean()\n\n"
        "    def update_actor(self, obs):")
    base, sub = textwrap.dedent(src).split("class Agent(Base):")
    assert "critic_loss" in base
    findings = autodetach.check_code(textwrap.dedent(src).replace("{call}", "self.update_critic(obs.detach(), t)"),
                                     select=["AD109"])
    assert [f.line for f in findings if "update_critic" in f.message] == []


def test_critic_built_around_the_encoder_is_not_reported(tmp_path):
    src = textwrap.dedent(AGENT).replace("self.critic = nn.Linear(4, 1)",
                                         "self.critic = nn.Sequential(self.encoder, nn.Linear(4, 1))")
    base, sub = src.split("class Agent(Base):")
    (tmp_path / "base.py").write_text(base)
    text = "from base import Base\n\nclass Agent(Base):" + sub.replace("{call}", "self.update_critic(obs.detach(), t)")
    findings, _, _ = check_source(text, str(tmp_path / "train.py"), [by_code()["AD109"]], Options())
    assert findings == []
