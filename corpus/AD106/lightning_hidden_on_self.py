# expect-before: error Trying to backward through the graph a second time
# PyTorch Lightning, automatic optimisation, truncated BPTT by hand: the
# LSTM's state is kept on `self` from one batch to the next. Lightning's
# backward of the returned loss frees the batch's graph, and the next batch's
# loss reaches it again through `self.hidden`, which starts as None.
import os

import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class SeqModel(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(3, 8, batch_first=True)
        self.head = nn.Linear(8, 3)
        self.hidden = None

    def training_step(self, batch, batch_idx):
        x, y = batch
        out, self.hidden = self.rnn(x, self.hidden)
        loss = nn.functional.mse_loss(self.head(out), y)
        print(f"{batch_idx} loss {loss.item():.6f}")
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


if __name__ == "__main__":
    torch.manual_seed(0)
    data = DataLoader(TensorDataset(torch.randn(2 * ITERS, 5, 3), torch.randn(2 * ITERS, 5, 3)), batch_size=2)
    model = SeqModel()
    trainer = pl.Trainer(max_epochs=1, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(model, data)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
