# expect-before: runs
# Two chained models trained by ONE optimizer: loss2's gradients into model1
# are used by the step, so the first backward keeps the graph instead of
# anyone detaching `a`.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model1 = nn.Sequential(nn.Linear(6, 10), nn.ReLU())
model2 = nn.Sequential(nn.Linear(10, 10), nn.ReLU(), nn.Linear(10, 1))
opt = torch.optim.SGD(list(model1.parameters()) + list(model2.parameters()), lr=0.1)

for it in range(ITERS):
    x = torch.randn(20, 6)
    y = x[:, :1] - x[:, 1:2]
    a = model1(x)
    b = model2(a)
    loss1 = F.mse_loss(a.mean(0), torch.full((10,), 0.5))
    loss2 = F.mse_loss(b, y)
    opt.zero_grad()
    loss1.backward(retain_graph=True)
    loss2.backward()
    opt.step()
    print(f"{it} loss1 {loss1.item():.6f} loss2 {loss2.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model1.parameters()):.6f} "
      f"{sum(p.sum().item() for p in model2.parameters()):.6f}")
