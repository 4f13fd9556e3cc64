"""Objects of nn.Module classes of other project files (analysis/project_modules.py):
used only through their methods, their results carry a graph."""
import textwrap

from autodetach.analysis.project_modules import is_module_class
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

NETS = """
import torch.nn as nn
from torch import nn as tnn


class Base(nn.Module):
    pass


class Actor(Base):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(4, 2)

    def act(self, x):
        return self.fc(x).tanh()


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x, a):
        return self.block(x).sum(1) + a.sum(1)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(nn.init.zeros_(nn.Linear(4, 3).weight))

    def forward(self, x):
        return x @ self.w.t()


class PairLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.L1Loss()


class Meter:
    def __init__(self):
        self.lin = nn.Linear(4, 1)
"""

AGENT = """
import torch
from nets import Actor, Critic{extra}


class Agent:
    def __init__(self):
        self.actor = Actor()
        self.critic = Critic()
        self.opt_a = torch.optim.SGD(self.actor.parameters(), lr=0.1)
        self.opt_c = torch.optim.SGD(self.critic.parameters(), lr=0.1)

    def learn(self):
        s = torch.randn(8, 4)
        a = self.actor.act(s)
        actor_loss = -self.critic.forward(s, a).mean()
        self.opt_a.zero_grad()
        actor_loss.backward(retain_graph=True)
        self.opt_a.step()
        critic_loss = {critic}.pow(2).mean()
        self.opt_c.zero_grad()
        critic_loss.backward()
        self.opt_c.step()


agent = Agent()
for _ in range(3):
    agent.learn()
"""


def _project(tmp_path, critic):
    (tmp_path / "nets.py").write_text(textwrap.dedent(NETS))
    path = tmp_path / "agent.py"
    path.write_text(textwrap.dedent(AGENT.format(extra="", critic=critic)))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_module_classes_of_another_file(tmp_path):
    (tmp_path / "nets.py").write_text(textwrap.dedent(NETS))
    here = str(tmp_path)
    assert is_module_class(here, "nets.Actor")  # through a local base, a layer of an aliased nn
    assert is_module_class(here, "nets.Critic")  # a layer that is a module class of the file
    assert is_module_class(here, "nets.Block")  # an nn.Parameter
    assert not is_module_class(here, "nets.PairLoss")  # a module without parameters of its own
    assert not is_module_class(here, "nets.Meter")  # not an nn.Module
    assert not is_module_class(here, "nets.Missing")
    assert not is_module_class(here, "other.Actor")  # no such file


def test_retain_unneeded_through_methods_of_project_modules(tmp_path):
    # the critic loss is a fresh forward: the actor's graph is never walked again
    found = _project(tmp_path, "self.critic.forward(torch.randn(8, 4), torch.randn(8, 2))")
    assert [f.line for f in found] == [18]
    assert found[0].fix == "safe"


def test_retain_needed_when_the_graph_is_reused(tmp_path):
    # the critic loss reuses the actor's action, whose graph the retain keeps: needed as the code
    # stands; AD103 detaches the action on the critic's pass (the actor's gradients from it are
    # zeroed), and only then is the retain unneeded
    found = _project(tmp_path, "self.critic.forward(s, a)")
    assert [f.line for f in found] == [18]
    assert "found once the other fixes in this file are applied" in found[0].message
