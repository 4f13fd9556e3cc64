# expect-before: runs
# One Adam over both networks of a GAN trainer (the models are handed in, the
# optimizer built in __init__). The discriminator step backwards only D's
# graph (`fake.detach()`) right after `zero_grad()`, so G's gradients are
# None when the optimizer steps, and torch.optim skips such parameters: the
# generator's weights, which `fake`'s graph saved, are not touched, and the
# generator loss built after the step backwards through `fake` safely.
import itertools
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Generator(nn.Module):
    def __init__(self, latent=4, out=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent, 16), nn.ReLU(), nn.Linear(16, out))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, features=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(features, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)


class GANTrainer:
    def __init__(self, generator, discriminator, lr=2e-4):
        self.G = generator
        self.D = discriminator
        self.opt = torch.optim.Adam(itertools.chain(self.G.parameters(), self.D.parameters()), lr=lr,
                                    betas=(0.5, 0.999))

    def train_step(self, real, z):
        fake = self.G(z)
        ones, zeros = torch.ones(real.size(0), 1), torch.zeros(real.size(0), 1)
        d_loss = F.binary_cross_entropy_with_logits(self.D(real), ones) + \
            F.binary_cross_entropy_with_logits(self.D(fake.detach()), zeros)
        self.opt.zero_grad()
        d_loss.backward()
        self.opt.step()
        g_loss = F.binary_cross_entropy_with_logits(self.D(fake), ones)
        self.opt.zero_grad()
        g_loss.backward()
        self.opt.step()
        return d_loss.item(), g_loss.item()


if __name__ == "__main__":
    trainer = GANTrainer(Generator(), Discriminator())
    for it in range(ITERS):
        d, g = trainer.train_step(torch.randn(8, 6), torch.randn(8, 4))
        print(f"{it} d {d:.6f} g {g:.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.G.parameters()):.6f}")
