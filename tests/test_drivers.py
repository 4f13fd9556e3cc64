"""A trainer class driven from another file (analysis/drivers.py): the
driver's calls of its methods, in order, judge retains and freed graphs that
no method shows alone; a literal argument picks the arm a method runs."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

TRAINER = """
import torch
import torch.nn as nn


class Trainer:
    def __init__(self):
        self.g = nn.Linear(3, 5)
        self.d = nn.Linear(5, 1)
        self.opt_g = torch.optim.SGD(self.g.parameters(), lr=0.1)
        self.opt_d = torch.optim.SGD(self.d.parameters(), lr=0.1)

    def forward(self):
        self.fake = self.g(torch.randn(4, 3))

    def update_d(self, keep=True):
        self.opt_d.zero_grad()
        self.loss_d = self.d(self.fake).mean()
        if keep:
            self.loss_d.backward(retain_graph=True)
        else:
            self.loss_d.backward()
        self.opt_d.step()

    def update_g(self):
        self.opt_g.zero_grad()
        self.loss_g = -self.d(self.fake).mean()
        self.loss_g.backward()
        self.opt_g.step()
"""

DRIVER = """
from trainer import Trainer


def fit(steps):
    t = Trainer()
    for _ in range(steps):
{body}
"""


def _found(tmp_path, body, code):
    (tmp_path / "trainer.py").write_text(textwrap.dedent(TRAINER))
    lines = "\n".join("        " + line for line in body)
    (tmp_path / "loop.py").write_text(textwrap.dedent(DRIVER).replace("{body}", lines))
    path = tmp_path / "trainer.py"
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == code]


def test_fresh_forward_between_makes_the_retain_unneeded(tmp_path):
    found = _found(tmp_path, ["t.forward()", "t.update_d()", "t.forward()", "t.update_g()"], "AD104")
    assert [f.line for f in found] == [20]
    assert found[0].fix == "unsafe" and "read from `fit()` in another file" in found[0].message


def test_same_forward_needs_the_retain(tmp_path):
    assert _found(tmp_path, ["t.forward()", "t.update_d()", "t.update_g()"], "AD104") == []


def test_literal_argument_picks_the_arm(tmp_path):
    # `keep=False` runs the plain backward: the generator loss then walks the freed graph of
    # `self.fake`, whose generator gradients from the critic loss are zeroed: detach it there
    found = _found(tmp_path, ["t.forward()", "t.update_d(keep=False)", "t.update_g()"], "AD103")
    assert [f.line for f in found] == [18]
    assert found[0].fix == "unsafe" and "`self.loss_g.backward()` (line 28) needs it" in found[0].message
    # `keep=True`: only the retaining arm runs, so nothing is freed, but the retain is kept only so that
    # the critic's pass can walk G's graph for gradients that are zeroed: the same detach (analysis/silenced.py)
    found = _found(tmp_path, ["t.forward()", "t.update_d(keep=True)", "t.update_g()"], "AD103")
    assert [f.line for f in found] == [18]
    assert "keeps its graph (`retain_graph=True`) only so that `self.loss_g.backward()`" in found[0].message


def test_no_driver_in_the_project(tmp_path):
    (tmp_path / "trainer.py").write_text(textwrap.dedent(TRAINER))
    path = tmp_path / "trainer.py"
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    assert [f for f in findings if f.code in ("AD104", "AD105")] == []
