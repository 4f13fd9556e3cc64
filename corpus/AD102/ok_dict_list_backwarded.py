# expect-before: runs
# Gradient accumulation through a dict of lists: the losses of a few batches
# are collected under one key and backwarded together, then the list is
# started again.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.05)


def train(iters, accum=2):
    pending = {"loss": []}
    for step in range(iters * accum):
        x = torch.randn(32, 6)
        y = x[:, :1] * 0.5 - x[:, 1:2]
        pending["loss"].append(F.mse_loss(net(x), y))
        if (step + 1) % accum == 0:
            opt.zero_grad()
            total = torch.stack(pending["loss"]).mean()
            total.backward()
            opt.step()
            print(step, f"{total.item():.6f}")
            pending["loss"] = []


train(ITERS)
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
