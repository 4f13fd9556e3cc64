"""Recurrent state a loop threads through a function or a method of a project
class with gradients on (analysis/recurrent_calls.py, analysis/threaded_state.py):
the call's code is read in this file or another of the project's, the state may
come back under another name (`h = next_h`), be reset on an `if` arm at the end
of an episode, or be handed to a buffer that keeps it cut; a loop that trains
something else is no bar when only the step reads the state. Issue 8."""
import os
import textwrap

from autodetach.engine import Options, check_source
from autodetach.findings import NONE, UNSAFE
from autodetach.registry import all_rules

AGENTS = """
import torch
import torch.nn as nn


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(3, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, obs, h):
        h = self.cell(obs, h)
        return torch.tanh(self.head(h)), h


class Policy:
    def __init__(self):
        self.actor = Actor()
        self.opt = torch.optim.SGD(self.actor.parameters(), lr=0.05)

    def initial(self):
        return torch.zeros(1, 8)

    def select_action(self, obs, h):
        obs = torch.as_tensor(obs, dtype=torch.float32).view(1, -1)
        action, h = self.actor(obs, h)
        return action.cpu().data.numpy().flatten(), h

    def train(self, buffer):
        obs, h = buffer.sample()
        action, _ = self.actor(obs, h)
        loss = action.pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


class Buffer:
    def __init__(self):
        self.obs, self.h = [], []

    def add(self, obs, h):
        self.obs.append(obs)
        self.h.append({keep})

    def sample(self):
        return torch.stack(self.obs), torch.stack(self.h)
"""

SIBLING_LOOP = """
import numpy as np
import torch

from agents import Buffer, Policy


def make():
    return Policy()


policy = make()
buffer = Buffer()
obs = np.zeros(3)
h = policy.initial()
for t in range(20):
{step}
    obs = obs + 0.1 * a.sum()
    buffer.add(obs, h)
    h = {rebind}
    policy.train(buffer)
    if t % 5 == 4:
        h = policy.initial()
"""

NETS = """
import torch
import torch.nn as nn


class RecurrentQ(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 16, batch_first=True)
        self.out = nn.Linear(16, 3)

    def forward(self, seq, state=None):
        y, state = self.rnn(seq, state)
        return self.out(y), state

    def step(self, obs, state):
        q, state = self(obs.view(1, 1, -1), state)
        return q.argmax(-1).item(), state
"""

TRAINER = """
import random

import torch

from nets import RecurrentQ


def choose(net, obs, state, eps):
    action, state = net.step(obs, state)
    if random.random() < eps:
        return random.randrange(3), state
    return action, state


class Trainer:
    def __init__(self):
        self.net = RecurrentQ()

    def collect(self, steps):
        rewards = []
        obs, state = torch.randn(4), None
        for t in range(steps):
{step}
            rewards.append(float(action == 1))
        return rewards
"""


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    os.utime(path, ns=(1, 1))


def _ad101(path):
    with open(path) as fh:
        text = fh.read()
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD101"]


def _sibling(tmp_path, step="    a, next_h = policy.select_action(obs, h)", rebind="next_h", keep="h.detach()"):
    _write(tmp_path / "agents.py", AGENTS.format(keep=keep))
    _write(tmp_path / "train.py", SIBLING_LOOP.format(step=step, rebind=rebind))
    return _ad101(tmp_path / "train.py")


def test_policy_method_of_a_sibling_module_renamed_state_reported_unsafe(tmp_path):
    found = _sibling(tmp_path)
    assert len(found) == 1, [f.message for f in found]
    f = found[0]
    assert f.fix == UNSAFE and "select_action" in f.message and "`Policy`" in f.message
    assert "inferred" in f.message and "buffer.add" in f.message


def test_buffer_keeping_the_state_whole_reported_without_fix(tmp_path):
    found = _sibling(tmp_path, keep="h.squeeze(0)")
    assert len(found) == 1 and found[0].fix == NONE, [(f.message, f.fix) for f in found]
    assert "keeps the state as it is" in found[0].message


def test_step_under_no_grad_or_state_cut_on_rebind_not_reported(tmp_path):
    quiet = "    with torch.no_grad():\n        a, next_h = policy.select_action(obs, h)"
    assert _sibling(tmp_path, step=quiet) == []
    other = tmp_path / "cut"
    other.mkdir()
    assert _sibling(other, rebind="next_h.detach()") == []


def test_method_that_detaches_what_it_returns_not_reported(tmp_path):
    _write(tmp_path / "agents.py", AGENTS.format(keep="h").replace(
        "return action.cpu().data.numpy().flatten(), h", "return action.cpu().data.numpy().flatten(), h.detach()"))
    _write(tmp_path / "train.py", SIBLING_LOOP.format(step="    a, next_h = policy.select_action(obs, h)",
                                                      rebind="next_h"))
    assert _ad101(tmp_path / "train.py") == []


def test_helper_function_on_a_trainer_method_reported(tmp_path):
    _write(tmp_path / "nets.py", NETS)
    _write(tmp_path / "train.py", TRAINER.format(step="            action, state = choose(self.net, obs, state, 0.1)"))
    found = _ad101(tmp_path / "train.py")
    assert len(found) == 1 and found[0].fix == UNSAFE, [f.message for f in found]
    assert "`choose`" in found[0].message and "inferred" in found[0].message


