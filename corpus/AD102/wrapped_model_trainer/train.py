# expect-before: runs
# autodetach-test: safe
# A Trainer builds its model from a class of another file, then wraps it in
# DataParallel (DistributedDataParallel in a multi-GPU run): the wrapper runs
# the same forward, so train_step still returns a loss with its graph, and
# `self.total += loss` in fit keeps every step's graph alive.
import os

import torch
import torch.nn as nn
from torch.nn.parallel import DataParallel
from nets import Regressor

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
# DataParallel scatters to the GPU wherever there is one: keep everything there.
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


class Trainer:
    def __init__(self, lr):
        self.model = Regressor().to(DEVICE)
        self.model = DataParallel(self.model)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr)
        self.total = 0.0

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss

    def fit(self, batches):
        for x, y in batches:
            loss = self.train_step(x, y)
            self.total += loss
        return float(self.total) / len(batches)


if __name__ == "__main__":
    torch.manual_seed(0)
    data = [(torch.randn(8, 4).to(DEVICE), torch.randn(8, 1).to(DEVICE)) for _ in range(ITERS)]
    trainer = Trainer(0.05)
    print(f"mean {trainer.fit(data):.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
