# expect-before: runs
# The D step backpropagates through `netD(fake)` with retain_graph=True
# because the G step reuses the generator graph behind `fake`.
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
batch_size = 16
ones = torch.ones(batch_size, 1)
zeros = torch.zeros(batch_size, 1)

for it in range(ITERS):
    real = torch.randn(batch_size, 16) * 0.5 + 1.0
    fake = netG(torch.randn(batch_size, nz))
    netD.zero_grad()
    errD = criterion(netD(real), ones) + criterion(netD(fake), zeros)
    errD.backward(retain_graph=True)
    optimizerD.step()
    netG.zero_grad()
    errG = criterion(netD(fake), ones)
    errG.backward()
    optimizerG.step()
    print(f"{it} loss_D {errD.item():.6f} loss_G {errG.item():.6f}")

print(f"checksum G {sum(p.sum().item() for p in netG.parameters()):.6f}")
