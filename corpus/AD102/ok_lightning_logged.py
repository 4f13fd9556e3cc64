# expect-before: runs
# PyTorch Lightning, automatic optimisation, done right: the step logs the
# loss with `self.log`, updates a torchmetrics metric, keeps detached losses
# and a float total on `self`, and returns a dict whose extra entry is
# detached. `validation_step` collects its losses with their values only:
# Lightning runs it without gradients, so they carry no graph.
import os

import pytorch_lightning as pl
import torch
import torch.nn as nn
import torchmetrics
from torch.utils.data import DataLoader, TensorDataset

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Regressor(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
        self.train_mse = torchmetrics.MeanSquaredError()
        self.step_losses = []
        self.val_losses = []
        self.total = 0.0

    def training_step(self, batch, batch_idx):
        x, y = batch
        pred = self.net(x)
        loss = nn.functional.mse_loss(pred, y)
        self.train_mse(pred, y)
        self.log("train_loss", loss)
        self.step_losses.append(loss.detach())
        self.total += loss.item()
        return {"loss": loss, "pred": pred.detach()}

    def on_train_epoch_end(self):
        mean = torch.stack(self.step_losses).mean()
        print(f"epoch {self.current_epoch} mean {mean.item():.6f} total {self.total:.6f} "
              f"mse {self.train_mse.compute().item():.6f}")
        self.step_losses.clear()
        self.train_mse.reset()

    def validation_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x), y)
        self.val_losses.append(loss)
        return loss

    def on_validation_epoch_end(self):
        print(f"val {torch.stack(self.val_losses).mean().item():.6f}")
        self.val_losses.clear()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


if __name__ == "__main__":
    torch.manual_seed(0)
    train = DataLoader(TensorDataset(torch.randn(8 * ITERS, 6), torch.randn(8 * ITERS, 1)), batch_size=8)
    val = DataLoader(TensorDataset(torch.randn(16, 6), torch.randn(16, 1)), batch_size=8)
    model = Regressor()
    trainer = pl.Trainer(max_epochs=2, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0)
    trainer.fit(model, train, val)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
