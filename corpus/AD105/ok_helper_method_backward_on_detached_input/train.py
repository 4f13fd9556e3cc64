# expect-before: runs
# A trainer calls a regularizer object from regularizers.py whose method runs its own
# backward, but only through a graph built on `predictions.detach()` (and the model's
# fresh forward): it frees nothing of `preds`, which the trainer's loss backwards after.
import os

import torch
import torch.nn.functional as F

from regularizers import VirtualAdversarial

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self):
        self.model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.05)
        self.vat = VirtualAdversarial()

    def step(self, x, y, u):
        preds = self.model(u)
        extra = self.vat.penalty(self.model, u, preds)
        loss = F.cross_entropy(self.model(x), y) + extra + preds.pow(2).mean() * 0.01
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


trainer = Trainer()
for _ in range(ITERS):
    value = trainer.step(torch.randn(6, 5), torch.randint(0, 3, (6,)), torch.randn(6, 5))
print("%.6f" % value)
