# expect-before: error modified by an inplace operation
# A GAN computes the generator loss through D before D's optimizer step and
# backwards it after that step. d_loss.backward() frees G's graph, which
# g_loss needs, but retain_graph=True is no fix: opt_d.step() changes D's
# weights in place after g_out saved them, so the retained run fails with
# "modified by an inplace operation". The generator loss must be computed
# again after the step (AD108); AD105 reports without a fix.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
bce = nn.BCEWithLogitsLoss()
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)

for it in range(ITERS):
    real = torch.randn(32, 2) * 0.5 + 1.0
    z = torch.randn(32, 4)
    fake = G(z)
    d_real = D(real)
    d_fake = D(fake)
    d_loss = bce(d_real, torch.ones_like(d_real)) + bce(d_fake, torch.zeros_like(d_fake))
    g_out = D(fake)
    g_loss = bce(g_out, torch.ones_like(g_out))
    opt_g.zero_grad()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss.backward()
    opt_g.step()
    print(f"{it} d {d_loss.item():.6f} g {g_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f}")
