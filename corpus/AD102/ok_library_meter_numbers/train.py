# expect-before: runs
# The same library meter (out of the analysis's sight) gets the loss as a
# number and an accuracy computed from the network's output through argmax:
# neither carries a graph, and the output itself is never handed over.
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site"))
from meterlib import AverageMeter  # noqa: E402

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_one_epoch(model, optimizer, data):
    losses, top1 = AverageMeter("loss"), AverageMeter("top1")
    for x, y in data:
        out = model(x)
        loss = F.cross_entropy(out, y)
        acc = (out.argmax(1) == y).float().mean()
        losses.update(loss.item(), x.size(0))
        top1.update(acc, x.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return losses.avg, float(top1.avg)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    data = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
    loss, acc = train_one_epoch(model, opt, data)
    print(f"loss {loss:.6f} acc {acc:.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
