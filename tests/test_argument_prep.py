"""AD104 on a retain whose next walk shares only inputs a method of `self`
made ready before the loop from the function's arguments
(analysis/argument_prep.py): reported with an unsafe fix that names the
inference; not when the method reads a parameter or a submodule."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

BASE = """
import torch
from torch import nn


class Base(nn.Module):
    def _ready(self, x):
        return torch.as_tensor(x, dtype=torch.float32)
"""

TRAIN = """
import torch
from torch import nn

from base import Base


class Emulator(Base):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(3, 1)
{extra}
    def fit(self, x, y, epochs):
        opt = torch.optim.Adam(self.parameters(), lr=0.01)
        x = {prepare}
        for epoch in range(epochs):
            opt.zero_grad()
            loss = (self(x) - y).pow(2).mean()
            loss.backward(retain_graph=True)
            opt.step()
        return self

    def forward(self, x):
        return self.net(x)
"""

SCALED = """
        self.log_scale = nn.Parameter(torch.zeros(3))

    def _scaled(self, x):
        return x * self.log_scale.exp()
"""


def _ad104(tmp_path, prepare, extra=""):
    (tmp_path / "base.py").write_text(textwrap.dedent(BASE))
    text = textwrap.dedent(TRAIN).format(prepare=prepare, extra=extra)
    path = tmp_path / "train.py"
    path.write_text(text)
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_inputs_made_ready_by_a_base_method_are_reported_unsafe(tmp_path):
    found = _ad104(tmp_path, "self._ready(x)")
    assert len(found) == 1, [f.message for f in found]
    assert "no later backward uses" in found[0].message
    assert "`self._ready(x)` made before the loop" in found[0].message
    assert "inferred" in found[0].message and "unsafe" in found[0].message


def test_a_method_of_the_file_that_reads_a_parameter_is_no_preparation(tmp_path):
    found = _ad104(tmp_path, "self._scaled(x)", SCALED)
    assert all("made before the loop" not in f.message for f in found), [f.message for f in found]
    assert all("no later backward uses" not in f.message for f in found), [f.message for f in found]


def test_a_submodule_before_the_loop_is_no_preparation(tmp_path):
    found = _ad104(tmp_path, "self.net(x)")
    assert all("no later backward uses" not in f.message for f in found), [f.message for f in found]


def test_a_method_reading_state_of_self_in_its_arguments_is_no_preparation(tmp_path):
    found = _ad104(tmp_path, "self._ready(x * self.net.weight)")
    assert all("no later backward uses" not in f.message for f in found), [f.message for f in found]


BASE_SCALED = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_scale = nn.Parameter(torch.zeros(3))

    def _ready(self, x):
        return torch.as_tensor(x, dtype=torch.float32) * self.log_scale.exp()
"""


def test_a_base_method_that_returns_a_graph_of_self_is_no_preparation(tmp_path):
    (tmp_path / "base.py").write_text(textwrap.dedent(BASE_SCALED))
    text = textwrap.dedent(TRAIN).format(prepare="self._ready(x)", extra="")
    path = tmp_path / "train.py"
    path.write_text(text)
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    found = [f for f in findings if f.code == "AD104"]
    assert all("no later backward uses" not in f.message for f in found), [f.message for f in found]
