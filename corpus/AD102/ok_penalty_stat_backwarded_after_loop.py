# expect-before: runs
# A smoothness penalty is summed over the chunks of one sequence, each a whole
# reduction of the network's output, and the sum is backwarded with the loss
# after the chunk loop, once per step: the sum is part of the loss (a
# meta-loss), and its graph is what the backward needs. The total starts
# again at every step.
import os

import torch
import torch.nn as nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
net = nn.Linear(5, 5)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for step in range(ITERS):
    seq = torch.randn(6, 4, 5)
    penalty = 0.0
    fit = 0.0
    for chunk in seq:
        out = net(chunk)
        fit = fit + (out - chunk).pow(2).mean()
        penalty += (out[1:] - out[:-1]).abs().mean()
    opt.zero_grad()
    (fit + 0.1 * penalty).backward()
    opt.step()
    print(f"{step} fit {fit.item():.6f} penalty {penalty.item():.6f}")
