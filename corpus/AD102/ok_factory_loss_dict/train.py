# expect-before: runs
# The loss object comes from a factory in the project's losses.py and returns
# the summed loss and a dict of its parts. The epoch method adds each part's
# number (.item()) into a per-name total: no graph is kept.
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
        totals = defaultdict(float)
        seen = 0
        for x, y in loader:
            parts = self.train_one_batch(x, y)
            for name, value in parts.items():
                totals[name] += value.item() * x.size(0)
            seen += x.size(0)
        return {name: float(v) / seen for name, v in totals.items()}


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    means = Trainer(model).train_one_epoch(data)
    print(" ".join(f"{k} {v:.6f}" for k, v in sorted(means.items())))
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
