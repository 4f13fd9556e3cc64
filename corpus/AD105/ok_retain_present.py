# expect-before: runs
# Two chained models trained by one optimizer, with retain_graph=True on the
# first of the two backwards already in place.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

m1 = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 8))
m2 = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(list(m1.parameters()) + list(m2.parameters()), lr=0.05)

for it in range(ITERS):
    x = torch.randn(20, 6)
    y = x[:, :1] * x[:, 1:2]
    a = m1(x)
    b = m2(a)
    loss1 = F.mse_loss(a, torch.zeros_like(a))
    loss2 = F.mse_loss(b, y)
    opt.zero_grad()
    loss1.backward(retain_graph=True)
    loss2.backward()
    opt.step()
    print(f"{it} loss1 {loss1.item():.6f} loss2 {loss2.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in m1.parameters()):.6f} "
      f"{sum(p.sum().item() for p in m2.parameters()):.6f}")
