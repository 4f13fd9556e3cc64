# expect-before: runs
# A pix2pix-style loop with the losses written inline, as the method has it:
# the discriminator's step runs it on `fake.detach()` (that step must not
# train the generator), and the generator's adversarial term runs it on the
# live fake, so both of the generator's terms train it.
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(netG, netD, opt_g, opt_d, loader, lam=10.0):
    for cond, target in loader:
        fake = netG(cond)
        opt_d.zero_grad()
        d_loss = F.softplus(-netD(torch.cat((cond, target), 1))).mean() + \
            F.softplus(netD(torch.cat((cond, fake.detach()), 1))).mean()
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = F.softplus(-netD(torch.cat((cond, fake), 1))).mean() + lam * F.l1_loss(fake, target)
        g_loss.backward()
        opt_g.step()
        print(f"d {d_loss.item():.6f} g {g_loss.item():.6f}")


torch.manual_seed(0)
netG, netD = nn.Linear(6, 6), nn.Linear(12, 1)
opt_g = torch.optim.SGD(netG.parameters(), lr=0.05)
opt_d = torch.optim.SGD(netD.parameters(), lr=0.05)
data = [(torch.randn(4, 6), torch.randn(4, 6)) for _ in range(ITERS)]
train(netG, netD, opt_g, opt_d, data)
print(f"checksum {sum(p.sum().item() for p in netG.parameters()):.6f}")
