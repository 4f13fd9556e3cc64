"""AD108 for a graph the loop rebuilds at the end of each pass and carries
into the next, past the step (analysis/stale.py, _before_loop)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

CARRIED = """
import torch

def run(agent, optim, observations):
    agent.train()
    state = agent.get_state(observations[0])
    for obs in observations[1:]:
        logp = agent.policy(state).log_softmax(-1)[:, 0]
        state = agent.get_state(obs)
        loss = -logp.mean()
        optim.zero_grad()
        loss.backward()
        optim.step()
"""


def _codes(src):
    findings, _, _ = check_source(textwrap.dedent(src), "case.py", all_rules(), Options())
    return sorted((f.code, f.line, f.fix) for f in findings)


AGENT = """

class Agent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 8))
        self.head = torch.nn.Linear(8, 2)

    def get_state(self, obs):
        return self.features(obs)

    def policy(self, state):
        return self.head(state)


agent = Agent()
opt = torch.optim.SGD(agent.parameters(), lr=0.1)
run(agent, opt, [torch.randn(1, 4) for _ in range(3)])
"""


def test_state_rebuilt_after_the_backward_is_stale_in_the_next_pass():
    assert ("AD108", 12, "none") in _codes(CARRIED + AGENT)


def test_carried_through_a_method_of_a_class_out_of_sight_is_not_judged():
    # `agent.policy(state)` of a class this file does not hold may cut `state` (`state.data @ W`)
    assert not [c for c in _codes(CARRIED) if c[0] == "AD108"]


def test_state_rebuilt_before_the_backward_is_fine():
    old = "        logp = agent.policy(state).log_softmax(-1)[:, 0]\n        state = agent.get_state(obs)\n"
    src = CARRIED.replace(old, "        state = agent.get_state(obs)\n        logp = agent.policy(state).log_softmax(-1)[:, 0]\n")
    assert src != CARRIED
    assert not [c for c in _codes(src) if c[0] == "AD108"]


def test_graph_built_once_before_the_loop_is_not_this_problem():
    src = CARRIED.replace("        state = agent.get_state(obs)\n", "")
    assert src != CARRIED
    assert not [c for c in _codes(src) if c[0] == "AD108"]


STORED = """
import torch
import torch.nn.functional as F

class Trainer:
    def __init__(self):
        self.embed = torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4))
        self.optimizer = torch.optim.SGD(self.embed.parameters(), lr=0.05)

    def train(self, batches):
        candidates = []
        for x, y in batches:
            candidates.append((self.embed(x), y))
        for i in range(len(candidates)):
            z, y = candidates[i]
            self.optimizer.zero_grad()
            loss = F.mse_loss(z, y)
            loss.backward()
            self.optimizer.step()
"""


def test_element_read_per_pass_from_outputs_stored_before_the_loop():
    assert ("AD108", 18, "none") in _codes(STORED)


def test_element_read_by_iterating_the_container():
    src = STORED.replace("        for i in range(len(candidates)):\n            z, y = candidates[i]\n",
                         "        for z, y in candidates:\n")
    assert src != STORED
    assert ("AD108", 17, "none") in _codes(src)


def test_the_same_element_every_pass_is_not_per_element():
    src = STORED.replace("candidates[i]", "candidates[0]")
    assert src != STORED
    assert not [c for c in _codes(src) if c[0] == "AD108"]
