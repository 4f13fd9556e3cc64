# expect-before: runs
# A bare expression statement that prints a detached tensor: the call's
# result is consumed by print, not discarded.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
torch.set_printoptions(precision=6)

net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for it in range(ITERS):
    x = torch.randn(4, 3)
    pred = net(x)
    loss = (pred - x.sum(1, keepdim=True)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(pred.detach().squeeze(1))
    print(f"{it} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
