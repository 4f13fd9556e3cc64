# expect-before: runs
# A loss module in another file returns (g_loss, d_loss, fake) from one forward,
# with the discriminator's loss built on fake.detach(): the generator's step
# before d_loss.backward() changes nothing that graph saved.
import os

import torch
import torch.nn as nn

from losses import GanLoss

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 6))
discriminator = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
loss_fn = GanLoss()
g_optimizer = torch.optim.Adam(generator.parameters(), lr=1e-3)
d_optimizer = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
for i in range(ITERS):
    real = torch.randn(8, 6)
    z = torch.randn(8, 4)
    g_loss, d_loss, fake = loss_fn(generator, discriminator, real, z)
    g_optimizer.zero_grad()
    g_loss.backward()
    g_optimizer.step()
    d_optimizer.zero_grad()
    d_loss.backward()
    d_optimizer.step()
    print(f"{i} g {g_loss.item():.6f} d {d_loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in generator.parameters()):.6f} "
      f"{sum(p.sum().item() for p in discriminator.parameters()):.6f}")
