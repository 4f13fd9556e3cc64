# expect-before: runs
# autodetach-test: unsafe
# A multi-stage text-to-image GAN trainer (the AttnGAN/ControlGAN shape): each
# stage's discriminator loss comes from `discriminator_loss` in losses.py, which
# runs the discriminator on `fake_imgs.detach()`, and is backwarded with
# retain_graph=True. Nothing backwards that graph again: the generator loss
# runs its own discriminator forwards on the fakes. So the retain only keeps
# every stage's discriminator graph alive until the next iteration. That the
# helper cuts the fakes is inferred from another file, so the fix is unsafe.
import os

import torch
from torch import nn

from losses import discriminator_loss, generator_loss

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Disc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(6 + 3, 1)

    def forward(self, x, c):
        return torch.sigmoid(self.net(torch.cat([x, c], 1)))


class Trainer:
    def __init__(self):
        self.netG = nn.ModuleList([nn.Linear(3 + 4, 6), nn.Linear(6, 6)])
        self.netsD = [Disc(), Disc()]
        self.optimizerG = torch.optim.Adam(self.netG.parameters(), lr=0.01)
        self.optimizersD = [torch.optim.Adam(d.parameters(), lr=0.01) for d in self.netsD]

    def train(self, steps):
        netG, netsD = self.netG, self.netsD
        for step in range(steps):
            cond = torch.randn(8, 3)
            imgs = [torch.randn(8, 6), torch.randn(8, 6)]
            h = torch.tanh(netG[0](torch.cat([cond, torch.randn(8, 4)], 1)))
            fake_imgs = [h, torch.tanh(netG[1](h))]
            errD_total = 0
            for i in range(len(netsD)):
                netsD[i].zero_grad()
                errD = discriminator_loss(netsD[i], imgs[i], fake_imgs[i], cond)
                errD.backward()
                self.optimizersD[i].step()
                errD_total += errD.item()
            netG.zero_grad()
            errG_total = generator_loss(netsD, fake_imgs, cond)
            errG_total.backward()
            self.optimizerG.step()
            print(step, f"{errD_total:.6f} {errG_total.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer()
    trainer.train(ITERS)
    print(f"checksum {sum(p.sum().item() for p in trainer.netG.parameters()):.6f}")
