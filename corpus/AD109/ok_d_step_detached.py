# expect-before: runs
# The correct discriminator step: `netD(fake.detach())` followed by
# optimizerD.step(), which owns only netD.
import os

import torch
import torch.nn as nn
import torch.optim as optim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

nz = 8
netG = nn.Sequential(nn.Linear(nz, 32), nn.ReLU(), nn.Linear(32, 16), nn.Tanh())
netD = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
real_label = 1.0
fake_label = 0.0
batch_size = 16

for it in range(ITERS):
    real = torch.randn(batch_size, 16) * 0.5 + 1.0
    # (1) Update D: maximize log(D(x)) + log(1 - D(G(z)))
    netD.zero_grad()
    label = torch.full((batch_size, 1), real_label)
    output = netD(real)
    errD_real = criterion(output, label)
    errD_real.backward()
    noise = torch.randn(batch_size, nz)
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach())
    errD_fake = criterion(output, label)
    errD_fake.backward()
    errD = errD_real + errD_fake
    optimizerD.step()
    # (2) Update G: maximize log(D(G(z)))
    netG.zero_grad()
    label.fill_(real_label)
    output = netD(fake)
    errG = criterion(output, label)
    errG.backward()
    optimizerG.step()
    print(f"{it} loss_D {errD.item():.6f} loss_G {errG.item():.6f}")

print(f"checksum G {sum(p.sum().item() for p in netG.parameters()):.6f}")
print(f"checksum D {sum(p.sum().item() for p in netD.parameters()):.6f}")
