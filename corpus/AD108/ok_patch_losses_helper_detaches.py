# expect-before: runs
# A patch GAN trainer with phase methods: `forward()` keeps the fakes and
# lists of random crops of them on `self`; the generator is stepped first,
# then the discriminator's loss sums `self.d_loss_basic(netD, real, fake)`
# over the crops, read as list elements (`self.fake_crops[i]`). The helper
# scores `fake.detach()`, so its result hangs only from the real crops and
# the discriminator: the discriminator's backward never reaches the
# generator weights the step changed. Nothing to report.
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class PatchGAN:
    def __init__(self, n_crops=3):
        self.n_crops = n_crops
        self.netG = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
        self.netD = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=1e-3)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=1e-3)

    def set_input(self, source, target):
        self.source, self.target = source, target

    def forward(self):
        self.fake = self.netG(self.source)
        starts = torch.randint(0, 5, (self.n_crops,)).tolist()
        self.fake_crops = [self.fake[:, s:s + 4] for s in starts]
        self.real_crops = [self.target[:, s:s + 4] for s in starts]

    def d_loss_basic(self, netD, real, fake):
        pred_real = netD(real)
        pred_fake = netD(fake.detach())
        return (F.softplus(-pred_real).mean() + F.softplus(pred_fake).mean()) * 0.5

    def backward_G(self):
        loss = F.l1_loss(self.fake, self.target)
        for i in range(self.n_crops):
            loss = loss + F.softplus(-self.netD(self.fake_crops[i])).mean()
        self.loss_G = loss
        self.loss_G.backward()

    def backward_D(self):
        loss_D = self.d_loss_basic(self.netD, self.real_crops[0], self.fake_crops[0])
        for i in range(1, self.n_crops):
            loss_D += self.d_loss_basic(self.netD, self.real_crops[i], self.fake_crops[i])
        self.loss_D = loss_D / float(self.n_crops)
        self.loss_D.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()


model = PatchGAN()
for i in range(ITERS):
    model.set_input(torch.randn(6, 8), torch.randn(6, 8))
    model.optimize_parameters()
    print(f"{i} g {model.loss_G.item():.6f} d {model.loss_D.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.netG.parameters()):.6f}")
