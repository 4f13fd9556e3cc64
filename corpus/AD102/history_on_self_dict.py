# expect-before: runs
# autodetach-test: unsafe
# A trainer keeps its history on `self` as a dict of lists, made in __init__
# and never emptied: every epoch appends the loss tensors with their graphs.
# The dict lives on `self`: that nothing else reads its lists as tensors with a
# graph is inferred, so `.detach()` is offered as an unsafe fix.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 1))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.history = {"loss": [], "epoch": []}

    def fit(self, batches):
        for x, y in batches:
            loss = F.smooth_l1_loss(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.history["loss"].append(loss)
        self.history["epoch"].append(len(self.history["loss"]))

    def summary(self):
        return sum(v.item() for v in self.history["loss"]) / len(self.history["loss"])


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer()
    batches = [(torch.randn(16, 5), torch.randn(16, 1)) for _ in range(ITERS)]
    for epoch in range(2):
        trainer.fit(batches)
        print(f"epoch {epoch} mean loss {trainer.summary():.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
