# expect-before: error Trying to backward through the graph a second time
# A GAN whose ONE optimizer steps `gan`, a module built from G and D, while
# the loop calls G and D by their own names. D's loss reaches G through
# `fake` and the step uses those gradients: retain_graph=True, not detach.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class GAN(nn.Module):
    def __init__(self, generator, discriminator):
        super().__init__()
        self.generator = generator
        self.discriminator = discriminator

G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
gan = GAN(G, D)
opt = torch.optim.Adam(gan.parameters(), lr=1e-3)

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
