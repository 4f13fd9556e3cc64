# expect-before: runs
# Two losses backwarded one after the other, but from two separate forward
# passes: each backward frees only its own graph.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for it in range(ITERS):
    x_src = torch.randn(16, 6)
    x_tgt = torch.randn(16, 6) + 0.5
    opt.zero_grad()
    loss_src = F.mse_loss(model(x_src), x_src[:, :1])
    loss_src.backward()
    loss_tgt = model(x_tgt).pow(2).mean()
    loss_tgt.backward()
    opt.step()
    print(f"{it} src {loss_src.item():.6f} tgt {loss_tgt.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
