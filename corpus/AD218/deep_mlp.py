# expect-before: runs
# Activation checkpointing as in 2019 memory-saving examples: the blocks are
# checkpointed without saying which implementation (warns on torch 2.x).
import os

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
stem = nn.Linear(6, 16)
blocks = nn.ModuleList([nn.Sequential(nn.Linear(16, 16), nn.Tanh()) for _ in range(3)])
head = nn.Linear(16, 1)
params = list(stem.parameters()) + list(blocks.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.05)
for it in range(ITERS):
    h = stem(torch.randn(8, 6))
    for b in blocks:
        h = checkpoint(b, h)
    loss = head(h).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("%.6f" % loss.item())
