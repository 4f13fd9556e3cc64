# expect-before: runs
# A GAN wrapper (a plain class) builds its loss object once, from the
# critic, in a private set-up method. The generator step backwards a fresh
# loss with retain_graph=True although nothing walks that graph again: the
# method returns loss.item(), so the retain only keeps the generator and
# critic activations alive until the next call. The generator's input is an
# argument: that no caller backwards through it again is inferred, so the
# fix is unsafe.
# autodetach-test: unsafe
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GAN:
    def __init__(self, loss="wgan", n_critic=2):
        self.gen = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
        self.dis = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.n_critic = n_critic
        self.gen_optim = torch.optim.Adam(self.gen.parameters(), lr=1e-3)
        self.dis_optim = torch.optim.Adam(self.dis.parameters(), lr=1e-3)
        self.loss = self.__setup_loss(loss)

    def __setup_loss(self, loss):
        import gan_losses as losses

        if isinstance(loss, str):
            if loss == "wgan":
                loss = losses.WassersteinLoss(self.dis)
            else:
                raise ValueError("unknown loss " + loss)
        elif not isinstance(loss, losses.CriticLoss):
            raise ValueError("not a critic loss")
        return loss

    def optimize_discriminator(self, noise, real):
        loss_val = 0
        for _ in range(self.n_critic):
            fake = self.gen(noise).detach()
            loss = self.loss.dis_loss(real, fake)
            self.dis_optim.zero_grad()
            loss.backward()
            self.dis_optim.step()
            loss_val += loss.item()
        return loss_val / self.n_critic

    def optimize_generator(self, noise):
        loss = self.loss.gen_loss(self.gen(noise))
        self.gen_optim.zero_grad()
        loss.backward()
        self.gen_optim.step()
        return loss.item()


torch.manual_seed(0)
gan = GAN()
for it in range(ITERS):
    noise, real = torch.randn(16, 8), torch.randn(16, 4) + 1.0
    d = gan.optimize_discriminator(noise, real)
    g = gan.optimize_generator(noise)
    print(f"{it} d {d:.6f} g {g:.6f}")
print(f"checksum {sum(p.sum().item() for p in gan.gen.parameters()):.6f}")
