# expect-before: error Trying to backward through the graph a second time
# An input projection and a head trained by ONE optimizer, plus an auxiliary
# optimizer that nudges the projection right after its own loss. The step in
# between does not break retain_graph=True: the projection is a single
# nn.Linear on raw data, so the graph saved its input, not its weight.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

proj = nn.Linear(6, 8)
head = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(list(proj.parameters()) + list(head.parameters()), lr=0.05)
aux_opt = torch.optim.SGD(proj.parameters(), lr=0.01)

for it in range(ITERS):
    x = torch.randn(20, 6)
    y = x[:, :1] * x[:, 1:2]
    z = proj(x)
    pred = head(z)
    aux_loss = F.mse_loss(z, torch.zeros_like(z))
    loss = F.mse_loss(pred, y)
    opt.zero_grad()
    aux_loss.backward()
    aux_opt.step()
    loss.backward()
    opt.step()
    print(f"{it} aux {aux_loss.item():.6f} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in proj.parameters()):.6f} "
      f"{sum(p.sum().item() for p in head.parameters()):.6f}")
