"""AD104 on a helper that backwards `self` state its callers store anew
before each call (analysis/refilled_state.py): `_backward(who)` reading
`self._losses[who]`, which a subclass's `calculate_losses` fills out of
sight. Reported (unsafe) only when every project call follows a new store
built from that iteration's values, in its own block."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

BASE = """
import torch


class Base:
    def calculate_losses(self, x, who):
        raise NotImplementedError

    def _backward(self, who):
        self._losses[who].backward(retain_graph=True)

    def fit(self, batches, fixed):
        {pre}
        for x in batches:
            for who in self.nets:
                {body}
                self.opts[who].step()
"""

STORE = "self._losses = self.calculate_losses(x, who)\n                self._backward(who)"


def _ad104(tmp_path, pre="pass", body=STORE, other=None):
    path = tmp_path / "base.py"
    path.write_text(textwrap.dedent(BASE).format(pre=pre, body=body))
    if other is not None:
        (tmp_path / "gan.py").write_text(textwrap.dedent(other))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_stored_anew_before_each_call(tmp_path):
    found = _ad104(tmp_path)
    assert len(found) == 1 and found[0].line == 10 and found[0].fix == "unsafe"
    assert "`self._losses`" in found[0].message and "base.py:16" in found[0].message


def test_emptied_then_filled(tmp_path):
    body = "self._losses = {}\n                self.calculate_losses(x, who)\n                self._backward(who)"
    assert len(_ad104(tmp_path, body=body)) == 1


@pytest.mark.parametrize("pre, body", [
    # stored once before the loop: every iteration backwards the same graph
    ("self._losses = self.calculate_losses(batches[0], 'g')", "self._backward(who)"),
    # built from a value kept from before the loop
    ("pass", "self._losses = self.calculate_losses(fixed, who)\n                self._backward(who)"),
    # two backwards of one store
    ("pass", STORE + "\n                self._backward('d')"),
    # the store adds to the old value
    ("pass", "self._losses = self._losses\n                self._backward(who)"),
])
def test_not_stored_anew(tmp_path, pre, body):
    assert _ad104(tmp_path, pre, body) == []


def test_subclass_calls_without_store(tmp_path):
    other = """
    from base import Base


    class GAN(Base):
        def train_step(self, x):
            self._backward("g")
    """
    assert _ad104(tmp_path, other=other) == []


def test_other_backward_in_file(tmp_path):
    body = STORE + "\n                self.penalty(x).backward()"
    assert _ad104(tmp_path, body=body) == []


def test_filled_from_a_graph_the_walk_sees(tmp_path):
    """`calculate_losses` of this file reads features computed once before the
    loop: the walk sees every iteration backward that graph, and its verdict stands."""
    src = """
    import torch
    from torch import nn


    class Trainer:
        def __init__(self):
            self.enc = nn.Linear(3, 3)
            self.opt = torch.optim.SGD(self.enc.parameters(), lr=0.1)

        def calculate_losses(self, x, who):
            return {who: (self.feat * x).sum()}

        def _backward(self, who):
            self._losses[who].backward(retain_graph=True)

        def fit(self, batches):
            self.feat = self.enc(torch.ones(3))
            for x in batches:
                for who in ("a", "b"):
                    self._losses = self.calculate_losses(x, who)
                    self._backward(who)
                    self.opt.step()
    """
    path = tmp_path / "trainer.py"
    path.write_text(textwrap.dedent(src))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    assert [f for f in findings if f.code == "AD104"] == []
