"""Calls whose result holds none of its arguments' graph: the standard
library's random draws, `nn.Parameter(...)` of a computed tensor, and a loss
helper that runs a module under torch.no_grad() (analysis/quiet_modules.py).
Each shape was a false positive on public code (RL-Adventure's DQN notebooks,
pytorch-vq-vae's EMA quantizer, lightning-bolts' DQN)."""
import os
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _findings(path, code):
    with open(path) as fh:
        text = fh.read()
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return [f for f in findings if f.code == code]


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    os.utime(path, ns=(1, 1))


ENVS = """
class Space:
    n = 2


class Env:
    action_space = Space()

    def reset(self):
        return [0.0, 0.0]

    def step(self, action):
        return [float(action), 0.0], 1.0, False, {}


def make(name):
    return Env()
"""

AGENT = """
import random
import torch
from torch import nn
from envs import make

env = make("x")


class DQN(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Linear(2, 2)

    def act(self, state, epsilon):
        if random.random() > epsilon:
            action = self.layers(torch.tensor(state)).max(0)[1].data[0]
        else:
            action = {draw}
        return action


model = DQN()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
kept = []
state = env.reset()
for i in range(10):
    action = model.act(state, 0.1)
    next_state, reward, done, _ = env.step(action)
    kept.append((state, action, reward))
    state = next_state
    loss = model.layers(torch.randn(3, 2)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_random_draw_from_an_unread_object_is_a_number(tmp_path):
    _write(tmp_path / "envs.py", ENVS)
    _write(tmp_path / "train.py", AGENT.format(draw="random.randrange(env.action_space.n)"))
    assert _findings(tmp_path / "train.py", "AD101") == []
    # an unread method of the same object may hand back a graph: still taken to
    _write(tmp_path / "train.py", AGENT.format(draw="env.action_space.pick(state)"))
    assert _findings(tmp_path / "train.py", "AD101") != []


EMA = """
import torch
from torch import nn


class Quantizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.ema = nn.Parameter(torch.randn(4, 3))

    def forward(self, x):
        self.ema = {store}
        return x @ self.ema.t()


enc = nn.Linear(3, 3)
q = Quantizer()
opt = torch.optim.SGD(enc.parameters(), lr=0.1)
for i in range(5):
    loss = q(enc(torch.randn(8, 3))).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_parameter_of_a_computed_tensor_is_a_new_leaf(tmp_path):
    path = tmp_path / "vq.py"
    _write(path, EMA.format(store="nn.Parameter(self.ema * 0.9 + 0.1 * enc(x).mean(0))"))
    assert _findings(path, "AD101") == []
    _write(path, EMA.format(store="self.ema * 0.9 + 0.1 * enc(x).mean(0)"))
    assert _findings(path, "AD101") != []


LOSS = """
import torch
from torch import nn


def dqn_loss(batch, net, target_net):
    states, next_states = batch
    values = net(states).max(1)[0]
{target}
    return nn.functional.mse_loss(values, next_values)
"""
QUIET = "    with torch.no_grad():\n        next_values = target_net(next_states).max(1)[0]"
LOUD = "    next_values = target_net(next_states).max(1)[0]"

SYNC = """
import copy
import torch
from torch import nn
{source}

net = nn.Linear(4, 2)
target_net = copy.deepcopy(net)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(10):
    loss = dqn_loss((torch.randn(8, 4), torch.randn(8, 4)), net, target_net)
    if step % 3 == 0:
        target_net.load_state_dict(net.state_dict())
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_reload_of_a_module_the_helper_runs_under_no_grad(tmp_path):
    path = tmp_path / "train.py"
    _write(path, SYNC.format(source=LOSS.format(target=QUIET)))
    assert _findings(path, "AD108") == []
    _write(path, SYNC.format(source=LOSS.format(target=LOUD)))
    assert len(_findings(path, "AD108")) == 1


def test_reload_of_a_module_another_files_helper_runs_under_no_grad(tmp_path):
    _write(tmp_path / "losses.py", LOSS.format(target=QUIET))
    _write(tmp_path / "train.py", SYNC.format(source="from losses import dqn_loss"))
    assert _findings(tmp_path / "train.py", "AD108") == []
    _write(tmp_path / "losses.py", LOSS.format(target=LOUD))
    assert len(_findings(tmp_path / "train.py", "AD108")) == 1


TERM = """
import torch
from torch import nn

net = nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)


def get_loss(x, flag):
    out = net(x)
    mse = out.pow(2).mean() if flag else 0
    return dict(mse=mse, loss=out.mean() + mse)


cum = 0
for i in range(5):
    losses = get_loss(torch.randn(4, 3), i % 2 == 0)
    opt.zero_grad()
    losses["loss"].backward()
    opt.step()
    cum += {read}
"""


def test_arm_that_runs_only_for_a_number_keeps_no_graph(tmp_path):
    path = tmp_path / "train.py"
    for read in ('losses["mse"].item() if hasattr(losses["mse"], "item") else losses["mse"]',
                 'losses["mse"] if not isinstance(losses["mse"], torch.Tensor) else losses["mse"].item()'):
        _write(path, TERM.format(read=read))
        assert _findings(path, "AD102") == [], read
    # the tensor arm itself, or an arm that is not the tested value, still keeps the graph
    for read in ('losses["mse"] if hasattr(losses["mse"], "item") else 0',
                 'losses["mse"].item() if hasattr(losses["mse"], "item") else losses["loss"]'):
        _write(path, TERM.format(read=read))
        assert len(_findings(path, "AD102")) == 1, read
