# expect-before: runs
# PyTorch Lightning 2.x without `training_epoch_end(outputs)`: the module
# collects its own step outputs (`self.training_step_outputs.append(loss)`)
# and averages them in `on_train_epoch_end`. Appending the returned loss
# keeps each step's graph alive for the whole epoch; the average is only
# printed, so the stored losses need no graph.
import os

import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Classifier(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
        self.training_step_outputs = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.training_step_outputs.append(loss)
        return {"loss": loss}

    def on_train_epoch_end(self):
        epoch_mean = torch.stack(self.training_step_outputs).mean()
        print(f"epoch {self.current_epoch} mean {epoch_mean.item():.6f}")
        self.training_step_outputs.clear()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-2)


if __name__ == "__main__":
    torch.manual_seed(0)
    data = DataLoader(TensorDataset(torch.randn(32 * ITERS, 10), torch.randint(0, 3, (32 * ITERS,))),
                      batch_size=16)
    model = Classifier()
    trainer = pl.Trainer(max_epochs=1, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(model, data)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
