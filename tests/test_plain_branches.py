"""A branch that only a number takes: `if isinstance(v, (int, float)): out[k] = v`
stores no graph (flow.py for this file's functions, summaries.py for another
file's), and `.detach()` of what such a helper returns (a dict) is no fix
(plain_values.py)."""
import textwrap

import pytest

import autodetach
from autodetach.analysis.summaries import summarize

HELPER = """
import torch

def to_numbers(losses):
    out = {{}}
    for key, value in losses.items():
        {branch}
    return out
"""

TRAIN = """
def train(model, opt, loader, crit):
    history = []
    for x, y in loader:
        losses = {"loss": crit(model(x), y), "weight": 1.0}
        opt.zero_grad()
        losses["loss"].backward()
        opt.step()
        history.append(to_numbers(losses))
    return history
"""

CUT = {
    "numbers": "if isinstance(value, (int, float)):\n            out[key] = value\n        else:\n"
               "            out[key] = value.detach().cpu().item()",
    "not_tensor": "if not torch.is_tensor(value):\n            out[key] = value\n        else:\n"
                  "            out[key] = value.item()",
    "tensor_else": "if isinstance(value, torch.Tensor):\n            out[key] = value.item()\n        else:\n"
                   "            out[key] = value",
}
KEPT = "if isinstance(value, (int, float)):\n            out[key] = value\n        else:\n" \
       "            out[key] = value.cpu()"


def findings(src):
    return autodetach.check_code(textwrap.dedent(src), select=["AD1"])


@pytest.mark.parametrize("branch", sorted(CUT))
def test_numbers_branch_keeps_no_graph(branch):
    assert findings(HELPER.format(branch=CUT[branch]) + TRAIN) == []


def test_tensor_branch_kept_is_reported_without_a_detach_of_the_dict():
    found = findings(HELPER.format(branch=KEPT) + TRAIN)
    assert [f.code for f in found] == ["AD101"]
    assert "is not a tensor" in found[0].message and not found[0].fixable


@pytest.mark.parametrize("branch", sorted(CUT))
def test_summary_of_another_files_helper_is_cut(branch):
    summary = summarize(textwrap.dedent(HELPER.format(branch=CUT[branch])))["to_numbers"]
    assert summary.result in ("cut", "const")


def test_summary_of_a_helper_keeping_the_tensor_carries_the_graph():
    assert summarize(textwrap.dedent(HELPER.format(branch=KEPT)))["to_numbers"].result == "graph"


KEYS = """
import torch
import torch.nn as nn

net = nn.Linear(3, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
names = []
for step in range(3):
    feats = {"a": net(torch.randn(4, 3)), "b": net(torch.randn(4, 3))}
    for key in feats.{method}():
        names.append(key)
    loss = feats["a"].sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_a_dicts_keys_carry_no_graph():
    # `names.append(key.detach())` of a string would raise
    assert findings(KEYS.replace("{method}", "keys")) == []


def test_a_dicts_values_still_do():
    assert [f.code for f in findings(KEYS.replace("{method}", "values"))] == ["AD101"]


ITEMS = """
import torch
import torch.nn as nn

net = nn.Linear(3, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
names = []
for step in range(3):
    feats = {"a": net(torch.randn(4, 3)), "b": net(torch.randn(4, 3))}
    for key, value in feats.items():
        names.append({kept})
    loss = feats["a"].sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_the_key_of_items_carries_no_graph():
    # the key of `items()` is a name: `names.append(key.detach())` would raise
    assert findings(ITEMS.replace("{kept}", "key")) == []


def test_the_value_of_items_still_does():
    assert [f.code for f in findings(ITEMS.replace("{kept}", "value"))] == ["AD101"]
    assert [f.code for f in findings(ITEMS.replace("{kept}", "(key, value)"))] == ["AD101"]
