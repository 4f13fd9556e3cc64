# expect-before: runs
# The modern GAN step: the generator loss is built after the discriminator's
# step, from the updated discriminator.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

latent_dim, data_dim, batch = 8, 12, 16
netG = nn.Sequential(nn.Linear(latent_dim, 32), nn.ReLU(), nn.Linear(32, data_dim))
netD = nn.Sequential(nn.Linear(data_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1), nn.Sigmoid())
adversarial_loss = nn.BCELoss()
optimizer_G = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
valid = torch.ones(batch, 1)
fake_label = torch.zeros(batch, 1)

for it in range(ITERS):
    real = torch.randn(batch, data_dim) * 0.5 + 1.0
    z = torch.randn(batch, latent_dim)
    fake = netG(z)
    d_loss = (adversarial_loss(netD(real), valid) + adversarial_loss(netD(fake.detach()), fake_label)) / 2
    optimizer_D.zero_grad()
    d_loss.backward()
    optimizer_D.step()
    optimizer_G.zero_grad()
    g_loss = adversarial_loss(netD(fake), valid)
    g_loss.backward()
    optimizer_G.step()
    print(f"{it} d_loss {d_loss.item():.6f} g_loss {g_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in netG.parameters()):.6f}")
