"""Values that carry no graph: results of functions run with gradients off,
indices, samples and integer tensors. Each was reported as keeping a graph."""
import os
import textwrap

import pytest

from autodetach.analysis.summaries import summarize
from autodetach import check_code
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

LOOP = """\
import torch
import torch.nn as nn
from torch.distributions import Categorical, Normal
{defs}
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
history = []
for step in range(10):
    x = torch.randn(8, 4)
    out = net(x)
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    {value}
    history.append(v)
"""

NET = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)

    {deco}
    def score(self, x):
        return self.fc(x).sum()
"""


def _codes(text, path="train.py"):
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return [f.code for f in findings if f.code.startswith("AD1")]


def _loop(value, deco=""):
    return LOOP.format(defs=NET.format(deco=deco), value=value.replace("\n", "\n    "))


@pytest.mark.parametrize("deco", ["@torch.no_grad()", "@torch.no_grad", "@torch.inference_mode()",
                                  "@torch.set_grad_enabled(False)"])
def test_method_run_without_grad_returns_no_graph(deco):
    assert _codes(_loop("v = net.score(x)", deco)) == []


@pytest.mark.parametrize("deco", ["", "@torch.enable_grad()", "@torch.inference_mode(False)"])
def test_method_with_grad_still_keeps_its_graph(deco):
    assert _codes(_loop("v = net.score(x)", deco)) == ["AD101"]


@pytest.mark.parametrize("value", [
    "v = torch.argmax(out, dim=1)",
    "v = torch.multinomial(out.softmax(-1), 1)",
    "v = out.softmax(-1).multinomial(1)",
    "v = torch.bernoulli(out.sigmoid())",
    "v = Categorical(logits=out).sample()",
    "dist = Categorical(logits=out)\nv = dist.sample()",
    "v = out.max(1)[1]",
    "_, v = out.max(1)",
    "_, v = torch.max(out, dim=1)",
    "v = out.max(1).indices",
    "_, v = out.topk(2)",
    "v = torch.argsort(out)",
    "v = out.to(torch.long)",
    "v = out.type(torch.LongTensor)",
])
def test_indices_samples_and_integers_carry_no_graph(value):
    assert _codes(_loop(value)) == []


@pytest.mark.parametrize("value", [
    "v = out.max(1)[0]",
    "v, _ = out.max(1)",
    "v = out.max()",
    "v = torch.max(out, 1)[0]",
    "dist = Normal(out, 1.0)\nv = dist.rsample()",
    "dist = Categorical(logits=out)\na = dist.sample()\nv = dist.log_prob(a)",
    "v = out.to(torch.float64)",
    "v, idx = out.sort()",
])
def test_values_beside_them_keep_their_graph(value):
    # one number (`out.max()`) kept for the log is a statistic of the step: AD102 (logged_stats.py)
    assert _codes(_loop(value)) == (["AD102"] if value == "v = out.max()" else ["AD101"])


def test_summary_of_functions_run_without_grad():
    table = summarize(textwrap.dedent("""\
        import torch

        @torch.no_grad()
        def heat(net, x):
            return net(x)

        def pair(net, x):
            with torch.no_grad():
                y = net(x)
                return y, x.argmax()

        @torch.no_grad()
        def same(x):
            return x

        def again(net, x):
            with torch.no_grad():
                with torch.enable_grad():
                    return x * 2

        @torch.enable_grad()
        def on(x):
            return x * 2

        class Meter:
            @torch.no_grad()
            def update(self, v):
                self.history.append(v)

            def greedy(self, q):
                return q.argmax(dim=-1).item()

            def both(self, s):
                return bool(s.sum().item()), s.argmax().item()
        """))
    assert table["heat"].result == "cut" and table["heat"].no_graph and table["heat"].grad_off
    assert table["pair"].no_graph and table["pair"].elems == ("cut", "cut") and not table["pair"].grad_off
    assert not table["same"].no_graph  # `return x` under no_grad hands back x with its graph
    assert table["again"].result == "graph" and not table["again"].no_graph
    assert table["on"].result == "graph" and not table["on"].grad_off
    assert table["Meter.update"].accum == ()
    assert table["Meter.greedy"].no_graph and table["Meter.both"].no_graph
    # a parameter handed back as it is may be a tensor with its graph
    assert not summarize("def f(x):\n    if x is None:\n        return x.item()\n    return x\n")["f"].no_graph


AGENT = """\
import torch
import torch.nn as nn


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(4, 3)

    {deco}
    def greedy_option(self, state):
        return {ret}


def build():
    return Critic()
"""

TRAIN = """\
import torch
from agent import {imp}

history = []
critic = {make}
opt = torch.optim.SGD(critic.parameters(), lr=0.1)
for step in range(10):
    x = torch.randn(1, 4)
    option = critic.greedy_option(x)
    history.append(option)
    loss = critic.q(x)[0, 0] ** 2
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def _project(tmp_path, agent, train):
    for name, text in (("agent.py", agent), ("train.py", train)):  # agent.py: any helper file
        (tmp_path / name).write_text(text)
        os.utime(tmp_path / name, ns=(1, 1))
    return _codes((tmp_path / "train.py").read_text(), tmp_path / "train.py")


