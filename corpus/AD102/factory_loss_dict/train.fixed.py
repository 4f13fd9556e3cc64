# expect-before: runs
# autodetach-test: unsafe
# The loss object comes from a factory in the project's losses.py and returns
# the summed loss and a dict of its parts. One method trains on a batch and
# hands the parts back; the epoch method adds each part into a per-name total,
# which keeps every batch's graph until the epoch ends. That the parts carry a
# graph is inferred (the factory's code is in another file): the fix is unsafe.
import os
from collections import defaultdict

import torch
import torch.nn as nn

from losses import build_loss

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, net):
        self.net = net
        self.optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
        self.loss_fn = build_loss({"mse": 1.0, "l1": 0.5})

    def train_one_batch(self, x, y):
        self.optimizer.zero_grad()
        loss, parts = self.loss_fn(self.net(x), y)
        loss.backward()
        self.optimizer.step()
        return parts

    def train_one_epoch(self, loader):
        totals = defaultdict(lambda: torch.tensor(0.0))
        seen = 0
        for x, y in loader:
            parts = self.train_one_batch(x, y)
            for name, value in parts.items():
                totals[name] += (value * x.size(0)).detach()
            seen += x.size(0)
        return {name: float(v) / seen for name, v in totals.items()}


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    means = Trainer(model).train_one_epoch(data)
    print(" ".join(f"{k} {v:.6f}" for k, v in sorted(means.items())))
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
