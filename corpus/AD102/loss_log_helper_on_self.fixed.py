# expect-before: runs
# A solver sums each loss term into `self.loss_log` through a helper of its
# own class (`self._update_loss_log(name, loss)`), called from the method that
# computes the term, inside an arm that returns. The sum is printed and reset
# once per epoch, so every batch's graph stays alive until then.
import os

import torch
import torch.nn as nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Solver:
    def __init__(self, model):
        self.model = model
        self.loss_log = {}

    def _update_loss_log(self, name, loss):
        self.loss_log[name] = (self.loss_log.get(name, 0.0) + loss).detach()

    def _residual_loss(self, x):
        if not isinstance(x, list):
            loss = self.model(x).pow(2).mean()
            self._update_loss_log("residual", loss)
            return loss
        raise ValueError("residual points come as one tensor")

    def total_loss(self, x):
        total = 0.0
        total += self._residual_loss(x)
        return total

    def train_epoch(self, optimizer):
        for _ in range(ITERS):
            optimizer.zero_grad()
            loss = self.total_loss(torch.randn(16, 3))
            loss.backward()
            optimizer.step()

    def fit(self, optimizer, epochs):
        for epoch in range(epochs):
            self.train_epoch(optimizer)
            print(f"epoch {epoch} residual {self.loss_log['residual'] / ITERS:.6f}")
            for key in self.loss_log:
                self.loss_log[key] = 0.0


net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
solver = Solver(net)
solver.fit(torch.optim.SGD(net.parameters(), lr=0.05), ITERS)
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
