"""Recurrent state an acting loop grows with gradients on (analysis/acting_state.py)."""
import textwrap

from autodetach import check_code

MODEL = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 8)
        self.head = nn.Linear(8, 2)
        self.reset(1)

    def reset(self, n):
        self.hc = (torch.zeros(1, n, 8), torch.zeros(1, n, 8))

    def forward(self, x):
        x, self.hc = self.lstm(x, self.hc)
        return self.head(x)


net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)


def learn(batch):
    net.reset(4)
    loss = net(batch).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

"""


def _ad101(loop: str, extra: str = "") -> list:
    src = MODEL + extra + textwrap.dedent(loop)
    return [f for f in check_code(src, select=["AD101"])]


def test_acting_loop_reported():
    found = _ad101("""
        for episode in range(3):
            net.reset(1)
            for t in range(5):
                a = net(torch.randn(1, 1, 4)).argmax(-1).item()
            learn(torch.randn(5, 4, 4))
    """)
    assert len(found) == 1 and "self.hc" in found[0].message, [f.message for f in found]


def test_indices_of_max_are_numbers():
    found = _ad101("""
        for t in range(5):
            q = net(torch.randn(1, 1, 4))
            a = q.max(2)[1]
        learn(torch.randn(5, 4, 4))
    """)
    assert len(found) == 1


def test_values_of_max_keep_the_graph():
    # `q.max(2)[0]` carries the graph: the outputs may reach a loss, nothing is reported
    assert _ad101("""
        values = []
        for t in range(5):
            q = net(torch.randn(1, 1, 4))
            values.append(q.max(2)[0])
        loss = torch.stack(values).sum()
        opt.zero_grad()
        loss.backward()
    """) == []


def test_loop_that_trains_is_left_alone():
    assert _ad101("""
        for t in range(5):
            a = net(torch.randn(1, 1, 4)).argmax(-1).item()
            learn(torch.randn(5, 4, 4))
    """) == []


def test_reset_each_step_and_no_grad_are_left_alone():
    assert _ad101("""
        for t in range(5):
            net.reset(1)
            a = net(torch.randn(1, 1, 4)).argmax(-1).item()
        for t in range(5):
            with torch.no_grad():
                a = net(torch.randn(1, 1, 4)).argmax(-1).item()
        learn(torch.randn(5, 4, 4))
    """) == []


ACT = """
def act(obs):
    return net(obs).argmax(-1).item()

"""


def test_any_caller_loop_that_acts():
    found = _ad101(extra=ACT, loop="""
        def evaluate():
            for t in range(5):
                act(torch.randn(1, 1, 4))

        for episode in range(3):
            net.reset(1)
            for t in range(5):
                act(torch.randn(1, 1, 4))
            learn(torch.randn(5, 4, 4))
    """)
    assert len(found) == 1 and "`act`" in found[0].message, [f.message for f in found]


def test_no_report_when_a_caller_loop_trains():
    assert _ad101(extra=ACT, loop="""
        for t in range(5):
            act(torch.randn(1, 1, 4))
        for t in range(5):
            act(torch.randn(1, 1, 4))
            learn(torch.randn(5, 4, 4))
    """) == []
