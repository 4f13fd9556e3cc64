"""A tensor `__init__` computes from a parameter the module makes itself and
keeps on self (`self.k = ...` or `register_buffer("k", ...)`), read by another
method (analysis.init_own_graphs): AD107 at the store, without a fix, saying
what is inferred, also where the file has no training loop (a library class).
Silent where the value is cut, made under no_grad, a new tensor (`w.new_empty`),
a deep copy (a new leaf), or where no parameter is made."""
import textwrap

import pytest

import autodetach

MODULE = """
import copy
import torch
from torch import nn

class Prior(nn.Module):
    def __init__(self, mu):
        super().__init__()
        self.mu = nn.Parameter(mu)
        {body}

    def sample(self, n):
        return self.low + torch.rand(n) * self.mu
"""


def found(body, module=MODULE):
    src = textwrap.dedent(module).replace("{body}", textwrap.indent(textwrap.dedent(body), " " * 8).strip())
    return [f for f in autodetach.check_code(src, select=["AD107"]) if f.code == "AD107"]


@pytest.mark.parametrize("body", [
    'self.register_buffer("low", torch.erf(-self.mu))',
    'alpha = (0.0 - self.mu) / 2.0\nself.register_buffer("low", torch.erf(alpha), persistent=False)',
    "self.low = torch.erf(-self.mu)",
])
def test_reported_without_fix(body):
    out = found(body)
    assert len(out) == 1, out
    assert "makes itself" in out[0].message and "read by `sample`" in out[0].message
    assert "inferred" in out[0].message
    assert not out[0].fixable


@pytest.mark.parametrize("body", [
    'self.register_buffer("low", torch.erf(-self.mu).detach())',
    'self.register_buffer("low", torch.erf(-self.mu.data))',
    'with torch.no_grad():\n    self.register_buffer("low", torch.erf(-self.mu))',
    'self.register_buffer("low", self.mu.new_zeros(3))',
    "self.low = self.mu.new_empty(3).normal_()",
    "self.low = copy.deepcopy(self.mu)",
    'self.register_buffer("low", torch.zeros(3))',
])
def test_silent(body):
    assert found(body) == []


def test_silent_without_a_parameter():
    module = MODULE.replace("self.mu = nn.Parameter(mu)", 'self.register_buffer("mu", mu)')
    assert found('self.register_buffer("low", torch.erf(-self.mu))', module) == []


def test_silent_for_an_optimizer_and_a_scheduler_built_from_the_parameters():
    """`self.opt, self.sched = make_opt(self.parameters(), self.logZ)`, read only as
    `self.sched.step()`: an optimizer and a scheduler, no tensor (gflownet's agent)."""
    src = """
    import torch
    from torch import nn


    def make_opt(params, log_z):
        opt = torch.optim.Adam([{"params": params}, {"params": [log_z]}])
        return opt, torch.optim.lr_scheduler.StepLR(opt, 10)


    class Agent(nn.Module):
        def __init__(self):
            super().__init__()
            self.log_z = nn.Parameter(torch.ones(4))
            self.opt, self.sched = make_opt(self.parameters(), self.log_z)

        def train_step(self):
            self.opt.step()
            self.sched.step()
            return self.sched.get_last_lr()
    """
    out = [f for f in autodetach.check_code(textwrap.dedent(src), select=["AD107"]) if f.code == "AD107"]
    assert out == [], [f.message for f in out]
