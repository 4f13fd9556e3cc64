# expect-before: runs
# As ok_task_losses_on_self, with the entries indexed by position: the loop
# `for i, t in enumerate(self.tasks)` stores `self.losses[i]`, and the
# backward loop walks `range(len(self.tasks))`, the last one without a retain.
# Each index holds one task's loss of this step only.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class MultiTaskTrainer:
    def __init__(self, tasks):
        self.tasks = tasks
        self.shared = nn.Linear(6, 4)
        self.heads = nn.ModuleList([nn.Linear(4, 1) for _ in tasks])
        params = list(self.shared.parameters()) + list(self.heads.parameters())
        self.optimizer = torch.optim.SGD(params, lr=0.05)
        self.losses = [None] * len(tasks)

    def step(self, x, targets):
        self.optimizer.zero_grad()
        rep = self.shared(x)
        for i, t in enumerate(self.tasks):
            self.losses[i] = (self.heads[i](rep) - targets[t]).pow(2).mean()
        n = len(self.tasks)
        for i in range(n):
            self.losses[i].backward(retain_graph=i < n - 1)
        self.optimizer.step()
        return [loss.item() for loss in self.losses]


trainer = MultiTaskTrainer(["depth", "normal", "edges"])
for it in range(ITERS):
    x = torch.randn(8, 6)
    logs = trainer.step(x, {t: torch.randn(8, 1) for t in trainer.tasks})
    print(" ".join(f"{v:.6f}" for v in logs))
print(f"checksum {sum(p.sum().item() for p in trainer.shared.parameters()):.6f}")
