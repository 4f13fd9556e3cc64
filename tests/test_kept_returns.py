"""AD102 on losses a step returns and histories handed to helpers:
- a sum of what an inlined step method returns, where the callee's own local
  has the caller's name (`loss += self._step(x)`, `loss` in `_step` too);
- a dict of lists handed to a function that only writes it out."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _lines(text, code="AD102"):
    findings, _, _ = check_source(textwrap.dedent(text), "train.py", all_rules(), Options())
    return sorted(f.line for f in findings if f.code == code)


TRAINER = """
import torch


class Trainer:
    def __init__(self, net, n):
        self.net = net
        self.n = n
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

    def _step(self, x):
        {local} = self.net(x).pow(2).mean()
        self.opt.zero_grad()
        {local}.backward()
        self.opt.step()
        return {ret}

    def step(self, x):
        loss = 0
        for _ in range(self.n):
            loss += self._step(x)
        return loss / self.n
"""


@pytest.mark.parametrize("local", ["loss", "g_loss"])
def test_sum_of_returned_losses(local):
    assert _lines(TRAINER.format(local=local, ret=local)) == [21]


@pytest.mark.parametrize("local", ["loss", "g_loss"])
def test_sum_of_returned_items(local):
    assert _lines(TRAINER.format(local=local, ret=f"{local}.item()")) == []


SUBDIVIDED = """
import torch


class Trainer:
    def __init__(self, net, n):
        self.net = net
        self.n = n
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

    def _backward(self, loss):
        loss = loss / self.n
        loss.backward()
        return loss

    def train(self, iters):
        for _ in range(iters):
            self.opt.zero_grad()
            loss = 0
            for i in range(self.n):
                loss += self._backward(self.net(torch.randn(2, 4)).mean())
            self.opt.step()
            print(loss.item())
"""


def test_sub_batch_sum_reset_each_step_is_not_reported():
    assert _lines(SUBDIVIDED) == []


HISTORY = """
import torch
from utils import {imported}

net = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)


def {local}(h, path):
    {body}


hist = {{}}
hist["loss"] = []
hist["other"] = []
for epoch in range(3):
    for i in range(5):
        loss = net(torch.randn(2, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        hist["loss"].append({kept})
    {call}(hist, "h.pkl")
"""


@pytest.mark.parametrize("call,body,found", [
    ("save_pickle", "pass", True),  # imported, named as a writer
    ("plot_hist", "pass", True),
    ("keep_track", "print(len(h['loss']))", True),  # of this file, reads only
    ("keep_track", "h['loss'] = []", False),  # of this file, starts the list again
    ("keep_track", "h['loss'].clear()", False),
    ("archive", "pass", False),  # imported, not named as a writer: may start the lists again
])
def test_history_handed_to_a_helper(call, body, found):
    imported = call if call in ("save_pickle", "plot_hist", "archive") else "other"
    local = "keep_track" if call == "keep_track" else "unused"
    text = HISTORY.format(imported=imported, local=local, body=body, kept="loss", call=call)
    assert _lines(text) == ([22] if found else [])
    assert _lines(HISTORY.format(imported=imported, local=local, body=body, kept="loss.item()", call=call)) == []


@pytest.mark.parametrize("body", ["h.update(loss=[])", "h.pop('loss')", "reset(h)"])
def test_history_helper_that_may_start_the_lists_again(body):
    text = HISTORY.format(imported="reset", local="keep_track", body=body, kept="loss", call="keep_track")
    assert _lines(text) == []