def test_state_reset_every_step_not_reported(tmp_path):
    _write(tmp_path / "nets.py", NETS)
    step = ("            state = None\n"
            "            action, state = choose(self.net, obs, state, 0.1)")
    _write(tmp_path / "train.py", TRAINER.format(step=step))
    assert _ad101(tmp_path / "train.py") == []


def test_helper_under_no_grad_decorator_not_reported(tmp_path):
    _write(tmp_path / "nets.py", NETS)
    src = TRAINER.format(step="            action, state = choose(self.net, obs, state, 0.1)").replace(
        "def choose(", "@torch.no_grad()\ndef choose(")
    _write(tmp_path / "train.py", src)
    assert _ad101(tmp_path / "train.py") == []


def test_frozen_network_not_reported(tmp_path):
    _write(tmp_path / "nets.py", NETS)
    _write(tmp_path / "play.py", """
        import torch

        from nets import RecurrentQ

        net = RecurrentQ()
        net.requires_grad_(False)
        state, total = None, 0
        for t in range(10):
            action, state = net.step(torch.randn(4), state)
            total += action
        print(total)
    """)
    assert _ad101(tmp_path / "play.py") == []


def test_module_level_eval_loop_with_gradients_on_reported(tmp_path):
    _write(tmp_path / "nets.py", NETS)
    _write(tmp_path / "play.py", """
        import torch

        from nets import RecurrentQ

        net = RecurrentQ()
        net.load_state_dict(torch.load("q.pt"))
        net.eval()
        state, total = None, 0
        for t in range(10):
            action, state = net.step(torch.randn(4), state)
            total += action
        print(total)
    """)
    found = _ad101(tmp_path / "play.py")
    assert len(found) == 1 and found[0].fix == UNSAFE, [f.message for f in found]


def test_log_prob_returned_with_graph_not_reported(tmp_path):
    _write(tmp_path / "nets.py", NETS.replace("return q.argmax(-1).item(), state", "return q.max(), state"))
    _write(tmp_path / "train.py", """
        import torch

        from nets import RecurrentQ

        net = RecurrentQ()
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for episode in range(3):
            state, total = None, 0
            for t in range(5):
                q, state = net.step(torch.randn(4), state)
                total = total + q
            opt.zero_grad()
            total.backward()
            opt.step()
    """)
    assert _ad101(tmp_path / "train.py") == []


def test_agent_on_self_of_a_runner_class_reported(tmp_path):
    _write(tmp_path / "nets.py", NETS)
    _write(tmp_path / "runner.py", """
        import torch


        class Runner:
            def __init__(self, agent, env):
                self.agent = agent
                self.env = env

            def episode(self, steps):
                obs, memory, score = self.env.reset(), None, 0.0
                for t in range(steps):
                    action, memory = self.agent.step(obs, memory)
                    obs, reward = self.env.step(action)
                    score += reward
                return score
    """)
    found = _ad101(tmp_path / "runner.py")
    assert len(found) == 1 and found[0].fix == UNSAFE, [f.message for f in found]
    assert "`RecurrentQ`" in found[0].message


def test_agent_on_self_under_no_grad_in_the_runner_not_reported(tmp_path):
    _write(tmp_path / "nets.py", NETS)
    _write(tmp_path / "runner.py", """
        import torch


        class Runner:
            def __init__(self, agent):
                self.agent = agent

            @torch.no_grad()
            def episode(self, steps):
                memory, score = None, 0.0
                for t in range(steps):
                    action, memory = self.agent.step(torch.randn(4), memory)
                    score += action
                return score
    """)
    assert _ad101(tmp_path / "runner.py") == []


def test_state_also_bound_by_a_for_target_is_not_followed_and_does_not_crash(tmp_path):
    # a name bound by an assignment and by a `for` target: main's sweep crashed on it (TTS's train.py)
    agents = AGENTS.format(keep="h.detach()").replace(
        "        action, h = self.actor(obs, h)\n",
        "        action, h = self.actor(obs, h)\n        for h in [h]:\n            pass\n")
    _write(tmp_path / "agents.py", agents)
    _write(tmp_path / "train.py", SIBLING_LOOP.format(step="    a, next_h = policy.select_action(obs, h)",
                                                      rebind="next_h"))
    with open(tmp_path / "train.py") as fh:
        findings, _, _ = check_source(fh.read(), str(tmp_path / "train.py"), all_rules(), Options())
    assert not [f for f in findings if f.code == "AD101"]
    assert not [f for f in findings if "internal error" in f.message]


def test_state_bound_inside_a_with_body_is_still_followed(tmp_path):
    # only a with's `as` names are bound by it: an assignment in its body stays a plain binding
    agents = AGENTS.format(keep="h.detach()").replace(
        "        action, h = self.actor(obs, h)\n",
        "        with open(os.devnull) as sink:\n            action, h = self.actor(obs, h)\n").replace(
        "import torch\n", "import os\n\nimport torch\n", 1)
    _write(tmp_path / "agents.py", agents)
    _write(tmp_path / "train.py", SIBLING_LOOP.format(step="    a, next_h = policy.select_action(obs, h)",
                                                      rebind="next_h"))
    found = _ad101(tmp_path / "train.py")
    assert len(found) == 1 and found[0].fix == UNSAFE, [f.message for f in found]