@pytest.mark.parametrize("imp, make", [("Critic", "Critic()"), ("build", "build()")])
@pytest.mark.parametrize("deco, ret, kept", [
    ("", "self.q(state).argmax(dim=-1).item()", False),
    ("@torch.no_grad()", "self.q(state)", False),
    ("", "self.q(state)", True),
])
def test_method_of_a_class_in_another_file(tmp_path, imp, make, deco, ret, kept):
    # the class is imported (`Critic()`), or only a project class defines the method (`build()`)
    codes = _project(tmp_path, AGENT.format(deco=deco, ret=ret), TRAIN.format(imp=imp, make=make))
    assert ("AD101" in codes) == kept



def test_a_numpy_result_carries_no_graph():
    table = summarize("import numpy as np\n\nclass M:\n    def vis(self, x, y):\n"
                      "        return x.mean(), np.hstack((x, y))\n")
    assert table["M.vis"].elems == ("graph", "cut")
    code = "import numpy as np\n" + _loop("v = np.tanh(out)")
    assert _codes(code) == []  # numpy refuses a tensor that requires grad: no graph can come out


def test_tensor_methods_are_never_looked_up_by_name(tmp_path):
    # a project class whose `mean()` returns a number says nothing about `loss.mean()`
    stats = "class RunningStat:\n    def mean(self):\n        return float(self.total) / self.count\n"
    train = textwrap.dedent("""\
        import torch
        import torch.nn as nn

        net = nn.Linear(4, 1)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        history = []
        for step in range(10):
            err = net(torch.randn(8, 4))
            history.append(err.mean())
            loss = (err - 1).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """)
    assert _project(tmp_path, stats, train) == ["AD102"]  # a statistic of the step (logged_stats.py)


SAC_TEMPERATURE = """
import torch
from torch import nn


class SAC:
    def __init__(self):
        self.policy = nn.Linear(4, 2)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.pi_opt = torch.optim.Adam(self.policy.parameters())
        self.alpha_opt = torch.optim.Adam([self.log_alpha])

    def temperature_loss(self, log_pi):
        return (-self.log_alpha * ({arg} + 1.0)).mean()

    def update(self, obs):
        log_pi = torch.log_softmax(self.policy(obs), 1)
        policy_loss = log_pi.mean()
        self.pi_opt.zero_grad()
        policy_loss.backward()
        self.pi_opt.step()
        alpha_loss = self.temperature_loss(log_pi)
        self.alpha_opt.zero_grad()
        alpha_loss.backward()
        self.alpha_opt.step()
"""


@pytest.mark.parametrize("arg,reported", [("log_pi.detach()", False), ("log_pi", True)])
def test_a_method_result_holds_only_the_arguments_it_hangs_from(arg, reported):
    """`self.temperature_loss(log_pi)` built on `log_pi.detach()` does not walk
    the policy's freed graph (garage's SAC); built on `log_pi` it does."""
    findings = check_code(SAC_TEMPERATURE.format(arg=arg))
    codes = [f.code for f in findings if f.code.startswith("AD1")]
    assert ("AD103" in codes) if reported else codes == []


def test_a_static_method_maps_its_first_argument():
    """`@staticmethod def temperature_loss(log_alpha, log_pi)` called as
    `self.temperature_loss(self.log_alpha, log_pi)`: no `self` to skip, so
    `log_pi`'s graph reaches the result (MolGAN's `postprocess`)."""
    src = SAC_TEMPERATURE.format(arg="log_pi").replace(
        "    def temperature_loss(self, log_pi):\n        return (-self.log_alpha",
        "    @staticmethod\n    def temperature_loss(log_alpha, log_pi):\n        return (-log_alpha").replace(
        "self.temperature_loss(log_pi)", "self.temperature_loss(self.log_alpha, log_pi)")
    assert "@staticmethod" in src and "self.log_alpha, log_pi" in src
    assert "AD103" in [f.code for f in check_code(src)]


PSEUDO_LABELS = """\
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from clustering import obtain_label  # not in the project: its result is unknown


net = nn.Linear(4, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
mem_label = None
for step in range(10):
    x = torch.randn(8, 4)
    if step % 5 == 0:
        mem_label, threshold = obtain_label(net, x)
        mem_label = {wrap}
    loss = F.cross_entropy(net(x), mem_label)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_a_tensor_made_from_numpy_carries_no_graph():
    # SHOT's pseudo-labels: `torch.from_numpy(mem_label).cuda()` was taken to carry the graph of
    # a tuple element of the helper and reported as reaching a later iteration's loss
    assert _codes(PSEUDO_LABELS.format(wrap="torch.from_numpy(mem_label)")) == []
