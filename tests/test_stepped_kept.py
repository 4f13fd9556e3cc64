"""AD102 on a history a training function returns (analysis.stepped_kept):
- reported, with an unsafe fix, when a step in the loop updates the module the
  kept losses went through (a caller's backward of them would run through
  graphs of parameters updated since), silent when the step updates another
  module (the caller may backward them);
- a dict of lists handed to `monitor.check(net, history)`, an object of no known
  class: followed when every `check` of the file's classes only reads it."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _findings(text):
    findings, _, _ = check_source(textwrap.dedent(text), "train.py", all_rules(), Options())
    return [(f.line, f.fix) for f in findings if f.code == "AD102"]


RETURNED = """
import torch


def fit(net, other, data, epochs):
    opt = torch.optim.Adam({owner}.parameters(), lr=1e-3)
    history = []
    for epoch in range(epochs):
        for x in data:
            loss = {owner}(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        epoch_loss = net(data[0]).pow(2).mean()
        history.append(epoch_loss)
    return history
"""


def test_returned_history_stepped_in_loop():
    found = _findings(RETURNED.format(owner="net"))
    assert found == [(15, "unsafe")]


def test_returned_history_of_a_module_not_stepped():
    assert _findings(RETURNED.format(owner="other")) == []


MONITORED = """
import torch


class Monitor:
    def check(self, history):
        {body}


def fit(net, data, epochs, monitor):
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    history = {{}}
    history["loss"] = []
    for epoch in range(epochs):
        for x in data:
            loss = net(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        epoch_loss = net(data[0]).pow(2).mean()
        history["loss"].append(epoch_loss)
        monitor.check(history)
    print(history)
"""


@pytest.mark.parametrize("body, expected", [
    ('print(history["loss"][-1])', [(21, "unsafe")]),
    ('history["loss"] = history["loss"][-1:]', []),
])
def test_history_handed_to_a_monitor(body, expected):
    assert _findings(MONITORED.format(body=body)) == expected
