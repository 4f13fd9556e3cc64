"""A value `__init__` computes from a parameter it makes inline and does not
keep (`torch.exp(nn.Parameter(x))`), read by `forward` (analysis.init_graphs):
AD107 at the store, without a fix; silent where the leaf itself is kept (also
through an in-place `nn.init` initialiser), does not require grad, or is cut."""
import textwrap

import pytest

import autodetach

MODULE = """
import torch
from torch import nn

class Kernel(nn.Module):
    def __init__(self, scale=1.0):
        super().__init__()
        {body}

    def forward(self, x):
        return x / self.scale

net = Kernel(2.0)
x = torch.randn(4)
for step in range(3):
    loss = net(x).pow(2).sum()
    loss.backward()
"""


def found(body):
    src = textwrap.dedent(MODULE).replace("{body}", textwrap.indent(textwrap.dedent(body), " " * 8).strip())
    return [f for f in autodetach.check_code(src, select=["AD107"]) if f.code == "AD107"]


@pytest.mark.parametrize("body", [
    "self.scale = torch.exp(nn.Parameter(torch.log(torch.tensor(scale))))",
    "self.scale = nn.Parameter(torch.tensor(scale)).exp()",
    "self.scale = torch.nn.functional.softplus(torch.tensor(scale, requires_grad=True))",
    "self.scale = torch.exp(nn.init.constant_(nn.Parameter(torch.empty(())), scale))",
])
def test_reported_without_fix(body):
    out = found(body)
    assert len(out) == 1, out
    assert "does not keep" in out[0].message and "no optimizer sees it" in out[0].message
    assert not out[0].fixable


@pytest.mark.parametrize("body", [
    "self.scale = nn.Parameter(torch.tensor(scale))",
    "self.scale = nn.init.constant_(nn.Parameter(torch.empty(())), scale)",
    "self.scale = torch.exp(nn.Parameter(torch.tensor(scale), requires_grad=False))",
    "self.scale = torch.exp(torch.tensor(scale, requires_grad=False))",
    "self.scale = torch.exp(nn.Parameter(torch.tensor(scale)).detach())",
    "self.scale = torch.exp(nn.Parameter(torch.tensor(scale)).data)",
    "with torch.no_grad():\n    self.scale = torch.exp(nn.Parameter(torch.tensor(scale)))",
])
def test_silent(body):
    assert found(body) == []


def test_kept_parameter_keeps_the_plain_message():
    """`self.w = nn.Parameter(...)` is kept: a value computed from it is the
    registered-parameter shape, not the inline one."""
    out = found("self.w = nn.Parameter(torch.tensor(scale))\nself.scale = self.w / self.w.abs()")
    assert len(out) == 1 and "computed from trainable parameters once" in out[0].message
