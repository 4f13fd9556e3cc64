"""Outputs of a module whose forward returns no graph (`return mu.detach().numpy()`):
the forward read from this file's class, from a class imported relatively
(`from .policies import Policy`), and from a class handed in as a parameter whose
default the code shows (`def __init__(self, policy=Policy)`, handed on to
`self._setup(self.policy, ...)`); and a chain an inner loop keeps for the value
its function returns (an unrolled learned optimizer), which the caller may
backward: no finding in the function alone, no SAFE cut when walked at its call."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

POLICY = """
import torch
import torch.nn as nn


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(torch.as_tensor(x, dtype=torch.float32)).detach().numpy()
"""

AGENT = """
import torch

IMPORT


class Memory:
    def __init__(self):
        self.items = []

    def add(self, a):
        self.items.append(a)

    def last(self):
        return self.items[-1]


class Agent:
    def __init__(self, policy=Policy):
        self.policy_cls = policy
        self._setup(SETUP_ARG)

    def _setup(self, policy):
        self.policy = policy().to("cpu")
        self.opt = torch.optim.SGD(self.policy.parameters(), lr=0.1)
        self.mem = Memory()

    def train(self, steps):
        for _ in range(steps):
            action = self.policy(self.mem.last())
            self.mem.add(action)
            loss = self.policy.fc(torch.zeros(4)).sum()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
"""


def _ad1(tmp_path, agent, policy=POLICY):
    pkg = tmp_path / "agents"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "policies.py").write_text(textwrap.dedent(policy))
    path = pkg / "algorithms.py"
    path.write_text(textwrap.dedent(agent))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [(f.code, f.line, f.fix) for f in findings if f.code.startswith("AD1")]


def test_default_class_handed_on_relative_import(tmp_path):
    agent = AGENT.replace("IMPORT", "from .policies import Policy").replace("SETUP_ARG", "policy")
    assert _ad1(tmp_path, agent) == []


def test_default_class_through_an_attribute(tmp_path):
    agent = AGENT.replace("IMPORT", "from .policies import Policy").replace("SETUP_ARG", "self.policy_cls")
    assert _ad1(tmp_path, agent) == []


def test_a_policy_that_returns_its_graph_is_still_reported(tmp_path):
    agent = AGENT.replace("IMPORT", "from .policies import Policy").replace("SETUP_ARG", "policy")
    found = _ad1(tmp_path, agent, POLICY.replace(".detach().numpy()", ""))
    assert [(code, line) for code, line, _ in found] == [("AD102", 31)]


def test_own_class_forward_returns_numpy(tmp_path):
    agent = AGENT.replace("IMPORT", POLICY.replace("import torch\n", "")).replace(
        "self._setup(SETUP_ARG)", "self._setup(Policy)")
    assert _ad1(tmp_path, agent) == []


UNROLL = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Meta(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(2, 4)
        self.out = nn.Linear(4, 1)

    def forward(self, inputs, w, h):
        h = self.cell(inputs, h)
        return w - self.out(h).squeeze(1), h


def unroll(meta, w, x, y, steps):
    states = [None]
    for _ in range(steps):
        leaf = w.detach().requires_grad_()
        loss = F.mse_loss(x @ leaf, y)
        loss.backward()
        w, h = meta(torch.stack([leaf.grad, leaf.grad], 1), w, states[-1])
        states.append(h)
    return RESULT


meta = Meta()
opt = torch.optim.Adam(meta.parameters())
for episode in range(3):
    x = torch.randn(8, 5)
    w = unroll(meta, torch.zeros(5), x, x.sum(1), 3)
    meta_loss = (w ** 2).sum()
    opt.zero_grad()
    meta_loss.backward()
    opt.step()
"""


def _unroll(src):
    findings, _, _ = check_source(textwrap.dedent(src), "unroll.py", all_rules(), Options())
    return [(f.code, f.line, f.fix) for f in findings if f.code.startswith("AD1")]


def test_chain_the_returned_value_hangs_from_is_not_a_leak():
    # the function alone: what it returns hangs from the chain, and its callers are not in sight
    src = UNROLL.replace("RESULT", "w")
    assert _unroll(src[:src.index("meta = Meta()")]) == []


def test_chain_a_followed_caller_backwards_is_not_a_leak():
    assert _unroll(UNROLL.replace("RESULT", "w")) == []


def test_chain_handed_to_an_unseen_call_is_no_safe_cut():
    # walked at its call, the result handed to code out of sight before the backward: the
    # chain is reported, but a cut would stop the gradient that code may send back through it
    src = UNROLL.replace("RESULT", "w").replace("import torch\n", "import torch\nfrom weights_lib import Holder\n", 1)
    src = src.replace("    meta_loss = (w ** 2).sum()", "    holder = Holder()\n    holder.load(w)\n    meta_loss = holder.loss()")
    findings, _, _ = check_source(textwrap.dedent(src), "unroll.py", all_rules(), Options())
    found = [f for f in findings if f.code.startswith("AD1")]
    assert found and all(f.fix != "safe" for f in found)
    assert any("what `unroll` returns hangs from the chain kept in" in f.message for f in found)


def test_chain_nothing_returned_hangs_from_is_still_a_leak():
    # the function returns a fresh tensor: the states kept in the loop serve no caller
    found = _unroll(UNROLL.replace("RESULT", "w.detach().requires_grad_()"))
    assert ("AD101", 25, "safe") in found


HANDED = """
import copy

import torch
import torch.nn as nn
from ringlib import Ring


class Agent:
    def __init__(self, lr=0.1):
        self.lr = lr

    def test(self, steps, policy):
        self.policy = BUILD
        self.opt = torch.optim.SGD(self.policy.parameters(), lr=self.lr)
        self.ring = Ring()
        for _ in range(steps):
            action = self.policy(self.ring.retrieve())
            self.ring.add(action)
            LOSS

    def update(self):
        loss = self.policy(torch.zeros(4)).sum()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
"""


def _handed(tmp_path, build, loss="self.update()"):
    path = tmp_path / f"agent_{abs(hash((build, loss)))}.py"
    path.write_text(textwrap.dedent(HANDED).replace("BUILD", build).replace("LOSS", loss))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [(f.code, f.fix, "is taken to return a tensor with a graph" in f.message)
            for f in findings if f.code == "AD101"]


def test_a_copied_policy_of_unknown_class_gets_no_safe_cut(tmp_path):
    # the caller's policy, copied: nothing tells its class, so a graph in what it returns is
    # only assumed (FinRL's test policy returns numpy, whose `.detach()` raises)
    assert _handed(tmp_path, "copy.deepcopy(policy)") == [("AD101", "unsafe", True)] * 2
    assert _handed(tmp_path, "policy") == [("AD101", "unsafe", True)] * 2


def test_a_built_module_or_a_backward_through_the_output_keeps_the_safe_cut(tmp_path):
    # `action` (fed back through the ring) and the ring that keeps it: a module built here proves
    # the graph, but that `Ring` (a library class, not read) keeps what it is given is inferred
    # (audit51, analysis/unread_keepers.py), so the cut is offered unsafe
    found = _handed(tmp_path, "nn.Linear(4, 4)")
    assert [(code, fix) for code, fix, _ in found] == [("AD101", "unsafe")] * 2
    loss = ("loss = action.sum()\n            self.opt.zero_grad()\n"
            "            loss.backward()\n            self.opt.step()")
    # a backward through the action proves it carries a graph (the chain it feeds back is reached: unsafe)
    found = _handed(tmp_path, "copy.deepcopy(policy)", loss)
    assert found and all(not inferred for _, _, inferred in found)
