# expect-before: runs
# autodetach-test: unsafe
# The epoch loop owns an AverageMeter and hands it to the step helper, which
# backwards, steps and then records the loss with `meter.update(loss, n)`.
# The meter's `update` adds what it is given into `self.sum`, so the epoch's
# sum chains every step's graph. The meter reaches the helper as a parameter:
# the store is seen by walking the helper at its call, and what the meter keeps
# is inferred from its method's code, so passing `.detach()` is offered as unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class AverageMeter:
    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def train_step(model, optimizer, batch, meter):
    x, y = batch
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    meter.update(loss, x.size(0))


def train_epoch(model, optimizer, loader):
    losses = AverageMeter()
    for batch in loader:
        train_step(model, optimizer, batch, losses)
    return float(losses.avg)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    data = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
    for epoch in range(2):
        print(f"epoch {epoch} avg {train_epoch(net, opt, data):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
