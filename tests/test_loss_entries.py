"""AD104 on a dict of losses a project model's method returns
(analysis/loss_entries.py): the script backwards the critic's entries with
retain_graph=True, then the generator's. Unneeded (unsafe) when the method
builds the two sets of entries from separate calls; needed when they share a
call, a `self` value another method stores, or a helper reading `self`."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

MODEL = """
import torch
from torch import nn


class Trainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.netG = nn.Linear(4, 4)
        self.netD = nn.Linear(4, 1)

    def forward(self, x, real):
        losses = {}
        fake = self.netG(x)
        {d_part}
        losses["d_real"] = torch.relu(1.0 - d_real).mean()
        losses["d_fake"] = torch.relu(1.0 + d_fake).mean()
        {g_part}
        losses["g_adv"] = -g_fake.mean()
        losses["l1"] = (fake - real).abs().mean()
        return losses, fake

    def keep(self, fake):
        self.last = fake
        return self.last
"""

TRAIN = """
import torch
from model import Trainer


def main(batches):
    trainer = Trainer()
    opt_d = torch.optim.Adam(trainer.netD.parameters())
    opt_g = torch.optim.Adam(trainer.netG.parameters())
    for x, real in batches:
        losses, fake = trainer(x, real)
        opt_d.zero_grad()
        losses["d"] = losses["d_real"] + losses["d_fake"]
        losses["d"].backward(retain_graph=True)
        opt_d.step()
        opt_g.zero_grad()
        losses["g"] = losses["g_adv"] + losses["l1"]
        losses["g"].backward()
        opt_g.step()
"""

APART_D = "d_real, d_fake = self.netD(real), self.netD(fake.detach())"
APART_G = "g_fake = self.netD(fake)"


def _ad104(tmp_path, d_part=APART_D, g_part=APART_G, train=TRAIN):
    model = textwrap.dedent(MODEL).replace("{d_part}", d_part).replace("{g_part}", g_part)
    (tmp_path / "model.py").write_text(model)
    (tmp_path / "train.py").write_text(textwrap.dedent(train))
    path = tmp_path / "train.py"
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_entries_built_apart(tmp_path):
    found = _ad104(tmp_path)
    assert len(found) == 1 and found[0].fix == "unsafe"
    assert "`d_fake`, `d_real` and `g_adv`, `l1` from separate calls" in found[0].message
    assert "(`real`, `self.netD`) carries no graph of its own is inferred" in found[0].message


@pytest.mark.parametrize("d_part, g_part", [
    # one critic forward on the undetached fakes feeds both players' entries
    ("d_real, d_fake = self.netD(real), self.netD(fake)", "g_fake = d_fake"),
    # a helper reading `self` may hand back a graph it keeps there
    ("d_real, d_fake = self.netD(real), self.netD(self.keep(fake).detach() + self.keep(fake))",
     "g_fake = self.netD(self.keep(fake))"),
    # a value another method stores on `self` (an earlier graph) read by both
    ("d_real, d_fake = self.netD(real) + self.last, self.netD(fake.detach())", "g_fake = self.netD(fake) + self.last"),
    # a graph handed to a call may be kept (and backwarded elsewhere)
    (APART_D + "\n        self.history.append(fake)", APART_G),
    # a branch: which binding an entry reads is not plain
    (APART_D, "if True:\n            g_fake = self.netD(fake)"),
])
def test_entries_share_a_graph(tmp_path, d_part, g_part):
    assert _ad104(tmp_path, d_part, g_part) == []


def test_later_loss_reads_more(tmp_path):
    train = TRAIN.replace('losses["g_adv"] + losses["l1"]', 'losses["g_adv"] + losses["l1"] + losses["d_fake"]')
    assert _ad104(tmp_path, train=train) == []


def test_dict_handed_on(tmp_path):
    train = TRAIN.replace('        opt_d.zero_grad()\n',
                          '        opt_d.zero_grad()\n        losses.update(extra=x)\n', 1)
    assert _ad104(tmp_path, train=train) == []


def _ad105(tmp_path, d_part, g_part):
    _ad104(tmp_path, d_part, g_part, TRAIN.replace("backward(retain_graph=True)", "backward()"))
    path = tmp_path / "train.py"
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD105"]


def test_fixed_script_not_reported_as_freeing_a_shared_graph(tmp_path):
    """The fixed script: AD105 reads the same entries as apart."""
    assert _ad105(tmp_path, APART_D, APART_G) == []
    assert len(_ad105(tmp_path, "d_real, d_fake = self.netD(real), self.netD(fake)", "g_fake = d_fake")) == 1
