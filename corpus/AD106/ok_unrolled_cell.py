# expect-before: runs
# A GRUCell unrolled over the whole sequence inside one iteration, followed by
# a single backward: the recurrence never crosses an iteration boundary.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

T, B, D, H = 10, 8, 3, 16
cell = nn.GRUCell(D, H)
out_layer = nn.Linear(H, 1)
opt = torch.optim.Adam(list(cell.parameters()) + list(out_layer.parameters()), lr=1e-2)
for it in range(ITERS):
    x = torch.randn(T, B, D)
    target = x[:, :, 0].sum(0, keepdim=True).t()
    h = torch.zeros(B, H)
    for t in range(T):
        h = cell(x[t], h)
    loss = F.mse_loss(out_layer(h), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{it} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in cell.parameters()):.6f}")
