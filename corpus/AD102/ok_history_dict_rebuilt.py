# expect-before: runs
# The record dict of lists is built again for every batch and handed to the
# logger: each loss lives for one step only.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.05)


def log(record, step):
    print(step, " ".join(f"{k} {v[-1].item():.6f}" for k, v in record.items()))


def train(iters):
    totals = {"loss": []}
    for step in range(iters):
        record = {"loss": [], "reg": []}
        x = torch.randn(32, 6)
        y = x[:, :1] * 0.5 - x[:, 1:2]
        loss = F.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        record["loss"].append(loss)
        record["reg"].append(sum(p.pow(2).sum() for p in net.parameters()).detach())
        log(record, step)
        totals["loss"].append(loss.item())
    return totals


print("mean", sum(train(ITERS)["loss"]) / ITERS)
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
