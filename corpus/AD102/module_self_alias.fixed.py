# expect-before: runs
# autodetach-test: unsafe
# A library file that names itself (`lib = sys.modules[__name__]`, as the d2l
# book's files do) and builds its own epoch meter through that name. The
# batch step returns `l.sum()`, which still carries the graph, and
# `lib.Accumulator.add` adds the loss into its sums as given: every batch's graph stays
# alive in the epoch sums until the epoch ends. What the meter keeps is
# inferred from its method's code, so the fix is offered as unsafe.
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
lib = sys.modules[__name__]


class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, loss, count):
        self.data[0] += loss
        self.data[1] += count

    def __getitem__(self, idx):
        return self.data[idx]


def evaluate(net, batches):
    metric = lib.Accumulator(2)
    with torch.no_grad():
        for x, y in batches:
            metric.add(F.mse_loss(net(x), y, reduction="sum"), y.numel())
    return metric[0] / metric[1]


def train_batch(net, x, y, loss, trainer):
    trainer.zero_grad()
    l = loss(net(x), y)
    l.sum().backward()
    trainer.step()
    return l.sum(), y.numel()


def train(net, batches, loss, trainer, num_epochs):
    history = []
    for epoch in range(num_epochs):
        metric = lib.Accumulator(2)
        for x, y in batches:
            l, n = train_batch(net, x, y, loss, trainer)
            metric.add(l.detach(), n)
        history.append((float(metric[0] / metric[1]), lib.evaluate(net, batches)))
    return history


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
trainer = torch.optim.SGD(net.parameters(), lr=0.05)
batches = [(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(ITERS)]

if __name__ == "__main__":
    for epoch, (train_l, test_l) in enumerate(train(net, batches, nn.MSELoss(reduction="none"), trainer, 2)):
        print(f"{epoch} train {train_l:.6f} test {test_l:.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
