# expect-before: runs
# Both losses are built up front, but the generator steps first and the
# discriminator loss only sees `fake.detach()`: optG.step() changes no weight
# saved in d_loss's graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

netG = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 12))
netD = nn.Sequential(nn.Linear(12, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1), nn.Sigmoid())
bce = nn.BCELoss()
optimizer_G = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
valid = torch.ones(16, 1)
fake_label = torch.zeros(16, 1)

for it in range(ITERS):
    real = torch.randn(16, 12) * 0.5 + 1.0
    fake = netG(torch.randn(16, 8))
    g_loss = bce(netD(fake), valid)
    d_loss = (bce(netD(real), valid) + bce(netD(fake.detach()), fake_label)) / 2
    optimizer_G.zero_grad()
    g_loss.backward()
    optimizer_G.step()
    optimizer_D.zero_grad()
    d_loss.backward()
    optimizer_D.step()
    print(f"{it} d_loss {d_loss.item():.6f} g_loss {g_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in netG.parameters()):.6f}")
