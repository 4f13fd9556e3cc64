# expect-before: runs
# The clustering GAN written correctly: the discriminator scores a detached
# copy of the generated images, so its loss needs no generator weights.
import os
from itertools import chain as ichain

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
discriminator = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
optimizer_GE = torch.optim.Adam(ichain(generator.parameters(), encoder.parameters()), lr=1e-3)
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=1e-3)

torch.manual_seed(0)
for i in range(ITERS):
    real = torch.randn(8, 8)
    z = torch.randn(8, 4)
    gen_imgs = generator(z)
    d_gen = discriminator(gen_imgs)
    d_real = discriminator(real)
    optimizer_GE.zero_grad()
    ge_loss = torch.mean(d_gen) + (encoder(gen_imgs) - z).pow(2).mean()
    ge_loss.backward()
    optimizer_GE.step()
    optimizer_D.zero_grad()
    d_loss = torch.mean(d_real) - torch.mean(discriminator(gen_imgs.detach()))
    d_loss.backward()
    optimizer_D.step()
    print(f"{i} ge {ge_loss.item():.6f} d {d_loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in generator.parameters()):.6f}")
