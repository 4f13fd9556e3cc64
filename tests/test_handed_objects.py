"""An object handed to a Trainer's `__init__` (`self.agent = agent`) whose
method, in every project class that defines it, runs backward and returns the
losses it backwarded (navneet-nmk/pytorch-rl: `self.ddpg.fit_batch()`)."""
import textwrap

from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

AGENTS = """
import torch


class DDPG:
    def fit_batch(self, x):
        self.opt.zero_grad()
        loss = self.criterion(self.critic(x), x)
        loss.backward()
        self.opt.step()
        return loss, loss.detach() * 2
"""

OTHER = """
class Logger:
    def fit_batch(self, x):
        return x
"""

TRAINER = """
import torch


class Trainer:
    def __init__(self, agent, steps):
        self.agent = agent
        self.steps = steps

    def train(self, loader):
        critic_losses = []
        for x in loader:
            loss, scaled = self.agent.fit_batch(x)
            critic_losses.append(loss)
        return sum(float(v) for v in critic_losses)
"""


def _found(root, files: dict):
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    found, _, _ = check_source(textwrap.dedent(files["trainer.py"]), str(root / "trainer.py"), rules, Options())
    return [(f.code, f.line, f.fix) for f in found]


HELPER_STEP = """
import helpers


class Agent:
    def fit(self, x):
        loss = helpers.compute(x)
        loss.backward()
        %s
        return loss, 1
"""


def test_a_backwarded_name_returned_carries_a_graph():
    # what `helpers.compute` returns is not seen, but the backward proves a graph
    assert summarize(HELPER_STEP % "pass")["Agent.fit"].elems == ("graph", "const")
    # a number bound to it after the backward: not known
    assert summarize(HELPER_STEP % "loss = loss.item()")["Agent.fit"].elems == ("unknown", "const")


def test_losses_of_a_handed_agent_kept_in_a_list(tmp_path):
    found = _found(tmp_path, {"agents.py": AGENTS, "trainer.py": TRAINER})
    assert [(code, line) for code, line, _ in found] == [("AD102", 14)]
    assert found[0][2] == "unsafe"  # an inference about the caller's class


def test_a_class_whose_method_does_not_train_leaves_it_alone(tmp_path):
    # the agent could be a Logger: its fit_batch runs no backward
    assert _found(tmp_path, {"agents.py": AGENTS, "logger.py": OTHER, "trainer.py": TRAINER}) == []
