# expect-before: runs
# A lower-case averager class from the project's helpers.py, made through
# the module (`helpers.averager()`). Its `add` reads `v.data` in the
# `isinstance(v, Variable)` branch, which every tensor takes since
# PyTorch 0.4, so the running sum keeps no graph: nothing to report.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

import helpers

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_batch(net, opt):
    x = torch.randn(8, 6)
    loss = F.mse_loss(net(x), x.mean(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
loss_avg = helpers.averager()

if __name__ == "__main__":
    for i in range(ITERS):
        cost = train_batch(net, opt)
        loss_avg.add(cost)
        print(f"{i} loss {float(loss_avg.val()):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
