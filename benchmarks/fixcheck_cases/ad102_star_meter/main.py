# expect-before: runs
# autodetach-test: unsafe
# A fine-tuner method (model and optimizer built in it) hands the loss tensor
# to a moving-average meter that `from utils import *` brings: its `update`
# rebuilds `self.avg` from what it is given, and the meter lives for the whole
# run, so every step's graph stays chained into the average. What the meter
# keeps is inferred from its code in utils.py: the fix is offered as unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from utils import *

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Finetuner:
    def __init__(self, model, data):
        self.model = model
        self.data = data

    def compute_loss(self, x, y):
        out = self.model(x)
        return F.cross_entropy(out, y), (out.argmax(1) == y).float().mean().item()

    def train(self):
        optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05)
        loss_meter = MovingAverageMeter("loss")
        for x, y in self.data:
            optimizer.zero_grad()
            loss, acc = self.compute_loss(x, y)
            loss_meter.update(loss)
            loss.backward()
            optimizer.step()
        print(loss_meter, f"acc {acc:.3f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    data = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
    Finetuner(model, data).train()
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
