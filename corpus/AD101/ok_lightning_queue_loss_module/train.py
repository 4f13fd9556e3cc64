# expect-before: runs
# PyTorch Lightning: a self-supervised module keeps a queue of past embeddings and a
# flag on itself; its loss object (a module of the package, with no parameters) fills
# the queue under no_grad and returns it with the flag beside the loss. Neither holds
# a graph, so storing them for the next batch keeps no step's graph alive.
import os

import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from swavlike.losses import QueueLoss

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class QueueModel(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(6, 4)
        self.prototypes = nn.Linear(4, 3, bias=False)
        self.criterion = QueueLoss(temperature=0.1)
        self.queue = torch.zeros(8, 4)
        self.use_the_queue = False

    def training_step(self, batch, batch_idx):
        (x,) = batch
        embedding = self.encoder(x)
        output = self.prototypes(embedding)
        loss, queue, use_queue = self.criterion(
            output=output,
            embedding=embedding.detach(),
            prototypes=self.prototypes.weight,
            queue=self.queue,
            use_queue=self.use_the_queue,
        )
        self.queue = queue
        self.use_the_queue = use_queue
        print(f"{batch_idx} loss {loss.item():.6f}")
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


if __name__ == "__main__":
    torch.manual_seed(0)
    data = DataLoader(TensorDataset(torch.randn(4 * ITERS, 6)), batch_size=4)
    model = QueueModel()
    trainer = pl.Trainer(max_epochs=1, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(model, data)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
