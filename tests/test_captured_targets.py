"""A loss module whose capture pass keeps its target with that pass's graph
(analysis/captured_targets.py): AD107 at the store, with an unsafe fix that
detaches the target; silent where the target is cut, stored anew by the loss
arm, or never read by a loss."""
import textwrap

import pytest

import autodetach
from autodetach.findings import UNSAFE

MODULE = """
import torch
from torch import nn

class Loss(nn.Module):
    def __init__(self):
        super().__init__()
        self.mode = "none"
        self.target = None
        self.targets = []

    def forward(self, input):
        feats = input.flatten(1)
        {body}
        return input

net = nn.Sequential(nn.Linear(4, 4), Loss())
img = torch.zeros(1, 4, requires_grad=True)
for step in range(3):
    net(img)
    net[1].loss.backward()
"""


def found(body):
    src = textwrap.dedent(MODULE).replace("{body}", textwrap.indent(textwrap.dedent(body), " " * 8).strip())
    return [f for f in autodetach.check_code(src, select=["AD107"]) if f.code == "AD107"]


@pytest.mark.parametrize("body", [
    """
    if self.mode == "capture":
        self.target = feats @ feats.t()
    elif self.mode == "loss":
        self.loss = ((feats @ feats.t() - self.target) ** 2).mean()
    """,
    """
    if self.target is None:
        self.target = feats * 2
    else:
        self.loss = (feats - self.target).abs().mean()
    """,
    """
    if self.capture:
        self.targets.append(feats.mean(0))
    else:
        self.loss = sum((feats.mean(0) - t).pow(2).sum() for t in self.targets)
    """,
])
def test_captured_target_reported_with_unsafe_fix(body):
    got = found(body)
    assert len(got) == 1, [f.message for f in got]
    assert got[0].fix == UNSAFE
    assert "inferred" in got[0].message


@pytest.mark.parametrize("body", [
    """
    if self.mode == "capture":
        self.target = (feats @ feats.t()).detach()
    elif self.mode == "loss":
        self.loss = ((feats @ feats.t() - self.target) ** 2).mean()
    """,
    """
    if self.mode == "capture":
        self.target = feats.data * 2
    else:
        self.loss = (feats - self.target).abs().mean()
    """,
    """
    if self.mode == "capture":
        self.targets.append(feats)
    else:
        self.targets[0] = feats
        self.loss = self.targets[0].sum()
    """,
    """
    if self.mode == "capture":
        self.target = feats * 2
    else:
        self.out = feats - self.target
    """,
    """
    if self.mode == "capture":
        self.target = torch.zeros(feats.size())
    else:
        self.loss = (feats - self.target).abs().mean()
    """,
])
def test_cut_or_unread_target_not_reported(body):
    assert found(body) == []


def test_no_backward_in_file_not_reported():
    src = textwrap.dedent(MODULE).replace("{body}", "self.target = feats\n        if self.mode == 'c':\n"
                                          "            self.target = feats * 2\n        else:\n"
                                          "            self.loss = (feats - self.target).sum()")
    src = src.replace("net[1].loss.backward()", "print(net[1].loss)")
    assert [f for f in autodetach.check_code(src, select=["AD107"]) if f.code == "AD107"] == []
