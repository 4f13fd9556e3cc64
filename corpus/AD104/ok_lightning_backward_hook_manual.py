# expect-before: runs
# PyTorch Lightning, manual optimisation: the module overrides the
# `backward(self, loss)` hook with retain_graph=True, and `manual_backward`
# calls it twice per step on losses that share the encoder's graph. The retain
# is what lets the second one run.
import os

import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class AutoEncoder(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.encoder = nn.Sequential(nn.Linear(8, 6), nn.Tanh(), nn.Linear(6, 3))
        self.decoder = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 8))

    def backward(self, loss, *args, **kwargs):
        loss.backward(retain_graph=True)

    def training_step(self, batch, batch_idx):
        (x,) = batch
        opt = self.optimizers()
        opt.zero_grad()
        z = self.encoder(x)
        rec = F.mse_loss(self.decoder(z), x)
        self.manual_backward(rec)
        prior = z.pow(2).mean()
        self.manual_backward(prior)
        opt.step()
        print(f"{batch_idx} rec {rec.item():.6f} prior {prior.item():.6f}")

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


if __name__ == "__main__":
    torch.manual_seed(0)
    data = DataLoader(TensorDataset(torch.randn(6 * ITERS, 8)), batch_size=6)
    model = AutoEncoder()
    trainer = pl.Trainer(max_epochs=1, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(model, data)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
