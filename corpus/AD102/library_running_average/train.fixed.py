# expect-before: runs
# autodetach-test: unsafe
# A training epoch (model and optimizer handed in) appends each
# backwarded loss to a running average from an installed library and prints
# the aggregate. This library's `append` keeps the tensor, graph and all
# (others detach it); the analysis cannot read it, so that the object keeps
# the graph is inferred from the method's name, and the `.detach()` fix is
# offered as unsafe.
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site"))
from avglib import RunningAverage  # noqa: E402

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_epoch(model, optimizer, loader):
    run_loss = RunningAverage()
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        run_loss.append(loss.detach())
    return float(run_loss.aggregate())


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loader = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
    print(f"loss {train_epoch(model, optimizer, loader):.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
