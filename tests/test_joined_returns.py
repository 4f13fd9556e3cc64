"""A helper with several `return a, b, c` statements: the caller's unpacking
gets each element's join, not the whole (a step time summed across the
optimizers of a step is a float, never a graph)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

TRAINER = """
import time

import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, optimizers):
        self.model = model
        self.optimizer, self.history = optimizers, []

    def _optimize(self, batch, optimizer):
        start = time.time()
        outputs = self.model(batch)
        if outputs is None:
            step_time = time.time() - start
            return None, {{}}, step_time
        loss = outputs.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step_time = time.time() - start
        return {first}, {{"loss": loss.detach()}}, step_time

    def train_step(self, batch):
        total, kept = 0, []
        for optimizer in self.optimizer:
            outputs, loss_dict, step_time = self._optimize(batch, optimizer)
            total += step_time
            self.history.append(outputs)
        return total, kept


net = nn.Linear(3, 1)
t = Trainer(net, [torch.optim.SGD(net.parameters(), lr=0.1)])
for _ in range(3):
    t.train_step(torch.randn(4, 3))
"""


def _found(first):
    text = textwrap.dedent(TRAINER.format(first=first))
    findings, _, _ = check_source(text, "trainer.py", all_rules(), Options())
    return sorted((f.code, f.line) for f in findings if f.code in ("AD101", "AD102"))


def test_a_float_element_of_two_returns_carries_no_graph():
    assert _found("outputs.detach()") == []


def test_the_graph_element_of_two_returns_is_still_followed():
    # `self.history.append(outputs)` (line 31) keeps each graph for good; `total += step_time` (line 30)
    # adds floats. (A list made at each call, one entry per optimizer, would hold one call's graphs only.)
    assert _found("outputs") == [("AD101", 31)]
