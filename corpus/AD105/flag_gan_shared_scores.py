# expect-before: error Trying to backward through the graph a second time
# A GAN scores the fakes with D once and builds both losses from those
# scores, then steps D between the two backward calls. The error says the
# graph was freed, but retain_graph=True would only trade it for "modified by
# an inplace operation": g_loss's graph saved D's weights, which opt_d.step()
# has just changed. The scores must be computed again after D's step (with a
# fresh G forward, or D(fake.detach()) for the D loss); AD105 reports
# without a fix.
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
    fake = G(torch.randn(32, 4))
    d_real = D(real)
    d_fake = D(fake)
    d_loss = bce(d_real, torch.ones_like(d_real)) + bce(d_fake, torch.zeros_like(d_fake))
    g_loss = bce(d_fake, torch.ones_like(d_fake))
    opt_g.zero_grad()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss.backward()
    opt_g.step()
    print(f"{it} d {d_loss.item():.6f} g {g_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f}")
