# expect-before: runs
# autodetach-test: unsafe
# PyTorch Lightning, automatic optimisation: the module overrides the
# `backward(self, loss)` hook with retain_graph=True. Trainer.fit calls the hook
# once per training step with that step's new loss, so the retained graph is
# never used again and only stays alive until the next step replaces it. The
# fix drops the retain (unsafe: inferred from how Lightning calls the hook).
import os

import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Regressor(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.mse_loss(self.net(x), y)
        print(f"{batch_idx} loss {loss.item():.6f}")
        return loss

    def backward(self, loss, *args, **kwargs):
        loss.backward(retain_graph=True)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


if __name__ == "__main__":
    torch.manual_seed(0)
    data = DataLoader(TensorDataset(torch.randn(8 * ITERS, 4), torch.randn(8 * ITERS, 1)), batch_size=8)
    model = Regressor()
    trainer = pl.Trainer(max_epochs=1, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(model, data)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
