"""One method run once per optimizer, `optimizer_idx` 0 then 1, each result
backwarded by the framework (analysis/optimizer_phases.py)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

VAE = """
import torch
import torch.nn.functional as F
from torch import nn


class FactorVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(6, 3)
        self.discriminator = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 2))

    def loss_function(self, *args, **kwargs):
        recons, x, z = args[0], args[1], args[2]
        optimizer_idx = {read}
        if optimizer_idx == 0:
            self.d_z = self.discriminator(z)
            return {{"loss": F.mse_loss(recons, x) + self.d_z.mean()}}
        elif optimizer_idx == 1:
            labels = torch.zeros(x.size(0), dtype=torch.long)
            return {{"loss": F.cross_entropy({stored}, labels)}}
"""

GAN = """
import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from torch import nn


class GAN(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.generator = nn.Linear(8, 4)
        self.discriminator = nn.Linear(4, 1)

    def training_step(self, batch, batch_idx, optimizer_idx):
        real = batch[0]
        if optimizer_idx == 0:
            self.fake = self.generator(torch.randn(real.size(0), 8))
            return self.discriminator(self.fake).mean()
        if optimizer_idx == 1:
            return self.discriminator({fake}).mean() - self.discriminator(real).mean()

    def configure_optimizers(self):
        return [torch.optim.Adam(self.generator.parameters()), torch.optim.Adam(self.discriminator.parameters())]
"""


def _found(tmp_path, text):
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(text))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [(f.code, f.line, f.fix) for f in findings if f.code.startswith("AD1")]


def test_stored_output_freed_by_the_earlier_phase(tmp_path):
    for read in ('kwargs["optimizer_idx"]', 'kwargs.get("optimizer_idx", 0)'):
        found = _found(tmp_path, VAE.format(read=read, stored="self.d_z"))
        assert found == [("AD105", 21, "none")], found  # inferred: no fix


def test_stored_output_detached_or_recomputed(tmp_path):
    assert _found(tmp_path, VAE.format(read='kwargs["optimizer_idx"]', stored="self.d_z.detach()")) == []
    assert _found(tmp_path, VAE.format(read='kwargs["optimizer_idx"]', stored="self.discriminator(z.detach())")) \
        == []


def test_lightning_training_step_phases(tmp_path):
    found = _found(tmp_path, GAN.format(fake="self.fake"))
    assert found == [("AD105", 20, "none")], found
    assert _found(tmp_path, GAN.format(fake="self.fake.detach()")) == []


def test_phase_index_not_compared_to_both(tmp_path):
    # only one arm tests the index: no phase order to read
    text = VAE.format(read='kwargs["optimizer_idx"]', stored="self.d_z").replace("elif optimizer_idx == 1:", "else:")
    assert _found(tmp_path, text) == []
