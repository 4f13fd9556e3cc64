# expect-before: runs
# autodetach-test: unsafe
# A metric from the project's meters.py sums what it is given after averaging
# it over workers with an all-reduce helper of another module (comm.py), which
# keeps the graph like horovod's allreduce. The training function hands it the
# backwarded loss, so the metric's sum chains every step's graph for the epoch.
# That the helper keeps the graph is inferred: the fix is offered as unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from meters import Metric

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_epoch(model, optimizer, loader):
    train_loss = Metric("train_loss")
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        train_loss.update(loss)
        print(f"loss {loss.item():.6f} avg {train_loss.avg.item():.6f}")
    return train_loss.avg.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    data = [(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(ITERS)]
    print(f"epoch {train_epoch(net, opt, data):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
