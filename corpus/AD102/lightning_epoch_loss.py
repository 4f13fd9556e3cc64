# expect-before: runs
# PyTorch Lightning, automatic optimisation: Trainer.fit runs `training_step`
# once per batch and calls backward on the loss it returns. `self.epoch_loss
# += loss` keeps every step's graph on the module until the epoch-end hook
# resets it; the hook only prints the number.
import os

import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Regressor(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
        self.epoch_loss = 0.0

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x), y)
        self.epoch_loss += loss
        print(f"{batch_idx} loss {loss.item():.6f}")
        return loss

    def on_train_epoch_end(self):
        print(f"epoch {self.current_epoch} loss {float(self.epoch_loss):.6f}")
        self.epoch_loss = 0.0

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


if __name__ == "__main__":
    torch.manual_seed(0)
    data = DataLoader(TensorDataset(torch.randn(16 * ITERS, 6), torch.randn(16 * ITERS, 1)), batch_size=8)
    model = Regressor()
    trainer = pl.Trainer(max_epochs=1, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(model, data)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
