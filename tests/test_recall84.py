"""Session 37, recall84: a graph an agent stores into a member memory (its class often in
another file) that an update draws once and backwards through in every epoch
(analysis.replayed_members)."""
import os
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

HERE = os.path.dirname(os.path.abspath(__file__))


def _ad101(tmp_path, src, name="agent.py", others=None):
    for other, text in (others or {}).items():
        (tmp_path / other).write_text(textwrap.dedent(text))
    path = tmp_path / name
    path.write_text(textwrap.dedent(src))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD101"]


PPO = """
import torch
import torch.nn.functional as F
from memories import Memory
from models import Model


class PPO:
    def __init__(self, policy: Model, value: Model, memory: Memory):
        self.policy = policy
        self.value = value
        self.memory = memory
        self.optimizer = torch.optim.Adam(value.parameters())

    def record_transition(self, states, actions, rewards):
        STORE
        self.memory.add_samples(states=states, actions=actions, rewards=rewards, values=values)

    def _update(self):
        self.memory.compute_functions()
        s, a, r, v, ret = self.memory.sample(64)
        for epoch in range(8):
            predicted, _, _ = self.value.act(states=s)
            value_loss = F.mse_loss(ret, predicted)
            self.optimizer.zero_grad()
            value_loss.backward()
            self.optimizer.step()
"""


def test_values_stored_in_another_files_memory_and_replayed_each_epoch(tmp_path):
    found = _ad101(tmp_path, PPO.replace("STORE", "values, _, _ = self.value.act(states=states)"))
    assert [f.line for f in found] == [16]
    msg = found[0].message
    assert "self.memory" in msg and "inferred" in msg and "no fix" in msg
    assert found[0].fix == "none"


def test_values_computed_without_grad_or_detached_are_not_reported(tmp_path):
    for store in ("with torch.no_grad():\n            values, _, _ = self.value.act(states=states)",
                  "values, _, _ = self.value.act(states=states)\n        values = values.detach()"):
        assert _ad101(tmp_path, PPO.replace("STORE", store)) == [], store


def test_a_caller_that_records_under_no_grad_is_followed(tmp_path):
    runner = """
    import torch

    def run(agent, env):
        for t in range(100):
            s, a, r = env.step()
            with torch.no_grad():
                agent.record_transition(s, a, r)
    """
    src = PPO.replace("STORE", "values, _, _ = self.value.act(states=states)")
    assert _ad101(tmp_path, src, others={"trainer.py": runner}) == []


TRAINER = """
import torch
from torch import nn


class Buffer:
    def __init__(self):
        self.items = []

    def put(self, state, value, reward):
        self.items.append((state, value, reward))

    def get(self):
        s, v, r = zip(*self.items)
        self.items = []
        return torch.stack(s), torch.stack(v).squeeze(-1), torch.tensor(r)


class Trainer:
    def __init__(self):
        self.critic = nn.Linear(4, 1)
        self.buf = Buffer()
        self.opt = torch.optim.SGD(self.critic.parameters(), lr=0.1)

    def step(self, s, r):
        v = self.critic(s)
        self.buf.put(s, v, r)

    def fit(self):
        states, values, rewards = self.buf.get()
        target = rewards + 0.9 * values
        LOOP
"""


def test_same_file_buffer_replayed_by_an_epoch_loop(tmp_path):
    loop = ("for k in range(4):\n            loss = (self.critic(states).squeeze(-1) - target).pow(2).mean()\n"
            "            self.opt.zero_grad()\n            loss.backward()\n            self.opt.step()")
    found = _ad101(tmp_path, TRAINER.replace("LOOP", loop), name="trainer.py")
    assert [f.line for f in found] == [26]


def test_one_backward_per_draw_is_not_reported(tmp_path):
    # REINFORCE / A2C: what was stored with its graph is backwarded once per update: correct
    once = ("loss = (self.critic(states).squeeze(-1) - target).pow(2).mean()\n"
            "        self.opt.zero_grad()\n        loss.backward()\n        self.opt.step()")
    assert _ad101(tmp_path, TRAINER.replace("LOOP", once), name="trainer.py") == []


def test_a_loop_that_draws_anew_each_pass_is_not_reported(tmp_path):
    loop = ("for k in range(4):\n            states, values, rewards = self.buf.get()\n"
            "            loss = (self.critic(states).squeeze(-1) - rewards - values).pow(2).mean()\n"
            "            loss.backward()")
    assert _ad101(tmp_path, TRAINER.replace("LOOP", loop), name="trainer.py") == []


def test_corpus_reinforce_memory_is_clean():
    case = os.path.join(HERE, "..", "corpus", "AD101", "ok_reinforce_memory_log_probs", "train.py")
    with open(case, encoding="utf-8") as fh:
        src = fh.read()
    findings, _, _ = check_source(src, case, all_rules(), Options())
    assert [f for f in findings if f.code == "AD101"] == []
