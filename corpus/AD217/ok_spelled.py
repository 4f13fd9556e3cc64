# expect-before: runs
# requires_grad spelt right, everywhere.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
net = nn.Linear(3, 1)
net.bias.requires_grad = False
w = torch.ones(3, requires_grad=True)
for it in range(ITERS):
    loss = net(torch.randn(4, 3) * w).sum()
    loss.backward()
    print("%.6f %s" % (loss.item(), net.bias.grad is None))
