"""AD109 in Lightning's optimizer phases (analysis.optimizer_phases): each
phase's optimizer is read from `configure_optimizers` in order, and a cut in
the loss a phase returns starves what that optimizer steps."""
import textwrap

import autodetach

GAN = """
import torch
import torch.nn.functional as F
import pytorch_lightning as pl
from torch import nn


class GAN(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.g = nn.Linear(4, 4)
        self.d = nn.Linear(4, 1)

    def training_step(self, batch, batch_idx, optimizer_idx):
        z, real = batch
        fake = self.g(z)
        if optimizer_idx == 0:
            d_out = self.d({g_input})
            return F.mse_loss(d_out, torch.ones_like(d_out)) + F.l1_loss(fake, real)
        if optimizer_idx == 1:
            d_fake = self.d(fake.detach())
            return F.mse_loss(d_fake, torch.zeros_like(d_fake)) + F.mse_loss(self.d(real), torch.ones(4, 1))

    def configure_optimizers(self):
        {optimizers}
"""
TWO = "return [torch.optim.Adam(self.g.parameters()), torch.optim.Adam(self.d.parameters())], []"


def found(src):
    return [(f.code, f.line) for f in autodetach.check_code(textwrap.dedent(src), select=["AD109"])]


def test_generator_phase_on_a_detached_fake_is_reported():
    out = autodetach.check_code(GAN.format(g_input="fake.detach()", optimizers=TWO), select=["AD109"])
    assert [(f.code, f.line) for f in out] == [("AD109", 18)]
    assert "inferred: `training_step` is taken to run as Lightning runs" in out[0].message


def test_generator_phase_on_the_live_fake_and_detached_d_phase_are_not_reported():
    assert found(GAN.format(g_input="fake", optimizers=TWO)) == []


def test_optimizers_that_cannot_be_read_are_not_reported():
    assert found(GAN.format(g_input="fake.detach()", optimizers="return self.make_optimizers()")) == []


def test_discriminator_first_order_is_followed():
    # the D optimizer first: phase 0 steps D, which its loss reaches directly; phase 1 steps G
    # with the discriminator's loss, which reaches G only through `fake.detach()`
    swapped = "return [torch.optim.Adam(self.d.parameters()), torch.optim.Adam(self.g.parameters())], []"
    assert found(GAN.format(g_input="fake.detach()", optimizers=swapped)) == [("AD109", 21)]


def test_either_index_arm_is_known():
    # `optimizer_idx == 0 or optimizer_idx == 1` picks the generator arm in both phases
    src = GAN.format(g_input="fake.detach()", optimizers=TWO).replace(
        "if optimizer_idx == 0:", "if optimizer_idx == 0 or optimizer_idx == 2:")
    assert found(src) == [("AD109", 18)]
