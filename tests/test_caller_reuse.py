"""AD104 and the callers of a helper whose loss reads an argument
(analysis/caller_reuse.py): a caller in another file that backwards again
what it handed in makes the retain needed."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

BASE = """
import torch
import torch.nn as nn


class Base:
    def __init__(self):
        self.enc = nn.Linear(6, 3)
        self.dec = nn.Linear(3, 6)
        self.d_z = nn.Linear(3, 1)
        self.opt = torch.optim.SGD([*self.enc.parameters(), *self.dec.parameters()], lr=0.1)

    def update_encoding(self, z):
        loss_e = self.d_z(z).mean()
        loss_e.backward(retain_graph=True)
"""

CALLER = """
import torch
from base import Base


class Step(Base):
    def run(self, x):
        z = self.enc(x)
        self.update_encoding(z)
        {after}
        self.opt.step()
"""


def _ad104(tmp_path, after):
    (tmp_path / "base.py").write_text(textwrap.dedent(BASE))
    (tmp_path / "step.py").write_text(textwrap.dedent(CALLER.format(after=after)))
    path = tmp_path / "base.py"
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_caller_backwards_the_argument_again(tmp_path):
    after = "recon = self.dec(z)\n        loss = (recon - x).pow(2).mean()\n        loss.backward()"
    assert _ad104(tmp_path, after) == []


def test_caller_backwards_through_a_cut_only(tmp_path):
    found = _ad104(tmp_path, "loss = self.dec(z.detach()).pow(2).mean()\n        loss.backward()")
    assert [f.line for f in found] == [15]
    assert found[0].fix == "unsafe" and "callers out of sight" in found[0].message


def test_no_caller_in_the_project(tmp_path):
    found = _ad104(tmp_path, "pass")
    assert [f.fix for f in found] == ["unsafe"]
