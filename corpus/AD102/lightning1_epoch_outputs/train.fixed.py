# expect-before: grows
# A LightningModule written for Lightning 1.x: `training_epoch_end(outputs)`
# makes Lightning keep every `training_step` output until the epoch ends, and
# it detaches only the "loss" entry. The step also returns the losses of the
# two output channels, computed from the same prediction with their graphs,
# so every batch's graph (and the tensors it saved) stays alive for the whole
# epoch. (`fit1x.fit` stands in for Lightning 1.x's fit; 2.0 removed the hook.)
import os

import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F

from fit1x import fit

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Forecaster(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 2))

    def training_step(self, batch, batch_idx):
        x, y = batch
        pred = self.net(x)
        loss = F.mse_loss(pred, y)
        first = F.mse_loss(pred[:, 0], y[:, 0])
        second = F.mse_loss(pred[:, 1], y[:, 1])
        print(f"{batch_idx} loss {loss.item():.6f}")
        return {"loss": loss, "first_loss": first.detach(), "second_loss": second.detach()}

    def training_epoch_end(self, outputs):
        for key in ("first_loss", "second_loss"):
            values = torch.stack([out[key] for out in outputs])
            print(f"{key} mean {values.mean().item():.6f} std {values.std().item():.6f}")

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Forecaster()
    fit(model, [(torch.randn(16, 6), torch.randn(16, 2)) for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
