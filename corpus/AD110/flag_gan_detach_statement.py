# expect-before: error Trying to backward through the graph a second time
# The D step says `fake.detach()` as a statement: a no-op, so the D backward
# frees G's graph and the G backward fails. Assigning it back (`fake =
# fake.detach()`) would also cut G from its own loss, later in the step: G
# would never learn. AD110 reports it without a fix; the right cut is in the
# D loss only, D(fake.detach()), which AD103 offers.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)

for it in range(ITERS):
    real = torch.randn(16, 8)
    fake = G(torch.randn(16, 4))
    opt_d.zero_grad()
    fake.detach()
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt_g.step()
    print(f"{it} d {d_loss.item():.6f} g {g_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f} "
      f"{sum(p.sum().item() for p in D.parameters()):.6f}")
