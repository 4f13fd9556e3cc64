# expect-before: error modified by an inplace operation
# autodetach-test: unsafe
# One Adam over both networks of a GAN trainer, as in
# ok_one_optimizer_gan_detached_d_step, but the gradients are cleared with
# `zero_grad(set_to_none=False)`: G's gradients are zeros, not None, so the
# discriminator step also updates the generator's weights in place (Adam's
# running averages move them), and the generator loss then backwards through
# `fake`, whose graph saved the old weights. Fix (unsafe): build `fake` again
# after the step.
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
        self.opt.zero_grad(set_to_none=False)
        d_loss.backward()
        self.opt.step()
        fake = self.G(z)
        g_loss = F.binary_cross_entropy_with_logits(self.D(fake), ones)
        self.opt.zero_grad(set_to_none=False)
        g_loss.backward()
        self.opt.step()
        return d_loss.item(), g_loss.item()


if __name__ == "__main__":
    trainer = GANTrainer(Generator(), Discriminator())
    for it in range(ITERS):
        d, g = trainer.train_step(torch.randn(8, 6), torch.randn(8, 4))
        print(f"{it} d {d:.6f} g {g:.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.G.parameters()):.6f}")
