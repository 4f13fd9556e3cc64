# expect-before: runs
# checkpoint_sequential over a deep nn.Sequential, through a module alias.
import os

import torch
import torch.nn as nn
import torch.utils.checkpoint as cp

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
net = nn.Sequential(*[nn.Sequential(nn.Linear(8, 8), nn.ReLU()) for _ in range(4)])
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for it in range(ITERS):
    x = torch.randn(5, 8, requires_grad=True)
    out = cp.checkpoint_sequential(net, 2, x)
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("%.6f %.6f" % (loss.item(), x.grad.abs().sum().item()))
