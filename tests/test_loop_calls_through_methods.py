"""A loop that calls a method of `self` whose backward lies one method
further down (`self.enforce(...)` -> `self._update(loss)`) trains in that
loop: the function is walked (model.Analysis._self_event_call), so a graph
built before the loop and backwarded by every call is seen."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

TRAINER = """
import torch
from torch import nn


class Trainer:
    def __init__(self):
        self.encoder = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        self.opt = torch.optim.Adam(self.encoder.parameters())

    def _update(self, loss):
        self.opt.zero_grad()
        loss.backward(retain_graph=True)
        self.opt.step()

    def enforce(self, sample, encoded):
        loss = (encoded - self.encoder(sample)).pow(2).mean()
        self._update(loss)

    def align(self, x, others):
{body}
"""

BEFORE_LOOP = """
        encoded = self.encoder(x)
        for other in others:
            self.enforce(other, encoded)
"""

IN_LOOP = """
        for other in others:
            self.enforce(other, self.encoder(x))
"""


def _findings(body):
    text = textwrap.dedent(TRAINER).format(body=textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8))
    found, _, _ = check_source(text, "trainer.py", all_rules(), Options())
    return [(f.code, f.line) for f in found if f.code.startswith("AD1")]


def test_graph_before_loop_backwarded_by_each_call():
    assert ("AD108", 13) in _findings(BEFORE_LOOP)


def test_encoded_again_in_each_call():
    # the retain is then needed by nobody (AD104), but no graph is stale or freed
    assert [f for f in _findings(IN_LOOP) if f[0] != "AD104"] == []
    assert ("AD104", 13) in _findings(IN_LOOP)


MAML = """
import torch
from torch import nn


class Meta:
    def __init__(self):
        self.model = nn.Linear(4, 1)
        self.opt = torch.optim.Adam(self.model.parameters())

    def adapt(self, x, y):
        fast = nn.Linear(4, 1)
        fast.load_state_dict(self.model.state_dict())
        loss = (fast(x) - y).pow(2).mean()
        grads = torch.autograd.grad(loss, fast.parameters(), create_graph=True)
        for param, grad in zip(fast.parameters(), grads):
            param.data -= 0.1 * grad
        return fast

    def outer(self, loss):
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()

    def step(self, x, y):
        self.outer((self.adapt(x, y)(x) - y).pow(2).mean())

    def fit(self, batches):
        for x, y in batches:
            self.step(x, y)
"""


def test_data_setter_keeps_no_graph():
    # `param.data -= lr * grad` (grad with create_graph) stores values only: nothing grows across batches
    found, _, _ = check_source(textwrap.dedent(MAML), "meta.py", all_rules(), Options())
    assert [f.code for f in found if f.code == "AD101"] == []
