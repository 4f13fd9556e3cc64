# expect-before: error Trying to backward through the graph a second time
# ONE optimizer built over G, then given D with add_param_group: it steps
# both, so the gradients D's loss puts into G are used: retain_graph=True.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(G.parameters(), lr=1e-3)
opt.add_param_group({"params": D.parameters(), "lr": 5e-4})

for it in range(ITERS):
    real = torch.randn(16, 8) + 1.0
    fake = G(torch.randn(16, 4))
    opt.zero_grad()
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt.step()
    print(f"{it} d {d_loss.item():.6f} g {g_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f} "
      f"{sum(p.sum().item() for p in D.parameters()):.6f}")
