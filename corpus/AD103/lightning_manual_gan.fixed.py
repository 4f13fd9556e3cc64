# expect-before: error Trying to backward through the graph a second time
# PyTorch Lightning, manual optimisation (`self.manual_backward`): a GAN step
# trains D on `fake` without detach, then G's loss reuses `fake`; D's backward
# freed G's part of the graph. Which optimizer steps which network is read
# from the order `configure_optimizers` returns them in, which
# `self.optimizers()` keeps (Lightning's contract), so the fix is safe
# (checked by the tests against the retain_graph reference).
import os

import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GAN(pl.LightningModule):
    def __init__(self, nz=4):
        super().__init__()
        self.automatic_optimization = False
        self.nz = nz
        self.G = nn.Sequential(nn.Linear(nz, 16), nn.ReLU(), nn.Linear(16, 2))
        self.D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
        self.bce = nn.BCEWithLogitsLoss()

    def training_step(self, batch, batch_idx):
        (real,) = batch
        opt_g, opt_d = self.optimizers()
        fake = self.G(torch.randn(real.size(0), self.nz))
        opt_d.zero_grad()
        d_loss = self.bce(self.D(real), torch.ones(real.size(0), 1)) + \
            self.bce(self.D(fake.detach()), torch.zeros(real.size(0), 1))
        self.manual_backward(d_loss)
        opt_d.step()
        opt_g.zero_grad()
        g_loss = self.bce(self.D(fake), torch.ones(real.size(0), 1))
        self.manual_backward(g_loss)
        opt_g.step()
        print(f"{batch_idx} d {d_loss.item():.6f} g {g_loss.item():.6f}")

    def configure_optimizers(self):
        return [torch.optim.Adam(self.G.parameters(), lr=1e-3), torch.optim.Adam(self.D.parameters(), lr=1e-3)]


if __name__ == "__main__":
    torch.manual_seed(0)
    data = DataLoader(TensorDataset(torch.randn(8 * ITERS, 2) + 1.0), batch_size=8)
    model = GAN()
    trainer = pl.Trainer(max_epochs=1, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(model, data)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
