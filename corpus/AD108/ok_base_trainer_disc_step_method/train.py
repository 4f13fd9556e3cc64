# expect-before: runs
# The shape of flag_base_trainer_disc_step_method done right: `step_d` is
# handed the discriminator's scores of the detached generated batch, and the
# generator's loss scores the generated batch again after `self.optD` steps.
import os

import torch
import torch.nn.functional as F
from torch import nn

from gan_base import GANBase

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class GAN(GANBase):
    def step_d(self, d_fake, d_real):
        self.optD.zero_grad()
        loss_d = F.softplus(d_fake).mean() + F.softplus(-d_real).mean()
        loss_d.backward()
        self.optD.step()
        return loss_d.item()

    def train_batch(self, z, real):
        fake = self.netG(z)
        d_fake = self.netD(fake.detach())
        d_real = self.netD(real)
        loss_d = self.step_d(d_fake, d_real)
        self.optG.zero_grad()
        loss_g = F.softplus(-self.netD(fake)).mean()
        loss_g.backward()
        self.optG.step()
        return loss_d, loss_g.item()


G = nn.Sequential(nn.Linear(2, 5), nn.ReLU(), nn.Linear(5, 3))
D = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 1))
gan = GAN((G, D), [torch.optim.Adam(G.parameters(), lr=0.01), torch.optim.Adam(D.parameters(), lr=0.01)])
for it in range(ITERS):
    ld, lg = gan.train_batch(torch.randn(6, 2), torch.randn(6, 3))
    print(f"{it} {ld:.6f} {lg:.6f}")
print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f} after {ITERS}")
