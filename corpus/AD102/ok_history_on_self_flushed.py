# expect-before: runs
# The trainer's dict of lists on `self` is flushed by another method after
# every step (which starts the loss list again): nothing outlives a step.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 1))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.pending = {"loss": [], "grad_norm": []}

    def flush(self, step):
        print(step, " ".join(f"{v.item():.6f}" for v in self.pending["loss"]))
        self.pending["loss"] = []

    def fit(self, batches):
        for step, (x, y) in enumerate(batches):
            loss = F.smooth_l1_loss(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.pending["loss"].append(loss)
            self.flush(step)


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer()
    trainer.fit([(torch.randn(16, 5), torch.randn(16, 1)) for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
