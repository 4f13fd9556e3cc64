# expect-before: runs
# The same helper of the solver's own class adds each term into `self.pending`,
# but that sum is the loss: it is backwarded once per step and started again,
# so every summed graph is used and freed (gradient accumulation, not a log).
import os

import torch
import torch.nn as nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Solver:
    def __init__(self, model):
        self.model = model
        self.pending = 0.0

    def _add_term(self, loss):
        self.pending = self.pending + loss

    def _residual_loss(self, x):
        if not isinstance(x, list):
            loss = self.model(x).pow(2).mean()
            self._add_term(loss)
            return loss
        raise ValueError("residual points come as one tensor")

    def train_epoch(self, optimizer):
        last = 0.0
        for _ in range(ITERS):
            optimizer.zero_grad()
            for _ in range(2):
                self._residual_loss(torch.randn(16, 3))
            self.pending.backward()
            optimizer.step()
            last = self.pending.item()
            self.pending = 0.0
        return last

    def fit(self, optimizer, epochs):
        for epoch in range(epochs):
            print(f"epoch {epoch} last {self.train_epoch(optimizer):.6f}")


net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
solver = Solver(net)
solver.fit(torch.optim.SGD(net.parameters(), lr=0.05), ITERS)
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
