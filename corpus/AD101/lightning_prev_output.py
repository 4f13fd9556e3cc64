# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# PyTorch Lightning, automatic optimisation: a smoothness penalty against the
# previous batch's output, kept on `self` with its graph. Lightning's backward
# of the returned loss frees that graph; the next step's loss reaches it
# again. Storing it detached makes the penalty pull only the current output
# (unsafe: the retain_graph reference would also push the old one).
import os

import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Smooth(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 5))
        self.prev = None

    def training_step(self, batch, batch_idx):
        x, y = batch
        out = self.net(x)
        loss = nn.functional.mse_loss(out, y)
        if self.prev is not None:
            loss = loss + 0.1 * (out - self.prev).pow(2).mean()
        self.prev = out
        print(f"{batch_idx} loss {loss.item():.6f}")
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


if __name__ == "__main__":
    torch.manual_seed(0)
    data = DataLoader(TensorDataset(torch.randn(8 * ITERS, 5), torch.randn(8 * ITERS, 5)), batch_size=8)
    model = Smooth()
    trainer = pl.Trainer(max_epochs=1, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(model, data)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
