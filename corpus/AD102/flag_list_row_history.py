# expect-before: runs
# A training loop logs each step as a list `row = [loss, out.mean()]` and keeps
# the rows for the epoch: every row holds this step's graph, so memory grows.
# `row` is a list, which has no `.detach()` (nor `.item()`): the fix must be
# written per element, so the rule reports it and rewrites nothing.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train(model, opt, data):
    hist = []
    for x, y in data:
        out = model(x)
        loss = (out - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        row = [loss, out.mean()]
        hist.append(row)
    return hist


model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
for loss, mean in train(model, opt, data):
    print(f"loss {loss.item():.6f} mean {mean.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
