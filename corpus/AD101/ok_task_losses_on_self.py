# expect-before: runs
# A multi-task trainer keeps one loss per task on `self.losses`, stored under
# the task's name in a loop (`self.losses[t] = ...`), then backwards each
# entry in turn, retaining the shared representation's graph for the next
# task. Every entry is replaced at the next step and none is added to another:
# nothing is summed across steps, and each task's backward walks its own loss.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class MultiTaskTrainer:
    def __init__(self, tasks):
        self.tasks = tasks
        self.shared = nn.Linear(6, 4)
        self.heads = nn.ModuleDict({t: nn.Linear(4, 1) for t in tasks})
        params = list(self.shared.parameters()) + list(self.heads.parameters())
        self.optimizer = torch.optim.SGD(params, lr=0.05)
        self.losses = {}

    def forward(self, x, targets):
        rep = self.shared(x)
        for t in self.tasks:
            self.losses[t] = (self.heads[t](rep) - targets[t]).pow(2).mean()

    def step(self, x, targets):
        self.optimizer.zero_grad()
        self.forward(x, targets)
        for t in self.tasks:
            self.losses[t].backward(retain_graph=True)
        self.optimizer.step()
        return {t: self.losses[t].item() for t in self.tasks}


trainer = MultiTaskTrainer(["depth", "normal"])
for it in range(ITERS):
    x = torch.randn(8, 6)
    logs = trainer.step(x, {"depth": torch.randn(8, 1), "normal": torch.randn(8, 1)})
    print(" ".join(f"{t} {v:.6f}" for t, v in sorted(logs.items())))
print(f"checksum {sum(p.sum().item() for p in trainer.shared.parameters()):.6f}")
