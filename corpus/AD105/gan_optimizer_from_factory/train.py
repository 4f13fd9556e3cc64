# expect-before: error Trying to backward through the graph a second time
# One optimizer over G and D, built by a factory in optim_setup.py; the
# loop zeroes the nets itself and only calls `opt.step()`. Nothing here says
# what `opt` steps, so nothing says D's gradients into G are thrown away:
# keep the graph (retain_graph=True gives the reference's numbers), never
# `D(fake.detach())`, which would stop G learning from D's loss.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from optim_setup import make_optimizer

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt = make_optimizer(G, D)

for it in range(ITERS):
    G.zero_grad()
    D.zero_grad()
    real = torch.randn(16, 8) + 1.0
    fake = G(torch.randn(16, 4))
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt.step()
    print(f"{it} d {d_loss.item():.6f} g {g_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f} "
      f"{sum(p.sum().item() for p in D.parameters()):.6f}")
