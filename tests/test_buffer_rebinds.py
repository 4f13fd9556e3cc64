"""Buffers a module's forward keeps with their graph (analysis/buffer_updates.py): a running
average re-registered by name from its old value (`_Walk.re_register`), and buffers of a mixin
of the same file, registered per index and read through a property (`_file_bases`,
`_indexed_buffers`)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import by_code


def _codes(src, code="AD101"):
    found, _, _ = check_source(textwrap.dedent(src), "case.py", [by_code()[code]], Options())
    return [f for f in found if f.code == code]


EMA = """
import torch
import torch.nn as nn


class Stats(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(n))
        self.register_buffer("mean", None)

    def update_with_decay(self, name, new_value, decay):
        old_value = getattr(self, name)
        if old_value is None:
            self.register_buffer(name, new_value.detach())
            return
        value = old_value * decay + {new} * (1 - decay)
        self.register_buffer(name, value)

    def forward(self, x):
        {guard}self.update_with_decay("mean", x.mean(0), 0.9)
        return self.gain * (x - self.mean)
"""


def test_reregistered_running_average_keeps_graph():
    found = _codes(EMA.format(new="new_value", guard=""))
    assert len(found) == 1 and "getattr(self, name)" in found[0].message


def test_reregistered_from_detached_or_under_no_grad():
    assert _codes(EMA.format(new="new_value.detach()", guard="")) == []
    assert _codes(EMA.format(new="new_value", guard="with torch.no_grad():\n            ")) == []


def test_reregistered_latest_value_only():
    src = EMA.format(new="new_value", guard="").replace("old_value * decay + new_value * (1 - decay)",
                                                          "new_value * decay")
    assert _codes(src) == []


MIXIN = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class SN({base}):
    def __init__(self, n):
        self.num_svs = n
        for i in range(n):
            self.register_buffer('sv%d' % i, torch.ones(1))

    @property
    def sv(self):
        return [getattr(self, 'sv%d' % i) for i in range(self.num_svs)]

    def W_(self):
        svs = [torch.linalg.matrix_norm(self.weight, 2).reshape(1)]
        {guard}for i, sv in enumerate(svs):
            self.sv[i][:] = sv
        return self.weight / svs[0]


class SNLinear(nn.Linear, SN):
    def __init__(self, a, b):
        nn.Linear.__init__(self, a, b)
        SN.__init__(self, 1)

    def forward(self, x):
        return F.linear(x, self.W_(), self.bias)
"""


def test_mixin_indexed_buffers_copied_from_the_weight():
    found = _codes(MIXIN.format(base="object", guard=""))
    assert len(found) == 1 and "self.sv" in found[0].message


def test_mixin_buffers_copied_under_no_grad():
    src = MIXIN.format(base="object", guard="").replace(
        "            self.sv[i][:] = sv", "            with torch.no_grad():\n                self.sv[i][:] = sv")
    assert _codes(src) == []


def test_mixin_of_another_file_is_not_read():
    src = MIXIN.format(base="object", guard="").replace("class SNLinear(nn.Linear, SN):",
                                                         "class SNLinear(nn.Linear, layers.SN):")
    assert _codes(src) == []


GRAD_SUM = """
import torch
import torch.nn as nn


class Base(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.changes = nn.Parameter(torch.zeros(n))
        self.grad_sum = torch.zeros(n)


class Attack(Base):
    def forward(self, x):
        loss = (x * self.changes).sum()
        self.grad_sum += torch.autograd.grad(loss, self.changes{flag})[0]
        return loss
"""


def test_gradients_without_create_graph_hold_no_graph():
    assert _codes(GRAD_SUM.format(flag="")) == []
    assert len(_codes(GRAD_SUM.format(flag=", create_graph=True"))) == 1
