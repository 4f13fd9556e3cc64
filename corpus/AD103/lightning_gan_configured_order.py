# expect-before: error Trying to backward through the graph a second time
# PyTorch Lightning, manual optimisation: an autoencoder-GAN whose decoder also
# plays the generator. `opt_a, opt_b = self.optimizers()` says nothing by name,
# but `configure_optimizers` returns the decoder's optimizer first and the
# critic's second (with an empty scheduler list), and `self.optimizers()` keeps
# that order: the critic's backward frees the decoder's part of the graph that
# the decoder loss walks next, and the decoder gradients it leaves are zeroed
# before any step, so the shared output is detached in the critic's loss.
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
        self.decoder = nn.Sequential(nn.Linear(nz, 16), nn.ReLU(), nn.Linear(16, 2))
        self.critic = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
        self.bce = nn.BCEWithLogitsLoss()

    def training_step(self, batch, batch_idx):
        (real,) = batch
        opt_a, opt_b = self.optimizers()
        fake = self.decoder(torch.randn(real.size(0), self.nz))
        opt_b.zero_grad()
        d_loss = self.bce(self.critic(real), torch.ones(real.size(0), 1)) + \
            self.bce(self.critic(fake), torch.zeros(real.size(0), 1))
        self.manual_backward(d_loss)
        opt_b.step()
        opt_a.zero_grad()
        g_loss = self.bce(self.critic(fake), torch.ones(real.size(0), 1))
        self.manual_backward(g_loss)
        opt_a.step()
        print(f"{batch_idx} d {d_loss.item():.6f} g {g_loss.item():.6f}")

    def configure_optimizers(self):
        dec_opt = torch.optim.Adam(self.decoder.parameters(), lr=1e-3)
        critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)
        return [dec_opt, critic_opt], []


if __name__ == "__main__":
    torch.manual_seed(0)
    data = DataLoader(TensorDataset(torch.randn(8 * ITERS, 2) + 1.0), batch_size=8)
    model = GAN()
    trainer = pl.Trainer(max_epochs=1, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(model, data)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
