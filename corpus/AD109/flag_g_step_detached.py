# expect-before: runs
# A "fixed" GAN in which the detach was also put into the generator step:
# the G loss no longer reaches netG, so optimizerG.step() never changes it.
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
ones = torch.ones(16, 1)
zeros = torch.zeros(16, 1)

for it in range(ITERS):
    real = torch.randn(16, 16) * 0.5 + 1.0
    fake = netG(torch.randn(16, nz))
    netD.zero_grad()
    errD = criterion(netD(real), ones) + criterion(netD(fake.detach()), zeros)
    errD.backward()
    optimizerD.step()
    netG.zero_grad()
    errG = criterion(netD(fake.detach()), ones)
    errG.backward()
    optimizerG.step()
    print(f"{it} loss_D {errD.item():.6f} loss_G {errG.item():.6f}")

print(f"checksum G {sum(p.sum().item() for p in netG.parameters()):.6f}")
